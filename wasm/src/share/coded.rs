//! Format 3: a point answer (M4 columns) as integer streams for coder.rs, and only
//! what its chart draws (web/charts/m4Paths.ts):
//! - bars (in-flight dots, sequence segments, RTT samples: `m4BarsPath`) draw each
//!   column's minimum to maximum at its first point's time: min, max and the eighth
//!   of the column holding the first point (a bar then lies within 1/16 px: a
//!   quarter, 3/16 px, moves an anti-aliased edge by the 48/255 the e2e comparison
//!   tolerates, and 4 % of the in-flight chart's pixels differed);
//! - step lines (window, ACK, window edge: `m4StepPath`) also run through each
//!   column's first and last value and the last point's time.
//!
//! Streams (each series its own, so their statistics do not mix): column gaps,
//! extents (0 = one point, else max − min + 1 steps), minima as steps from the
//! previous column's minimum (or maximum: a rising line), first-point eighths, and
//! for step lines the last-point eighths, first − min and max − last. A series whose
//! columns and value grid are another's in the same link (the window edge is the ACK
//! line plus the window) is written as its differences from that one, when shorter;
//! one of the same columns only (the sequence graph's segments are the in-flight
//! chart's), its first-point eighths as differences from that one's.
//! Scalars (the grid, points before and after the view, the total) and the markers go
//! to the deflated part as in format 2.

use super::answer_bytes::{self, Detail, SPAN_LIMIT};
use super::answers::{self, Quant, StoredIntervals, StoredPoints, LEVELS, MAX_ITEMS, MIN_LEVELS};
use super::bytes::{Reader, Writer};
use super::coder::{Decoder, Encoder};
use crate::error::DecodeError;
use crate::view::Series;

/// Streams of one series: `base + field`.
const FIELDS: u16 = 12;
const GAP: u16 = 0;
const EXTENT: u16 = 1;
const LOW: u16 = 2;
const T_FIRST: u16 = 3;
const T_LAST: u16 = 4;
const FIRST: u16 = 5;
const LAST: u16 = 6;
const COUNT: u16 = 7;
const REL_LOW: u16 = 8;
const REL_EXTENT: u16 = 9;
const T_FIRST_MANY: u16 = 10;
const T_FIRST_REL: u16 = 11;
// Intervals (window-limited spans, stalls): count, starts, widths.
const SPAN_COUNT: u16 = 0;
const SPAN_START: u16 = 1;
const SPAN_WIDTH: u16 = 2;

/// Series drawn as a step line (first and last of each column are drawn).
pub fn drawn_as_steps(series: Series) -> bool {
    matches!(series, Series::Rwnd | Series::Pipe | Series::Ack | Series::WindowEdge)
}

/// The points on their value grid: minima and extents in steps.
struct Grid {
    lows: Vec<i64>,
    extents: Vec<i64>,
}

fn on_grid(p: &StoredPoints, q: &Quant) -> Grid {
    let lows: Vec<i64> = p.min.iter().map(|&m| q.q(m)).collect();
    let extents = p.max.iter().zip(&lows).zip(&p.count).map(|((&hi, &lo), &c)| if c == 1 { 0 } else { (q.q(hi) - lo).max(0) + 1 }).collect();
    Grid { lows, extents }
}

/// A point series as this link writes it: its value grid, and a series it may be
/// written against (same columns, same grid).
pub struct Prepared<'a> {
    pub points: &'a StoredPoints,
    pub quant: Quant,
    pub series: Series,
}

impl Prepared<'_> {
    /// `levels`: the most steps the link allows (build.rs lowers it to fit); never
    /// fewer than one per pixel of the series' plot ([`series_levels`]).
    pub fn new(points: &StoredPoints, series: Series, levels: u64) -> Prepared<'_> {
        Prepared { quant: answer_bytes::points_quant(points, series, series_levels(series, levels)), points, series }
    }
}

/// Pixels of a series' plot on the default page (web/components/ConnectionCharts.tsx
/// DEFAULT_HEIGHTS less frame.ts's 60 px of margins; the axis runs at least over the
/// values, `nice()` widens it); None for series not drawn from a value grid's M4 columns.
fn plot_px(series: Series) -> Option<u64> {
    match series {
        Series::Inflight | Series::Rwnd | Series::Pipe | Series::SenderInflight => Some(170),
        Series::Sequence | Series::Ack | Series::WindowEdge => Some(240),
        Series::Rtt => Some(130),
        _ => None,
    }
}

/// Steps of a series' value grid: three per pixel of its chart's plot: a value is
/// then drawn within 1/6 px, which moves an anti-aliased edge by less than the 48/255
/// the pixel comparison of e2e/share.spec.ts tolerates. Series of one chart share it.
pub fn pixel_levels(series: Series) -> u64 {
    plot_px(series).map_or(LEVELS, |px| 3 * px)
}

/// The steps a series is written with when the link allows `levels`: at most
/// [`pixel_levels`], and never fewer than one per plot pixel (a value within ½ px),
/// nor fewer than [`MIN_LEVELS`] for a series of no known plot. build.rs asks for
/// fewer than `MIN_LEVELS` only to keep the page's columns (issue 42, item 5): a
/// coarser value moves a mark's end by less than a pixel, a lowered column count
/// moves every mark sideways and merges neighbouring columns' extremes.
pub fn series_levels(series: Series, levels: u64) -> u64 {
    match plot_px(series) {
        Some(px) => levels.min(3 * px).max(px),
        None => levels.max(MIN_LEVELS),
    }
}

fn same_grid(a: &Prepared, b: &Prepared) -> bool {
    a.points.column == b.points.column && a.quant.lo == b.quant.lo && a.quant.step == b.quant.step
}

/// Writes `this` (index `index` among the link's series); `earlier`: the point series
/// written before it, (index, prepared).
pub fn write(w: &mut Writer, c: &mut Encoder, index: usize, this: &Prepared, earlier: &[(usize, Prepared)], detail: Detail) {
    let base = index as u16 * FIELDS;
    // The first earlier series of the same columns and grid, if writing against it is shorter.
    let reference = earlier.iter().find(|(_, e)| same_grid(e, this)).filter(|(_, e)| {
        let alone = trial(|c| streams(c, 0, this, None, None, detail));
        let against = trial(|c| streams(c, 0, this, Some(e), None, detail));
        against < alone
    });
    w.uvarint(reference.map_or(0, |(i, _)| *i as u64 + 1));
    // Only a bar series: every first-point eighth of it is in the link as written.
    let times_ref = earlier.iter().find(|(_, e)| !drawn_as_steps(e.series) && e.points.column == this.points.column && e.points.t_first.len() == this.points.column.len()).filter(|(_, e)| {
        let alone = trial(|c| streams(c, 0, this, None, None, detail));
        let against = trial(|c| streams(c, 0, this, None, Some(e.points), detail));
        against < alone
    });
    w.uvarint(times_ref.map_or(0, |(i, _)| *i as u64 + 1));
    this.quant.write(w);
    let p = this.points;
    let g = on_grid(p, &this.quant);
    w.byte(from_max(&g) as u8);
    let times = detail.times && p.t_first.len() == g.lows.len() && p.t_last.len() == g.lows.len();
    let ends = detail.ends && drawn_as_steps(this.series) && p.first.len() == g.lows.len() && p.last.len() == g.lows.len();
    w.byte(times as u8 | (ends as u8) << 1);
    streams(c, base, this, reference.map(|(_, e)| e), times_ref.map(|(_, e)| e.points), detail);
    answer_bytes::write_scalars(w, p, this.series, detail.levels.max(MIN_LEVELS));
}

/// Bytes the streams of one series take alone.
fn trial(f: impl FnOnce(&mut Encoder)) -> usize {
    let mut c = Encoder::default();
    f(&mut c);
    c.finish().len()
}

/// Whether minima are predicted from the previous maximum (shorter for rising lines).
fn from_max(g: &Grid) -> bool {
    let cost = |from_max: bool| low_steps(g, from_max).map(i64::unsigned_abs).sum::<u64>();
    cost(true) < cost(false)
}

fn low_steps(g: &Grid, from_max: bool) -> impl Iterator<Item = i64> + '_ {
    let mut prev = 0i64;
    g.lows.iter().zip(&g.extents).map(move |(&lo, &e)| {
        let d = lo - prev;
        prev = if from_max { lo + (e - 1).max(0) } else { lo };
        d
    })
}

/// `times_against`: a series of the same columns whose first-point eighths predict these.
fn streams(c: &mut Encoder, base: u16, this: &Prepared, reference: Option<&Prepared>, times_against: Option<&StoredPoints>, detail: Detail) {
    let p = this.points;
    let g = on_grid(p, &this.quant);
    let n = g.lows.len();
    c.put(base + COUNT, n as u64);
    match reference {
        Some(r) => {
            let rg = on_grid(r.points, &r.quant);
            let mut prev = 0i64;
            for i in 0..n {
                let d = g.lows[i] - rg.lows[i];
                c.put_signed(base + REL_LOW, d - prev);
                prev = d;
                c.put_signed(base + REL_EXTENT, g.extents[i] - rg.extents[i]);
            }
        }
        None => {
            let mut prev: i64 = -1;
            for &col in &p.column {
                c.put(base + GAP, (col as i64 - prev - 1) as u64);
                prev = col as i64;
            }
            for i in 0..n {
                c.put(base + EXTENT, g.extents[i] as u64);
            }
            for d in low_steps(&g, from_max(&g)) {
                c.put_signed(base + LOW, d);
            }
        }
    }
    let steps = drawn_as_steps(this.series);
    let ends = detail.ends && steps && p.first.len() == n && p.last.len() == n;
    // First and last on the grid, as the reader will have them.
    let mut first_last = Vec::new();
    if ends {
        let q = &this.quant;
        for i in 0..n {
            let room = (g.extents[i] - 1).max(0);
            let a = (q.q(p.first[i]) - g.lows[i]).clamp(0, room);
            let b = (g.lows[i] + room - q.q(p.last[i])).clamp(0, room);
            if g.extents[i] > 0 {
                c.put(base + FIRST, a as u64);
                c.put(base + LAST, b as u64);
            }
            first_last.push((g.lows[i] + a, g.lows[i] + room - b));
        }
    }
    if detail.times && p.t_first.len() == n && p.t_last.len() == n {
        let shown = Shown::new(&g, &first_last);
        for i in 0..n {
            if shown.first(i) {
                match times_against {
                    Some(r) => c.put_signed(base + T_FIRST_REL, p.t_first[i] as i64 - r.t_first[i] as i64),
                    None => c.put(base + if g.extents[i] > 0 { T_FIRST_MANY } else { T_FIRST }, p.t_first[i] as u64),
                }
            }
            if steps && shown.last(i) {
                c.put(base + T_LAST, p.t_last[i] as u64);
            }
        }
    }
}

/// Which column times a chart shows. A bar is drawn at its first point's time. A step
/// line (`m4StepPath`: H to the first point's time, V first, V min, V max, H to the
/// last point's time, V last) shows the first point's time only where the line jumps
/// there (first ≠ the previous column's last) or runs up and down in the column, and
/// the last point's time only where last ≠ max; elsewhere the horizontal line just
/// runs on, and the same pixels are drawn wherever that time lies.
struct Shown<'a> {
    g: &'a Grid,
    /// Step lines with their ends: (first, last) on the grid per column; else empty.
    first_last: &'a [(i64, i64)],
}

impl<'a> Shown<'a> {
    fn new(g: &'a Grid, first_last: &'a [(i64, i64)]) -> Shown<'a> {
        Shown { g, first_last }
    }
    fn first(&self, i: usize) -> bool {
        if self.first_last.is_empty() || i == 0 {
            return true;
        }
        self.g.extents[i] > 1 || self.first_last[i].0 != self.first_last[i - 1].1
    }
    fn last(&self, i: usize) -> bool {
        if self.first_last.is_empty() {
            return self.g.extents[i] > 0;
        }
        self.g.extents[i] > 1 && self.first_last[i].1 != self.g.lows[i] + self.g.extents[i] - 1
    }
}

/// Reads what [`write`] wrote; `earlier`: the point series read before it, by index.
pub fn read(r: &mut Reader, c: &mut Decoder, index: usize, series: Series, columns: u32, earlier: &[(usize, StoredPoints, Quant)]) -> Result<(StoredPoints, Quant), DecodeError> {
    let base = index as u16 * FIELDS;
    let reference = match r.count(index as u64, "the series it is written against")? {
        0 => None,
        k => Some(earlier.iter().find(|(i, _, _)| *i as u64 == k - 1).ok_or_else(|| r.fail(format!("series {} is written against series {}, which holds no points", index, k - 1)))?),
    };
    let times_against = match r.count(index as u64, "the series its times are written against")? {
        0 => None,
        k => Some(earlier.iter().find(|(i, _, _)| *i as u64 == k - 1).map(|(_, p, _)| p).ok_or_else(|| r.fail(format!("series {} has its times written against series {}, which holds no points", index, k - 1)))?),
    };
    let q = Quant::read(r)?;
    let from_max = r.byte("the predictor")? == 1;
    let flags = r.byte("the detail flags")?;
    let (times, ends) = (flags & 1 == 1, flags & 2 == 2);
    let n = c.count(base + COUNT, columns as u64, "the column count")? as usize;
    let mut p = StoredPoints::default();
    let mut lows = Vec::with_capacity(n);
    let mut extents = Vec::with_capacity(n);
    match reference {
        Some((_, rp, rq)) => {
            if rp.column.len() != n || rq.lo != q.lo || rq.step != q.step {
                return Err(r.fail("a series is written against one of other columns or another value grid"));
            }
            p.column = rp.column.clone();
            let mut d = 0i64;
            for i in 0..n {
                d = d.saturating_add(c.get_signed(base + REL_LOW, "a minimum")?);
                lows.push(rq.q(rp.min[i]).saturating_add(d));
                let re = if rp.count[i] == 1 { 0 } else { (rq.q(rp.max[i]) - rq.q(rp.min[i])).max(0) + 1 };
                extents.push(re.saturating_add(c.get_signed(base + REL_EXTENT, "a column's extent")?));
            }
        }
        None => {
            let mut col: i64 = -1;
            for _ in 0..n {
                col = col.saturating_add(1).saturating_add(c.count(base + GAP, columns as u64, "a column gap")? as i64);
                if col >= columns as i64 {
                    return Err(r.fail(format!("a point lies in column {col}, past the view's {columns}")));
                }
                p.column.push(col as u32);
            }
            for _ in 0..n {
                extents.push(c.count(base + EXTENT, 2 * LEVELS + 1, "a column's extent")? as i64);
            }
            let mut prev = 0i64;
            for &e in &extents {
                let lo = prev.saturating_add(c.get_signed(base + LOW, "a minimum")?);
                prev = if from_max { lo.saturating_add((e - 1).max(0)) } else { lo };
                lows.push(lo);
            }
        }
    }
    for (&lo, &e) in lows.iter().zip(&extents) {
        if !(0..=2 * LEVELS as i64 + 1).contains(&e) {
            return Err(r.fail(format!("a column's extent is {e} steps")));
        }
        p.min.push(q.value(lo, r)?);
        p.max.push(q.value(lo + (e - 1).max(0), r)?);
        p.count.push(if e == 0 { 1 } else { 2 });
    }
    let steps = drawn_as_steps(series);
    let mut first_last = Vec::new();
    if ends {
        for (&lo, &e) in lows.iter().zip(&extents) {
            let room = (e - 1).max(0);
            let (a, b) = match e {
                0 => (0, 0),
                _ => (c.count(base + FIRST, room as u64, "a column's first value")? as i64, c.count(base + LAST, room as u64, "a column's last value")? as i64),
            };
            p.first.push(q.value(lo + a, r)?);
            p.last.push(q.value(lo + room - b, r)?);
            first_last.push((lo + a, lo + room - b));
        }
    }
    if let Some(t) = times_against.filter(|t| t.column != p.column || t.t_first.len() != n) {
        return Err(r.fail(format!("a series has its times written against one of {} other columns", t.column.len())));
    }
    if times {
        let g = Grid { lows, extents };
        let shown = Shown::new(&g, &first_last);
        for i in 0..n {
            // A time the chart does not show: any eighth draws the same (the start, the end).
            let first = match (shown.first(i), times_against) {
                (true, Some(t)) => {
                    let v = (t.t_first[i] as i64).saturating_add(c.get_signed(base + T_FIRST_REL, "a column's first time")?);
                    u8::try_from(v).ok().filter(|&v| v < 8).ok_or_else(|| r.fail(format!("a column's first time is {v} eighths")))?
                }
                (true, None) => c.count(base + if g.extents[i] > 0 { T_FIRST_MANY } else { T_FIRST }, 7, "a column's first time")? as u8,
                (false, _) => 0,
            };
            let last = match (steps, shown.last(i)) {
                (true, true) => c.count(base + T_LAST, 7, "a column's last time")? as u8,
                (true, false) if g.extents[i] > 0 => 7,
                _ => first,
            };
            p.t_first.push(first);
            p.t_last.push(last);
        }
    }
    answer_bytes::read_scalars(r, &mut p, columns)?;
    Ok((p, q))
}

/// Intervals (kind 2) in format 3: the spans' ends as streams (each start from the
/// previous end, the width), the totals and stall details in the deflated part.
pub fn write_spans(w: &mut Writer, c: &mut Encoder, index: usize, i: &StoredIntervals) {
    let base = index as u16 * FIELDS;
    w.f64(i.total_seconds);
    w.f64(i.active_seconds.unwrap_or(-1.0));
    c.put(base + SPAN_COUNT, i.spans.len() as u64);
    let mut prev = 0;
    for &(s, e) in &i.spans {
        c.put_signed(base + SPAN_START, s - prev);
        c.put(base + SPAN_WIDTH, (e - s).max(0) as u64);
        prev = e;
    }
    answer_bytes::write_interval_details(w, i);
}

pub fn read_spans(r: &mut Reader, c: &mut Decoder, index: usize, grid: &answers::Grid) -> Result<StoredIntervals, DecodeError> {
    let base = index as u16 * FIELDS;
    let total_seconds = r.finite(1e11, "the covered time")?;
    let active = r.finite(1e11, "the active time")?;
    let mut i = StoredIntervals { total_seconds: total_seconds.max(0.0), active_seconds: (active >= 0.0).then_some(active), ..Default::default() };
    let n = c.count(base + SPAN_COUNT, MAX_ITEMS, "the interval count")?;
    let mut prev = 0i64;
    for _ in 0..n {
        let s = prev.saturating_add(c.get_signed(base + SPAN_START, "an interval start")?);
        let e = s.saturating_add(c.count(base + SPAN_WIDTH, SPAN_LIMIT as u64 * 2, "an interval width")? as i64);
        if s.abs() > SPAN_LIMIT || e.abs() > SPAN_LIMIT {
            return Err(r.fail("an interval lies far outside the view"));
        }
        i.spans.push((s, e));
        prev = e;
    }
    answer_bytes::read_interval_details(r, &mut i, grid)?;
    Ok(i)
}
