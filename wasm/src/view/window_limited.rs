//! Window-limited spans: the intervals the diagnosis counts as receive-window
//! limited (analysis/diagnosis_shares.rs, RFC 4898's SndLimTimeRwin), so the shaded
//! spans and the diagnosis's percentage are the same time: the inter-segment
//! intervals that began with in flight at the window, plus the stalls whose cause is
//! zero-window or window-limited (DESIGN.md "Limit diagnosis": a stall's time goes
//! to its cause's share), a trailing one (a window that never reopened) included.
//!
//! TEMPORARY REPLICA: `diagnosis_shares::time_shares` returns totals only, so this
//! walks the same state machine (same order of tests, same helpers from
//! analysis::stalls) and keeps the intervals whose final state is "receive-window".
//! `tests/view_agreement.rs` checks that the spans add up to the diagnosis's share on
//! every example. To remove it, analysis should expose the per-interval states
//! (e.g. `time_shares_with(cols, dir, stalls, |t0, t1, state| ..)`) and this file
//! should collect them.

use crate::analysis::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::{is_data_segment, mss_estimate, window_tolerance, windows_understated};
use crate::analysis::{Stall, StallCause};

const SYN: u32 = 0x02;

#[derive(Clone, Copy, PartialEq)]
enum State {
    /// A stall; true when its cause is the receive window.
    Stalled(bool),
    Loss,
    Window,
    Application,
    Other,
}

/// (spans, active seconds) of data direction `dir`; adjacent spans are merged.
pub fn spans(cols: &PacketColumns, dir: u8, stalls: &[Stall]) -> (Vec<(f64, f64)>, f64) {
    let mss = mss_estimate(cols, dir);
    let window_cause = |c: StallCause| matches!(c, StallCause::ZeroWindow | StallCause::WindowLimited);
    let mut stall_frames: Vec<(u32, bool)> = stalls.iter().map(|s| (s.frame_before, window_cause(s.cause))).collect();
    stall_frames.sort_unstable();
    let trusted = !windows_understated(cols, dir);
    let mut out: Vec<(f64, f64)> = Vec::new();
    let (mut high, mut first_t, mut active, mut last_data_t) = (f64::NEG_INFINITY, f64::NAN, 0.0, f64::NEG_INFINITY);
    let (mut peer_ack, mut peer_win) = (f64::NAN, f64::NAN);
    let mut recover: Option<f64> = None;
    let mut open: Option<(f64, State)> = None;
    let (mut idle_seen, mut loss_seen) = (false, false);

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
            }
            if recover.is_some_and(|r| peer_ack >= r) {
                recover = None;
            }
            if peer_ack >= high {
                idle_seen = true;
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
        if let Some((t0, state)) = open.take() {
            let state = match state {
                State::Stalled(_) | State::Loss => state,
                _ if loss_seen || resent => State::Loss,
                State::Other if idle_seen => State::Application,
                _ => state,
            };
            if matches!(state, State::Window | State::Stalled(true)) {
                push(&mut out, t0, t);
            }
        }
        if first_t.is_nan() {
            first_t = t;
        }
        if seq + len > high {
            high = seq + len;
        }
        if (resent || cols.flags[i] & flag_bits::LOST_SEGMENT != 0) && recover.is_none() {
            recover = Some(high);
        }
        let flight = match cols.in_flight[i] {
            v if v.is_finite() => v,
            _ if peer_ack.is_finite() => (high - peer_ack).max(0.0),
            _ => f64::NAN,
        };
        let window_limited = trusted
            && (cols.flags[i] & flag_bits::WINDOW_FULL != 0
                || (peer_win.is_finite() && flight >= peer_win - window_tolerance(mss, peer_win)));
        let state = if let Ok(k) = stall_frames.binary_search_by_key(&cols.frame[i], |&(f, _)| f) {
            State::Stalled(stall_frames[k].1)
        } else if recover.is_some() {
            State::Loss
        } else if window_limited {
            State::Window
        } else {
            State::Other
        };
        idle_seen = peer_ack >= high;
        loss_seen = false;
        open = Some((t, state));
        active = t - first_t;
        last_data_t = t;
    }
    // A stall still open at the end (a window that never reopened, stalls.rs) runs
    // past the last data segment: the same match as diagnosis_shares.
    if let Some((t0, State::Stalled(window))) = open {
        if let Some(st) = stalls.iter().find(|s| cols.frame.last() == Some(&s.frame_after) && s.start + s.duration > last_data_t) {
            if window {
                push(&mut out, t0, t0 + st.duration);
            }
            active += st.duration;
        }
    }
    (out, active)
}

/// Appends [t0, t1), merged with the previous span when they touch.
fn push(out: &mut Vec<(f64, f64)>, t0: f64, t1: f64) {
    match out.last_mut() {
        Some(last) if last.1 == t0 => last.1 = t1,
        _ => out.push((t0, t1)),
    }
}
