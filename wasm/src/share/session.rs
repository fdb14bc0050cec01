//! A snapshot as a view source: it answers the page's `ViewRequest`s from what the
//! link holds, with the view engine's own query code (m4.rs, rates.rs, intervals.rs)
//! run over columns rebuilt from the stored answers, so a shared view is drawn by
//! exactly the code that draws a live one.
//!
//! A format-2 link holds each series at its grid's resolution: asked at that grid,
//! the answer is the sender's (to the quantization of answers.rs); asked finer
//! (zoomed in) it is re-decimated from the stored columns and says so; asked outside
//! the shared view it is clamped to it. A format-1 link (first-round snapshots,
//! per-packet columns) is answered from its packets (legacy.rs).

use crate::view::times::Times;
use super::answers::{self, Grid, StoredData, StoredIntervals, StoredPoints, StoredRates};
use super::format::{self, Parsed, Snapshot};
use super::legacy::{self, Legacy};
use super::meta::Meta;
use crate::error::DecodeError;
use crate::view::intervals::SpanList;
use crate::view::pyramid::PointColumn;
use crate::view::request::{self, fmt_t};
use crate::view::response::{Interval, Intervals, ViewData, ViewResponse};
use crate::view::sources::{CumColumn, MarkerColumn};
use crate::view::{failed, m4, rates, Series, ViewRequest};
use std::collections::HashMap;

/// Point counts of a rebuilt column (the rebuilt points stand for many).
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// Time of each stored column's points, sorted.
    at: Vec<f64>,
    /// cum[i] = points before i.
    cum: Vec<u64>,
}

impl Counts {
    fn new(at: Vec<f64>, counts: impl Iterator<Item = u32>) -> Counts {
        let mut cum = vec![0u64];
        for c in counts {
            cum.push(cum[cum.len() - 1] + c as u64);
        }
        Counts { at, cum }
    }
    /// Points in [a, b) (or [a, b] when `closed`).
    fn between(&self, a: f64, b: f64, closed: bool) -> u64 {
        let lo = self.at.partition_point(|&t| t < a);
        let hi = if closed { self.at.partition_point(|&t| t <= b) } else { self.at.partition_point(|&t| t < b) };
        self.cum[hi.max(lo)] - self.cum[lo]
    }
}

/// What a series is answered from.
pub enum Entry {
    Points { col: PointColumn, counts: Option<Counts>, markers: Option<(MarkerColumn, Option<Counts>)>, total: Option<u64> },
    /// `stored`: the link's bins (answered as is at their own bin and view).
    Rates { cum: CumColumn, stored: Option<StoredRates> },
    Spans { list: SpanList, total: Option<f64>, active: Option<f64> },
}

enum Source {
    Answers(Snapshot),
    Packets(Legacy),
}

pub struct SnapshotSession {
    meta: Meta,
    source: Source,
    id: u32,
    start: f64,
    end: f64,
    data_direction: u8,
    stall_threshold_ms: f64,
    entries: HashMap<(Series, u8), Entry>,
}

/// The sentence of a view finer than the link (issue 15).
pub fn resolution_note(columns: u32) -> String {
    format!("shared at {columns} px; open the capture for packet detail")
}

impl SnapshotSession {
    /// Parses a snapshot (format 1 or 2); the error is a sentence for the user.
    pub fn open(bytes: &[u8]) -> Result<SnapshotSession, DecodeError> {
        let (meta, source) = match format::parse(bytes)? {
            Parsed::Answers(s) => (s.meta.clone(), Source::Answers(s)),
            Parsed::Packets(l) => (l.meta.clone(), Source::Packets(l)),
        };
        let s = meta.summary();
        Ok(SnapshotSession {
            id: s["id"].as_u64().unwrap_or(0) as u32,
            start: s["start"].as_f64().unwrap_or(0.0),
            end: s["end"].as_f64().unwrap_or(0.0),
            data_direction: s["dataDirection"].as_u64().unwrap_or(0) as u8,
            stall_threshold_ms: s["stallThresholdMs"].as_f64().unwrap_or(f64::NAN),
            meta,
            source,
            entries: HashMap::new(),
        })
    }

    pub fn name(&self) -> &str {
        &self.meta.name
    }
    /// The view as the sender's URL fragment.
    pub fn view(&self) -> &str {
        &self.meta.view
    }
    /// The report with its one connection (schema 1, as `analyze --json`).
    pub fn report_json(&self) -> String {
        self.meta.report.to_string()
    }
    /// The link's grid (format 2), None for a per-packet (format 1) snapshot.
    pub fn grid(&self) -> Option<Grid> {
        match &self.source {
            Source::Answers(s) => Some(s.grid),
            Source::Packets(_) => None,
        }
    }

    pub fn query_json(&mut self, request: &str) -> String {
        let response = match serde_json::from_str::<ViewRequest>(request) {
            Ok(req) => self.query(&req),
            Err(e) => {
                let req = ViewRequest { generation: 0, connection: self.id, series: Series::Throughput, t0: 0.0, t1: 0.0, columns: 0, bin_seconds: None, stall_threshold_ms: None, direction: None };
                failed(&req, format!("request is not a view request: {e}"))
            }
        };
        serde_json::to_string(&response).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    pub fn query(&mut self, req: &ViewRequest) -> ViewResponse {
        if req.connection != self.id {
            return failed(req, format!("this link holds connection {} only, not {}", self.id, req.connection));
        }
        let mut v = request::validate(req, self.start, self.end);
        let dir = match req.direction {
            Some(d) if d <= 1 => d,
            _ => self.data_direction,
        };
        let mut notes = Vec::new();
        let grid = self.grid();
        if let Some(g) = grid {
            // Outside the shared view the link holds nothing: clamp to it.
            let slack = (g.t1 - g.t0) * 1e-9;
            if v.t0 < g.t0 - slack || v.t1 > g.t1 + slack {
                let (a, b) = (v.t0.max(g.t0), v.t1.min(g.t1));
                let (a, b) = if b > a { (a, b) } else { (g.t0, g.t1) };
                v.clamped.push(format!("view {}–{} s limited to {}–{} s: the link holds only the shared view", fmt_t(v.t0), fmt_t(v.t1), fmt_t(a), fmt_t(b)));
                (v.t0, v.t1) = (a, b);
            }
            if (v.t1 - v.t0) / (v.columns as f64) < (g.t1 - g.t0) / g.columns as f64 * 0.999 {
                notes.push(resolution_note(g.columns));
            }
        }
        let mut r = ViewResponse { notes, ..ViewResponse::for_view(req, &v, dir) };
        if !self.entries.contains_key(&(req.series, dir)) {
            match self.build(req.series, dir) {
                Ok(e) => {
                    self.entries.insert((req.series, dir), e);
                }
                Err(why) => {
                    r.error = Some(why);
                    return r;
                }
            }
        }
        let stored = self.stored(req.series, dir).cloned();
        if let Some(s) = &stored {
            r.notes.splice(0..0, s.notes.iter().cloned());
            r.error_bound = s.error_bound;
        }
        let summary_ms = self.stall_threshold_ms;
        let Some(entry) = self.entries.get(&(req.series, dir)) else { return r };
        r.data = match entry {
            Entry::Points { col, counts, markers, total } => {
                let mut p = m4::query(col, v.t0, v.t1, v.columns);
                if let Some(c) = counts {
                    for (i, &column) in p.column.iter().enumerate() {
                        let (a, b) = (edge(&v, column), edge(&v, column + 1));
                        p.count[i] = c.between(a, b, column + 1 == v.columns).min(u32::MAX as u64) as u32;
                    }
                    p.total = match (grid, total) {
                        (Some(g), Some(t)) if g.t0 == v.t0 && g.t1 == v.t1 => *t,
                        _ => c.between(v.t0, v.t1, true),
                    };
                }
                if let Some((m, counts)) = markers {
                    let mut mk = m4::markers(m, v.t0, v.t1, v.columns);
                    if let Some(c) = counts {
                        for (i, &t) in mk.t.clone().iter().enumerate() {
                            let column = (((t - v.t0) / (v.t1 - v.t0) * v.columns as f64).floor().max(0.0) as u32).min(v.columns - 1);
                            mk.count[i] = c.between(edge(&v, column), edge(&v, column + 1), column + 1 == v.columns).max(1).min(u32::MAX as u64) as u32;
                        }
                    }
                    p.markers = Some(mk);
                }
                ViewData::Points(p)
            }
            Entry::Rates { cum, stored } => {
                let default = stored.as_ref().map_or(f64::NAN, |s| s.bin_seconds);
                let default = if default.is_finite() { default } else { self.summary_bin(dir) };
                let mut bin = request::bin_seconds(req.bin_seconds, default, &v, &mut r.clamped);
                if let Some(s) = stored {
                    // Only whole multiples of the stored bin can be summed from it.
                    let m = (bin / s.bin_seconds).round().max(1.0);
                    if ((m * s.bin_seconds) - bin).abs() > bin * 1e-9 {
                        r.clamped.push(format!("bin {} shown as {}: the link holds {} bins", request::fmt_s(bin), request::fmt_s(m * s.bin_seconds), request::fmt_s(s.bin_seconds)));
                    }
                    bin = if m == 1.0 { s.bin_seconds } else { m * s.bin_seconds };
                }
                r.bin_seconds = Some(bin);
                match stored {
                    Some(s) if bin == s.bin_seconds => {
                        let k = |t: f64| ((t / bin).floor() as i64 - s.k0).clamp(0, s.bytes.len() as i64) as usize;
                        let (a, b) = (k(v.t0), (k(v.t1) + 1).min(s.bytes.len()));
                        ViewData::Bins(answers::bins_of(s, a, b.max(a)))
                    }
                    _ => ViewData::Bins(rates::bins(cum, v.t0, v.t1, bin)),
                }
            }
            Entry::Spans { list, total, active } => {
                if req.series == Series::Stalls {
                    let have = stored.as_ref().and_then(|s| s.stall_threshold_ms).unwrap_or(summary_ms);
                    if let Some(ms) = req.stall_threshold_ms.filter(|&ms| (ms - have).abs() > have * 1e-9) {
                        if matches!(self.source, Source::Answers(_)) {
                            r.clamped.push(format!("stall threshold {} ms: the link holds the stalls at {} ms only; open the capture for others", fmt_t(ms), fmt_t(have)));
                        }
                    }
                    r.stall_threshold_ms = Some(have);
                }
                let mut i: Intervals = list.query(v.t0, v.t1, v.columns);
                if let Some(t) = total {
                    i.total_seconds = *t;
                }
                i.active_seconds = *active;
                ViewData::Intervals(i)
            }
        };
        r
    }

    fn stored(&self, series: Series, dir: u8) -> Option<&format::StoredSeries> {
        match &self.source {
            Source::Answers(s) => s.series.iter().find(|x| x.series == series && x.direction == dir),
            Source::Packets(_) => None,
        }
    }

    fn summary_bin(&self, dir: u8) -> f64 {
        self.meta.summary()["directions"][dir as usize]["throughput"]["binSeconds"].as_f64().unwrap_or(0.1)
    }

    /// The summary's stalls of `dir` as spans with their details.
    fn summary_stalls(&self, dir: u8) -> SpanList {
        let list = self.meta.summary()["directions"][dir as usize]["stalls"].as_array().cloned().unwrap_or_default();
        let detail: Vec<Interval> = list
            .iter()
            .map(|s| {
                let start = s["start"].as_f64().unwrap_or(0.0);
                Interval {
                    start,
                    end: start + s["duration"].as_f64().unwrap_or(0.0),
                    cause: s["cause"].as_str().map(str::to_string),
                    frame_before: s["frameBefore"].as_u64().map(|f| f as u32),
                    frame_after: s["frameAfter"].as_u64().map(|f| f as u32),
                    ended_by: s["endedBy"].as_str().map(str::to_string),
                }
            })
            .collect();
        SpanList::new(detail.iter().map(|d| (d.start, d.end)).collect(), detail)
    }

    fn build(&self, series: Series, dir: u8) -> Result<Entry, String> {
        match &self.source {
            Source::Packets(l) => {
                if series == Series::Stalls {
                    return Ok(Entry::Spans { list: self.summary_stalls(dir), total: None, active: None });
                }
                legacy::entry(l, series, dir)
            }
            Source::Answers(s) => {
                let stored = self.stored(series, dir).ok_or_else(|| format!("this link does not hold the {} of direction {dir}; open the capture for it", series_name(series)))?;
                Ok(match &stored.data {
                    StoredData::Points(p) => points_entry(p, &s.grid),
                    StoredData::Rates(r) => rates_entry(r),
                    StoredData::Intervals(i) => spans_entry(i, &s.grid),
                    StoredData::SummaryStalls => Entry::Spans { list: self.summary_stalls(dir), total: None, active: None },
                    StoredData::SummaryStallsInView { total_seconds } => Entry::Spans { list: self.summary_stalls(dir), total: Some(*total_seconds), active: None },
                })
            }
        }
    }
}

fn series_name(s: Series) -> String {
    serde_json::to_value(s).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

fn edge(v: &request::Valid, c: u32) -> f64 {
    if c >= v.columns {
        v.t1
    } else {
        v.t0 + (v.t1 - v.t0) * (c as f64 / v.columns as f64)
    }
}

/// Each stored column becomes one point (one value) or two (min and max, in the
/// order that continues the line from the previous column), inside the column.
fn points_entry(p: &StoredPoints, g: &Grid) -> Entry {
    let (mut t, mut v, mut at) = (Vec::new(), Vec::new(), Vec::new());
    if let Some([bt, bv]) = p.before {
        t.push(bt);
        v.push(bv);
    }
    let mut last = p.before.map(|b| b[1]);
    let ends = p.first.len() == p.column.len() && p.last.len() == p.column.len();
    let times = p.t_first.len() == p.column.len() && p.t_last.len() == p.column.len();
    for i in 0..p.column.len() {
        let (lo, hi) = (p.min[i], p.max[i]);
        let (x, w) = g.column(p.column[i]);
        at.push(x + w / 2.0);
        // Where the first and last point lie: the stored eighth's middle, else ¼ and ¾.
        let (tf, tl) = match times {
            true => (x + (p.t_first[i] as f64 + 0.5) * w / 8.0, x + (p.t_last[i] as f64 + 0.5) * w / 8.0),
            false => (x + w / 4.0, x + 3.0 * w / 4.0),
        };
        if p.count[i] <= 1 {
            t.push(tf);
            v.push(lo);
            last = Some(lo);
            continue;
        }
        let (f, l) = match ends {
            true => (p.first[i], p.last[i]),
            // No ends: the extreme that continues the line first.
            false if last.is_none_or(|l| (l - lo).abs() <= (l - hi).abs()) => (lo, hi),
            false => (hi, lo),
        };
        // first → the extreme nearer to it → the other → last: M4's four values.
        let (a, b) = if (f - lo).abs() <= (f - hi).abs() { (lo, hi) } else { (hi, lo) };
        let step = (tl - tf).max(0.0) / 3.0;
        t.extend([tf, tf + step, tf + 2.0 * step, tf + 3.0 * step]);
        v.extend([f, a, b, l]);
        last = Some(l);
    }
    if let Some([at_, av]) = p.after {
        t.push(at_);
        v.push(av);
    }
    let counts = Counts::new(at, p.count.iter().copied());
    let markers = p.markers.as_ref().map(|m| {
        // The middle of the marker's sub-column step.
        let times: Vec<f64> = m.pos.iter().map(|&s| g.from_sub(s as i64) + g.sub_seconds() / 2.0).collect();
        let col = MarkerColumn { t: times.clone(), v: m.v.clone(), flags: m.flags.clone(), frame: m.frame.clone() };
        (col, Some(Counts::new(times, m.count.iter().copied())))
    });
    Entry::Points { col: PointColumn::new(t, v), counts: Some(counts), markers, total: Some(p.total) }
}

/// Each stored bin's bytes as one event at the bin's centre, so any whole multiple
/// of the bin re-bins exactly (floor((k + ½)·b / (m·b)) = floor(k / m)).
fn rates_entry(r: &StoredRates) -> Entry {
    let (mut t, mut cum) = (Vec::with_capacity(r.bytes.len()), vec![0u64]);
    for (i, &b) in r.bytes.iter().enumerate() {
        if b > 0.0 {
            t.push((r.k0 + i as i64) as f64 * r.bin_seconds + r.bin_seconds / 2.0);
            let last = cum[cum.len() - 1];
            cum.push(last + b.round() as u64);
        }
    }
    Entry::Rates { cum: CumColumn { t: Times::owned(t), cum }, stored: Some(r.clone()) }
}

fn spans_entry(i: &StoredIntervals, g: &Grid) -> Entry {
    let spans = i.spans.iter().map(|&(s, e)| (g.from_sub(s), g.from_sub(e))).collect();
    Entry::Spans { list: SpanList::new(spans, i.detail.clone()), total: Some(i.total_seconds), active: i.active_seconds }
}
