//! Time going backwards and the wording of counts (issue 18, item 4; docs/ANALYSIS.md
//! "Time going backwards"): analysis times never go back, so no duration, gap or
//! stall is negative, one bad stamp moves one packet only, and the warning counts
//! the backward steps.

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::{analyze_bytes, Session};
use tcpscope_core::synth::*;

fn analyze(frames: &[Frame]) -> Session {
    let bytes = write_pcap(frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    analyze_bytes(&bytes, AnalysisOptions::default(), 4096)
}

/// A bulk transfer: handshake at 0 (1 ms RTT), then a 1448-byte segment and its ACK
/// every 100 µs from 2 ms on, `n` segments.
fn bulk(n: i64) -> Flow {
    let mut f = Flow::new("10.9.0.1:40000", "10.9.0.2:80");
    f.handshake(0, 1_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    for i in 0..n {
        f.data(S2C, 2_000 + i * 100, 1448);
        f.push(C2S, 2_050 + i * 100);
    }
    f
}

#[test]
fn a_packet_stamped_50_s_early_opens_no_stall_and_nothing_is_negative() {
    // Issue 18 saw "a 50 s stall at −49.85 s": one data packet stamped 50 s before
    // the capture began. It is analysed at the latest time before it (rule 2), so
    // the capture still spans 0 → 12.05 ms and no stall appears.
    let flow = bulk(100);
    let mut frames = flow.frames();
    frames[103].ts_ns -= 50_000_000_000;
    let s = analyze(&frames);
    let r = s.report();
    assert_eq!(r.capture.duration, 0.01195); // the last ACK: 2 ms + 99 × 100 µs + 50 µs
    let warning = r.warnings.iter().find(|w| w.kind == "time-went-backwards").expect("the step back is reported");
    assert_eq!(warning.count, 1);
    assert!(warning.message.starts_with("1 packet whose timestamp is earlier"), "{}", warning.message);
    let c = &r.connections[0];
    assert!(c.start >= 0.0 && c.end >= c.start, "{} {}", c.start, c.end);
    for d in c.directions.iter() {
        assert_eq!(d.stalls.len(), 0, "{:?}", d.stalls);
    }
}

#[test]
fn the_mean_while_active_stays_at_or_below_the_peak_on_a_coarse_clock() {
    // A 16 ms transfer on an 8 ms capture clock: 30 segments stamped 0, 8 and 16 ms
    // (10 each). Bins are one tick (8 ms; auto_bin never goes below the clock), so
    // each holds 10 segments: 14 480 B × 8 / 8 ms = 14.48 Mbit/s. The bytes stamped
    // at the first instant took no time to send; the 20 segments after them took
    // 16 ms: mean while active = 28 960 B × 8 / 16 ms = 14.48 Mbit/s, the bins' rate
    // (counting all 30 would say 21.72 Mbit/s, above every bin). The connection mean
    // keeps the oracle's definition (all bytes / duration = 21.72 Mbit/s), and the
    // peak is then raised to it (throughput.rs: "peak ≥ mean by construction").
    let mut f = Flow::new("10.9.0.1:40000", "10.9.0.2:80");
    f.handshake(0, 0, Opts::new().mss(1460), Opts::new().mss(1460));
    for tick in 0..3 {
        for _ in 0..10 {
            f.data(S2C, tick * 8_000, 1448);
        }
        f.push(C2S, tick * 8_000);
    }
    let s = analyze(&f.frames());
    let r = s.report();
    let c = &r.connections[0];
    let t = &c.directions[1].throughput;
    assert_eq!(t.bin_seconds, 0.008);
    assert_eq!(t.active_mean_bps, 14_480_000.0);
    assert_eq!((t.mean_bps, t.peak_bps), (21_720_000.0, 21_720_000.0));
    assert!(t.active_mean_bps <= t.peak_bps);
}

#[test]
fn two_captures_joined_years_apart_are_reported_not_changed() {
    // Two captures of 20 bulk segments each, the second 3 years (94,608,000 s) after
    // the first, joined into one file (frames 1-43 and 44-86). The jump is no lone
    // outlier — the packets after it follow on — so everything is analysed as
    // stamped (as Wireshark shows it), and the capture lasts the 3 years plus the
    // second capture's 3.95 ms. Before, that span came with no word; now the
    // `time-jumped-forward` warning names frame 44 and the jump past frame 43 (the
    // last ACK at 3.95 ms): 94,608,000 s − 3.95 ms = 1,095.0 days.
    let years = 3 * 365 * 86_400 * 1_000_000_000i64;
    let first = bulk(20).frames();
    let mut second = Flow::new("10.9.0.1:40001", "10.9.0.2:80");
    second.start_ns(Flow::EPOCH_NS + years);
    second.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for i in 0..20 {
        second.data(S2C, 2_000 + i * 100, 1448);
        second.push(C2S, 2_050 + i * 100);
    }
    let frames: Vec<Frame> = first.into_iter().chain(second.frames()).collect();
    assert_eq!(frames.len(), 86);
    let s = analyze(&frames);
    let r = s.report();
    assert_eq!(r.capture.duration, (years + 3_950_000) as f64 / 1e9);
    let jumps: Vec<_> = r.warnings.iter().filter(|w| w.kind == "time-jumped-forward").collect();
    assert_eq!(jumps.len(), 1, "{:?}", r.warnings.iter().map(|w| w.kind).collect::<Vec<_>>());
    assert_eq!(jumps[0].count, 1);
    assert!(jumps[0].message.ends_with(": frame 44, 1,095.0 days past every packet before it"), "{}", jumps[0].message);
    // Nothing else moved: no time-order warning, two connections at their own times.
    assert!(r.warnings.iter().all(|w| !w.kind.starts_with("time-order")), "{:?}", r.warnings.iter().map(|w| w.kind).collect::<Vec<_>>());
    assert_eq!(r.connections.len(), 2);
    assert_eq!(r.connections[1].start, years as f64 / 1e9);
}
