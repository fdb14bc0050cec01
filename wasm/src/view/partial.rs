//! Partial answers while a capture loads (issue 41, docs/ANALYSIS.md "Progressive
//! view"): the connection table so far and the throughput bins so far, served from
//! the analyzer's own running state (analysis/run/analyzer.rs `running`) through the same
//! validation and the same binning code as the final answers (request.rs, rates.rs).
//! Nothing is copied or kept for them: each answer reads the running bins in place
//! and costs what the view's pixel columns cost.
//!
//! What a partial answer promises (tested in tests/view_partial.rs):
//! - a bin is answered only once it is **settled**: the timeline hands the analysis
//!   packets at times that never go back (analysis/capture/timeline.rs), so a bin that ends at
//!   or before the latest time analysed gets no more bytes, and with the final bin its
//!   bytes are the final chart's bytes, on the same grid (multiples of the bin from the
//!   file's first packet). Later bins are left out: the chart grows to the right.
//! - the one bin after them, the bin in progress (`Bins::loading`), comes apart from
//!   them with the bytes analysed in it so far: a lower bound of its final bytes (packets
//!   still to come are later, and can only add), drawn as such by the page.
//! - the moving average is given only where its whole window is settled and inside
//!   the data seen so far, so it too is the final one where it is drawn.
//! - what can still differ is said in `notes`: a connection shorter than
//!   `MIN_BINS` running bins so far may get a finer bin at the end (throughput.rs
//!   `auto_bin`); a bin coarsened for a wide view is built from whole running bins,
//!   so a packet within floating-point rounding of a coarse edge may sit one bin over;
//!   packets past the store's budget (limits.rs) are counted here but not in the
//!   final chart.
//! - every other series waits for the end of the load: it needs the end-of-capture
//!   analysis (stall causes, the window scale, RTT rules) and says so.

use super::rates;
use super::request::{self, Series, ViewRequest};
use super::response::{LoadingBin, ViewData, ViewResponse};
use super::sources::CumColumn;
use super::times::Times;
use crate::analysis::connections::endpoint_name;
use crate::analysis::throughput::{RunningBins, MIN_BINS};
use crate::session::Running;
use serde::Serialize;

/// The sentence of a series that is drawn only from the finished analysis.
pub const AFTER_THE_LOAD: &str = "drawn after the load: this chart needs the end-of-capture analysis";

/// Most rows the partial table lists (the page shows the largest connections so far).
pub const MAX_PARTIAL_ROWS: usize = 50;

/// JSON in, the answer out (the worker's `view` while the capture loads).
pub fn respond(running: Option<Running<'_>>, request: &str) -> ViewResponse {
    match serde_json::from_str::<ViewRequest>(request) {
        Ok(req) => match running {
            Some(r) => query(r, &req),
            None => super::failed(&req, "the capture is not being read".into()),
        },
        Err(e) => {
            let req = ViewRequest { generation: 0, connection: 0, series: Series::Throughput, t0: 0.0, t1: 0.0, columns: 0, bin_seconds: None, stall_threshold_ms: None, direction: None };
            super::failed(&req, format!("request is not a view request: {e}"))
        }
    }
}

/// One view request answered from the running state (see the module comment).
pub fn query(run: Running<'_>, req: &ViewRequest) -> ViewResponse {
    let Some(conn) = run.analyzer.running(req.connection as usize) else {
        return super::failed(req, format!("no connection {} so far", req.connection));
    };
    let v = request::validate(req, conn.first_t, conn.last_t);
    let data_direction = u8::from(conn.directions[1].payload > conn.directions[0].payload);
    let mut r = ViewResponse::for_view(req, &v, data_direction);
    match req.direction {
        Some(d) if d <= 1 => r.direction = d,
        Some(d) => r.clamped.push(format!("direction {d} does not exist: the data direction {}", r.direction)),
        None => {}
    }
    if req.series != Series::Throughput {
        r.error = Some(AFTER_THE_LOAD.into());
        return r;
    }
    let running = conn.directions[r.direction as usize];
    let base = running.bin_seconds;
    let mut bin = request::bin_seconds(req.bin_seconds, base, &v, &mut r.clamped);
    // Only whole multiples of the running bin can be built from it; request.rs's
    // coarsening multiplies by 1-2-5 steps, so the summary's bin stays exact.
    let multiple = (bin / base).round().max(1.0);
    if (multiple * base - bin).abs() > 1e-9 * bin {
        let whole = base * (bin / base).ceil().max(1.0);
        r.clamped.push(format!("bin {} while loading: whole multiples of the {} bin the analysis counts as it reads ({})", request::fmt_s(bin), request::fmt_s(base), request::fmt_s(whole)));
        bin = whole;
    } else if multiple > 1.0 {
        bin = base * multiple;
    }
    let m = ((bin / base).round() as i64).max(1);
    r.bin_seconds = Some(bin);
    let duration = if conn.last_t > conn.first_t { conn.last_t - conn.first_t } else { 0.0 };
    if duration < MIN_BINS * base {
        r.notes.push(format!("loading: the connection is shorter than {} so far; the finished chart may use a finer bin", request::fmt_s(MIN_BINS * base)));
    }
    if run.analyzer.tick_seconds() > base {
        r.notes.push("loading: the capture clock ticks slower than the bin; the finished chart uses one tick per bin".into());
    }
    if conn.unstored > 0 {
        r.notes.push(format!("loading: past the packet budget (limits.rs) the finished chart stops at the first {} packets", conn.packets - conn.unstored));
    }
    if m > 1 {
        r.notes.push("loading: coarse bins are built from whole running bins; a packet within rounding of a coarse edge may move one bin at the end".into());
    }
    // Coarse bin K is settled when all its running bins end at or before `settled_t`:
    // running bin k is settled when k < floor(settled_t / base).
    let settled_k = run.settled_t.map_or(i64::MIN, |t| rates::bin_of(t, base));
    let open_coarse = settled_k.div_euclid(m);
    let bins = settled_bins(&running, m, bin, open_coarse.saturating_mul(m), v.t0, v.t1);
    let (k0, k1) = (rates::bin_of(v.t0, bin), rates::bin_of(v.t1, bin));
    let mut out = bins;
    // Bins up to the last settled one; none when the view starts after it.
    let keep = if settled_k == i64::MIN { 0 } else { (open_coarse - k0).clamp(0, (k1 - k0 + 1).max(0)) as usize };
    out.bytes.truncate(keep);
    out.bps.truncate(keep);
    out.average_bps.truncate(keep);
    out.loading = run.settled_t.and_then(|t| loading_bin(&running, m, bin, open_coarse, k0, k1, out.bytes.len(), t));
    r.data = ViewData::Bins(out);
    r
}

/// The bin in progress (response.rs `LoadingBin`): coarse bin `open` — the one holding
/// `settled_t`, right after the `settled` bins answered — with the bytes analysed in it
/// so far, when the view reaches it and it has any. Every packet analysed is at or
/// before `settled_t`, so its running bins are the last ones: at most `m` entries.
/// On 10^5 short connections this is the first bar: the first 100 ms bin settles only
/// once ≈ 52,000 packets past the timeline's 65,536 held ones are decoded (≈ 45 MB
/// against ≈ 25 MB when the table first lists a connection; bench/README.md).
#[allow(clippy::too_many_arguments)]
fn loading_bin(running: &RunningBins<'_>, m: i64, bin: f64, open: i64, k0: i64, k1: i64, settled: usize, settled_t: f64) -> Option<LoadingBin> {
    if open < k0 || open > k1 || (open - k0) as usize != settled {
        return None;
    }
    let (lo, hi) = (open.saturating_mul(m), open.saturating_add(1).saturating_mul(m));
    let bytes: u64 = running.bins.iter().rev().take_while(|e| e.0 >= lo).filter(|e| e.0 < hi).map(|e| e.1).sum();
    (bytes > 0).then(|| LoadingBin { index: settled as u32, bytes, bps: crate::analysis::throughput::rate_bps(bytes, bin), settled_to: settled_t })
}

/// rates::bins over a column made of the settled running bins the view's bins and
/// their moving average reach, plus the direction's first bin (the average is clipped
/// to it): its length is bounded by the view's bins, not by the connection's.
/// `settled_k`: running bins below it belong to settled coarse bins.
fn settled_bins(running: &RunningBins<'_>, m: i64, bin: f64, settled_k: i64, t0: f64, t1: f64) -> super::response::Bins {
    let base = running.bin_seconds;
    let entries = running.bins;
    let w = rates::average_bins(bin) as i64;
    let (before, after) = ((w - 1) / 2, w - 1 - (w - 1) / 2);
    let (k0, k1) = (rates::bin_of(t0, bin), rates::bin_of(t1, bin));
    let (from, to) = (k0.saturating_sub(before).saturating_mul(m), k1.saturating_add(after).saturating_add(1).saturating_mul(m).min(settled_k));
    // In time order (the timeline's); a slice out of order is filtered, not searched.
    let sorted = entries.windows(2).all(|p| p[0].0 < p[1].0);
    let mut picked: Vec<(i64, u64)> = if sorted {
        let a = entries.partition_point(|e| e.0 < from);
        let b = entries.partition_point(|e| e.0 < to);
        entries[a..b.max(a)].to_vec()
    } else {
        let mut v: Vec<(i64, u64)> = entries.iter().copied().filter(|e| e.0 >= from && e.0 < to).collect();
        v.sort_unstable_by_key(|e| e.0);
        v
    };
    let first = entries.iter().map(|e| e.0).filter(|&k| k < settled_k).min();
    if let Some(f) = first.filter(|&f| f < from) {
        // Its bytes fall before every bin asked; it only sets where the average starts.
        picked.insert(0, (f, 0));
    }
    // Each running bin stands at its middle: floor((k + ½)·base / bin) is its coarse
    // bin for any whole multiple, far from rounding (k + ½ is never a multiple of m).
    let t: Vec<f64> = picked.iter().map(|&(k, _)| (k as f64 + 0.5) * base).collect();
    let bytes: Vec<u64> = picked.iter().map(|&(_, b)| b).collect();
    let column = CumColumn::from_events(Times::owned(t), bytes);
    let mut out = rates::bins(&column, t0, t1, bin);
    // The average where its window is settled and inside the data so far: the last
    // settled bin with data bounds it (the final series ends there or later).
    let last_data = picked.iter().rev().find(|e| e.1 > 0).map(|e| e.0.div_euclid(m));
    for (i, a) in out.average_bps.iter_mut().enumerate() {
        let k = k0 + i as i64;
        if last_data.is_none_or(|l| k + after > l) {
            *a = None;
        }
    }
    out
}

/// The connection table so far: the largest connections by payload bytes.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PartialTable {
    /// Connections seen so far.
    pub connections: u32,
    /// Seconds since the file's first packet up to which the analysis is settled
    /// (every packet still to come is later); null before the first packet.
    pub settled_t: Option<f64>,
    /// The newest packet time decoded so far (s since the file's first packet): the
    /// timeline holds up to 2 s or 65,536 packets after `settled_t` for sorting. With the
    /// share of the file decoded, the page estimates the capture's length as
    /// `decoded_t` ÷ that share. Null before the first packet reached the analysis.
    pub decoded_t: Option<f64>,
    /// The largest connections so far, by payload bytes (both directions), largest
    /// first (ties: lower id first); at most `MAX_PARTIAL_ROWS`.
    pub rows: Vec<PartialRow>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PartialRow {
    /// The connection's id once the analysis finishes (ids are positions).
    pub id: u32,
    /// Endpoint of direction 0 (the first packet's sender) and of direction 1.
    pub endpoints: [String; 2],
    pub packets: u64,
    /// Payload bytes of direction 0 and 1 so far.
    pub payload_bytes: [u64; 2],
    /// The direction that sent more payload so far.
    pub data_direction: u8,
    /// First and latest packet so far, s since the file's first packet.
    pub start: f64,
    pub end: f64,
}

/// The `count` (≤ MAX_PARTIAL_ROWS) largest connections so far, in one pass over the
/// connections with a bounded selection (no allocation per connection).
pub fn table(run: Running<'_>, count: usize) -> PartialTable {
    let count = count.min(MAX_PARTIAL_ROWS);
    let n = run.analyzer.connection_count();
    // (payload, Reverse(id)) largest first; a min-heap of the best `count`.
    let mut best: std::collections::BinaryHeap<std::cmp::Reverse<(u64, std::cmp::Reverse<u32>)>> = std::collections::BinaryHeap::with_capacity(count + 1);
    for i in 0..n {
        let Some(c) = run.analyzer.running(i) else { continue };
        let key = (c.directions[0].payload + c.directions[1].payload, std::cmp::Reverse(i as u32));
        if best.len() < count {
            best.push(std::cmp::Reverse(key));
        } else if best.peek().is_some_and(|w| key > w.0) {
            best.pop();
            best.push(std::cmp::Reverse(key));
        }
    }
    let mut ids: Vec<(u64, std::cmp::Reverse<u32>)> = best.into_iter().map(|r| r.0).collect();
    ids.sort_unstable_by(|a, b| b.cmp(a));
    let rows = ids
        .into_iter()
        .filter_map(|(_, std::cmp::Reverse(id))| {
            let c = run.analyzer.running(id as usize)?;
            let payload_bytes = [c.directions[0].payload, c.directions[1].payload];
            Some(PartialRow {
                id,
                endpoints: c.endpoints.map(|(a, p)| endpoint_name(a, p)),
                packets: c.packets,
                payload_bytes,
                data_direction: u8::from(payload_bytes[1] > payload_bytes[0]),
                start: c.first_t,
                end: c.last_t,
            })
        })
        .collect();
    PartialTable { connections: n as u32, settled_t: run.settled_t, decoded_t: run.decoded_t, rows }
}
