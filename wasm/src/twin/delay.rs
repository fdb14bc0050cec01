//! One-way delay per direction (docs/ANALYSIS.md `twin.delay`, `twin.queue`,
//! `twin.queued`): each delivered datagram's arrival at the far capture minus its
//! departure at the near one, both on the merged axis (the receiver side's time moved
//! by the offset and drift, clock.rs). Its floor is the path's fixed delay (propagation,
//! serialisation); what rises above it is time spent in a queue on the way. The floor
//! itself is known only to the clock's uncertainty; the rise above it is not (both
//! directions' floors move together with the offset), so the queue is told apart on
//! the way up and on the way down even when the clocks are not.

use super::report::{DelayBin, DelayStats};
use super::MAX_DELAY_BINS;

/// A queue this long at the 95th percentile (ms) is a direction that queued; below it,
/// scheduling and interrupt coalescing in the hosts.
pub const QUEUE_MIN_MS: f64 = 1.0;

/// Percentile of sorted values, linear between closest ranks (as summary.rs).
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let pos = p * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64))
}

/// Min, median, p95 and max of the delays (ns in, ms out), and the queue above the
/// floor (median, p95), ms.
pub fn stats(samples: &[(f64, f64)]) -> (Option<DelayStats>, Option<f64>, Option<f64>) {
    let mut v: Vec<f64> = samples.iter().map(|q| q.1 / 1e6).collect();
    v.sort_by(f64::total_cmp);
    let Some(&min) = v.first() else { return (None, None, None) };
    let q = |p| percentile(&v, p).unwrap_or(min);
    let s = DelayStats { min_ms: min, median_ms: q(0.5), p95_ms: q(0.95), max_ms: v[v.len() - 1] };
    (Some(s), Some(s.median_ms - min), Some(s.p95_ms - min))
}

/// The delays binned over the send times: at most `MAX_DELAY_BINS` bins of equal width
/// (s on the merged axis), each with its smallest and largest delay.
pub fn series(samples: &[(f64, f64)]) -> Vec<DelayBin> {
    let (lo, hi) = samples.iter().fold((f64::MAX, f64::MIN), |(l, h), q| (l.min(q.0), h.max(q.0)));
    if samples.is_empty() {
        return Vec::new();
    }
    let width = ((hi - lo) / MAX_DELAY_BINS as f64).max(1e6);
    let mut bins: Vec<Option<DelayBin>> = vec![None; MAX_DELAY_BINS];
    for &(t, d) in samples {
        let k = (((t - lo) / width) as usize).min(MAX_DELAY_BINS - 1);
        let ms = d / 1e6;
        let b = bins[k].get_or_insert(DelayBin { t: (lo + k as f64 * width) / 1e9, width: width / 1e9, min_ms: ms, max_ms: ms, count: 0 });
        b.min_ms = b.min_ms.min(ms);
        b.max_ms = b.max_ms.max(ms);
        b.count += 1;
    }
    bins.into_iter().flatten().collect()
}

/// Which direction queued, from each direction's p95 above its floor (ms): a direction
/// queued when that is at least `QUEUE_MIN_MS` and at least twice the other's.
pub fn queued_direction(p95: [Option<f64>; 2]) -> &'static str {
    let [f, r] = p95.map(|x| x.unwrap_or(0.0));
    let (fq, rq) = (f >= QUEUE_MIN_MS, r >= QUEUE_MIN_MS);
    match (fq && f >= 2.0 * r, rq && r >= 2.0 * f) {
        (true, _) => "forward",
        (_, true) => "return",
        _ if fq && rq => "both",
        _ => "neither",
    }
}
