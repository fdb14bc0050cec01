//! TCP analysis: connection tracking, sequence/ACK bookkeeping, Wireshark's analysis
//! flags, window scaling, bytes in flight, RTT, throughput, stalls and the limit
//! diagnosis. Definitions follow DESIGN.md (which follows Wireshark's TCP analysis).

pub mod analyzer;
pub mod bdp;
pub mod columns;
pub mod connections;
pub mod diagnosis;
pub mod diagnosis_format;
pub mod diagnosis_shares;
pub mod flags;
pub mod limits;
pub mod rtt;
pub mod sequence;
pub mod stalls;
pub mod store;
mod store_log;
mod summary;
#[cfg(test)]
pub(crate) mod testseg;
pub mod throughput;
pub mod window;

pub use analyzer::Analyzer;
pub use columns::ConnectionColumns;
pub use limits::AnalysisWarning;
pub use store::ConnStore;

use serde::Serialize;

/// Knobs of the analysis. Defaults follow DESIGN.md.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnalysisOptions {
    /// Stall threshold in ms; None = max(10 ms, 4 × the connection's minimum RTT).
    pub stall_threshold_ms: Option<f64>,
    /// Throughput bin for the summary's mean/peak, seconds (default 0.1).
    pub bin_seconds: f64,
    /// Connections tracked at most; later ones are counted, not analysed (limits.rs).
    pub max_connections: usize,
    /// Packet rows kept for the charts at most; later ones are analysed, not kept (limits.rs).
    pub max_stored_packets: u64,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            stall_threshold_ms: None,
            bin_seconds: 0.1,
            max_connections: limits::DEFAULT_MAX_CONNECTIONS,
            max_stored_packets: limits::DEFAULT_MAX_STORED_PACKETS,
        }
    }
}

/// `{min, max}` of the window a side advertises (SYN and RST segments excluded).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MinMax {
    pub min: u64,
    pub max: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThroughputSummary {
    pub mean_bps: f64,
    pub peak_bps: f64,
    pub bin_seconds: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RttSummary {
    pub min_ms: Option<f64>,
    pub median_ms: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StallCause {
    ZeroWindow,
    WindowLimited,
    RetransmissionTimeout,
    ApplicationIdle,
    AckWait,
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stall {
    /// Seconds since the first packet of the file (time of the packet before the gap).
    pub start: f64,
    pub duration: f64,
    pub cause: StallCause,
    /// 1-based frame numbers of the packets either side of the gap.
    pub frame_before: u32,
    pub frame_after: u32,
    /// What ended it, in words ("retransmission of 1448 bytes", "window update to 64 KiB", ...).
    pub ended_by: String,
}

/// One direction of a connection, field names as in the CLI JSON (schema 1).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DirectionSummary {
    pub from: String,
    pub to: String,
    pub packets: u64,
    pub payload_bytes: u64,
    /// Wire (frame) bytes.
    pub bytes: u64,
    /// Shift this side announced in its SYN; None when unknown (no handshake) or not negotiated.
    pub window_scale: Option<u8>,
    /// True when the handshake was not seen, so the scale is unknown.
    pub window_scale_unknown: bool,
    /// Lower bound on the unknown scale, inferred where bytes in flight exceeded the raw window.
    pub window_scale_lower_bound: Option<u8>,
    pub receive_window: Option<MinMax>,
    pub max_bytes_in_flight: Option<u64>,
    pub retransmissions: u64,
    pub fast_retransmissions: u64,
    pub spurious_retransmissions: u64,
    pub duplicate_acks: u64,
    pub zero_windows: u64,
    pub zero_window_probes: u64,
    pub window_full: u64,
    pub keep_alives: u64,
    pub lost_segments: u64,
    pub out_of_order: u64,
    pub throughput: ThroughputSummary,
    pub rtt: RttSummary,
    pub stalls: Vec<Stall>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// receive-window | zero-window | loss | application | stalls | path | too-short
    pub limit: String,
    pub text: String,
    /// Shares of the data direction's active time, 0..1.
    pub shares: DiagnosisShares,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosisShares {
    pub receive_window: f64,
    pub loss: f64,
    pub application: f64,
    pub stalled: f64,
    pub other: f64,
}

/// Everything the analysis knows about one connection.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionSummary {
    pub id: u32,
    pub endpoints: [String; 2],
    pub handshake_seen: bool,
    pub packets: u64,
    pub start: f64,
    pub end: f64,
    pub data_direction: u8,
    /// The stall threshold the stalls were found with (options, or DESIGN.md's
    /// max(10 ms, 4 × min RTT) with min RTT = sum of both directions' minima).
    pub stall_threshold_ms: f64,
    pub directions: [DirectionSummary; 2],
    pub diagnosis: Diagnosis,
}

/// Result of the analysis of one capture.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    pub connections: Vec<ConnectionSummary>,
    /// Chart rows, compact (store.rs); same order and length as `connections`.
    /// The public columns are materialized from them on demand: [`Analysis::columns`].
    pub stores: Vec<ConnStore>,
    /// Limits that were hit (limits.rs), merged into the report's warnings.
    pub warnings: Vec<AnalysisWarning>,
}

impl Analysis {
    /// The chart columns of connection `index` (position in `connections`),
    /// materialized from the compact store; empty for an unknown index.
    pub fn columns(&self, index: usize) -> ConnectionColumns {
        self.stores.get(index).map(ConnStore::columns).unwrap_or_default()
    }
}
