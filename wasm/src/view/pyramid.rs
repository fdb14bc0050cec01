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

    /// [`PointColumn::with_times`] over times known to be sorted and values known to
    /// be finite (packet_series.rs, which saw them in order): without re-reading them
    /// to check.
    pub(crate) fn with_sorted_times(t: Times, v: Vec<f64>) -> PointColumn {
        debug_assert!(t.len() == v.len() && t.windows(2).all(|w| w[0] <= w[1]) && v.iter().all(|x| x.is_finite()));
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

    /// [`PointColumn::lower_bound`] when every row before `from` is earlier than `x`
    /// (the next column edge, m4.rs): a finger search that climbs the B-tree from
    /// `from` only as far as `x` is away, then goes down as `partition` does. The M4
    /// query walks 1600 edges left to right; from the root each search cost a full
    /// descent, ~40 % of a query's time on 10 M rows (perf, tests/view_scale.rs).
    pub fn lower_bound_after(&self, from: usize, x: f64) -> usize {
        let t: &[f64] = &self.t;
        if from >= t.len() || t[from] >= x {
            return from.min(t.len());
        }
        // Level 0 is the rows, level k ≥ 1 the first times of blocks of FANOUT^k rows.
        let level = |k: usize| -> &[f64] { if k == 0 { t } else { &self.tl[k - 1] } };
        // Up while x lies beyond the FANOUT entries that share `from`'s parent.
        let (mut k, mut rows_per_entry) = (0, 1usize);
        let j = loop {
            let l = level(k);
            let at = from / rows_per_entry;
            let top = k == self.tl.len();
            let end = if top { l.len() } else { ((at / FANOUT + 1) * FANOUT).min(l.len()) };
            if top || (end < l.len() && l[end] >= x) {
                // The first entry at or after x: entries up to `at` start before it.
                break at + 1 + l[at + 1..end].partition_point(|&y| y < x);
            }
            k += 1;
            rows_per_entry *= FANOUT;
        };
        if k == 0 {
            return j;
        }
        // The answer is in entry j − 1 of level k (whose first time is before x), or
        // is the first row of entry j: down the levels below it.
        let (mut lo, mut hi) = ((j - 1) * FANOUT, (j * FANOUT).min(level(k - 1).len()));
        for below in (1..k).rev() {
            let l = level(below);
            let jj = lo + l[lo..hi].partition_point(|&y| y < x);
            (lo, hi) = ((jj - 1) * FANOUT, (jj * FANOUT).min(level(below - 1).len()));
        }
        lo + t[lo..hi].partition_point(|&y| y < x)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The finger search gives lower_bound's answer from any start before it, on
    /// columns of 1 to 70 000 rows with runs of equal times (every level in play).
    #[test]
    fn lower_bound_after_is_lower_bound() {
        let mut rng = 0x9E3779B97F4A7C15u64;
        let mut next = move |m: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % m
        };
        for n in [1usize, 2, 15, 16, 17, 255, 256, 257, 4097, 70_000] {
            let mut t = Vec::with_capacity(n);
            let mut x = 0.0;
            for _ in 0..n {
                x += next(3) as f64; // steps of 0, 1 or 2: equal times too
                t.push(x);
            }
            let col = PointColumn::new(t.clone(), vec![1.0; n]);
            for _ in 0..2000 {
                let target = next(x as u64 + 3) as f64 - 0.5 * next(2) as f64;
                let want = col.lower_bound(target);
                let from = if want == 0 { 0 } else { next(want as u64) as usize };
                assert_eq!(col.lower_bound_after(from, target), want, "n {n}, from {from}, x {target}");
            }
        }
    }
}
