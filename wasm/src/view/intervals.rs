//! Interval series (stalls, window-limited spans) for a view: the intervals
//! overlapping [t0, t1] in time order, at most `cap(columns)` of them; beyond that a
//! "N more" count plus each pixel column's covered share, so intervals that are not
//! listed still show. Cost O(listed + columns × log n), never O(intervals in view).

use super::request::BINS_PER_COLUMN;
use super::response::{Interval, Intervals};

/// Intervals listed per answer at most: as many as throughput bins.
pub fn cap(columns: u32) -> usize {
    (BINS_PER_COLUMN * columns) as usize
}

/// Disjoint intervals sorted by start (so ends are sorted too), with a running total
/// of their durations for coverage queries.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpanList {
    pub start: Vec<f64>,
    pub end: Vec<f64>,
    /// cum[i] = seconds covered by intervals before i; len = start.len() + 1.
    cum: Vec<f64>,
    /// Empty, or one entry per interval with its details (stalls).
    detail: Vec<Interval>,
}

impl SpanList {
    /// From (start, end) pairs and optional details (same length, or empty), in any
    /// order: sorted here (a capture's clock may step back).
    pub fn new(mut spans: Vec<(f64, f64)>, mut detail: Vec<Interval>) -> SpanList {
        if detail.len() != spans.len() {
            detail.clear();
        }
        if !spans.windows(2).all(|w| w[0].0 <= w[1].0) {
            let mut order: Vec<usize> = (0..spans.len()).collect();
            order.sort_by(|&a, &b| spans[a].0.total_cmp(&spans[b].0));
            spans = order.iter().map(|&i| spans[i]).collect();
            if !detail.is_empty() {
                detail = order.iter().map(|&i| detail[i].clone()).collect();
            }
        }
        let mut cum = Vec::with_capacity(spans.len() + 1);
        cum.push(0.0);
        let mut total = 0.0;
        for &(s, e) in &spans {
            total += (e - s).max(0.0);
            cum.push(total);
        }
        let (start, end) = spans.into_iter().unzip();
        SpanList { start, end, cum, detail }
    }

    pub fn len(&self) -> usize {
        self.start.len()
    }

    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }

    pub fn total_seconds(&self) -> f64 {
        self.cum.last().copied().unwrap_or(0.0)
    }

    pub fn bytes(&self) -> usize {
        8 * (self.start.capacity() + self.end.capacity() + self.cum.capacity()) + self.detail.capacity() * 128
    }

    /// Seconds covered before x.
    fn covered(&self, x: f64) -> f64 {
        let j = self.end.partition_point(|&e| e <= x);
        let partial = match self.start.get(j) {
            Some(&s) if s < x => x - s,
            _ => 0.0,
        };
        self.cum[j] + partial
    }

    pub fn query(&self, t0: f64, t1: f64, columns: u32) -> Intervals {
        let i0 = self.end.partition_point(|&e| e < t0);
        let i1 = self.start.partition_point(|&s| s <= t1).max(i0);
        let listed = (i1 - i0).min(cap(columns));
        let intervals = (i0..i0 + listed)
            .map(|i| match self.detail.get(i) {
                Some(d) => d.clone(),
                None => Interval { start: self.start[i], end: self.end[i], ..Default::default() },
            })
            .collect();
        let more = (i1 - i0 - listed) as u64;
        let coverage = (more > 0).then(|| {
            let w = (t1 - t0) / columns as f64;
            let mut prev = self.covered(t0);
            (1..=columns)
                .map(|c| {
                    let x = if c == columns { t1 } else { t0 + w * c as f64 };
                    let now = self.covered(x);
                    let share = if w > 0.0 { ((now - prev) / w).clamp(0.0, 1.0) } else { 1.0 };
                    prev = now;
                    share as f32
                })
                .collect()
        });
        Intervals { intervals, more, coverage, total_seconds: self.total_seconds(), active_seconds: None }
    }
}
