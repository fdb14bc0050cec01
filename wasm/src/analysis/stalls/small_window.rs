//! Stalls behind a receive window below one segment (docs/ANALYSIS.md "Stall causes",
//! rule 3c): everything sent had been acknowledged, but the receiver's window had
//! fallen below one segment, and a sender avoiding the silly window syndrome sends
//! nothing into such a window (RFC 9293 §3.8.6.2.1, RFC 1122 §4.2.3.4: it sends when
//! the usable window holds a full segment or half the largest window it has seen, or
//! when its override timer fires). The silence after the ACK of everything is then the
//! receiver's window, not an idle application, where the capture shows either
//! - the receiver's window update (same cumulative ACK, a larger window) followed by the
//!   sender's data at once, a segment that did not fit the window before it; or
//! - no window update at all, and the segment that ends the gap filling exactly what
//!   the small window left, below a segment: the sender's override timer sent what fit
//!   (Wireshark's "TCP Window Full").
//!
//! A network printer's 9100 stream (chrissanders/packets `inconsistent_printer.pcapng`)
//! took windows of 180–1,316 B five times, each reopened by a window update 1.1–1.4 s
//! later with the sender's next segment 47 µs behind it, and once 1,092 B with no
//! update, filled 4.8 s later: read "the sending application limited this flow".

use crate::analysis::format::{format_duration, format_timestamp};
use crate::analysis::rows::columns::PacketColumns;
use super::cause::{Stall, StallCause};
use super::is_data_segment;

/// Words every stall this rule labels carries in its `endedBy`, for the diagnosis
/// (verdict/diagnosis/wait_words.rs `small_window_phrase`).
pub const BELOW_ONE_SEGMENT: &str = "below one segment";

/// Least slack for "at once" after a window update, s: a stack answers a window update
/// in microseconds (stalls/gaps.rs `IDLE_MIN_S`).
const PROMPT_MIN_S: f64 = 0.001;

/// Re-labels the `application-idle` stalls of direction `dir` that waited on a window
/// below one segment as `window-limited`. `segment`: the sender's segment, its largest
/// payload capped by the peer's MSS option (a TSO frame is many segments);
/// `scale_known`: the receiver's window scale is known (raw windows of an unknown scale
/// understate it, and nothing can be said); `lag_s`, `path_rtt_s`: as for
/// `judge_stalls` (a window update reaches the sender a sender lag after the capture
/// saw it, less where the capture is at the sender).
pub fn reclassify(stalls: &mut [Stall], p: &PacketColumns, dir: u8, segment: f64, scale_known: bool, lag_s: f64, path_rtt_s: Option<f64>) {
    if !scale_known || !(segment > 0.0) || !stalls.iter().any(|s| s.cause == StallCause::ApplicationIdle) {
        return;
    }
    // The highest byte sent and the largest window seen before each row (one pass).
    let (mut high, mut max_win) = (f64::NEG_INFINITY, 0.0f64);
    let mut before = Vec::with_capacity(p.t.len());
    for r in 0..p.t.len() {
        before.push((high, max_win));
        if is_data_segment(p, r, dir) {
            high = high.max(p.seq[r] + f64::from(p.len[r]));
        } else if p.dir[r] != dir && p.win[r].is_finite() && p.flags[r] & SYN == 0 {
            max_win = max_win.max(p.win[r]);
        }
    }
    let prompt_s = lag_s.max(0.0) + path_rtt_s.unwrap_or(0.0).max(PROMPT_MIN_S);
    for s in stalls.iter_mut().filter(|s| s.cause == StallCause::ApplicationIdle) {
        let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        if p.peer_payload_in(i + 1..j, dir) {
            continue;
        }
        let (high, max_win) = before[i + 1];
        if let Some(words) = judge(p, (i, j), dir, high, max_win, segment, (lag_s, prompt_s)) {
            s.cause = StallCause::WindowLimited;
            s.ended_by = words;
        }
    }
}

const SYN: u32 = crate::decode::tcp_flags::SYN as u32;

/// What ended gap (i, j) of `dir` when it waited on a window below one segment (the
/// module's two cases), None otherwise.
fn judge(p: &PacketColumns, (i, j): (usize, usize), dir: u8, high: f64, mut max_win: f64, segment: f64, (lag_s, prompt_s): (f64, f64)) -> Option<String> {
    // The receiver's window once it had acknowledged everything: (row, window), the
    // lowest such window, and the update after it (row).
    let mut small: Option<(usize, f64)> = None;
    let mut update: Option<usize> = None;
    for r in (i + 1..j).filter(|&r| p.dir[r] != dir && p.flags[r] & SYN == 0) {
        let (ack, win) = (p.ack[r], p.win[r]);
        if !(ack >= high && win.is_finite()) {
            continue;
        }
        match small {
            // The usable window is the window (nothing in flight): below a segment and
            // below half the largest window seen, a sender that avoids the silly
            // window sends nothing (RFC 9293 §3.8.6.2.1; 0 is the zero-window rule's).
            None if win > 0.0 && win < segment && win < 0.5 * max_win => small = Some((r, win)),
            None => {}
            // Beyond what was sent: nothing to judge by.
            Some(_) if ack > high => return None,
            Some((r0, w0)) if ack == p.ack[r0] && win > w0 && p.len[r] == 0 => update = Some(r),
            Some((_, w0)) if win < w0 => (small, update) = (Some((r, win)), None),
            Some(_) => {}
        }
        max_win = max_win.max(win);
    }
    let (r0, w0) = small?;
    let (tj, len) = (p.t[j], f64::from(p.len[j]));
    if p.seq[j] < high {
        return None; // a re-send: the timer rules' gap
    }
    match update {
        // Sent at once after the update reached the sender, a segment the small window
        // could not hold: the sender had been holding it.
        Some(u) => {
            let after = tj - p.t[u];
            let waited = p.t[u] - p.t[r0];
            (len > w0 && after >= 0.5 * lag_s && after <= prompt_s && after < waited).then(|| {
                format!(
                    "window update to {:.0} bytes at {}, {} after the window had fallen to {:.0} bytes at {} ({BELOW_ONE_SEGMENT} of {:.0} bytes): \
                     the sender's silly-window avoidance sends nothing into a window that small (RFC 9293 §3.8.6.2.1)",
                    p.win[u],
                    format_timestamp(p.t[u]),
                    format_duration(waited),
                    w0,
                    format_timestamp(p.t[r0]),
                    segment
                )
            })
        }
        // No update: the segment fills exactly what the window left, less than a
        // segment — the override timer's send (RFC 1122 §4.2.3.4).
        None => (p.seq[j] + len == p.ack[r0] + w0 && len < segment).then(|| {
            format!(
                "{} bytes at {} that filled the window, which had fallen to {:.0} bytes at {} ({BELOW_ONE_SEGMENT} of {:.0} bytes) with no \
                 window update: the sender's silly-window avoidance held its data until its override timer sent what \
                 fit (RFC 9293 §3.8.6.2.1)",
                p.len[j],
                format_timestamp(tj),
                w0,
                format_timestamp(p.t[r0]),
                segment
            )
        }),
    }
}
