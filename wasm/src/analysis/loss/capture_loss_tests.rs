//! Capture loss on hand-built segments (analysis/track/testseg.rs): handshake A (ISN 1000)
//! → B (ISN 5000), A's first data byte 1001, 1000-byte segments.

use crate::analysis::rows::columns::flag_bits as fb;
use crate::analysis::track::testseg::{handshake, run, Seg};

fn data(t: f64, seq: u32) -> Seg {
    Seg::a_to_b(t).seq(seq).ack(5001).len(1000)
}

fn ack(t: f64, a: u32) -> Seg {
    Seg::b_to_a(t).seq(5001).ack(a)
}

#[test]
fn a_hole_the_receiver_acknowledges_is_capture_loss_not_a_retransmission() {
    // 2001..4001 (two segments) never reaches the capture, yet B acknowledges 5001:
    // B got them → 2000 unseen bytes, 2 segments of the 1000-byte size; nothing is
    // re-sent, so no retransmission; the segment after the hole carries CAPTURE_LOSS
    // besides Wireshark's "previous segment not captured".
    let mut v = handshake(Some(7), Some(7));
    v.extend([data(0.030, 1001), data(0.033, 4001), ack(0.050, 5001)]);
    let a = run(v);
    let c = &a.connections[0];
    // One hole (the warning counts holes: what the capture shows, not a size estimate).
    assert_eq!((c.capture_loss.unseen_segments, c.capture_loss.unseen_bytes, c.capture_loss.holes), (2, 2000, 1));
    assert_eq!(c.directions[0].retransmissions, 0);
    let f = a.columns(0).packets.flags[4];
    assert_eq!(f & (fb::LOST_SEGMENT | fb::CAPTURE_LOSS), fb::LOST_SEGMENT | fb::CAPTURE_LOSS);
    assert_eq!(a.warnings.iter().find(|w| w.kind == "capture-loss").map(|w| w.count), Some(1));
}

#[test]
fn a_hole_filled_by_a_retransmission_is_network_loss() {
    // Receiver-side view: 2001..3001 was lost before the capture point; its
    // retransmission fills the hole before B's ACK passes it → no capture loss.
    let mut v = handshake(Some(7), Some(7));
    v.extend([data(0.030, 1001), data(0.031, 3001), data(0.060, 2001), ack(0.061, 4001)]);
    let a = run(v);
    assert_eq!(a.connections[0].capture_loss.unseen_bytes, 0);
    assert!(a.warnings.iter().all(|w| w.kind != "capture-loss"));
    assert_eq!(a.columns(0).packets.flags[4] & fb::CAPTURE_LOSS, 0);
}

#[test]
fn bytes_acknowledged_beyond_everything_captured_count_once() {
    // The last segment 2001..3001 was not captured; B's ACK 3001 counts it, a repeated
    // ACK 3001 does not count it again.
    let mut v = handshake(Some(7), Some(7));
    v.extend([data(0.030, 1001), ack(0.050, 3001), ack(0.051, 3001)]);
    let a = run(v);
    let loss = a.connections[0].capture_loss;
    assert_eq!((loss.unseen_segments, loss.unseen_bytes, loss.holes), (1, 1000, 1));
}

/// The receiver-side turn of the tests below: B answers A's data 1 ms after it; the path
/// round trip is the handshake's 20 ms.
fn late_copy_capture(answer: Seg) -> crate::analysis::report::Analysis {
    // B's ACK of 3001 is stamped 5 µs before the only copy of 2001..3001 (a capture
    // merged from two clocks inverts the two frames). Then `answer`, 1.5 ms later.
    let mut v = handshake(Some(7), Some(7));
    v.extend([data(0.030, 1001), ack(0.031, 2001), ack(0.040, 3001), data(0.040_005, 2001), answer, data(0.045, 3001), ack(0.046, 4001)]);
    run(v)
}

#[test]
fn a_segment_stamped_just_after_its_own_ack_is_counted_once_as_the_original() {
    // Issue 39 class TS. 2001..3001 is seen once, 5 µs after B's ACK of it. Wireshark:
    // "ACKed segment that wasn't captured" at the ACK and a spurious retransmission at
    // the copy — one segment counted as a capture hole and as a re-send. B's next
    // segment, 1.5 ms later (past its 1 ms turn), acknowledges nothing twice: it never
    // got a second copy (a copy of bytes it held would have been answered at once with a
    // duplicate ACK, RFC 9293 §3.10.7.4). So: the original, no retransmission, no hole.
    let a = late_copy_capture(Seg::b_to_a(0.0415).seq(5001).ack(3001).len(10));
    let c = &a.connections[0];
    assert_eq!((c.directions[0].retransmissions, c.directions[0].spurious_retransmissions), (0, 0));
    assert_eq!((c.capture_loss.unseen_segments, c.capture_loss.unseen_bytes, c.capture_loss.holes), (0, 0, 0));
    assert_eq!(a.columns(0).packets.flags[6] & fb::ANY_RETRANSMISSION, 0);
    assert!(a.warnings.iter().all(|w| w.kind != "capture-loss"));
}

#[test]
fn a_copy_the_receiver_answers_with_a_duplicate_ack_was_a_re_send() {
    // The same frames, but B answers the copy with a duplicate ACK (3001 again, same
    // window): it held those bytes already, so the copy was a second transmission and
    // the first one passed the capture point unrecorded — Wireshark's reading: 1 spurious
    // retransmission (its ACK came before it) and 1 hole of 1000 bytes.
    let a = late_copy_capture(ack(0.0415, 3001));
    let c = &a.connections[0];
    assert_eq!((c.directions[0].retransmissions, c.directions[0].spurious_retransmissions), (1, 1));
    assert_eq!((c.capture_loss.unseen_segments, c.capture_loss.unseen_bytes, c.capture_loss.holes), (1, 1000, 1));
    assert_ne!(a.columns(0).packets.flags[6] & fb::ANY_RETRANSMISSION, 0);
}

#[test]
fn a_hole_filled_at_once_by_the_overtaken_original_is_no_lost_segment() {
    // Issue 39 class LS. 3001..4001 arrives 0.1 ms before 2001..3001: Wireshark flags
    // "previous segment not captured" on the first and "out-of-order" on the second.
    // 0.1 ms is far below half the 20 ms round trip: no sender could have heard of a
    // hole and re-sent (track/conn/loss.rs `reclassify_out_of_order`). The hole was
    // reordering: 1 out-of-order segment, 0 lost segments, 0 retransmissions.
    let mut v = handshake(Some(7), Some(7));
    v.extend([data(0.030, 1001), data(0.031, 3001), data(0.031_1, 2001), ack(0.032, 4001)]);
    let a = run(v);
    let d = &a.connections[0].directions[0];
    assert_eq!((d.lost_segments, d.out_of_order, d.retransmissions), (0, 1, 0));
    // The row keeps Wireshark's label (what the capture showed at that moment).
    assert_ne!(a.columns(0).packets.flags[4] & fb::LOST_SEGMENT, 0);
}

#[test]
fn a_hole_filled_by_a_re_send_stays_a_lost_segment() {
    // 2001..3001 comes 29 ms after the hole opened, over half the 20 ms round trip: a
    // re-send (the sender heard of the hole). 1 lost segment, 1 retransmission.
    let mut v = handshake(Some(7), Some(7));
    v.extend([data(0.030, 1001), data(0.031, 3001), data(0.060, 2001), ack(0.061, 4001)]);
    let a = run(v);
    let d = &a.connections[0].directions[0];
    assert_eq!((d.lost_segments, d.out_of_order, d.retransmissions), (1, 0, 1));
}
