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
