//! The M4 query (see `response::Points`): per pixel column, its rows by a search of
//! the pyramid's B-tree of times, first/last by position, min/max from the pyramid
//! (pyramid.rs). Cost O(columns × log n) with a handful of cache lines per column —
//! independent of how many points are in view. Allocation: a few values per column.

use super::pyramid::{lower_bound_from, upper_bound_from, PointColumn};
use super::response::{Markers, Points};
use super::sources::MarkerColumn;

/// Column c's left edge; the last column's right edge is exactly t1 (so a point at
/// t1 is in the view and the edges never drift by rounding).
fn edge(t0: f64, t1: f64, columns: u32, c: u32) -> f64 {
    if c >= columns {
        t1
    } else {
        t0 + (t1 - t0) * (c as f64 / columns as f64)
    }
}

pub fn query(col: &PointColumn, t0: f64, t1: f64, columns: u32) -> Points {
    let t: &[f64] = &col.t; // one deref of the shared column (times.rs), not one per access
    let mut out = Points::default();
    let start = col.lower_bound(t0);
    let end = col.upper_bound(t1).max(start);
    if start > 0 {
        out.before = Some([t[start - 1], col.v[start - 1]]);
    }
    if end < t.len() {
        out.after = Some([t[end], col.v[end]]);
    }
    out.total = (end - start) as u64;
    let mut lo = start;
    for c in 0..columns {
        if lo >= end {
            break;
        }
        // Points of column c: [lo, hi); the last column takes everything up to t1.
        let hi = if c + 1 == columns {
            end
        } else {
            match edge(t0, t1, columns, c + 1) {
                next if t[lo] >= next => lo, // an empty column: no search
                // Every row before lo is before the previous edge (finger search).
                next => col.lower_bound_after(lo, next).clamp(lo, end),
            }
        };
        if hi > lo {
            let (mn, mx) = col.min_max(lo, hi);
            out.column.push(c);
            out.count.push((hi - lo).min(u32::MAX as usize) as u32);
            out.t_first.push(t[lo]);
            out.first.push(col.v[lo]);
            out.t_last.push(t[hi - 1]);
            out.last.push(col.v[hi - 1]);
            out.min.push(mn);
            out.max.push(mx);
        }
        lo = hi;
    }
    out
}

/// At most one marker per pixel column (the first), with the column's count.
pub fn markers(m: &MarkerColumn, t0: f64, t1: f64, columns: u32) -> Markers {
    markers_keeping(m, t0, t1, columns, |_, lo, _| lo)
}

/// [`markers`] keeping each column's largest value instead of its first: the RTT
/// samples left out of the statistics, where the first of a column hid a 5,027 ms
/// "RTT" behind an 81 ms one (outage-in-recovery.pcap) — a spike must not vanish
/// when zoomed out (issue 14), and the chart's note says how high they go.
pub fn markers_largest(m: &MarkerColumn, t0: f64, t1: f64, columns: u32) -> Markers {
    markers_keeping(m, t0, t1, columns, |v, lo, hi| (lo..hi).fold(lo, |best, i| if v[i] > v[best] { i } else { best }))
}

/// One marker per non-empty column: the one `pick(values, lo, hi)` names in [lo, hi).
fn markers_keeping(m: &MarkerColumn, t0: f64, t1: f64, columns: u32, pick: impl Fn(&[f64], usize, usize) -> usize) -> Markers {
    let mut out = Markers::default();
    let end = upper_bound_from(&m.t, 0, t1);
    let mut lo = lower_bound_from(&m.t, 0, t0);
    for c in 0..columns {
        if lo >= end {
            break;
        }
        let hi = if c + 1 == columns { end } else { lower_bound_from(&m.t, lo, edge(t0, t1, columns, c + 1)).min(end) };
        if hi > lo {
            let k = pick(&m.v, lo, hi).clamp(lo, hi - 1);
            out.t.push(m.t[k]);
            out.v.push(m.v[k]);
            out.flags.push(m.flags[k]);
            out.frame.push(m.frame[k]);
            out.count.push((hi - lo).min(u32::MAX as usize) as u32);
        }
        lo = hi;
    }
    out
}
