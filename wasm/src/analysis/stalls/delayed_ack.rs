//! Delayed ACK meets Nagle (docs/ANALYSIS.md "Stall causes", `delayed-ack`): the
//! sender holds a small segment back while an earlier small one is unacknowledged
//! (Nagle's algorithm, RFC 896; RFC 1122 §4.2.3.4), and the receiver holds that ACK
//! back hoping to piggyback it on data (delayed ACK, RFC 1122 §4.2.3.2 / RFC 9293
//! §3.8.6.3: at most 500 ms; Linux 40 ms minimum, other stacks 100–200 ms). Classic
//! case: a request written in two calls (header, then body); the server cannot
//! answer before the body, so its ACK waits for the timer, every time.
//!
//! Evidence, for a stall already found to be `ack-wait` (data unacknowledged, below
//! the window, no loss: stalls/gaps.rs rule 5):
//! - the last data segment before the gap was smaller than a full segment (Nagle
//!   only holds back data while a *small* segment is unacknowledged);
//! - the first ACK covering it carried no data (a piggybacked ACK is a reply, not a
//!   timer) and came before the gap ended;
//! - the receiver held it at least `MIN_HOLD_S` and at most `MAX_HOLD_S` (the 0.5 s
//!   bound above: a longer hold is no delayed ACK): the ACK's delay after the segment,
//!   less the round trip between the capture point and the receiver. A prompt ACK
//!   leaves within a millisecond; the shortest delayed-ACK timer in use is 40 ms —
//!   counted from when a prompt ACK was due, behind a draining queue one step of the
//!   receiver's ACK clock after the ACK before it (nagle_shape.rs `ack_due`);
//! - what ended the gap is what Nagle holds: a small segment, or the ACK of a lone small
//!   write (nagle_shape.rs `held_by_nagle`; review V class C-QUEUE-DRAIN-AS-NAGLE).
//!
//! Not Nagle where the receive window held the data (`window_bound`): Nagle's
//! algorithm holds only a segment smaller than a full one, and never a full one, so a
//! gap whose usable window (the peer's right edge less the highest byte sent) had
//! fallen below one segment, ended by data that window could not hold, sent after the
//! peer's ACK moved its right edge past it, waited on the window (RFC 9293
//! §3.8.6.2.1: a sender sends no segment beyond the window, nor a sliver of one):
//! `window-limited`. An X11 stream (realjimmy/sample-captures `x11-glx.pcap`): window
//! 2,304, a 1,324-byte segment leaving 980 bytes usable, the X server's ACK 25 ms
//! later opening the window to 66,560, then two full 1,448-byte segments at once —
//! once read "Nagle's algorithm … set TCP_NODELAY", which would change nothing.

use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::format::{format_duration, format_timestamp};
use crate::analysis::stalls::cause::Stall;
use crate::analysis::stalls::cause::StallCause;

/// Least receiver hold taken for a delayed-ACK timer: half Linux's 40 ms minimum
/// (TCP_DELACK_MIN), so that jitter does not hide one.
pub const MIN_HOLD_S: f64 = 0.020;

/// Most receiver hold taken for a delayed-ACK timer: RFC 9293 §3.8.6.3 (RFC 1122
/// §4.2.3.2) — "the delay MUST be less than 0.5 seconds"; Linux holds at most 200 ms
/// (TCP_DELACK_MAX), Windows 200 ms by default, macOS 100–200 ms. An ACK held longer
/// was no delayed ACK (lost, held by a middlebox, or a capture clock that batches: the
/// 1.004 s "delayed ACK" of review AF's clash_data.pcapng conn 4, whose released
/// segment's TSval was 199 ms after the small one's): the wait is whatever the other
/// rules say, and Nagle is not named.
pub const MAX_HOLD_S: f64 = 0.5;

/// Rows looked back from the gap for its last data segment at most.
const LOOK_BACK: usize = 64;

// One definition of a full segment for every caller (full_segment.rs).
pub use super::full_segment::full_segment;

/// Re-labels the `ack-wait` stalls of direction `dir` that were a delayed ACK meeting
/// Nagle. `full`: a full segment's payload for this sender (the peer's MSS option
/// less 40 option bytes, or the largest payload it sent); `to_receiver_s`: the round
/// trip capture point → receiver → capture point (path RTT − sender lag).
/// `window`: `Some(segment)` where the peer's windows are in bytes (its scale known),
/// `segment` the sender's largest payload capped by the peer's MSS option
/// (small_window.rs's), for `window_bound`; None where raw windows may understate.
/// `to_sender_s`: capture point → sender → capture point (the sender's lag): where the
/// capture shows the sender sending a small segment while an earlier small one was
/// unacknowledged at it (nagle_shape.rs `nagle_disproved`), no stall is Nagle's.
pub fn reclassify(stalls: &mut [Stall], p: &PacketColumns, dir: u8, full: u32, (to_receiver_s, to_sender_s): (f64, f64), window: Option<f64>) {
    let mut disproved: Option<bool> = None;
    for s in stalls.iter_mut().filter(|s| s.cause == StallCause::AckWait) {
        let Some(before) = p.row_of(s.frame_before, s.start) else { continue };
        let lo = before.saturating_sub(LOOK_BACK);
        let Some(i) = (lo..=before).rev().find(|&i| p.dir[i] == dir && p.len[i] > 0) else { continue };
        if p.len[i] >= full {
            continue;
        }
        let end = p.seq[i] + p.len[i] as f64;
        let gap_end = s.start + s.duration;
        let Some(j) = (i + 1..p.t.len()).take_while(|&j| p.t[j] <= gap_end).find(|&j| p.dir[j] != dir && p.ack[j] >= end) else {
            continue;
        };
        // The peer's own message during the gap makes it a turn (request/response, a
        // handshake's flight answered): the sender may have had nothing until it came,
        // and Nagle's algorithm is not shown to have held anything (TCP_NODELAY would
        // change nothing).
        // Only a message after the ACK and before the data that ends the gap: Nagle
        // releases the held segment as the ACK comes, whatever the peer says later.
        // A message in the same tick as that data, captured before it, came before it
        // too: a coarse capture clock (10 ms) stamps a request and its answer alike
        // (a 108-byte answer to a request of the same tick once read "Nagle kept the
        // next small segment until the delayed ACK").
        let end_row = p.row_of(s.frame_after, gap_end).unwrap_or(p.t.len());
        let before_end = |k: usize| p.t[k] < gap_end || (p.t[k] <= gap_end && k < end_row);
        let peer_spoke = (j + 1..p.t.len()).take_while(|&k| before_end(k)).any(|k| p.dir[k] != dir && p.len[k] > 0);
        // Held from when a prompt ACK was due: behind a draining queue, one step of the
        // receiver's ACK clock after the ACK before it (nagle_shape.rs); and only what
        // Nagle holds — a small segment, or a lone small write's ACK — ended the gap.
        let hold = p.t[j] - super::nagle_shape::ack_due(p, dir, i, j, to_receiver_s);
        // (A full segment ending the gap is judged for the window first, below.)
        let nagle = super::nagle_shape::held_by_nagle(p, dir, i, end_row, full) || super::nagle_shape::released_full(p, dir, end_row, full);
        if p.len[j] == 0 && (MIN_HOLD_S..=MAX_HOLD_S).contains(&hold) && !peer_spoke && nagle {
            if *disproved.get_or_insert_with(|| super::nagle_shape::nagle_disproved(p, dir, full, to_sender_s, super::nagle_shape::slack(to_sender_s, f64::NAN))) {
                continue; // Nagle was off at this sender
            }
            if let Some(words) = window.and_then(|segment| window_bound(p, (lo, before, end_row), dir, segment)) {
                s.cause = StallCause::WindowLimited;
                s.ended_by = words;
                continue;
            }
            if super::nagle_shape::released_full(p, dir, end_row, full) {
                continue; // a full segment: Nagle held none (an ACK waited on)
            }
            s.cause = StallCause::DelayedAck;
            s.ended_by = format!(
                "the peer's delayed ACK at {}, held {} after the {}-byte segment: Nagle's algorithm kept the next small segment until then",
                format_timestamp(p.t[j]),
                format_duration(hold),
                p.len[i]
            );
        }
    }
}

/// What ended a gap (rows `before` → `end`, looked back to `lo`) of `dir` that waited
/// on the receive window rather than on Nagle (the module's last paragraph), None
/// otherwise: the usable window at the gap's start below `segment` and below the
/// segment that ended the gap, that segment new data, and a peer ACK in the gap whose
/// right edge held it.
fn window_bound(p: &PacketColumns, (lo, before, end): (usize, usize, usize), dir: u8, segment: f64) -> Option<String> {
    const SYN: u32 = crate::decode::tcp_flags::SYN as u32;
    let is_ack = |r: usize| p.dir[r] != dir && p.flags[r] & SYN == 0 && p.win[r].is_finite() && p.ack[r].is_finite();
    let high = (lo..=before).filter(|&r| p.dir[r] == dir && p.len[r] > 0).map(|r| p.seq[r] + f64::from(p.len[r])).fold(f64::NEG_INFINITY, f64::max);
    let r0 = (lo..=before).rev().find(|&r| is_ack(r))?;
    let usable = p.ack[r0] + p.win[r0] - high;
    if end >= p.t.len() || p.dir[end] != dir || p.seq[end] < high {
        return None; // no data ends it in the columns, or a re-send: not the window's
    }
    let (len, needed) = (f64::from(p.len[end]), p.seq[end] + f64::from(p.len[end]));
    // 0 is the zero-window rule's; at least a segment usable, the window held nothing.
    if !(usable > 0.0 && usable < segment && len > usable) {
        return None;
    }
    let u = (before + 1..end).find(|&r| is_ack(r) && p.ack[r] + p.win[r] >= needed)?;
    Some(format!(
        "ACK opening the window to {:.0} bytes at {}, after the usable window had fallen to {:.0} bytes ({:.0}-byte window at {}, less the bytes in flight), \
         too small for the next {}-byte segment: a sender sends nothing beyond the window (RFC 9293 §3.8.6.2.1), with or without Nagle's algorithm",
        p.win[u],
        format_timestamp(p.t[u]),
        usable,
        p.win[r0],
        format_timestamp(p.t[r0]),
        p.len[end]
    ))
}

/// The advice when delayed-ACK stalls dominate a direction (at least half its stalls
/// and a tenth of the connection's time): None otherwise.
pub fn advice(stalls: &[Stall], duration: f64) -> Option<String> {
    let delayed: Vec<&Stall> = stalls.iter().filter(|s| s.cause == StallCause::DelayedAck).collect();
    let time: f64 = delayed.iter().map(|s| s.duration).sum();
    if delayed.is_empty() || 2 * delayed.len() < stalls.len() || time < 0.1 * duration {
        return None;
    }
    Some(format!(
        "{} ({} in all) {} Nagle's algorithm waiting for the peer's delayed ACK: write each message in one call, or set TCP_NODELAY on the sender (or TCP_QUICKACK on the receiver).",
        crate::analysis::format::plural(delayed.len() as u64, "stall"),
        format_duration(time),
        if delayed.len() == 1 { "was" } else { "were" }
    ))
}

#[cfg(test)]
mod window_bound_tests {
    use crate::analysis::stalls::cause::StallCause;
    use crate::analysis::stalls::gaps::judge_stalls;
    use crate::analysis::stalls::gaps::testkit::Cols;

    /// x11-glx.pcap's frames 247–251 in round numbers: a full segment (1448 B) is
    /// acknowledged with a window of 2,304; the sender sends 1,324 B, leaving 980 B
    /// usable (2,304 − 1,324), less than a segment; the receiver's ACK of those bytes
    /// comes 25 ms later with a window of 66,560, and two full segments leave 0.4 ms
    /// after it. Every delayed-ACK test passes (a 1,324-byte segment below a full one,
    /// a pure ACK held 25 ms − 0.4 ms path ≥ 20 ms, the peer silent), but the segment
    /// that ended the gap is a full one, which Nagle never holds, and it did not fit
    /// the 980 bytes: the window held it.
    fn capture(window_after_first: f64, next_len: u32) -> Cols {
        let mut c = Cols::new(65536.0);
        c.data(0.100, 0, 1.0, 1448);
        c.ack(0.1002, 1, 1449.0, window_after_first);
        c.data(0.1004, 0, 1449.0, 1324);
        c.ack(0.1254, 1, 2773.0, 66560.0);
        c.data(0.1258, 0, 2773.0, next_len);
        // The second after the ACK of the first: two small segments back to back would
        // show Nagle off at this sender (nagle_shape.rs `nagle_disproved`, review Y).
        c.ack(0.1260, 1, 2773.0 + f64::from(next_len), 66560.0);
        c.data(0.1262, 0, 2773.0 + f64::from(next_len), next_len);
        c
    }

    #[test]
    fn a_full_segment_the_usable_window_could_not_hold_is_the_window_not_nagle() {
        let c = capture(2304.0, 1448);
        let s = judge_stalls(&c.c.packets, 0, 0.010, 0.0, Some(0.0004), 1448, false, true);
        assert_eq!(s.len(), 1, "{s:#?}");
        assert_eq!(s[0].cause, StallCause::WindowLimited);
        assert_eq!(
            s[0].ended_by,
            "ACK opening the window to 66560 bytes at 0.125 s, after the usable window had fallen to 980 bytes (2304-byte window at 0.100 s, \
             less the bytes in flight), too small for the next 1448-byte segment: a sender sends nothing beyond the window (RFC 9293 §3.8.6.2.1), \
             with or without Nagle's algorithm"
        );
        // Windows of an unknown scale may understate: nothing is said of them, and a
        // full segment is none Nagle holds (review Y): an ACK waited on.
        let s = judge_stalls(&c.c.packets, 0, 0.010, 0.0, Some(0.0004), 1448, false, false);
        assert_eq!(s[0].cause, StallCause::AckWait);
    }

    #[test]
    fn a_small_segment_in_a_wide_window_stays_nagle() {
        // The window stayed 65,536 (64,212 usable): only Nagle held the next 100 bytes.
        let c = capture(65536.0, 100);
        let s = judge_stalls(&c.c.packets, 0, 0.010, 0.0, Some(0.0004), 1448, false, true);
        assert_eq!(s.len(), 1, "{s:#?}");
        assert_eq!(s[0].cause, StallCause::DelayedAck);
        // A small window, but the next segment (100 B) fitted the 980 usable bytes:
        // the window did not hold it.
        let c = capture(2304.0, 100);
        let s = judge_stalls(&c.c.packets, 0, 0.010, 0.0, Some(0.0004), 1448, false, true);
        assert_eq!(s[0].cause, StallCause::DelayedAck);
    }
}
