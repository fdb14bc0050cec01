//! Tests of rtt.rs (moved out of it to keep the production file short).

use super::*;

const ACKS: Echo = Echo { acks_new_data: true, sends_new_data: false, round_trip_ns: None };
/// An echo by new data of the peer that acknowledges nothing of ours.
const DATA: Echo = Echo { acks_new_data: false, sends_new_data: true, round_trip_ns: None };
const MS: i64 = 1_000_000;

#[test]
fn ack_sample_from_newest_covered_segment() {
    let mut r = AckRtt::default();
    r.on_send(1, 1449, 0, false); // segment 1 at t=0
    r.on_send(1449, 2897, 2_000_000, false); // segment 2 at t=2 ms
    // One ACK for both at t=12 ms: sample from segment 2 → 10 ms (not 12 ms).
    assert_eq!(r.on_ack(2897, 12_000_000), Some((10_000_000, true)));
    // A repeated ACK gives nothing.
    assert_eq!(r.on_ack(2897, 13_000_000), None);
}

#[test]
fn partial_ack_gives_no_sample_for_uncovered_segment() {
    let mut r = AckRtt::default();
    r.on_send(1, 1001, 0, false);
    // ACK 500 covers no whole segment.
    assert_eq!(r.on_ack(500, 5_000_000), None);
    assert_eq!(r.on_ack(1001, 6_000_000), Some((6_000_000, true)));
}

#[test]
fn karn_skips_retransmitted_segments() {
    let mut r = AckRtt::default();
    r.on_send(1, 1001, 0, false);
    r.on_send(1, 1001, 200_000_000, false); // retransmitted after an RTO
    // The ACK could be for either copy: no sample (Karn).
    assert_eq!(r.on_ack(1001, 210_000_000), None);
    // New data afterwards is timed again.
    r.on_send(1001, 2001, 220_000_000, false);
    assert_eq!(r.on_ack(2001, 230_000_000), Some((10_000_000, true)));
}

#[test]
fn a_dsack_of_bytes_sent_once_in_the_capture_takes_no_sample() {
    // suricata-verify tcp-rst-unacked-stream-12, captured at the client: SYN at 0 (its
    // SYN/ACK at 3.375408 s is acknowledged at 3.375658 s), the 757-byte request [1, 758)
    // at 3.375953 s, and the server's ACK 758 at 6.728602 s with SACK block 1–758: at or
    // below the ACK, a D-SACK (RFC 2883 §4). The request arrived twice, so it was sent
    // twice; the capture saw one copy, the first (the SYN came before it), and the ACK
    // may answer the re-send it missed. tshark's ack_rtt says 3.352649 s; Karn (RFC 6298
    // §3) takes no sample, where the server's every ACK → data turnaround is 0.35–0.38 s.
    let mut r = AckRtt::default();
    r.on_send(0, 1, 0, false);
    assert_eq!(r.on_ack(1, 3_375_408_000), Some((3_375_408_000, true)));
    r.on_send(1, 758, 3_375_953_000, false);
    assert_eq!(r.on_ack_reporting(758, 6_728_602_000, Some((1, 758))).0, None);
    // The same ACK without the D-SACK: the 3.352649 s tshark reads.
    let mut r = AckRtt::default();
    r.on_send(0, 1, 0, false);
    r.on_ack(1, 3_375_408_000);
    r.on_send(1, 758, 3_375_953_000, false);
    assert_eq!(r.on_ack_reporting(758, 6_728_602_000, None).0, Some((3_352_649_000, true)));
}

#[test]
fn a_dsack_of_the_first_bytes_the_capture_saw_still_times_them() {
    // A keep-alive probe opening the capture (realjimmy 来疯直播 组播.pcap connection 3:
    // frame 279, one byte at 0.824953 s; its ACK, D-SACKing that byte, at 0.841468 s).
    // The copy acknowledged before was sent before the capture began: the ACK answers the
    // probe, 16.515 ms, as tshark's ack_rtt says.
    let mut r = AckRtt::default();
    r.on_send(0, 1, 824_953_000, false);
    assert_eq!(r.on_ack_reporting(1, 841_468_000, Some((0, 1))).0, Some((16_515_000, true)));
}

#[test]
fn timestamps_first_echo_only() {
    let mut r = TsRtt::default();
    r.on_send(100, 0, false, false);
    r.on_send(100, 1_000_000, false, false); // same TSval again: clock started at t=0
    r.on_send(101, 3_000_000, false, false);
    assert_eq!(r.on_echo(100, 8_000_000, ACKS), Some(TsSample { ns: 8_000_000, trusted: true }));
    assert_eq!(r.on_echo(100, 9_000_000, ACKS), None); // second echo of 100
    assert_eq!(r.on_echo(101, 10_000_000, ACKS), Some(TsSample { ns: 7_000_000, trusted: true }));
}

#[test]
fn a_tsval_sent_again_after_its_echo_times_nothing() {
    // A 40 µs path and a 1 ms TSval clock: our TSval 303 first leaves at 0, the
    // peer echoes it 40 µs later, and we keep sending 303 until the next tick.
    // The peer's next echo of 303, 3 µs after our latest 303, answers the first
    // one: no second sample (it made a "3 µs" far part, rx-gro-loss-variant).
    let mut r = TsRtt::default();
    r.on_send(303, 0, true, false);
    assert_eq!(r.on_echo(303, 40_000, ACKS), Some(TsSample { ns: 40_000, trusted: true }));
    r.on_send(303, 600_000, true, false);
    assert_eq!(r.on_echo(303, 603_000, ACKS), None);
    // An older TSval after the queue emptied is ignored too (RFC 7323 §5.3).
    r.on_send(302, 700_000, true, false);
    assert_eq!(r.on_echo(302, 703_000, ACKS), None);
    r.on_send(304, 1_000_000, true, false);
    assert_eq!(r.on_echo(304, 1_040_000, ACKS), Some(TsSample { ns: 40_000, trusted: true }));
}

#[test]
fn timestamps_skip_unechoed_values() {
    let mut r = TsRtt::default();
    r.on_send(5, 0, false, false);
    r.on_send(6, 1_000_000, false, false);
    r.on_send(7, 2_000_000, false, false);
    // Echo of 7 (5 and 6 were never echoed): 2 ms → 12 ms = 10 ms.
    assert_eq!(r.on_echo(7, 12_000_000, ACKS), Some(TsSample { ns: 10_000_000, trusted: true }));
}

#[test]
fn old_echo_after_a_pause_is_not_trusted() {
    // Our pure ACK (TSval 9) acknowledged everything the peer had sent: the peer
    // was idle. Its next request 10 s later echoes 9 (TS.Recent, RFC 7323 §4.3):
    // a 10 s "sample" that measures the pause.
    let mut r = TsRtt::default();
    r.on_send(9, 0, false, false);
    let request = Echo { acks_new_data: false, sends_new_data: true, round_trip_ns: None };
    assert_eq!(r.on_echo(9, 10_000_000_000, request), Some(TsSample { ns: 10_000_000_000, trusted: false }));
    // A receiver's ACK (TSval 10) sent while the sender still had data in
    // flight: the sender's next data segment echoes it one path RTT later.
    r.on_send(10, 11_000_000_000, true, false);
    assert_eq!(r.on_echo(10, 11_040_000_000, request), Some(TsSample { ns: 40_000_000, trusted: true }));
}

#[test]
fn a_tsval_sent_again_by_an_ack_of_everything_makes_the_peer_idle() {
    // Our ACK with TSval 40 leaves the peer a segment in flight (busy); a second
    // ACK within the same tick, TSval 40 again, covers everything. The peer's
    // application writes 7.2 s later and its data echoes 40 (TS.Recent, RFC 7323
    // §4.3): the clock runs from the first copy, 7.2 s, but nothing clocked that
    // data out: not a round trip.
    let mut r = TsRtt::default();
    r.on_peer_data(0);
    r.on_send(40, MS, true, false);
    r.on_send(40, MS + 500_000, false, false);
    r.on_peer_data(7_201 * MS);
    assert_eq!(r.on_echo(40, 7_201 * MS, DATA), Some(TsSample { ns: 7_200 * MS, trusted: false }));
    // A window-limited peer instead: its next flight, 40 ms after the first copy,
    // answers it (within ANSWER_BOUND_NS of the copies).
    r.on_send(50, 7_250 * MS, true, false);
    r.on_send(50, 7_250 * MS + 300_000, false, false);
    r.on_peer_data(7_290 * MS);
    assert_eq!(r.on_echo(50, 7_290 * MS, DATA), Some(TsSample { ns: 40 * MS, trusted: true }));
    // The other way round (the second copy left data in flight): the peer's next
    // data 40 ms later answers it.
    r.on_send(51, 7_300 * MS, false, false);
    r.on_send(51, 7_300 * MS + 200_000, true, false);
    r.on_peer_data(7_340 * MS);
    assert_eq!(r.on_echo(51, 7_340 * MS, DATA), Some(TsSample { ns: 40 * MS, trusted: true }));
}

#[test]
fn at_a_receiver_the_senders_data_still_arriving_makes_its_echo_a_round_trip() {
    // Captured at the client of a download with a 100 ms queue: the client's ACK
    // (TSval 20) covers all the capture saw (the capture cannot tell the server has
    // data in flight: peer_busy false), yet the server's data keeps arriving every
    // 0.6 ms, and the segment echoing 20 comes 100 ms later: a round trip.
    let mut r = TsRtt::default();
    r.on_peer_data(0);
    r.on_send(20, MS, false, false);
    let mut t = MS;
    while t < 101 * MS {
        t += 600_000;
        r.on_peer_data(t);
    }
    assert_eq!(r.on_echo(20, t, DATA), Some(TsSample { ns: t - MS, trusted: true }));
    // The server's application pauses 80 ms after the client's ACK (TSval 21) and
    // writes again: the echo comes on the second segment after the pause, 0.1 ms
    // after the first, but the 80 ms without data (more than half of the 85 ms
    // sample) say it timed the pause (rx-cubic-loss.pcap at 0.611 s).
    let ack = t + MS;
    r.on_send(21, ack, false, false);
    r.on_peer_data(ack + 4 * MS);
    r.on_peer_data(ack + 84_900_000);
    r.on_peer_data(ack + 85 * MS);
    assert_eq!(r.on_echo(21, ack + 85 * MS, DATA), Some(TsSample { ns: 85 * MS, trusted: false }));
}

#[test]
fn the_longest_pause_in_the_peers_data_decides_not_the_first() {
    // Peer data at 0, 50 and 90 ms; our TSval at 45 ms, echoed by the 90 ms segment:
    // 5 ms of the first gap fall inside the sample, but the second, 40 ms of 45,
    // whole: the peer paused, not a round trip (review of session 13).
    let mut r = TsRtt::default();
    r.on_peer_data(0);
    r.on_peer_data(50 * MS);
    r.on_send(7, 45 * MS, false, false);
    r.on_peer_data(90 * MS);
    assert_eq!(r.on_echo(7, 90 * MS, DATA), Some(TsSample { ns: 45 * MS, trusted: false }));
    // A server that speaks first, 50 ms after the client's handshake ACK (TSval 1):
    // its banner echoes that ACK, but nothing of it came before: not a round trip.
    let mut r = TsRtt::default();
    r.on_send(1, 0, false, false);
    r.on_peer_data(50 * MS);
    assert_eq!(r.on_echo(1, 50 * MS, DATA), Some(TsSample { ns: 50 * MS, trusted: false }));
}

#[test]
fn a_gap_dropped_for_room_leaves_older_echoes_untrusted() {
    // A 1 s pause, then MAX_GAPS strictly shrinking gaps: the pause's entry
    // is dropped, and an echo of a TSval from before its end cannot be judged by the
    // arrivals (untrusted), while one from after it can.
    let mut r = TsRtt::default();
    r.on_peer_data(0);
    r.on_send(1, 10, false, false);
    let mut t = 1_000_000_000i64;
    r.on_peer_data(t);
    r.on_send(2, t + 1, false, false);
    for k in 0..MAX_GAPS as i64 {
        t += 1_000_000 - k * 1000;
        r.on_peer_data(t);
    }
    assert_eq!(r.on_echo(1, t, DATA).map(|s| s.trusted), Some(false));
    assert_eq!(r.on_echo(2, t, DATA).map(|s| s.trusted), Some(true));
}

#[test]
fn an_ack_of_a_segment_sacked_before_times_the_repair_not_a_round_trip() {
    // Segments [0,1000) at 0 ms and [1000,2000) at 1 ms; the first is lost: the peer
    // SACKs [1000,2000) at 11 ms, the retransmission goes at 20 ms, and the ACK of
    // 2000 at 31 ms covers the second segment, received 20 ms before.
    let mut r = AckRtt::default();
    r.on_send(0, 1000, 0, false);
    r.on_send(1000, 2000, 1_000_000, false);
    r.on_sack(2000);
    r.on_send(0, 1000, 20_000_000, false);
    assert_eq!(r.on_ack(2000, 31_000_000), Some((30_000_000, false)));
    // The next segment, never SACKed: a round trip.
    r.on_send(2000, 3000, 32_000_000, false);
    assert_eq!(r.on_ack(3000, 42_000_000), Some((10_000_000, true)));
}

#[test]
fn an_ack_that_left_before_the_next_segment_arrived_was_not_held() {
    // Two segments 10 µs apart, the first ACKed alone 50 ms later: the second was sent
    // right behind it (10 µs ≤ half of 50 ms) and the ACK does not cover it, so the
    // receiver did not hold this ACK for a timer (it would have covered both).
    let mut r = AckRtt::default();
    r.on_send(0, 1448, 0, false);
    r.on_send(1448, 2896, 10_000, false);
    assert_eq!(r.on_ack_behind(1448, 50_000_000), (Some((50_000_000, true)), true));
    // The second, with nothing sent behind it: unknown, so not "behind".
    assert_eq!(r.on_ack_behind(2896, 50_010_000), (Some((50_000_000, true)), false));
    // A segment sent more than half the sample after the one acknowledged is no evidence.
    let mut r = AckRtt::default();
    r.on_send(0, 100, 0, false);
    r.on_send(100, 200, 30_000_000, false);
    assert_eq!(r.on_ack_behind(100, 40_000_000), (Some((40_000_000, true)), false));
}

#[test]
fn a_drained_queue_gives_its_buffer_back() {
    // Issue 43: a queue emptied by the ACK or echo of everything in it kept its buffer
    // (4 entries at least) for the rest of the capture, in every connection. The samples
    // are the same as before: 10 ms from the segment at 2 ms, acknowledged at 12 ms.
    let mut r = AckRtt::default();
    r.on_send(1, 1449, 0, false);
    r.on_send(1449, 2897, 2 * MS, false);
    assert_eq!(r.on_ack(1449, 10 * MS), Some((10 * MS, true)));
    assert!(r.pending.capacity() > 0, "one segment is still pending");
    assert_eq!(r.on_ack(2897, 12 * MS), Some((10 * MS, true)));
    assert_eq!(r.pending.capacity(), 0);
    // Sending again allocates again and times as before.
    r.on_send(2897, 4345, 20 * MS, false);
    assert_eq!(r.on_ack(4345, 30 * MS), Some((10 * MS, true)));
    // The timestamp queue: TSval 7 at 0, echoed at 25 ms by an ACK of new data.
    let mut ts = TsRtt::default();
    ts.on_send(7, 0, false, true);
    assert_eq!(ts.on_echo(7, 25 * MS, ACKS), Some(TsSample { ns: 25 * MS, trusted: true }));
    assert_eq!(ts.sent.capacity(), 0);
}

#[test]
fn an_ack_of_everything_then_data_past_the_stall_threshold_is_the_peers_idle() {
    // An RDP server on a 0.35 ms LAN (review AD class C-TS-ECHO-IDLE-AS-RTT, jovair1994
    // `rdp.pcap` frames 73–76): our ACK with TSval 227 leaves it 1,381 bytes in flight
    // (busy); 14 µs later a second ACK with the same TSval (one 1 ms tick) covers
    // everything. Its next screen update, 114.734 ms after the first copy, echoes 227.
    // The round trip known so far is 127 µs, so an answer is prompt within
    // max(10 ms, 4 × 127 µs) = 10 ms (the stall threshold): 114.7 ms is its application's.
    let data = Echo { acks_new_data: false, sends_new_data: true, round_trip_ns: Some(127_000) };
    let mut r = TsRtt::default();
    r.on_peer_data(0);
    r.on_send(227, 228_048_000, true, true);
    r.on_send(227, 228_062_000, false, true);
    r.on_peer_data(342_782_000);
    assert_eq!(r.on_echo(227, 342_782_000, data), Some(TsSample { ns: 114_734_000, trusted: false }));
    // A window-limited peer on the same LAN: its next flight 0.3 ms after the first copy
    // answers it (0.3 ms ≤ 10 ms), as before.
    r.on_send(300, 400_000_000, true, true);
    r.on_send(300, 400_014_000, false, true);
    r.on_peer_data(400_300_000);
    assert_eq!(r.on_echo(300, 400_300_000, data), Some(TsSample { ns: 300_000, trusted: true }));
    // The bound: the stall threshold of the known round trip (at least 10 ms), never
    // above the 1 s that holds while none is known.
    assert_eq!(answer_bound_ns(Some(127_000)), 10_000_000);
    assert_eq!(answer_bound_ns(Some(40_000_000)), 160_000_000);
    assert_eq!(answer_bound_ns(Some(400_000_000)), 1_000_000_000);
    assert_eq!(answer_bound_ns(None), 1_000_000_000);
    assert_eq!(answer_bound_ns(Some(0)), 1_000_000_000);
}
