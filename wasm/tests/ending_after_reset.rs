//! Data after the reset that ended a connection (analysis/track/ending/after_reset.rs,
//! docs/ANALYSIS.md "How the connection ended", `ending.afterReset`; issue 39 review T
//! class C-DATA-AFTER-RESET): a closed connection answers each segment with a reset
//! (RFC 9293 §3.10.7.1), so data that passed the capture after the reset is told apart
//! from what was in flight at it.
use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary};
use tcpscope_core::decode::tcp_flags::*;
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;
use crate::common;

fn analyse(f: &Flow) -> ConnectionSummary {
    let bytes = write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    s.analysis().expect("analysed").connections[0].clone()
}

/// A client uploads 10 segments of 1448 B (all ACKed), then 4 more at 50–53 ms; the
/// server ACKs the first 2 at 55 ms and resets at 60 ms. The client, not yet aware,
/// sends 3 more segments at 61, 62 and 63 ms, each answered by a bare reset 0.1 ms
/// later. In flight at the reset: segments 3 and 4 of the last 4, 2 × 1448 = 2,896 B;
/// after it: 3 × 1448 = 4,344 B over 3 ms (60 → 63 ms), refused by 3 more resets. The
/// cumulative ACK never moved past 18,377 (client ISN 1000: 1001 + 12 × 1448), so the
/// whole-capture count stays 7,240 B (`unacknowledgedBytes`), but the sentence no
/// longer says the server failed to acknowledge data it received after it had closed.
#[test]
fn data_after_the_reset_is_told_apart_from_data_in_flight_at_it() {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:5201");
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for k in 0..10 {
        f.data(C2S, 20_000 + k * 1_000, 1448);
        f.push(S2C, 20_500 + k * 1_000);
    }
    for k in 0..4 {
        f.data(C2S, 50_000 + k * 1_000, 1448);
    }
    f.push(S2C, 55_000).ack(1001 + 12 * 1448);
    f.push(S2C, 60_000).flags(RST | ACK).ack(1001 + 12 * 1448);
    let reset_frame = f.segments().len() as u32;
    for k in 0..3 {
        f.data(C2S, 61_000 + k * 1_000, 1448);
        f.push(S2C, 61_100 + k * 1_000).flags(RST);
    }
    let e = *analyse(&f).ending;
    assert_eq!((e.kind, e.resets), ("reset", [0, 4]));
    assert_eq!(e.reset.map(|r| (r.by, r.frame)), Some((1, reset_frame)));
    assert_eq!(e.unacknowledged_bytes, [Some(7_240), Some(0)]);
    let a = e.after_reset.expect("data after the reset");
    assert_eq!((a.by, a.bytes, a.resets, a.in_flight, a.sacked), (0, 4_344, 3, 2_896, 0));
    assert!((a.seconds - 0.003).abs() < 1e-9, "{}", a.seconds);
    assert_eq!(
        e.text,
        "The connection was reset by 10.0.0.2:5201 at 0.060 s, 7 ms after data from 10.0.0.1:40000. At the reset, \
         2.8 KiB (2,896 bytes) of the data 10.0.0.1:40000 had sent were not acknowledged; 4.2 KiB (4,344 bytes) more \
         passed the capture after the reset, over 3 ms, and 10.0.0.2:5201 answered with 3 more resets (a connection \
         closed by its reset answers each segment with one, RFC 9293 §3.10.7.1)."
    );
}

/// The capture that showed the class: pymptcpanalyzer's `client_1_tcp_only.pcap`, iperf3
/// 10.0.0.1:59430 → 10.0.0.2:5201 behind a rate-limited queue. tshark: the reset RST/ACK
/// 1258 (12.621 s) acknowledges 1201878 and SACKs 1203326–1390118, 1391566–1397358 and
/// 1398806–1401702 (195,480 B); the client had sent up to 1445142 by then (243,264 B
/// unacknowledged, 47,784 B of it never acknowledged at all); 1445142 → 1631934 (186,792
/// B) passed the capture after it, the last new byte in frame 1473 at 13.404 s, and
/// 10.0.0.2 sent 136 resets in all (1258 … 1512). Before: "420 KiB (430,056 bytes) …
/// were not acknowledged: 229 KiB never acknowledged at all".
#[test]
fn iperf3_client_1_tcp_only_data_after_the_reset() {
    let Some(c) = common::corpus_connection("teto__pymptcpanalyzer__examples_client_1_tcp_only.pcap", 1) else { return };
    let e = &c.ending;
    let a = e.after_reset.expect("data after the reset");
    assert_eq!((a.by, a.bytes, a.resets, a.in_flight, a.sacked), (0, 186_792, 135, 243_264, 195_480));
    assert_eq!(e.resets, [0, 136]);
    assert!(e.text.contains("At the reset, 238 KiB (243,264 bytes) of the data 10.0.0.1:59430 had sent were not acknowledged: 47 KiB (47,784 bytes) never acknowledged at all"), "{}", e.text);
    assert!(e.text.contains("182 KiB (186,792 bytes) more passed the capture after the reset, over 783 ms, and 10.0.0.2:5201 answered with 135 more resets"), "{}", e.text);
}
