//! The span before the data direction's first byte (docs/ANALYSIS.md "The wait for
//! the first answer"): one definition for the diagnosis's first-answer sentence
//! (diagnosis/first_answer.rs) and the capture-gaps verdict's (blind_capture.rs).
//!
//! RFC 9293 §3.10.7: data before the request is the peer's; a request with nothing of
//! ours outstanding hands the turn to us. The span runs from the peer's last data
//! segment before our first data segment (the request) to that first data; without a
//! request, from the handshake's end (the first row after the SYNs). Only where both
//! SYNs are in the capture: without them the capture may start mid-way.

use crate::analysis::format::format_duration;
use crate::analysis::report::ConnectionSummary;
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::is_data_segment;

/// A wait is said from this many times the path's minimum RTT (as DESIGN.md's stall
/// threshold, max(10 ms, 4 × min RTT)) and only where it is at least the data
/// direction's active time: then most of what a user waited is outside the numbers.
pub const FIRST_ANSWER_RTTS: f64 = 4.0;
/// Least wait said, s.
pub const FIRST_ANSWER_MIN_S: f64 = 0.010;
/// Least answer, in full segments, whose wait is said (savings.rs `MESSAGE_SEGMENTS`:
/// below it the answer is a message, and its wait is no transfer's).
pub const MIN_ANSWER_SEGMENTS: f64 = 2.0;

const SYN: u32 = crate::decode::tcp_flags::SYN as u32;

/// Rows of the span before the first answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirstByte {
    /// The peer's last data segment before the first answer, if any.
    pub request: Option<usize>,
    /// Where the wait starts: the request, else the first row after the handshake's SYNs.
    pub from: usize,
    /// The data direction's first data segment.
    pub first: usize,
}

impl FirstByte {
    /// The wait, s.
    pub fn wait(&self, p: &PacketColumns) -> f64 {
        p.t[self.first] - p.t[self.from]
    }
}

/// The span before direction `d`'s first data (module comment); None without data,
/// or without both SYNs in the capture.
pub fn span(p: &PacketColumns, conn: &ConnectionSummary, d: u8) -> Option<FirstByte> {
    let first = (0..p.t.len()).find(|&i| is_data_segment(p, i, d))?;
    let syns = (0..first).filter(|&i| p.flags[i] & SYN != 0).count();
    if syns < 2 || conn.handshake.syn.is_none() {
        return None;
    }
    let request = (0..first).rev().find(|&i| is_data_segment(p, i, 1 - d) && p.flags[i] & SYN == 0);
    let from = request.or_else(|| (0..first).find(|&i| p.flags[i] & SYN == 0))?;
    Some(FirstByte { request, from, first })
}

/// A wait of a second or more to 10 ms ("16.65 s": "17 s" would hide the 0.35 s
/// beside a 26 ms transfer); shorter ones as durations are.
pub fn wait_words(s: f64) -> String {
    if s >= 1.0 { format!("{s:.2} s") } else { format_duration(s) }
}
