//! Issue 39, third expert read (captures by others read frame by frame, none tuned on):
//! each class of sentence the frames contradicted, synthesized with a known answer. Each
//! test asserts the right story and the absence of the false sentence, and says why.

mod common;

use common::analyze_flow;
use tcpscope_core::decode::tcp_flags::{ACK, FIN};
use tcpscope_core::synth::*;

/// An upload from 10.0.0.1 captured at the sender, 1 ms path: `rounds` flights of 20
/// full segments 100 µs apart, each answered by `acks` ACKs (5 segments each) that all
/// arrive `hold_us` after the flight ended, 20 µs apart; the next flight follows the last
/// ACK at once.
fn held_flights(rounds: u32, hold_us: i64) -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:5001");
    f.handshake(0, 1_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    let mut t = 2_000i64;
    let first = 1001u32;
    let mut sent = 0u32;
    for _ in 0..rounds {
        for _ in 0..20 {
            f.data(C2S, t, 1448);
            sent += 1;
            t += 100;
        }
        t += hold_us;
        for k in 1..=4u32 {
            f.push(S2C, t).ack(first + (sent - 20 + 5 * k) * 1448);
            t += 20;
        }
    }
    f
}

#[test]
fn acks_that_all_come_at_the_end_of_a_wait_are_no_ack_clock() {
    // Each flight waits 90 ms for its ACKs, and all 4 come in the wait's last 60 µs:
    // nothing was delivered during the wait as far as the sender could tell — no ACK
    // clock ran (Jacobson 1988: each ACK releasing the next segment), the ACKs were held
    // and came together. The headline is the stalls, never "the receiver's ACKs kept
    // coming … the link's rate set the pace" (once read so of 4 ACKs in the last 84 µs
    // of a 93 ms wait). 5 flights: 4 waits of ~90 ms (the last flight's ACKs end the
    // data), each priced at its length less the 1 ms round trip.
    let c = analyze_flow(&held_flights(5, 90_000));
    let d = &c.diagnosis;
    assert_eq!(d.limit, "stalls", "{}", d.text);
    assert!(!d.text.contains("kept coming"), "{}", d.text);
    assert!(d.text.contains("Had each wait on ACKs lasted no more than a round trip"), "{}", d.text);
}

#[test]
fn acks_throughout_a_wait_are_the_ack_clock() {
    // The same flights with ACKs spread over the wait (one every 18 ms): the bottleneck
    // delivering what was sent while the sender waited, the path's pace.
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:5001");
    f.handshake(0, 1_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    let mut t = 2_000i64;
    let mut sent = 0u32;
    for _ in 0..5 {
        for _ in 0..20 {
            f.data(C2S, t, 1448);
            sent += 1;
            t += 100;
        }
        for k in 1..=4u32 {
            t += 18_000;
            f.push(S2C, t).ack(1001 + (sent - 20 + 5 * k) * 1448);
        }
    }
    let c = analyze_flow(&f);
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("kept coming"), "{}", c.diagnosis.text);
}

#[test]
fn microseconds_of_jitter_are_no_queue() {
    // A loopback-like upload: round trips of 10 µs at best, most 40 µs (the hosts'
    // scheduling). 1.5× the minimum, but 30 µs above it is no queue one can act on
    // (below 1 ms, `QUEUE_MIN_DELAY_S`): no sentence says packets queued.
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:5001");
    f.handshake(0, 10, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    let mut t = 100i64;
    for k in 0..400u32 {
        f.data(C2S, t, 1448);
        f.push(S2C, t + if k % 5 == 0 { 10 } else { 40 });
        t += 50;
    }
    let c = analyze_flow(&f);
    let rtt = &c.directions[0].rtt;
    assert!(rtt.median_ms.unwrap() >= 1.5 * rtt.min_ms.unwrap(), "{rtt:?}");
    assert!(!c.diagnosis.text.contains("queued") && !c.diagnosis.text.contains("a queue on the path"), "{}", c.diagnosis.text);
}

#[test]
fn a_fin_re_sent_and_never_acknowledged_is_said() {
    // A download: the client's request, 10 segments of answer ACKed, then the client's
    // FIN, the server's ACK and FIN — which the client never acknowledges; the server's
    // timer re-sends it 3 times (200, 400, 800 ms; RFC 9293 §3.10.8). Both sides sent a
    // FIN, so "FIN both", but the close did not complete: the ending is abnormal and
    // says the server's FIN was sent 4 times and never acknowledged.
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:80");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 1_100, 200);
    let mut t = 2_100;
    for k in 0..10 {
        f.data(S2C, t, 1448);
        if k % 2 == 1 {
            f.push(C2S, t + 500);
        }
        t += 100;
    }
    t += 10_000;
    f.push(C2S, t).flags(FIN | ACK);
    f.push(S2C, t + 1_000);
    let fin_at = t + 1_100;
    f.push(S2C, fin_at).flags(FIN | ACK);
    let fin_seq = f.segments().last().unwrap().seq;
    for back_off in [200_000, 600_000, 1_400_000] {
        f.push(S2C, fin_at + back_off).flags(FIN | ACK).seq(fin_seq);
    }
    let c = analyze_flow(&f);
    assert_eq!(c.ending.kind, "fin-both");
    assert_eq!(c.ending.fins_unacknowledged, [0, 4]);
    assert!(c.ending.abnormal);
    assert!(c.ending.text.contains("10.0.0.1:80's FIN was sent 4 times and never acknowledged"), "{}", c.ending.text);
}
