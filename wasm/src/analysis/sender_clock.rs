//! Gaps the path made, told by the sender's own clock (docs/ANALYSIS.md "Stall
//! causes", rule 3a).
//!
//! A sender that offers TCP timestamps stamps each segment with its clock when it
//! sends it (TSval, RFC 7323 §3: "the current value of the timestamp clock"; Linux
//! 1 ms, as most stacks). Past the sender — at the receiver, or a tap downstream —
//! a gap between two data segments of the capture is the sender's gap plus whatever
//! the path added to the second segment's trip. When the TSvals either side of a gap
//! moved far less than the gap, the sender sent the later segment soon after the
//! earlier one and the path held it: a queue, a radio's retries or power save, a
//! stalled forwarder. Read as "everything acknowledged, nothing sent", such a gap
//! would blame the sender's application. `rx-cubic-loss.pcap` at 0.611 s: 80 ms
//! between frames 942 and 944 at the client, 6 ms between their TSvals, the
//! sender's datagram numbers consecutive (nothing unseen): the emulator had stalled.

use super::columns::flag_bits::HELD_ON_PATH;
use super::columns::PacketColumns;
use super::diagnosis_format::{format_duration, format_timestamp};
use super::{Stall, StallCause};

/// Shortest gap recorded: the stall threshold's floor (stalls.rs `default_threshold_s`).
const MIN_GAP_NS: i64 = 10_000_000;
/// Gaps kept per direction (16 B each), a documented cap: 1 MiB at most.
pub const MAX_GAPS: usize = 1 << 16;
/// The clock's rate is measured over at least this span and this many ticks.
const MIN_SPAN_NS: i64 = 100_000_000;
const MIN_TICKS: u32 = 20;
/// The path held a gap when the sender's part of it is less than this share of it
/// (after two ticks of its clock's rounding).
const SENDER_SHARE_MAX: f64 = 0.5;

/// One direction's TSvals on its data segments (kept in `Side`, made at its first
/// data segment with a timestamp).
#[derive(Debug)]
pub(crate) struct SenderClock {
    first: (i64, u32),
    last: (i64, u32),
    /// (row after the gap, TSval advance over it, capture gap ns).
    gaps: Vec<(u32, u32, i64)>,
}

impl SenderClock {
    pub fn new(t_ns: i64, tsval: u32) -> SenderClock {
        SenderClock { first: (t_ns, tsval), last: (t_ns, tsval), gaps: Vec::new() }
    }

    /// A data segment of this direction with `tsval`, captured at `t_ns`, store row `row`.
    pub fn on_data(&mut self, t_ns: i64, tsval: u32, row: Option<u32>) {
        let (t0, v0) = self.last;
        let advance = tsval.wrapping_sub(v0);
        // A TSval behind the last one is a segment reordered on the way (or a clock
        // reset): no gap of the sender's to compare, and the clock goes on.
        let gap_ns = t_ns.saturating_sub(t0);
        // Faster than 1 MHz (RFC 7323 §5.4 bounds the clock at 1 ms to 1 s per tick;
        // some stacks run µs clocks) plus a second of slack: not this clock — a
        // corrupted or foreign TSval, which would shrink the measured tick for the
        // whole direction. Left out, and the clock goes on from the last good one.
        if (advance as i32) < 0 || f64::from(advance) > gap_ns.max(0) as f64 / 1e3 + 1e6 {
            return;
        }
        if let (Some(r), true) = (row, gap_ns >= MIN_GAP_NS && self.gaps.len() < MAX_GAPS) {
            self.gaps.push((r, advance, gap_ns));
        }
        self.last = (t_ns, tsval);
    }

    /// End of capture: the rows after a gap the path made, to mark `HELD_ON_PATH`.
    /// The clock's rate is its TSvals' advance over the capture's span of them.
    pub fn finish(self) -> Vec<(u32, u32)> {
        let (span_ns, ticks) = (self.last.0.saturating_sub(self.first.0), self.last.1.wrapping_sub(self.first.1));
        if span_ns < MIN_SPAN_NS || ticks < MIN_TICKS || (ticks as i32) < 0 {
            return Vec::new();
        }
        let tick_ns = span_ns as f64 / f64::from(ticks);
        if !(1e3..=1e9).contains(&tick_ns) {
            return Vec::new(); // not a clock of 1 µs to 1 s per tick
        }
        self.gaps
            .into_iter()
            .filter(|&(_, advance, gap_ns)| (f64::from(advance) + 2.0) * tick_ns < SENDER_SHARE_MAX * gap_ns as f64)
            .map(|(row, _, _)| (row, HELD_ON_PATH))
            .collect()
    }
}

/// Re-labels the `application-idle` stalls of direction `dir` that the path made
/// (`HELD_ON_PATH` on the segment that ends the gap) as `ack-wait`: in the sender's
/// time it had sent that segment and was waiting on the path, not idle. Past the
/// sender only (`lag_s` > 0: at the sender its own gaps are what it sent).
pub fn reclassify(stalls: &mut [Stall], p: &PacketColumns, lag_s: f64) {
    if !(lag_s > 0.0) {
        return;
    }
    for s in stalls.iter_mut().filter(|s| s.cause == StallCause::ApplicationIdle) {
        let Ok(j) = p.frame.binary_search(&s.frame_after) else { continue };
        if p.flags[j] & HELD_ON_PATH != 0 {
            s.cause = StallCause::AckWait;
            s.ended_by = format!(
                "data at {} that its sender had sent well within the {} gap (its TCP timestamp moved less \
                 than half of it): held on the path — a queue, a radio's retries or power save — while the \
                 sender waited, not an idle sender",
                format_timestamp(p.t[j]),
                format_duration(s.duration)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_the_senders_clock_did_not_see_was_made_on_the_path() {
        // A 1 kHz clock over 1 s of data, one segment per ms (rows 0..1000), then:
        // row 1000 80 ms later with a TSval 6 ms on (held on the path), row 1001
        // 100 ms later with a TSval 100 ms on (the sender waited: not marked).
        let mut c = SenderClock::new(0, 5000);
        for k in 1..1000u32 {
            c.on_data(i64::from(k) * 1_000_000, 5000 + k, Some(k));
        }
        c.on_data(1_079_000_000, 5000 + 999 + 6, Some(1000));
        c.on_data(1_179_000_000, 5000 + 999 + 106, Some(1001));
        assert_eq!(c.finish(), vec![(1000, HELD_ON_PATH)]);
    }

    #[test]
    fn a_short_or_frozen_clock_says_nothing() {
        // 50 ms of data: too short to know the clock's rate.
        let mut c = SenderClock::new(0, 7);
        c.on_data(50_000_000, 57, Some(1));
        assert_eq!(c.finish(), vec![]);
        // A TSval that never moves (a stack that does not run its clock).
        let mut c = SenderClock::new(0, 7);
        c.on_data(500_000_000, 7, Some(1));
        assert_eq!(c.finish(), vec![]);
    }

    #[test]
    fn one_foreign_tsval_does_not_rescale_the_clock() {
        // A 1 kHz clock over 1 s, one TSval corrupted by 2^30 ticks, then a 500 ms
        // gap the sender made (its TSval 500 ms on): not held on the path.
        let mut c = SenderClock::new(0, 5000);
        for k in 1..1000u32 {
            let tsval = if k == 500 { 5000 + k + (1 << 30) } else { 5000 + k };
            c.on_data(i64::from(k) * 1_000_000, tsval, Some(k));
        }
        c.on_data(1_499_000_000, 5000 + 999 + 500, Some(1000));
        assert_eq!(c.finish(), vec![]);
    }
}
