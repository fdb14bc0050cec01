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

/// A sustained queue this long (ms) is a direction that queued; below it, a packet or
/// two at a fast bottleneck, scheduling and interrupt coalescing in the hosts.
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

/// Windows a direction's span is cut into for its sustained queue (`sustained_queue`).
const QUEUE_WINDOWS: usize = 20;
/// Datagrams a window needs before its fastest one is taken to sample the floor: the
/// fastest of fewer is the one datagram that happened to be there.
const QUEUE_WINDOW_MIN: usize = 5;
/// Windows that must hold `QUEUE_WINDOW_MIN` datagrams for a queue to be told: a
/// sustained rise is one seen across the span (as the drift's support, clock.rs).
const QUEUE_SUPPORT: usize = 15;

/// The queue a direction held, sustained (ms): the median over `QUEUE_WINDOWS` windows
/// of its send times of each window's fastest delay above the direction's floor. A
/// standing queue (bufferbloat: RFC 8290 §1, RFC 7567 §2) raises every window's fastest
/// datagram; a burst that drains within a window, or a few late datagrams (a delayed
/// ACK, a scheduler hiccup at a capture), do not, whereas they alone set a p95 of a few
/// dozen samples. `None` without `QUEUE_SUPPORT` windows of `QUEUE_WINDOW_MIN`
/// datagrams: too few samples to tell.
pub fn sustained_queue(samples: &[(f64, f64)]) -> Option<f64> {
    let (lo, hi) = samples.iter().fold((f64::MAX, f64::MIN), |(l, h), q| (l.min(q.0), h.max(q.0)));
    let floor = samples.iter().map(|q| q.1).fold(f64::MAX, f64::min);
    if samples.len() < QUEUE_WINDOWS * QUEUE_WINDOW_MIN || hi <= lo {
        return None;
    }
    let width = (hi - lo) / QUEUE_WINDOWS as f64;
    let mut windows = [(0usize, f64::MAX); QUEUE_WINDOWS];
    for &(t, d) in samples {
        let w = &mut windows[(((t - lo) / width) as usize).min(QUEUE_WINDOWS - 1)];
        *w = (w.0 + 1, w.1.min(d));
    }
    let mut rise: Vec<f64> = windows.iter().filter(|w| w.0 >= QUEUE_WINDOW_MIN).map(|w| (w.1 - floor) / 1e6).collect();
    if rise.len() < QUEUE_SUPPORT {
        return None;
    }
    rise.sort_by(f64::total_cmp);
    percentile(&rise, 0.5)
}

/// Which direction queued, from each direction's sustained queue (ms,
/// `sustained_queue`): a direction queued when it is at least `QUEUE_MIN_MS` and at
/// least twice the other's; `too-few-samples` when either direction cannot tell.
pub fn queued_direction(sustained: [Option<f64>; 2]) -> &'static str {
    let [Some(f), Some(r)] = sustained else { return "too-few-samples" };
    let (fq, rq) = (f >= QUEUE_MIN_MS, r >= QUEUE_MIN_MS);
    match (fq && f >= 2.0 * r, rq && r >= 2.0 * f) {
        (true, _) => "forward",
        (_, true) => "return",
        _ if fq && rq => "both",
        _ => "neither",
    }
}
