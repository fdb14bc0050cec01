//! One series' view answer as a link stores it: at the link's resolution (its pixel
//! columns over the shared view [t0, t1]) and quantized to a grid finer than a pixel,
//! so that the receiver's chart draws the same pixels (issue 15, item 1).
//!
//! - Rates: the bins' bytes and moving average in steps of `peak / LEVELS`.
//! - Points (M4): per non-empty column its min and max on a `LEVELS` grid of the
//!   chart's value range (first and last are the one of the two nearer the previous
//!   column and the other: a line through them covers the same pixels) and whether
//!   it holds one point or more (the total is exact; the columns of many points
//!   share it evenly); markers at 1/4 column with their counts (±19 %).
//! - Intervals: ends on a 1/4-column grid; stall details exact; `total_seconds` and
//!   `active_seconds` exact. An answer with "N more" stores its per-column coverage.
//! - The summary's own stalls are not stored twice: the summary in the link has them
//!   (all of them, or those that overlap the view and the total of all: build.rs).
//!
//! Their bytes: answer_bytes.rs.

use super::bytes::{Reader, Writer};
use crate::error::DecodeError;
use crate::view::request::MAX_COLUMNS;
use crate::view::response::{Bins, Interval, Intervals, Points, ViewData};

/// Most steps of a value grid: 1/4 pixel on the tallest default chart (the sequence
/// graph's 250 px plot). A link that would be too long is written with fewer
/// (build.rs), down to [`MIN_LEVELS`] (½ px there).
pub const LEVELS: u64 = 1024;
pub const MIN_LEVELS: u64 = 256;
/// Fewer steps than any chart's plot has pixels: asked for by build.rs before it lowers
/// the columns, it puts each point series at one step per plot pixel (coded.rs
/// `series_levels`); bins and markers stay at `MIN_LEVELS`.
pub const PIXEL_LEVELS: u64 = 128;
/// Sub-column steps for interval ends and marker times.
pub const SUB: u64 = 4;
/// Most bins, columns, markers or intervals one stored answer may hold.
pub const MAX_ITEMS: u64 = 4 * MAX_COLUMNS as u64 + 2;
/// Largest |value| a series may have (sequence numbers are < 2^53, bytes < 2^63).
pub(super) const MAX_VALUE: f64 = 1e18;

#[derive(Clone, Debug, PartialEq)]
pub struct StoredRates {
    pub bin_seconds: f64,
    /// Grid index of the first bin (bin i covers [(k0 + i)·bin, (k0 + i + 1)·bin)).
    pub k0: i64,
    pub bytes: Vec<f64>,
    pub average_bps: Vec<Option<f64>>,
    pub average_bins: u32,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct StoredMarkers {
    /// Position in sub-columns from t0 (column × SUB + sub).
    pub pos: Vec<u64>,
    pub v: Vec<f64>,
    pub flags: Vec<u32>,
    pub frame: Vec<u32>,
    pub count: Vec<u32>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct StoredPoints {
    pub column: Vec<u32>,
    pub count: Vec<u32>,
    pub min: Vec<f64>,
    pub max: Vec<f64>,
    /// Each column's first and last value, when the link had room for them (else
    /// empty: the line runs min→max or max→min, whichever continues it).
    pub first: Vec<f64>,
    pub last: Vec<f64>,
    /// Where in its column each column's first and last point lie, in eighths
    /// (charts draw marks at them), when the link had room (else empty).
    pub t_first: Vec<u8>,
    pub t_last: Vec<u8>,
    pub before: Option<[f64; 2]>,
    pub after: Option<[f64; 2]>,
    pub total: u64,
    pub markers: Option<StoredMarkers>,
    /// The value range of the grid the minima and maxima are written on: the range
    /// of all series drawn on the same chart (build.rs), so that series on one value
    /// axis share one grid (and a window edge that is the ACK line plus a constant
    /// window writes the same bytes as the ACK line). None: its own range.
    pub range: Option<(f64, f64)>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct StoredIntervals {
    /// (start, end) in sub-columns from t0 (may lie outside the view: true extents).
    pub spans: Vec<(i64, i64)>,
    /// Empty, or one per span (stalls).
    pub detail: Vec<Interval>,
    pub total_seconds: f64,
    pub active_seconds: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StoredData {
    Rates(StoredRates),
    Points(StoredPoints),
    Intervals(StoredIntervals),
    /// The stalls the summary lists (the view asked at the summary's threshold).
    SummaryStalls,
    /// The same when the summary lists only the stalls that overlap the shared view
    /// (format 4, build.rs `Listing::InView`): the seconds all the direction's stalls
    /// cover (the answer's `total_seconds`, "… in all") cannot be summed from them.
    SummaryStallsInView { total_seconds: f64 },
}

/// The link's grid: `columns` pixel columns over [t0, t1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub t0: f64,
    pub t1: f64,
    pub columns: u32,
}

impl Grid {
    /// Seconds per sub-column step.
    pub fn sub_seconds(&self) -> f64 {
        (self.t1 - self.t0) / (self.columns as f64 * SUB as f64)
    }
    fn to_sub(&self, t: f64) -> i64 {
        let u = self.sub_seconds();
        if u > 0.0 {
            ((t - self.t0) / u).round().clamp(-(SUB as f64) * MAX_COLUMNS as f64 * 4.0, SUB as f64 * MAX_COLUMNS as f64 * 4.0) as i64
        } else {
            0
        }
    }
    /// Left edge of column c (m4.rs's rule) and its width.
    pub fn column(&self, c: u32) -> (f64, f64) {
        (self.t0 + (self.t1 - self.t0) * (c as f64 / self.columns as f64), (self.t1 - self.t0) / self.columns as f64)
    }
    /// The eighth of column c that holds t.
    fn eighth(&self, c: u32, t: f64) -> u8 {
        let (left, w) = self.column(c);
        if w > 0.0 { ((t - left) / w * 8.0).floor().clamp(0.0, 7.0) as u8 } else { 0 }
    }
    /// The sub-column step holding t (t in the view).
    fn sub_floor(&self, t: f64) -> u64 {
        let u = self.sub_seconds();
        if u > 0.0 {
            ((t - self.t0) / u).floor().clamp(0.0, (self.columns as u64 * SUB - 1) as f64) as u64
        } else {
            0
        }
    }
    pub fn from_sub(&self, s: i64) -> f64 {
        self.t0 + s as f64 * self.sub_seconds()
    }
}

/// A value grid: lo + q × step, q in 0..=LEVELS.
#[derive(Clone, Debug)]
pub struct Quant {
    pub lo: f64,
    pub step: f64,
}

impl Quant {
    /// The grid over the values' range, or over [0, max] for a chart whose value
    /// axis starts at 0 (all but the sequence graph): steps of the drawn scale.
    pub(super) fn of(values: impl Iterator<Item = f64>, from_zero: bool, levels: u64) -> Quant {
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
        let lo = if from_zero && lo > 0.0 { 0.0 } else { lo };
        if !lo.is_finite() {
            return Quant { lo: 0.0, step: 1.0 };
        }
        let step = if hi > lo { (hi - lo) / levels as f64 } else { 1.0 };
        Quant { lo, step }
    }
    pub fn q(&self, v: f64) -> i64 {
        ((v - self.lo) / self.step).round() as i64
    }
    pub fn write(&self, w: &mut Writer) {
        w.f64(self.lo);
        w.f64(self.step);
    }
    pub fn read(r: &mut Reader) -> Result<Quant, DecodeError> {
        let lo = r.finite(MAX_VALUE, "a value origin")?;
        let step = r.finite(MAX_VALUE, "a value step")?;
        if step <= 0.0 {
            return Err(r.fail(format!("a value step is {step}, not positive")));
        }
        Ok(Quant { lo, step })
    }
    pub fn value(&self, q: i64, r: &Reader) -> Result<f64, DecodeError> {
        if !(-(LEVELS as i64)..=2 * LEVELS as i64).contains(&q) {
            return Err(r.fail(format!("a value lies {q} steps from its grid, outside 0..{LEVELS}")));
        }
        Ok(self.lo + q as f64 * self.step)
    }
}

/// Point count: exact up to 3, then on a log scale of two steps per octave
/// (±19 %): charts draw counts as "one point" or "many", never as a number.
pub(super) fn count_code(c: u32) -> u64 {
    if c < 4 {
        c as u64
    } else {
        4 + (2.0 * (c as f64 / 4.0).log2()).round() as u64
    }
}
pub(super) fn count_of(code: u64) -> u32 {
    if code < 4 {
        code as u32
    } else {
        (4.0 * 2f64.powf((code - 4) as f64 / 2.0)).round().min(u32::MAX as f64) as u32
    }
}

/// The answer of the live engine, reduced to what the link stores. None: nothing to store.
pub fn from_view(data: &ViewData, grid: &Grid) -> StoredData {
    match data {
        ViewData::Bins(b) => StoredData::Rates(StoredRates {
            bin_seconds: 0.0, // set by the caller (the answer's effective bin)
            k0: 0,
            bytes: b.bytes.iter().map(|&x| x as f64).collect(),
            average_bps: b.average_bps.clone(),
            average_bins: b.average_bins,
        }),
        ViewData::Points(p) => StoredData::Points(points(p, grid)),
        ViewData::Intervals(i) => StoredData::Intervals(intervals(i, grid)),
        // Links do not carry the Wi-Fi strip yet (it is drawn only from a capture).
        ViewData::None | ViewData::Wifi(_) => StoredData::Intervals(StoredIntervals::default()),
    }
}

fn points(p: &Points, grid: &Grid) -> StoredPoints {
    let markers = p.markers.as_ref().map(|m| StoredMarkers {
        // Floor, not round: a marker must stay in its pixel column (one per column).
        pos: m.t.iter().map(|&t| grid.sub_floor(t)).collect(),
        v: m.v.clone(),
        flags: m.flags.clone(),
        frame: m.frame.clone(),
        count: m.count.clone(),
    });
    StoredPoints {
        column: p.column.clone(),
        count: p.count.clone(),
        min: p.min.clone(),
        max: p.max.clone(),
        first: p.first.clone(),
        last: p.last.clone(),
        t_first: p.column.iter().zip(&p.t_first).map(|(&c, &t)| grid.eighth(c, t)).collect(),
        t_last: p.column.iter().zip(&p.t_last).map(|(&c, &t)| grid.eighth(c, t)).collect(),
        before: p.before,
        after: p.after,
        total: p.total,
        markers,
        range: None,
    }
}

fn intervals(i: &Intervals, grid: &Grid) -> StoredIntervals {
    let mut out = StoredIntervals { total_seconds: i.total_seconds, active_seconds: i.active_seconds, ..Default::default() };
    match &i.coverage {
        // More intervals than a view lists: the coverage per column is what shows.
        Some(cov) if i.more > 0 => {
            for (c, &share) in cov.iter().enumerate() {
                let width = (share as f64 * SUB as f64).round() as i64;
                if width > 0 {
                    let mid = c as i64 * SUB as i64 + SUB as i64 / 2;
                    out.spans.push((mid - width / 2, mid - width / 2 + width));
                }
            }
        }
        _ => {
            for x in &i.intervals {
                out.spans.push((grid.to_sub(x.start), grid.to_sub(x.end).max(grid.to_sub(x.start))));
            }
            if i.intervals.iter().any(|x| x.cause.is_some()) {
                out.detail = i.intervals.clone();
            }
        }
    }
    out
}

/// The bins as the engine answers them (used when the request is the stored view).
pub fn bins_of(r: &StoredRates, from: usize, to: usize) -> Bins {
    let bytes: Vec<u64> = r.bytes[from..to].iter().map(|&b| b.round() as u64).collect();
    Bins {
        start: (r.k0 + from as i64) as f64 * r.bin_seconds,
        bps: bytes.iter().map(|&b| b as f64 * 8.0 / r.bin_seconds).collect(),
        bytes,
        average_bps: r.average_bps[from..to].to_vec(),
        average_bins: r.average_bins,
        loading: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_exact_below_4_and_within_20_percent_above() {
        for c in [0u32, 1, 3, 4, 5, 15, 16, 17, 100, 6000, 1 << 30, u32::MAX] {
            let back = count_of(count_code(c));
            assert!((back as f64 - c as f64).abs() <= c as f64 * 0.2, "{c} → {back}");
            if c < 4 {
                assert_eq!(back, c);
            }
        }
    }
}
