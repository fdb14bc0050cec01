//! A scripted transfer through the whole pipeline (synth → pcap bytes → decoder →
//! analysis → stalls → diagnosis) with answers known by construction. The capture is
//! taken at the client (the data sender); the path RTT is 10 ms; both sides offer
//! window scale 7 and the receiver advertises 512 × 2^7 = 64 KiB.
//!
//! Script (times from the SYN):
//! *   0–10 ms   handshake;
//! *  20–98 ms   six bursts of four 1448-byte segments (one every 15 ms), each ACKed
//!               10 ms after its last segment;
//! * 200–201 ms  two segments; the network loses both and no ACK comes back;
//! * 500 ms      the retransmission timer fires: the first segment is sent again, then
//!               the ACK for both arrives at 510 ms;
//! * 520–521 ms  two segments; the receiver ACKs them at 531 ms with a zero window;
//! * 900 ms      window update; data flows again at 901 ms, ACKed at 911 ms;
//! * 1200 ms     after 289 ms with nothing to send, the application writes once more;
//!               ACKed at 1210 ms; FIN exchange at 1220–1230 ms.

use tcpscope_core::analysis::{AnalysisOptions, StallCause::*};
use tcpscope_core::decode::tcp_flags::{ACK, FIN};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

const MSS: u32 = 1448;

fn story() -> Vec<u8> {
    let mut f = Flow::new("192.0.2.10:40000", "198.51.100.20:443");
    let scale = || Opts::new().mss(1460).wscale(7).sack_perm();
    f.handshake(0, 10_000, scale(), scale());
    // Window field 512 << 7 = 65,536 bytes, on every segment of both sides.
    let mut acked = 1001; // client's next unacknowledged byte (ISN 1000 + SYN)
    for burst in 0..6 {
        let t0 = 20_000 + burst * 15_000;
        for i in 0..4 {
            f.data(C2S, t0 + i * 1000, MSS).window(512);
        }
        acked += 4 * MSS;
        f.push(S2C, t0 + 13_000).ack(acked).window(512);
    }
    // Loss and RTO: two segments vanish, the first is re-sent at 500 ms.
    let lost = acked;
    f.data(C2S, 200_000, MSS).window(512);
    f.data(C2S, 201_000, MSS).window(512);
    f.data(C2S, 500_000, MSS).seq(lost).window(512);
    acked += 2 * MSS;
    f.push(S2C, 510_000).ack(acked).window(512);
    // Zero window: the receiving application stops reading.
    f.data(C2S, 520_000, MSS).window(512);
    f.data(C2S, 521_000, MSS).window(512);
    acked += 2 * MSS;
    f.push(S2C, 531_000).ack(acked).window(0);
    f.push(S2C, 900_000).ack(acked).window(512);
    f.data(C2S, 901_000, MSS).window(512);
    acked += MSS;
    f.push(S2C, 911_000).ack(acked).window(512);
    // Application idle, one last write, then the close.
    f.data(C2S, 1_200_000, MSS).window(512);
    acked += MSS;
    f.push(S2C, 1_210_000).ack(acked).window(512);
    f.push(C2S, 1_220_000).flags(FIN | ACK).window(512);
    f.push(S2C, 1_230_000).flags(FIN | ACK).ack(acked + 1).window(512);
    f.push(C2S, 1_230_000).window(512);
    write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro)
}

#[test]
fn the_scripted_story_is_told_back() {
    let session = analyze_bytes(&story(), AnalysisOptions::default(), 4096);
    assert!(session.error().is_none());
    let analysis = session.analysis().unwrap();
    assert_eq!(analysis.connections.len(), 1);
    let c = &analysis.connections[0];
    assert!(c.handshake_seen);
    assert_eq!(c.data_direction, 0, "the client sends the data");
    let (data, acks) = (&c.directions[0], &c.directions[1]);

    // 24 + 3 (two lost + retransmission) + 2 + 1 + 1 data segments of 1448 bytes.
    assert_eq!(data.payload_bytes, 31 * MSS as u64);
    // Both sides offered scale 7; the receiver's windows are 0 (once) and 512 << 7.
    assert_eq!((data.window_scale, acks.window_scale), (Some(7), Some(7)));
    let rwnd = acks.receive_window.unwrap();
    assert_eq!((rwnd.min, rwnd.max), (0, 65_536));
    assert_eq!(acks.zero_windows, 1, "the ACK at 531 ms");
    assert_eq!(data.retransmissions, 1, "the segment re-sent at 500 ms");
    assert_eq!(data.fast_retransmissions, 0, "no duplicate ACKs preceded it");
    // At most one burst of four segments was ever unacknowledged.
    assert_eq!(data.max_bytes_in_flight, Some(4 * MSS as u64));
    // Each ACK comes 10 ms after the last segment it covers (the first segments of a
    // burst measure 11–13 ms; Karn: the retransmitted one gives no sample).
    assert_eq!(data.rtt.min_ms, Some(10.0));
    // DESIGN.md default threshold: max(10 ms, 4 × 10 ms) = 40 ms.
    assert!((c.stall_threshold_ms - 40.0).abs() < 1e-9);

    // Four gaps longer than 40 ms between the client's data segments, one per phase:
    let got: Vec<_> = data.stalls.iter().map(|s| ((s.start * 1e3).round() as i64, (s.duration * 1e3).round() as i64, s.cause)).collect();
    assert_eq!(
        got,
        vec![
            (98, 102, ApplicationIdle),        // last burst ACKed at 108 ms, nothing to send until 200 ms
            (201, 299, RetransmissionTimeout), // ended by the re-send of the first lost segment
            (521, 380, ZeroWindow),            // window 0 from 531 ms until the update at 900 ms
            (901, 299, ApplicationIdle),       // 901 → 1200 ms: all acknowledged at 911 ms
        ]
    );
    // 1.08 s of the 1.2 s transfer was stalled. Each stall's time goes to its cause's
    // share (DESIGN.md): application idle 102 + 299 = 401 ms, zero window 380 ms,
    // RTO 299 ms (+ recovery) — the application's is the largest share.
    let s = c.diagnosis.shares;
    assert!((s.receive_window + s.loss + s.application + s.stalled + s.other - 1.0).abs() < 1e-9);
    assert!(s.application > s.receive_window && s.application > s.loss, "{s:?}");
    assert_eq!(c.diagnosis.limit, "application", "{}", c.diagnosis.text);
    // The sentence's percentage is the bar's.
    let pct = format!("{:.0} %", s.application * 100.0);
    assert!(c.diagnosis.text.contains(&pct), "{pct} in {}", c.diagnosis.text);
}
