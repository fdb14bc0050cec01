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
//! - The summary's own stalls are not stored twice: the summary in the link has them.
//!
//! Each kind is written as separate streams (all gaps, then all minima, …) of
//! varint deltas, which deflate well. The reader checks every count and value.

use super::bytes::{Reader, Writer};
use crate::error::DecodeError;
use crate::view::request::MAX_COLUMNS;
use crate::view::response::{Bins, Interval, Intervals, Points, ViewData};
use crate::view::Series;

/// Most steps of a value grid: 1/4 pixel on the tallest default chart (the sequence
/// graph's 250 px plot). A link that would be too long is written with fewer
/// (build.rs), down to [`MIN_LEVELS`] (½ px there).
pub const LEVELS: u64 = 1024;
pub const MIN_LEVELS: u64 = 256;
/// Sub-column steps for interval ends and marker times.
pub const SUB: u64 = 4;
/// Most bins, columns, markers or intervals one stored answer may hold.
pub const MAX_ITEMS: u64 = 4 * MAX_COLUMNS as u64 + 2;
/// Largest |value| a series may have (sequence numbers are < 2^53, bytes < 2^63).
const MAX_VALUE: f64 = 1e18;

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
    fn of(values: impl Iterator<Item = f64>, from_zero: bool, levels: u64) -> Quant {
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
fn count_code(c: u32) -> u64 {
    if c < 4 {
        c as u64
    } else {
        4 + (2.0 * (c as f64 / 4.0).log2()).round() as u64
    }
}
fn count_of(code: u64) -> u32 {
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

// ---------------------------------------------------------------- writing

/// How much a link holds: value grid steps, and whether first/last of each column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Detail {
    pub levels: u64,
    pub ends: bool,
    /// Where in its column the first and last point lie (eighths).
    pub times: bool,
}

pub fn write(w: &mut Writer, data: &StoredData, series: Series, detail: Detail) {
    let levels = detail.levels;
    match data {
        StoredData::Rates(r) => {
            w.byte(0);
            w.f64(r.bin_seconds);
            w.svarint(r.k0);
            w.uvarint(r.average_bins as u64);
            w.uvarint(r.bytes.len() as u64);
            let per_bin = |bps: f64| bps / 8.0 * r.bin_seconds;
            let peak = r.bytes.iter().copied().chain(r.average_bps.iter().flatten().map(|&a| per_bin(a))).fold(0.0, f64::max);
            // Bins count whole bytes or events: a step below 1 would only add digits,
            // and at 1 a sparse count (3 retransmissions in a bin) is kept exactly.
            let q = Quant { lo: 0.0, step: if peak > 0.0 { (peak / levels as f64).max(1.0) } else { 1.0 } };
            q.write(w);
            let mut prev = 0;
            for &b in &r.bytes {
                let x = q.q(b);
                w.svarint(x - prev);
                prev = x;
            }
            // Average as bytes per bin, 0 = none, else q + 1.
            let mut prev = 0;
            for a in &r.average_bps {
                match a {
                    None => w.svarint(i64::MIN >> 2),
                    Some(bps) => {
                        let x = q.q(per_bin(*bps));
                        w.svarint(x - prev);
                        prev = x;
                    }
                }
            }
        }
        StoredData::Points(p) => {
            w.byte(1);
            let q = points_quant(p, series, levels);
            q.write(w);
            w.uvarint(p.column.len() as u64);
            let mut prev: i64 = -1;
            for &c in &p.column {
                w.uvarint((c as i64 - prev - 1) as u64);
                prev = c as i64;
            }
            // Extent + 1, or 0 for a column of one point (its count is the only
            // count kept: the others are the total spread over them).
            let lows: Vec<i64> = p.min.iter().map(|&m| q.q(m)).collect();
            let extents: Vec<i64> = p.max.iter().zip(&lows).zip(&p.count).map(|((&hi, &lo), &c)| if c == 1 { 0 } else { (q.q(hi) - lo).max(0) + 1 }).collect();
            for &e in &extents {
                w.uvarint(e as u64);
            }
            // Each minimum as the difference to the previous column's minimum, or to
            // its maximum when that is smaller overall (a rising line: ACKs, sequence).
            let deltas = |from_max: bool| {
                let mut prev = 0i64;
                lows.iter().zip(&extents).map(move |(&lo, &e)| {
                    let d = lo - prev;
                    prev = if from_max { lo + (e - 1).max(0) } else { lo };
                    d
                })
            };
            let from_max = deltas(true).map(i64::abs).sum::<i64>() < deltas(false).map(i64::abs).sum::<i64>();
            w.byte(from_max as u8);
            for d in deltas(from_max) {
                w.svarint(d);
            }
            let times = detail.times && p.t_first.len() == lows.len() && p.t_last.len() == lows.len();
            w.byte(times as u8);
            if times {
                for i in 0..lows.len() {
                    w.byte(if extents[i] > 0 { p.t_first[i] << 3 | p.t_last[i] } else { p.t_first[i] });
                }
            }
            // First and last of each column of many points, as steps above its minimum.
            let ends = detail.ends && p.first.len() == lows.len() && p.last.len() == lows.len();
            w.byte(ends as u8);
            if ends {
                for i in (0..lows.len()).filter(|&i| extents[i] > 0) {
                    let room = extents[i] - 1;
                    w.uvarint((q.q(p.first[i]) - lows[i]).clamp(0, room) as u64);
                    w.uvarint((q.q(p.last[i]) - lows[i]).clamp(0, room) as u64);
                }
            }
            write_scalars(w, p, series, levels);
        }
        StoredData::Intervals(i) => {
            w.byte(2);
            w.f64(i.total_seconds);
            w.f64(i.active_seconds.unwrap_or(-1.0));
            w.uvarint(i.spans.len() as u64);
            let mut prev = 0;
            for &(s, e) in &i.spans {
                w.svarint(s - prev);
                w.uvarint((e - s).max(0) as u64);
                prev = e;
            }
            write_interval_details(w, i);
        }
        StoredData::SummaryStalls => w.byte(3),
    }
}

/// Interval ends on the sub-column grid may lie this far from the view (true extents).
pub const SPAN_LIMIT: i64 = 4 * SUB as i64 * MAX_COLUMNS as i64;

/// The stall details of intervals (formats 2 and 3): cause, frames, what ended it.
pub fn write_interval_details(w: &mut Writer, i: &StoredIntervals) {
    w.byte(if i.detail.is_empty() { 0 } else { 1 });
    let mut prev = 0i64;
    for d in &i.detail {
        let cause = CAUSES.iter().position(|&c| Some(c) == d.cause.as_deref()).unwrap_or_else(unknown_cause);
        w.byte(cause as u8);
        let (b, a) = (d.frame_before.unwrap_or(0) as i64, d.frame_after.unwrap_or(0) as i64);
        w.svarint(b - prev);
        w.svarint(a - b);
        prev = a;
        w.str(d.ended_by.as_deref().unwrap_or(""));
    }
}

/// Reads what [`write_interval_details`] wrote, for the spans read before.
pub fn read_interval_details(r: &mut Reader, i: &mut StoredIntervals, grid: &Grid) -> Result<(), DecodeError> {
    if r.byte("the interval details")? == 1 {
        let mut prev = 0i64;
        for &(s, e) in &i.spans {
            let cause = CAUSES.get(r.byte("a stall cause")? as usize).ok_or_else(|| r.fail("a stall has an unknown cause"))?;
            let b = prev.saturating_add(r.svarint("a frame number")?);
            let a = b.saturating_add(r.svarint("a frame number")?);
            if !(0..=u32::MAX as i64).contains(&b) || !(0..=u32::MAX as i64).contains(&a) {
                return Err(r.fail("a stall's frame number is out of range"));
            }
            prev = a;
            let ended_by = r.str(1000, "what ended a stall")?.to_string();
            i.detail.push(Interval {
                start: grid.from_sub(s),
                end: grid.from_sub(e),
                cause: Some(cause.to_string()),
                frame_before: Some(b as u32),
                frame_after: Some(a as u32),
                ended_by: Some(ended_by),
            });
        }
    }
    Ok(())
}

/// The value grid a point answer is written on: its chart's range (build.rs) or its own.
pub fn points_quant(p: &StoredPoints, series: Series, levels: u64) -> Quant {
    match p.range {
        Some((lo, hi)) => Quant::of([lo, hi].into_iter(), from_zero(series), levels),
        None => Quant::of(p.min.iter().chain(&p.max).copied(), from_zero(series), levels),
    }
}

/// Whether the series' chart has a value axis from 0 (all but the sequence graph).
fn from_zero(series: Series) -> bool {
    !matches!(series, Series::Sequence | Series::Ack | Series::WindowEdge)
}

/// What follows a point answer's columns (formats 2 and 3): the points before and
/// after the view, the total, the markers.
pub fn write_scalars(w: &mut Writer, p: &StoredPoints, series: Series, levels: u64) {
    for edge in [p.before, p.after] {
        match edge {
            None => w.byte(0),
            Some([t, v]) => {
                w.byte(1);
                w.f64(t);
                w.f64(v);
            }
        }
    }
    w.uvarint(p.total);
    match &p.markers {
        None => w.byte(0),
        Some(m) => {
            w.byte(1);
            let q = Quant::of(m.v.iter().copied(), from_zero(series), levels);
            q.write(w);
            w.uvarint(m.pos.len() as u64);
            let mut prev = 0;
            for &p in &m.pos {
                w.uvarint(p - prev);
                prev = p;
            }
            let mut prev = 0;
            for &v in &m.v {
                let x = q.q(v);
                w.svarint(x - prev);
                prev = x;
            }
            for &f in &m.flags {
                w.uvarint(f as u64);
            }
            let mut prev = 0i64;
            for &f in &m.frame {
                w.svarint(f as i64 - prev);
                prev = f as i64;
            }
            for &c in &m.count {
                w.uvarint(count_code(c));
            }
        }
    }
}

/// Reads what [`write_scalars`] wrote into `p` (its columns and counts read before).
pub fn read_scalars(r: &mut Reader, p: &mut StoredPoints, columns: u32) -> Result<(), DecodeError> {
    let mut edges = [None, None];
    for (e, what) in edges.iter_mut().zip(["the point before the view", "the point after the view"]) {
        if r.byte(what)? == 1 {
            *e = Some([r.finite(crate::view::request::MAX_ABS_T, what)?, r.finite(MAX_VALUE, what)?]);
        }
    }
    [p.before, p.after] = edges;
    p.total = r.count(u64::MAX >> 1, "the point total")?;
    // The columns of many points share what the single ones leave.
    let singles = p.count.iter().filter(|&&c| c == 1).count() as u64;
    let many = p.count.len() as u64 - singles;
    if many > 0 {
        let each = (p.total.saturating_sub(singles) / many).clamp(2, u32::MAX as u64) as u32;
        p.count.iter_mut().filter(|c| **c == 2).for_each(|c| *c = each);
    }
    if r.byte("the markers")? == 1 {
        p.markers = Some(read_markers(r, columns)?);
    }
    Ok(())
}

/// Stall causes (DESIGN.md "Stall"; the summary's kebab-case names).
/// Stall causes by their code in a link (analysis::STALL_CAUSES: append-only).
pub use crate::analysis::STALL_CAUSES as CAUSES;
/// The code of a cause a link cannot name.
fn unknown_cause() -> usize {
    CAUSES.iter().position(|&c| c == "unknown").expect("unknown is a cause")
}

// ---------------------------------------------------------------- reading

fn read_markers(r: &mut Reader, columns: u32) -> Result<StoredMarkers, DecodeError> {
    let q = Quant::read(r)?;
    let n = r.count(columns as u64, "the marker count")? as usize;
    let mut m = StoredMarkers::default();
    let mut pos = 0u64;
    for _ in 0..n {
        pos = pos.saturating_add(r.uvarint("a marker time")?);
        if pos > columns as u64 * SUB {
            return Err(r.fail(format!("a marker lies after the view's last column ({})", pos / SUB)));
        }
        m.pos.push(pos);
    }
    let mut x = 0i64;
    for _ in 0..n {
        x = x.saturating_add(r.svarint("a marker value")?);
        m.v.push(q.value(x, r)?);
    }
    for _ in 0..n {
        m.flags.push(r.count(u32::MAX as u64, "marker flags")? as u32);
    }
    let mut f = 0i64;
    for _ in 0..n {
        f = f.saturating_add(r.svarint("a marker frame")?);
        if !(0..=u32::MAX as i64).contains(&f) {
            return Err(r.fail(format!("a marker's frame number is {f}")));
        }
        m.frame.push(f as u32);
    }
    for _ in 0..n {
        m.count.push(count_of(r.count(1000, "a marker count")?));
    }
    Ok(m)
}

pub fn read(r: &mut Reader, grid: &Grid) -> Result<StoredData, DecodeError> {
    let kind = r.byte("the kind of a series")?;
    read_kind(r, kind, grid)
}

/// [`read`] after the kind byte.
pub fn read_kind(r: &mut Reader, kind: u8, grid: &Grid) -> Result<StoredData, DecodeError> {
    let columns = grid.columns;
    match kind {
        0 => {
            let bin_seconds = r.finite(1e10, "the bin")?;
            if bin_seconds < crate::view::request::MIN_BIN_S {
                return Err(r.fail(format!("the bin is {bin_seconds} s, below the smallest ({} s)", crate::view::request::MIN_BIN_S)));
            }
            let k0 = r.svarint("the first bin")?;
            if (k0 as f64 * bin_seconds).abs() > crate::view::request::MAX_ABS_T {
                return Err(r.fail(format!("the first bin starts at {} s", k0 as f64 * bin_seconds)));
            }
            let average_bins = r.count(1_000_000_000, "the average width")? as u32;
            let n = r.count(MAX_ITEMS, "the bin count")? as usize;
            let q = Quant::read(r)?;
            let mut bytes = Vec::with_capacity(n.min(r.remaining()));
            let mut x = 0i64;
            for _ in 0..n {
                x = x.saturating_add(r.svarint("a bin")?);
                bytes.push(q.value(x, r)?.max(0.0));
            }
            let mut average_bps = Vec::with_capacity(n.min(r.remaining()));
            let mut x = 0i64;
            for _ in 0..n {
                let d = r.svarint("an average")?;
                if d == i64::MIN >> 2 {
                    average_bps.push(None);
                } else {
                    x = x.saturating_add(d);
                    average_bps.push(Some(q.value(x, r)?.max(0.0) * 8.0 / bin_seconds));
                }
            }
            Ok(StoredData::Rates(StoredRates { bin_seconds, k0, bytes, average_bps, average_bins }))
        }
        1 => {
            let q = Quant::read(r)?;
            let n = r.count(columns as u64, "the column count")? as usize;
            let mut p = StoredPoints { column: Vec::with_capacity(n.min(r.remaining())), ..Default::default() };
            let mut c: i64 = -1;
            for _ in 0..n {
                c = c.saturating_add(1).saturating_add(r.count(columns as u64, "a column gap")? as i64);
                if c >= columns as i64 {
                    return Err(r.fail(format!("a point lies in column {c}, past the view's {columns}")));
                }
                p.column.push(c as u32);
            }
            let mut extents = Vec::with_capacity(n.min(r.remaining()));
            for _ in 0..n {
                extents.push(r.count(2 * LEVELS + 1, "a column's extent")? as i64);
            }
            let from_max = r.byte("the predictor")? == 1;
            let mut prev = 0i64;
            let mut lows = Vec::with_capacity(n.min(r.remaining()));
            for &e in &extents {
                let lo = prev.saturating_add(r.svarint("a minimum")?);
                let hi = lo + (e - 1).max(0);
                p.min.push(q.value(lo, r)?);
                p.max.push(q.value(hi, r)?);
                p.count.push(if e == 0 { 1 } else { 2 });
                prev = if from_max { hi } else { lo };
                lows.push(lo);
            }
            if r.byte("the column times")? == 1 {
                for _ in 0..n {
                    let b = r.byte("a column's times")?;
                    if b > 63 {
                        return Err(r.fail(format!("a column's times are {b}, not two eighths")));
                    }
                    p.t_first.push(b >> 3);
                    p.t_last.push(b & 7);
                }
                for (i, &e) in extents.iter().enumerate() {
                    if e == 0 {
                        // One point: first = last, written alone.
                        p.t_first[i] = p.t_last[i];
                    }
                }
            }
            if r.byte("the column ends")? == 1 {
                for (i, &e) in extents.iter().enumerate() {
                    let (a, b) = match e {
                        0 => (0, 0),
                        _ => (r.count((e - 1) as u64, "a column's first value")? as i64, r.count((e - 1) as u64, "a column's last value")? as i64),
                    };
                    p.first.push(q.value(lows[i] + a, r)?);
                    p.last.push(q.value(lows[i] + b, r)?);
                }
            }
            read_scalars(r, &mut p, columns)?;
            Ok(StoredData::Points(p))
        }
        2 => {
            let total_seconds = r.finite(1e11, "the covered time")?;
            let active = r.finite(1e11, "the active time")?;
            let n = r.count(MAX_ITEMS, "the interval count")? as usize;
            let mut i = StoredIntervals { total_seconds: total_seconds.max(0.0), active_seconds: (active >= 0.0).then_some(active), ..Default::default() };
            let limit = SPAN_LIMIT;
            let mut prev = 0i64;
            for _ in 0..n {
                let s = prev.saturating_add(r.svarint("an interval start")?);
                let e = s.saturating_add(r.count(limit as u64 * 2, "an interval width")? as i64);
                if s.abs() > limit || e.abs() > limit {
                    return Err(r.fail("an interval lies far outside the view"));
                }
                i.spans.push((s, e));
                prev = e;
            }
            read_interval_details(r, &mut i, grid)?;
            Ok(StoredData::Intervals(i))
        }
        3 => Ok(StoredData::SummaryStalls),
        k => Err(r.fail(format!("unknown series kind {k}"))),
    }
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
