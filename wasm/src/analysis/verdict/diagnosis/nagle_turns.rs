//! Nagle's algorithm at the peer meeting the sender's own delayed ACK, inside the wait
//! for the peer's next message (issue 39 review U, class C-NAGLE-IN-PEER-TURN).
//!
//! The application headline splits the sender's pauses into its own waits and the wait
//! for the peer's next message (`TimeShares::peer_time`, "the peer's time to send it").
//! But the peer may have written that message at once and its TCP stack held it: Nagle's
//! algorithm (RFC 896; RFC 1122 §4.2.3.4) keeps a small segment back while an earlier
//! small one of the same side is unacknowledged, and the sender, which had nothing to
//! send, held its ACK of that earlier segment for its delayed-ACK timer (RFC 1122
//! §4.2.3.2: up to 500 ms; 40 ms on Linux, 200 ms elsewhere). The peer's segment left as
//! that ACK came. Neither application took that time; the two stacks did, and
//! TCP_NODELAY at the peer (or one write per message, or a prompt ACK at the sender)
//! removes it. arkime `smtp-subject-8859-b.pcap`: the server's "250" reply to a pipelined
//! command (frame 11) left 35 µs after the client's ACK (frame 10) of its previous 39-byte
//! reply (frame 9), which the client had held 207 ms — 40 % of the idle, told as the
//! server's turn.
//!
//! The rule (docs/ANALYSIS.md "diagnosis.text", *Nagle inside the peer's turn*): each
//! `delayed-ack` stall of the peer's direction (stall rule 5b: its last segment before
//! the gap small, the sender's pure ACK of it held at least 20 ms past the round trip,
//! no message of the sender's in between) whose ending segment falls inside an
//! `application-idle` stall of the data sender and left within the capture → peer →
//! capture round trip (path RTT less the sender's lag) and a millisecond (or a clock
//! tick) after that ACK: the ACK released it (a held segment leaves as the ACK arrives). Its part
//! within the sender's pause is the stacks' time.

use super::*;
use crate::analysis::stalls::cause::{Stall, StallCause};

/// Nagle holds found, by this module (the peer's, inside the sender's pauses) and by
/// nagle_holds.rs (the sender's, below the stall threshold).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NagleTally {
    /// Their time, s.
    pub seconds: f64,
    pub count: u64,
    /// The longest: (small segment row, the ACK row, released segment row).
    pub longest: (usize, usize, usize),
    /// The longest's time, s.
    longest_seconds: f64,
}

impl NagleTally {
    /// Counts one hold of `seconds` at `rows` (small segment, ACK, released segment).
    pub fn add(tally: &mut Option<Self>, seconds: f64, rows: (usize, usize, usize)) {
        let t = tally.get_or_insert(NagleTally { seconds: 0.0, count: 0, longest: rows, longest_seconds: 0.0 });
        t.seconds += seconds;
        t.count += 1;
        if seconds > t.longest_seconds {
            t.longest_seconds = seconds;
            t.longest = rows;
        }
    }
}

/// The Nagle holds inside the sender's pauses ([`nagle_in_turns`]): their time within
/// the sender's idle stalls.
pub type NagleTurns = NagleTally;

/// "frame 709 at 10.872 s, the ACK frame 710 43 ms later, the held segment frame 711 5 µs
/// after it": the longest hold's rows.
pub(super) fn longest_words(p: &PacketColumns, (seg, ack, data): (usize, usize, usize)) -> String {
    format!(
        "frame {} at {}, the ACK frame {} {} later, the held segment frame {} {} after it",
        p.frame[seg],
        format_timestamp(p.t[seg]),
        p.frame[ack],
        format_duration(p.t[ack] - p.t[seg]),
        p.frame[data],
        format_duration(p.t[data] - p.t[ack])
    )
}

/// The peer's Nagle holds ended by the sender's delayed ACK, inside the sender's idle
/// stalls (module comment); None where there is none.
pub fn nagle_in_turns(conn: &ConnectionSummary, p: &PacketColumns, tick: f64) -> Option<NagleTurns> {
    let d = conn.data_direction.min(1) as usize;
    let (own, peer) = (&conn.directions[d].stalls, &conn.directions[1 - d].stalls);
    // The ACK reaches the peer, and the segment it releases the capture, within the
    // capture → peer → capture round trip (the path RTT less the sender's lag), give or
    // take a millisecond or a clock tick: Nagle's algorithm sends the held segment as the
    // ACK arrives (RFC 896).
    let to_peer = conn.path_rtt_ms.map_or(0.0, |ms| (ms - conn.sender_lag_ms.max(0.0)).max(0.0) / 1000.0);
    let prompt = to_peer + [1e-3, tick].into_iter().filter(|v| v.is_finite()).fold(0.0, f64::max);
    let mut out: Option<NagleTurns> = None;
    for s in peer.iter().filter(|s| s.cause == StallCause::DelayedAck) {
        let released = s.start + s.duration;
        let Some(pause) = own.iter().find(|o| o.cause == StallCause::ApplicationIdle && o.start < released && released <= o.start + o.duration) else { continue };
        let Some((seg, ack, data)) = hold_rows(p, s, (1 - d) as u8) else { continue };
        if p.t[data] - p.t[ack] > prompt {
            continue;
        }
        NagleTally::add(&mut out, released - s.start.max(pause.start), (seg, ack, data));
    }
    out
}

/// Rows of a peer `delayed-ack` stall `s` of direction `peer`: its last data segment
/// before the gap, the first ACK of the other side covering it (the held one, a pure
/// ACK by rule 5b), and the segment that ended the gap.
fn hold_rows(p: &PacketColumns, s: &Stall, peer: u8) -> Option<(usize, usize, usize)> {
    let before = p.row_of(s.frame_before, s.start)?;
    let data = p.row_of(s.frame_after, s.start + s.duration)?;
    let seg = (before.saturating_sub(64)..=before).rev().find(|&i| p.dir[i] == peer && p.len[i] > 0)?;
    let end = p.seq[seg] + f64::from(p.len[seg]);
    let ack = (seg + 1..data).find(|&j| p.dir[j] != peer && p.ack[j] >= end)?;
    (p.len[ack] == 0).then_some((seg, ack, data))
}

/// "; 207 ms of that wait was no application's: …" for the application headline's
/// wait for the peer's next message, where [`nagle_in_turns`] found any.
pub(super) fn clause(f: &Facts, n: &NagleTurns) -> String {
    let (sender, peer) = (&f.conn.endpoints[f.conn.data_direction.min(1) as usize], &f.conn.endpoints[1 - f.conn.data_direction.min(1) as usize]);
    let times = if n.count > 1 { format!(" ({} times; the longest: ", n.count) } else { " (".to_string() };
    format!(
        "; {} of that wait was no application's: {peer}'s next segment was held by Nagle's algorithm behind its previous small one until {sender}'s delayed ACK of it{times}{})",
        format_duration(n.seconds),
        longest_words(f.rows.packets, n.longest)
    )
}

/// The headline's verdict where the peer's turns held Nagle's time ([`clause`]).
pub(super) fn verdict(f: &Facts, n: &NagleTurns) -> String {
    let d = f.conn.data_direction.min(1) as usize;
    let (sender, peer) = (&f.conn.endpoints[d], &f.conn.endpoints[1 - d]);
    let stacks = format!("The turns, not the network, set the pace: the applications', and for {} the two TCP stacks'", format_duration(n.seconds));
    // Where the peer's holds are most of its stalls, diagnosis.rs appends delayed_ack.rs's
    // advice, which names the same remedies: not twice.
    if crate::analysis::stalls::delayed_ack::advice(&f.conn.directions[1 - d].stalls, f.conn.end - f.conn.start).is_some() {
        return format!("{stacks}.");
    }
    format!("{stacks} (TCP_NODELAY at {peer}, or its writing each message in one call, or {sender} acknowledging at once, removes that part).")
}
