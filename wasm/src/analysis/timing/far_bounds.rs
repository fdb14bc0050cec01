//! The far part of the round trip, bounded from below by the data sender's timestamp
//! echoes (docs/ANALYSIS.md "Stall causes", rule 10).
//!
//! The sender echoes in each segment's TSecr the TSval of the latest segment of the
//! receiver it accepted (RFC 7323 §4.3: TS.Recent, which takes a segment's TSval when
//! it is at least TS.Recent and the segment starts at or below Last.ACK.sent, the last
//! ACK the sender sent; Linux `tcp_replace_ts_recent`). So when a data segment D
//! echoes X while the receiver had already sent a segment with a newer TSval Y, one the
//! sender would have echoed once it had it, the sender sent D before Y reached it. At a
//! capture point that saw Y leave at t_Y and D arrive at t_D:
//!
//!   t_D − t_Y = (D's send − t_Y) + D's trip back < Y's trip to the sender + D's trip back,
//!
//! the far part of the round trip (capture → sender → capture) of that moment. A lower
//! bound, then, and the path's alone: no time of the sender's application is in it
//! (the sender had not yet got Y when it sent D). Unlike a timestamp RTT sample (rtt.rs),
//! which an application pause lengthens, it never blames the path for the application.
//!
//! Y is the receiver's first TSval after X (its first segment carrying it), among its
//! segments the sender would echo (at or below the last ACK the capture saw the sender
//! send, which is at most the sender's Last.ACK.sent when Y arrived). A Y lost on the way
//! makes the bound the time until a later one arrived: the path's time too.

use std::collections::VecDeque;

/// The receiver's TSvals remembered at most (12 B each): when full the oldest go, and
/// the successor of an echo is then a later TSval, which only makes the bound smaller.
pub const MAX_PENDING: usize = 4096;
/// Bounds kept per direction (16 B each), one per echoed TSval: 1 MiB at most.
pub const MAX_BOUNDS: usize = 1 << 16;

/// One data direction's bounds (in its `SenderClock`).
#[derive(Debug, Default)]
pub(crate) struct FarBounds {
    /// The receiver's echoable TSvals, increasing, with the capture time of the first
    /// segment that carried each.
    pending: VecDeque<(u32, i64)>,
    /// (capture time of D, bound) ns, one per echoed TSval: the latest D echoing it,
    /// whose bound is the largest (same Y, later D).
    bounds: Vec<(i64, i64)>,
    /// The TSval the last bound was for.
    last_echo: Option<u32>,
}

impl FarBounds {
    /// A segment of the receiver's with `tsval` at `t_ns`; `echoable`: it starts at or
    /// below the last ACK the sender was seen to send (RFC 7323 §4.3).
    pub fn on_receiver_tsval(&mut self, tsval: u32, t_ns: i64, echoable: bool) {
        if !echoable || self.pending.back().is_some_and(|&(v, _)| (tsval.wrapping_sub(v) as i32) <= 0) {
            return;
        }
        if self.pending.len() == MAX_PENDING {
            self.pending.pop_front();
        }
        self.pending.push_back((tsval, t_ns));
    }

    /// A segment of new data of the sender's at `t_ns` echoing `tsecr` (one of the
    /// receiver's TSvals: the caller checks). Returns the bound it gives, ns, if any.
    pub fn on_data(&mut self, tsecr: u32, t_ns: i64) -> Option<i64> {
        // Echoes only grow (TS.Recent does): the TSvals at or below this one are done.
        while self.pending.front().is_some_and(|&(v, _)| (v.wrapping_sub(tsecr) as i32) <= 0) {
            self.pending.pop_front();
        }
        let &(_, t_y) = self.pending.front().filter(|&&(_, t)| t < t_ns)?;
        let bound = t_ns - t_y;
        if self.last_echo == Some(tsecr) && !self.bounds.is_empty() {
            let n = self.bounds.len();
            self.bounds[n - 1] = (t_ns, bound);
        } else if self.bounds.len() < MAX_BOUNDS {
            self.bounds.push((t_ns, bound));
        }
        self.last_echo = Some(tsecr);
        Some(bound)
    }

    /// The bounds, (capture time of D, bound) in seconds, in capture order.
    pub fn finish(self) -> Vec<(f64, f64)> {
        self.bounds.into_iter().map(|(t, b)| (t as f64 / 1e9, b as f64 / 1e9)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_older_than_what_the_receiver_sent_bounds_the_far_part() {
        // The receiver's ACKs with TSvals 10 (t = 0), 11 (t = 5 ms, again at 6 ms), 12
        // (t = 9 ms, not echoable: beyond the sender's last ACK). Data at 100 ms echoing
        // 10: the sender did not have 11, sent 95 ms earlier — the far part was ≥ 95 ms.
        // At 101 ms, still echoing 10: ≥ 96 ms (kept instead, same echo). At 102 ms,
        // echoing 11: nothing newer echoable was sent, no bound.
        let ms = 1_000_000;
        let mut f = FarBounds::default();
        f.on_receiver_tsval(10, 0, true);
        f.on_receiver_tsval(11, 5 * ms, true);
        f.on_receiver_tsval(11, 6 * ms, true);
        f.on_receiver_tsval(12, 9 * ms, false);
        assert_eq!(f.on_data(10, 100 * ms), Some(95 * ms));
        assert_eq!(f.on_data(10, 101 * ms), Some(96 * ms));
        assert_eq!(f.on_data(11, 102 * ms), None);
        assert_eq!(f.finish(), vec![(0.101, 0.096)]);
    }
}
