//! Issue 39, third expert read (captures by others read frame by frame, none tuned on):
//! each class of sentence the frames contradicted, synthesized with a known answer. Each
//! test asserts the right story and the absence of the false sentence, and says why.

use crate::common;

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

#[test]
fn the_first_two_segments_swapped_are_no_loss() {
    // A download captured at the client, 20 ms path: the server's first two data
    // segments arrive swapped (the second 300 µs before the first), nothing is ever
    // re-sent, and the client ACKs everything in order after its one duplicate ACK. The
    // hole before the first captured segment was filled by the late original: the
    // network reordered it and lost nothing (RFC 4653 §1), so no recovery time, no
    // "Loss cost" (once 12 % of an FTP download's time).
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:20");
    f.handshake(0, 20_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    f.data(C2S, 20_100, 100);
    let s0 = 5001u32;
    let mut t = 41_000i64;
    for k in 0..200u32 {
        // Arrival order 1, 0, 2, 3, ...
        let seg = match k {
            0 => 1,
            1 => 0,
            n => n,
        };
        f.data(S2C, t, 1448).seq(s0 + seg * 1448);
        let acked = if k == 0 { s0 } else { s0 + (k + 1) * 1448 };
        if k == 0 || k % 2 == 1 {
            f.push(C2S, t + 10).ack(acked);
        }
        t += if k == 0 { 300 } else { 200 };
        if k % 40 == 39 {
            t += 20_000; // a round trip between flights
        }
    }
    let c = analyze_flow(&f);
    let sender = &c.directions[c.data_direction as usize];
    assert_eq!(sender.retransmissions, 0);
    assert_eq!(c.diagnosis.shares.loss, 0.0, "{:?}", c.diagnosis);
    assert!(!c.diagnosis.text.contains("Loss cost") && !c.diagnosis.text.contains("Loss limited"), "{}", c.diagnosis.text);
}

#[test]
fn a_wait_after_a_needless_re_send_of_the_peers_request_is_the_senders_own() {
    // The client (10.0.0.2) uploads 60 segments, all ACKed; the server's 264-byte
    // request arrives and is ACKed at once; 200 ms later the server's timer re-sends it
    // and the client reports the copy with a D-SACK (RFC 2883: it already had it). The
    // client answers 8 s later. Nothing was lost: the original request had arrived, so
    // the 8 s are the client's application, not a wait on the peer's timer
    // (once "retransmission-timeout … which the peer's timer had to re-send").
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:443");
    f.handshake(0, 2_000, Opts::new().mss(1460).sack_perm(), Opts::new().mss(1460).sack_perm());
    let mut t = 3_000i64;
    for k in 0..60 {
        f.data(C2S, t, 1448);
        if k % 2 == 1 {
            f.push(S2C, t + 2_000);
        }
        t += 100;
    }
    t += 10_000;
    let req = f.data(S2C, t, 264).seq;
    f.push(C2S, t + 100);
    f.data(S2C, t + 200_000, 264).seq(req);
    f.push(C2S, t + 200_100).opts(Opts::new().sack(&[(req, req + 264)]));
    let answer_at = t + 8_200_000;
    f.data(C2S, answer_at, 201);
    f.push(S2C, answer_at + 2_000);
    let c = analyze_flow(&f);
    assert_eq!(c.data_direction, 0);
    let stalls = &c.directions[0].stalls;
    let last = stalls.last().expect("the 8 s wait is a stall");
    assert!(last.duration > 8.0, "{stalls:?}");
    assert_eq!(last.cause, tcpscope_core::analysis::StallCause::ApplicationIdle, "{stalls:?}");
    assert!(!c.diagnosis.text.contains("peer's timer"), "{}", c.diagnosis.text);
}

/// Capture facts of a scripted flow (the capture-level warnings).
fn capture_of(f: &Flow) -> tcpscope_core::analysis::CaptureFacts {
    let bytes = write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = tcpscope_core::session::analyze_bytes(&bytes, tcpscope_core::analysis::AnalysisOptions::default(), 1 << 20);
    s.analysis().expect("analysed").capture
}

#[test]
fn a_capture_of_data_segments_only_is_told() {
    // 120 messages each way, every segment carrying data and the ACK of the peer's last:
    // no SYN, no FIN, no pure ACK — a capture filtered on payload. Every stack sends a
    // pure ACK when it has nothing to send (RFC 9293 §3.8.6.3), so over 240 segments none
    // is the capture's doing: the `payload-only` warning says the ACKs seen all rode on
    // replies. One pure ACK in the same exchange and nothing is said.
    let exchange = |pure_ack: bool| {
        let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:8333");
        let mut t = 0i64;
        for _ in 0..120 {
            f.data(C2S, t, 100);
            f.data(S2C, t + 30_000, 300);
            t += 500_000;
        }
        if pure_ack {
            f.push(C2S, t);
        }
        f
    };
    let filtered = capture_of(&exchange(false));
    assert!(filtered.payload_only());
    let w = filtered.warnings();
    assert!(w.iter().any(|w| w.kind == "payload-only" && w.count == 240), "{w:?}");
    assert!(!capture_of(&exchange(true)).payload_only());
}

#[test]
fn a_response_lost_before_the_capture_and_re_sent_by_the_timer_is_loss() {
    // Captured at the client (10.0.0.2): the server's 30-segment download, all ACKed;
    // the client's next request; the server's answer (4 segments) never reaches the
    // capture — only its pure ACK of the client's re-sent request, whose sequence number
    // shows the answer was sent — and 450 ms later the server's timer re-sends it. The
    // client had re-sent its request too, needlessly (the server D-SACKs it). The wait
    // ended by the server's re-send of bytes the capture never saw is its timer's, not
    // an idle application, whichever side's re-send was needless.
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:443");
    f.handshake(0, 20_000, Opts::new().mss(1460).sack_perm(), Opts::new().mss(1460).sack_perm());
    f.data(C2S, 20_100, 200);
    let mut t = 41_000i64;
    for k in 0..30 {
        f.data(S2C, t, 1448);
        if k % 2 == 1 {
            f.push(C2S, t + 10);
        }
        t += 100;
    }
    t += 40_000;
    let req = f.data(C2S, t, 277).seq;
    let answer = f.segments().iter().filter(|s| s.payload_len > 0).last().map(|s| s.ack).unwrap();
    // The request re-sent by the client's timer; the server's ACK (seq past its unseen
    // 4-segment answer) D-SACKs it.
    f.data(C2S, t + 300_000, 277).seq(req);
    f.push(S2C, t + 320_000).seq(answer + 4 * 1448).opts(Opts::new().sack(&[(req, req + 277)]));
    // The server's timer re-sends the answer.
    for k in 0..4u32 {
        f.data(S2C, t + 770_000 + i64::from(k) * 50, 1448).seq(answer + k * 1448);
    }
    f.push(C2S, t + 770_400);
    let c = analyze_flow(&f);
    let sender = &c.directions[c.data_direction as usize];
    let last = sender.stalls.last().expect("the wait for the answer is a stall");
    assert_eq!(last.cause, tcpscope_core::analysis::StallCause::RetransmissionTimeout, "{:?}", sender.stalls);
    assert!(last.ended_by.contains("sent during the gap and lost before the capture point"), "{:?}", last);
}

#[test]
fn a_fin_captured_after_the_reset_is_not_before_it() {
    // The client's FIN, then the server's reset, then (1.4 ms later, sent before the
    // server's stack saw its own reset through) the server's FIN. The reset came after
    // the client's FIN only: "after both FINs" would put the server's FIN before it.
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:443");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 1_100, 300);
    f.data(S2C, 2_100, 1448);
    f.push(C2S, 2_200);
    f.push(C2S, 5_000).flags(FIN | ACK);
    f.push(S2C, 6_000).flags(tcpscope_core::decode::tcp_flags::RST | ACK);
    f.push(S2C, 7_400).flags(FIN | ACK);
    let c = analyze_flow(&f);
    assert_eq!(c.ending.kind, "reset");
    assert!(c.ending.text.contains("after the FIN of 10.0.0.2:40000"), "{}", c.ending.text);
    assert!(!c.ending.text.contains("after both FINs"), "{}", c.ending.text);
}
