//! Stated limits that bound the analysis' memory on hostile or huge captures
//! (issue 8: "1 million connections (a port scan) ... bounded memory (limits that
//! are stated and reported when hit)"), and the warnings that report them.
//!
//! * `max_connections` (default [`DEFAULT_MAX_CONNECTIONS`]): a tracked connection
//!   costs ~1.5 KB (state while reading, then its summary and endpoint names, plus
//!   its share of the JSON). Packets of connections beyond the limit are counted in
//!   the capture totals but not analysed: tracking even their 4-tuples would grow
//!   without bound, so the warning counts packets, not connections.
//! * `max_stored_packets` (default [`DEFAULT_MAX_STORED_PACKETS`]): rows kept for the
//!   charts. wasm32 has 4 GiB of memory; a stored packet costs ~14 bytes, and at the
//!   end of the capture the largest connection is materialized once into the public
//!   f64 columns for the stall and diagnosis passes (~70 bytes per packet of that
//!   connection, transient). 2^25 packets ⇒ ≤ ~2.6 GiB at the peak even when they
//!   all belong to one connection. Beyond it, packets still update the connection
//!   state (flags, sequence tracking) and its totals (packets, bytes, flag counts,
//!   throughput), but their rows are not kept: the charts, stalls and the diagnosis
//!   end at the last kept packet, and the warning says how many were left out.

use crate::analysis::capture::options::AnalysisOptions;
use serde::Serialize;

pub const DEFAULT_MAX_CONNECTIONS: usize = 200_000;
pub const DEFAULT_MAX_STORED_PACKETS: u64 = 1 << 25;

/// A limit that was hit, as it appears in the JSON `warnings` (same shape as the
/// decoder's per-packet warnings: kind, count, message).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AnalysisWarning {
    pub kind: &'static str,
    pub count: u64,
    pub message: String,
}

#[derive(Clone, Debug)]
pub(crate) struct Limits {
    max_connections: usize,
    max_stored: u64,
    connections: usize,
    stored: u64,
    /// Packets of connections beyond `max_connections`.
    untracked_packets: u64,
    /// Packets of tracked connections beyond `max_stored`.
    unstored_packets: u64,
}

impl Limits {
    pub fn new(o: &AnalysisOptions) -> Limits {
        Limits {
            max_connections: o.max_connections,
            max_stored: o.max_stored_packets,
            connections: 0,
            stored: 0,
            untracked_packets: 0,
            unstored_packets: 0,
        }
    }

    /// May one more connection be tracked? Counts the packet if not.
    #[inline]
    pub fn take_connection(&mut self) -> bool {
        if self.connections < self.max_connections {
            self.connections += 1;
            true
        } else {
            self.untracked_packets += 1;
            false
        }
    }

    /// May the row of one more packet be stored? Counts it if not.
    #[inline]
    pub fn take_packet(&mut self) -> bool {
        if self.stored < self.max_stored {
            self.stored += 1;
            true
        } else {
            self.unstored_packets += 1;
            false
        }
    }

    pub fn warnings(&self) -> Vec<AnalysisWarning> {
        let mut w = Vec::new();
        if self.untracked_packets > 0 {
            w.push(AnalysisWarning {
                kind: "connection-limit",
                count: self.untracked_packets,
                message: format!(
                    "{} packets belong to connections beyond the limit of {} connections and were not analysed (they are counted in the capture totals)",
                    self.untracked_packets, self.max_connections
                ),
            });
        }
        if self.unstored_packets > 0 {
            w.push(AnalysisWarning {
                kind: "packet-limit",
                count: self.unstored_packets,
                message: format!(
                    "{} packets after the first {} were counted but not kept for the charts, stalls and diagnosis (memory limit)",
                    self.unstored_packets, self.max_stored
                ),
            });
        }
        w
    }
}
