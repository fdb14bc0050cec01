//! A stored answer's bytes (answers.rs has what is stored): each kind written as
//! separate streams (all gaps, then all minima, …) of varint deltas, which deflate
//! well, and read back with every count and value checked (a link is untrusted
//! input). Format 3 writes point columns with coded.rs instead and keeps only the
//! scalars here.

use super::answers::{count_code, count_of, Grid, Quant, StoredData, StoredIntervals, StoredMarkers, StoredPoints, StoredRates, LEVELS, MAX_ITEMS, MAX_VALUE, MIN_LEVELS, SUB};
use super::bytes::{Reader, Writer};
use crate::error::DecodeError;
use crate::view::request::MAX_COLUMNS;
use crate::view::response::Interval;
use crate::view::Series;

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
    // Bins and markers keep at least MIN_LEVELS steps: only the point series' grids go
    // coarser, down to one step per plot pixel (coded.rs series_levels).
    let levels = detail.levels.max(MIN_LEVELS);
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
        StoredData::SummaryStallsInView { total_seconds } => {
            w.byte(4);
            w.f64(*total_seconds);
        }
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
        4 => {
            let total_seconds = r.finite(crate::view::request::MAX_ABS_T, "the stalls' total")?;
            if total_seconds < 0.0 {
                return Err(r.fail(format!("the stalls' total is {total_seconds} s")));
            }
            Ok(StoredData::SummaryStallsInView { total_seconds })
        }
        k => Err(r.fail(format!("unknown series kind {k}"))),
    }
}
