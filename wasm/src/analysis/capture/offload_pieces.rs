//! A segmentation-offload super-frame and its pieces, both in the capture, are one
//! transmission (issue 39, review V class C-CAPTURE-COPY-AS-RETRANSMISSION).
//!
//! Where they come from: with TCP segmentation offload (Windows "LSO", Linux TSO/GSO)
//! the stack hands the driver one large segment of up to 64 KiB and the NIC, or the
//! kernel's software GSO, cuts it into MSS-sized datagrams on the way out. A capture
//! driver that taps both the stack's hand-off and the wire side (some Windows capture
//! drivers, pktmon; `-i any` on a host that routes a container's or VM's GSO traffic
//! out of a NIC without TSO) logs the super-frame and then each of its pieces: the
//! same bytes twice, the pieces microseconds later (corelight PetitPotam
//! `UnPatchedDCOpenFileRaw.pcapng`: frame 797, 8,221 B, IP ID 0x9e40, then 799–804,
//! 1,440 B each but the last, IDs 0x9e40–0x9e45, 0.29 ms later). Read as two
//! transmissions, every piece is a retransmission of bytes just sent: 43 "fast
//! retransmissions" in a connection whose receiver sent no duplicate ACK and no SACK
//! at all. tshark too marks those pieces "Out-Of-Order" or "Retransmission".
//!
//! Rule: a segment is a piece of an earlier super-frame of its direction when it
//! carries fewer bytes, lying within the super-frame's, and comes within
//! [`COPY_WINDOW_TWO_POINTS_NS`] of it, with the super-frame's acknowledgment number,
//! raw window and TCP timestamps and its flags (PSH and FIN aside: only the last piece
//! carries them), a TTL no higher (the pieces are the same or further along the path),
//! and an IPv4 Identification that numbers it as the segmenter does: piece k of a
//! super-frame with ID `id` carries `id + k` and starts `k × P` bytes into it, P the
//! piece size (every piece but the last carries P bytes; Windows NDIS LSO and Linux
//! `inet_gso_segment` both advance the ID by one per piece). The pieces must come in
//! order, piece 0 (same ID, same start) first: P is its length, and a piece k whose
//! k − 1 before it were not seen is not taken (a tail re-sent with a later ID, its
//! offset a multiple of the ID step by chance, is a resend). The super-frame must carry
//! more than 1,460 B, more than one datagram on a standard Ethernet wire: a segment that
//! fits in one is no super-frame (a crafted capture's two segments with one ID, 55 and
//! 17 B, are not one cut from the other). Only a non-zero ID of a direction seen to
//! change its ID from one new datagram to the next counts (RFC 6864 §4: a constant ID,
//! 0 or other, tells nothing).
//!
//! Why no retransmission matches: a re-sent datagram is built anew and takes the next
//! value of the sender's counter (duplicates.rs, module doc), far from the super-frame's
//! `id + k` for its own offset `k × P`; and a resend of part of a super-frame without
//! new ID would also need the super-frame's ID plus exactly its piece index.
//!
//! Which copy is kept: the super-frame, the first logged. It is the transmission the
//! sending TCP made, at the time it made it (its stalls, flight and rate are the
//! sender's); the pieces follow within a fraction of a millisecond, so the charts lose
//! nothing a reader can see at their scale, and the analysis stays one pass (a piece
//! is recognised when it comes, nothing is held back). The engine already reads such
//! super-frames alone (captures at a TSO sender that hold no pieces).
//!
//! What stays unseen: the reverse order (pieces first, then a merged frame, as GRO at
//! a receiver) and pieces of a super-frame the capture did not log.
//!
//! Memory: a direct-mapped table of directions, each with its last [`RECENT`]
//! super-frames (a super-frame's pieces may come after the next super-frame: petit
//! frames 797, 798, then 797's pieces 799–804 and 798's 805–807).

use super::duplicates::COPY_WINDOW_TWO_POINTS_NS;
use crate::decode::tcp_flags::{FIN, PSH, RST, SYN};
use crate::decode::TcpSegment;

const DIRECTIONS: usize = 4096;
/// Super-frames remembered per direction.
const RECENT: usize = 4;
/// The most a datagram on a standard Ethernet link carries (1,500 − 20 − 20 B): a
/// segment larger than this was never one datagram on such a wire, and only such a
/// segment is taken for a super-frame.
const MAX_DATAGRAM_PAYLOAD: u32 = 1460;

/// A new datagram of a direction, a possible super-frame.
#[derive(Clone, Copy, Default)]
struct Frame {
    id: u16,
    seq: u32,
    len: u32,
    ack: u32,
    window: u16,
    flags: u8,
    ts: Option<(u32, u32)>,
    ttl: Option<u8>,
    t_ns: i64,
    /// Its pieces recognised so far, and their size P (piece 0's length).
    pieces: u16,
    piece_len: u32,
}

#[derive(Clone, Copy, Default)]
struct Direction {
    key: u64,
    /// The last non-zero ID of a new datagram (0: none yet) and whether it changed.
    last_id: u16,
    changes: bool,
    recent: [Frame; RECENT],
    next: u8,
}

pub struct OffloadPieces {
    directions: Box<[Direction]>,
    /// Pieces recognised (counted in the duplicate filter's copies too).
    pub pieces: u64,
}

impl Default for OffloadPieces {
    fn default() -> Self {
        OffloadPieces { directions: vec![Direction::default(); DIRECTIONS].into_boxed_slice(), pieces: 0 }
    }
}

/// `s` is the next piece of `f` as a segmenter cuts it (module doc).
fn piece_of(s: &TcpSegment, id: u16, f: &Frame) -> bool {
    let same_flags = (s.flags | PSH | FIN) == (f.flags | PSH | FIN);
    let after = s.ts_ns.wrapping_sub(f.t_ns);
    if f.len <= MAX_DATAGRAM_PAYLOAD
        || s.payload_len >= f.len
        || !same_flags
        || (s.ack, s.window, s.options.timestamp) != (f.ack, f.window, f.ts)
        || !(0..=COPY_WINDOW_TWO_POINTS_NS).contains(&after)
        || matches!((s.frame_id.ip_ttl, f.ttl), (Some(a), Some(b)) if a > b)
    {
        return false;
    }
    let (k, offset) = (u32::from(id.wrapping_sub(f.id)), s.seq.wrapping_sub(f.seq));
    if k != u32::from(f.pieces) || offset >= f.len || offset + s.payload_len > f.len {
        return false;
    }
    // Piece k starts k × P in: every piece but the last carries P bytes, the last
    // (ending with the super-frame) at most P.
    let last = offset + s.payload_len == f.len;
    match k {
        0 => offset == 0,
        _ => offset == k * f.piece_len && (s.payload_len == f.piece_len || last && s.payload_len < f.piece_len),
    }
}

impl OffloadPieces {
    /// The entry of direction `key`, started afresh when another direction held it.
    /// In place (issues 41, 43): a copy of its 208 bytes out and back, per packet, was
    /// ~5 % of a bulk capture's analysis (perf).
    fn slot(&mut self, key: u64) -> &mut Direction {
        let d = &mut self.directions[(key >> 20) as usize % DIRECTIONS];
        if d.key != key {
            *d = Direction { key, ..Direction::default() };
        }
        d
    }

    /// True when `s` (direction hash `key`, duplicates.rs) is a piece of a super-frame
    /// seen before (and counts it); otherwise remembers it as a new datagram.
    pub fn is_piece(&mut self, key: u64, s: &TcpSegment) -> bool {
        let Some(id) = s.frame_id.ip_id.filter(|&id| id != 0) else { return false };
        if s.flags & (SYN | RST) != 0 {
            return false;
        }
        let d = self.slot(key);
        let candidate = s.payload_len > 0 && d.changes;
        if let Some(i) = d.recent.iter().position(|f| candidate && piece_of(s, id, f)) {
            let f = &mut d.recent[i];
            if f.pieces == 0 {
                f.piece_len = s.payload_len;
            }
            f.pieces += 1;
            self.pieces += 1;
            return true;
        }
        d.changes |= d.last_id != 0 && d.last_id != id;
        d.last_id = id;
        if s.payload_len > 0 {
            let (ack, window, flags, ts, ttl) = (s.ack, s.window, s.flags, s.options.timestamp, s.frame_id.ip_ttl);
            d.recent[d.next as usize % RECENT] = Frame { id, seq: s.seq, len: s.payload_len, ack, window, flags, ts, ttl, t_ns: s.ts_ns, pieces: 0, piece_len: 0 };
            d.next = ((d.next as usize + 1) % RECENT) as u8;
        }
        false
    }
}

#[cfg(test)]
#[path = "offload_pieces_tests.rs"]
mod tests;
