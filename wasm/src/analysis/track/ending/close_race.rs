//! Data that crossed the peer's close and was answered with a reset (docs/ANALYSIS.md
//! "How the connection ended", the close race; issue 39 review Z, mtik).
//!
//! A FIN takes the sequence number after its sender's last byte (RFC 9293 §3.6): a FIN
//! whose sequence number lies beyond the highest byte the capture holds of its sender
//! proves that many bytes sent and not captured. Where the peer's cumulative ACK stays
//! below them, they count among the sender's unacknowledged bytes like captured ones.
//!
//! The race: the peer closed first (its FIN), the other side's data went unacknowledged,
//! and the peer answered with a reset. A host that has closed answers data that arrives
//! after its close with a reset, and the data is lost (RFC 9293 §3.6.1); on a kept-alive
//! HTTP connection that is the server's idle close crossing the client's next request
//! (RFC 9112 §9.6: the client must open a new connection and retry, §9.3.1).
//! allenvox practice5_router1-1.pcap #17: the client's last 433-B POST crossed the
//! router's FIN (its ACK and FIN carry sequence 272758, its last captured byte 272325);
//! the ending read "reset … after both FINs" with 0 bytes unacknowledged.

use super::{Closing, Ending, Roles};
use crate::analysis::format::format_bytes;
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::track::conn::Side;
use crate::decode::tcp_flags::FIN;

/// Whether every byte of direction `other` beyond `acked` (the resetter's highest ACK)
/// was sent before `other` acknowledged the resetter's FIN: no segment of `other` whose
/// ACK covers that FIN carries any of them. Data sent after the FIN arrived (a TLS
/// close_notify answering the peer's, a reply written to a half-closed socket) crossed
/// nothing: the race is data already on its way when the FIN came.
///
/// And the two met on the way (review AA, skype.pcap: 20 connections whose FIN was
/// re-sent and never acknowledged, the peer's 8 B reaching the capture 3.7–17 s later,
/// long after the closer had given up): the first of `other`'s bytes past the ACK
/// passed the capture within `bound_s` (the stall threshold, at least a round trip) of
/// the FIN. Data first seen later than that left after the FIN could have arrived, or
/// after the closer had gone; data seen that long before it would have been received,
/// and acknowledged, before the closer closed, had it not been lost: neither crossed. (That `other`
/// acknowledged the FIN is no test: in a true race its data leaves before the FIN
/// arrives and the reset follows, hackcon #8's 31 B 250 µs after the FIN.)
fn crossed(p: &PacketColumns, by: u8, other: u8, acked: f64, bound_s: f64) -> bool {
    let Some(f) = (0..p.t.len()).find(|&i| p.dir[i] == by && p.flags[i] & u32::from(FIN) != 0) else { return false };
    let fin_end = p.seq[f] + f64::from(p.len[f]) + 1.0;
    let unacked_data = |i: usize| p.dir[i] == other && p.len[i] > 0 && p.seq[i] + f64::from(p.len[i]) > acked;
    // The first segment of `other` past the resetter's ACK, data or not: where the data
    // is not in the capture, a bare ACK or FIN whose sequence number lies beyond it shows
    // it sent by then (mtik: the client's ACK of the FIN carries sequence 272758).
    let first_unacked = (0..p.t.len()).find(|&i| p.dir[i] == other && p.seq[i] + f64::from(p.len[i]) > acked).map(|i| p.t[i]);
    first_unacked.is_some_and(|t| (t - p.t[f]).abs() <= bound_s)
        && !(0..p.t.len()).any(|i| unacked_data(i) && p.ack[i] >= fin_end)
}

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

/// The race's words, where the resetter closed first and its peer's data went
/// unacknowledged: appended to the ending's sentence.
pub(super) fn words(e: &Ending, c: &Closing, sides: &[Side; 2], roles: &Roles, rows: Option<&PacketColumns>, floor_s: f64) -> Option<String> {
    let r = e.reset?;
    let (by, other) = (usize::from(r.by & 1), 1 - usize::from(r.by & 1));
    // (in_words.rs has just said "N bytes of the data … were never acknowledged".)
    if e.first_fin != Some(r.by) || e.fin_at[by].is_none_or(|t| t > r.at) || e.after_reset.is_some_and(|a| usize::from(a.by) == other) {
        return None;
    }
    let lost = e.unacknowledged_bytes[other].filter(|&b| b > 0)?;
    // The resetter's highest ACK, in the rows' space: the other side's highest byte
    // captured less what stayed unacknowledged of it.
    let p = rows?;
    let high = (0..p.t.len()).filter(|&i| usize::from(p.dir[i] & 1) == other && p.len[i] > 0).map(|i| p.seq[i] + f64::from(p.len[i])).fold(f64::NEG_INFINITY, f64::max);
    let acked = (0..p.t.len()).filter(|&i| usize::from(p.dir[i] & 1) == by && p.ack[i].is_finite()).map(|i| p.ack[i]).fold(f64::NEG_INFINITY, f64::max);
    if !high.is_finite() || !crossed(p, r.by, other as u8, acked.min(high), floor_s) {
        return None;
    }
    // An idle close: the closer's FIN came more than a stall (`floor_s`) after its last
    // data. A FIN right behind the closer's own last message (a TLS close_notify) is
    // answered in kind (the peer's close_notify), which races nothing.
    let fin = (0..p.t.len()).find(|&i| usize::from(p.dir[i] & 1) == by && p.flags[i] & u32::from(FIN) != 0)?;
    let last = (0..fin).rev().find(|&i| usize::from(p.dir[i] & 1) == by && p.len[i] > 0);
    if last.is_some_and(|i| p.t[fin] - p.t[i] <= floor_s) {
        return None;
    }
    let missed = unseen(c, sides)[other];
    let (name, peer) = (&roles.names[other], &roles.names[by]);
    let unseen_words = match missed {
        0 => String::new(),
        m if m >= lost => format!(" (none of them in the capture: the sequence number of {name}'s FIN shows them sent)"),
        m => format!(" ({} of them not in the capture: the sequence number of {name}'s FIN shows them sent)", format_bytes(m as f64)),
    };
    Some(format!(
        " They crossed {peer}'s close{unseen_words}: {peer} answered them with the reset, so they were never delivered (a side that has closed answers data with a reset, RFC 9293 §3.6.1; on a kept-alive HTTP connection the request is lost and must be sent again on a new connection, RFC 9112 §9.6)."
    ))
}
