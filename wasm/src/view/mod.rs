//! View queries (issue 14, DESIGN.md "Architecture (second round)"): the one place
//! that turns an analysis into what a chart draws. A question is pixel-sized —
//! (capture generation, connection, series, t0, t1, columns) — and so is the answer:
//! rate bins on the summary's grid (rates.rs), M4 points per pixel column (m4.rs),
//! or intervals (intervals.rs). Queries read sorted per-connection columns built
//! once from the compact store and cached (cache.rs); their cost and allocation are
//! bounded by the columns, never by time span, bin or threshold (request.rs).
//!
//! The browser worker, the CLI (`tcpscope series`) and the tests ask the same
//! questions through [`ViewEngine::query_json`], so what a chart draws can be
//! checked from the shell.

pub mod at;
pub mod cache;
pub mod intervals;
pub mod m4;
pub mod packed;
pub mod packet_series;
pub mod partial;
pub mod pyramid;
pub mod rates;
pub mod request;
pub mod response;
pub mod sources;
pub mod stalls;
pub mod times;
pub mod wifi;
pub mod ts_types;

pub use at::{AtRequest, ViewAt};
pub use request::{Series, ViewRequest};
pub use response::{ViewData, ViewResponse, VIEW_SCHEMA_VERSION};

use crate::analysis::columns::PacketColumns;
use crate::analysis::store::ConnStore;
use crate::analysis::round_trips::RoundTripRule;
use crate::analysis::{diagnosis_shares, sender_flight, window, Analysis, ConnectionSummary, Vantage};
use cache::{Cache, Entry, Key};
use intervals::SpanList;

/// What [`ViewEngine::prepare`] builds: throughput asks for the per-packet set that
/// in flight, receive window, sequence, ACK and window edge share (packet_series.rs);
/// RTT has columns of its own. The rest the default charts ask for (window-limited
/// spans, stalls at the summary's threshold) is kept by the analysis already.
const PREPARED_SERIES: [Series; 2] = [Series::Throughput, Series::Rtt];

/// Answers view requests over one capture's analysis, caching what it builds.
#[derive(Default)]
pub struct ViewEngine {
    cache: Cache,
}

impl ViewEngine {
    pub fn new() -> ViewEngine {
        ViewEngine::default()
    }

    /// Forget everything built (a new capture; also done when the generation changes).
    pub fn clear(&mut self) {
        self.cache.clear();
    }

    /// Bytes the cache holds now.
    pub fn cached_bytes(&self) -> usize {
        self.cache.held_bytes()
    }

    /// JSON in, JSON out (the CLI, and the tests). A request that does not parse is
    /// answered with `error` set, never a panic.
    pub fn query_json(&mut self, analysis: Option<&Analysis>, request: &str) -> String {
        let response = self.respond(analysis, request);
        serde_json::to_string(&response).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// JSON in, the same answer as a header and two number arrays out (the worker,
    /// packed.rs).
    pub fn query_packed(&mut self, analysis: Option<&Analysis>, request: &str) -> packed::PackedResponse {
        packed::pack(self.respond(analysis, request))
    }

    fn respond(&mut self, analysis: Option<&Analysis>, request: &str) -> ViewResponse {
        match serde_json::from_str::<ViewRequest>(request) {
            Ok(req) => match analysis {
                Some(a) => self.query(a, &req),
                None => failed(&req, "the capture is not analysed yet".into()),
            },
            Err(e) => {
                let req = ViewRequest { generation: 0, connection: 0, series: Series::Throughput, t0: 0.0, t1: 0.0, columns: 0, bin_seconds: None, stall_threshold_ms: None, direction: None };
                failed(&req, format!("request is not a view request: {e}"))
            }
        }
    }

    /// Builds now what the charts of `connection` ask first (its data direction's
    /// per-packet set, its RTT samples and markers), so that their first queries are
    /// answered from the cache. The worker calls this while the page renders the
    /// report (the two then run on two cores, issue 14's drop → chart); the answers
    /// are thrown away, and a guess the page does not follow costs only time.
    pub fn prepare(&mut self, analysis: &Analysis, generation: u32, connection: u32) {
        let Some(conn) = analysis.connections.iter().find(|c| c.id == connection) else { return };
        let (t0, t1) = request::opening_view(conn);
        for series in PREPARED_SERIES {
            let req = ViewRequest { generation, connection, series, t0, t1, columns: 1, bin_seconds: None, stall_threshold_ms: None, direction: None };
            self.query(analysis, &req);
        }
    }

    pub fn query(&mut self, analysis: &Analysis, req: &ViewRequest) -> ViewResponse {
        self.cache.generation(req.generation);
        // Ids are positions (Analyzer::finish numbers connections in order).
        let index = match analysis.connections.get(req.connection as usize) {
            Some(c) if c.id == req.connection => Some(req.connection as usize),
            _ => analysis.connections.iter().position(|c| c.id == req.connection),
        };
        let (Some(conn), Some(store)) = (index.and_then(|i| analysis.connections.get(i)), index.and_then(|i| analysis.stores.get(i))) else {
            return failed(req, format!("no connection {}", req.connection));
        };
        let conn_index = index.unwrap_or(0);
        let v = request::validate(req, conn.start, conn.end);
        let mut r = ViewResponse::for_view(req, &v, conn.data_direction.min(1));
        match req.direction {
            Some(d) if d <= 1 => r.direction = d,
            Some(d) => r.clamped.push(format!("direction {d} does not exist: the data direction {}", r.direction)),
            None => {}
        }
        let (dir, cache) = (r.direction, &mut self.cache);
        notes(conn, store.packet_count(), req.series, dir, &mut r.notes);
        r.data = match req.series {
            Series::Ece | Series::Cwr if accurate_ecn(conn) => {
                r.notes.push(ACCURATE_ECN_NOTE.into());
                ViewData::None
            }
            Series::MptcpData => {
                let summary_bin = conn.directions[dir as usize].throughput.bin_seconds;
                let bin = request::bin_seconds(req.bin_seconds, summary_bin, &v, &mut r.clamped);
                r.bin_seconds = Some(bin);
                match conn.mptcp.and_then(|g| analysis.mptcp.get(g as usize).map(|m| (g, m))) {
                    None => {
                        r.notes.push(NOT_MPTCP_NOTE.into());
                        ViewData::None
                    }
                    Some((group, m)) => {
                        // The subflow's data direction is the MPTCP connection's.
                        let md = if dir == conn.data_direction { m.data_direction } else { 1 - m.data_direction.min(1) };
                        let arrivals = &m.arrivals[md as usize & 1];
                        if arrivals.capped {
                            r.notes.push(format!("only the first {} timed data-level pieces of the capture are kept (mptcp.rs MAX_ARRIVALS): the MPTCP rate stops early", crate::analysis::mptcp::MAX_ARRIVALS));
                        }
                        let key = Key::Mptcp { group, md };
                        match cache.get_or_build(key, || Entry::Cum(sources::CumColumn::from_events(times::Times::owned(arrivals.t.clone()), arrivals.bytes.clone()))) {
                            Entry::Cum(c) => ViewData::Bins(rates::bins(c, v.t0, v.t1, bin)),
                            _ => ViewData::None,
                        }
                    }
                }
            }
            s if s.is_rate() => {
                let summary_bin = conn.directions[dir as usize].throughput.bin_seconds;
                let bin = request::bin_seconds(req.bin_seconds, summary_bin, &v, &mut r.clamped);
                r.bin_seconds = Some(bin);
                // Byte rates and event counts (retransmissions, duplicate ACKs, zero
                // windows) all come from the per-packet set (packet_series.rs).
                let key = Key::Packets { conn: conn_index, dir };
                match cache.get_or_build(key, || Entry::Packets(Box::new(packet_series::build(store, dir, side_rows(conn, dir))))) {
                    Entry::Packets(p) => p.rate(s).map_or(ViewData::None, |c| ViewData::Bins(rates::bins(c, v.t0, v.t1, bin))),
                    _ => ViewData::None,
                }
            }
            // RTT samples and the SACK-adjusted pipe are built apart from the
            // per-packet set (the pipe needs the peer's SACK rows; packet_series.rs).
            Series::Rtt | Series::Pipe => {
                let rule = RoundTripRule::of(conn, analysis.capture.timestamp_resolution_s());
                let key = Key::Points { conn: conn_index, dir, series: req.series };
                let mut points = match cache.get_or_build(key, || Entry::Points(sources::points(store, req.series, dir, &rule))) {
                    Entry::Points(p) => m4::query(p, v.t0, v.t1, v.columns),
                    _ => Default::default(),
                };
                let key = Key::Markers { conn: conn_index, dir, series: Series::Rtt };
                if req.series == Series::Rtt {
                    if let Entry::Markers(m) = cache.get_or_build(key, || Entry::Markers(sources::markers(store, Series::Rtt, dir, &rule))) {
                        points.markers = Some(m4::markers_largest(m, v.t0, v.t1, v.columns));
                    }
                }
                ViewData::Points(points)
            }
            Series::SenderInflight if conn.vantage != Vantage::Receiver => {
                r.notes.push(SENDER_INFLIGHT_ONLY_AT_RECEIVER.into());
                ViewData::None
            }
            Series::SenderInflight => {
                let key = Key::Points { conn: conn_index, dir, series: req.series };
                let lag = conn.directions[dir as usize].sender_lag_ms / 1e3;
                match cache.get_or_build(key, || {
                    let e = sender_flight::sender_in_flight(store, dir, lag);
                    let bound = e.label_bound();
                    Entry::Estimate(pyramid::PointColumn::new(e.t, e.v), bound)
                }) {
                    Entry::Estimate(p, bound) => {
                        r.error_bound = *bound;
                        if bound.is_none() {
                            r.notes.push(NO_BOUND_NOTE.into());
                        }
                        ViewData::Points(m4::query(p, v.t0, v.t1, v.columns))
                    }
                    _ => ViewData::None,
                }
            }
            Series::Wifi => {
                let summary_bin = conn.directions[dir as usize].throughput.bin_seconds;
                let bin = request::bin_seconds(req.bin_seconds, summary_bin, &v, &mut r.clamped);
                r.bin_seconds = Some(bin);
                let empty = crate::analysis::RadioLog::default();
                let log = analysis.radio.get(conn_index).unwrap_or(&empty);
                if log.is_empty() {
                    r.notes.push("no 802.11 radio header (radiotap or PPI) on this connection's frames".into());
                }
                ViewData::Wifi(wifi::answer(cache, log, conn_index, dir, &v, bin))
            }
            Series::Ecn => {
                let key = Key::Packets { conn: conn_index, dir };
                let accurate = accurate_ecn(conn);
                if accurate {
                    r.notes.push(ACCURATE_ECN_NOTE.into());
                }
                match cache.get_or_build(key, || Entry::Packets(Box::new(packet_series::build(store, dir, side_rows(conn, dir))))) {
                    Entry::Packets(p) if accurate => {
                        // Only the CE marks: the flags are a counter (rare; a copy per query).
                        let mut ce = sources::MarkerColumn::default();
                        for i in (0..p.ecn_markers.t.len()).filter(|&i| p.ecn_markers.flags[i] & sources::ECN_CE != 0) {
                            ce.t.push(p.ecn_markers.t[i]);
                            ce.v.push(p.ecn_markers.v[i]);
                            ce.flags.push(sources::ECN_CE);
                            ce.frame.push(p.ecn_markers.frame[i]);
                        }
                        ViewData::Points(response::Points { markers: Some(m4::markers(&ce, v.t0, v.t1, v.columns)), ..Default::default() })
                    }
                    Entry::Packets(p) => ViewData::Points(response::Points { markers: Some(m4::markers(&p.ecn_markers, v.t0, v.t1, v.columns)), ..Default::default() }),
                    _ => ViewData::None,
                }
            }
            Series::Inflight | Series::Rwnd | Series::Sequence | Series::Ack | Series::WindowEdge => {
                let key = Key::Packets { conn: conn_index, dir };
                match cache.get_or_build(key, || Entry::Packets(Box::new(packet_series::build(store, dir, side_rows(conn, dir))))) {
                    Entry::Packets(p) => ViewData::Points(response::Points {
                        markers: (req.series == Series::Sequence).then(|| m4::markers(&p.sequence_markers, v.t0, v.t1, v.columns)),
                        ..p.point(req.series).map(|c| m4::query(c, v.t0, v.t1, v.columns)).unwrap_or_default()
                    }),
                    _ => ViewData::None,
                }
            }
            Series::WindowLimited => {
                let key = Key::WindowLimited { conn: conn_index, dir };
                let stalls = &conn.directions[dir as usize].stalls;
                match cache.get_or_build(key, || {
                    // The diagnosis's own spans when the analysis kept them (large
                    // connections): the same pass over the same columns.
                    let (spans, active) = match analysis.kept_window_limited(conn_index, dir) {
                        Some(k) => (k.spans.clone(), k.active),
                        None => {
                            let cols = sender_columns(store, conn);
                            let lag = conn.directions[dir as usize].sender_lag_ms / 1e3;
                            let scale_known = !conn.directions[1 - dir as usize].window_scale_unknown;
                            diagnosis_shares::window_limited_spans(&cols, dir, stalls, lag, scale_known)
                        }
                    };
                    Entry::Spans(SpanList::new(spans, Vec::new()), Some(active))
                }) {
                    Entry::Spans(s, active) => ViewData::Intervals(response::Intervals { active_seconds: *active, ..s.query(v.t0, v.t1, v.columns) }),
                    _ => ViewData::None,
                }
            }
            _ => {
                let summary_ms = conn.stall_threshold_ms;
                let tick_ms = 1e3 * conn.tick_s(analysis.capture.timestamp_resolution_s());
                let list = match request::stall_threshold_ms(req.stall_threshold_ms, tick_ms, &mut r.clamped) {
                    Some(ms) if ms != summary_ms => {
                        let gaps = match cache.get_or_build(Key::Gaps { conn: conn_index, dir }, || Entry::Gaps(stalls::GapHistogram::new(store, dir))) {
                            Entry::Gaps(g) => g.bounded(ms, &mut r.clamped),
                            _ => ms,
                        };
                        r.stall_threshold_ms = Some(gaps);
                        let key = Key::Stalls { conn: conn_index, dir, threshold: gaps.to_bits() };
                        cache.get_or_build(key, || Entry::Spans(stall_spans(&stalls::find(store, conn, dir, gaps, tick_ms / 1e3)), None))
                    }
                    _ => {
                        r.stall_threshold_ms = Some(summary_ms);
                        let key = Key::Stalls { conn: conn_index, dir, threshold: summary_ms.to_bits() };
                        cache.get_or_build(key, || Entry::Spans(stall_spans(&conn.directions[dir as usize].stalls), None))
                    }
                };
                match list {
                    Entry::Spans(s, _) => ViewData::Intervals(s.query(v.t0, v.t1, v.columns)),
                    _ => ViewData::None,
                }
            }
        };
        r
    }
}

/// Accurate ECN (RFC 9768) was negotiated: the report's ECE and CWR counts are None
/// (analysis/track/ecn.rs), the flags being bits of a counter of CE marks.
fn accurate_ecn(conn: &ConnectionSummary) -> bool {
    conn.directions.iter().any(|d| d.ecn.is_some_and(|e| e.cwr.is_none()))
}

const NOT_MPTCP_NOTE: &str = "not a subflow of an MPTCP connection: no connection-level rate";
const SENDER_INFLIGHT_ONLY_AT_RECEIVER: &str = "the sender's bytes in flight are estimated only at a receiver-side capture: here the in-flight series is measured where the capture was taken";
const NO_BOUND_NOTE: &str = "without TCP timestamps the far part of the round trip is taken at its minimum: while a queue held the data the sender had more in flight than estimated";

const ACCURATE_ECN_NOTE: &str = "Accurate ECN (RFC 9768) was negotiated: ECE and CWR are bits of a counter of CE marks, not echoes; only the CE marks are drawn";

/// Packets of sender `dir` and of its peer (capacities for packet_series::build).
fn side_rows(conn: &ConnectionSummary, dir: u8) -> [usize; 2] {
    let d = &conn.directions;
    [d[dir as usize].packets as usize, d[1 - dir as usize].packets as usize]
}

fn stall_spans(list: &[crate::analysis::Stall]) -> SpanList {
    let spans = list.iter().map(|s| (s.start, s.start + s.duration)).collect();
    SpanList::new(spans, list.iter().map(stalls::interval).collect())
}

/// Caveats the chart should show next to the series.
fn notes(conn: &ConnectionSummary, stored: usize, series: Series, dir: u8, notes: &mut Vec<String>) {
    if (stored as u64) < conn.packets {
        notes.push(format!("only the first {stored} of {} packets are kept for charts (limits.rs): per-packet series stop there", conn.packets));
    }
    let peer = &conn.directions[1 - dir as usize];
    if matches!(series, Series::Rwnd | Series::Inflight | Series::Pipe | Series::WindowLimited | Series::Sequence | Series::WindowEdge) && peer.window_scale_unknown {
        notes.push(match peer.window_scale_lower_bound {
            Some(lb) => format!("window scale unknown (handshake not captured): windows shown unscaled; the scale is at least {lb}"),
            None => "window scale unknown (handshake not captured): windows shown unscaled".to_string(),
        });
    }
}

/// An answer that only carries `error` (also used by share::SnapshotSession).
pub fn failed(req: &ViewRequest, error: String) -> ViewResponse {
    ViewResponse {
        schema_version: VIEW_SCHEMA_VERSION,
        generation: req.generation,
        connection: req.connection,
        series: req.series,
        direction: req.direction.unwrap_or(0).min(1),
        t0: if req.t0.is_finite() { req.t0 } else { 0.0 },
        t1: if req.t1.is_finite() { req.t1 } else { 0.0 },
        columns: req.columns.min(request::MAX_COLUMNS),
        bin_seconds: None,
        stall_threshold_ms: None,
        clamped: Vec::new(),
        notes: Vec::new(),
        error: Some(error),
        error_bound: None,
        data: ViewData::None,
    }
}

/// A connection's packet columns as its senders saw them: the windows of a side whose
/// scale is unknown at the inferred lower bound (analysis/track/window.rs), as the summary
/// judged them, so that the view's stalls and spans are the summary's.
pub fn sender_columns(store: &ConnStore, conn: &ConnectionSummary) -> PacketColumns {
    let mut cols = store.packet_columns(false);
    window::apply_inferred_scale(&mut cols, [conn.directions[0].inferred_scale(), conn.directions[1].inferred_scale()]);
    cols
}
