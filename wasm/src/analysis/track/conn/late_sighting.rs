//! A segment the capture first saw after the receiver had acknowledged it
//! (docs/ANALYSIS.md "Late sightings"; `connection.captureLoss.lateSightings`).
//!
//! The receiver's ACK covered bytes the capture had never seen (counted as delivered
//! unseen, capture_loss.rs), and then the capture saw them: the first copy of them,
//! exactly where the sender's last captured segment ended, numbered with the IPv4
//! Identification due right after the sender's last captured datagram. Wireshark's
//! rule reads any segment at or below the peer's ACK as a (spurious) retransmission,
//! and marks the ACK before it "ACKed segment that wasn't captured" — the same segment
//! counted twice. A re-send cannot carry that number: the original of those bytes took
//! a number when it was sent (RFC 791 §3.2: the Identification is set per datagram
//! sent, RFC 6864 §4.1), and a sender sends new data in sequence order, so the
//! original went out after the last datagram the capture saw and took the number due;
//! its re-send comes later still, with a later number. So it is the original, seen
//! late: a capture merging two interfaces or taps (a router-straddling tap sees one
//! leg's packets after the other's), or a capture buffer flushed behind the ACK. It
//! counts as the original — no retransmission, and its bytes no longer delivered
//! unseen — and as a late sighting. Without IPv4 numbering the receiver's answer
//! decides instead (loss.rs `hold_late_copy`).

use super::{sides_of, Conn, Packet};
use crate::analysis::rows::columns::flag_bits as fb;
use crate::decode::tcp_flags::SYN;

impl Conn {
    /// `aflags` with the retransmission flags taken off where `p` is such a late
    /// sighting (`due`: its Identification is the one due, loss.rs `Numbering`).
    pub(super) fn late_sighting(&mut self, p: &Packet, aflags: u32, due: bool) -> u32 {
        let seg = p.seg;
        if !due || seg.payload_len == 0 || seg.flags & SYN != 0 || aflags & fb::ANY_RETRANSMISSION == 0 {
            return aflags;
        }
        let segment = self.sides[p.d].max_len.max(u32::from(self.offers.mss_announced_by(1 - p.d as u8).unwrap_or(0)));
        let (fwd, _) = sides_of(&mut self.sides, p.d);
        // Its bytes: none captured before (nothing sent seen at or beyond its start), it
        // starts where the sender's last segment ended, and the receiver's ACK covers it.
        let first_copy = fwd.sent_high.is_none_or(|h| h <= p.seq_rel) && p.prev_next == Some(p.seq_rel);
        let acked = !fwd.peer_ack_by_rst && fwd.peer_ack.is_some_and(|a| a >= p.end_rel);
        if !(first_copy && acked) {
            return aflags;
        }
        let holes = fwd.holes.get_or_insert_with(Box::default);
        // Whatever of it the ACK had counted as delivered unseen was seen after all.
        let _ = holes.uncount_first_copy(p.seq_rel, p.end_rel, segment);
        holes.loss.late_sightings += 1;
        aflags & !fb::ANY_RETRANSMISSION
    }
}
