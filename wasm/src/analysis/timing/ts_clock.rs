//! A standing queue upstream of the capture, told by the sender's TCP timestamps
//! (docs/ANALYSIS.md "Upstream queue"; issue 39 items 5 and 8).
//!
//! A sender stamps each segment with its TS clock when it sends it (RFC 7323 §3). The
//! capture stamps it when it passes. Their difference, capture time − TSval × tick, is
//! the segment's one-way delay from the sender to the capture point plus a constant
//! (the clocks' offset): its growth is the time the segment waited in queues on the
//! way, whatever the vantage (at the sender's own host, its queue below TCP; anywhere
//! else, the path's too). The delay is known only once the tick is known, in capture
//! seconds: RFC 7323 §5.4 lets it be anything from 1 ms to 1 s, and a queue that grows
//! steadily looks, over the whole capture, like a slower clock. So the tick is measured
//! where the clocks agree: on the least-delayed segments, the lower convex hull of
//! (TSval, capture time), whose edges join segments that no other segment undercuts.
//! An edge of that hull at least [`MIN_EDGE_S`] long whose rate lies within
//! [`NOMINAL_TOLERANCE`] of a clock rate stacks run ([`NOMINAL_TICKS_S`]) says: at both
//! its ends the queue was at its least, and the clock ran at that rate; a queue growing
//! or draining would have tilted the edge off every nominal rate. Without such an edge
//! (clocks that disagree, a queue that never emptied, too few samples) nothing is said.
//!
//! The delay is then read per bin of capture time ([`BIN_NS`], doubled when
//! [`MAX_BINS`] fill): the bin's start against the furthest TSval that reached the
//! capture in it, a lower bound of the least delay of the bin's segments (within one
//! bin). The standing queue is the largest, over windows of [`window_s`], of the least
//! delay above the base within the window (CoDel's standing queue, RFC 8289 §4.2: the
//! minimum sojourn over an interval of about a round trip; a burst that drains within
//! the window is not standing). Claimed only when at least [`QUEUE_RTT_RATIO`] × the
//! path's round trip and [`RESOLUTION_RATIO`] × the clock's resolution (its tick × its
//! granularity, below [`RESOLUTION_MAX_S`]: a 10-ms clock says nothing of a queue).

/// Width of the delay bins, ns (doubled when [`MAX_BINS`] are full).
const BIN_NS: i64 = 10_000_000;
/// Bins kept per direction (12 B each): 768 KiB at most.
const MAX_BINS: usize = 1 << 16;
/// Shortest hull chord that can measure the tick, s of capture time, and its fewest
/// ticks; and at least [`SLACKS_PER_CHORD`] × its slack (`slack_s`), so that the TSvals'
/// rounding moves its rate by no more than 1 % (a 4-ms clock: 0.9 s).
pub const MIN_EDGE_S: f64 = 0.5;
const SLACKS_PER_CHORD: f64 = 100.0;
const MIN_EDGE_TICKS: u32 = 20;
/// Tick rates stacks run, s (RFC 7323 §5.4 allows 1 ms–1 s; Linux 1 ms since 4.13 and
/// 1/HZ before it — 1, 4, 10 ms —, the BSDs, macOS and Windows 1 ms, some stacks 1 µs,
/// old BSDs 500 ms). Linux at HZ = 300 (3.33 ms) is left out: a rarity that lies 17 %
/// from 4 ms, where a 4-ms clock's chord across a queue that drained lands by accident
/// (a chord from a segment queued 0.16 s to the re-send after a timeout 0.82 s later
/// measured 3.337 ms on a server whose other connections ran at 4.000 ms).
pub const NOMINAL_TICKS_S: [f64; 7] = [1e-6, 1e-3, 4e-3, 1e-2, 0.1, 0.5, 1.0];
/// How far a measured rate may lie from its nominal one: the clock's skew
/// ([`SKEW_MAX`]: a crystal's is tens of ppm, a virtual machine's a few hundred) plus
/// the chord's own error (twice its slack over its span), at most this.
pub const NOMINAL_TOLERANCE: f64 = 0.01;
pub const SKEW_MAX: f64 = 0.001;
/// A standing queue is named when at least this many times the path's round trip.
pub const QUEUE_RTT_RATIO: f64 = 3.0;
/// ... and this many times the clock's resolution, which must be finer than [`RESOLUTION_MAX_S`].
const RESOLUTION_RATIO: f64 = 20.0;
pub const RESOLUTION_MAX_S: f64 = 0.005;

/// The queue found ([`OneWayDelay::finish`]): its delay and where it was measured.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UpstreamQueue {
    /// The standing queue, s: the least delay above the base over the window from `at`.
    pub seconds: f64,
    /// Capture time the window with the largest standing queue began, s.
    pub at: f64,
    /// Capture time of the least-delayed segment the tick was measured from, s, and the
    /// span of that measurement, s.
    pub base_at: f64,
    pub agreed_s: f64,
    /// The sender's clock tick measured, s.
    pub tick_s: f64,
}

/// The sender's TSvals against the capture's time (kept in `SenderClock`).
#[derive(Debug, Default)]
pub(crate) struct OneWayDelay {
    /// Lower hull of (TSval ticks since the first, capture ns), ticks strictly rising.
    hull: Vec<(u32, i64)>,
    /// (bin start ns, furthest TSval ticks captured in the bin).
    bins: Vec<(i64, u32)>,
    bin_ns: i64,
    first: Option<u32>,
}

impl OneWayDelay {
    /// A segment with `tsval` captured at `t_ns` (forward-moving TSvals only: a TSval
    /// behind the furthest is a reordered or re-sent copy, never on the lower hull).
    pub fn on_segment(&mut self, t_ns: i64, tsval: u32) {
        let Some(x) = self.on_hull_point(t_ns, tsval) else { return };
        if self.bin_ns == 0 {
            self.bin_ns = BIN_NS;
        }
        let start = t_ns - t_ns.rem_euclid(self.bin_ns);
        match self.bins.last_mut() {
            Some(last) if last.0 == start => last.1 = last.1.max(x),
            Some(last) if last.0 > start => {} // out of capture order: kept in its bin's bound
            _ => {
                if self.bins.len() == MAX_BINS {
                    self.bin_ns *= 2;
                    let merged: Vec<(i64, u32)> = self.bins.chunks(2).map(|c| (c[0].0 - c[0].0.rem_euclid(self.bin_ns), c.iter().map(|b| b.1).max().unwrap_or(0))).collect();
                    self.bins = merged;
                    self.bins.dedup_by(|b, a| a.0 == b.0 && { a.1 = a.1.max(b.1); true });
                }
                crate::lean::push(&mut self.bins, (t_ns - t_ns.rem_euclid(self.bin_ns), x));
            }
        }
    }

    /// The lower hull alone (no delay bins): `tick_s` only (peer_silences.rs). Returns
    /// the TSval's ticks since the first, None for one behind it.
    pub fn on_hull_point(&mut self, t_ns: i64, tsval: u32) -> Option<u32> {
        let first = *self.first.get_or_insert(tsval);
        let x = tsval.wrapping_sub(first);
        if (x as i32) < 0 {
            return None;
        }
        if self.hull.last().is_none_or(|&(lx, _)| x > lx) {
            while let [.., a, b] = self.hull[..] {
                // b is above the segment from a to the new point: off the lower hull.
                let cross = (b.1 - a.1) as i128 * i128::from(x - a.0) - (t_ns - a.1) as i128 * i128::from(b.0 - a.0);
                if cross >= 0 { self.hull.pop(); } else { break; }
            }
            crate::lean::push(&mut self.hull, (x, t_ns));
        }
        Some(x)
    }

    /// The tick measured on the least-delayed segments (`tick`), s.
    pub fn tick_s(&self, granularity: u32) -> Option<f64> {
        self.tick(granularity).map(|t| t.0)
    }

    /// The tick measured on the least-delayed segments: the longest chord between two
    /// lower-hull vertices at least [`MIN_EDGE_S`] and [`MIN_EDGE_TICKS`] apart whose rate
    /// is within [`NOMINAL_TOLERANCE`] of a nominal one and under which no hull vertex
    /// between them lies more than `slack_s` (the TSvals' rounding: a segment sent late in
    /// its tick looks less delayed); (tick s, chord start and end (ticks, ns)).
    fn tick(&self, granularity: u32) -> Option<(f64, (u32, i64), (u32, i64))> {
        // Hulls of quantized TSvals hold few vertices; a long one is thinned (its chords
        // are then checked against the kept vertices only).
        let step = self.hull.len().div_ceil(MAX_HULL).max(1);
        let h: Vec<(u32, i64)> = self.hull.iter().step_by(step).copied().collect();
        let mut best: Option<(f64, (u32, i64), (u32, i64))> = None;
        for (i, &a) in h.iter().enumerate() {
            for (j, &b) in h.iter().enumerate().skip(i + 1) {
                let (dx, dt) = (b.0 - a.0, (b.1 - a.1) as f64 / 1e9);
                if dx < MIN_EDGE_TICKS || dt < MIN_EDGE_S || best.is_some_and(|(_, p, q)| (q.1 - p.1) as f64 / 1e9 >= dt) {
                    continue;
                }
                let rate = dt / f64::from(dx);
                let slack = slack_s(rate, granularity);
                // A clock whose rate wanders (a phone's TSval drifting 1.3 % then 0.4 %
                // against the capture, pure ACKs alike: no queue) is no nominal clock.
                let tolerance = (SKEW_MAX + 2.0 * slack / dt).min(NOMINAL_TOLERANCE);
                if dt < SLACKS_PER_CHORD * slack || !NOMINAL_TICKS_S.iter().any(|n| (rate / n - 1.0).abs() <= tolerance) {
                    continue;
                }
                let under = |&(x, t): &(u32, i64)| (a.1 as f64 + f64::from(x - a.0) * rate * 1e9 - t as f64) / 1e9;
                if h[i + 1..j].iter().all(|v| under(v) <= slack) {
                    best = Some((rate, a, b));
                }
            }
        }
        best
    }

    /// The standing queue, when at least [`QUEUE_RTT_RATIO`] × `rtt_s` (the path's round
    /// trip) and [`RESOLUTION_RATIO`] × the clock's resolution (`granularity` ticks).
    pub fn finish(&self, rtt_s: f64, granularity: u32) -> Option<UpstreamQueue> {
        let (tick_s, (x0, t0), (_, t1)) = self.tick(granularity)?;
        let resolution = tick_s * f64::from(granularity.max(1));
        if !(rtt_s > 0.0) || resolution > RESOLUTION_MAX_S {
            return None;
        }
        // Delay on the chord's clock, s (a lower bound per bin); the base is the least of
        // any hull vertex (the least-delayed segment of the capture).
        let at_rate = |t: i64, x: u32| (t - t0) as f64 / 1e9 - (f64::from(x) - f64::from(x0)) * tick_s;
        let base = self.hull.iter().map(|&(x, t)| at_rate(t, x)).fold(f64::INFINITY, f64::min);
        // The chord's rate is known to `slack` over its span: away from it, the error
        // grows by that much per span.
        let (slack, span) = (slack_s(tick_s, granularity), (t1 - t0) as f64);
        let error = |t: i64| slack * (1.0 + (t0 - t).max(t - t1).max(0) as f64 / span);
        let window = window_s(rtt_s);
        let bin_s = self.bin_ns as f64 / 1e9;
        let mut best: Option<(f64, f64)> = None;
        for (i, b) in self.bins.iter().enumerate() {
            let end = b.0 as f64 / 1e9 + window;
            let within = self.bins[i..].iter().take_while(|c| (c.0 as f64 / 1e9) < end);
            let (least, last) = within.fold((f64::INFINITY, b.0), |(m, _), c| (m.min(at_rate(c.0, c.1) - base - error(c.0)), c.0));
            // The window must hold data to its end (within two bins): a silence is no queue.
            if (last as f64 / 1e9) + 2.0 * bin_s >= end && best.is_none_or(|(q, _)| least > q) {
                best = Some((least, b.0 as f64 / 1e9));
            }
        }
        let (seconds, at) = best?;
        let floor = (QUEUE_RTT_RATIO * rtt_s).max(RESOLUTION_RATIO * resolution).max(2.0 * bin_s);
        (seconds >= floor).then_some(UpstreamQueue { seconds, at, base_at: t0 as f64 / 1e9, agreed_s: span / 1e9, tick_s })
    }
}

/// How far below a chord a least-delayed segment may lie, s: two granules of the clock
/// (a TSval is the tick it was sent in: up to one granule early, either end) and 1 ms of
/// the capture's own timestamping.
fn slack_s(tick_s: f64, granularity: u32) -> f64 {
    2.0 * tick_s * f64::from(granularity.max(1)) + 1e-3
}

/// Hull vertices weighed for the tick (thinned beyond).
const MAX_HULL: usize = 256;

/// The window a queue must last to be standing, s: two path round trips, at least
/// 100 ms (RFC 8289 §4.2: an interval of about a worst-case round trip, 100 ms).
pub fn window_s(rtt_s: f64) -> f64 {
    (2.0 * rtt_s).max(0.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 kHz sender clock, one segment every 10 ms for `secs` s; `queue(t)`: the
    /// queue delay at sending time t (s), added to the one-way delay of 20 ms.
    fn run(secs: f64, tick_s: f64, queue: impl Fn(f64) -> f64) -> OneWayDelay {
        let mut d = OneWayDelay::default();
        let n = (secs / 0.01) as u32;
        for k in 0..n {
            let sent = f64::from(k) * 0.01;
            let tsval = 1_000_000 + (sent / tick_s) as u32;
            d.on_segment(((1.0 + sent + 0.020 + queue(sent)) * 1e9) as i64, tsval);
        }
        d
    }

    #[test]
    fn a_queue_that_grows_to_1_5_s_behind_a_flat_first_2_s_is_standing() {
        // No queue for 2 s (the least-delayed segments: the chord 1.00 ms a tick over
        // 2 s, from 1.02 s), then a queue growing 0.4 s a second for 4 s. The last
        // segment (sent at 5.99 s, queue 1.596 s) arrives at 8.606 s; the last full window
        // of 2 × 0.1-s RTT = 0.2 s starts in the bin at 8.41 s, whose segments were sent
        // from 5.85 s (queue 1.54 s). Less the bin (its start against its furthest
        // TSval: ≤ 10 ms) and the chord's uncertainty away from its span (3 ms of slack,
        // 2 granules + 1 ms, times 1 + (8.41 − 3.02) / 2): 1.53 s.
        let d = run(6.0, 1e-3, |t| if t < 2.0 { 0.0 } else { 0.4 * (t - 2.0) });
        let q = d.finish(0.1, 1).expect("a queue");
        assert!((q.tick_s - 1e-3).abs() < 1e-5, "{q:?}");
        assert!((q.agreed_s - 2.0).abs() < 0.02 && (q.base_at - 1.02).abs() < 0.01, "{q:?}");
        assert!((q.seconds - 1.53).abs() < 0.01, "{q:?}");
        assert!((q.at - 8.41).abs() < 0.01, "{q:?}");
        // The same queue against a 0.6-s round trip: 1.52 s < 3 × 0.6 s, nothing said.
        assert_eq!(d.finish(0.6, 1), None);
    }

    #[test]
    fn a_clock_that_never_agrees_with_the_capture_says_nothing() {
        // The queue grows from the first segment on: every hull edge is tilted (1.4 ms of
        // capture time a tick), none near a nominal rate, so the clock cannot be mapped.
        let d = run(6.0, 1e-3, |t| 0.4 * t);
        assert_eq!(d.finish(0.1, 1), None);
        // A 1.4-ms clock with no queue: the same, though no queue was there either.
        let d = run(6.0, 1.4e-3, |_| 0.0);
        assert_eq!(d.finish(0.1, 1), None);
    }

    #[test]
    fn a_10_ms_clock_is_too_coarse_to_claim_a_queue() {
        // The growing queue of the first test on a 100 Hz clock: its tick is measured
        // (10 ms), but a resolution of 10 ms is above RESOLUTION_MAX_S: nothing.
        let d = run(6.0, 1e-2, |t| if t < 2.0 { 0.0 } else { 0.4 * (t - 2.0) });
        assert_eq!(d.finish(0.1, 1), None);
        // A 1 ms clock read every 10 ms (granularity 10 ticks): likewise.
        let d = run(6.0, 1e-3, |t| if t < 2.0 { 0.0 } else { 0.4 * (t - 2.0) });
        assert_eq!(d.finish(0.1, 10), None);
    }

    #[test]
    fn a_peak_that_drains_within_the_window_is_not_standing() {
        // After 2 s without a queue, one that grows 0.5 s a second to 1 s, then drains at
        // 0.9 s a second (FIFO: the drained segments arrive bunched, 0.1 s of capture time
        // a second of sending). Over a window of 0.2 s (RTT 0.1 s) the least delay near the
        // peak is 1 − 0.5 u with 1.5 u + 0.1 × 0.56 u = 0.2 (u the rising part's sending
        // time, the falling one's 0.5 u / 0.9): 0.94 s. Over 0.6 s (RTT 0.3 s) the same
        // sum gives 0.81 s, below 3 × 0.3 s: a peak, not a standing queue worth naming.
        let q = |t: f64| if t < 2.0 { 0.0 } else if t < 4.0 { 0.5 * (t - 2.0) } else { (1.0 - 0.9 * (t - 4.0)).max(0.0) };
        let d = run(7.0, 1e-3, q);
        assert!(d.finish(0.1, 1).is_some_and(|q| (q.seconds - 0.94).abs() < 0.03), "{:?}", d.finish(0.1, 1));
        assert_eq!(d.finish(0.3, 1), None);
    }
}
