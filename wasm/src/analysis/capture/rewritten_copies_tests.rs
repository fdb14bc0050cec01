//! Tests of rewritten_copies.rs.

use super::*;
use crate::analysis::track::testseg::Seg;
use crate::decode::tcp_flags::ACK;

fn server(t_ms: f64, id: u16, seq: u32, ack: u32, len: u32) -> TcpSegment {
    Seg::b_to_a(t_ms / 1000.0).seq(seq).ack(ack).len(len).ip_id(id).build()
}

#[test]
fn a_shifted_copy_before_or_after_its_twin_is_left_out() {
    // The client (A) sent up to 1,000 in its space; the box shifts the server's
    // numbers by +2,000,000,000 and the ACKs (client space) by +300,000,000.
    let mut f = RewrittenCopies::default();
    let client = Seg::a_to_b(0.0).seq(900).ack(5001).len(100).ip_id(1).build();
    assert_eq!(f.check(&client, None), (Verdict::Analyse, false));
    f.analysed(&client);
    // Far copy first: held; its twin next shows it a copy.
    let far = server(1.0, 7, 2_000_005_001, 300_001_000, 1460);
    assert_eq!(f.check(&far, None), (Verdict::Hold, false));
    let near = server(1.0, 7, 5001, 1000, 1460);
    assert_eq!(f.check(&near, Some(&far)), (Verdict::Analyse, true));
    f.analysed(&near);
    // Near copy first, far copy after: a copy at once.
    let near2 = server(2.0, 8, 6461, 1000, 1460);
    assert_eq!(f.check(&near2, None), (Verdict::Analyse, false));
    f.analysed(&near2);
    assert_eq!(f.check(&server(2.0, 8, 2_000_006_461, 300_001_000, 1460), None), (Verdict::Copy, false));
    // Other offsets: no copy of this box (its offsets are constant).
    let near3 = server(3.0, 9, 7921, 1000, 1460);
    f.analysed(&near3);
    assert_eq!(f.check(&server(3.0, 9, 1_000_007_921, 300_001_000, 1460), None), (Verdict::Hold, false));
    assert_eq!(f.copies, 2);
}

#[test]
fn a_retransmission_or_an_ack_in_the_peer_space_is_never_held() {
    let mut f = RewrittenCopies::default();
    let client = Seg::a_to_b(0.0).seq(900).ack(5001).len(100).ip_id(1).build();
    f.analysed(&client);
    let first = server(1.0, 7, 5001, 1000, 1460);
    f.analysed(&first);
    // The same bytes again with a new ID 200 ms later, and even the same ID: same seq.
    assert_eq!(f.check(&server(201.0, 8, 5001, 1000, 1460), None), (Verdict::Analyse, false));
    let mut same_id = server(201.0, 7, 5001, 1000, 1460);
    same_id.flags = ACK;
    assert_eq!(f.check(&same_id, None), (Verdict::Analyse, false));
    assert_eq!(f.copies, 0);
}
