//! A turn that was the peer's message still arriving (issue 39 review R, class
//! C-TURNS-FOR-LONG-REQUEST; docs/ANALYSIS.md "Turns: the peer's long message"): the
//! `turns` headline says "fewer turns (pipelining, batching requests) would make it
//! faster", but a wait during which the peer's own data kept coming for more than a
//! round trip was the peer's transfer — an 18.7 KB HTTP/2 request uploaded in three
//! flights one round trip apart (arkime http2-nghttp2.pcap) is one message, not turns
//! to batch. Its time is the peer's window (slow start, RFC 5681 §3.1: the flights
//! are released by the ACKs of the ones before) and the round trips.
//!
//! The rule, on the data direction's rows (capture time): a turn wait is a gap of at
//! least one path RTT between two of the sender's data segments in which the peer sent
//! payload (its next message). The wait is the peer's message arriving when the
//! peer's payload inside it spans at least one path RTT (two flights at least: the
//! second could only leave once the first was acknowledged). The message is that
//! payload and the peer's payload just before the wait back to the sender's previous
//! full-sized segment (a sender's short preamble inside the upload, an HTTP/2
//! SETTINGS frame, does not end it) or to a pause of more than two round trips.
//! Its flights are its runs of segments less than half a round trip apart; they must
//! be what a window releases: each but the last holds a full-sized segment of the peer
//! (it had more to send) and comes at most two round trips before the next (a person
//! typing into an SSH session sends one small segment at a time, at their own pace:
//! no message in flight). Said only when every turn wait so found was such a message.

use super::*;
use crate::analysis::format::plural;
use crate::analysis::rows::columns::flag_bits;
use crate::analysis::stalls::{is_data_segment, mss_estimate};

/// The peer's messages that took round trips to arrive, in the turn waits.
pub(super) struct LongMessages {
    /// The turn waits they filled: count and seconds in all.
    pub count: usize,
    pub waited: f64,
    /// The largest message: bytes, segments per flight, and the time from its last
    /// segment to the sender's answer, s.
    pub bytes: f64,
    pub flights: Vec<u32>,
    pub answer_after: f64,
    /// Every flight of it under half the window the sender advertised meanwhile: the
    /// peer's own (congestion) window held it, not the receiver's.
    pub own_window: bool,
}

impl LongMessages {
    /// From the data direction's rows; None unless every turn wait was one.
    pub fn of(f: &Facts) -> Option<LongMessages> {
        let rtt = f.min_rtt;
        if !(rtt > 0.0) || f.sh.turns == 0 {
            return None;
        }
        let p = f.rows.packets;
        let d = f.conn.data_direction.min(1);
        let (full, peer_full) = (mss_estimate(p, d), mss_estimate(p, 1 - d));
        let end = f.sh.ends_at().unwrap_or(f64::INFINITY);
        let peer_data = |i: usize| p.dir[i] != d && p.len[i] > 0 && p.flags[i] & flag_bits::KEEP_ALIVE == 0;
        // (sender's data before the wait, after it, the message's first and last rows, its flights)
        let (mut waits, mut found, mut last) = (0usize, Vec::new(), None::<usize>);
        for i in (0..p.t.len()).take_while(|&i| p.t[i] <= end) {
            if !is_data_segment(p, i, d) {
                continue;
            }
            if let Some(a) = last.filter(|&a| p.t[i] - p.t[a] >= rtt) {
                let inside: Vec<usize> = (a + 1..i).filter(|&r| peer_data(r)).collect();
                if let (Some(&first), Some(&lastp)) = (inside.first(), inside.last()) {
                    waits += 1;
                    let s = message_start(p, d, a, full, rtt, &peer_data).unwrap_or(first);
                    let flights = (p.t[lastp] - p.t[first] >= rtt).then(|| flights_of(p, (s, lastp), rtt, peer_full, &peer_data)).flatten();
                    found.extend(flights.map(|fl| (a, i, s, lastp, fl)));
                }
            }
            last = Some(i);
        }
        if found.is_empty() || found.len() != waits {
            return None;
        }
        let waited = found.iter().map(|m| p.t[m.1] - p.t[m.0]).sum();
        let bytes_of = |fl: &[(u32, f64)]| fl.iter().map(|x| x.1).sum::<f64>();
        let (_, b, s, e, flights) = found.iter().max_by(|x, y| bytes_of(&x.4).total_cmp(&bytes_of(&y.4)))?;
        // The smallest window the sender advertised while the message came (none known: ∞).
        let window = (*s..=*e).filter(|&r| p.dir[r] == d && p.win[r].is_finite()).map(|r| p.win[r]).fold(f64::INFINITY, f64::min);
        let own_window = window.is_finite() && flights.iter().all(|fl| fl.1 <= 0.5 * window);
        Some(LongMessages { count: found.len(), waited, bytes: bytes_of(flights), flights: flights.iter().map(|fl| fl.0).collect(), answer_after: p.t[*b] - p.t[*e], own_window })
    }

    /// The headline's lead, in place of "Request/response turns set the pace: …".
    pub fn lead(&self, f: &Facts) -> String {
        let d = f.conn.data_direction.min(1) as usize;
        let (sender, peer) = (&f.conn.directions[d].from, &f.conn.directions[1 - d].from);
        let flights = list(&self.flights.iter().map(|n| n.to_string()).collect::<Vec<_>>());
        let which = if self.count == 1 { format!("for {peer}'s {} message", format_bytes(self.bytes)) } else { format!("for {} messages of {peer}, the largest {}", self.count, format_bytes(self.bytes)) };
        format!(
            "The peer's message{} set the pace: {sender} waited {} ({} of the time) {which}, which took {} to arrive (flights of {flights} segments, one round trip apart{}), and answered {} after its last segment",
            if self.count == 1 { "" } else { "s" },
            format_duration(self.waited),
            format_percent(f.shares.turns),
            plural(self.flights.len() as u64, "round trip"),
            if self.own_window { format!(", each under half {sender}'s window: {peer}'s congestion window, RFC 5681") } else { String::new() },
            format_duration(self.answer_after)
        )
    }

    /// What would make it faster: the round trip, or a peer's window that starts
    /// larger where its flights grew (slow start); with one message, nothing to batch.
    pub fn remedy(&self, f: &Facts) -> String {
        let d = f.conn.data_direction.min(1) as usize;
        let grew = self.own_window && self.flights.len() > 2 && self.flights[1] > self.flights[0];
        let window = if grew { format!(" or a larger initial window at {} (RFC 6928)", f.conn.directions[1 - d].from) } else { String::new() };
        let batch = if self.count == 1 { "; with one message there was nothing to batch" } else { "" };
        format!("a shorter round trip{window} would make it faster, a faster link would not{batch}")
    }
}

/// (segments, bytes) of each flight of the peer's message in rows `s..=e`; None unless
/// they are what a window releases (module docs): at least two, each but the last with
/// a segment of `peer_full` bytes, none more than two round trips after the one before.
fn flights_of(p: &PacketColumns, (s, e): (usize, usize), rtt: f64, peer_full: f64, peer_data: &dyn Fn(usize) -> bool) -> Option<Vec<(u32, f64)>> {
    let mut flights: Vec<(u32, f64, bool)> = Vec::new();
    let mut prev: Option<f64> = None;
    for r in (s..=e).filter(|&r| peer_data(r)) {
        let (len, full_sized) = (f64::from(p.len[r]), f64::from(p.len[r]) >= peer_full);
        match (prev, flights.last_mut()) {
            (Some(t), Some(n)) if p.t[r] - t < 0.5 * rtt => *n = (n.0 + 1, n.1 + len, n.2 || full_sized),
            (Some(t), _) if p.t[r] - t > 2.0 * rtt => return None,
            _ => flights.push((1, len, full_sized)),
        }
        prev = Some(p.t[r]);
    }
    let k = flights.len();
    (k >= 2 && flights[..k - 1].iter().all(|fl| fl.2)).then(|| flights.iter().map(|fl| (fl.0, fl.1)).collect())
}

/// The first row of the peer's message that a turn wait after the sender's data
/// segment `a` ends: back over the peer's payload to the sender's previous full-sized
/// data segment, or to a pause of the peer's of more than two round trips.
fn message_start(p: &PacketColumns, d: u8, a: usize, full: f64, rtt: f64, peer_data: &dyn Fn(usize) -> bool) -> Option<usize> {
    let mut start = None::<usize>;
    for r in (0..a).rev() {
        if is_data_segment(p, r, d) && f64::from(p.len[r]) >= full {
            break;
        }
        if peer_data(r) {
            if start.is_some_and(|s| p.t[s] - p.t[r] > 2.0 * rtt) {
                break;
            }
            start = Some(r);
        }
    }
    // The first peer segment after `a` when none came before it.
    start.or_else(|| (a + 1..p.t.len()).find(|&r| peer_data(r)))
}

/// "3", "3 and 7", "3, 7 and 5".
fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
