//! Retransmission kinds on hand-built segments (analysis/testseg.rs), captured at the
//! data sender A: handshake SYN at 0, SYN/ACK 20 ms later, ACK 0.1 ms after it, so the
//! path RTT is 20.1 ms and the sender lag 0 (vantage.rs). A's first data byte is 1001,
//! 1000-byte segments.

use super::super::columns::flag_bits as fb;
use super::super::testseg::{run, Seg};
use super::super::{Analysis, DirectionSummary};
use crate::decode::tcp_flags::{ACK, FIN, SYN};

fn at_sender(rest: Vec<Seg>) -> Analysis {
    let mut v = vec![
        Seg::a_to_b(0.0).seq(1000).flags(SYN).win(64240).wscale(7),
        Seg::b_to_a(0.020).seq(5000).ack(1001).flags(SYN | ACK).win(65160).wscale(7),
        Seg::a_to_b(0.0201).seq(1001).ack(5001).win(502),
    ];
    v.extend(rest);
    run(v)
}

fn data(t: f64, seq: u32) -> Seg {
    Seg::a_to_b(t).seq(seq).ack(5001).len(1000)
}

fn ack(t: f64, a: u32) -> Seg {
    Seg::b_to_a(t).seq(5001).ack(a).win(502)
}

fn kinds(a: &Analysis) -> Vec<u32> {
    let p = a.columns(0).packets;
    (0..p.t.len()).filter(|&i| p.flags[i] & fb::ANY_RETRANSMISSION != 0).map(|i| p.flags[i] & fb::ANY_KIND).collect()
}

fn counts(d: &DirectionSummary) -> [u64; 6] {
    [d.retransmissions, d.rto_events, d.tail_loss_probes, d.fast_retransmissions, d.slow_start_retransmissions, d.spurious_retransmissions]
}

/// The direction has one backoff chain, starting at `start` s, one timeout per interval
/// (ms, to the µs).
fn assert_one_chain(d: &DirectionSummary, start: f64, intervals_ms: &[f64]) {
    assert_eq!(d.rto_chains.len(), 1);
    let ch = &d.rto_chains[0];
    assert_eq!((ch.start, ch.timeouts as usize), (start, intervals_ms.len()));
    let ms: Vec<f64> = ch.intervals_ms.iter().map(|x| (x * 1000.0).round() / 1000.0).collect();
    assert_eq!(ms, intervals_ms);
}

#[test]
fn sack_recovery_after_one_duplicate_ack_is_fast_though_wireshark_says_retransmission() {
    // 1001 is lost; the first ACK with a SACK block for 2001..3001 (new SACK
    // information, RFC 6675) makes the sender retransmit 50 µs later. Wireshark needs two
    // duplicate ACKs for "fast"; the sender was clocked by feedback: fast (RFC 6675).
    let a = at_sender(vec![
        data(0.030, 1001),
        data(0.031, 2001),
        data(0.032, 3001),
        ack(0.051, 1001).sack(&[(2001, 3001)]),
        data(0.05105, 1001),
        ack(0.072, 4001),
    ]);
    let p = a.columns(0).packets;
    assert_eq!(p.flags[7] & (fb::ANY_RETRANSMISSION | fb::ANY_KIND), fb::RETRANSMISSION | fb::KIND_FAST);
    // [retransmissions, rto, tlp, fast, slow start, spurious]
    assert_eq!(counts(&a.connections[0].directions[0]), [1, 0, 0, 1, 0, 0]);
}

#[test]
fn timeout_with_backoff_then_slow_start() {
    // Three segments, then 300 ms of silence (≥ the 20.1 ms path RTT): the head is
    // re-sent (not the tail: 3001..4001 is the highest) → a timeout; 600 ms later again,
    // no feedback between → the same backoff chain (intervals 300 ms from the last
    // feedback, the handshake ACK... here the SYN/ACK at 20 ms → 310 ms, then 600 ms).
    // The ACK of 2001 clocks the re-send of 2001: loss state until 4001 is acked → slow
    // start; 3001 after the next ACK likewise.
    let a = at_sender(vec![
        data(0.030, 1001),
        data(0.031, 2001),
        data(0.032, 3001),
        data(0.330, 1001),
        data(0.930, 1001),
        ack(0.951, 2001),
        data(0.95102, 2001),
        ack(0.972, 3001),
        data(0.97202, 3001),
        ack(0.993, 4001),
    ]);
    assert_eq!(kinds(&a), [fb::KIND_RTO, fb::KIND_RTO, fb::KIND_SLOW_START, fb::KIND_SLOW_START]);
    let d = &a.connections[0].directions[0];
    assert_eq!(counts(d), [4, 2, 0, 0, 2, 0]);
    assert_one_chain(d, 0.33, &[310.0, 600.0]);
}

#[test]
fn probe_then_timeout_and_a_dsack_proves_the_probe_needless() {
    // Two segments; 60 ms of silence; the tail 2001..3001 is re-sent: the first timer
    // event since feedback, re-sending SND.NXT's segment → tail loss probe (RFC 8985
    // §7.3). No answer: 250 ms later the head → a timeout. The ACK of 3001 then carries
    // a D-SACK for 2001..3001 (below the cumulative ACK, RFC 2883 §4): the probe
    // duplicated bytes the receiver had: spurious. The timeout's retransmission of
    // 1001 was not reported: it was needed.
    let a = at_sender(vec![
        data(0.030, 1001),
        data(0.031, 2001),
        data(0.091, 2001),
        data(0.341, 1001),
        ack(0.362, 3001).sack(&[(2001, 3001)]),
    ]);
    assert_eq!(kinds(&a), [fb::KIND_TLP | fb::KIND_SPURIOUS, fb::KIND_RTO]);
    assert_eq!(counts(&a.connections[0].directions[0]), [2, 1, 1, 0, 0, 1]);
}

#[test]
fn eifel_an_echo_older_than_the_retransmission_makes_it_spurious() {
    // Timestamps on (TSval = ms). 1001 sent with TSval 30, re-sent by a timeout at 330 ms
    // with TSval 330; the first ACK covering it echoes 30: the original arrived (the
    // ACK was only delayed) → spurious (RFC 3522 §3.2).
    let a = at_sender(vec![
        data(0.030, 1001).ts(30, 20),
        data(0.031, 2001).ts(31, 20),
        data(0.330, 1001).ts(330, 20),
        ack(0.340, 3001).ts(40, 30),
    ]);
    assert_eq!(kinds(&a), [fb::KIND_RTO | fb::KIND_SPURIOUS]);
    assert_eq!(counts(&a.connections[0].directions[0]), [1, 1, 0, 0, 0, 1]);
    // The same, echoing the retransmission's TSval: it filled the hole, not spurious.
    let b = at_sender(vec![
        data(0.030, 1001).ts(30, 20),
        data(0.031, 2001).ts(31, 20),
        data(0.330, 1001).ts(330, 20),
        ack(0.350, 3001).ts(50, 330),
    ]);
    assert_eq!(counts(&b.connections[0].directions[0]), [1, 1, 0, 0, 0, 0]);
}

/// Three segments, then 100 ms of silence and 1001, 2001 re-sent 10 µs apart.
fn three_then_a_burst() -> Vec<Seg> {
    vec![data(0.030, 1001), data(0.031, 2001), data(0.032, 3001), data(0.132, 1001), data(0.13201, 2001)]
}

#[test]
fn a_timer_burst_is_recovery_not_a_timeout() {
    // After 100 ms of silence two segments are re-sent 10 µs apart with no feedback
    // between: a timeout re-sends one segment with a one-segment window (RFC 6298 §5.4,
    // RFC 5681 §3.1), so this is a loss-detection timer in recovery (RACK, RFC 8985
    // §6.3): both fast.
    let a = at_sender(three_then_a_burst());
    assert_eq!(kinds(&a), [fb::KIND_FAST, fb::KIND_FAST]);
    assert_eq!(counts(&a.connections[0].directions[0]), [2, 0, 0, 2, 0, 0]);
}

#[test]
fn timer_bursts_that_repeat_without_feedback_are_timeouts_with_backoff() {
    // Zeek's http/206_example_b.pcap, shrunk: the receiver falls silent; the sender
    // re-sends 1001 and 2001 (10 µs apart) at 132 ms, then the same pair at 320 ms and
    // 720 ms, with no ACK in between. The first pair may be a loss-detection timer
    // (RACK, RFC 8985 §6.3: both fast, as in a_timer_burst_is_recovery_not_a_timeout);
    // re-sending the same bytes again without feedback only the retransmission timer
    // does (RFC 6298 §5.5, doubling): each later pair is one timeout (its head) and one
    // slow-start retransmission (RFC 5681 §3.1, loss state). So 6 retransmissions =
    // 2 fast + 2 timeouts + 2 slow start; the timeouts form one chain whose intervals
    // are 300 ms (from the last feedback, the SYN/ACK at 20 ms, to 320 ms) and 400 ms.
    let mut segs = three_then_a_burst();
    segs.extend([data(0.320, 1001), data(0.32001, 2001), data(0.720, 1001), data(0.72001, 2001)]);
    let a = at_sender(segs);
    assert_eq!(
        kinds(&a),
        [fb::KIND_FAST, fb::KIND_FAST, fb::KIND_RTO, fb::KIND_SLOW_START, fb::KIND_RTO, fb::KIND_SLOW_START]
    );
    let d = &a.connections[0].directions[0];
    // [retransmissions, rto, tlp, fast, slow start, spurious]
    assert_eq!(counts(d), [6, 2, 0, 2, 2, 0]);
    assert_one_chain(d, 0.32, &[300.0, 400.0]);
}

#[test]
fn a_resent_syn_is_a_timeout_and_a_resent_fin_has_a_kind_too() {
    // RFC 6298 §5.7: only the timer re-sends a SYN (here 1 s later, the classic initial
    // RTO): a timeout though it is the "tail" and the first timer event. Then a FIN
    // re-sent 300 ms after the last feedback, the highest sequence number sent: the
    // tail loss probe of RFC 8985 §7.3. Every segment `retransmissions` counts has a kind.
    let a = run(vec![
        Seg::a_to_b(0.0).seq(1000).flags(SYN).win(64240),
        Seg::a_to_b(1.0).seq(1000).flags(SYN).win(64240),
        Seg::b_to_a(1.010).seq(5000).ack(1001).flags(SYN | ACK).win(65160),
        Seg::a_to_b(1.0101).seq(1001).ack(5001).win(502),
        data(1.020, 1001),
        ack(1.040, 2001),
        Seg::a_to_b(1.041).seq(2001).ack(5001).flags(FIN | ACK),
        Seg::a_to_b(1.341).seq(2001).ack(5001).flags(FIN | ACK),
    ]);
    assert_eq!(kinds(&a), [fb::KIND_RTO, fb::KIND_TLP]);
    assert_eq!(counts(&a.connections[0].directions[0]), [2, 1, 1, 0, 0, 0]);
}
