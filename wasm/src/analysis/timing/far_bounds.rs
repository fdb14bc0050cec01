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
//! The bound holds D's own trip, queue included; a silence of the sender's data at the
//! receiver shows the queue on the data's way empty (it would still be delivering), so
//! only the rest of the bound can last into one: the ACK's trip and the data's trip
//! without its queue. D's queue is read from the sender's TSval (its send time): D's
//! one-way delay relative to the least of the direction's data, capture time − TSval ×
//! the clock's tick (the lower convex hull of (TSval, capture time) finds the least at
//! any tick), and taken off the bound (`finish`). An upload behind a 100 ms queue on the
//! way up, captured at the server (`a44y-upload-sndpause-server.pcap`), bounds the far
//! part at 90–106 ms, nearly all the data's queue: the client's 180 ms pauses drained it,
//! and the silences they left are its application's.
//!
//! Y is the receiver's first TSval after X (its first segment carrying it), among its
//! segments the sender would echo (at or below the last ACK the capture saw the sender
//! send, which is at most the sender's Last.ACK.sent when Y arrived). A Y lost on the way
//! makes the bound the time until a later one arrived: the path's time too.

use std::collections::VecDeque;

/// The receiver's TSvals remembered at most (12 B each): when full the oldest go, and
/// the successor of an echo is then a later TSval, which only makes the bound smaller.
pub const MAX_PENDING: usize = 4096;
/// Bounds kept per direction (24 B each), one per echoed TSval: 1.5 MiB at most.
pub const MAX_BOUNDS: usize = 1 << 16;
/// Vertices of the lower hull kept (16 B each); past it no more points are added.
pub const MAX_HULL: usize = 4096;

/// One data direction's bounds (in its `SenderClock`).
#[derive(Debug, Default)]
pub(crate) struct FarBounds {
    /// The receiver's echoable TSvals, increasing, with the capture time of the first
    /// segment that carried each.
    pending: VecDeque<(u32, i64)>,
    /// (capture time of D, bound ns, D's TSval in ticks since the sender's first), one per
    /// echoed TSval: the latest D echoing it, whose bound is the largest (same Y, later D).
    bounds: Vec<(i64, i64, i64)>,
    /// Lower convex hull of the sender's new data as (ticks since its first TSval,
    /// capture time ns): the least one-way delay at any clock rate lies on it.
    hull: Vec<(i64, i64)>,
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
        crate::lean::push_back(&mut self.pending, (tsval, t_ns));
    }

    /// A segment of new data of the sender's at `t_ns`, its TSval `ticks` ticks after the
    /// sender's first, echoing `tsecr` (one of the receiver's TSvals: the caller checks).
    /// Returns the bound it gives, ns, if any.
    pub fn on_data(&mut self, tsecr: u32, t_ns: i64, ticks: i64) -> Option<i64> {
        self.add_to_hull(ticks, t_ns);
        // Echoes only grow (TS.Recent does): the TSvals at or below this one are done.
        while self.pending.front().is_some_and(|&(v, _)| (v.wrapping_sub(tsecr) as i32) <= 0) {
            self.pending.pop_front();
        }
        // A drained queue frees its buffer (the receiver's next echoable TSval
        // allocates again): kept, it stayed for the rest of the capture in every
        // connection (issue 43, as rtt.rs `release_if_drained`).
        if self.pending.is_empty() && self.pending.capacity() > 0 {
            self.pending = VecDeque::new();
        }
        let &(_, t_y) = self.pending.front().filter(|&&(_, t)| t < t_ns)?;
        let bound = t_ns - t_y;
        if self.last_echo == Some(tsecr) && !self.bounds.is_empty() {
            let n = self.bounds.len();
            self.bounds[n - 1] = (t_ns, bound, ticks);
        } else if self.bounds.len() < MAX_BOUNDS {
            crate::lean::push(&mut self.bounds, (t_ns, bound, ticks));
        }
        self.last_echo = Some(tsecr);
        Some(bound)
    }

    /// Monotone-chain step of the lower hull (ticks never go back: the caller skips a
    /// TSval behind the last).
    fn add_to_hull(&mut self, x: i64, t: i64) {
        let h = &mut self.hull;
        if let Some(&(lx, lt)) = h.last() {
            if lx == x {
                if t >= lt {
                    return;
                }
                h.pop();
            }
        }
        while h.len() >= 2 {
            let ((ox, ot), (ax, at)) = (h[h.len() - 2], h[h.len() - 1]);
            let cross = (ax - ox) as f64 * (t - ot) as f64 - (at - ot) as f64 * (x - ox) as f64;
            if cross > 0.0 {
                break;
            }
            h.pop();
        }
        if h.len() < MAX_HULL {
            crate::lean::push(h, (x, t));
        }
    }

    /// The bounds without their data's queue, (capture time of D, bound) in seconds, in
    /// capture order; `tick_ns`: the sender's clock tick (None: unknown, no bound kept).
    /// A bound that is all queue is dropped.
    pub fn finish(self, tick_ns: Option<f64>) -> Vec<(f64, f64)> {
        let Some(tick) = tick_ns else { return Vec::new() };
        let delay = |x: i64, t: i64| t as f64 - x as f64 * tick;
        let least = self.hull.iter().map(|&(x, t)| delay(x, t)).fold(f64::INFINITY, f64::min);
        self.bounds
            .into_iter()
            .map(|(t, b, x)| (t, b as f64 - (delay(x, t) - least).max(0.0)))
            .filter(|&(_, b)| b > 0.0)
            .map(|(t, b)| (t as f64 / 1e9, b / 1e9))
            .collect()
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
        // The sender's TSvals (1 ms ticks) 0, 1, 2: each datum's one-way delay the same
        // (100 ms − 0 ticks, 101 − 1, 102 − 2), no queue to take off.
        assert_eq!(f.on_data(10, 100 * ms, 0), Some(95 * ms));
        assert_eq!(f.on_data(10, 101 * ms, 1), Some(96 * ms));
        assert_eq!(f.on_data(11, 102 * ms, 2), None);
        assert_eq!(f.finish(Some(1e6)), vec![(0.101, 0.096)]);
    }

    #[test]
    fn the_datas_own_queue_is_taken_off_the_bound() {
        // The sender's data at 0..=9 ms with TSvals 0..=9 (1 ms ticks): no queue. Then the
        // receiver's ACKs 20 (t = 10 ms) and 21 (t = 11 ms); data sent at tick 11 arrives at
        // 112 ms echoing 20: 101 ms after ACK 21 left, but its own one-way delay is 101 ms
        // more than the least (112 − 11 against 0 − 0): all of the bound was its queue.
        // Data sent at tick 13 arriving at 53 ms (40 ms of queue) echoing 20 in another
        // flow: 42 ms bound, 2 ms left once its queue is off.
        let ms = 1_000_000;
        let run = |arrive: i64, tick: i64| {
            let mut f = FarBounds::default();
            for k in 0..10 {
                f.on_data(1, k * ms, k);
            }
            f.on_receiver_tsval(20, 10 * ms, true);
            f.on_receiver_tsval(21, 11 * ms, true);
            f.on_data(20, arrive, tick);
            f.finish(Some(1e6))
        };
        assert_eq!(run(112 * ms, 11), vec![]);
        let got = run(53 * ms, 13);
        assert_eq!(got.len(), 1);
        assert!((got[0].1 - 0.002).abs() < 1e-9, "{got:?}");
        // An unknown clock keeps nothing.
        let mut f = FarBounds::default();
        f.on_receiver_tsval(20, 0, true);
        f.on_receiver_tsval(21, ms, true);
        f.on_data(20, 50 * ms, 0);
        assert_eq!(f.finish(None), vec![]);
    }
}
