//! Data that passed the capture after the reset that ended the connection (docs/ANALYSIS.md
//! "How the connection ended", `ending.afterReset`; issue 39 review T class
//! C-DATA-AFTER-RESET). A connection in a synchronized state that accepts a reset is
//! closed (RFC 9293 §3.10.7.4), and a closed connection answers every segment but a reset
//! with a reset (§3.10.7.1). The peer of the resetter may still send: it has not seen the
//! reset yet, or data it queued before passes a queue between its stack and the capture
//! point. That data is no part of what was in flight when the connection ended: counted
//! with it, an iperf3 capture's ending read "420 KiB … were not acknowledged" where 238 KiB
//! were in flight at the reset and 182 KiB more came after it, each segment refused by
//! another of the 136 resets, which went untold.

use super::in_words::{bytes, sacked_split};
use super::Closing;
use crate::analysis::format::format_duration;
use crate::analysis::track::conn::Side;
use serde::Serialize;

/// What the resetter's peer sent after the reset (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AfterReset {
    /// The resetter's peer: the direction whose data came after the reset.
    pub by: u8,
    /// Payload bytes of its new data beyond the highest byte it had sent when the reset
    /// was captured.
    pub bytes: u64,
    /// From the reset to the last segment of the peer that advanced its sequence space
    /// (new data, or its FIN, which takes a sequence number), s.
    pub seconds: f64,
    /// Resets the resetter sent after the first (its answers to that data, §3.10.7.1).
    pub resets: u64,
    /// Of its data, the bytes sent by the reset beyond the resetter's highest cumulative
    /// ACK: in flight when the connection ended.
    pub in_flight: u64,
    /// Of `inFlight`, those the resetter's SACK blocks reported received.
    pub sacked: u64,
}

/// The data after the reset (`Closing::reset_mark`: the peer's highest byte and the
/// resetter's resets when the reset came), where the peer sent new bytes beyond it;
/// `sacked`: the peer's bytes SACKed above the cumulative ACK (`ending::judge`).
pub(super) fn after_reset(c: &Closing, sides: &[Side; 2], sacked: [u64; 2]) -> Option<AfterReset> {
    let (by, mark, ..) = c.reset_end()?;
    let (peer_high_then, resets_then) = c.reset_mark()?;
    let p = 1 - (by as usize & 1);
    let side = &sides[p];
    let (high, then) = (side.sent_high?, peer_high_then?);
    let bytes = u64::try_from(high - then).ok().filter(|&b| b > 0)?;
    let acked = side.peer_ack.or(side.sent_low).unwrap_or(then);
    let in_flight = u64::try_from(then - acked).unwrap_or(0);
    let last_new = side.ws.nextseq_time - c.epoch_ns;
    Some(AfterReset {
        by: p as u8,
        bytes,
        seconds: ((last_new - mark.t_ns) as f64 / 1e9).max(0.0),
        resets: u64::from(c.resets[by as usize & 1].saturating_sub(resets_then)),
        in_flight,
        // A closed connection SACKs nothing: the blocks lie below the reset's data.
        sacked: sacked[p].min(in_flight),
    })
}

/// " At the reset, 238 KiB (…) of the data A had sent were not acknowledged: … 182 KiB
/// (…) more passed the capture after the reset, over 777 ms, and B answered with 135
/// more resets (…)." for the resetter's peer `a.by`; `peer`: the resetter's name.
pub(super) fn push_words(s: &mut String, a: &AfterReset, name: &str, peer: &str) {
    *s += " At the reset, ";
    if a.in_flight == 0 {
        *s += "all the data ";
        *s += name;
        *s += " had sent was acknowledged; ";
    } else {
        *s += &bytes(a.in_flight);
        *s += " of the data ";
        *s += name;
        *s += " had sent were not acknowledged";
        if a.sacked > 0 {
            *s += ": ";
            *s += &sacked_split(a.in_flight, a.sacked, peer);
        }
        *s += "; ";
    }
    *s += &bytes(a.bytes);
    *s += " more passed the capture after the reset";
    if a.seconds > 0.0 {
        *s += ", over ";
        *s += &format_duration(a.seconds);
    }
    match a.resets {
        0 => *s += ", and the capture holds no further reset (a connection closed by its reset answers each segment with one, RFC 9293 §3.10.7.1).",
        n => {
            *s += ", and ";
            *s += peer;
            *s += &format!(" answered with {n} more reset{} (a connection closed by its reset answers each segment with one, RFC 9293 §3.10.7.1).", if n == 1 { "" } else { "s" });
        }
    }
}
