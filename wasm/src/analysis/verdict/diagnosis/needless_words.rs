//! The loss headline's subject where every re-send was needless (docs/ANALYSIS.md
//! "No re-send repaired a loss"): the receiver already had each re-sent byte (D-SACK,
//! Eifel, or its ACK had covered them before the re-send: retrans_kinds.rs `spurious`),
//! nothing else shows data of this direction lost (no re-send reported by SACK blocks
//! the capture did not see, no datagram of the sender missing by its IPv4 numbering, no
//! segment before the capture point missing), and the peer re-sent nothing that was
//! needed (its data was not lost either). "Loss limited this flow" would name a loss of
//! data the capture shows did not happen: the time went to the sender re-sending what had
//! arrived — a timer firing before the ACKs it waited on (a spurious timeout, RFC 5682),
//! ACKs lost on the way back, or a sender that did not accept the ACKs it got. Which of
//! those, the outage sentences say where the capture shows it; the headline says only
//! that no re-send repaired a loss. (ctf ragent.pcap #188: the server's 2 re-sends were
//! needless, but the client's GET was lost and re-sent: stays "Loss limited".) fox-it bro.org-harlemshake-inject.pcap conn 13:
//! 447 re-sends, all needless (the receiver acknowledged another sender's bytes at those
//! sequence numbers), read "Loss limited this flow".

use super::*;

/// "Re-sends limited this flow, though none repaired a loss: {evidence}, and the sender
/// spent N of the time re-sending what had arrived" — None where data may have been lost.
pub(super) fn opening(f: &Facts, evidence: &str, retrans: u64) -> Option<String> {
    let d = f.conn.data_direction.min(1) as usize;
    let (sender, peer) = (&f.conn.directions[d], &f.conn.directions[1 - d]);
    let nothing_lost = retrans > 0
        && sender.spurious_retransmissions >= sender.retransmissions.max(retrans)
        && sender.unseen_resends == 0
        && sender.lost_after_capture == 0
        && sender.lost_segments == 0
        && sender.unseen_datagrams.unwrap_or(0) == 0
        && peer.spurious_retransmissions >= peer.retransmissions
        && peer.lost_segments == 0;
    nothing_lost.then(|| {
        format!(
            "Re-sends limited this flow, though none repaired a loss: {evidence}, and the sender spent {} of the time re-sending what had arrived",
            format_percent(f.shares.loss)
        )
    })
}
