//! The bytes a connection left unacknowledged (docs/ANALYSIS.md
//! `ending.unacknowledgedBytes`, `ending.sackedBytes`).

use crate::analysis::track::conn::Side;

/// Payload bytes `side` sent beyond its peer's highest cumulative ACK (the peer's
/// ACK of a FIN, one past the last byte, counts no byte); None without a packet of
/// the peer (`peer_packets`) to tell by. Before any ACK of the peer, its lowest byte
/// sent stands in for it (as bytes in flight do, track/conn.rs).
pub(super) fn unacknowledged(side: &Side, peer_packets: u64) -> Option<u64> {
    if peer_packets == 0 {
        return None;
    }
    let (Some(high), Some(low)) = (side.sent_high, side.sent_low) else { return Some(0) };
    Some((high - side.peer_ack.unwrap_or(low)).max(0) as u64)
}

/// `fins` (the FIN segments `side` sent) when the peer never acknowledged its FIN: the
/// FIN follows the last payload byte (its sequence number is `sent_high`), so the
/// peer's ACK of it passes `sent_high`. 0 without data to tell by.
pub(super) fn fin_unacknowledged(side: &Side, fins: u64) -> u64 {
    match (side.sent_high, side.peer_ack) {
        (Some(high), Some(ack)) if fins > 0 && ack <= high => fins,
        (Some(_), None) if fins > 0 => fins,
        _ => 0,
    }
}

/// Each direction's bytes between its peer's cumulative ACK and its highest byte sent
/// that the peer's SACK blocks reported received (loss/reported.rs's scoreboard, RFC
/// 2018 §3: a block names data that reached the receiver). Read before the trackers
/// are finished (run/summary/steps.rs `finish_trackers` takes the scoreboard); 0
/// without SACK blocks above the cumulative ACK.
pub(crate) fn sacked_unacknowledged(sides: &[Side; 2]) -> [u64; 2] {
    [0, 1].map(|d| {
        let s = &sides[d];
        match (s.reported.as_deref(), s.sent_high, s.sent_low) {
            (Some(r), Some(high), Some(low)) => r.sacked_between(s.peer_ack.unwrap_or(low), high),
            _ => 0,
        }
    })
}
