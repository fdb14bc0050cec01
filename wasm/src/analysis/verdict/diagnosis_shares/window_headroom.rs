//! Whether the receive window held the sender when a data segment left: the shares
//! pass's test of "window-limited" (docs/ANALYSIS.md "Time shares", rule 3; review AJ
//! class C-RWND-BELOW-ONE-MSS-HEADROOM-MISSED). A child module of pass.rs.
//!
//! A sender does not send a segment that would cross the right edge of the window the
//! receiver advertised (RFC 9293 §3.8.6), and silly-window avoidance keeps it from
//! sending a runt into the room left below a full segment while data is outstanding
//! (RFC 9293 §3.8.6.2.1, RFC 1122 §4.2.3.4; Nagle, RFC 896). So it is window-limited
//! not only when the window is full but whenever the bytes in flight plus one full
//! segment exceed it: the next segment does not fit. Two tests, either suffices:
//! - the flight within the tolerance of the window (stalls/gaps.rs `window_tolerance`:
//!   one MSS, at most a quarter of the window, so that offload super-frames do not make
//!   every small window look full);
//! - the headroom: flight + one full segment > window, where a full segment is the
//!   sender's (stalls/full_segment.rs: the peer's MSS option less its option bytes, or
//!   the largest payload sent) and no offload super-frame: at most a jumbo frame's
//!   payload, and segment `i` itself no larger than it. Without it a window of 2–4
//!   segments never counted: a Windows client advertising 2.5–5.4 KB (raw 10–21 × 2^8)
//!   to a server that sent exactly the one or two 1,388-B segments that fit each round
//!   (Vishnugrandhi20 computer-networks `0755/tcp.pcapng` #1, frames 400 → 406,
//!   430 → 432/434) read "the congestion window or the path took the largest share".
//!
//! From another vantage point the flight is reconstructed in the sender's time
//! (sender_view.rs), give or take a tenth of the window (`window_tolerance_lagged`),
//! and the headroom test allows the same.

use super::SharesPass;
use crate::analysis::rows::columns::flag_bits;
use crate::analysis::stalls::window_tolerance_lagged;

/// The largest payload one segment on a real link carries: a 9,000-byte jumbo MTU less
/// 40 bytes of IP and TCP headers. A "full segment" above it is an offload super-frame
/// (TSO/GSO/GRO) and says nothing of what the next segment on the wire needs.
pub(super) const JUMBO_SEGMENT: f64 = 8960.0;

impl SharesPass<'_> {
    /// Whether data segment `i` left with `flight` bytes in flight against a receive
    /// window that had no room for another full segment (module comment).
    pub(super) fn window_held(&self, i: usize, flight: f64) -> bool {
        let (cols, win) = (self.cols, self.peer_win);
        if !self.out.windows_trusted {
            return false;
        }
        if cols.flags[i] & flag_bits::WINDOW_FULL != 0 {
            return true;
        }
        if !win.is_finite() {
            return false;
        }
        if flight >= win - window_tolerance_lagged(self.mss, win, self.lagged) {
            return true;
        }
        let unit = self.full_segment;
        let slack = if self.lagged { win / 10.0 } else { 0.0 };
        unit > 0.0 && unit <= JUMBO_SEGMENT && f64::from(cols.len[i]) <= unit && flight + unit > win - slack
    }
}
