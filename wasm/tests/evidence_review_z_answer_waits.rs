//! Issue 39 review Z, the answering end's waits.
//!
//! Class 4 (C-SPLIT-PROXY-RTT, VMware-NAT form): behind a proxy or NAT
//! that answered the SYN itself, each answer still crosses the path beyond it, so the
//! application saving ("Had S had every answer ready at once (its own waits, …)") must
//! not count the far round trip as the server's. The rule: diagnosis/answer_far_leg.rs,
//! docs/ANALYSIS.md "Split proxy".
//!
//! Class 5 (wifi): "the 12 KiB of data then took 17 s" joined two requests 17 s apart;
//! an answer's bytes and time are its own, to the peer's next message (first_answer.rs
//! `answer_wait_sentence`).

use crate::common;

use tcpscope_core::synth::*;

/// A client-side capture behind a NAT: SYN at 0, SYN/ACK 50 ms later (the NAT's own
/// connection out), then six 100-byte requests every 200 ms from 51 ms, each ACKed by
/// the NAT 200 µs later and answered 52 ms after it (one 50-ms far round trip and 2 ms
/// of the server's) with `pairs` pairs of 1,460-byte segments, `gaps` apart (µs; the
/// far path delivering them), the client ACKing each pair 100 µs after it.
fn behind_nat(pairs: usize, gaps: &[i64]) -> Flow {
    let mut f = Flow::new("10.0.2.15:40000", "192.0.2.80:443");
    f.handshake(0, 50_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for k in 0..6 {
        let t = 51_000 + k * 200_000;
        f.data(C2S, t, 100);
        f.push(S2C, t + 200);
        let mut at = t + 52_000;
        for j in 0..pairs {
            f.data(S2C, at, 1460);
            f.data(S2C, at + 20, 1460);
            f.push(C2S, at + 120);
            at += gaps.get(j).copied().unwrap_or(0);
        }
    }
    f
}

#[test]
fn behind_a_nat_one_far_round_trip_of_each_answer_is_no_servers_wait() {
    // Each answer's wait in the server's time: 52 ms less the 200-µs part its ACKs show
    // between the capture and it = 51.8 ms, of which one far round trip (the 50-ms
    // SYN → SYN/ACK) is the path beyond the NAT and 1.8 ms the server's. Five of the six
    // answers follow a pause (the first data starts the transfer): the saving is
    // 5 × 1.8 = 9 ms, not 5 × 51.8 = 259 ms; the far part 5 × 50 = 250 ms.
    let c = common::analyze_flow(&behind_nat(10, &[]));
    let app = c.diagnosis.savings.iter().find(|s| s.limit == "application").map(|s| s.seconds);
    assert!(app.is_some_and(|s| (s - 0.009).abs() < 1e-6), "{:?}", c.diagnosis.savings);
}

#[test]
fn behind_a_nat_the_far_sides_pace_is_said_and_not_priced() {
    // The same answers relayed as the far path delivered them: 10 pairs with gaps of 3,
    // 7, 4, 9, 5, 3, 7, 4, 9 ms (irregular: no clock). Each gap, everything acknowledged
    // and no request pending, is a pause of the NAT with nothing yet to relay — the far
    // side's, not the server's; the answer waits as above (250 ms far, 9 ms the server's).
    let c = common::analyze_flow(&behind_nat(10, &[3_000, 7_000, 4_000, 9_000, 5_000, 3_000, 7_000, 4_000, 9_000]));
    let t = &c.diagnosis.text;
    // Own waits 548 ms: the 250 ms of far round trips, the 9 ms of the server's, and
    // 6 × 9 gaps of 51 ms in all less each gap's first ~0.3 ms (the client's ACK, 120 µs
    // after the pair, reaching the sender 200 µs later: until then the pair was in flight)
    // = 289 ms of the NAT with nothing to relay.
    assert!(t.contains("Had 192.0.2.80:443 always had data ready (its own waits beyond the far round trips, 9 ms;"), "{t}");
    assert!(
        t.contains(
            "Of 192.0.2.80:443's own waits (548 ms), 250 ms, in 5 waits after 10.0.2.15:40000's messages, were the path beyond \
             the proxy: up to one far round trip (50 ms, the handshake's SYN → SYN/ACK) each, which fewer round trips or a \
             shorter far path would save, not a readier server; the other 289 ms were pauses with no message of \
             10.0.2.15:40000's pending, in which the proxy had nothing yet to relay: the far side's pace (its path or the \
             server), which this capture cannot split."
        ),
        "{t}"
    );
    let app = c.diagnosis.savings.iter().find(|s| s.limit == "application").map(|s| s.seconds);
    assert!(app.is_some_and(|s| (s - 0.009).abs() < 1e-6), "{:?}", c.diagnosis.savings);
}

#[test]
fn ghdl_and_nyx_far_round_trips_are_the_paths() {
    // Anatolij777 openvpn.pcap #16 (VMware NAT, SYN → SYN/ACK 164 ms, frames 778 → 787):
    // the ticket 958 came 142 ms after the Finished and request 936, the data 1057
    // 71.6 ms after the request 1054, 1120 68 ms after 1112, 1254 36 ms after 1252 — each
    // under one far round trip. Before: "Had 185.199.109.154:443 had every answer ready
    // at once (its own waits, 736 ms …), … about 911 ms instead of 1.6 s".
    if let Some(c) = common::corpus_connection("Anatolij777__vpn__openvpn.pcap", 16) {
        let t = &c.diagnosis.text;
        assert!(!t.contains("had every answer ready at once"), "{t}");
        assert!(t.contains("Of 185.199.109.154:443's own waits (736 ms), 318 ms, in 5 waits after 192.168.17.140:49868's messages, were the path beyond the proxy"), "{t}");
        assert!(c.diagnosis.savings.iter().all(|s| s.limit != "application"), "{:?}", c.diagnosis.savings);
    }
    // nyxlayer01 capture.pcapng #1 (SYN → SYN/ACK 10.9 ms): answers 8.2 ms (36 → 40) and
    // 5.3 ms (49 → 51) after the last request, each under the far round trip.
    if let Some(c) = common::corpus_connection("nyxlayer01__Network-traffic-analysis-wireshark__capture.pcapng", 1) {
        let t = &c.diagnosis.text;
        assert!(!t.contains("had every answer ready at once"), "{t}");
        assert!(t.contains("were the path beyond the proxy: up to one far round trip (11 ms"), "{t}");
    }
}

#[test]
fn an_answers_time_is_its_own_not_the_later_turns() {
    // A 415-byte request at 50 ms (frame 4) on a 40 ms path; the server's first answer 2 s
    // later (frame 5 at 2.050 s; first_answer.rs: the first byte's rule): 20 segments of 1,460 B, 200 µs apart (3.8 ms, 29,200 B
    // = 29 KiB); the client's next request at 3.060 s, answered at once with 20 more. The
    // wait (2.00 s) is over the 1.05 s the transfer took, so it is said — with the
    // answer's own 29 KiB in 3.8 ms, not "57 KiB … took 1.1 s" across the client's next
    // turn (the sequence span to the client's last ACK: 58,400 B).
    let mut f = Flow::new("10.0.0.1:53100", "10.0.0.2:443");
    f.handshake(0, 40_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 50_000, 415);
    common::response(&mut f, 2_050_000, 20);
    f.data(C2S, 3_060_000, 415);
    common::response(&mut f, 3_100_000, 20);
    let t = common::analyze_flow(&f).diagnosis.text;
    assert!(
        t.contains("The first byte of the answer came 2.00 s after the peer's request (frame 4 at 0.050 s → frame 5 at 2.050 s); the 29 KiB of data then took 3.8 ms: the wait for the answer, not the transfer, took the time."),
        "{t}"
    );
}
