//! The value under the pointer (issue 14, item 5: "hover tooltips ask the engine for
//! exact values at the cursor"). A view query answers per pixel column; a tooltip
//! names one thing: the rate bin that contains t, the stall or window-limited span
//! that contains t, or the point nearest to t. It is answered from the same cached
//! columns as the view, so the tooltip's number is the drawn number.

use super::cache::{Entry, Key};
use super::request::{Series, ViewRequest, MAX_ABS_T};
use super::response::ViewData;
use super::ViewEngine;
use crate::analysis::Analysis;
use serde::{Deserialize, Serialize};

/// "What is at time t in this series?"
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AtRequest {
    pub generation: u32,
    pub connection: u32,
    pub series: Series,
    /// Seconds since the first packet of the file.
    pub t: f64,
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub direction: Option<u8>,
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub bin_seconds: Option<f64>,
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub stall_threshold_ms: Option<f64>,
}

/// The answer; `found` false when nothing is there (no bin, no interval, no point).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ViewAt {
    pub generation: u32,
    pub found: bool,
    /// Time of the point, or start of the bin / interval.
    pub t: f64,
    /// End of the bin / interval; None for a point.
    pub t_end: Option<f64>,
    /// The point's value (bytes, sequence number, ms) or the bin's bit/s.
    pub value: Option<f64>,
    /// Bytes in the bin (rate series).
    pub bytes: Option<f64>,
    /// Stalls: the cause (kebab-case, as in the summary).
    pub cause: Option<String>,
    pub frame_before: Option<u32>,
    pub frame_after: Option<u32>,
    pub error: Option<String>,
}

impl ViewEngine {
    pub fn at(&mut self, analysis: &Analysis, req: &AtRequest) -> ViewAt {
        let t = if req.t.is_finite() { req.t.clamp(-MAX_ABS_T, MAX_ABS_T) } else { 0.0 };
        // One column around t: the bin containing t, the intervals overlapping it, and
        // (for point series) the cache entry built, so the nearest point is one search.
        let view = ViewRequest {
            generation: req.generation,
            connection: req.connection,
            series: req.series,
            t0: t,
            t1: t,
            columns: 1,
            bin_seconds: req.bin_seconds,
            stall_threshold_ms: req.stall_threshold_ms,
            direction: req.direction,
        };
        let r = self.query(analysis, &view);
        let mut out = ViewAt { generation: req.generation, t, error: r.error.clone(), ..ViewAt::default() };
        match &r.data {
            ViewData::Bins(b) => {
                if let (Some(&bytes), Some(&bps), Some(bin)) = (b.bytes.first(), b.bps.first(), r.bin_seconds) {
                    out = ViewAt { found: true, t: b.start, t_end: Some(b.start + bin), value: Some(bps), bytes: Some(bytes as f64), ..out };
                }
            }
            ViewData::Intervals(i) => {
                if let Some(s) = i.intervals.iter().find(|s| s.start <= t && t <= s.end) {
                    out = ViewAt {
                        found: true,
                        t: s.start,
                        t_end: Some(s.end),
                        cause: s.cause.clone(),
                        frame_before: s.frame_before,
                        frame_after: s.frame_after,
                        ..out
                    };
                }
            }
            ViewData::Points(_) => {
                let conn = analysis.connections.iter().position(|c| c.id == req.connection).unwrap_or(0);
                let key = Key::Points { conn, dir: r.direction, series: req.series };
                // Built by the query above (absent only when larger than the cache).
                if let Some(Entry::Points(p)) = self.cache.get(&key) {
                    let k = p.lower_bound(t);
                    let best = [k.checked_sub(1), (k < p.len()).then_some(k)]
                        .into_iter()
                        .flatten()
                        .min_by(|&a, &b| (p.t[a] - t).abs().total_cmp(&(p.t[b] - t).abs()));
                    if let Some(k) = best {
                        out = ViewAt { found: true, t: p.t[k], value: Some(p.v[k]), ..out };
                    }
                }
            }
            ViewData::Wifi(w) => {
                if let (Some(&rate), Some(&share), Some(bin)) = (w.phy_rate_mbps.first(), w.retry_share.first(), r.bin_seconds) {
                    out = ViewAt { found: share.is_some(), t: w.start, t_end: Some(w.start + bin), value: rate, ..out };
                }
            }
            ViewData::None => {}
        }
        out
    }

    /// JSON in, JSON out (the wasm binding). A request that does not parse is
    /// answered with `error` set, never a panic.
    pub fn at_json(&mut self, analysis: Option<&Analysis>, request: &str) -> String {
        let answer = match (serde_json::from_str::<AtRequest>(request), analysis) {
            (Ok(req), Some(a)) => self.at(a, &req),
            (Ok(req), None) => ViewAt { generation: req.generation, error: Some("the capture is not analysed yet".into()), ..ViewAt::default() },
            (Err(e), _) => ViewAt { error: Some(format!("request is not an 'at' request: {e}")), ..ViewAt::default() },
        };
        serde_json::to_string(&answer).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}
