//! A time-sorted point column with a multi-resolution summary, so that finding a
//! time and the min/max of any row range cost O(FANOUT × levels), not O(rows): the
//! M4 query (m4.rs) asks both for every pixel column, whatever the zoom.
//!
//! Level 0 is the rows themselves. Level k+1 holds, for each FANOUT consecutive
//! entries of level k, their (min, max) value — interleaved, one cache line for
//! both — and the time of their first row (a static B-tree over the times).
//! Measured on 10 M packets (tests/view_scale.rs): galloping searches over the
//! plain time column cost ~12 cache misses per pixel column, the B-tree ~4.
//! Memory: 24 B per FANOUT rows at level 1, 1/FANOUT of that above: ≈ 1.6 B per
//! row for FANOUT = 16, next to the 16 B of (t, v).

use super::times::Times;

/// Entries summarised per entry of the next level. 16: a range query touches at most
/// 2 × 15 entries per level, 6 levels for 10 M rows.
const FANOUT: usize = 16;

/// Points (t, v) sorted by t (ties keep capture order), values finite.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointColumn {
    /// Possibly shared with the connection's other series (times.rs).
    pub t: Times,
    pub v: Vec<f64>,
    /// Level k+1 = `mm[k]`: [min, max] per FANOUT entries of the level below.
    mm: Vec<Vec<[f64; 2]>>,
    /// Level k+1 = `tl[k]`: time of the first row of each block of FANOUT^(k+1) rows.
    tl: Vec<Vec<f64>>,
}

impl PointColumn {
    /// From points in capture order; sorts by time when the capture's clock went
    /// backwards (a stable sort: equal times keep capture order). Non-finite values
    /// are dropped (they mean "no value", columns.rs).
    pub fn new(mut t: Vec<f64>, mut v: Vec<f64>) -> PointColumn {
        let n = t.len().min(v.len());
        t.truncate(n);
        v.truncate(n);
        if v.iter().any(|x| !x.is_finite()) {
            let keep: Vec<bool> = v.iter().map(|x| x.is_finite()).collect();
            let mut k = keep.iter();
            t.retain(|_| *k.next().unwrap_or(&false));
            let mut k = keep.iter();
            v.retain(|_| *k.next().unwrap_or(&false));
        }
        if !t.windows(2).all(|w| w[0] <= w[1]) {
            let mut order: Vec<u32> = (0..t.len() as u32).collect();
            order.sort_by(|&a, &b| t[a as usize].total_cmp(&t[b as usize]));
            t = order.iter().map(|&i| t[i as usize]).collect();
            v = order.iter().map(|&i| v[i as usize]).collect();
        }
        PointColumn::indexed(Times::owned(t), v)
    }

    /// Over a time column that may be shared (times.rs). The same column as
    /// [`PointColumn::new`] would build: when the times are not sorted or a value is
    /// not finite, it copies them and goes through `new`.
    pub fn with_times(t: Times, v: Vec<f64>) -> PointColumn {
        if t.len() != v.len() || !t.windows(2).all(|w| w[0] <= w[1]) || !v.iter().all(|x| x.is_finite()) {
            return PointColumn::new(t.to_vec(), v);
        }
        PointColumn::indexed(t, v)
    }

    /// Builds the pyramid over sorted times and finite values.
    fn indexed(t: Times, v: Vec<f64>) -> PointColumn {
        let mut mm: Vec<Vec<[f64; 2]>> = Vec::new();
        let mut tl: Vec<Vec<f64>> = Vec::new();
        if v.len() > FANOUT {
            mm.push(v.chunks(FANOUT).map(|c| c.iter().fold([f64::INFINITY, f64::NEG_INFINITY], |a, &x| [a[0].min(x), a[1].max(x)])).collect());
            tl.push(t.iter().step_by(FANOUT).copied().collect());
        }
        while let (Some(m), Some(tt)) = (mm.last(), tl.last()) {
            if m.len() <= FANOUT {
                break;
            }
            let next_m = m.chunks(FANOUT).map(|c| c.iter().fold([f64::INFINITY, f64::NEG_INFINITY], |a, x| [a[0].min(x[0]), a[1].max(x[1])])).collect();
            let next_t = tt.iter().step_by(FANOUT).copied().collect();
            mm.push(next_m);
            tl.push(next_t);
        }
        PointColumn { t, v, mm, tl }
    }

    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// Heap bytes (for the cache's budget).
    pub fn bytes(&self) -> usize {
        self.t.base_bytes() + self.bytes_besides_times()
    }

    /// Heap bytes of the values and the pyramid (a set of series sharing their time
    /// arrays counts those once).
    pub fn bytes_besides_times(&self) -> usize {
        8 * self.v.capacity()
            + self.mm.iter().map(|m| 16 * m.capacity()).sum::<usize>()
            + self.tl.iter().map(|t| 8 * t.capacity()).sum::<usize>()
    }

    /// First row whose time is not `before(t)` (`before` must be true on a prefix):
    /// down the B-tree of first times, FANOUT entries per level.
    fn partition(&self, before: impl Fn(f64) -> bool) -> usize {
        let t: &[f64] = &self.t;
        let (mut lo, mut hi) = (0, self.tl.last().map_or(t.len(), Vec::len));
        for k in (0..self.tl.len()).rev() {
            let level = &self.tl[k];
            let j = lo + level[lo..hi].partition_point(|&y| before(y));
            if j == 0 {
                return 0;
            }
            // The answer is in block j − 1 of this level (or at the start of block j).
            let below = if k == 0 { t.len() } else { self.tl[k - 1].len() };
            (lo, hi) = ((j - 1) * FANOUT, (j * FANOUT).min(below));
        }
        lo + t[lo..hi].partition_point(|&y| before(y))
    }

    /// First row with time ≥ x.
    pub fn lower_bound(&self, x: f64) -> usize {
        self.partition(|y| y < x)
    }

    /// First row with time > x.
    pub fn upper_bound(&self, x: f64) -> usize {
        self.partition(|y| y <= x)
    }

    /// (min, max) of `v[lo..hi]`; (inf, -inf) for an empty range.
    pub fn min_max(&self, mut lo: usize, mut hi: usize) -> (f64, f64) {
        let (mut mn, mut mx) = (f64::INFINITY, f64::NEG_INFINITY);
        hi = hi.min(self.v.len());
        // Level 0: peel the partial blocks at both ends.
        while lo < hi && !lo.is_multiple_of(FANOUT) {
            (mn, mx) = (mn.min(self.v[lo]), mx.max(self.v[lo]));
            lo += 1;
        }
        while hi > lo && !hi.is_multiple_of(FANOUT) {
            hi -= 1;
            (mn, mx) = (mn.min(self.v[hi]), mx.max(self.v[hi]));
        }
        for (k, level) in self.mm.iter().enumerate() {
            if lo >= hi {
                return (mn, mx);
            }
            (lo, hi) = (lo / FANOUT, hi / FANOUT);
            let top = k + 1 == self.mm.len();
            while lo < hi && (top || !lo.is_multiple_of(FANOUT)) {
                (mn, mx) = (mn.min(level[lo][0]), mx.max(level[lo][1]));
                lo += 1;
            }
            while hi > lo && !hi.is_multiple_of(FANOUT) {
                hi -= 1;
                (mn, mx) = (mn.min(level[hi][0]), mx.max(level[hi][1]));
            }
        }
        if self.mm.is_empty() {
            for &x in &self.v[lo..hi] {
                (mn, mx) = (mn.min(x), mx.max(x));
            }
        }
        (mn, mx)
    }
}

/// First index in `t[from..]` (absolute) whose time is ≥ x, by galloping from
/// `from`: O(log distance), so walking the column boundaries of a view left to right
/// costs O(columns × log(rows per column)), plus one O(log n) jump to the view.
pub fn lower_bound_from(t: &[f64], from: usize, x: f64) -> usize {
    let n = t.len();
    let mut lo = from.min(n);
    if lo == n || t[lo] >= x {
        return lo;
    }
    // t[lo] < x: find hi with t[hi] >= x (or n) by doubling steps.
    let mut step = 1;
    let mut hi = lo + 1;
    while hi < n && t[hi] < x {
        lo = hi;
        step *= 2;
        hi = lo.saturating_add(step).min(n);
    }
    lo + 1 + t[lo + 1..hi].partition_point(|&y| y < x)
}

/// First index whose time is > x (points exactly at x belong to the range ending at x).
pub fn upper_bound_from(t: &[f64], from: usize, x: f64) -> usize {
    let n = t.len();
    let mut lo = from.min(n);
    if lo == n || t[lo] > x {
        return lo;
    }
    let mut step = 1;
    let mut hi = lo + 1;
    while hi < n && t[hi] <= x {
        lo = hi;
        step *= 2;
        hi = lo.saturating_add(step).min(n);
    }
    lo + 1 + t[lo + 1..hi].partition_point(|&y| y <= x)
}
