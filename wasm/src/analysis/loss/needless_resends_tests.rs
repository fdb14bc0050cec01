use super::needless_at_sender;
use crate::analysis::rows::columns::{flag_bits as fb, PacketColumns};

/// Rows: (t, dir, seq, len, ack, flags); direction 0 sends, 1 acknowledges.
fn cols(rows: &[(f64, u8, f64, u32, f64, u32)]) -> PacketColumns {
    let mut c = PacketColumns::default();
    for (k, &(t, dir, seq, len, ack, flags)) in rows.iter().enumerate() {
        c.t.push(t);
        c.dir.push(dir);
        c.frame.push(k as u32 + 1);
        c.seq.push(seq);
        c.len.push(len);
        c.wire_len.push(len + 54);
        c.ack.push(ack);
        c.win.push(65535.0);
        c.in_flight.push(f64::NAN);
        c.flags.push(flags | crate::decode::tcp_flags::ACK as u32);
    }
    c
}

const RE: u32 = fb::RETRANSMISSION;
const N: f64 = f64::NAN;

#[test]
fn a_copy_acknowledged_sooner_than_a_round_trip_after_it_left_was_needless() {
    // 100 ms path; four segments out at 0, silence, a timer copy of the first at 0.5 s,
    // then go-back-N copies at 0.8 s each "acknowledged" 0.2 ms later: the ACKs of
    // the originals (rows 5, 7), not of copies that cannot have arrived yet.
    let c = cols(&[
        (0.000, 0, 0.0, 1000, N, 0),
        (0.000, 0, 1000.0, 1000, N, 0),
        (0.000, 0, 2000.0, 1000, N, 0),
        (0.500, 0, 0.0, 1000, N, RE),     // row 3: timer copy, acked 300 ms later (> 50 ms): undecided by timing
        (0.800, 1, 0.0, 0, 1000.0, 0),    // its ACK stops at 1000, below 3000 sent before it
        (0.8001, 0, 1000.0, 1000, N, RE), // row 5
        (0.8002, 1, 0.0, 0, 2000.0, 0),   // passes 1000 with row 5's copy sent: order proof off for row 3; timing proof for row 5
        (0.8003, 0, 2000.0, 1000, N, RE), // row 7
        (0.8004, 1, 0.0, 0, 3000.0, 0),
    ]);
    assert_eq!(needless_at_sender(&c, 0, Some(0.1)), vec![5, 7]);
    // Without a measured RTT only the order proof runs: nothing here.
    assert_eq!(needless_at_sender(&c, 0, None), Vec::<usize>::new());
}

#[test]
fn a_copy_whose_ack_stops_below_bytes_sent_before_it_and_never_copied_was_needless() {
    // Three segments, a timer copy of the first; the ACKs then advance one original at
    // a time (1000, 2000, 3000): byte 1000's original, sent before the copy and never
    // copied, arrived after the first segment had — on a path that keeps order, so did
    // the first segment's original: the copy (row 3) delivered nothing.
    let c = cols(&[
        (0.000, 0, 0.0, 1000, N, 0),
        (0.001, 0, 1000.0, 1000, N, 0),
        (0.002, 0, 2000.0, 1000, N, 0),
        (1.000, 0, 0.0, 1000, N, RE),
        (2.000, 1, 0.0, 0, 1000.0, 0),
        (2.001, 1, 0.0, 0, 2000.0, 0),
        (2.002, 1, 0.0, 0, 3000.0, 0),
    ]);
    assert_eq!(needless_at_sender(&c, 0, Some(0.1)), vec![3]);
}

#[test]
fn a_copy_that_repaired_a_loss_is_not_needless() {
    // The first segment lost: its copy at 1 s is acknowledged a full round trip later
    // (1.1 s), and that ACK jumps over everything (the receiver held the rest): neither
    // proof holds.
    let c = cols(&[
        (0.000, 0, 0.0, 1000, N, 0),
        (0.001, 0, 1000.0, 1000, N, 0),
        (0.002, 0, 2000.0, 1000, N, 0),
        (1.000, 0, 0.0, 1000, N, RE),
        (1.100, 1, 0.0, 0, 3000.0, 0),
    ]);
    assert_eq!(needless_at_sender(&c, 0, Some(0.1)), Vec::<usize>::new());
    // Nor when the ACK stops at a byte that was itself lost and copied before it was passed.
    let c = cols(&[
        (0.000, 0, 0.0, 1000, N, 0),
        (0.001, 0, 1000.0, 1000, N, 0),
        (1.000, 0, 0.0, 1000, N, RE),
        (1.100, 1, 0.0, 0, 1000.0, 0),
        (1.101, 0, 1000.0, 1000, N, RE),
        (1.201, 1, 0.0, 0, 2000.0, 0),
    ]);
    assert_eq!(needless_at_sender(&c, 0, Some(0.1)), Vec::<usize>::new());
}

#[test]
fn a_copy_already_shown_needless_is_not_reported_again() {
    let c = cols(&[
        (0.000, 0, 0.0, 1000, N, 0),
        (0.500, 0, 0.0, 1000, N, RE | fb::KIND_SPURIOUS),
        (0.5001, 1, 0.0, 0, 1000.0, 0),
    ]);
    assert_eq!(needless_at_sender(&c, 0, Some(0.1)), Vec::<usize>::new());
}

#[test]
fn an_earlier_copy_shown_needless_does_not_hide_a_later_one() {
    // A probe of the tail (row 1, D-SACKed: needless) and, after the silence, a copy of
    // the segment below it overlapping its start (row 3) acknowledged 0.1 ms after it left:
    // the probe's bytes had arrived by their original, so the ACK is the originals'.
    let c = cols(&[
        (0.000, 0, 0.0, 2000, N, 0),
        (0.300, 0, 1000.0, 1000, N, RE | fb::KIND_SPURIOUS),
        (0.600, 1, 0.0, 0, 500.0, 0),
        (0.6001, 0, 500.0, 1000, N, RE),
        (0.6002, 1, 0.0, 0, 2000.0, 0),
    ]);
    assert_eq!(needless_at_sender(&c, 0, Some(0.1)), vec![3]);
}
