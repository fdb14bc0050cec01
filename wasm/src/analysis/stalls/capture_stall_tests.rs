//! A capture's own stall, synthesized: melsec's poll loop (review X) in small.
use super::*;
use crate::analysis::stalls::testkit::Cols;

/// A client (direction 0) polls with 55-B requests every 16 ms, the server (1) answers
/// each with 73 B 4 ms later; after the request at 1.032 s nothing is captured for
/// 955 ms, then the server's answer (frame 7, 1.987 s), the client's re-send of its
/// request (8, 14 µs later) and the server's re-send of its answer (9, 15 µs after frame
/// 7) — `dup_ack` adds the client's pure duplicate ACK of the answer before frame 9.
/// Returns the columns and each direction's stall.
fn flush(dup_ack: bool) -> (Cols, [Stall; 2]) {
    let mut c = Cols::new(65536.0);
    c.data(1.000, 0, 1.0, 55);
    c.data(1.004, 1, 1.0, 73);
    c.data(1.016, 0, 56.0, 55);
    c.data(1.020, 1, 74.0, 73);
    c.data(1.032, 0, 111.0, 55);
    c.data(1.987, 1, 147.0, 73);
    c.data(1.987014, 0, 111.0, 55);
    if dup_ack {
        c.ack(1.9870145, 0, 147.0, 65536.0);
    }
    c.data(1.987015, 1, 147.0, 73);
    let stall = |start: f64, end: f64, cause, before, after| Stall { start, duration: end - start, cause, frame_before: before, frame_after: after, ended_by: "x".into() };
    (c, [stall(1.032, 1.987014, StallCause::RetransmissionTimeout, 6, 8), stall(1.020, 1.987, StallCause::ApplicationIdle, 5, 7)])
}

/// Frame 9 re-sends frame 7's bytes 15 µs after it (a timer fires 10 ms after at the
/// soonest), no duplicate ACK between: both were held and written at once, after a
/// silence of both hosts of 955 ms (1.032 → 1.987 s) over the 50-ms threshold. Both
/// hosts' stalls end in that group: both are the capture's, of a cause it does not show.
#[test]
fn a_resend_stamped_microseconds_after_its_original_marks_a_capture_stall() {
    let (c, stalls) = flush(false);
    for (d, s) in stalls.into_iter().enumerate() {
        let mut v = vec![s];
        reclassify(&mut v, &c.c.packets, d as u8, 0.05);
        let w = &v[0].ended_by;
        assert_eq!(v[0].cause, StallCause::Unknown, "{w}");
        assert!(w.starts_with("the capture's own stall: nothing was captured from 1.032 s for 955 ms, then frames 7–9 of both hosts were stamped within 15 µs, among them frame 9, a re-send of frame 7 only 15 µs after it"), "{w}");
    }
}

/// The client's pure duplicate ACK of the answer before the re-send: the server may
/// have re-sent on its peer's word, so nothing shows the capture held them.
#[test]
fn a_resend_after_the_peers_duplicate_ack_is_no_capture_stall() {
    let (c, stalls) = flush(true);
    let mut v = vec![stalls[1].clone()];
    reclassify(&mut v, &c.c.packets, 1, 0.05);
    assert_eq!(v[0].cause, StallCause::ApplicationIdle);
}

/// Both directions' stalls name the same silence: one sentence.
#[test]
fn the_sentence_names_each_silence_once() {
    let (c, mut stalls) = flush(false);
    let (a, b) = stalls.split_at_mut(1);
    reclassify(a, &c.c.packets, 0, 0.05);
    reclassify(b, &c.c.packets, 1, 0.05);
    let s = sentence([&stalls[..1], &stalls[1..]]).unwrap();
    assert!(s.starts_with("The capture stalled: nothing was captured from 1.032 s for 955 ms"), "{s}");
    assert_eq!(s.matches("The capture stalled").count(), 1, "{s}");
    assert!(s.ends_with("That silence is neither host's: its stalls are counted as of a cause the capture does not show."), "{s}");
}

/// The client answering each packet of the server as it arrives (a pure ACK of the
/// answer 30 µs after it, in place of its re-send): a capture beside the client seeing
/// a burst the path compressed, not the capture's own stall.
#[test]
fn a_burst_the_peer_answers_at_once_is_no_capture_stall() {
    let mut c = Cols::new(65536.0);
    c.data(1.000, 0, 1.0, 55);
    c.data(1.004, 1, 1.0, 73);
    c.data(1.016, 0, 56.0, 55);
    c.data(1.020, 1, 74.0, 73);
    c.data(1.032, 0, 111.0, 55);
    c.data(1.987, 1, 147.0, 73);
    c.ack(1.987003, 0, 220.0, 65536.0);
    c.data(1.987015, 1, 147.0, 73);
    let mut v = vec![Stall { start: 1.020, duration: 0.967, cause: StallCause::ApplicationIdle, frame_before: 5, frame_after: 7, ended_by: "x".into() }];
    reclassify(&mut v, &c.c.packets, 1, 0.05);
    assert_eq!(v[0].cause, StallCause::ApplicationIdle);
}
