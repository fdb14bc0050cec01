//! A pause too short to be a stall, behind a receive window below one segment: the
//! shares pass's counterpart of stalls/small_window.rs (docs/ANALYSIS.md "Time
//! shares", rule 3c).
//!
//! Once the receiver has acknowledged everything with a window below one segment (and
//! below half the largest window it gave), a sender that avoids the silly window
//! syndrome sends nothing (RFC 9293 §3.8.6.2.1, RFC 1122 §4.2.3.4): it waits for a
//! window update, or for its override timer to send what fits. Such a pause is the
//! receiver's window, not an application with nothing to send, where the capture shows
//! the evidence the stall rule asks for:
//! - the receiver's window update (the same cumulative ACK, a larger window) and the
//!   sender's next segment at once after it (in the sender's time), a segment larger
//!   than the small window; or
//! - no update, and that segment filling exactly what the small window left, below a
//!   segment (the override timer's send, Wireshark's "TCP Window Full").
//!
//! A Windows receiver that reads its 64 KiB buffer in bursts (p4-team trendmicro
//! `j1 attack.pcap`) acknowledged everything 27 times with 512–1,280 bytes of window
//! (scale 8), each pause 0.4–1.3 ms, below any stall threshold, each ended 0.1–0.4 ms
//! after its window update: read "75 % of the time the sender had nothing to send".
//! A child module of pass.rs, so it reads the pass's own state.

use super::SharesPass;

/// Slack for "at once" after the update, in the sender's time: a stack answers a
/// window update in microseconds; the sender lag is an estimate (as stalls/small_window.rs).
const PROMPT_S: f64 = 0.001;

/// What the open interval saw of a small window once everything was acknowledged.
#[derive(Clone, Copy, Default)]
pub(super) struct SmallWindowHold {
    /// (sender time, window, cumulative ACK) of the receiver's ACK of everything with
    /// the window below one segment.
    pub(super) small: Option<(f64, f64, f64)>,
    /// Sender time of the window update after it.
    pub(super) update: Option<f64>,
    /// The open interval's segment was window-limited by the headroom test alone
    /// (window_headroom.rs).
    pub(super) headroom: bool,
}

impl SharesPass<'_> {
    /// A packet of the peer at sender time `t` with window `w` and ACK `ack`, after the
    /// pass has taken it in; `max_before`: the largest window before it.
    pub(super) fn watch_small_window(&mut self, t: f64, w: f64, ack: f64, max_before: f64) {
        if self.open.is_none() || !self.out.windows_trusted || !(ack >= self.high) {
            return;
        }
        let hold = &mut self.small_hold;
        match hold.small {
            None if w < self.full_segment && (max_before.is_nan() || w < 0.5 * max_before) => hold.small = Some((t, w, ack)),
            Some((_, w0, a0)) if ack == a0 && w > w0 => {
                hold.update.get_or_insert(t);
            }
            Some((_, w0, _)) if w < w0 => *hold = SmallWindowHold { small: Some((t, w, ack)), update: None, ..*hold },
            _ => {}
        }
    }

    /// Whether data segment `i`, sent at sender time `t`, ended a pause held by a small
    /// window (the module's two cases): the time from the small window on is the
    /// window's, when it came.
    pub(super) fn small_window_held(&self, i: usize, t: f64) -> Option<f64> {
        let (t_small, w0, a0) = self.small_hold.small?;
        let (seq, len) = (self.cols.seq[i], f64::from(self.cols.len[i]));
        if seq < self.high {
            return None; // a re-send: the loss rules' time
        }
        let held = match self.small_hold.update {
            Some(u) => len > w0 && (-PROMPT_S..=PROMPT_S).contains(&(t - u)) && t - u < u - t_small,
            None => seq + len == a0 + w0 && len < self.full_segment,
        };
        held.then_some(t_small)
    }
}
