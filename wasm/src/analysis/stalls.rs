//! STUB (owned by the stalls/diagnosis work).
use super::columns::PacketColumns;
use super::Stall;

/// DESIGN.md default: the larger of 10 ms and 4 × the connection's minimum RTT.
pub fn default_threshold_s(min_rtt_ms: Option<f64>) -> f64 {
    (min_rtt_ms.unwrap_or(0.0) * 4.0 / 1000.0).max(0.010)
}

/// Gaps longer than `threshold_s` between consecutive payload-carrying segments of
/// direction `dir`, each with a cause.
pub fn find_stalls(cols: &PacketColumns, dir: u8, threshold_s: f64) -> Vec<Stall> {
    let _ = (cols, dir, threshold_s);
    Vec::new()
}
