//! Making a link: the live view engine answers the shared view's questions (one per
//! series of the visible charts, at the link's pixel columns), answers.rs reduces
//! them to the pixel grid, format.rs packs them. When the link would be longer than
//! the budget, the value grids are coarsened first (1024 → 512 → 384 → 256 steps: ¼ to
//! ½ pixel on the tallest chart), then where the marks lie in their columns, then
//! each column's first and last value are left out, then the point series' grids go
//! down to one step per plot pixel (192, then `PIXEL_LEVELS`), and only then are the
//! columns lowered (×7/8 each try) until it fits: a link is always made, at the
//! resolution it can carry, and says which ("shared at N px"). Columns come last
//! because the receiver's page asks for the sender's columns: a link at them answers
//! every column with its own minimum and maximum (issue 42, item 5), a lowered one
//! only re-decimates its wider columns, which moves marks sideways.
//!
//! The summary's stall lists (meta.rs): a link lists the stalls the shared view shows —
//! those of the shown direction (the stalls chart, answered from the list) and of the
//! data direction (the diagnosis panel's stall table); of the other direction it keeps
//! only their number (`stallCount`; the page shows it in the per-direction table, and
//! the link holds no chart of that direction to draw them). A request/response
//! connection's request direction can hold a stall per request: rr-loss.pcap's 119
//! took 2.2 KB of the 5.8 KB budget and lowered its link to 100 px. When the listed
//! stalls still leave the charts no room at the requested columns, the lists are
//! shortened before the columns are lowered: first to the stalls that overlap the
//! shared view, then to none (the stalls chart is then drawn from the view engine's
//! own answer, stored like any other series); at lowered columns the fullest list
//! that fits is tried again first. Each shortened list keeps its count
//! (`stallCount`) and the page says how many it lists (DiagnosisPanel): no stall is
//! dropped silently.

use super::answer_bytes::Detail;
use super::answers::{self, Grid, StoredData, LEVELS, MIN_LEVELS, PIXEL_LEVELS};
use super::format::{self, StoredSeries};
use super::meta;
use crate::analysis::Analysis;
use crate::view::request::{self, DEFAULT_COLUMNS, MAX_COLUMNS};
use crate::view::{Series, ViewData, ViewEngine, ViewRequest};
use serde::{Deserialize, Serialize};

/// Longest link text (base64url of the snapshot) by default: issue 15's 8 KB, less
/// room for the page address and the view's own fragment.
pub const DEFAULT_MAX_LINK_CHARS: usize = 8192 - 512;
/// Fewest columns a link is lowered to before it gives up lowering.
const MIN_COLUMNS: u32 = 100;

/// What to share (the page's view state, or the CLI's options). Every field may be
/// left out (its default).
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
#[serde(rename_all = "camelCase", default)]
pub struct ShareSpec {
    pub connection: u32,
    /// View edges, s; None = the view the page opens on (`request::opening_view`).
    pub t0: Option<f64>,
    pub t1: Option<f64>,
    /// Chart ids (throughput, inflight, stalls, sequence, rtt, events); empty = all.
    pub charts: Vec<String>,
    /// Extra series to store (goodput when the chart shows it, the pipe with `#pipe=1`).
    #[cfg_attr(test, ts(as = "Option<Vec<Series>>", optional))]
    pub series: Vec<Series>,
    /// The link's pixel columns (the sender's plot width); 0 = 1600.
    pub columns: u32,
    pub bin_seconds: Option<f64>,
    pub stall_threshold_ms: Option<f64>,
    pub direction: Option<u8>,
    /// Capture name and the view's URL fragment, stored for the receiver.
    pub name: String,
    pub view: String,
    /// Longest link text; 0 = [`DEFAULT_MAX_LINK_CHARS`].
    #[cfg_attr(test, ts(as = "Option<usize>", optional))]
    pub max_link_chars: usize,
    /// Generation of the engine's cache (the worker's capture generation).
    pub generation: u32,
}

/// The ECN series a chart draws besides [`chart_series`] on a connection that carried
/// ECN (web/charts EventsChart, SequenceChart): none otherwise, so other links do not
/// grow. ECE and CWR only where they are echoes (not Accurate ECN's counter bits).
fn ecn_series(chart: &str, conn: &crate::analysis::ConnectionSummary) -> &'static [Series] {
    let ecn: Vec<_> = conn.directions.iter().filter_map(|d| d.ecn).collect();
    let drawn = crate::boundary::charts::chart_of(chart).map_or(&[][..], |c| c.ecn);
    match chart {
        _ if ecn.is_empty() => &[],
        // CE marks alone where the echoes are Accurate ECN's counter bits (no CWR seen).
        "events" if !ecn.iter().all(|e| e.cwr.is_some()) => drawn.get(..1).unwrap_or_default(),
        _ => drawn,
    }
}

/// What a chart draws besides [`chart_series`] on some connections: the MPTCP
/// connection's data-level rate on a subflow's throughput chart (web/charts
/// ThroughputChart), the sender's estimated in flight at a receiver-side capture.
fn mptcp_series(chart: &str, conn: &crate::analysis::ConnectionSummary) -> &'static [Series] {
    match chart {
        "throughput" if conn.mptcp.is_some() => &[Series::MptcpData],
        // The in-flight chart at a receiver-side capture draws the sender's estimated
        // in flight as its line (web/charts InflightChart; analysis/timing/sender_flight.rs).
        "inflight" if conn.vantage == crate::analysis::Vantage::Receiver => &[Series::SenderInflight],
        _ => &[],
    }
}

/// The series each chart always draws (boundary/charts.rs, the page's web/charts).
pub fn chart_series(chart: &str) -> &'static [Series] {
    crate::boundary::charts::chart_of(chart).map_or(&[], |c| c.series)
}

/// A made link: the snapshot bytes and the columns it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Built {
    pub bytes: Vec<u8>,
    pub columns: u32,
    /// Steps of the value grids.
    pub levels: u64,
    /// Which of the summary's stalls the link lists ([`Listing`]).
    pub listing: Listing,
    /// The detail it was written with (`levels` is its steps).
    pub detail: Detail,
}

/// Which stalls of the shown and data directions a link's summary lists (the other
/// direction's are always left out, their count kept: module comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// All of them.
    All,
    /// Those that overlap the shared view.
    InView,
    /// None: the stalls chart is drawn from the stored view answer.
    Counted,
}

/// `report_json`: the capture's schema-1 report (session.report().to_json()).
pub fn build(analysis: &Analysis, report_json: &str, engine: &mut ViewEngine, spec: &ShareSpec) -> Result<Built, String> {
    let index = analysis.connections.iter().position(|c| c.id == spec.connection).ok_or_else(|| format!("no connection {}", spec.connection))?;
    let conn = &analysis.connections[index];
    let report: serde_json::Value = serde_json::from_str(report_json).map_err(|e| format!("the report is not JSON: {e}"))?;
    let summary = report["connections"].as_array().and_then(|a| a.iter().find(|c| c["id"].as_u64() == Some(spec.connection as u64))).cloned().ok_or("the report lacks the connection")?;
    let data_direction = summary["dataDirection"].as_u64().unwrap_or(0) as u8;

    let (open0, open1) = request::opening_view(conn);
    let probe = ViewRequest { generation: spec.generation, connection: spec.connection, series: Series::Throughput, t0: spec.t0.unwrap_or(open0), t1: spec.t1.unwrap_or(open1), columns: 1, bin_seconds: None, stall_threshold_ms: None, direction: spec.direction };
    let v = request::validate(&probe, conn.start, conn.end);
    // A view of zero width (a one-packet connection) still needs a grid.
    let (t0, t1) = if v.t1 > v.t0 { (v.t0, v.t1) } else { (v.t0, v.t0 + 1e-3) };
    let mut wanted: Vec<Series> = Vec::new();
    let charts: Vec<&str> = if spec.charts.is_empty() { crate::boundary::charts::CHARTS.iter().filter(|c| !c.radio_only).map(|c| c.id).collect() } else { spec.charts.iter().map(String::as_str).collect() };
    let extra = charts.iter().flat_map(|c| ecn_series(c, conn).iter().chain(mptcp_series(c, conn)));
    for s in charts.iter().flat_map(|c| chart_series(c)).chain(&spec.series).chain(extra) {
        if !wanted.contains(s) {
            wanted.push(*s);
        }
    }
    // At a receiver-side capture the in-flight chart draws the sender's estimate in the
    // capture point's place (web/charts/InflightChart.tsx): the link holds what it draws.
    if wanted.contains(&Series::SenderInflight) {
        wanted.retain(|s| *s != Series::Inflight);
    }
    let budget = if spec.max_link_chars == 0 { DEFAULT_MAX_LINK_CHARS } else { spec.max_link_chars };
    let mut columns = match spec.columns {
        0 => DEFAULT_COLUMNS,
        c => c.min(MAX_COLUMNS),
    };
    // The link's summary at each listing, for the shown direction: the same at every
    // column count, so made once (again only if the shown direction changed).
    let mut metas: Option<(u8, Vec<(Listing, serde_json::Value)>)> = None;
    loop {
        let grid = Grid { t0, t1, columns };
        let mut series = wanted.iter().map(|&s| stored(engine, analysis, spec, conn.stall_threshold_ms, &grid, s)).collect::<Vec<_>>();
        share_value_grids(&mut series);
        // The shown direction: the one the stored series are of.
        let shown = series.first().map_or(spec.direction.unwrap_or(data_direction), |s| s.0.direction);
        if metas.as_ref().map(|m| m.0) != Some(shown) {
            metas = Some((shown, listed_metas(spec, &report, &summary, [shown, data_direction], (t0, t1))));
        }
        // At each column count the fullest list that fits: the columns come first.
        for (listing, meta_json) in &metas.as_ref().expect("made above").1 {
            let listing = *listing;
            let series: Vec<StoredSeries> = series.iter().map(|(s, at_summary)| with_listing(s, *at_summary, listing)).collect();
            // Finest first: where marks lie in their columns and the column ends kept, then
            // dropped, each from 1024 to 256 steps.
            // Then, before a column is given up, the point series' grids down to one step
            // per plot pixel (coded.rs series_levels): the page asks for its own columns,
            // and only a link at those columns answers each with its own extremes.
            let tries = [(true, true), (false, true), (false, false)]
                .into_iter()
                .flat_map(|(times, ends)| [LEVELS, LEVELS / 2, 3 * LEVELS / 8, MIN_LEVELS].map(move |levels| Detail { levels, ends, times }))
                .chain([3 * MIN_LEVELS / 4, PIXEL_LEVELS].map(|levels| Detail { levels, ends: false, times: false }));
            for detail in tries {
                let bytes = format::encode(meta_json, &grid, &series, detail);
                let last = columns <= MIN_COLUMNS && listing == Listing::Counted && !detail.ends && !detail.times && detail.levels == PIXEL_LEVELS;
                if bytes.len().div_ceil(3) * 4 <= budget || last {
                    return Ok(Built { bytes, columns, levels: detail.levels, listing, detail });
                }
            }
        }
        columns = (columns * 7 / 8).max(MIN_COLUMNS);
    }
}

/// The link's meta JSON at each listing, fullest first. Stalls that all overlap the
/// view list the same as the full list: that listing is left out (tried once).
fn listed_metas(spec: &ShareSpec, report: &serde_json::Value, summary: &serde_json::Value, keep: [u8; 2], view: (f64, f64)) -> Vec<(Listing, serde_json::Value)> {
    let mut out: Vec<(Listing, serde_json::Value)> = Vec::new();
    let mut previous: Option<serde_json::Value> = None;
    for listing in [Listing::All, Listing::InView, Listing::Counted] {
        let listed = listed_summary(summary, &keep, listing, view);
        if listing == Listing::InView && previous.as_ref() == Some(&listed) {
            continue;
        }
        out.push((listing, meta::to_value(&spec.name, &spec.view, report, &listed)));
        previous = Some(listed);
    }
    out
}

/// A direction's stalls as a share link's summary stores them (wasm/src/share/build.rs
/// `listed_summary`): written over the direction's own `stalls` when the link shortens
/// its list. The page's direction type takes `stallCount` from here (web/model/types.ts).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ListedStalls {
    /// The stalls the link lists (the summary's own entries): all of them, those that
    /// overlap the shared view, or none (`Listing`).
    #[cfg_attr(test, ts(as = "Vec<crate::analysis::Stall>"))]
    pub stalls: Vec<serde_json::Value>,
    /// Share links (snapshot format 4, wasm/src/share/build.rs) list only the stalls the
    /// shared view shows: a direction whose list they shortened says here how many stalls
    /// it had (`stalls` then holds fewer, or none). Absent everywhere else.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub stall_count: Option<u64>,
}

/// The summary as a link stores it: the stalls of `keep` (the shown and data
/// directions) as `listing` says, the other direction's left out; a direction whose
/// list is shortened says how many stalls it had ([`ListedStalls::stall_count`], checked by meta.rs).
pub fn listed_summary(summary: &serde_json::Value, keep: &[u8], listing: Listing, (t0, t1): (f64, f64)) -> serde_json::Value {
    let mut out = summary.clone();
    // How the connection ended (analysis/track/ending.rs) stays out of links: ~150 bytes of the
    // budget that rr-loss.pcap's charts need at the page's columns. Where it was
    // abnormal the diagnosis text, which a link keeps, says it; the page treats a
    // missing `ending` as a link made before it.
    if let Some(o) = out.as_object_mut() {
        o.remove("ending");
    }
    // So do the diagnosis's savings (analysis/verdict/savings.rs): the text a link keeps quotes
    // the headline's, and nothing a link draws reads them.
    if let Some(d) = out.get_mut("diagnosis").and_then(|d| d.as_object_mut()) {
        d.remove("savings");
        // And where the transfer began after a head of messages (diagnosis.transferStart,
        // verdict/diagnosis_shares/transfer_head.rs): the text a link keeps says it in its
        // own sentence, and no chart draws it.
        d.remove("transferStart");
    }
    // So does whose stack sent each SYN (handshake.syn.stack, analysis/track/syn_stack.rs):
    // the advice it chose is in the text a link keeps, nothing a link draws reads it, and
    // its bytes cost loss-1pct.pcap's pipe link its columns (session 38: 1.25 % of pixels).
    if let Some(h) = out.get_mut("handshake").and_then(|h| h.as_object_mut()) {
        for side in ["syn", "synAck"] {
            if let Some(o) = h.get_mut(side).and_then(|o| o.as_object_mut()) {
                o.remove("stack");
            }
        }
    }
    if let Some(dirs) = out["directions"].as_array_mut() {
        for (d, dir) in dirs.iter_mut().enumerate() {
            // So do the receiver's SACK-reported losses (direction.lostAfterCapture,
            // unseenResends): the diagnosis text a link keeps says them, nothing a link
            // draws reads them, and meta.rs takes them as optional (links made before them).
            if let Some(o) = dir.as_object_mut() {
                o.remove("lostAfterCapture");
                o.remove("unseenResends");
                // And the path-timing samples' count and median (report.rs
                // `RttSummary::path_samples`): the text a link keeps says the queue they
                // judge, nothing a link draws reads them, the page takes them as optional.
                if let Some(r) = o.get_mut("rtt").and_then(|r| r.as_object_mut()) {
                    r.remove("pathSamples");
                    r.remove("pathMedianMs");
                }
            }
            let Some(list) = dir["stalls"].as_array() else { continue };
            let total = list.len();
            let kept: Vec<serde_json::Value> = match listing {
                _ if !keep.contains(&(d as u8)) => Vec::new(),
                Listing::All => list.clone(),
                Listing::InView => list
                    .iter()
                    .filter(|s| {
                        let (start, duration) = (s["start"].as_f64().unwrap_or(0.0), s["duration"].as_f64().unwrap_or(0.0));
                        start <= t1 && start + duration >= t0
                    })
                    .cloned()
                    .collect(),
                Listing::Counted => Vec::new(),
            };
            if kept.len() < total {
                let listed = ListedStalls { stalls: kept, stall_count: Some(total as u64) };
                if let (Some(fields), serde_json::Value::Object(written)) = (dir.as_object_mut(), serde_json::to_value(listed).expect("plain JSON")) {
                    fields.extend(written);
                }
            }
        }
    }
    out
}

/// A stored series at a listing: the stalls answered from the summary's list while the
/// link lists them (`at_summary`: the view asked at the summary's threshold), else
/// the view engine's answer.
fn with_listing(s: &StoredSeries, at_summary: bool, listing: Listing) -> StoredSeries {
    let data = match (&s.data, listing) {
        _ if s.series != Series::Stalls || !at_summary => return s.clone(),
        (_, Listing::All) => StoredData::SummaryStalls,
        (StoredData::Intervals(i), Listing::InView) => StoredData::SummaryStallsInView { total_seconds: i.total_seconds },
        _ => return s.clone(),
    };
    StoredSeries { data, ..s.clone() }
}

/// Series drawn on one value axis (web/charts): written on one value grid.
const SAME_AXIS: [&[Series]; 2] = [&[Series::Inflight, Series::Rwnd, Series::Pipe, Series::SenderInflight], &[Series::Sequence, Series::Ack, Series::WindowEdge]];

fn share_value_grids(series: &mut [(StoredSeries, bool)]) {
    for group in SAME_AXIS {
        let range = series
            .iter()
            .map(|(s, _)| s)
            .filter(|s| group.contains(&s.series))
            .filter_map(|s| match &s.data {
                StoredData::Points(p) => Some(p.min.iter().chain(&p.max).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)))),
                _ => None,
            })
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (lo, hi)| (a.min(lo), b.max(hi)));
        if range.0 <= range.1 {
            for (s, _) in series.iter_mut().filter(|(s, _)| group.contains(&s.series)) {
                if let StoredData::Points(p) = &mut s.data {
                    p.range = Some(range);
                }
            }
        }
    }
}

/// The series as the view engine answers it on the link's grid, and whether it is the
/// stalls at the summary's threshold (then drawn from the summary's list while the link
/// lists it: the summary's stalls are not stored twice).
fn stored(engine: &mut ViewEngine, analysis: &Analysis, spec: &ShareSpec, summary_threshold_ms: f64, grid: &Grid, series: Series) -> (StoredSeries, bool) {
    let req = ViewRequest {
        generation: spec.generation,
        connection: spec.connection,
        series,
        t0: grid.t0,
        t1: grid.t1,
        columns: grid.columns,
        bin_seconds: spec.bin_seconds,
        stall_threshold_ms: spec.stall_threshold_ms,
        direction: spec.direction,
    };
    let answer = engine.query(analysis, &req);
    let mut data = answers::from_view(&answer.data, grid);
    if let (StoredData::Rates(r), ViewData::Bins(b), Some(bin)) = (&mut data, &answer.data, answer.bin_seconds) {
        r.bin_seconds = bin;
        r.k0 = (b.start / bin).round() as i64;
    }
    let at_summary = series == Series::Stalls && answer.stall_threshold_ms == Some(summary_threshold_ms);
    let error_bound = answer.error_bound.filter(|_| series == Series::SenderInflight);
    (StoredSeries { series, direction: answer.direction, notes: answer.notes.into_iter().take(8).collect(), stall_threshold_ms: answer.stall_threshold_ms, error_bound, data }, at_summary)
}
