//! The knobs of the analysis (the CLI's and the page's options), with their defaults.

use super::limits;

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
