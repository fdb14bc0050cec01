//! Data that crossed the peer's close and was answered with a reset (docs/ANALYSIS.md
//! "How the connection ended", the close race; issue 39 review Z, mtik).
//!
//! A FIN takes the sequence number after its sender's last byte (RFC 9293 §3.6): a FIN
//! whose sequence number lies beyond the highest byte the capture holds of its sender
//! proves that many bytes sent and not captured. Where the peer's cumulative ACK stays
//! below them, they count among the sender's unacknowledged bytes like captured ones.
//!
//! The race itself (the peer closed, the other side's data crossed its FIN and drew the
//! reset, RFC 9293 §3.6.1) is not told yet: its sentence lengthened the diagnosis a
//! share link keeps and coarsened loss-1pct's pipe link beyond the 1 % the e2e test
//! allows (review AA; session 36 closing note) — it comes back with a link that keeps
//! the ending's words once.
//! allenvox practice5_router1-1.pcap #17: the client's last 433-B POST crossed the
//! router's FIN (its ACK and FIN carry sequence 272758, its last captured byte 272325);
//! the ending read "reset … after both FINs" with 0 bytes unacknowledged.

use super::Closing;
use crate::analysis::track::conn::Side;

/// Each direction's bytes its latest FIN's sequence number proves sent beyond the
/// highest byte captured (0 without data captured to measure from).
fn unseen(c: &Closing, sides: &[Side; 2]) -> [u64; 2] {
    [0, 1].map(|d| match (c.last_fin[d], sides[d].sent_high) {
        (Some((_, Some(end))), Some(high)) if end > high => (end - high) as u64,
        _ => 0,
    })
}

/// `unacked` with the bytes a FIN proves sent and the peer never acknowledged added.
pub(super) fn with_unseen(unacked: [Option<u64>; 2], c: &Closing, sides: &[Side; 2]) -> [Option<u64>; 2] {
    let extra = unseen(c, sides);
    [0, 1].map(|d| {
        let (Some(u), Some(high)) = (unacked[d], sides[d].sent_high) else { return unacked[d] };
        // Only the part above the peer's cumulative ACK: an ACK beyond the captured
        // bytes acknowledged some of them.
        let acked_above = sides[d].peer_ack.map_or(0, |a| (a - high).max(0) as u64);
        Some(u + extra[d].saturating_sub(acked_above))
    })
}
