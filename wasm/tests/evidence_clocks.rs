//! Issue 39, expert review H (classes K and N): two clocks the analysis read without
//! knowing their tick, each synthesized with a known answer (tests/common's generator),
//! and checked on the captures by others that showed them when `TCPSCOPE_CORPUS` names
//! their folder.
//!
//! K. A capture merged from several clocks: the capture's tick is its finest clock's
//!    (1 µs), and a connection stamped by a 60 Hz timer read every tick as a stall, its
//!    causes taken from the order of frames that share a timestamp. Its own tick sets
//!    its thresholds (analysis/capture/clock.rs `own_tick_ns`).
//! N. A sender whose TSval moves 50 ticks at a time: an unchanged TSval across a 20 ms gap
//!    says nothing, so "held on the path" needs the advance plus two granules of its clock
//!    below half the gap (analysis/timing/sender_clock.rs `SenderClock::granularity`;
//!    RFC 7323 §5.4: a TS clock ticks every 1 ms to 1 s).

use crate::common;

use tcpscope_core::analysis::{AnalysisOptions, Analysis, ConnectionSummary, StallCause};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

/// A 60 Hz timer's tick, ns (16.666… ms): not a whole number of µs, so written in a µs
/// pcap its instants are 16.666 or 16.667 ms apart.
const TICK_NS: f64 = 1e9 / 60.0;

/// `flows` merged into one µs pcap, the frames of `coarse` (indices into `flows`) stamped
/// by a 60 Hz timer: each time rounded down to its tick, then to the µs.
fn merged(flows: &[&Flow], coarse: &[usize], options: AnalysisOptions) -> Analysis {
    let mut frames = Vec::new();
    for (i, f) in flows.iter().enumerate() {
        for mut fr in f.frames() {
            if coarse.contains(&i) {
                let since = (fr.ts_ns - Flow::EPOCH_NS) as f64;
                let tick_start = (since / TICK_NS).floor() * TICK_NS;
                fr.ts_ns = Flow::EPOCH_NS + ((tick_start / 1000.0).round() as i64) * 1000;
            }
            frames.push(fr);
        }
    }
    frames.sort_by_key(|fr| fr.ts_ns);
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    if let Some(dir) = std::env::var_os("TCPSCOPE_DUMP") {
        let name = std::thread::current().name().unwrap_or("capture").replace("::", "_");
        let _ = std::fs::write(std::path::Path::new(&dir).join(format!("{name}.pcap")), &bytes);
    }
    analyze_bytes(&bytes, options, 1 << 20).analysis().expect("analysed").clone()
}

/// A download at ~4 Mbit/s (one 1448-byte segment every 2.9 ms, the client's ACK of
/// every second one 2.5 ms later), 200 segments; `pause_us` after segment 100.
fn download(client: &str, pause_us: i64) -> Flow {
    let mut f = Flow::new(client, "10.0.0.1:443");
    f.handshake(0, 5_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    f.data(C2S, 5_100, 200);
    let mut t = 10_000i64;
    for k in 0..200 {
        if k == 100 {
            t += pause_us;
        }
        f.data(S2C, t, 1448);
        if k % 2 == 1 {
            f.push(C2S, t + 2_500);
        }
        t += 2_900;
    }
    f
}

/// A µs-timed upload beside it all along: one segment every 397 µs (odd µs: the capture's
/// tick is 1 µs), 1,600 segments, ACKed every second one 151 µs later.
fn fine_upload() -> Flow {
    let mut f = Flow::new("10.0.0.3:50000", "10.0.0.4:5001");
    f.handshake(0, 211, Opts::new().mss(1460), Opts::new().mss(1460));
    let mut t = 300i64;
    for k in 0..1600 {
        f.data(C2S, t, 1448);
        if k % 2 == 1 {
            f.push(S2C, t + 151);
        }
        t += 397;
    }
    f
}

fn stalls(c: &ConnectionSummary) -> &[tcpscope_core::analysis::Stall] {
    &c.directions[c.data_direction as usize].stalls
}

#[test]
fn a_connection_stamped_by_a_coarser_clock_than_the_capture_has_no_one_tick_stalls() {
    let (up, down) = (fine_upload(), download("10.0.0.2:40000", 0));
    let a = merged(&[&up, &down], &[1], AnalysisOptions::default());
    // The capture's tick is the upload's 1 µs: its odd steps leave a gcd of 1 µs, and
    // fewer than 30 % of consecutive frames share a timestamp (the download's ~9 frames
    // per tick among the upload's ~63).
    assert_eq!(a.capture.timestamp_resolution_ns, Some(1_000));
    let (fine, c) = (&a.connections[0], &a.connections[1]);
    assert_eq!(fine.clock_tick_ms, None);
    // The download's own: its frames sit on 36 instants; the smallest step, 16.666 ms
    // (the 60 Hz tick rounded down to the µs), is seen at most tick boundaries.
    assert_eq!(c.clock_tick_ms, Some(16.666));
    // Every consecutive pair of data segments is 0 or one tick apart: at the capture's
    // 1 µs tick each of the 35 tick boundaries was a "stall" above the 10 ms floor (35
    // stalls, headline "stalls"). At its own tick none is: every round trip is below one
    // tick, so no path RTT, and the threshold is 3 ticks, 49.998 ms.
    assert_eq!(c.path_rtt_ms, None);
    assert!((c.stall_threshold_ms - 49.998).abs() < 1e-9, "{}", c.stall_threshold_ms);
    assert!(stalls(c).is_empty(), "{:?}", stalls(c));
    assert_ne!(c.diagnosis.limit, "stalls", "{}", c.diagnosis.text);
    // The reader's 10 ms threshold is raised to 1.5 ticks: a gap of one tick is the
    // clock, never a stall.
    let low = merged(&[&up, &down], &[1], AnalysisOptions { stall_threshold_ms: Some(10.0), ..AnalysisOptions::default() });
    assert!((low.connections[1].stall_threshold_ms - 24.999).abs() < 1e-9, "{}", low.connections[1].stall_threshold_ms);
    assert!(stalls(&low.connections[1]).is_empty());
    // The warning names the connection and both clocks (durations as every sentence
    // gives them, two digits: 17 ms); its count is the one connection.
    let w: Vec<_> = a.warnings.iter().filter(|w| w.kind == "coarse-clock").collect();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].count, 1);
    assert_eq!(
        w[0].message,
        "Timestamps of connection 1 tick in 17 ms steps, the rest of the capture's in 1 µs (packets stamped by different clocks): its RTTs and stalls shorter than a tick cannot be measured, and its stall threshold is at least 3 ticks"
    );
}

#[test]
fn a_pause_of_several_ticks_on_a_coarse_clock_is_still_a_stall() {
    // The same download with a 200 ms pause after segment 100: 12 ticks of silence, far
    // above the 66.664 ms threshold: one stall, from the tick of segment 100 to the tick
    // of segment 101 (202.9 ms of real time, 12 or 13 ticks on the 60 Hz clock).
    let (up, down) = (fine_upload(), download("10.0.0.2:40000", 200_000));
    let a = merged(&[&up, &down], &[1], AnalysisOptions::default());
    let c = &a.connections[1];
    assert_eq!(c.clock_tick_ms, Some(16.666));
    assert_eq!(stalls(c).len(), 1, "{:?}", stalls(c));
    let ticks = stalls(c)[0].duration * 1e9 / TICK_NS;
    assert!((ticks - 12.0).abs() < 0.01 || (ticks - 13.0).abs() < 0.01, "{ticks}");
}

/// A receiver-side capture of a device streaming one 54-byte frame every 20 ms (a
/// 50 Hz measurement stream), 250 frames after the client's 18-byte start command; the
/// client ACKs each 5 µs after it, on a 0.77 ms path. The device's TS clock counts ms
/// but is read every 50 ms: its TSval is 50 × ⌊t / 50 ms⌋. Frame `held` (if any) is held
/// 400 ms on the path, the frames sent meanwhile arriving right behind it.
fn periodic_stream(held: Option<usize>) -> Flow {
    let mut f = Flow::new("192.168.0.20:36835", "192.168.0.241:4712");
    let client_ts = |t_us: i64| 7_000 + (t_us / 1000) as u32;
    let device_ts = |t_us: i64| 90_000 + 50 * (t_us / 50_000) as u32;
    f.push(C2S, 0).flags(tcpscope_core::decode::tcp_flags::SYN).ack(0).opts(Opts::new().mss(1460).ts(client_ts(0), 0));
    f.push(S2C, 770).flags(tcpscope_core::decode::tcp_flags::SYN | tcpscope_core::decode::tcp_flags::ACK).opts(Opts::new().mss(1460).ts(device_ts(385), client_ts(0)));
    f.push(C2S, 775).opts(Opts::new().ts(client_ts(775), device_ts(385)));
    f.data(C2S, 4_000, 18).opts(Opts::new().ts(client_ts(4_000), device_ts(385)));
    let mut last_client_ts = client_ts(4_000);
    let hold_us = 400_000;
    for k in 0..250usize {
        let sent = 4_385 + 20_000 * k as i64;
        let arrives = match held {
            Some(h) if k >= h && sent < 4_385 + 20_000 * h as i64 + hold_us => 4_385 + 20_000 * h as i64 + hold_us + 385 + 10 * (k - h) as i64,
            _ => sent + 385,
        };
        f.data(S2C, arrives, 54).opts(Opts::new().ts(device_ts(sent), last_client_ts));
        last_client_ts = client_ts(arrives + 5);
        f.push(C2S, arrives + 5).opts(Opts::new().ts(last_client_ts, device_ts(sent)));
    }
    f
}

fn held_on_path(c: &ConnectionSummary) -> Vec<f64> {
    stalls(c).iter().filter(|s| s.ended_by.contains("held on the path")).map(|s| s.start).collect()
}

#[test]
fn an_unchanged_tsval_of_a_coarse_ts_clock_is_no_hold_on_the_path() {
    let c = common::analyze_flow(&periodic_stream(None));
    // 249 gaps of 20 ms, each a stall above the 10 ms floor. The device's TSval steps
    // are 0 or 50 (granularity 50 ticks of ~1 ms): a 20 ms gap with the TSval unchanged
    // is 0 + 2 × 50 ms, not below 10 ms — not the path's. With 2 ticks of rounding the 150
    // of them whose TSval did not change read "held on the path", the headline "stalls".
    assert_eq!(stalls(&c).len(), 249);
    assert_eq!(held_on_path(&c), Vec::<f64>::new());
    // Everything was acknowledged 5 µs after each frame and the device sent nothing more
    // for 20 ms: its application's pace.
    assert!(stalls(&c).iter().all(|s| s.cause == StallCause::ApplicationIdle), "{:?}", stalls(&c).iter().map(|s| s.cause).collect::<Vec<_>>());
}

#[test]
fn a_hold_longer_than_the_ts_clocks_granules_is_still_the_paths() {
    // Frame 100 held 400 ms on the path: a 420 ms gap at the capture across which the
    // device's TSval moved at most 50 (sent 20 ms after frame 99): 50 + 2 × 50 = 150 ms
    // < 210 ms — the path held it, one "held on the path" stall (of 229: the frames sent
    // during the hold arrive together; with 2 ticks of rounding, 139 were).
    let c = common::analyze_flow(&periodic_stream(Some(100)));
    let held = held_on_path(&c);
    assert_eq!(stalls(&c).len(), 229);
    assert_eq!(held.len(), 1, "{:?}", stalls(&c).iter().map(|s| (s.start, s.duration, s.cause)).collect::<Vec<_>>());
}

/// The captures by others that showed K and N, when `TCPSCOPE_CORPUS` names the folder
/// that holds them (tests/audit_captures.rs).
fn corpus(name: &str) -> Option<Analysis> {
    let dir = std::env::var_os("TCPSCOPE_CORPUS")?;
    let bytes = std::fs::read(std::path::Path::new(&dir).join(name)).ok()?;
    analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20).analysis().cloned()
}

#[test]
fn corpus_captures_by_others_lose_their_false_sentences() {
    // K: a merged capture (µs connections beside a 60 Hz-stamped TLS download, connection
    // 100: 438 frames on 36 instants). It read "stalled 35 times", every stall one tick.
    if let Some(a) = corpus("cisco__mercury__unit_tests_pcaps_capture2.pcap") {
        let c = &a.connections[100];
        assert_eq!(c.clock_tick_ms, Some(16.666));
        assert!(stalls(c).is_empty(), "{:?}", stalls(c));
        assert!(!c.diagnosis.text.contains("stalled"), "{}", c.diagnosis.text);
    }
    // N: a 50 Hz measurement stream whose TSval steps by 50 (connection 0). 105 of its
    // 249 gaps of 20 ms read "held on the path".
    if let Some(a) = corpus("ntop__nDPI__tests_cfgs_default_pcap_ieee_c37118.pcap") {
        let c = &a.connections[0];
        assert_eq!(held_on_path(c), Vec::<f64>::new());
    }
}
