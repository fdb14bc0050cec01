//! Where the data direction's time went: T-RAT (Zhang et al., "On the characteristics
//! and origins of Internet flow rates", SIGCOMM 2002) classifies a flow's time by what
//! limited it; RFC 4898 (TCP ESTATS MIB) keeps the same idea as the sender's SndLim
//! states (tcpEStatsStackSndLimTimeRwin / …Cwnd / …Snd). We can't see the sender's
//! internals in a capture, so the state is inferred per inter-segment interval.
//!
//! "Active time" is from the first to the last data segment of the data direction.
//! It is cut into the intervals between consecutive data segments (same segments as
//! `stalls::is_data_segment`), and each interval [t_k, t_k+1) gets ONE state, decided
//! at segment k and during the interval (first match wins):
//! - a stall: the interval is one of the direction's stalls (matched by frame_before);
//!   its time goes to the share of its cause (`TimeShares::add_stall`) and is also
//!   kept per cause in `stall_by_cause`;
//! - loss: loss recovery is in progress: from a retransmission (a segment starting
//!   below the highest sequence sent), or a "previous segment not captured" hole, until
//!   the peer's cumulative ACK passes the recovery point (the highest sequence sent when
//!   recovery began; RFC 6582's "recover"). Also the interval in which the loss is
//!   being detected: duplicate ACKs arrive during it, or it ends with a retransmission.
//!   There the sender is usually blocked by the window too (the hole pins snd_una, so
//!   snd_una + rwnd stops advancing), but it is the loss that blocks it;
//! - receive-window: in flight at segment k ≥ advertised window − 1 MSS
//!   (`stalls::window_tolerance`), or Wireshark's "window full" flag (RFC 4898's
//!   SndLimTimeRwin);
//! - application: below the window and, before the next segment, the peer had
//!   acknowledged everything: nothing in flight and the sender still did not send, so
//!   it had nothing to send (RFC 4898's SndLimTimeSnd, T-RAT's application-limited).
//!   Only the part of the interval after that ACK: before it the data was still on
//!   its way, which is the path's time (`other`) —
//!   unless the next segment echoes a timestamp older than that ACK (sender_clock.rs
//!   `ACK_HELD_ON_PATH`): sent before the sender had it, from a queue the capture
//!   cannot see (a shaper upstream of a client-side capture);
//! - other: in flight below the window with data outstanding and no loss: the
//!   congestion window or the path (RFC 4898's SndLimTimeCwnd).
//!
//! Time weighting does the right thing for bursts: in a window-limited flow the long
//! interval is the one after the segment that filled the window.

use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::timing::sender_view::sender_view;
use crate::analysis::stalls::{is_data_segment, needless, reordered, window_tolerance_lagged, SenderFacts};
use crate::analysis::stalls::cause::Stall;
use crate::analysis::stalls::cause::StallCause;

const SYN: u32 = crate::decode::tcp_flags::SYN as u32;

/// Seconds spent in each state, plus the numbers the diagnosis text quotes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeShares {
    pub active: f64,
    pub receive_window: f64,
    /// Of the receive-window time (not its stalls), the intervals in which the window the
    /// sender filled was below 3/4 of the largest the receiver had advertised so far: its
    /// buffer held data its application had not read (RFC 9293 §3.8.6.2.2: the window
    /// offered is the buffer space left).
    pub window_shrunk: f64,
    pub loss: f64,
    pub application: f64,
    pub stalled: f64,
    pub other: f64,
    /// Stalled seconds per cause, in `StallCause` order (zero-window, window-limited,
    /// retransmission-timeout, application-idle, ack-wait, unknown).
    pub stall_by_cause: [f64; 6],
    /// All stalled seconds, whatever the cause (the sum of `stall_by_cause`).
    pub stall_total: f64,
    /// Of the loss-recovery time, the intervals that began with bytes in flight at the
    /// advertised window: recovery pinned the window (diagnosis.rs `loss_matters`).
    pub loss_window_blocked: f64,
    /// Request/response turns: intervals in which everything was acknowledged and the
    /// sender answered the peer's prompt next request — round trips, counted in
    /// `other` (the path), not in `application` (issue 13).
    pub turns: u64,
    pub turn_time: f64,
    /// Of the application's time (its intervals and idle stalls), the intervals that
    /// ended with the sender answering the peer's message: it waited for the peer's
    /// next request or response, the peer's application's time, not its own pause.
    pub peer_wait: f64,
    pub data_segments: u64,
    /// New payload bytes (highest sequence minus the first data segment's start):
    /// retransmitted bytes are not counted twice.
    pub new_bytes: f64,
    /// Largest window the peer advertised (non-SYN) during the active time; NaN if none.
    pub max_window: f64,
    /// Smallest such window.
    pub min_window: f64,
    pub retransmitted_segments: u64,
    /// Payload bytes of all data segments, and of the re-sent ones among them: their
    /// ratio is the retransmitted share the loss headline quotes. Bytes, not segments:
    /// a host capture with TSO or GRO holds data frames of up to 64 KiB while re-sends
    /// are often one MSS (Linux over a veth with TSO: 4 re-sent frames = 135 segments).
    pub data_bytes: f64,
    pub retransmitted_bytes: f64,
    /// False when bytes in flight exceeded the peer's windows (window scale unknown,
    /// `stalls::windows_understated`): then nothing counts as receive-window limited.
    pub windows_trusted: bool,
    /// Largest data segment: our MSS estimate.
    pub mss: f64,
}

pub fn cause_index(c: StallCause) -> usize {
    match c {
        StallCause::ZeroWindow => 0,
        StallCause::WindowLimited => 1,
        StallCause::RetransmissionTimeout => 2,
        StallCause::ApplicationIdle => 3,
        // Waiting on an ACK too (the delayed one): the same share.
        StallCause::AckWait | StallCause::DelayedAck => 4,
        StallCause::Unknown => 5,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    Stalled(usize),
    Loss,
    Window,
    Application,
    Other,
}

impl TimeShares {
    /// A stall's time goes to the share of its cause (DESIGN.md "Limit diagnosis"), so
    /// the shares partition the time and the headline and the bar cannot disagree:
    /// zero-window / window-limited → receive window, retransmission timeout → loss,
    /// application idle → application, ack-wait / unknown → stalled.
    fn add_stall(&mut self, cause: usize, dt: f64) {
        self.stall_by_cause[cause] += dt;
        self.stall_total += dt;
        match cause {
            0 | 1 => self.receive_window += dt,
            2 => self.loss += dt,
            3 => self.application += dt,
            _ => self.stalled += dt,
        }
    }
}

/// One linear pass over the interleaved columns for data direction `dir`.
pub fn time_shares(cols: &PacketColumns, dir: u8, stalls: &[Stall]) -> TimeShares {
    time_shares_lagged(cols, dir, stalls, 0.0, false)
}

/// [`time_shares`] in the sender's time: the peer's packets take effect `lag_s`
/// after the capture saw them (sender_view.rs).
/// `scale_known`: see `SenderFacts::of`.
pub fn time_shares_lagged(cols: &PacketColumns, dir: u8, stalls: &[Stall], lag_s: f64, scale_known: bool) -> TimeShares {
    time_shares_with(cols, &SenderFacts::of(cols, dir, lag_s, scale_known), stalls, None)
}

/// The intervals counted as receive-window limited (the share `receive_window`),
/// adjacent ones merged, and the active time: what the chart shades is exactly the
/// diagnosis's percentage (issue 14). Same pass as [`time_shares_lagged`].
pub fn window_limited_spans(cols: &PacketColumns, dir: u8, stalls: &[Stall], lag_s: f64, scale_known: bool) -> (Vec<(f64, f64)>, f64) {
    let mut spans = Vec::new();
    let sh = time_shares_with(cols, &SenderFacts::of(cols, dir, lag_s, scale_known), stalls, Some(&mut spans));
    (spans, sh.active)
}

// The spans kept are the report's (report.rs), under their path before the rooms.
pub use crate::analysis::report::KeptSpans;

fn push_span(spans: &mut Option<&mut Vec<(f64, f64)>>, t0: f64, t1: f64) {
    if let Some(v) = spans.as_deref_mut() {
        match v.last_mut() {
            Some(last) if last.1 >= t0 => last.1 = last.1.max(t1),
            _ => v.push((t0, t1)),
        }
    }
}

/// Rows of direction `dir` flagged "previous segment not captured" (LOST_SEGMENT, not
/// capture loss) whose hole was filled entirely by originals that arrived late
/// (`stalls::reordered`: Wireshark's out-of-order, no re-send): the network reordered
/// those segments and lost none (RFC 4653 §1: reordering makes a receiver send the
/// duplicate ACKs of a loss). A hole any re-send filled stays a loss. One pass, in
/// capture order (the holes' bytes are the capture's); sorted row indices.
pub fn holes_filled_by_reordering(cols: &PacketColumns, dir: u8) -> Vec<usize> {
    let mut out = Vec::new();
    let data = |i: &usize| cols.dir[*i] == dir && is_data_segment(cols, *i, dir);
    let Some(first) = (0..cols.t.len()).find(data) else { return out };
    // A hole before the first captured segment (the first two segments swapped on the
    // way) starts at the lowest byte the direction's data holds: a second pass, only
    // when that first segment follows a hole.
    let mut high = if cols.flags[first] & flag_bits::LOST_SEGMENT != 0 {
        (first..cols.t.len()).filter(data).map(|i| cols.seq[i]).fold(f64::INFINITY, f64::min)
    } else {
        cols.seq[first]
    };
    // Open holes: (row of the segment after the hole, hole start, hole end, bytes
    // still missing, a re-send fell in it).
    let mut open: Vec<(usize, f64, f64, f64, bool)> = Vec::new();
    for i in 0..cols.t.len() {
        if cols.dir[i] != dir || !is_data_segment(cols, i, dir) {
            continue;
        }
        let (seq, end, flags) = (cols.seq[i], cols.seq[i] + cols.len[i] as f64, cols.flags[i]);
        if flags & (flag_bits::LOST_SEGMENT | flag_bits::CAPTURE_LOSS) == flag_bits::LOST_SEGMENT && seq > high {
            // A bounded list: a capture of endless holes keeps its last 64 open.
            if open.len() == 64 {
                open.remove(0);
            }
            open.push((i, high, seq, seq - high, false));
        } else if end <= high || seq < high {
            let late_original = reordered(flags);
            open.retain_mut(|h| {
                let covered = (end.min(h.2) - seq.max(h.1)).max(0.0);
                if covered > 0.0 {
                    h.3 -= covered;
                    h.4 |= !late_original;
                }
                if h.3 <= 0.0 {
                    if !h.4 {
                        out.push(h.0);
                    }
                    return false;
                }
                true
            });
        }
        if end > high {
            high = end;
        }
    }
    out.sort_unstable();
    out
}

/// The shares of `facts.dir` in `facts.lag_s`; with `spans`, its window-limited spans
/// from the same pass (see [`window_limited_spans`]).
pub fn time_shares_with(cols: &PacketColumns, facts: &SenderFacts, stalls: &[Stall], mut spans: Option<&mut Vec<(f64, f64)>>) -> TimeShares {
    let (dir, lag_s, mss) = (facts.dir, facts.lag_s, facts.mss);
    let lagged = lag_s > 0.0;
    let mut stall_frames: Vec<(u32, usize)> =
        stalls.iter().map(|s| (s.frame_before, cause_index(s.cause))).collect();
    stall_frames.sort_unstable();

    let mut out = TimeShares {
        max_window: f64::NAN,
        min_window: f64::NAN,
        mss,
        windows_trusted: !facts.windows_understated,
        ..Default::default()
    };
    let mut high = f64::NEG_INFINITY;
    let mut first_seq = f64::NAN;
    let mut first_t = 0.0;
    let mut peer_ack = f64::NAN;
    let mut peer_win = f64::NAN;
    let mut recover: Option<f64> = None; // recovery point while in loss recovery
    // The open interval: (start time, state decided at its first segment, in flight
    // at the window then).
    let mut open: Option<(f64, State, bool)> = None;
    let mut idle_seen = false; // peer acknowledged everything during the open interval
    let mut loss_seen = false; // duplicate ACKs during the open interval
    let mut last_data_t = f64::NEG_INFINITY;
    // Holes the network only reordered (see `holes_filled_by_reordering`), and the end
    // of the one still open: the peer's duplicate ACKs until it is filled are the
    // reordering's, not a loss being detected.
    let reorder_holes = holes_filled_by_reordering(cols, dir);
    let mut reorder_pending: Option<f64> = None;
    let mut needless_unanswered = 0u32;
    // The window in force at the open interval's first segment, and the largest so far.
    let (mut open_win, mut running_max_win) = (f64::NAN, f64::NAN);
    // During the open interval: when the peer had acknowledged everything, and when
    // its next payload (a request) came.
    let (mut acked_at, mut request_at): (Option<f64>, Option<f64>) = (None, None);

    for (i, t) in sender_view(cols, dir, lag_s) {
        if cols.dir[i] != dir {
            let a = cols.ack[i];
            if a.is_finite() && (peer_ack.is_nan() || a > peer_ack) {
                peer_ack = a;
            }
            let w = cols.win[i];
            if w.is_finite() && cols.flags[i] & SYN == 0 {
                peer_win = w;
                running_max_win = if running_max_win.is_finite() { running_max_win.max(w) } else { w };
                if open.is_some() {
                    out.max_window = if w > out.max_window || out.max_window.is_nan() { w } else { out.max_window };
                    out.min_window = if w < out.min_window || out.min_window.is_nan() { w } else { out.min_window };
                }
            }
            if recover.is_some_and(|r| peer_ack >= r) {
                recover = None;
            }
            if peer_ack >= high {
                if !idle_seen {
                    acked_at = Some(t);
                }
                idle_seen = true;
            }
            if idle_seen && cols.len[i] > 0 && request_at.is_none() {
                request_at = Some(t);
            }
            if reorder_pending.is_some_and(|end| peer_ack >= end) {
                reorder_pending = None;
            }
            // A receiver answers each duplicate segment at once with a duplicate ACK
            // (RFC 5681 §4.2; with its D-SACK block, RFC 2883 §4): one per needless
            // re-send reports that duplicate, not a loss.
            if cols.flags[i] & flag_bits::DUPLICATE_ACK != 0 && needless_unanswered > 0 {
                needless_unanswered -= 1;
            } else if cols.flags[i] & flag_bits::DUPLICATE_ACK != 0 && reorder_pending.is_none() {
                loss_seen = true;
            }
            continue;
        }
        if !is_data_segment(cols, i, dir) {
            continue;
        }
        let (seq, len) = (cols.seq[i], cols.len[i] as f64);
        // Below the highest sequence sent: a re-send, unless the analyzer found it an
        // original overtaken on the way (Wireshark's out-of-order), which no loss sent.
        let resent = (seq < high && !reordered(cols.flags[i])) || cols.flags[i] & flag_bits::RETRANSMISSION != 0;
        // A needless re-send (D-SACK or Eifel evidence, retrans_kinds.rs) repaired no
        // loss: the original had arrived (a reordering, or an ACK late on its way), and
        // the sender undoes the window it gave up (RFC 2883 §5, RFC 3708, RFC 4015;
        // Linux `tcp_try_undo_dsack`). It is counted as a re-send, not as loss time.
        let repaired_nothing = needless(cols.flags[i]);
        let lossy_resend = resent && !repaired_nothing;
        if resent && repaired_nothing {
            needless_unanswered += 1;
        }
        // Close the interval that this segment ends.
        if let Some((t0, state, blocked)) = open.take() {
            let state = match state {
                State::Stalled(_) | State::Loss => state,
                _ if loss_seen || lossy_resend => State::Loss,
                // The peer's next request came promptly once it had everything: a
                // round trip of request/response, not an idle application.
                State::Other if idle_seen && request_at.is_some_and(|r| r - acked_at.unwrap_or(r) < 0.5 * (t - t0)) => {
                    out.turns += 1;
                    out.turn_time += t - t0;
                    State::Other
                }
                // Unless the sender had not yet received that ACK when it sent this
                // segment (its echo is older: sender_clock.rs): it was still waiting.
                State::Other if idle_seen && cols.flags[i] & flag_bits::ACK_HELD_ON_PATH == 0 => State::Application,
                _ => state,
            };
            // The application's time starts when the sender had nothing outstanding:
            // until the peer's ACK of everything came, the data sent was still on its
            // way (the path or the congestion window, RFC 4898's SndLimTimeCwnd), and
            // only the rest of the interval is the sender having nothing to send
            // (SndLimTimeSnd). A slow path that drains each write before the next one
            // is the path's time, not the application's.
            let t0 = match (state, acked_at) {
                (State::Application, Some(a)) if a > t0 && a < t => {
                    out.other += a - t0;
                    a
                }
                _ => t0,
            };
            let dt = t - t0;
            // The sender answered the peer's message: it came in the interval's second
            // half and the sender's data followed it (request/response, the peer's
            // think time).
            if matches!(state, State::Application | State::Stalled(3)) && request_at.is_some_and(|r| r >= t0 && t - r <= 0.5 * dt) {
                out.peer_wait += dt;
            }
            if matches!(state, State::Window | State::Stalled(0) | State::Stalled(1)) {
                push_span(&mut spans, t0, t);
            }
            match state {
                State::Stalled(c) => out.add_stall(c, dt),
                State::Loss => {
                    out.loss += dt;
                    if blocked {
                        out.loss_window_blocked += dt;
                    }
                }
                State::Window => {
                    out.receive_window += dt;
                    if open_win.is_finite() && running_max_win.is_finite() && open_win < 0.75 * running_max_win {
                        out.window_shrunk += dt;
                    }
                }
                State::Application => out.application += dt,
                State::Other => out.other += dt,
            }
        }
        out.data_segments += 1;
        out.data_bytes += len;
        if first_seq.is_nan() {
            first_seq = seq;
            first_t = t;
            if peer_win.is_finite() {
                out.max_window = peer_win;
                out.min_window = peer_win;
            }
        }
        if resent {
            out.retransmitted_segments += 1;
            out.retransmitted_bytes += len;
        }
        if seq + len > high {
            high = seq + len;
        }
        // A hole the capture dropped (capture_loss.rs) is not loss on the path.
        // Nor is one that an overtaken original filled: the network reordered it.
        let mut path_hole = cols.flags[i] & (flag_bits::LOST_SEGMENT | flag_bits::CAPTURE_LOSS) == flag_bits::LOST_SEGMENT;
        if path_hole && reorder_holes.binary_search(&i).is_ok() {
            path_hole = false;
            reorder_pending = Some(reorder_pending.map_or(seq, |e: f64| e.max(seq)));
        }
        if (lossy_resend || path_hole) && recover.is_none() {
            recover = Some(high);
        }
        let flight = match cols.in_flight[i] {
            v if v.is_finite() && !lagged => v,
            _ if peer_ack.is_finite() => (high - peer_ack).max(0.0),
            _ => f64::NAN,
        };
        let window_limited = out.windows_trusted
            && (cols.flags[i] & flag_bits::WINDOW_FULL != 0
                || (peer_win.is_finite() && flight >= peer_win - window_tolerance_lagged(mss, peer_win, lagged)));
        let state = match stall_frames.binary_search_by_key(&cols.frame[i], |&(f, _)| f) {
            Ok(k) => State::Stalled(stall_frames[k].1),
            Err(_) if recover.is_some() => State::Loss,
            Err(_) if window_limited => State::Window,
            Err(_) => State::Other,
        };
        idle_seen = peer_ack >= high;
        acked_at = if idle_seen { Some(t) } else { None };
        request_at = None;
        loss_seen = false;
        open = Some((t, state, window_limited));
        open_win = peer_win;
        out.active = t - first_t;
        last_data_t = t;
    }
    // A stall still open at the end (a window that never reopened: stalls/gaps.rs) adds
    // its time after the last data segment.
    if let Some((_, State::Stalled(c), _)) = open {
        if let Some(st) = stalls.iter().find(|s| cols.frame.last() == Some(&s.frame_after) && s.start + s.duration > last_data_t) {
            if c <= 1 {
                push_span(&mut spans, st.start, st.start + st.duration);
            }
            out.add_stall(c, st.duration);
            out.active += st.duration;
        }
    }
    if first_seq.is_finite() {
        out.new_bytes = high - first_seq;
    }
    out
}
