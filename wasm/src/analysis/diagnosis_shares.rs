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
//! - stalled: the interval is one of the direction's stalls (matched by frame_before),
//!   whatever the stall's cause (the cause is kept in `stall_by_cause`);
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
//!   it had nothing to send (RFC 4898's SndLimTimeSnd, T-RAT's application-limited);
//! - other: in flight below the window with data outstanding and no loss: the
//!   congestion window or the path (RFC 4898's SndLimTimeCwnd).
//!
//! Time weighting does the right thing for bursts: in a window-limited flow the long
//! interval is the one after the segment that filled the window.

use super::columns::{flag_bits, PacketColumns};
use super::stalls::{is_data_segment, mss_estimate, window_tolerance, windows_understated};
use super::{Stall, StallCause};

const SYN: u32 = 0x02;

/// Seconds spent in each state, plus the numbers the diagnosis text quotes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeShares {
    pub active: f64,
    pub receive_window: f64,
    pub loss: f64,
    pub application: f64,
    pub stalled: f64,
    pub other: f64,
    /// Stalled seconds per cause, in `StallCause` order (zero-window, window-limited,
    /// retransmission-timeout, application-idle, ack-wait, unknown).
    pub stall_by_cause: [f64; 6],
    pub data_segments: u64,
    /// New payload bytes (highest sequence minus the first data segment's start):
    /// retransmitted bytes are not counted twice.
    pub new_bytes: f64,
    /// Largest window the peer advertised (non-SYN) during the active time; NaN if none.
    pub max_window: f64,
    /// Smallest such window.
    pub min_window: f64,
    pub retransmitted_segments: u64,
    /// From the first data segment until the peer's ACK covered all data (or the last
    /// data segment if it never did): the duration for the average rate, so that a
    /// flow's last window, still queued when the sender went quiet, is counted.
    pub transfer_time: f64,
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
        StallCause::AckWait => 4,
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

/// One linear pass over the interleaved columns for data direction `dir`.
pub fn time_shares(cols: &PacketColumns, dir: u8, stalls: &[Stall]) -> TimeShares {
    let mss = mss_estimate(cols, dir);
    let mut stall_frames: Vec<(u32, usize)> =
        stalls.iter().map(|s| (s.frame_before, cause_index(s.cause))).collect();
    stall_frames.sort_unstable();

    let mut out = TimeShares {
        max_window: f64::NAN,
        min_window: f64::NAN,
        mss,
        windows_trusted: !windows_understated(cols, dir),
        ..Default::default()
    };
    let mut high = f64::NEG_INFINITY;
    let mut first_seq = f64::NAN;
    let mut first_t = 0.0;
    let mut peer_ack = f64::NAN;
    let mut peer_win = f64::NAN;
    let mut recover: Option<f64> = None; // recovery point while in loss recovery
    // The open interval: (start time, state decided at its first segment).
    let mut open: Option<(f64, State)> = None;
    let mut idle_seen = false; // peer acknowledged everything during the open interval
    let mut loss_seen = false; // duplicate ACKs during the open interval
    let mut covered_at: Option<f64> = None; // when the peer's ACK reached `high`

    for i in 0..cols.t.len() {
        let t = cols.t[i];
        if cols.dir[i] != dir {
            let a = cols.ack[i];
            if a.is_finite() && (peer_ack.is_nan() || a > peer_ack) {
                peer_ack = a;
            }
            let w = cols.win[i];
            if w.is_finite() && cols.flags[i] & SYN == 0 {
                peer_win = w;
                if open.is_some() {
                    out.max_window = if w > out.max_window || out.max_window.is_nan() { w } else { out.max_window };
                    out.min_window = if w < out.min_window || out.min_window.is_nan() { w } else { out.min_window };
                }
            }
            if recover.is_some_and(|r| peer_ack >= r) {
                recover = None;
            }
            if peer_ack >= high {
                idle_seen = true;
                covered_at.get_or_insert(t);
            }
            if cols.flags[i] & flag_bits::DUPLICATE_ACK != 0 {
                loss_seen = true;
            }
            continue;
        }
        if !is_data_segment(cols, i, dir) {
            continue;
        }
        let (seq, len) = (cols.seq[i], cols.len[i] as f64);
        let resent = seq < high || cols.flags[i] & flag_bits::RETRANSMISSION != 0;
        // Close the interval that this segment ends.
        if let Some((t0, state)) = open.take() {
            let state = match state {
                State::Stalled(_) | State::Loss => state,
                _ if loss_seen || resent => State::Loss,
                State::Other if idle_seen => State::Application,
                _ => state,
            };
            let dt = t - t0;
            match state {
                State::Stalled(c) => {
                    out.stalled += dt;
                    out.stall_by_cause[c] += dt;
                }
                State::Loss => out.loss += dt,
                State::Window => out.receive_window += dt,
                State::Application => out.application += dt,
                State::Other => out.other += dt,
            }
        }
        out.data_segments += 1;
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
        }
        if seq + len > high {
            high = seq + len;
            covered_at = None;
        }
        if (resent || cols.flags[i] & flag_bits::LOST_SEGMENT != 0) && recover.is_none() {
            recover = Some(high);
        }
        let flight = match cols.in_flight[i] {
            v if v.is_finite() => v,
            _ if peer_ack.is_finite() => (high - peer_ack).max(0.0),
            _ => f64::NAN,
        };
        let window_limited = out.windows_trusted
            && (cols.flags[i] & flag_bits::WINDOW_FULL != 0
                || (peer_win.is_finite() && flight >= peer_win - window_tolerance(mss, peer_win)));
        let state = match stall_frames.binary_search_by_key(&cols.frame[i], |&(f, _)| f) {
            Ok(k) => State::Stalled(stall_frames[k].1),
            Err(_) if recover.is_some() => State::Loss,
            Err(_) if window_limited => State::Window,
            Err(_) => State::Other,
        };
        idle_seen = peer_ack >= high;
        loss_seen = false;
        open = Some((t, state));
        out.active = t - first_t;
    }
    if first_seq.is_finite() {
        out.new_bytes = high - first_seq;
        out.transfer_time = covered_at.map_or(out.active, |t| t - first_t).max(out.active);
    }
    out
}
