//! Rate bins on the one grid (DESIGN.md "Throughput"): bin k covers
//! [k·bin, (k+1)·bin) of seconds since the first packet of the file, and a time t
//! falls in bin floor(t / bin) — exactly the rule of the summary's mean/peak
//! (analysis/rates/throughput.rs `Bins::add`), so with the summary's bin the fullest bin
//! here IS the summary's peak. Each bin's bytes come from the running total
//! (sources.rs `CumColumn`) in O(log) per bin: the cost and the allocation depend on
//! the number of bins (≤ 4 × columns, request.rs), never on the packets in view.

use super::request::{BINS_PER_COLUMN, MAX_COLUMNS};
use super::response::Bins;

/// Most bins one answer holds.
const MAX_BINS: u32 = BINS_PER_COLUMN * MAX_COLUMNS;
use super::sources::CumColumn;

/// Bin index of time t: the summary's own rule (analysis/rates/throughput.rs).
pub(crate) use crate::analysis::throughput::{bin_of, rate_bps};

/// First event index ≥ `from` whose bin is ≥ k (events are sorted by time and
/// floor(t / bin) is monotone in t).
fn first_in_bin(c: &CumColumn, from: usize, k: i64, bin: f64) -> usize {
    let t = &c.t;
    let n = t.len();
    let mut lo = from.min(n);
    if lo == n || bin_of(t[lo], bin) >= k {
        return lo;
    }
    let (mut step, mut hi) = (1usize, lo + 1);
    while hi < n && bin_of(t[hi], bin) < k {
        lo = hi;
        step *= 2;
        hi = lo.saturating_add(step).min(n);
    }
    lo + 1 + t[lo + 1..hi].partition_point(|&x| bin_of(x, bin) < k)
}

/// Moving-average width in bins: ≈ 1 s, at least 5 (the first-round chart's rule,
/// web ThroughputChart `averageWindow`). Capped so `k ± half` stays in i64.
pub fn average_bins(bin: f64) -> u32 {
    ((1.0 / bin).round().clamp(5.0, 1e9)) as u32
}

/// The bins overlapping [t0, t1] (floor(t0/bin) ..= floor(t1/bin)).
pub fn bins(c: &CumColumn, t0: f64, t1: f64, bin: f64) -> Bins {
    let (k0, k1) = (bin_of(t0, bin), bin_of(t1, bin));
    // request::bin_seconds keeps this ≤ 4 × columns; the cap makes it a guarantee.
    let k1 = k1.clamp(k0, k0.saturating_add(MAX_BINS as i64 - 1));
    let count = (k1 - k0 + 1) as usize;
    let w = average_bins(bin) as i64;
    let (before, after) = ((w - 1) / 2, w - 1 - (w - 1) / 2);
    let mut out = Bins {
        start: k0 as f64 * bin,
        bytes: Vec::with_capacity(count),
        bps: Vec::with_capacity(count),
        average_bps: Vec::with_capacity(count),
        average_bins: w as u32,
        loading: None,
    };
    if c.t.is_empty() {
        out.bytes.resize(count, 0);
        out.bps.resize(count, 0.0);
        out.average_bps.resize(count, None);
        return out;
    }
    // The series' own first and last bins: the average is clipped to them, as the
    // first-round chart clipped it to the ends of the series.
    let (first_k, last_k) = (bin_of(c.t[0], bin), bin_of(c.t[c.t.len() - 1], bin));
    let mut i = first_in_bin(c, 0, k0, bin);
    // The average's edges only move right as k grows: gallop from where they were.
    let (mut ia, mut ib) = (0usize, 0usize);
    for k in k0..=k1 {
        let j = first_in_bin(c, i, k.saturating_add(1), bin);
        let bytes = c.cum[j] - c.cum[i];
        out.bytes.push(bytes);
        out.bps.push(rate_bps(bytes, bin));
        // Average: bytes of bins [a, b] / ((b − a + 1) · bin), [a, b] = [k − before,
        // k + after] ∩ [first_k, last_k]; two more searches, no per-bin storage.
        let (a, b) = ((k - before).max(first_k), (k + after).min(last_k));
        out.average_bps.push(if a > b {
            None
        } else {
            ia = first_in_bin(c, ia, a, bin);
            ib = first_in_bin(c, ib, b.saturating_add(1), bin);
            Some((c.cum[ib] - c.cum[ia]) as f64 * 8.0 / ((b - a + 1) as f64 * bin))
        });
        i = j;
    }
    out
}
