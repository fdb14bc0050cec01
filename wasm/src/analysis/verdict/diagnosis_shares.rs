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
//!   being detected: duplicate ACKs arrive during it whose hole a re-send repaired
//!   (not one its late original filled: `reorder_dup_acks.rs`, at any vantage), or it
//!   ends with a retransmission.
//!   There the sender is usually blocked by the window too (the hole pins snd_una, so
//!   snd_una + rwnd stops advancing), but it is the loss that blocks it;
//! - receive-window: in flight at segment k ≥ advertised window − 1 MSS
//!   (`stalls::window_tolerance`), or Wireshark's "window full" flag (RFC 4898's
//!   SndLimTimeRwin);
//! - turns: before the next segment the peer acknowledged everything and its next
//!   message (a request) came promptly, in the first half of the interval: a
//!   request/response round trip. The sender waited on neither a window nor its
//!   application but on the path's latency, once per turn (`turns`, `turn_time`): only
//!   fewer turns or a shorter path make it shorter, not a larger window or a faster
//!   link (RFC 2920 pipelining exists for this). Its own share, not the path's
//!   capacity (`other`) nor the application;
//! - application: below the window and, before the next segment, the peer had
//!   acknowledged everything: nothing in flight and the sender still did not send, so
//!   it had nothing to send (RFC 4898's SndLimTimeSnd, T-RAT's application-limited).
//!   Only the part of the interval after that ACK: before it the data was still on
//!   its way, which is the path's time (`other`) —
//!   unless the next segment echoes a timestamp older than that ACK (sender_clock.rs
//!   `ACK_HELD_ON_PATH`): sent before the sender had it, from a queue the capture
//!   cannot see (a shaper upstream of a client-side capture).
//!   Also the whole interval when the sender kept its own cadence (`own_cadence`): the
//!   segment that opened it was the only one unacknowledged and shorter than a full
//!   segment ([`time_shares_full`]), no ACK advanced and no window grew during it, and still the
//!   sender sent again. A window only opens on the peer's ACK or window update (RFC
//!   9293 §3.8.6.2.1, RFC 5681 §3.1), and no congestion window is below two segments
//!   outside a timeout's recovery (RFC 5681 §3.1 IW ≥ 2, Linux's floor of 2), so the
//!   window had room for the next segment all along; Nagle would have held it for the
//!   ACK (RFC 1122 §4.2.3.4) and pacing never spaces segments by more than a round
//!   trip of a one-segment window. What held the sender was its application: a
//!   periodic source whose lone message waits for the receiver's every-second-segment
//!   delayed ACK (RFC 1122 §4.2.3.2, RFC 9293 §3.8.6.3) has data outstanding, but no
//!   window kept it waiting;
//! - other: in flight below the window with data outstanding and no loss: the
//!   congestion window or the path (RFC 4898's SndLimTimeCwnd).
//!
//! Time weighting does the right thing for bursts: in a window-limited flow the long
//! interval is the one after the segment that filled the window.

use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::timing::sender_view::sender_view;
use crate::analysis::stalls::{is_data_segment, reordered, SenderFacts};
use crate::analysis::stalls::cause::Stall;

mod closing_end;
pub mod ecn_held;
mod pass;
mod reorder_dup_acks;
pub mod sender_paced;
pub mod write_ends;
pub mod transfer_end;
pub mod transfer_head;
mod unqueued_writes; // small writes sent as written (sender_paced.rs)
use pass::SharesPass;
pub use reorder_dup_acks::dup_acks_of_reordering;

const SYN: u32 = crate::decode::tcp_flags::SYN as u32;
const ECE: u32 = crate::decode::tcp_flags::ECE as u32;

/// Seconds spent in each state, plus the numbers the diagnosis text quotes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeShares {
    pub active: f64,
    pub receive_window: f64,
    /// Of the receive-window time, the intervals in which the window the sender filled
    /// (in a window-limited stall: the lowest window during it) was below 3/4 of the
    /// largest the receiver had advertised so far: its
    /// buffer held data its application had not read (RFC 9293 §3.8.6.2.2: the window
    /// offered is the buffer space left).
    pub window_shrunk: f64,
    pub loss: f64,
    pub application: f64,
    pub stalled: f64,
    pub other: f64,
    /// Stalled seconds per share slot (stalls/cause.rs `share_slot`: zero-window,
    /// window-limited, retransmission-timeout, application-idle, ack-wait and
    /// delayed-ack, unknown, loss-recovery).
    pub stall_by_cause: [f64; 7],
    /// All stalled seconds, whatever the cause (the sum of `stall_by_cause`).
    pub stall_total: f64,
    /// Bytes the peer's cumulative ACK advanced by during the loss-recovery intervals
    /// (not its timer stalls): what recovery delivered (diagnosis.rs
    /// `recovery_at_full_rate`).
    pub loss_delivered: f64,
    /// The loss-recovery intervals, adjacent ones merged, sender time: the first
    /// [`MAX_LOSS_SPANS`] (`loss_spans_cut` when there were more).
    pub loss_spans: Vec<(f64, f64)>,
    pub loss_spans_cut: bool,
    /// Bytes the peer's cumulative ACK advanced by during the `other` intervals (the
    /// congestion window or the path; outside recovery the cumulative ACK is what
    /// arrived).
    pub other_delivered: f64,
    /// Of the loss-recovery time, the intervals that began with bytes in flight at the
    /// advertised window: recovery pinned the window (diagnosis.rs `loss_matters`).
    pub loss_window_blocked: f64,
    /// Request/response turns: intervals in which everything was acknowledged and the
    /// sender answered the peer's prompt next request — round trips, their own share
    /// (`turn_time`): not the application's (issue 13), nor the path's capacity
    /// (`other`, issue 39 review I class T).
    pub turns: u64,
    pub turn_time: f64,
    /// Of the application's time, the intervals of the sender's own cadence (module
    /// comment): data outstanding, but nothing that could have released it came.
    pub own_cadence: f64,
    /// Of the `other` time, the intervals a segment below half a full segment opened,
    /// and (largest bytes in flight at an `other` interval's opening, the `other` seconds
    /// of the intervals that opened at exactly it): what sender_paced.rs may show the
    /// sender's own.
    pub other_small: f64,
    /// Of the `other` time, the intervals after a segment that ended a write with nothing
    /// queued, the peer silent (write_ends.rs): the sender had no backlog.
    pub other_written: f64,
    pub other_at_max: (f64, f64),
    /// The sender set its own rate with data in flight (sender_paced.rs): that time
    /// moved from `other` to `application`.
    pub sender_paced: Option<sender_paced::SenderPaced>,
    /// Of the application's time (its intervals and idle stalls), the intervals that
    /// ended with the sender answering the peer's message: it waited for the peer's
    /// next request or response, the peer's application's time, not its own pause.
    pub peer_wait: f64,
    /// Of the application's time, the peer's: in each of its intervals and idle stalls
    /// in which the peer sent data, from the interval's start (everything acknowledged)
    /// to the peer's last payload before the sender's next data (in the sender's time) —
    /// the wait for the peer's next message: its time to send it and the path's to bring
    /// it (an idle stall's from the sender's last data: the data's way there too). The
    /// rest of such an interval (that message → the
    /// sender's data) is the sender's own time to answer (savings.rs `application`).
    pub peer_time: f64,
    /// Of the application's time (its intervals and idle stalls), the intervals in which
    /// the peer echoed ECN congestion (ECE) before the sender sent again; and what
    /// ecn_held.rs moved of it to `other` (the congestion window's).
    pub application_after_ece: f64,
    pub ecn_held: f64,
    /// How many such pauses followed an ECE echo (their time is
    /// `application_after_ece`), and the time and count of those that followed none:
    /// ecn_words.rs compares their means before it calls the echoes the cause.
    pub pauses_after_ece: u32,
    pub pauses_after_plain: (f64, u32),
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
    /// The bursts between the application's pauses (savings.rs `pauses_avoidable`).
    pub bursts: Bursts,
    /// Where the transfer ended before an idle tail (transfer_end.rs): every number
    /// above is of the time up to it. None: the transfer ran to the last data segment.
    pub transfer_end: Option<crate::analysis::report::TransferEnd>,
    /// Where the transfer began after a head of small messages (transfer_head.rs): every
    /// number above is of the time from it. None: from the first data segment.
    pub transfer_start: Option<transfer_head::TransferStart>,
    pub peer_silent: Option<crate::analysis::report::PeerSilent>, // peer_silent.rs: the shares end at its `at`
}

/// The data direction's bursts between application pauses (intervals counted as
/// `application`, idle stalls included): each completed burst's payload bytes and the
/// time the next began, the first [`MAX_BURSTS`] of them (memory bounded; that many
/// pauses show a cadence or its absence), and the bytes of the burst still open at the
/// end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bursts {
    /// Payload bytes of each burst that a pause ended.
    pub bytes: Vec<f64>,
    /// When each pause ended: the next burst's first segment, sender time.
    pub starts: Vec<f64>,
    /// How long each pause lasted, s.
    pub pause_s: Vec<f64>,
    /// Whether the peer sent data during each pause (its message, which the next
    /// burst may answer).
    pub peer_spoke: Vec<bool>,
    /// Pauses in all (also those past [`MAX_BURSTS`]).
    pub pauses: u64,
    pub last_bytes: f64,
}

/// Loss-recovery spans kept by [`TimeShares::loss_spans`].
pub const MAX_LOSS_SPANS: usize = 65_536;

/// Bursts kept by [`Bursts`].
pub const MAX_BURSTS: usize = 4096;

impl Bursts {
    #[cfg(test)]
    pub(crate) fn push_for_test(&mut self, bytes: f64, next_start: f64, pause_s: f64, peer_spoke: bool) {
        self.push(bytes, next_start, pause_s, peer_spoke);
    }

    fn push(&mut self, bytes: f64, next_start: f64, pause_s: f64, peer_spoke: bool) {
        self.pauses += 1;
        if self.bytes.len() < MAX_BURSTS {
            self.bytes.push(bytes);
            self.starts.push(next_start);
            self.pause_s.push(pause_s);
            self.peer_spoke.push(peer_spoke);
        }
    }
}


#[derive(Clone, Copy, PartialEq)]
enum State {
    Stalled(usize),
    Loss,
    Window,
    Application,
    Turn,
    Other,
}

impl TimeShares {
    /// Each share as a fraction of the active time (the report's `diagnosis.shares`);
    /// all 0 without active time.
    pub fn fractions(&self) -> crate::analysis::report::DiagnosisShares {
        if self.active <= 0.0 {
            return Default::default();
        }
        crate::analysis::report::DiagnosisShares {
            receive_window: self.receive_window / self.active,
            loss: self.loss / self.active,
            application: self.application / self.active,
            stalled: self.stalled / self.active,
            other: self.other / self.active,
            turns: self.turn_time / self.active,
        }
    }

    /// A stall's time goes to the share of its cause (DESIGN.md "Limit diagnosis"), so
    /// the shares partition the time and the headline and the bar cannot disagree:
    /// zero-window / window-limited → receive window, retransmission timeout → loss,
    /// application idle → application, ack-wait / unknown → stalled.
    fn add_stall(&mut self, cause: usize, dt: f64) {
        self.stall_by_cause[cause] += dt;
        self.stall_total += dt;
        match cause {
            0 | 1 => self.receive_window += dt,
            2 | 6 => self.loss += dt,
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
pub fn time_shares_with(cols: &PacketColumns, facts: &SenderFacts, stalls: &[Stall], spans: Option<&mut Vec<(f64, f64)>>) -> TimeShares {
    time_shares_full(cols, facts, stalls, spans, None, None)
}

/// [`time_shares_with`] knowing a full segment's payload for the sender (the peer's MSS
/// option less 40 option bytes, stalls/delayed_ack.rs `full_segment`; None: the largest
/// payload sent), which the sender's own cadence ("application" above) is judged by.
///
/// Where the connection idled after its bulk data before a last small exchange
/// (transfer_end.rs), the shares are of the transfer up to its end: a second pass
/// stops there, and `transfer_end` says where.
///
/// `close_within_s` (the stall threshold): where the direction's last data is its
/// closing message after an idle pause, the transfer ended before that pause
/// (closing_end.rs).
pub fn time_shares_full(cols: &PacketColumns, facts: &SenderFacts, stalls: &[Stall], mut spans: Option<&mut Vec<(f64, f64)>>, full_segment: Option<f64>, close_within_s: Option<f64>) -> TimeShares {
    let whole = shares_until(cols, facts, stalls, spans.as_deref_mut(), full_segment, None, None);
    let closed = || close_within_s.and_then(|w| closing_end::closing_end(cols, facts.dir, stalls, whole.new_bytes, w));
    let end = whole.transfer_end.or_else(closed);
    // The head of small messages before a bulk phase (transfer_head.rs), judged up to
    // the transfer's end (or the direction's last data segment).
    let last_data = (0..cols.t.len()).rev().find(|&i| is_data_segment(cols, i, facts.dir)).map(|i| cols.t[i]);
    let head = close_within_s.zip(last_data).and_then(|(w, last)| {
        transfer_head::transfer_start(cols, facts.dir, stalls, full_segment.unwrap_or(facts.mss), w, end.map_or(last, |e| e.at))
    });
    if end.is_none() && head.is_none() {
        return whole;
    }
    if let Some(v) = spans.as_deref_mut() {
        v.clear();
    }
    let (start, stop) = (head.map(|h| h.at), end.map(|e| e.at));
    let cut = shares_until(cols, facts, stalls, spans, full_segment, start, stop);
    TimeShares { transfer_end: end, transfer_start: head, ..cut }
}

/// One pass; with `stop`, over the packets up to that time only (sender time).
/// With `start`, counted from that time on (transfer_head.rs: the packets before it are
/// the head's messages; they still set what the sender knew).
fn shares_until(cols: &PacketColumns, facts: &SenderFacts, stalls: &[Stall], mut spans: Option<&mut Vec<(f64, f64)>>, full_segment: Option<f64>, start: Option<f64>, stop: Option<f64>) -> TimeShares {
    let mut pass = SharesPass::new(cols, facts, stalls, full_segment);
    let mut restarted = false;
    for (i, t) in sender_view(cols, facts.dir, facts.lag_s) {
        if stop.is_some_and(|s| t > s) {
            break;
        }
        if start.is_some_and(|s| t >= s) && !restarted {
            restarted = true;
            pass.restart();
        }
        if cols.dir[i] != facts.dir {
            pass.on_peer(i, t);
        } else if is_data_segment(cols, i, facts.dir) {
            pass.on_data(i, t, &mut spans);
        }
    }
    pass.finish(stalls, &mut spans, stop.is_some())
}
