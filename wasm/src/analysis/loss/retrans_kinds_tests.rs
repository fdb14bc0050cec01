//! Retransmission kinds on hand-built segments (analysis/track/testseg.rs), captured at the
//! data sender A: handshake SYN at 0, SYN/ACK 20 ms later, ACK 0.1 ms after it, so the
//! path RTT is 20.1 ms and the sender lag 0 (vantage.rs). A's first data byte is 1001,
//! 1000-byte segments.

use crate::analysis::rows::columns::flag_bits as fb;
use crate::analysis::track::testseg::{run, Seg};
use crate::analysis::report::Analysis;
use crate::analysis::report::DirectionSummary;
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

/// [`at_sender`] with SACK negotiated (both SYNs offer it, RFC 2018 §2).
fn at_sack_sender(rest: Vec<Seg>) -> Analysis {
    let mut v = vec![
        Seg::a_to_b(0.0).seq(1000).flags(SYN).win(64240).wscale(7).sack_ok(),
        Seg::b_to_a(0.020).seq(5000).ack(1001).flags(SYN | ACK).win(65160).wscale(7).sack_ok(),
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
    // 1001 was not reported: it was needed. (SACK negotiated: Linux probes only then.)
    let a = at_sack_sender(vec![
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

#[test]
fn eifel_cannot_judge_a_retransmission_whose_ack_also_covers_earlier_data() {
    // Timestamps on. 1001 and 2001 leave in the same millisecond (TSval 30); 2001 is
    // lost and the receiver delays its ACK of 1001. At 91 ms the tail 2001 is probed
    // (TSval 91); it completes the data and the receiver ACKs 3001 at once, echoing 30:
    // the TSval of 1001, the first segment that ACK covers (RFC 7323 §4.3), older than
    // the probe although the probe repaired a real loss. The ACK also covers 1001, which
    // was unacknowledged before it: Eifel cannot tell, so not spurious (Linux counts
    // such a probe as TCPLossProbeRecovery; it reports a needless one by D-SACK).
    let tail_probed = || {
        vec![
            data(0.030, 1001).ts(30, 20),
            data(0.0301, 2001).ts(30, 20),
            data(0.091, 2001).ts(91, 20),
            ack(0.1115, 3001).ts(50, 30),
        ]
    };
    let a = at_sack_sender(tail_probed());
    assert_eq!(kinds(&a), [fb::KIND_TLP]);
    assert_eq!(counts(&a.connections[0].directions[0]), [1, 0, 1, 0, 0, 0]);
    // Without SACK (the handshake offered none) there is no probe: Linux arms its probe
    // timer only on a SACK connection (`tcp_schedule_loss_probe`; RACK-TLP needs the
    // scoreboard, RFC 8985 §4), so the same re-send is its retransmission timeout.
    let no_sack = at_sender(tail_probed());
    assert_eq!(kinds(&no_sack), [fb::KIND_RTO]);
    assert_eq!(counts(&no_sack.connections[0].directions[0]), [1, 1, 0, 0, 0, 0]);
    // A probe, then a timeout re-sending the head 1001 (TSval 341), no feedback between:
    // one timer episode. The first ACK (3001) echoes 30: for the head, which it
    // acknowledges alone (nothing before 1001 was unacknowledged), the original arrived
    // (RFC 3522 §3.2) → spurious; the sender undoes the episode as a whole (Linux
    // tcp_packet_delayed compares with the episode's first retransmission), so the
    // probe of the tail, covered by the same ACK, was needless too.
    let b = at_sack_sender(vec![
        data(0.030, 1001).ts(30, 20),
        data(0.031, 2001).ts(31, 20),
        data(0.091, 2001).ts(91, 20),
        data(0.341, 1001).ts(341, 20),
        ack(0.362, 3001).ts(50, 30),
    ]);
    assert_eq!(kinds(&b), [fb::KIND_TLP | fb::KIND_SPURIOUS, fb::KIND_RTO | fb::KIND_SPURIOUS]);
    assert_eq!(counts(&b.connections[0].directions[0]), [2, 1, 1, 0, 0, 2]);
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
    // re-sent 200 ms after the last feedback, the highest sequence number sent: the
    // tail loss probe of RFC 8985 §7.3 (within 2 × the 20 ms round trip + 200 ms with one
    // segment outstanding, §7.2; at 300 ms it would be past any probe timer: a timeout,
    // classify.rs `past_probe_timeout`). Every segment `retransmissions` counts has a kind.
    let fin_resent_at = |t: f64| {
        run(vec![
            Seg::a_to_b(0.0).seq(1000).flags(SYN).win(64240).sack_ok(),
            Seg::a_to_b(1.0).seq(1000).flags(SYN).win(64240).sack_ok(),
            Seg::b_to_a(1.010).seq(5000).ack(1001).flags(SYN | ACK).win(65160).sack_ok(),
            Seg::a_to_b(1.0101).seq(1001).ack(5001).win(502),
            data(1.020, 1001),
            ack(1.040, 2001),
            Seg::a_to_b(1.041).seq(2001).ack(5001).flags(FIN | ACK),
            Seg::a_to_b(t).seq(2001).ack(5001).flags(FIN | ACK),
        ])
    };
    let a = fin_resent_at(1.241);
    assert_eq!(kinds(&a), [fb::KIND_RTO, fb::KIND_TLP]);
    assert_eq!(counts(&a.connections[0].directions[0]), [2, 1, 1, 0, 0, 0]);
    // 300 ms after the FIN, past 2 × 20 ms + 200 ms + the timer's 10 ms slack.
    assert_eq!(kinds(&fin_resent_at(1.341)), [fb::KIND_RTO, fb::KIND_RTO]);
}

/// 1001 is lost; 2001..5001 follow 10 ms apart (a slow sender); the receiver answers
/// each with an ACK of 1001 whose window grows (Linux's receiver keeps opening its
/// window while it queues out-of-order data, so these are not Wireshark duplicate
/// ACKs), then 1001 is re-sent 0.1 ms after the last of them. `cut`: the ACKs' SACK
/// options were cut by the snaplen.
fn recovery_with_growing_window(cut: bool) -> Analysis {
    let mut v = vec![data(0.030, 1001), data(0.031, 2001), data(0.041, 3001), data(0.051, 4001), data(0.061, 5001)];
    for (i, t) in [0.0511, 0.0611, 0.0711, 0.0811].into_iter().enumerate() {
        let a = ack(t, 1001).win(503 + i as u16);
        v.push(if cut { a.sack_cut() } else { a });
    }
    v.push(data(0.0812, 1001));
    at_sender(v)
}

#[test]
fn a_sack_option_cut_by_the_snaplen_is_still_feedback() {
    // rx-ipv6-loss.pcap (snaplen 96 on IPv6 keeps 10 bytes of the SACK option): every
    // ACK during recovery carries a SACK option whose blocks the capture lost. RFC 2018
    // §4 makes the first block the one holding the segment that triggered the ACK, so
    // each told the sender something new: the re-send 0.1 ms after the last is clocked
    // by feedback → fast (kernel: TCPFastRetrans). Counted as no feedback, the last
    // feedback would be the first ACK at 51.1 ms (the tracker's first cumulative ACK),
    // 30.1 ms ≥ the 20.1 ms path RTT earlier: a timeout — which is what the same ACKs
    // without any SACK option and with a changing window (neither new ACK, new SACK nor
    // duplicate ACK) still read as.
    // [retransmissions, rto, tlp, fast, slow start, spurious]
    let a = recovery_with_growing_window(true);
    assert_eq!(counts(&a.connections[0].directions[0]), [1, 0, 0, 1, 0, 0]);
    let b = recovery_with_growing_window(false);
    assert_eq!(counts(&b.connections[0].directions[0]), [1, 1, 0, 0, 0, 0]);
}

/// Captured at the RECEIVER B: A's SYN at 0, B's SYN/ACK 0.1 ms later, A's ACK at
/// `hs_ack` (Wireshark's handshake RTT = hs_ack). Timestamps: A's clock in ms, B's
/// = ms + 100. Data 1001 at 30 ms, ACKed at once; 2001 at 50.2 ms echoes that ACK
/// (A's turn: 20.1 ms); 3001 never reaches the capture (lost upstream); 4001, 5001 at
/// 60, 61 ms (echoing the ACK A last heard, at 30.1 ms) open the hole [3001, 4001) at
/// 60 ms, each SACKed at once; then 3001 arrives at `fill`, echoing the SACK at 60.1 ms
/// if A can have heard it (a re-send), else the ACK at 30.1 ms (the original).
fn at_receiver_hole_filled(hs_ack: f64, fill: f64) -> Analysis {
    let ms = |t: f64| (t * 1000.0).round() as u32;
    let d = |t: f64, seq: u32, ecr: u32| Seg::a_to_b(t).seq(seq).ack(5001).len(1000).ts(ms(t), ecr);
    let k = |t: f64, a: u32, ecr: u32| Seg::b_to_a(t).seq(5001).ack(a).win(502).ts(ms(t) + 100, ecr);
    run(vec![
        Seg::a_to_b(0.0).seq(1000).flags(SYN).win(64240).wscale(7).ts(0, 0),
        Seg::b_to_a(0.0001).seq(5000).ack(1001).flags(SYN | ACK).win(65160).wscale(7).ts(100, 0),
        Seg::a_to_b(hs_ack).seq(1001).ack(5001).win(502).ts(ms(hs_ack), 100),
        d(0.030, 1001, 100),
        k(0.0301, 2001, 30),
        d(0.0502, 2001, 130),
        k(0.0503, 3001, 50),
        d(0.060, 4001, 130),
        k(0.0601, 3001, 60).sack(&[(4001, 5001)]),
        d(0.061, 5001, 130),
        // A new window: not a second duplicate ACK (Wireshark's "fast retransmission"
        // needs two, and would label either refill without looking at the time).
        k(0.0611, 3001, 61).sack(&[(4001, 6001)]).win(503),
        d(fill, 3001, if fill >= 0.0802 { 160 } else { 130 }),
        k(fill + 0.0001, 6001, ms(fill)),
    ])
}

#[test]
fn at_the_receiver_a_hole_filled_a_round_trip_later_is_a_retransmission() {
    // The sender can re-send 3001 only after the receiver's ACKs of 4001 (captured at
    // 60.1 ms) reach it: the re-send passes the capture one path RTT (20.1 ms) after
    // the hole opened, at 80.2 ms. Wireshark calls it out-of-order (within its
    // handshake RTT of the highest segment, 5001 at 61 ms); the kernel counts a
    // retransmission (rx-cubic-loss.pcap: all 24 TCPFastRetrans are such refills).
    // Half a round trip or more after the hole opened → a retransmission, fast (the
    // SACK at 61.1 ms, one sender lag earlier, clocked it).
    let a = at_receiver_hole_filled(0.0201, 0.0802);
    let d = &a.connections[0].directions[0];
    assert_eq!((d.out_of_order, d.lost_segments), (0, 1));
    // [retransmissions, rto, tlp, fast, slow start, spurious]
    assert_eq!(counts(d), [1, 0, 0, 1, 0, 0]);
    // 2 ms after the hole opened (< half the 20.1 ms round trip) the sender cannot have
    // heard of it: the original, reordered on the way (RACK tolerates min_RTT/4, RFC
    // 8985 §6.2) → out-of-order, no retransmission.
    let b = at_receiver_hole_filled(0.0201, 0.062);
    let d = &b.connections[0].directions[0];
    assert_eq!((d.out_of_order, counts(d)), (1, [0, 0, 0, 0, 0, 0]));
}

#[test]
fn a_slow_handshake_does_not_hide_refills() {
    // rx-cubic-loss.pcap: the SYN/ACK took 39.9 ms on a 10 ms path, so Wireshark's
    // handshake RTT was 4× the path's. Here A's handshake ACK comes 60.1 ms after the
    // SYN, but the timestamps show the turns: through A 20.1 ms (B's ACK at 30.1 ms,
    // echoed by A's data at 50.2 ms), through B 0.1 ms: a 20.2 ms round trip. The
    // refill 20.2 ms after the hole opened is past half of that (not of 60.1 ms):
    // a retransmission.
    let a = at_receiver_hole_filled(0.0601, 0.0802);
    let d = &a.connections[0].directions[0];
    assert_eq!((d.out_of_order, d.retransmissions), (0, 1));
}

/// Four segments; the receiver gets 1001 and 2001 but their ACKs are lost, then 3001
/// and 4001 are lost too (an outage). At 330 ms the timer re-sends the head 1001.
/// `dsack`: the ACK that finally comes back reports 1001 twice (a D-SACK below the
/// cumulative ACK, RFC 2883 §4).
fn outage_then_timeout(dsack: bool) -> Analysis {
    outage_then_timeout_with(dsack, true)
}

fn outage_then_timeout_with(dsack: bool, sack_negotiated: bool) -> Analysis {
    let first_ack = if dsack { ack(0.351, 3001).sack(&[(1001, 2001)]) } else { ack(0.351, 3001) };
    let handshake = if sack_negotiated { at_sack_sender } else { at_sender };
    handshake(vec![
        data(0.030, 1001),
        data(0.031, 2001),
        data(0.032, 3001),
        data(0.033, 4001),
        data(0.330, 1001),
        first_ack,
        data(0.35102, 3001),
        ack(0.372, 4001),
        data(0.37202, 4001),
        ack(0.393, 5001),
    ])
}

#[test]
fn a_timeout_shown_needless_by_a_dsack_is_undone_and_the_holes_after_it_are_recovery() {
    // The D-SACK shows the timeout's only retransmission needless (the ACKs were lost,
    // not the data): the sender undoes the timeout (RFC 4015, Linux tcp_try_undo_loss)
    // and re-sends 3001 and 4001 in recovery, as the kernel counts them (TCPFastRetrans,
    // no TCPSlowStartRetrans): [3 retransmissions, 1 timeout, 0 probes, 2 fast, 0 slow
    // start, 1 spurious].
    let a = outage_then_timeout(true);
    assert_eq!(kinds(&a), [fb::KIND_RTO | fb::KIND_SPURIOUS, fb::KIND_FAST, fb::KIND_FAST]);
    assert_eq!(counts(&a.connections[0].directions[0]), [3, 1, 0, 2, 0, 1]);
}

#[test]
fn f_rto_an_ack_of_data_never_resent_undoes_the_timeout() {
    // Without the D-SACK the first ACK after the timeout still acknowledges 2001..3001,
    // which was never re-sent: its original arrived, so not everything outstanding was
    // lost and the timeout was spurious by F-RTO (RFC 5682 §3 step 3.b; Linux
    // FLAG_ORIG_SACK_ACKED → tcp_try_undo_loss, TCPSpuriousRTOs). The sender undoes it
    // and re-sends the real holes 3001 and 4001 in recovery: fast. The head's own
    // re-send is not shown needless (its original may have been lost): not spurious.
    let b = outage_then_timeout(false);
    assert_eq!(kinds(&b), [fb::KIND_RTO, fb::KIND_FAST, fb::KIND_FAST]);
    assert_eq!(counts(&b.connections[0].directions[0]), [3, 1, 0, 2, 0, 0]);
}

#[test]
fn at_the_sender_a_raised_duplicate_ack_threshold_still_clocks_the_fast_retransmission() {
    // No SACK, a 20 ms path. 1001 is lost; each of 2001..21001 brings a duplicate ACK,
    // 2.5 ms apart (the sender's new data, paced). A sender that has seen reordering
    // waits for more than three (Linux: tp->reordering): it re-sends 1001 1 ms after the
    // twentieth, 43.5 ms (two round trips) after the third — a fast retransmission, not
    // a timeout.
    let mut timed: Vec<(f64, Seg)> = (0..21).map(|k| (0.030 + 0.0025 * k as f64, 1001 + 1000 * k)).map(|(t, seq)| (t, data(t, seq))).collect();
    timed.extend((0..20).map(|k| 0.051 + 0.0025 * k as f64).map(|t| (t, ack(t, 1001))));
    timed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut v: Vec<Seg> = timed.into_iter().map(|(_, seg)| seg).collect();
    v.push(data(0.0995, 1001));
    v.push(ack(0.1205, 22001));
    let a = at_sender(v);
    assert_eq!(kinds(&a), [fb::KIND_FAST]);
    // Past the sender (a receiver-side capture) the run's re-send may have been lost
    // before the capture point: only the first three count there (not tested here:
    // this capture is the sender's).
}

#[test]
fn without_sack_an_ack_that_also_covers_the_re_send_is_no_f_rto_evidence() {
    // The same exchange on a connection without SACK: that ACK covers the re-sent
    // 1001..2001 too, and a cumulative ACK cannot tell which copy filled the hole, so
    // Linux does not count it as F-RTO's evidence (tcp_clean_rtx_queue clears
    // FLAG_ORIG_SACK_ACKED for a non-SACK ACK of any retransmitted segment) and stays
    // in the timeout's loss state: 3001 and 4001 are slow-start re-sends. (Linux, BBR,
    // no SACK, 6 % loss, at the sender: read as undone, 45 of the kernel's 441
    // TCPSlowStartRetrans were called fast.)
    let b = outage_then_timeout_with(false, false);
    assert_eq!(kinds(&b), [fb::KIND_RTO, fb::KIND_SLOW_START, fb::KIND_SLOW_START]);
    assert_eq!(counts(&b.connections[0].directions[0]), [3, 1, 0, 0, 2, 0]);
}

#[test]
fn a_fast_open_syn_with_data_learns_sack_from_the_syn_ack() {
    // The SACK exchange of f_rto_an_ack_of_data_never_resent_undoes_the_timeout, on a
    // connection whose SYN carried its first 1,000 bytes (TCP Fast Open, RFC 7413 §3:
    // the SYN occupies sequence 0, its data 1..1001, the SYN/ACK acknowledges 1001). The
    // sender's tracker starts at that SYN, before the SYN/ACK says SACK was negotiated:
    // it must still know it (before: unknown, taken as no SACK, and 3001 and 4001 read
    // as slow-start re-sends of a timeout that was in fact undone).
    let mut v = vec![
        Seg::a_to_b(0.0).seq(0).len(1000).flags(SYN).win(64240).wscale(7).sack_ok().tfo(),
        Seg::b_to_a(0.020).seq(5000).ack(1001).flags(SYN | ACK).win(65160).wscale(7).sack_ok(),
        Seg::a_to_b(0.0201).seq(1001).ack(5001).win(502),
    ];
    v.extend([
        data(0.030, 1001),
        data(0.031, 2001),
        data(0.032, 3001),
        data(0.033, 4001),
        data(0.330, 1001),
        ack(0.351, 3001),
        data(0.35102, 3001),
        ack(0.372, 4001),
        data(0.37202, 4001),
        ack(0.393, 5001),
    ]);
    let a = run(v);
    assert_eq!(kinds(&a), [fb::KIND_RTO, fb::KIND_FAST, fb::KIND_FAST]);
}

#[test]
fn f_rto_does_not_judge_a_timeout_during_fast_recovery() {
    // 1001 and 4001 are lost; 2001, 3001, 5001 and 6001 arrive: four ACKs of 1001, three
    // of them duplicates → fast retransmit of 1001 (RFC 5681 §3.2), lost again. The
    // timeout at 400 ms re-sends 1001 during that recovery, where Linux does not arm
    // F-RTO (tcp_enter_loss: only outside recovery or for a repeated timeout), so the ACK
    // of 4001 — covering 2001..4001, never re-sent — undoes nothing: 4001 is re-sent in
    // the timeout's loss state, slow start. (Kernel, no-SACK request/response at 3 %
    // loss: 6 of 7 timeouts came during recovery, TCPRenoRecoveryFail, and none was
    // undone.)
    let a = at_sender(vec![
        data(0.030, 1001),
        data(0.031, 2001),
        data(0.032, 3001),
        data(0.033, 4001),
        data(0.034, 5001),
        data(0.035, 6001),
        ack(0.051, 1001),
        ack(0.052, 1001),
        ack(0.054, 1001),
        ack(0.055, 1001),
        data(0.05502, 1001),
        data(0.400, 1001),
        ack(0.421, 4001),
        data(0.42102, 4001),
        ack(0.442, 7001),
    ]);
    assert_eq!(kinds(&a), [fb::KIND_FAST, fb::KIND_RTO, fb::KIND_SLOW_START]);
    assert_eq!(counts(&a.connections[0].directions[0]), [3, 1, 0, 1, 1, 0]);
}

/// 1001 is lost; two ACKs SACK 2001..4001 at 51 and 52 ms; the sender re-sends the hole
/// 1001 at 52 ms + `after` s, nothing heard in between.
fn hole_resent_after(after: f64) -> Analysis {
    at_sender(vec![
        data(0.030, 1001),
        data(0.031, 2001),
        data(0.032, 3001),
        ack(0.051, 1001).sack(&[(2001, 3001)]),
        ack(0.052, 1001).sack(&[(2001, 4001)]),
        data(0.052 + after, 1001),
        ack(0.073 + after, 4001),
    ])
}

#[test]
fn a_hole_below_sacked_data_resent_within_one_and_a_half_round_trips_is_rack_not_a_timeout() {
    // 24 ms of quiet at a 20.1 ms path RTT: more than a round trip, but a hole below
    // SACKed data re-sent by RACK's reordering timer comes up to RACK.reo_wnd ≤ SRTT
    // after the ACK that armed it (RFC 8985 §6.2, §6.3): recovery (fast), not a timeout.
    assert_eq!(counts(&hole_resent_after(0.024).connections[0].directions[0]), [1, 0, 0, 1, 0, 0]);
    // 40 ms of quiet (≥ 1.5 × 20.1 ms): past what that timer waits: a timeout.
    assert_eq!(counts(&hole_resent_after(0.040).connections[0].directions[0]), [1, 1, 0, 0, 0, 0]);
}

/// A 100 µs path (handshake: SYN/ACK 100 µs after the SYN): 1001 lost, 2001 and 3001
/// SACKed at 1.1 and 1.2 ms, the hole re-sent `after` s after that last SACK.
fn lan_hole_resent_after(after: f64) -> Analysis {
    run(vec![
        Seg::a_to_b(0.0).seq(1000).flags(SYN).win(64240).wscale(7),
        Seg::b_to_a(0.0001).seq(5000).ack(1001).flags(SYN | ACK).win(65160).wscale(7),
        Seg::a_to_b(0.000101).seq(1001).ack(5001).win(502),
        data(0.001, 1001),
        data(0.00101, 2001),
        data(0.00102, 3001),
        ack(0.0011, 1001).sack(&[(2001, 3001)]),
        ack(0.0012, 1001).sack(&[(2001, 4001)]),
        data(0.0012 + after, 1001),
        ack(0.0014 + after, 4001),
    ])
}

#[test]
fn on_a_short_path_a_timer_needs_at_least_a_millisecond_of_quiet() {
    // 400 µs after the last SACK is four round trips of this path, but no stack's
    // retransmission timer fires that soon (Linux's probe timeout adds ≥ 2 ms to 2·SRTT,
    // its RTO is ≥ 200 ms): the SACK clocked it, through a slow host → recovery.
    assert_eq!(counts(&lan_hole_resent_after(0.0004).connections[0].directions[0]), [1, 0, 0, 1, 0, 0]);
    // 5 ms of quiet below SACKed data: RACK's reordering timer, armed in jiffies (4 ms
    // at HZ=250, fired up to 2 jiffies late: TIMER_SLACK_NS) → still recovery.
    assert_eq!(counts(&lan_hole_resent_after(0.005).connections[0].directions[0]), [1, 0, 0, 1, 0, 0]);
    // 12 ms: past the round trip + that slack → a timer: a timeout (a hole, not the
    // tail: no probe).
    assert_eq!(counts(&lan_hole_resent_after(0.012).connections[0].directions[0]), [1, 1, 0, 0, 0, 0]);
}

#[test]
fn when_every_round_trip_is_below_the_clock_a_long_quiet_is_still_a_timer() {
    // A host-local path (a veth: 2 µs round trips) whose clock saw every round trip as
    // 0: the path RTT is unknown, but known to be below a tick (vantage.rs
    // `PathRtt::timer_bound`). The hole is re-sent at once after the SACK (fast), lost
    // again, and re-sent 206 ms later with nothing heard in between: Linux's RTO
    // (TCPTimeouts 1 in the kernel's counters of such a recording), which an unknown
    // RTT had made a second fast retransmission.
    let a = run(vec![
        Seg::a_to_b(0.0).seq(1000).flags(SYN).win(64240).wscale(7),
        Seg::b_to_a(0.0).seq(5000).ack(1001).flags(SYN | ACK).win(65160).wscale(7),
        Seg::a_to_b(0.0).seq(1001).ack(5001).win(502),
        data(0.001, 1001).ts(1, 0),
        data(0.001, 2001).ts(1, 0),
        data(0.001, 3001).ts(1, 0),
        ack(0.001, 1001).sack(&[(2001, 4001)]),
        // (Each re-send its own TSval, as a real one has: not a copy of the frame.)
        data(0.001, 1001).ts(2, 0),
        data(0.207, 1001).ts(208, 0),
        ack(0.207, 4001),
    ]);
    let c = &a.connections[0];
    assert_eq!(c.path_rtt_ms, None, "{}", c.path_rtt_method);
    assert_eq!(counts(&c.directions[0]), [2, 1, 0, 1, 0, 0]);
}

#[test]
fn without_sack_duplicate_acks_after_the_third_clock_no_retransmission() {
    // NewReno (no SACK option anywhere), 10 ms path. 1001 is lost; the third duplicate
    // ACK clocks its fast retransmission (RFC 5681 §3.2), which is lost too. Later
    // duplicate ACKs only let new data out (RFC 6582 §3.2 step 4) and leave the timer
    // running (RFC 6298 §5.3): the re-send 200 ms later, 1 ms after yet another
    // duplicate ACK, is the timeout (Linux at 8 % loss without SACK: a timeout and its
    // slow-start re-sends had read as fast retransmissions; kernel TCPTimeouts 6).
    let mut segs = vec![
        Seg::a_to_b(0.0).seq(1000).flags(SYN).win(64240),
        Seg::b_to_a(0.010).seq(5000).ack(1001).flags(SYN | ACK).win(65160),
        Seg::a_to_b(0.010001).seq(1001).ack(5001).win(502),
    ];
    for k in 0..8u32 {
        segs.push(data(0.011 + 0.0001 * f64::from(k), 1001 + 1000 * k));
    }
    // Duplicate ACKs for 1001 as 2001..8001 arrive; the third clocks the fast re-send.
    for k in 0..3u32 {
        segs.push(ack(0.021 + 0.0001 * f64::from(k), 1001));
    }
    segs.push(data(0.0214, 1001));
    // Inflation: each further duplicate ACK lets one new segment out.
    for k in 0..4u32 {
        let t = 0.0216 + 0.01 * f64::from(k);
        segs.push(ack(t, 1001));
        segs.push(data(t + 0.0001, 9001 + 1000 * k));
    }
    segs.push(ack(0.2205, 1001));
    segs.push(data(0.2215, 1001));
    segs.push(ack(0.2315, 13001));
    let a = run(segs);
    // [retransmissions, timeouts, probes, fast, slow start, spurious]
    assert_eq!(counts(&a.connections[0].directions[0]), [2, 1, 0, 1, 0, 0]);
}

/// Captured at the receiver B (SYN/ACK 0.1 ms after the SYN, A's ACK 20 ms later: a 20 ms
/// path, all on A's side), SACK negotiated. A sends 20 segments of 1000 bytes numbered
/// 100..119, each ACKed (`last_len`: the 20th's payload instead); the next datagram
/// (number 120) is lost before the capture; B's ACK says it has everything captured.
/// `between`: what the capture sees next; `resend`: then from A — (time, number, ACK
/// number, payload) — `beyond` bytes past the data's edge.
fn tail_lost_before_the_receiver_with(last_len: u32, between: Vec<Seg>, resend: (f64, u16, u32, u32), beyond: u32) -> Analysis {
    let mut v = vec![
        Seg::a_to_b(0.0).seq(1000).flags(SYN).win(64240).wscale(7).sack_ok().mss(1460),
        Seg::b_to_a(0.0001).seq(5000).ack(1001).flags(SYN | ACK).win(65160).wscale(7).sack_ok().mss(1460),
        Seg::a_to_b(0.0201).seq(1001).ack(5001).win(502),
    ];
    for i in 0..20u32 {
        let t = 0.030 + f64::from(i) * 0.0001;
        let len = if i == 19 { last_len } else { 1000 };
        v.push(data(t, 1001 + i * 1000).len(len).ip_id(100 + i as u16));
        v.push(ack(t + 0.00005, 1001 + i * 1000 + len));
    }
    let edge = 20001 + last_len;
    v.extend(between);
    let (t, id, a, len) = resend;
    v.push(Seg::a_to_b(t).seq(edge + beyond).ack(a).len(len).ip_id(id));
    let acked = if beyond == 0 { edge + len } else { edge };
    v.push(Seg::b_to_a(t + 0.0001).seq(5001).ack(acked).win(502));
    run(v)
}

fn tail_lost_before_the_receiver(between: Vec<Seg>, resend: (f64, u16, u32, u32)) -> Analysis {
    tail_lost_before_the_receiver_with(1000, between, resend, 0)
}

#[test]
fn a_tail_lost_before_the_receiver_is_re_sent_as_if_new_and_its_number_tells() {
    // 48 ms after A's last datagram (≥ the 20 ms path: a timer), one segment at the
    // edge, numbered 121: number 120 was sent and never captured, and it can only have
    // carried these bytes (new data leaves in sequence order, numbered in send order).
    // A retransmission, and the first timer event re-sending the highest data: a probe
    // (RFC 8985 §7.3; rx-tail-loss.pcap, the kernel's TCPLossProbes 1).
    let a = tail_lost_before_the_receiver(vec![], (0.080, 121, 5001, 1000));
    let d = &a.connections[0].directions[0];
    assert_eq!((d.unseen_datagrams, counts(d)), (Some(1), [1, 0, 1, 0, 0, 0]));
    // Each fact it rests on, taken away, leaves new data (number 120 may have been
    // something else, or nothing was skipped):
    let new_data = |between: Vec<Seg>, resend: (f64, u16, u32, u32)| {
        let r = tail_lost_before_the_receiver(between, resend);
        assert_eq!(counts(&r.connections[0].directions[0]), [0; 6], "{resend:?}");
    };
    // B sent 100 bytes, so 120 may have been A's delayed ACK of them (an HTTP server's
    // before its answer), with or without a new ACK number on the answer;
    new_data(vec![Seg::b_to_a(0.040).seq(5001).ack(21001).len(100).win(502)], (0.080, 121, 5101, 1000));
    new_data(vec![Seg::b_to_a(0.040).seq(5001).ack(21001).len(100).win(502)], (0.080, 121, 5001, 1000));
    // B's keep-alive (RFC 9293 §3.8.4: one byte below its next), which A answers;
    new_data(vec![Seg::b_to_a(0.040).seq(5000).ack(21001).win(502)], (0.080, 121, 5001, 1000));
    // B closed its window, then opened it: 120 may have been A's zero-window probe;
    new_data(vec![ack(0.040, 21001).win(0), ack(0.060, 21001)], (0.080, 121, 5001, 1000));
    // 0.5 ms after the last datagram: sooner than any timer on a 20 ms path;
    new_data(vec![], (0.0324, 121, 5001, 1000));
    // two segments in one frame (a GRO merge): a timer sends one;
    new_data(vec![], (0.080, 121, 5001, 2000));
    // no number skipped: nothing was sent before it;
    new_data(vec![], (0.080, 120, 5001, 1000));
    // 120 was A's last datagram, on another connection: one counter for the host's
    // connections (tcpdump's of10_s4810.pcap, a switch's OpenFlow channels), or a 0 there.
    new_data(vec![Seg::a_to_b(0.050).ports(40001, 80).seq(9001).ack(7001).len(100).ip_id(120)], (0.080, 121, 5001, 1000));
    new_data(vec![Seg::a_to_b(0.050).ports(40001, 80).seq(9001).ack(7001).len(100).ip_id(0)], (0.080, 121, 5001, 1000));
    // The 20th was 500 bytes, numbered 119, and the next is numbered 124: a GRO frame of
    // five 100-byte segments uses five numbers but counts one, so the skip may be none.
    let g = tail_lost_before_the_receiver_with(500, vec![], (0.080, 124, 5001, 1000), 0);
    assert_eq!(counts(&g.connections[0].directions[0]), [0; 6]);
    let g = tail_lost_before_the_receiver_with(1000, vec![], (0.080, 124, 5001, 1000), 0);
    assert_eq!(counts(&g.connections[0].directions[0]), [1, 0, 1, 0, 0, 0]);
    // Beyond one whole segment the capture never saw: numbers 120 and 121 skipped, so one
    // more than the gap's segment: the probe re-sending the last of two lost segments
    // (RFC 8985 §7.3 re-sends the highest). Number 121 alone: the gap's own segment,
    // and this is new data; a gap that is no whole number of segments tells nothing.
    let h = tail_lost_before_the_receiver_with(1000, vec![], (0.080, 122, 5001, 1000), 1000);
    assert_eq!(counts(&h.connections[0].directions[0]), [1, 0, 1, 0, 0, 0]);
    let h = tail_lost_before_the_receiver_with(1000, vec![], (0.080, 121, 5001, 1000), 1000);
    assert_eq!(counts(&h.connections[0].directions[0]), [0; 6]);
    let h = tail_lost_before_the_receiver_with(1000, vec![], (0.080, 122, 5001, 1000), 700);
    assert_eq!(counts(&h.connections[0].directions[0]), [0; 6]);
}

#[test]
fn one_dsack_explains_one_duplicate_not_the_resend_the_ack_answered() {
    // Review R class C-DSACK-DOUBLE-COUNT (gmail.pcapng.cap, no timestamps). 1001 is
    // lost; the receiver SACKs 2001..4001; the sender re-sends 1001 (A, needed) and the
    // cumulative ACK jumps to 4001: A filled the hole. The sender then re-sends 1001
    // again (B), after that ACK: the receiver had the bytes (already acknowledged),
    // and one D-SACK of 1001..2001 reports the one duplicate arrival (RFC 2883 §4).
    // Without timestamps A and B share the (absent) RetransmitTS, but A's bytes were
    // acknowledged before B was sent: A ended its chain, so the D-SACK is B's alone.
    // 2 retransmissions, 1 needless (B), not 2.
    let a = at_sack_sender(vec![
        data(0.030, 1001),
        data(0.031, 2001),
        data(0.032, 3001),
        ack(0.052, 1001).sack(&[(2001, 4001)]),
        data(0.053, 1001),
        ack(0.073, 4001),
        data(0.080, 1001),
        ack(0.100, 4001).sack(&[(1001, 2001)]),
    ]);
    let k = kinds(&a);
    assert_eq!(k.iter().map(|b| b & fb::KIND_SPURIOUS != 0).collect::<Vec<_>>(), [false, true], "{k:?}");
    assert_eq!(a.connections[0].directions[0].spurious_retransmissions, 1);
}

/// The kinds of one re-send of [1000, 2000) by a sender whose path RTT the capture does
/// not know (a capture at the receiver that starts mid-stream, no timestamps: lag 0, no
/// RTT), `quiet_s` after the receiver's last feedback at 1 s: its ACK of 1000, with
/// SACK [2000, 3000) when `sacked` (the re-sent hole is below SACKed data).
fn resend_with_unknown_rtt(sacked: bool, quiet_s: f64) -> (u64, u64) {
    let s = 1_000_000_000i64;
    use super::{PeerAck, RetransKinds};
    let mut k = RetransKinds::new(Some(0), Some(true));
    let blocks: &[(i64, i64)] = if sacked { &[(2000, 3000)] } else { &[] };
    k.on_peer_ack(&PeerAck { t_ns: s, ack: 1000, sack: blocks, sack_unreadable: false, tsecr: None, duplicate: false });
    k.on_retransmission(Some(0), s + (quiet_s * 1e9) as i64, 1000, 2000, 3000, Some(1000), None, false);
    let (c, _) = k.finish(0, false, None, None);
    (c.rto_events, c.fast_retransmissions)
}

/// Rule (RFC 6298 §2.1: before any RTT sample the RTO is 1 s; Linux's floor is 200 ms):
/// where the path RTT is unknown, a re-send quiet for 1 s after the last feedback, with
/// nothing acknowledged or SACKed meanwhile, is a timer's: a clocked re-send would need a
/// round trip of over 1 s. A hole below SACKed data 1.5 s (RACK's reordering timer fires
/// up to one SRTT after the SACK, RFC 8985 §6.2). Before, with no RTT every re-send after
/// any feedback was "fast": gmail.pcapng.cap connection 3 re-sent 11201 18.7 s after the
/// last SACK and counted no timeout.
#[test]
fn with_the_rtt_unknown_a_resend_after_a_second_of_quiet_is_a_timeout() {
    // (timeouts, fast) for each quiet time.
    assert_eq!(resend_with_unknown_rtt(true, 18.7), (1, 0));
    assert_eq!(resend_with_unknown_rtt(true, 1.5), (1, 0));
    assert_eq!(resend_with_unknown_rtt(true, 1.2), (0, 1));
    assert_eq!(resend_with_unknown_rtt(false, 1.0), (1, 0));
    assert_eq!(resend_with_unknown_rtt(false, 0.9), (0, 1));
}

#[test]
fn a_tail_sent_twice_back_to_back_is_no_recovery() {
    // A response's last segment 3001 and its copy 2 µs later, a new IP ID each (not a
    // capture copy: analysis/capture/duplicates.rs), no ACK between (review AF,
    // C-BACK-TO-BACK-DUPLICATE-AS-RECOVERY, loss/back_to_back.rs): no hole was reported and
    // no timer fires within 1 ms, so neither fast nor a probe; the receiver D-SACKs the
    // copy: [retransmissions 1, no kind, spurious 1] and one back-to-back duplicate.
    let d = |t: f64, seq: u32, id: u16| data(t, seq).ip_id(id);
    let a = at_sack_sender(vec![d(0.030, 1001, 1), d(0.030002, 2001, 2), d(0.030004, 3001, 3), d(0.030006, 3001, 4), ack(0.0502, 4001).sack(&[(3001, 4001)])]);
    let dir = &a.connections[0].directions[0];
    assert_eq!(counts(dir), [1, 0, 0, 0, 0, 1]);
    assert_eq!(dir.back_to_back_duplicates, 1);
    assert_eq!(kinds(&a), vec![fb::KIND_SPURIOUS]);
    // The same copy 30 ms after its original, 40 ms after the last feedback (the
    // SYN/ACK) on a 20.1 ms path: a timer's, the tail loss probe it looks like.
    let a = at_sack_sender(vec![d(0.030, 1001, 1), d(0.030002, 2001, 2), d(0.030004, 3001, 3), d(0.060, 3001, 4), ack(0.0802, 4001).sack(&[(3001, 4001)])]);
    let dir = &a.connections[0].directions[0];
    assert_eq!((dir.back_to_back_duplicates, dir.tail_loss_probes), (0, 1));
    // 1 µs after an ACK captured between the two copies: that feedback may have clocked it.
    let a = at_sack_sender(vec![d(0.030, 1001, 1), d(0.030002, 2001, 2), d(0.051, 3001, 3), ack(0.0510005, 2001), d(0.0510015, 3001, 4), ack(0.0712, 4001)]);
    assert_eq!(a.connections[0].directions[0].back_to_back_duplicates, 0);
}
