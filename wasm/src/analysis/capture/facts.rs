//! What the capture file itself showed, told once in the report (`capture`): frames
//! captured twice, the clock's tick, and whether it holds any segment without payload.

use super::limits::AnalysisWarning;
use crate::analysis::format;

/// Segments a capture holds before the absence of any without payload is told
/// (`CaptureFacts::payload_only`).
pub const PAYLOAD_ONLY_MIN: u64 = 100;

/// File-level facts the analysis found (report `capture`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CaptureFacts {
    /// Frames recognised as copies of an earlier frame and ignored (duplicates.rs).
    pub duplicate_frames: u64,
    /// Of those, 802.11 MAC-layer retries.
    pub wifi_retries: u64,
    /// Of those, copies from the far side of a sequence-rewriting middlebox
    /// (rewritten_copies.rs).
    pub rewritten_copies: u64,
    /// Tick of the capture clock (clock.rs); None when it cannot be told.
    pub timestamp_resolution_ns: Option<i64>,
    /// TCP segments analysed (copies left out), and of them those without payload
    /// (pure ACKs, SYN, FIN, RST): `payload_only`.
    pub tcp_segments: u64,
    pub empty_segments: u64,
}

impl CaptureFacts {
    pub fn timestamp_resolution_s(&self) -> f64 {
        self.timestamp_resolution_ns.map_or(0.0, |ns| ns as f64 / 1e9)
    }

    /// The clock is coarser than 1 ms: RTTs and stalls below a tick can't be measured.
    pub fn coarse_clock(&self) -> bool {
        self.timestamp_resolution_ns.is_some_and(|ns| ns > 1_000_000)
    }

    /// Not one segment without payload among at least [`PAYLOAD_ONLY_MIN`]: no
    /// handshake, no FIN, no pure ACK — a capture filtered on payload (`tcp.len > 0`,
    /// `greater 60`) or written by a tool that kept only data. Every TCP stack sends
    /// pure ACKs when it has nothing to send (RFC 9293 §3.8.6.3: within 0.5 s), so
    /// their absence over this many segments is the capture's, not the hosts'. The ACKs
    /// it shows all rode on data: round trips, stalls and waits on ACKs read from them
    /// are the peers' replies, not the path (an exchange whose replies came seconds
    /// apart once read "RTT 27 s" and "waiting on ACKs").
    pub fn payload_only(&self) -> bool {
        self.tcp_segments >= PAYLOAD_ONLY_MIN && self.empty_segments == 0
    }

    pub fn warnings(&self) -> Vec<AnalysisWarning> {
        let mut w = Vec::new();
        if self.payload_only() {
            w.push(AnalysisWarning {
                kind: "payload-only",
                count: self.tcp_segments,
                message: format!(
                    "Every one of the {} TCP segments carries data: no pure ACK, handshake or FIN is in this capture (a capture filter on payload, or a tool that kept only data). Its ACKs all rode on data, so the round trips, stalls and waits on ACKs below measure the peers' replies, not the path",
                    self.tcp_segments
                ),
            });
        }
        if self.duplicate_frames > 0 {
            let mut wifi = if self.wifi_retries > 0 { format!(" ({} of them 802.11 retries)", self.wifi_retries) } else { String::new() };
            if self.rewritten_copies > 0 {
                wifi += &format!(
                    " ({} of them the same datagrams seen on both sides of a middlebox that rewrites sequence numbers: analysed once, in the sequence space the peer's packets use)",
                    self.rewritten_copies
                );
            }
            w.push(AnalysisWarning {
                kind: "duplicate-frames",
                count: self.duplicate_frames,
                message: format!("{} duplicate frames from the capture set-up were ignored{}", self.duplicate_frames, wifi),
            });
        }
        if self.coarse_clock() {
            w.push(AnalysisWarning {
                kind: "coarse-clock",
                count: 1,
                message: format!(
                    "Timestamps tick in {} steps: RTTs and stalls shorter than that cannot be measured",
                    format::format_duration(self.timestamp_resolution_s())
                ),
            });
        }
        w
    }
}
