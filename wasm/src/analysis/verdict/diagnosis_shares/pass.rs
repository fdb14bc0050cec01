//! The one pass of `time_shares_with` over the interleaved columns in the sender's time:
//! the peer's packets update what the sender knew, and each data segment closes the
//! interval before it (its state decided, its time counted) and opens the next.

use super::transfer_end::{self, Candidates, Pause};
use super::{dup_acks_of_reordering, holes_filled_by_reordering, push_span, State, TimeShares, ECE, SYN};
use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::cause::Stall;
use crate::analysis::stalls::{needless, reordered, SenderFacts};

#[path = "window_overrun.rs"]
mod window_overrun;
#[path = "pass_stall.rs"]
mod pass_stall;
#[path = "small_window_hold.rs"]
mod small_window_hold;
#[path = "window_headroom.rs"] mod window_headroom;
#[path = "pass_head.rs"] mod pass_head;
#[path = "queued_write.rs"] mod queued_write;

type Spans<'s> = Option<&'s mut Vec<(f64, f64)>>;

/// The state carried from one packet to the next.
pub(super) struct SharesPass<'c> {
    cols: &'c PacketColumns,
    lagged: bool,
    mss: f64,
    stall_frames: Vec<(u32, usize)>,
    // Stalls that begin at a packet of the peer (stalls/request_turn.rs splits a wait at
    // the peer's lost request): (start, share slot); they end the stall before them.
    continued: Vec<(f64, usize)>,
    out: TimeShares,
    high: f64,
    first_seq: f64,
    first_t: f64,
    peer_ack: f64,
    peer_win: f64,
    recover: Option<f64>, // recovery point while in loss recovery
    // The open interval: (start time, state decided at its first segment, in flight
    // at the window then).
    open: Option<(f64, State, bool)>,
    idle_seen: bool, // peer acknowledged everything during the open interval
    loss_seen: bool, // duplicate ACKs during the open interval
    last_data_t: f64,
    // Holes the network only reordered (see `holes_filled_by_reordering`), and the end
    // of the one still open: the peer's duplicate ACKs until it is filled are the
    // reordering's, not a loss being detected.
    reorder_holes: Vec<usize>,
    reorder_pending: Option<f64>,
    // The peer's duplicate ACKs whose hole closed without a re-send that repaired it
    // (reorder_dup_acks.rs): reordering, at any vantage point, not a loss detected.
    reorder_dup_acks: Vec<usize>,
    needless_unanswered: u32,
    // The window in force at the open interval's first segment, the lowest while it
    // was open, and the largest so far.
    open_win: f64,
    open_min_win: f64,
    running_max_win: f64,
    // During the open interval: when the peer had acknowledged everything, and when
    // its next payload (a request) came.
    acked_at: Option<f64>,
    request_at: Option<f64>,
    // The peer's last payload during the open interval once it had everything: the
    // message the sender's next data answers (`TimeShares::peer_time`).
    last_request_at: Option<f64>,
    // The open interval began with its segment the only one unacknowledged (as the
    // sender knew) and shorter than a full segment; and, during it, whether the peer's
    // ACK advanced or its window grew (what releases a window-limited sender).
    lone_small: bool,
    released: bool,
    // Bytes the peer's cumulative ACK advanced by during the open interval.
    open_acked: f64,
    // Payload bytes sent since the last application pause ended (or the first segment).
    burst_bytes: f64,
    // A full segment's payload: below it a segment is small (`lone_small`).
    full_segment: f64,
    // The row of the data segment that opened the open interval.
    open_row: usize,
    // The idle stalls that may end the transfer (transfer_end.rs), and the new bytes
    // sent when the last one ended (the start of the burst the next one ends).
    pauses: Candidates,
    idle_burst_from: f64,
    // The sender's direction.
    dir: u8,
    // Bytes first sent past the receiver's right edge (window_overrun.rs): their
    // re-sends repair no loss.
    beyond_window: Vec<(f64, f64)>,
    // The row of the first data segment after the peer's last packet, where the peer
    // went silent for good (verdict/peer_silent.rs): the transfer's rows end before it.
    silent_from: usize,
    // The open interval's segment was below half a full segment, and the bytes in
    // flight then (sender_paced.rs).
    open_small: bool,
    open_flight: f64,
    // A peer packet echoing ECN congestion (ECE) came during the open interval (ecn_held.rs).
    ece_seen: bool,
    // A window below one segment once everything was acknowledged (small_window_hold.rs).
    small_hold: small_window_hold::SmallWindowHold,
    written: super::write_ends::WriteEnds, // the open interval after a write's end (write_ends.rs)
}

impl<'c> SharesPass<'c> {
    /// `full_segment`: a full segment's payload for this sender (delayed_ack.rs
    /// `full_segment`), None for the largest payload sent.
    pub(super) fn new(cols: &'c PacketColumns, facts: &SenderFacts, stalls: &[Stall], full_segment: Option<f64>) -> SharesPass<'c> {
        let silent = crate::analysis::verdict::peer_silent::find(cols, facts.dir);
        let mut stall_frames: Vec<(u32, usize)> =
            stalls.iter().map(|s| (s.frame_before, s.cause.share_slot())).collect();
        stall_frames.sort_unstable();
        let continued = stalls.iter().filter(|s| cols.row_of(s.frame_before, s.start).is_some_and(|r| cols.dir[r] != facts.dir)).map(|s| (s.start, s.cause.share_slot())).collect();
        SharesPass {
            cols,
            lagged: facts.lag_s > 0.0,
            mss: facts.mss,
            stall_frames,
            continued,
            out: TimeShares {
                max_window: f64::NAN,
                min_window: f64::NAN,
                mss: facts.mss,
                windows_trusted: !facts.windows_understated,
                peer_silent: silent.map(|s| s.0),
                ..Default::default()
            },
            high: f64::NEG_INFINITY,
            first_seq: f64::NAN,
            first_t: 0.0,
            peer_ack: f64::NAN,
            peer_win: f64::NAN,
            recover: None,
            open: None,
            idle_seen: false,
            loss_seen: false,
            last_data_t: f64::NEG_INFINITY,
            dir: facts.dir,
            reorder_holes: holes_filled_by_reordering(cols, facts.dir),
            reorder_pending: None,
            reorder_dup_acks: dup_acks_of_reordering(cols, facts.dir),
            needless_unanswered: 0,
            open_win: f64::NAN,
            open_min_win: f64::NAN,
            running_max_win: f64::NAN,
            acked_at: None,
            request_at: None,
            last_request_at: None,
            lone_small: false,
            released: false,
            open_acked: 0.0,
            burst_bytes: 0.0,
            full_segment: full_segment.unwrap_or(facts.mss),
            open_row: 0,
            pauses: Candidates::new(full_segment.unwrap_or(facts.mss)),
            idle_burst_from: 0.0,
            beyond_window: window_overrun::beyond_window(cols, facts.dir, !facts.windows_understated),
            silent_from: silent.map_or(usize::MAX, |s| s.1),
            open_small: false,
            open_flight: f64::NAN,
            ece_seen: false,
            small_hold: Default::default(),
            written: Default::default(),
        }
    }

    /// A packet of the peer at sender time `t`: its ACK, its window, its request.
    pub(super) fn on_peer(&mut self, i: usize, t: f64) {
        let cols = self.cols;
        let a = cols.ack[i];
        if a.is_finite() && (self.peer_ack.is_nan() || a > self.peer_ack) {
            // Never beyond what the sender had sent (a forged or corrupt ACK far ahead
            // delivers nothing).
            if self.peer_ack.is_finite() && self.high.is_finite() {
                self.open_acked += (a.min(self.high) - self.peer_ack).max(0.0);
            }
            self.peer_ack = a;
            self.released = true;
        }
        self.ece_seen |= cols.flags[i] & (SYN | ECE) == ECE;
        self.written.peer(cols, i);
        let w = cols.win[i];
        if w.is_finite() && cols.flags[i] & SYN == 0 {
            self.watch_small_window(t, w, self.peer_ack, self.running_max_win);
            if self.peer_win.is_finite() && w > self.peer_win {
                self.released = true;
            }
            self.peer_win = w;
            self.running_max_win = if self.running_max_win.is_finite() { self.running_max_win.max(w) } else { w };
            self.open_min_win = self.open_min_win.min(w);
            if self.open.is_some() {
                self.out.max_window = if w > self.out.max_window || self.out.max_window.is_nan() { w } else { self.out.max_window };
                self.out.min_window = if w < self.out.min_window || self.out.min_window.is_nan() { w } else { self.out.min_window };
            }
        }
        if self.recover.is_some_and(|r| self.peer_ack >= r) {
            self.recover = None;
        }
        if self.peer_ack >= self.high {
            if !self.idle_seen {
                self.acked_at = Some(t);
            }
            self.idle_seen = true;
        }
        if self.idle_seen && cols.len[i] > 0 {
            self.request_at.get_or_insert(t);
            self.last_request_at = Some(t);
        }
        if self.reorder_pending.is_some_and(|end| self.peer_ack >= end) {
            self.reorder_pending = None;
        }
        // A receiver answers each duplicate segment at once with a duplicate ACK
        // (RFC 5681 §4.2; with its D-SACK block, RFC 2883 §4): one per needless
        // re-send reports that duplicate, not a loss.
        if cols.flags[i] & flag_bits::DUPLICATE_ACK != 0 && self.needless_unanswered > 0 {
            self.needless_unanswered -= 1;
        } else if cols.flags[i] & flag_bits::DUPLICATE_ACK != 0
            && self.reorder_pending.is_none()
            && self.reorder_dup_acks.binary_search(&i).is_err()
        {
            self.loss_seen = true;
        }
    }

    /// A data segment of the sender at sender time `t`: closes the open interval and
    /// opens the next.
    pub(super) fn on_data(&mut self, i: usize, t: f64, spans: &mut Spans) {
        // Past the transfer: re-sends into the peer's silence (peer_silent.rs).
        if i >= self.silent_from {
            return;
        }
        let cols = self.cols;
        let (seq, len) = (cols.seq[i], cols.len[i] as f64);
        // Below the highest sequence sent: a re-send, unless the analyzer found it an
        // original overtaken on the way (Wireshark's out-of-order), which no loss sent, or
        // left it unflagged as a second sender's first sending (two_senders.rs `note`).
        let resent = (seq < self.high && !reordered(cols.flags[i]) && cols.flags[i] & flag_bits::ANY_RETRANSMISSION != 0) || cols.flags[i] & flag_bits::RETRANSMISSION != 0;
        // A needless re-send (D-SACK or Eifel evidence, retrans_kinds.rs) repaired no
        // loss: the original had arrived (a reordering, or an ACK late on its way), and
        // the sender undoes the window it gave up (RFC 2883 §5, RFC 3708, RFC 4015;
        // Linux `tcp_try_undo_dsack`). It is counted as a re-send, not as loss time.
        let repaired_nothing = needless(cols.flags[i]);
        // Nor does a re-send of bytes first sent past the receiver's window: it dropped
        // them for want of room (window_overrun.rs), and the wait is the window's. (Its
        // re-sent part: new bytes may follow in the same segment.)
        let past_window = resent && window_overrun::covers(&self.beyond_window, seq, (seq + len).min(self.high));
        let lossy_resend = resent && !repaired_nothing && !past_window;
        if resent && repaired_nothing {
            self.needless_unanswered += 1;
        }
        // Close the interval that this segment ends.
        if let Some(open) = self.open.take() {
            self.close_interval(i, t, open, lossy_resend, spans);
        }
        self.out.data_segments += 1;
        self.out.data_bytes += len;
        self.burst_bytes += len;
        if self.first_seq.is_nan() {
            self.first_seq = seq;
            self.first_t = t;
            if self.peer_win.is_finite() {
                self.out.max_window = self.peer_win;
                self.out.min_window = self.peer_win;
            }
        }
        if resent {
            self.out.retransmitted_segments += 1;
            // From below the highest sent, only the bytes below it: a re-send cut anew may carry new ones too (smtp 36: 32 of 1,452).
            self.out.retransmitted_bytes += if seq < self.high { (self.high - seq).min(len) } else { len };
            // A re-send after an idle pause: what followed it was no idle tail.
            self.pauses.clear();
        }
        if seq + len > self.high {
            self.high = seq + len;
        }
        self.open_interval(i, t, seq, lossy_resend);
    }

    /// The open interval (from `t0`, its state decided then, `blocked`: in flight at the
    /// window) that data segment `i` ends at `t`: its final state, its time counted.
    fn close_interval(&mut self, i: usize, t: f64, (t0, state, blocked): (f64, State, bool), lossy_resend: bool, spans: &mut Spans) {
        let cols = self.cols;
        let state = if state == State::Window && self.headroom_unused() { State::Other } else { state }; // window_headroom.rs
        // Where a window below one segment held an idle sender, when it fell so
        // (small_window_hold.rs): found once, for the state and for where its time starts.
        let small_from = if state == State::Other && self.idle_seen { self.small_window_held(i, t) } else { None };
        let state = match state {
            State::Stalled(_) | State::Loss => state,
            _ if self.loss_seen || lossy_resend => State::Loss,
            // The peer's next request came promptly once it had everything: a
            // round trip of request/response, not an idle application.
            State::Other if self.idle_seen && self.request_at.is_some_and(|r| r - self.acked_at.unwrap_or(r) < 0.5 * (t - t0)) && !queued_write::went_on(cols, self.open_row, self.full_segment, self.high) => {
                self.out.turns += 1;
                State::Turn
            }
            // A window below one segment held it (small_window_hold.rs).
            State::Other if small_from.is_some() => State::Window,
            // Unless the sender had not yet received that ACK when it sent this
            // segment (its echo is older: sender_clock.rs): it was still waiting.
            State::Other if self.idle_seen && cols.flags[i] & flag_bits::ACK_HELD_ON_PATH == 0 => State::Application,
            // The sender's own cadence (module comment, "application"): its one small
            // segment outstanding and nothing from the peer that could have released it,
            // yet it sent more: no window held it.
            State::Other if self.lone_small && !self.released && cols.flags[i] & flag_bits::ACK_HELD_ON_PATH == 0 => {
                self.out.own_cadence += t - t0;
                State::Application
            }
            _ => state,
        };
        // The application's time starts when the sender had nothing outstanding:
        // until the peer's ACK of everything came, the data sent was still on its
        // way (the path or the congestion window, RFC 4898's SndLimTimeCwnd), and
        // only the rest of the interval is the sender having nothing to send
        // (SndLimTimeSnd). A slow path that drains each write before the next one
        // is the path's time, not the application's.
        let t0 = match (state, self.acked_at) {
            (State::Application, Some(a)) if a > t0 && a < t => {
                self.other_time(a - t0);
                a
            }
            // Likewise the window's time starts at the small window; the sender had
            // nothing to send between the ACK of everything and it.
            (State::Window, Some(a)) if small_from.is_some() => {
                let w = small_from.map_or(t0, |s| s.clamp(t0, t));
                self.other_time(a.clamp(t0, w) - t0);
                self.out.application += w - a.clamp(t0, w);
                w
            }
            _ => t0,
        };
        let dt = t - t0;
        // A stall split at a lost request's first sending (stalls/request_turn.rs): where
        // it continued as another cause. It is idle only before that: the peer's parts
        // below stay within that part (close_stall counts each part to its cause).
        let cut = match state {
            State::Stalled(_) => self.continued.iter().find(|&&(s, _)| s > t0 && s < t).copied(),
            _ => None,
        };
        let idle_end = cut.map_or(t, |(s, _)| s);
        // The sender answered the peer's message: it came in the interval's second
        // half and the sender's data followed it (request/response, the peer's
        // think time).
        if matches!(state, State::Application | State::Stalled(3)) && self.request_at.is_some_and(|r| r >= t0 && t - r <= 0.5 * dt) {
            self.out.peer_wait += idle_end - t0;
        }
        // The peer's part of an application pause: until its last message, which the
        // sender's data then answered (a pause that ended with the peer's data was the
        // peer's until that data came: the sender could not answer what it had not got).
        if let (State::Application | State::Stalled(3), Some(r)) = (state, self.last_request_at.filter(|&r| r >= t0 && r <= idle_end)) {
            self.out.peer_time += r - t0;
        }
        if matches!(state, State::Window | State::Stalled(0) | State::Stalled(1)) {
            push_span(spans, t0, t);
        }
        // An application pause ends here: the burst before it is complete and segment
        // `i` starts the next (savings.rs `pauses_avoidable`, which joins the bursts
        // across pauses too short to be one).
        if matches!(state, State::Application | State::Stalled(3)) && dt > 0.0 {
            let (sum, n) = if self.ece_seen { (&mut self.out.application_after_ece, &mut self.out.pauses_after_ece) } else { (&mut self.out.pauses_after_plain.0, &mut self.out.pauses_after_plain.1) };
            *sum += dt;
            *n += 1;
        }
        if matches!(state, State::Application | State::Stalled(3)) && dt > 0.0 {
            self.out.bursts.push(self.burst_bytes, t, dt, self.request_at.is_some());
            self.burst_bytes = 0.0;
        }
        match state {
            State::Stalled(c) => self.close_stall(c, t0, t, cut),
            State::Loss => {
                self.out.loss += dt;
                self.out.loss_delivered += self.open_acked;
                let spans = &mut self.out.loss_spans;
                let n = spans.len();
                match spans.last_mut() {
                    Some(last) if last.1 >= t0 => last.1 = last.1.max(t),
                    _ if n < super::MAX_LOSS_SPANS => spans.push((t0, t)),
                    _ => self.out.loss_spans_cut = true,
                }
                if blocked {
                    self.out.loss_window_blocked += dt;
                }
            }
            State::Window => {
                self.out.receive_window += dt;
                if self.open_win.is_finite() && self.running_max_win.is_finite() && self.open_win < 0.75 * self.running_max_win {
                    self.out.window_shrunk += dt;
                }
            }
            State::Application => self.out.application += dt,
            State::Turn => self.out.turn_time += dt,
            State::Other => {
                self.other_time(dt);
                self.out.other_delivered += self.open_acked;
            }
        }
    }

    /// `dt` seconds of the open interval to `other`, kept by what opened it (sender_paced.rs).
    fn other_time(&mut self, dt: f64) {
        self.out.other += dt;
        if self.open_small {
            self.out.other_small += dt;
        }
        self.written.other(dt, &mut self.out.other_written);
        // The largest flight so far and the time at exactly it: a cap is the largest.
        let (top, at_top) = &mut self.out.other_at_max;
        if self.open_flight > *top || top.is_nan() {
            (*top, *at_top) = (self.open_flight, 0.0);
        }
        if self.open_flight == *top {
            *at_top += dt;
        }
    }

    /// The interval data segment `i` opens at `t`: its state as the sender's state says.
    fn open_interval(&mut self, i: usize, t: f64, seq: f64, lossy_resend: bool) {
        let cols = self.cols;
        // A hole the capture dropped (capture_loss.rs) is not loss on the path.
        // Nor is one that an overtaken original filled: the network reordered it.
        let mut path_hole = cols.flags[i] & (flag_bits::LOST_SEGMENT | flag_bits::CAPTURE_LOSS) == flag_bits::LOST_SEGMENT;
        if path_hole && self.reorder_holes.binary_search(&i).is_ok() {
            path_hole = false;
            self.reorder_pending = Some(self.reorder_pending.map_or(seq, |e: f64| e.max(seq)));
        }
        if (lossy_resend || path_hole) && self.recover.is_none() {
            self.recover = Some(self.high);
        }
        let flight = match cols.in_flight[i] {
            v if v.is_finite() && !self.lagged => v,
            _ if self.peer_ack.is_finite() => (self.high - self.peer_ack).max(0.0),
            _ => f64::NAN,
        };
        let (window_limited, headroom) = self.window_held(i, flight); // window_headroom.rs
        let state = match self.stall_frames.binary_search_by_key(&cols.frame[i], |&(f, _)| f) {
            Ok(k) => State::Stalled(self.stall_frames[k].1),
            Err(_) if self.recover.is_some() => State::Loss,
            Err(_) if window_limited => State::Window,
            Err(_) => State::Other,
        };
        self.idle_seen = self.peer_ack >= self.high;
        self.acked_at = if self.idle_seen { Some(t) } else { None };
        self.request_at = None;
        self.last_request_at = None;
        // Everything before this segment acknowledged as the sender knew it, and the
        // segment below a full one: a message, not a window's worth.
        self.open_acked = 0.0;
        self.lone_small = self.peer_ack.is_finite() && self.peer_ack >= seq && (cols.len[i] as f64) < self.full_segment;
        self.released = false;
        self.loss_seen = false;
        self.ece_seen = false;
        self.small_hold = small_window_hold::SmallWindowHold { headroom, ..Default::default() };
        self.open = Some((t, state, window_limited));
        self.open_small = (cols.len[i] as f64) < 0.5 * self.full_segment;
        self.written.open(cols, i, self.full_segment);
        self.open_flight = flight;
        self.open_win = self.peer_win;
        self.open_min_win = self.peer_win;
        self.out.active = t - self.first_t;
        self.last_data_t = t;
        self.open_row = i;
    }

    /// The shares once every packet is in (`stalls`: for a stall still open); with
    /// `stopped`, once every packet up to the transfer's end is in (the interval after
    /// it is the idle tail, not counted) — else the transfer's end is found.
    pub(super) fn finish(mut self, stalls: &[Stall], spans: &mut Spans, stopped: bool) -> TimeShares {
        let cols = self.cols;
        if stopped {
            self.open = None;
        }
        // A stall still open at the end (a window that never reopened: stalls/gaps.rs) adds
        // its time after the last data segment.
        if let Some((_, State::Stalled(c), _)) = self.open.filter(|_| self.silent_from == usize::MAX) {
            if let Some(st) = stalls.iter().find(|s| cols.frame.last() == Some(&s.frame_after) && s.start + s.duration > self.last_data_t) {
                if c <= 1 {
                    push_span(spans, st.start, st.start + st.duration);
                }
                self.out.add_stall(c, st.duration);
                if c != 3 {
                    self.pauses.clear();
                }
                self.out.active += st.duration;
            }
        }
        if self.first_seq.is_finite() {
            self.out.new_bytes = self.high - self.first_seq;
            if !stopped {
                let total = self.out.new_bytes;
                let (last_data_t, full) = (self.last_data_t, self.full_segment);
                let quiet = |p: &Pause| transfer_end::connection_idled(p, last_data_t, peer_payload_after(cols, self.dir, p.row), full, transfer_end::longest_idle_from(stalls, cols.t[p.row]));
                self.out.transfer_end = std::mem::replace(&mut self.pauses, Candidates::new(0.0)).choose(total).filter(quiet).map(|p| transfer_end::transfer_end(&p, total, cols.frame[p.row], last_data_t));
            }
        }
        self.out.bursts.last_bytes = self.burst_bytes;
        self.out
    }
}

/// Payload bytes the peer of direction `dir` sent after row `row` (transfer_end.rs
/// `connection_idled`: an upload of the peer's after the transfer is no idling).
fn peer_payload_after(cols: &PacketColumns, dir: u8, row: usize) -> f64 {
    (row + 1..cols.t.len()).filter(|&i| cols.dir[i] != dir).map(|i| f64::from(cols.len[i])).sum()
}
