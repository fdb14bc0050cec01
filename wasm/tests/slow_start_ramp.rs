//! Issue 39 review class X: a short transfer that spent its life in slow start (RFC 5681
//! §3.1: the congestion window grows by a segment per ACK, doubling each round trip from
//! the initial window, RFC 6928's 10 segments) and ran out of data before the growth
//! stopped was "The congestion window or the path's capacity was the limit". The path's
//! capacity never showed: the time was round trips (verdict/diagnosis/slow_start_words.rs).
use crate::common;
use tcpscope_core::synth::*;

/// Captured at the sender, a 50 ms path: a 100-byte request at 60 ms, then the reply in
/// rounds of 10, 20, 40 and 80 segments of 1448 B, one round trip apart (100 µs between
/// segments: 116 Mbit/s while sending), then the last 30; the client ACKs each segment
/// 50 ms after it was sent. Each round is twice the one before (every ACK of a round
/// adds a segment, RFC 5681 §3.1): 180 segments, 260,640 B, in 5 round trips.
fn ramp() -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 50_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    f.data(C2S, 60_000, 100);
    let mut t0 = 110_000;
    for n in [10, 20, 40, 80, 30] {
        for k in 0..n {
            f.data(S2C, t0 + k * 100, 1448);
            f.push(C2S, t0 + k * 100 + 50_000);
        }
        t0 += 50_000;
    }
    f
}

#[test]
fn a_transfer_that_ended_in_slow_start_is_said_so() {
    let c = common::analyze_flow(&ramp());
    let d = &c.diagnosis;
    assert_eq!(d.limit, "path", "{}", d.text);
    assert!(
        d.text.starts_with(
            "Slow start took the whole transfer: the sender began with 10 segments (14 KiB) in its first round trip and \
             grew its flight each round trip as slow start does (RFC 5681 §3.1: up to twice the flight per round trip): \
             10, 20, 40, 80, 30 segments per round trip of the path over the 5 round trips (a path RTT of 50 ms) it took \
             to send 255 KiB."
        ),
        "{}",
        d.text
    );
    assert!(d.text.contains("a faster link would not"), "{}", d.text);
    assert!(!d.text.contains("the path's capacity was the limit"), "{}", d.text);
}

/// The same flight sizes held level (80 segments each round trip after the ramp): a
/// window that stopped growing, not a transfer that ended in slow start.
#[test]
fn a_flow_that_levelled_off_is_not_called_slow_start() {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 50_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    f.data(C2S, 60_000, 100);
    let mut t0 = 110_000;
    for n in [10, 20, 40, 80, 80, 80, 80, 80, 30] {
        for k in 0..n {
            f.data(S2C, t0 + k * 100, 1448);
            f.push(C2S, t0 + k * 100 + 50_000);
        }
        t0 += 50_000;
    }
    let c = common::analyze_flow(&f);
    assert!(!c.diagnosis.text.starts_with("Slow start"), "{}", c.diagnosis.text);
}

/// zeek's `tcp/timestamp.pcap` (captured at the client, 51 ms path): 1,000,000 B from
/// 192.168.2.20:12345 in flights of 10, 20, 40 and 80 segments one round trip apart
/// from its first data segment at 0.103 s, then more each round trip, no re-send;
/// before: "The congestion window or the path's capacity was the limit".
#[test]
fn corpus_zeek_tcp_timestamp_ended_in_slow_start() {
    let Some(bytes) = common::corpus("zeek__zeek__testing_btest_Traces_tcp_timestamp.pcap") else { return };
    let s = tcpscope_core::session::analyze_bytes(&bytes, tcpscope_core::analysis::AnalysisOptions::default(), 1 << 30);
    let c = &s.analysis().expect("analysed").connections[0];
    assert_eq!(c.diagnosis.limit, "path");
    assert!(c.diagnosis.text.starts_with("Slow start took the whole transfer: the sender began with 10 segments (14 KiB)"), "{}", c.diagnosis.text);
    // tshark, 50.833 ms windows from 1/4 of one before the first data segment: 10 20 40
    // 78 11 169 320 43 (the 80-segment flight straddles a window's edge).
    assert!(c.diagnosis.text.contains("10, 20, 40, 78, 11, 169, 320, 43 segments per round trip of the path over the 8 round trips (a path RTT of 51 ms) it took to send 977 KiB"), "{}", c.diagnosis.text);
}
