//! The view question and its validation. A request comes from a URL, a share link or
//! a command line, so every number in it is untrusted: NaN, ±inf, negative, t1 < t0,
//! absurd column counts, a 1 ns bin over a year of capture. Nothing here panics and
//! nothing is refused: each bad value is replaced by the nearest sane one and a
//! sentence in `clamped` says what changed and why (issue 14, "Bounded everywhere").

use serde::{Deserialize, Serialize};

/// Most pixel columns a view may ask for (an 8K screen is 7680 wide). Every
/// allocation in the view path is a small multiple of the columns.
pub const MAX_COLUMNS: u32 = 8192;
/// Columns used when the request asks for none (or NaN-ish zero).
pub const DEFAULT_COLUMNS: u32 = 1600;
/// Throughput bins per pixel column at most: more would be drawn on top of each other.
pub const BINS_PER_COLUMN: u32 = 4;
/// Smallest bin, s. Capture clocks tick in µs (pcap) or ns (pcapng, rarely real);
/// finer bins only split single packets.
pub const MIN_BIN_S: f64 = 1e-6;
/// |t| bound, s, on view edges (317 years): keeps every bin index `t / bin` exact
/// enough in i64/f64 arithmetic. A timestamp with a flipped top bit is 68 years late.
pub const MAX_ABS_T: f64 = 1e10;
/// Smallest stall threshold, ms: below a microsecond every gap is a "stall".
pub const MIN_STALL_MS: f64 = 1e-3;

/// What a chart draws (DESIGN.md "Definitions"; one variant per drawn series).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum Series {
    /// Payload bytes per bin (DESIGN.md "Throughput").
    Throughput,
    /// Bytes newly acknowledged by the peer's cumulative ACK, per bin.
    Goodput,
    /// Frame bytes per bin.
    Wire,
    /// Bytes in flight at each data segment (M4 per pixel column).
    Inflight,
    /// The peer's advertised receive window (M4 per pixel column).
    Rwnd,
    /// Spans where in flight had reached the window (the diagnosis's receive-window share).
    WindowLimited,
    /// RTT samples, ms (M4 per pixel column).
    Rtt,
    /// Relative sequence number of each data segment (M4) plus loss markers.
    Sequence,
    /// Stalls at any threshold, with their causes.
    Stalls,
    /// The peer's cumulative ACK, relative (M4; tcptrace's ACK line).
    Ack,
    /// The peer's ACK + advertised window: the highest sequence number the sender may
    /// send (M4; tcptrace's window line, RFC 9293 §3.8.6 "usable window").
    WindowEdge,
    /// Bytes in flight less the bytes the peer's latest ACK SACKed above its cumulative
    /// ACK, at each data segment (M4): the SACK-adjusted pipe (RFC 6675 §2, as tshark's
    /// tcp.analysis.bytes_in_flight); `inflight` stays SND.NXT − SND.UNA.
    Pipe,
    /// Events per bin for the events strip (`Bins::bytes` holds the counts): the
    /// sender's retransmissions (any kind), the peer's duplicate ACKs, the peer's
    /// zero-window advertisements (Wireshark's flags, analysis/track/flags.rs).
    Retransmissions,
    DuplicateAcks,
    ZeroWindows,
    /// 802.11 PHY rate and Retry share per bin (view/wifi.rs; radiotap / PPI captures).
    Wifi,
    /// ECN events per bin for the events strip (`Bins::bytes` holds the counts; the
    /// report's `direction.ecn`, analysis/track/ecn.rs): the sender's data segments that
    /// arrived CE-marked (RFC 3168 §5), the peer's non-SYN segments with ECE (its echo,
    /// §6.1.3) and the sender's non-SYN segments with CWR (§6.1.2). Under Accurate ECN
    /// (RFC 9768) ECE and CWR are counter bits: no answer, a note.
    CeMarks,
    Ece,
    Cwr,
    /// The time-sequence chart's ECN markers (`Points::markers` only): the sender's
    /// CE-marked data segments and CWR segments at their sequence number, the peer's
    /// ECE segments at their ACK; `Markers::flags` bit 0 CE, bit 1 ECE, bit 2 CWR.
    Ecn,
    /// The data sender's bytes in flight at each of its data segments, estimated at a
    /// receiver-side capture from the data arriving and the ACKs leaving, shifted by
    /// the far part of the round trip its timestamp echoes measure
    /// (analysis/timing/sender_flight.rs); answered only where `connection.vantage` is
    /// "receiver" (elsewhere `inflight` is already the sender's, or cannot be rebuilt).
    /// `ViewResponse::error_bound` holds its bound.
    SenderInflight,
    /// The MPTCP connection-level rate, per bin, of the MPTCP connection the asked
    /// connection is a subflow of: data sequence bytes as they first appear on any of
    /// its subflows, each byte once (analysis/track/mptcp/data_level.rs `data_arrivals`; docs/ANALYSIS.md
    /// "MPTCP connection-level rate"). The subflow's data direction answers with the
    /// MPTCP connection's data direction. A note and no data for plain TCP.
    MptcpData,
}

impl Series {
    pub fn is_rate(self) -> bool {
        matches!(self, Series::Throughput | Series::Goodput | Series::Wire | Series::MptcpData) || self.is_events()
    }

    /// Counted per bin like a rate, one per flagged packet (sources.rs `cumulative`).
    pub fn is_events(self) -> bool {
        matches!(self, Series::Retransmissions | Series::DuplicateAcks | Series::ZeroWindows | Series::CeMarks | Series::Ece | Series::Cwr)
    }
}

/// One pixel-sized question (issue 14, item 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ViewRequest {
    /// Capture generation the asker holds; echoed so stale answers can be dropped.
    pub generation: u32,
    /// Connection id (`ConnectionSummary::id`).
    pub connection: u32,
    pub series: Series,
    /// View edges, seconds since the first packet of the file (the origin of all
    /// analysis times).
    pub t0: f64,
    pub t1: f64,
    /// Pixel columns of the plot. Any JSON number is accepted (negative → 0,
    /// fractions truncated, huge → u32::MAX) so validation can clamp it with a message.
    #[serde(deserialize_with = "saturating_u32")]
    pub columns: u32,
    /// Throughput bin, s; None = the summary's bin (so the chart's peak is its peak).
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub bin_seconds: Option<f64>,
    /// Stall threshold, ms; None = the threshold the summary's stalls were found with.
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub stall_threshold_ms: Option<f64>,
    /// Sending direction (0/1); None = the connection's data direction.
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub direction: Option<u8>,
}

fn saturating_u32<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let v = f64::deserialize(d)?;
    // `as` saturates (and maps NaN to 0), which is what we want here.
    Ok(v as u32)
}

/// A request after validation: every field usable as is.
#[derive(Clone, Debug, PartialEq)]
pub struct Valid {
    pub t0: f64,
    pub t1: f64,
    pub columns: u32,
    pub clamped: Vec<String>,
}

/// The page's view of a whole connection: its span and 1 % of it on each side, ±0.5 ms
/// around a connection of zero width (analysis/run/opening_view.rs `whole_view`; the page's
/// web/charts/timeRange.ts `fullRange`, which the charts draw). A link made without a
/// range is gridded on it, so the receiver's page asks for exactly the link's columns
/// and draws the sender's picture, not one re-decimated onto columns shifted by the
/// padding.
pub fn full_view(start: f64, end: f64) -> (f64, f64) {
    crate::analysis::opening_view::whole_view(start, end)
}

/// The view the page opens a connection on (analysis/run/opening_view.rs): its data with a
/// margin when it idled for a good part of its time, else [`full_view`]. A link made
/// without a range is gridded on it, as the page draws it.
pub fn opening_view(conn: &crate::analysis::ConnectionSummary) -> (f64, f64) {
    conn.data_view.map_or_else(|| full_view(conn.start, conn.end), |[t0, t1]| (t0, t1))
}

/// Validates the view edges and columns. `start`/`end`: the connection's time span,
/// used when an edge is not a number.
pub fn validate(req: &ViewRequest, start: f64, end: f64) -> Valid {
    let mut clamped = Vec::new();
    let columns = match req.columns {
        0 => {
            clamped.push(format!("columns raised from 0 to {DEFAULT_COLUMNS}"));
            DEFAULT_COLUMNS
        }
        c if c > MAX_COLUMNS => {
            clamped.push(format!("columns lowered from {c} to {MAX_COLUMNS}: the most a view may ask for"));
            MAX_COLUMNS
        }
        c => c,
    };
    let edge = |name: &str, v: f64, fallback: f64, clamped: &mut Vec<String>| -> f64 {
        if !v.is_finite() {
            clamped.push(format!("{name} {} is not a time: the connection's {}", fmt_t(v), if name == "t0" { "start" } else { "end" }));
            fallback
        } else if v.abs() > MAX_ABS_T {
            let c = v.clamp(-MAX_ABS_T, MAX_ABS_T);
            clamped.push(format!("{name} {} s limited to {} s", fmt_t(v), fmt_t(c)));
            c
        } else {
            v
        }
    };
    let mut t0 = edge("t0", req.t0, start, &mut clamped);
    let mut t1 = edge("t1", req.t1, end, &mut clamped);
    if t1 < t0 {
        clamped.push(format!("t0 {} s and t1 {} s swapped: t1 was before t0", fmt_t(t0), fmt_t(t1)));
        std::mem::swap(&mut t0, &mut t1);
    }
    Valid { t0, t1, columns, clamped }
}

/// The bin to use: the requested one (or `default`), raised to [`MIN_BIN_S`] and so
/// that [t0, t1] holds at most `BINS_PER_COLUMN × columns` bins. The raised bin is
/// the requested one times a 1-2-5 step, so the coarse bins are unions of the fine
/// ones on the same grid (multiples of the bin from t = 0).
pub fn bin_seconds(requested: Option<f64>, default: f64, v: &Valid, clamped: &mut Vec<String>) -> f64 {
    let default = if default.is_finite() && default > 0.0 { default } else { 0.1 };
    let mut bin = match requested {
        Some(b) if b.is_finite() && b > 0.0 => b,
        Some(b) => {
            clamped.push(format!("bin {} s is not a positive duration: the summary's {}", fmt_t(b), fmt_s(default)));
            default
        }
        None => default,
    };
    if bin < MIN_BIN_S {
        clamped.push(format!("bin raised from {} to {}: the smallest bin", fmt_s(bin), fmt_s(MIN_BIN_S)));
        bin = MIN_BIN_S;
    }
    // Bins overlapping [t0, t1] are floor(t0/bin) ..= floor(t1/bin).
    let max_bins = (BINS_PER_COLUMN * v.columns) as f64;
    let count = |b: f64| (v.t1 / b).floor() - (v.t0 / b).floor() + 1.0;
    if count(bin) > max_bins {
        let asked = bin;
        let mut m = 1.0f64;
        'outer: loop {
            for step in [1.0, 2.0, 5.0] {
                let c = m * step;
                if c > 1.0 && count(asked * c) <= max_bins {
                    bin = asked * c;
                    break 'outer;
                }
            }
            m *= 10.0;
            if !m.is_finite() {
                bin = (v.t1 - v.t0).max(MIN_BIN_S); // cannot happen for |t| ≤ MAX_ABS_T
                break;
            }
        }
        clamped.push(format!(
            "bin raised from {} to {}: at most {BINS_PER_COLUMN} bins per pixel column",
            fmt_s(asked),
            fmt_s(bin)
        ));
    }
    bin
}

/// The stall threshold to use, ms: the request's, raised to [`MIN_STALL_MS`] and to
/// 1.5 ticks of the connection's clock (`tick_ms`; stalls/gaps.rs `chosen_threshold_s`:
/// a gap of one tick is the clock, not a stall). None = use the summary's stalls as
/// they are.
pub fn stall_threshold_ms(requested: Option<f64>, tick_ms: f64, clamped: &mut Vec<String>) -> Option<f64> {
    let floor = MIN_STALL_MS.max(1.5 * tick_ms);
    match requested {
        None => None,
        Some(ms) if !ms.is_finite() || ms <= 0.0 => {
            clamped.push(format!("stall threshold {} ms is not a positive duration: the summary's", fmt_t(ms)));
            None
        }
        Some(ms) if ms < floor => {
            let why = if floor > MIN_STALL_MS { "1.5 ticks of the capture clock" } else { "the smallest threshold" };
            clamped.push(format!("stall threshold raised from {} to {}: {why}", fmt_s(ms / 1e3), fmt_s(floor / 1e3)));
            Some(floor)
        }
        Some(ms) => Some(ms),
    }
}

/// A number for a sentence: short even when absurd (1e300, not 301 digits).
pub fn fmt_t(v: f64) -> String {
    if v.is_finite() && (v == 0.0 || (1e-3..1e9).contains(&v.abs())) {
        format!("{}", (v * 1e6).round() / 1e6)
    } else {
        format!("{v:e}")
    }
}

/// A duration in words for the `clamped` sentences ("50 µs", "1.5 s").
pub fn fmt_s(s: f64) -> String {
    let (v, unit) = match s.abs() {
        a if a >= 1.0 || a == 0.0 => (s, "s"),
        a if a >= 1e-3 => (s * 1e3, "ms"),
        a if a >= 1e-6 => (s * 1e6, "µs"),
        _ => (s * 1e9, "ns"),
    };
    let r = (v * 1000.0).round() / 1000.0;
    format!("{r} {unit}")
}
