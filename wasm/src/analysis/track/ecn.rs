//! Explicit Congestion Notification, per direction (docs/ANALYSIS.md "ECN"): a router
//! that would drop a packet of an ECN-capable flow may mark it Congestion Experienced
//! instead (RFC 3168 §5), the receiver echoes the mark to the sender (ECE on its
//! ACKs, §6.1.3) and the sender answers by reducing its window once per round trip,
//! saying so with CWR (§6.1.2). Such a flow slows down without a single loss or
//! retransmission, so without these counts the diagnosis would miss the congestion.
//!
//! Under Accurate ECN (RFC 9768), negotiated when the SYN sets AE, CWR and ECE and the
//! SYN/ACK answers with AE or CWR set (§3.1.1), the three flags form a counter of CE
//! marks (ACE, §3.2.2), not an echo: then ECE and CWR are not counted (None).
//!
//! Memory: connections that never show ECN pay one pointer (`Conn::ecn`).

use crate::decode::{tcp_flags, TcpSegment};
use serde::Serialize;

/// The ECN signals of one direction (`direction.ecn`; null when the connection
/// carried none in either direction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EcnSummary {
    /// Data segments (payload > 0) sent ECN-capable: codepoint ECT(0), RFC 3168 §5.
    pub ect0: u64,
    /// Data segments sent ECT(1) (L4S, RFC 9331, or an ECT(1) nonce).
    pub ect1: u64,
    /// Data segments that arrived marked CE (Congestion Experienced) at the capture.
    pub ce: u64,
    /// Non-SYN segments with ECE set: the receiver echoing CE (RFC 3168 §6.1.3);
    /// None under Accurate ECN, where the flag is a counter bit.
    pub ece: Option<u64>,
    /// Non-SYN segments with CWR set: the sender saying it reduced its window in
    /// answer (RFC 3168 §6.1.2); None under Accurate ECN.
    pub cwr: Option<u64>,
}

impl EcnSummary {
    /// Data segments that arrived ECN-capable, marked or not (ECT(0), ECT(1) or CE).
    pub fn capable(&self) -> u64 {
        self.ect0 + self.ect1 + self.ce
    }

    /// Share of the ECN-capable data segments that arrived marked CE; 0 without any.
    pub fn ce_share(&self) -> f64 {
        if self.capable() == 0 { 0.0 } else { self.ce as f64 / self.capable() as f64 }
    }
}

/// Both directions' counts, built lazily (`Conn::ecn`), and the frame numbers of the
/// CE-marked data segments, in capture order, for the charts (the store's rows keep
/// the TCP flags, so ECE and CWR, but not the IP header's codepoint; store.rs
/// `mark_ce_rows`). Memory: 4 bytes per CE-marked data segment here, 8 in the store,
/// never more than the connection's packets.
#[derive(Clone, Debug, Default)]
pub struct EcnCounts {
    counts: [EcnSummary; 2],
    ce_frames: Vec<u32>,
}

/// Does this segment carry any ECN signal (a codepoint, ECE, CWR or AE)?
pub fn any_signal(seg: &TcpSegment) -> bool {
    seg.ecn != 0 || seg.flags & (tcp_flags::ECE | tcp_flags::CWR) != 0
}

impl EcnCounts {
    /// Counts `seg`, sent in direction `d`.
    pub fn add(&mut self, d: usize, seg: &TcpSegment) {
        let s = &mut self.counts[d];
        if seg.payload_len > 0 {
            match seg.ecn & 3 {
                1 => s.ect1 += 1,
                2 => s.ect0 += 1,
                3 => {
                    s.ce += 1;
                    // The frame number the store's rows carry (track/conn.rs `push`).
                    self.ce_frames.push(u32::try_from(seg.packet_index + 1).unwrap_or(u32::MAX));
                }
                _ => {}
            }
        }
        if seg.flags & tcp_flags::SYN == 0 {
            if seg.flags & tcp_flags::ECE != 0 {
                *s.ece.get_or_insert(0) += 1;
            }
            if seg.flags & tcp_flags::CWR != 0 {
                *s.cwr.get_or_insert(0) += 1;
            }
        }
    }

    /// The report's per-direction values. `accecn`: Accurate ECN was negotiated.
    pub fn summaries(&self, accecn: bool) -> [EcnSummary; 2] {
        self.counts.map(|mut s| {
            if accecn {
                (s.ece, s.cwr) = (None, None);
            } else {
                (s.ece, s.cwr) = (Some(s.ece.unwrap_or(0)), Some(s.cwr.unwrap_or(0)));
            }
            s
        })
    }

    /// The frame numbers of the CE-marked data segments of both directions, in capture
    /// order (each row's direction says whose).
    pub fn take_ce_frames(&mut self) -> Vec<u32> {
        let mut f = std::mem::take(&mut self.ce_frames);
        f.shrink_to_fit();
        f
    }
}
