//! Tests of offload_pieces.rs, through the duplicate filter that calls it.

use super::super::duplicates::DuplicateFilter;
use crate::analysis::track::testseg::Seg;
use crate::decode::TcpSegment;

/// A data segment of A→B: bytes seq..seq+len, IPv4 ID `id`, TTL `ttl`, at `t_ms`.
fn seg(t_ms: f64, seq: u32, len: u32, id: u16, ttl: u8) -> TcpSegment {
    let mut s = Seg::a_to_b(t_ms / 1000.0).seq(seq).ack(4454).len(len).build();
    s.frame_id.ip_id = Some(id);
    s.frame_id.ip_ttl = Some(ttl);
    s
}

#[test]
fn the_pieces_of_a_logged_super_frame_are_copies_a_resend_is_not() {
    // The shape of petit (corelight PetitPotam, frames 795–807): a 971-B segment (ID
    // 0x9e3f), then super-frames of 8,221 B (0x9e40, bytes 1342–9563) and 4,320 B
    // (0x9e46, 9563–13883), then the NIC's pieces: 1,440 B each, IDs 0x9e40–0x9e45
    // for the first (the last piece 1,021 B), 0x9e46–0x9e48 for the second, 0.29 ms
    // and 0.41 ms later, same ACK, window and TTL.
    let mut f = DuplicateFilter::default();
    assert!(!f.is_copy(&seg(0.0, 371, 971, 0x9e3f, 128)));
    assert!(!f.is_copy(&seg(0.164, 1342, 8221, 0x9e40, 128)));
    assert!(!f.is_copy(&seg(0.433, 9563, 4320, 0x9e46, 128)));
    for k in 0..6u16 {
        let len = if k == 5 { 1021 } else { 1440 };
        assert!(f.is_copy(&seg(0.453, 1342 + 1440 * u32::from(k), len, 0x9e40 + k, 128)), "piece {k}");
    }
    for k in 0..3u16 {
        assert!(f.is_copy(&seg(0.572, 9563 + 1440 * u32::from(k), 1440, 0x9e46 + k, 128)), "piece {k}");
    }
    // 6 + 3 pieces: the bytes of the two super-frames, counted once.
    assert_eq!((f.duplicates, f.offload.pieces), (9, 9));
    // A real resend of bytes 2782–4222 100 ms later takes the counter's next ID
    // (0x9e4a), not 0x9e40 + 1: kept, a retransmission.
    assert!(!f.is_copy(&seg(100.0, 2782, 1440, 0x9e4a, 128)));
    // Nor is a piece whose ID does not match its offset one: bytes 4222–5662 are
    // piece 2 of 0x9e40 (ID 0x9e42); with ID 0x9e41 it is a datagram of its own.
    assert!(!f.is_copy(&seg(100.1, 4222, 1440, 0x9e41, 128)));
    assert_eq!(f.offload.pieces, 9);
}

#[test]
fn pieces_need_a_changing_id_and_no_higher_ttl() {
    // A constant non-zero ID (RFC 6864 §4) says nothing: a stack writing 0x1234 on
    // every datagram that resends the first 1,440 B of an 8,000-B segment 1 ms
    // later is not cutting a super-frame.
    let mut f = DuplicateFilter::default();
    assert!(!f.is_copy(&seg(0.0, 1, 100, 0x1234, 64)));
    assert!(!f.is_copy(&seg(30.0, 101, 8000, 0x1234, 64)));
    assert!(!f.is_copy(&seg(31.0, 101, 1440, 0x1234, 64)));
    // A direction whose ID changes: a "piece" with a higher TTL than its super-frame
    // was not further along the path than it: not a piece.
    let mut g = DuplicateFilter::default();
    assert!(!g.is_copy(&seg(0.0, 1, 100, 10, 63)));
    assert!(!g.is_copy(&seg(30.0, 101, 8000, 11, 63)));
    assert!(!g.is_copy(&seg(30.2, 101, 1440, 11, 64)));
    // The same with TTL 62 (one router on): a piece, and the next one after it.
    let mut h = DuplicateFilter::default();
    assert!(!h.is_copy(&seg(0.0, 1, 100, 10, 63)));
    assert!(!h.is_copy(&seg(30.0, 101, 8000, 11, 63)));
    assert!(h.is_copy(&seg(30.2, 101, 1440, 11, 62)));
    assert!(h.is_copy(&seg(30.2, 1541, 1440, 12, 62)));
    assert_eq!((f.offload.pieces, g.offload.pieces, h.offload.pieces), (0, 0, 2));
}

#[test]
fn pieces_come_in_order_from_a_segment_larger_than_a_datagram() {
    // gopacket `pcapgo/tests/le/test300.pcapng` frames 19 and 24: 1,693 B at
    // ID 0x00f3 (bytes 6529–8222), then its last 241 B at ID 0x00f5. 241 B at offset
    // 1,452 = 2 × 726 fits "piece 2 of pieces of 726 B", but pieces 0 and 1 never came:
    // a resend of the tail, not a piece.
    let mut f = DuplicateFilter::default();
    assert!(!f.is_copy(&seg(0.0, 5321, 1208, 0x00f2, 45)));
    assert!(!f.is_copy(&seg(0.1, 6529, 1693, 0x00f3, 45)));
    assert!(!f.is_copy(&seg(0.2, 7981, 241, 0x00f5, 45)));
    // PcapPlusPlus `Ftp.pcap` frames 9 and 10: 55 B then 17 B from the same start
    // under the same ID 0x2967. 55 B fits in one datagram: no super-frame was cut.
    assert!(!f.is_copy(&seg(1.0, 200, 55, 0x2967, 128)));
    assert!(!f.is_copy(&seg(1.0, 200, 17, 0x2967, 128)));
    assert_eq!(f.offload.pieces, 0);
}
