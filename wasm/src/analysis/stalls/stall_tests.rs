//! Stall detection and causes on hand-built columns (direction 0 sends, 1 ACKs).
use super::testkit::{turn_taking, Cols, PeerTurn, MSS};
use super::*;
use crate::analysis::stalls::cause::StallCause;

const M: f64 = MSS as f64;
const T: f64 = 0.010; // threshold used by these tests

fn one(c: &Cols) -> Stall {
    let s = find_stalls(&c.c.packets, 0, T);
    assert_eq!(s.len(), 1, "{s:#?}");
    s.into_iter().next().unwrap()
}

#[test]
fn default_threshold_follows_design() {
    // max(10 ms, 4 × min RTT): 2.8 ms → 11.2 ms; 1 ms → 10 ms; unknown → 10 ms.
    assert!((default_threshold_s(Some(2.8), 0.0) - 0.0112).abs() < 1e-12);
    assert_eq!(default_threshold_s(Some(1.0), 0.0), 0.010);
    assert_eq!(default_threshold_s(None, 0.0), 0.010);
    // A 10 ms capture clock: never below 3 ticks (a 10 ms gap may be one tick).
    assert_eq!(default_threshold_s(Some(1.0), 0.010), 0.030);
}

#[test]
fn retransmission_timeout() {
    // 10 segments at 100 ms; ACKs cover the first 5; the rest is lost. At 400 ms the
    // RTO fires and segment 6 (seq 1 + 5 MSS, below the highest sent) is resent.
    let mut c = Cols::new(65536.0);
    let end = c.burst(0.100, 1.0, 10, 0.0001);
    c.ack(0.103, 1, 1.0 + 5.0 * M, 65536.0);
    c.data(0.400, 0, 1.0 + 5.0 * M, MSS);
    c.data(0.403, 0, end, MSS); // new data right after: no second stall (3 ms < 10 ms)
    let s = one(&c);
    assert_eq!(s.cause, StallCause::RetransmissionTimeout);
    assert!((s.start - 0.1009).abs() < 1e-9); // last of the 10 segments
    assert!((s.duration - 0.2991).abs() < 1e-9);
    assert_eq!((s.frame_before, s.frame_after), (11, 13)); // frame 1 is the receiver's first ACK
    assert_eq!(s.ended_by, "retransmission of 1448 bytes at 0.400 s");
}

#[test]
fn zero_window_is_one_stall_despite_probes() {
    // The receiver's 10-MSS window fills; it ACKs everything with window 0, the sender
    // probes twice (zero-window probes are not data, so they don't split the gap), and
    // at 0.700 s the window reopens to 64 KiB; new data follows 0.3 ms later.
    let mut c = Cols::new(10.0 * M);
    let end = c.burst(0.100, 1.0, 10, 0.0001);
    c.ack(0.103, 1, end, 0.0);
    let p = c.data(0.300, 0, end, 1);
    c.flag(p, flag_bits::ZERO_WINDOW_PROBE);
    c.ack(0.303, 1, end, 0.0);
    let p = c.data(0.500, 0, end, 1);
    c.flag(p, flag_bits::ZERO_WINDOW_PROBE);
    c.ack(0.700, 1, end, 65536.0);
    c.data(0.7003, 0, end, MSS);
    let s = one(&c);
    assert_eq!(s.cause, StallCause::ZeroWindow);
    assert!((s.duration - (0.7003 - 0.1009)).abs() < 1e-9);
    assert_eq!(s.ended_by, "window update to 64 KiB");
}

#[test]
fn window_limited() {
    // Window 10 MSS, 10 segments in flight (= window). The receiver's ACK comes 50 ms
    // later (a slow receiver), the sender answers at once: the gap was spent waiting on
    // the window, not idle (idle part 0.1 ms of 49 ms).
    let mut c = Cols::new(10.0 * M);
    let end = c.burst(0.100, 1.0, 10, 0.0001);
    c.ack(0.150, 1, end, 10.0 * M);
    c.data(0.1501, 0, end, MSS);
    let s = one(&c);
    assert_eq!(s.cause, StallCause::WindowLimited);
    assert_eq!(s.ended_by, "ACK opening the window (14 KiB) at 0.150 s"); // 14,480 B
}

#[test]
fn window_limited_within_one_mss() {
    // Window 10 MSS + 1000 B: the 11th segment doesn't fit, so in flight stops 1000 B
    // short of the window. Still window-limited (tolerance: one MSS).
    let mut c = Cols::new(10.0 * M + 1000.0);
    let end = c.burst(0.100, 1.0, 10, 0.0001);
    c.ack(0.150, 1, end, 10.0 * M + 1000.0);
    c.data(0.1501, 0, end, MSS);
    assert_eq!(one(&c).cause, StallCause::WindowLimited);
}

#[test]
fn application_idle() {
    // 3 segments, all ACKed after 3 ms; the application sends again only at 1.1 s.
    let mut c = Cols::new(65536.0);
    let end = c.burst(0.100, 1.0, 3, 0.0001);
    c.ack(0.103, 1, end, 65536.0);
    c.data(1.100, 0, end, MSS);
    let s = one(&c);
    assert_eq!(s.cause, StallCause::ApplicationIdle);
    assert!((s.duration - 0.9998).abs() < 1e-9);
    assert_eq!(s.ended_by, "new data after all was acknowledged");
}

#[test]
fn pause_while_the_last_burst_drains_is_application_idle() {
    // The sender writes 20 segments, the bottleneck drains them for 30 ms (ACKs from
    // 3 ms to 30 ms), the application writes again at 50 ms. Everything was ACKed at
    // 30 ms and the sender stayed silent 20 ms more, well over the 3 ms path round
    // trip in which a sender with data answers: application idle, although data was in
    // flight during the first 30 ms (the nanosecond example). Before the ACK of
    // everything the sender was not idle (issue 39), so the path RTT decides here.
    let mut c = Cols::new(1024.0 * 1024.0);
    let end = c.burst(0.100, 1.0, 20, 0.00001);
    for k in 1..=10 {
        c.ack(0.100 + 0.003 * k as f64, 1, 1.0 + 2.0 * k as f64 * M, 1024.0 * 1024.0);
    }
    c.data(0.150, 0, end, MSS);
    let s = find_stalls_lagged(&c.c.packets, 0, T, 0.0, Some(0.003));
    assert_eq!(s[0].cause, StallCause::ApplicationIdle);
    // Without a path RTT only the half-gap rule is left: 20 of 50 ms is waiting on ACKs.
    assert_eq!(one(&c).cause, StallCause::AckWait);
}

#[test]
fn delayed_ack_is_ack_wait_not_idle() {
    // One segment, the receiver's delayed ACK after 40 ms, the sender answers within
    // 0.1 ms: everything was acknowledged, but only for 0.1 ms of the 40 ms gap (< half),
    // so the sender was waiting on the ACK (Nagle + delayed ACK), not idle.
    let mut c = Cols::new(65536.0);
    c.data(0.100, 0, 1.0, 100);
    c.ack(0.140, 1, 101.0, 65536.0);
    c.data(0.1401, 0, 101.0, 100);
    let s = one(&c);
    assert_eq!(s.cause, StallCause::AckWait);
    assert_eq!(s.ended_by, "new data after an ACK at 0.140 s");
}

#[test]
fn request_response_turn_taking_is_a_round_trip_unless_the_peer_sat_on_it() {
    // A request (200 B); the peer's reply (5,000 B) 30 ms later ACKs it; the sender's
    // next request follows 0.2 ms after the reply. The peer answered as soon as it
    // had the request (its ACK came with the reply): the 30 ms were the round trip of
    // request/response, not an idle application (issue 13).
    let mut c = Cols::new(65536.0);
    c.data(0.100, 0, 1.0, 200);
    let r = c.data(0.130, 1, 1.0, 5000);
    c.c.packets.ack[r] = 201.0;
    c.c.packets.win[r] = 65536.0;
    c.data(0.1302, 0, 201.0, 200);
    let s = one(&c);
    assert_eq!(s.cause, StallCause::AckWait);
    assert_eq!(s.ended_by, "the peer's next message of 5000 bytes at 0.130 s: a request/response round trip");
    // The peer ACKed the request at once (0.105 s) and replied 25 ms later: its
    // application sat on the request for more than half the gap (rule 3 sees it
    // first: everything acknowledged and the sender free for most of the gap).
    let mut c = Cols::new(65536.0);
    c.data(0.100, 0, 1.0, 200);
    c.ack(0.105, 1, 201.0, 65536.0);
    let r = c.data(0.130, 1, 1.0, 5000);
    c.c.packets.ack[r] = 201.0;
    c.c.packets.win[r] = 65536.0;
    c.data(0.1302, 0, 201.0, 200);
    let s = one(&c);
    assert_eq!(s.cause, StallCause::ApplicationIdle);
    // The words split the gap at the peer's reply (gaps/classify.rs `idle_words`).
    assert_eq!(s.ended_by, "new data 200 µs after the peer's next message of 5000 bytes at 0.130 s, which came 25 ms after all was acknowledged: the peer's turn, then the sender's answer");
}

#[test]
fn after_a_probe_the_peers_request_that_answers_it_is_a_turn_one_from_before_it_is_loss() {
    // Request/response on a 4 ms path, captured at the server (dir 0). Its response's
    // tail (1,000 B at 1449) was lost; the tail loss probe re-sends it at 0.300 s. The
    // client holds its ACK of that last segment (delayed ACK) and sends it with its
    // next request at 0.325 s, after 20 ms of think time, as it does after every
    // response: the 25 ms gap is a turn (ack-wait), not loss recovery — when the
    // request echoes the probe's TSval (ANSWERS_PEER_DATA). Linux, 8 % loss: 5 such
    // gaps read `retransmission-timeout` (kernel: 5 TCPLossProbes, their own stalls).
    let build = |answers: bool| {
        let mut c = Cols::new(65536.0);
        c.data(0.050, 0, 1.0, 1448);
        c.data(0.050, 0, 1449.0, 1000);
        c.ack(0.054, 1, 1449.0, 65536.0);
        let probe = c.data(0.300, 0, 1449.0, 1000);
        c.flag(probe, flag_bits::KIND_TLP);
        let r = c.data(0.325, 1, 1.0, 100);
        c.c.packets.ack[r] = 2449.0;
        c.c.packets.win[r] = 65536.0;
        if answers {
            c.flag(r, flag_bits::ANSWERS_PEER_DATA);
        }
        c.data(0.3252, 0, 2449.0, 1448);
        find_stalls(&c.c.packets, 0, 0.017)
    };
    let st = build(true);
    assert_eq!(st.len(), 2, "{st:?}");
    // 250 ms waiting on the probe timer, then the turn.
    assert_eq!((st[0].cause, st[0].ended_by.as_str()), (StallCause::RetransmissionTimeout, "tail loss probe of 1000 bytes at 0.300 s"));
    assert_eq!(st[1].cause, StallCause::AckWait);
    assert_eq!(st[1].ended_by, "the peer's next message of 100 bytes at 0.325 s: a request/response round trip");
    // The same request echoing an older TSval: the client's own re-send of a request
    // it sent before the probe reached it (reqresp-blackhole.pcap: an outage ate the
    // first try), so the gap was still the loss.
    let st = build(false);
    assert_eq!(st[1].cause, StallCause::RetransmissionTimeout);
    assert_eq!(st[1].ended_by, "new data after the retransmitted data was acknowledged at 0.325 s");
}

#[test]
fn a_late_piggybacked_ack_without_any_pure_ack_in_the_capture_is_unknown() {
    // PcapPlusPlus's http-packets.pcap, shrunk: the capture holds only the segments that
    // carry payload (no handshake, not one pure ACK of the peer). The response (1448 B)
    // at 0.1 s; the peer's next request, 4.7 s later, carries its first ACK of it. RFC
    // 9293 §3.8.6.3: a peer holding data > 0.5 s MUST have ACKed it alone, so either
    // the path is 4.7 s long or that ACK is missing from the capture, and the capture
    // cannot say which: unknown, not "a request/response round trip".
    let request = |c: &mut Cols, t: f64| {
        let r = c.data(t, 1, 1.0, 500);
        c.c.packets.ack[r] = 1449.0;
        c.c.packets.win[r] = 65536.0;
    };
    let mut c = Cols::bare();
    c.data(0.100, 0, 1.0, 1448);
    request(&mut c, 4.800);
    c.data(4.810, 0, 1449.0, 1448);
    let s = one(&c);
    assert_eq!(s.cause, StallCause::Unknown);
    assert_eq!(
        s.ended_by,
        "the peer's next message of 500 bytes at 4.800 s (the first ACK of the data; the capture holds none of the peer's pure ACKs, so whether it waited on the path or on its application cannot be told)"
    );
    // Within 0.5 s a peer may hold its ACK for the request (delayed ACK): the round trip.
    let mut c = Cols::bare();
    c.data(0.100, 0, 1.0, 1448);
    request(&mut c, 0.400);
    c.data(0.410, 0, 1449.0, 1448);
    assert_eq!(one(&c).cause, StallCause::AckWait);
    // A capture that does hold the peer's pure ACKs (here its handshake ACK at 0 s) saw
    // it send none in those 4.7 s: the round trip as before.
    let mut c = Cols::new(65536.0);
    c.data(0.100, 0, 1.0, 1448);
    request(&mut c, 4.800);
    c.data(4.810, 0, 1449.0, 1448);
    assert_eq!(one(&c).cause, StallCause::AckWait);
}

/// Causes and `ended_by` of dir 0's stalls in a [`turn_taking`] capture, judged as the
/// summary does: in the sender's time (lag: the path RTT at the peer, 0 at dir 0), with
/// the connection's path RTT.
fn turns(rtt: f64, at_sender: bool, peer: &[PeerTurn]) -> Vec<(StallCause, String)> {
    let c = turn_taking(rtt, at_sender, peer);
    let lag = if at_sender { 0.0 } else { rtt };
    let found = find_stalls_lagged(&c.c.packets, 0, T, lag, Some(rtt));
    assert_eq!(found.len(), peer.len(), "{found:#?}");
    found.into_iter().map(|s| (s.cause, s.ended_by)).collect()
}

#[test]
fn a_late_piggybacked_ack_where_the_capture_holds_pure_acks_is_the_peer_sitting_on_the_data() {
    use StallCause::{AckWait, ApplicationIdle};
    // Request/response over a 10 ms path, captured at the responder (dir 0). Response 1:
    // the peer ACKs it alone (a 40 ms delayed ACK), its next request 0.3 s later: the
    // sender was free most of the gap (rule 3). Response 2: the request comes 5 ms after
    // the response arrived and carries its ACK: a round trip. Response 3: the request,
    // and with it the peer's first ACK of the data, comes 2 s after the response arrived
    // (2.01 s after the capture saw it; "2 s" in the words). A receiver MUST ACK within 0.5 s (RFC 9293
    // §3.8.6.3) and this peer does ACK alone (response 1), so it had the data by
    // 10 ms + 0.5 s at the latest and sat on it from then on, 1.5 s of the 2.0102 s gap
    // (more than half): the peer's application, not the round trip.
    let peer = [(Some(0.040), 0.300), (None, 0.005), (None, 2.0), (None, 0.005)];
    let got = turns(0.010, true, &peer);
    let causes: Vec<StallCause> = got.iter().map(|s| s.0).collect();
    assert_eq!(causes, [ApplicationIdle, AckWait, ApplicationIdle, AckWait]);
    // The request 260 ms after the delayed ACK, answered 0.2 ms on: the peer's turn.
    assert_eq!(got[0].1, "new data 200 µs after the peer's next message of 300 bytes at 0.365 s, which came 260 ms after all was acknowledged: the peer's turn, then the sender's answer");
    // Request 3 leaves the peer at 0.050 + 3 × (10 ms + 0.2 ms) + 0.3 + 0.005 + 2.0 s and
    // reaches the capture 5 ms later: 2.3906 s.
    assert_eq!(
        got[2].1,
        "new data after the peer's reply of 300 bytes at 2.391 s (the peer's application was idle: its first ACK of the data came 2 s after it, on a request, past the path RTT of 10 ms + the 0.5 s in which a receiver must ACK alone, so the peer had held the data)"
    );
    // The same captured at the peer: its request leaves 2 s after the response arrives,
    // but in the sender's time (lag = the path RTT, sender_view.rs) its ACK again takes
    // effect 2.01 s after the data: the same causes.
    let causes: Vec<StallCause> = turns(0.010, false, &peer).into_iter().map(|s| s.0).collect();
    assert_eq!(causes, [ApplicationIdle, AckWait, ApplicationIdle, AckWait]);
    // Without a path RTT (find_stalls) the late ACK cannot be told from a long path:
    // a round trip, as before.
    let c = turn_taking(0.010, true, &peer);
    assert_eq!(find_stalls(&c.c.packets, 0, T)[2].cause, AckWait);
}

#[test]
fn a_piggybacked_ack_is_one_round_trip_of_the_path_and_the_peers_application() {
    use StallCause::{AckWait, ApplicationIdle};
    // 10 ms path, the request (with the ACK) 0.3 s after the response arrived: 0.31 s
    // after the data. The ACK rode on the request: a receiver holds its ACK for data to
    // ride on (RFC 1122 §4.2.3.2), so it tells only that the peer had the data by then.
    // The path's part is one round trip (10 ms), the other 300 ms the peer's application
    // (issue 39 review I class Q2; this once read "a request/response round trip", the
    // peer's think time taken for the path's). Request 2 leaves the peer at 0.050 +
    // 2 × 10.2 ms + 0.3 + 0.3 s, the capture sees it 5 ms later.
    let got = turns(0.010, true, &[(Some(0.040), 0.300), (None, 0.300)]);
    assert_eq!(got[1].0, ApplicationIdle, "{}", got[1].1);
    assert!(got[1].1.starts_with("new data after the peer's next message of 300 bytes at 0.675 s, 310 ms after its data: one path round trip is at most 10 ms"), "{}", got[1].1);
    // A satellite-like path of 1.2 s: the capture at the responder sees the request
    // (with the ACK) 1.4 s after the data, the peer held it 0.2 s: within 1.2 + 0.5 s,
    // the round trip. (Had the rule ignored the path, 1.4 s > 0.5 s would read late.)
    let got = turns(1.2, true, &[(Some(0.040), 0.300), (None, 0.200)]);
    assert_eq!(got[1].0, AckWait);
    // Captured at the peer the request leaves 0.2 s after the data arrives; in the
    // sender's time that is again 1.4 s: the round trip.
    assert_eq!(turns(1.2, false, &[(Some(0.040), 0.300), (None, 0.200)])[1].0, AckWait);
    // Held 0.8 s on that path: 2.0 s after the data; the peer had it a round trip after
    // it (1.2 s) and sat on it 0.8 s of the 2.0002 s gap, less than half: still the round
    // trip (the half-gap test, counted from 1.2 s).
    let got = turns(1.2, true, &[(Some(0.040), 0.300), (None, 0.800)]);
    assert_eq!(got[1].0, AckWait);
    // Held 1.5 s: 2.7 s after the data, the peer sat 1.5 s of the 2.7002 s gap, more
    // than half: its application (before the ACK's ride was read, the peer was taken to
    // have the data only by 1.7 s, and this read a round trip). Held 3 s: it sat 3 s of
    // 4.2002 s, the peer's application was idle.
    assert_eq!(turns(1.2, true, &[(Some(0.040), 0.300), (None, 1.500)])[1].0, ApplicationIdle);
    assert_eq!(turns(1.2, true, &[(Some(0.040), 0.300), (None, 3.000)])[1].0, ApplicationIdle);
}

#[test]
fn ack_wait_below_window() {
    // 5 segments (7,240 B) under a 64 KiB window; a late partial ACK (3 segments) at
    // 60 ms, then new data: in flight below the window, nothing resent, never all ACKed.
    let mut c = Cols::new(65536.0);
    let end = c.burst(0.100, 1.0, 5, 0.0001);
    c.ack(0.160, 1, 1.0 + 3.0 * M, 65536.0);
    c.data(0.1601, 0, end, MSS);
    assert_eq!(one(&c).cause, StallCause::AckWait);
}

#[test]
fn unknown_without_the_peer() {
    // A one-sided capture: no window, no ACK ever seen; a 50 ms gap of new data.
    let mut c = Cols::bare();
    let end = c.burst(0.100, 1.0, 3, 0.0001);
    c.data(0.150, 0, end, MSS);
    let s = one(&c);
    assert_eq!(s.cause, StallCause::Unknown);
    assert_eq!(s.ended_by, "new data (the peer's ACKs are not in the capture)");
}

#[test]
fn three_stalls_rto_idle_zero_window_and_short_gaps_ignored() {
    // 3 stalls: RTO at 1.015 s, the application idle from 1.2 s, zero window at 3.4 s.
    // The 5 ms gaps inside bursts and the idle time after the last segment (before
    // FIN) are not stalls.
    let mut c = Cols::new(20.0 * M);
    let mut seq = c.burst(1.000, 1.0, 4, 0.005); // 1.000 .. 1.015, 5 ms apart
    c.ack(1.1, 1, 1.0 + 2.0 * M, 20.0 * M); // segments 3, 4 lost
    c.data(1.2, 0, 1.0 + 2.0 * M, MSS); // RTO retransmission: stall 1.015 → 1.2
    c.data(1.2001, 0, 1.0 + 3.0 * M, MSS);
    c.ack(1.203, 1, seq, 20.0 * M); // all acknowledged; the sender is quiet until 3.39
    seq = c.burst(3.390, seq, 3, 0.005); // 3.390 .. 3.400
    c.ack(3.403, 1, seq, 0.0); // receiver full
    c.ack(3.9, 1, seq, 40.0 * M); // window update to 57,920 B
    seq = c.burst(3.9001, seq, 2, 0.001);
    let fin = c.data(9.0, 0, seq, 0); // FIN, no payload
    c.flag(fin, 0x01);
    let s = find_stalls(&c.c.packets, 0, T);
    assert_eq!(s.len(), 3, "{s:#?}");
    assert_eq!(s[0].cause, StallCause::RetransmissionTimeout);
    assert!((s[0].start - 1.015).abs() < 1e-9 && (s[0].duration - 0.185).abs() < 1e-9);
    assert_eq!((s[0].frame_before, s[0].frame_after), (5, 7));
    assert_eq!(s[1].cause, StallCause::ApplicationIdle);
    assert!((s[1].start - 1.2001).abs() < 1e-9 && (s[1].duration - 2.1899).abs() < 1e-9);
    assert_eq!(s[2].cause, StallCause::ZeroWindow);
    assert!((s[2].start - 3.4).abs() < 1e-9 && (s[2].duration - 0.5001).abs() < 1e-9);
    assert_eq!(s[2].ended_by, "window update to 57 KiB");
    // The receiver's direction sent no payload: no stalls there.
    assert!(find_stalls(&c.c.packets, 1, T).is_empty());
    // A threshold of 0.3 s keeps only the idle and zero-window gaps.
    assert_eq!(find_stalls(&c.c.packets, 0, 0.3).len(), 2);
}

#[test]
fn unknown_window_scale_is_not_window_limited() {
    // Handshake not captured: the receiver's windows are raw (scale unknown), 1,000 B,
    // while 10 segments (14,480 B) are in flight. Such windows are evidently scaled
    // by an unknown shift, so the gap is not called window-limited: it is ack-wait.
    let mut c = Cols::new(1000.0);
    let end = c.burst(0.100, 1.0, 10, 0.0001);
    c.ack(0.150, 1, end, 1000.0);
    c.data(0.1501, 0, end, MSS);
    assert!(windows_understated(&c.c.packets, 0));
    assert_eq!(one(&c).cause, StallCause::AckWait);
    // With the real (scaled) window the same gap is window-limited.
    let mut c = Cols::new(10.0 * M);
    let end = c.burst(0.100, 1.0, 10, 0.0001);
    c.ack(0.150, 1, end, 10.0 * M);
    c.data(0.1501, 0, end, MSS);
    assert!(!windows_understated(&c.c.packets, 0));
    assert_eq!(one(&c).cause, StallCause::WindowLimited);
}
