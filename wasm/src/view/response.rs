//! The view answer: at most a few numbers per pixel column, whatever the zoom.
//! Serialized as JSON (camelCase; the `kind` field tells the data's shape) for the
//! CLI, and packed into typed arrays for the worker (packed.rs).

use super::request::{Series, Valid, ViewRequest};
use serde::{Deserialize, Serialize};

/// Version of the view protocol (request and answer); bump on any rename or change
/// of meaning, so both sides of the worker boundary can check they agree.
pub const VIEW_SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ViewResponse {
    pub schema_version: u32,
    pub generation: u32,
    pub connection: u32,
    pub series: Series,
    /// Sending direction the series describes.
    pub direction: u8,
    /// The view after validation (seconds since the first packet of the file).
    pub t0: f64,
    pub t1: f64,
    pub columns: u32,
    /// Effective bin of rate series (after clamping); None for other series.
    pub bin_seconds: Option<f64>,
    /// Effective stall threshold of the `stalls` series.
    pub stall_threshold_ms: Option<f64>,
    /// What was clamped and why, one sentence each (the UI shows them).
    pub clamped: Vec<String>,
    /// Caveats about the data itself (e.g. the window scale is unknown).
    pub notes: Vec<String>,
    /// Why nothing could be answered (unknown connection, no capture yet).
    pub error: Option<String>,
    /// `senderInflight`: ± bytes, the error bound nine in ten of its points keep
    /// (analysis/sender_flight.rs `SenderFlight::label_bound`); None for other series
    /// and where no bound is known (no TCP timestamps).
    pub error_bound: Option<f64>,
    #[serde(flatten)]
    pub data: ViewData,
}

impl ViewResponse {
    /// The answer to `req` before its data: the validated view `v`, its clamp
    /// sentences, and sending direction `direction`. The engine and a share link's
    /// session (share/session.rs) both start from it.
    pub fn for_view(req: &ViewRequest, v: &Valid, direction: u8) -> ViewResponse {
        ViewResponse {
            schema_version: VIEW_SCHEMA_VERSION,
            generation: req.generation,
            connection: req.connection,
            series: req.series,
            direction,
            t0: v.t0,
            t1: v.t1,
            columns: v.columns,
            bin_seconds: None,
            stall_threshold_ms: None,
            clamped: v.clamped.clone(),
            notes: Vec::new(),
            error: None,
            error_bound: None,
            data: ViewData::None,
        }
    }
}

// One answer per query, moved once: the variants' size difference costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ViewData {
    None,
    Bins(Bins),
    Points(Points),
    Intervals(Intervals),
    Wifi(crate::analysis::radio::WifiBins),
}

/// Rate bins on the one grid: bin i covers [start + i·bin, start + (i+1)·bin), and
/// start is a multiple of the bin from t = 0, the grid of the summary's mean/peak.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Bins {
    pub start: f64,
    /// Bytes in each bin (payload, frame or newly acknowledged bytes); for the event
    /// series (retransmissions, duplicateAcks, zeroWindows) the number of events.
    #[cfg_attr(test, ts(type = "Array<number>"))]
    pub bytes: Vec<u64>,
    /// bytes × 8 / bin.
    pub bps: Vec<f64>,
    /// Centred moving average over `average_bins` bins (≈ 1 s, at least 5), clipped to
    /// the bins of the direction's first and last event, bit/s; null where no bin
    /// of the series is within reach.
    pub average_bps: Vec<Option<f64>>,
    pub average_bins: u32,
    /// While a capture loads (view/partial.rs), the bin after the settled ones: the
    /// bytes analysed in it so far. Absent from every finished answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub loading: Option<LoadingBin>,
}

/// The bin in progress of a partial throughput answer (docs/ANALYSIS.md "Progressive
/// view"): bin `index` of the answer's grid (right after its settled bins) holds at
/// least `bytes`, the payload of the packets analysed in it up to `settled_to`; packets
/// still to come can only add to it (the timeline's times never go back), so it is a
/// lower bound of the finished chart's bin, never more.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LoadingBin {
    /// Its place in the answer's bins (= the number of settled bins before it).
    pub index: u32,
    #[cfg_attr(test, ts(type = "number"))]
    pub bytes: u64,
    /// bytes × 8 / bin: the lowest the finished bin can be.
    pub bps: f64,
    /// Seconds since the file's first packet up to which the bin is counted.
    pub settled_to: f64,
}

/// M4 decimation (Jugel et al., "M4: A Visualization-Oriented Time Series Data
/// Aggregation", VLDB 2014): per non-empty pixel column, the first, last, minimum and
/// maximum point, so a line drawn through them covers the same pixels as one drawn
/// through every point — a spike or a gap never vanishes when zoomed out.
/// Column c covers [t0 + c·w, t0 + (c+1)·w), w = (t1 − t0) / columns, the last one
/// closed at t1. Arrays are parallel, one entry per non-empty column.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Points {
    pub column: Vec<u32>,
    /// Points in the column.
    pub count: Vec<u32>,
    pub t_first: Vec<f64>,
    pub first: Vec<f64>,
    pub t_last: Vec<f64>,
    pub last: Vec<f64>,
    pub min: Vec<f64>,
    pub max: Vec<f64>,
    /// The last point before t0 and the first after t1 (t, v), so lines and steps run
    /// to the plot's edges.
    pub before: Option<[f64; 2]>,
    pub after: Option<[f64; 2]>,
    /// Points in [t0, t1].
    #[cfg_attr(test, ts(type = "number"))]
    pub total: u64,
    /// Points drawn apart, at most one per pixel column (the first in it) with the
    /// column's count. Sequence: retransmitted / not-captured / out-of-order segments.
    /// RTT: samples kept out of the statistics (rtt.rs: old timestamp echoes,
    /// recovery, probes; RFC 7323 §4.3), which the main points leave out.
    pub markers: Option<Markers>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Markers {
    pub t: Vec<f64>,
    /// Sequence number, or RTT in ms.
    pub v: Vec<f64>,
    /// Sequence: low 8 bits TCP flags, above `analysis::columns::flag_bits`.
    /// RTT: the sample's kind (bit 0 timestamp, bit 1 excluded, bit 2 an echo by the
    /// peer's new data that acknowledges none of ours: analysis/round_trips.rs `CLOCKED`).
    pub flags: Vec<u32>,
    /// Sequence: frame number; RTT: 0.
    pub frame: Vec<u32>,
    /// Markers in that pixel column.
    pub count: Vec<u32>,
}

/// Time intervals overlapping [t0, t1] (true extents, not cut at the view edges),
/// in time order, at most [`super::intervals::cap`] of them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Intervals {
    pub intervals: Vec<Interval>,
    /// Intervals in the view that are not listed (the "N more" marker).
    #[cfg_attr(test, ts(type = "number"))]
    pub more: u64,
    /// Share of each pixel column covered by intervals, 0..1; only when `more` > 0,
    /// so the unlisted ones still show.
    pub coverage: Option<Vec<f32>>,
    /// Seconds covered by all intervals of the connection (not only the view).
    pub total_seconds: f64,
    /// Window-limited: the data direction's active time (first to last data
    /// segment), so total / active is the diagnosis's receive-window share.
    pub active_seconds: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Interval {
    pub start: f64,
    pub end: f64,
    /// Stalls: DESIGN.md's cause (kebab-case, as in the summary).
    pub cause: Option<String>,
    pub frame_before: Option<u32>,
    pub frame_after: Option<u32>,
    pub ended_by: Option<String>,
}
