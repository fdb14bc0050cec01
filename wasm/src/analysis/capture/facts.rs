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
    /// Of those, pieces of a segmentation-offload super-frame the capture logged too
    /// (offload_pieces.rs).
    pub offload_pieces: u64,
    /// Of those, datagrams logged on the way into a forwarding host and again on the
    /// way out, and the forwarder's delay (forwarded.rs).
    pub forwarded: super::forwarded::Forwarded,
    /// Of those, packets the file holds twice, written again later in the file with
    /// the same content and timestamp (timeline.rs, Repeats).
    pub repeated_frames: u64,
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
        self.timestamp_resolution_ns.is_some_and(|ns| ns > super::clock::COARSE_NS)
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

    /// The capture's warnings, as `warnings_with` without connections of their own clock.
    pub fn warnings(&self) -> Vec<AnalysisWarning> {
        self.warnings_with(&[])
    }

    /// `own_ticks`: the connections stamped by a coarser clock than the capture's
    /// (`clock_warning`).
    pub fn warnings_with(&self, own_ticks: &[(u32, f64)]) -> Vec<AnalysisWarning> {
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
            if self.offload_pieces > 0 {
                wifi += &format!(
                    " ({} of them the pieces a network card cut a large segment into, logged after the segment itself (segmentation offload): its bytes counted once, as the segment the sender's TCP sent; Wireshark marks these pieces as retransmissions or out of order)",
                    self.offload_pieces
                );
            }
            wifi += &super::forwarded::phrase(&self.forwarded);
            const REPEATED: &str = "the file holds twice: written again further on with the same content and timestamp, as in a capture appended to itself; analysed once, at their own time";
            let message = if self.repeated_frames == self.duplicate_frames {
                format!("{} packets {REPEATED}", self.duplicate_frames)
            } else {
                if self.repeated_frames > 0 {
                    wifi += &format!(" ({} of them packets {REPEATED})", self.repeated_frames);
                }
                format!("{} duplicate frames from the capture set-up were ignored{}", self.duplicate_frames, wifi)
            };
            w.push(AnalysisWarning { kind: "duplicate-frames", count: self.duplicate_frames, message });
        }
        w.extend(self.clock_warning(own_ticks));
        w
    }

    /// `coarse-clock`: the capture's tick when coarse, and the connections stamped by a
    /// coarser clock of their own (`own_ticks`: connection id and its tick, ms; clock.rs
    /// `own_tick_ns`), which a capture-wide tick hides.
    fn clock_warning(&self, own_ticks: &[(u32, f64)]) -> Option<AnalysisWarning> {
        const LISTED: usize = 5;
        if !self.coarse_clock() && own_ticks.is_empty() {
            return None;
        }
        let capture = format::format_duration(self.timestamp_resolution_s());
        let message = if own_ticks.is_empty() {
            format!("Timestamps tick in {capture} steps: RTTs and stalls shorter than that cannot be measured")
        } else {
            let coarsest = own_ticks.iter().map(|&(_, ms)| ms).fold(0.0, f64::max);
            let mut ids: Vec<String> = own_ticks.iter().take(LISTED).map(|(id, _)| id.to_string()).collect();
            if own_ticks.len() > LISTED {
                ids.push(format!("{} more", own_ticks.len() - LISTED));
            }
            let (whose, steps) = match own_ticks.len() {
                1 => (format!("connection {}", ids[0]), format!("{} steps", format::format_duration(coarsest / 1e3))),
                _ => {
                    let last = ids.pop().unwrap_or_default();
                    (format!("connections {} and {last}", ids.join(", ")), format!("steps of up to {}", format::format_duration(coarsest / 1e3)))
                }
            };
            let rest = if self.coarse_clock() { format!("the rest of the capture's in {capture} steps") } else { format!("the rest of the capture's in {capture}") };
            format!(
                "Timestamps of {whose} tick in {steps}, {rest} (packets stamped by different clocks): {its} RTTs and stalls shorter than a tick cannot be measured, and {its} stall threshold is at least 3 ticks",
                its = if own_ticks.len() == 1 { "its" } else { "their" }
            )
        };
        Some(AnalysisWarning { kind: "coarse-clock", count: u64::from(self.coarse_clock()) + own_ticks.len() as u64, message })
    }
}
