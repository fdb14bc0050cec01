//! The stall part of the shares pass (pass.rs `close_interval`): a stall's time to its
//! cause, the idle pauses the transfer's end is looked for in (transfer_end.rs), and a
//! window-limited stall's shrunk window. A child module of pass.rs, so it reads the
//! pass's own state.

use super::transfer_end::{self, Pause};
use super::SharesPass;

impl SharesPass<'_> {
    /// A stall's part of [`Self::close_interval`]: its time to its cause (a split one's
    /// second part to the cause it continued as), and the idle tail's and the shrunk
    /// window's bookkeeping. `cut`: where the stall continued as another cause (its
    /// start and share slot), found by `close_interval`.
    pub(super) fn close_stall(&mut self, c: usize, t0: f64, t: f64, cut: Option<(f64, usize)>) {
        if let Some((s, c2)) = cut {
            self.out.add_stall(c2, t - s);
        }
        let dt = cut.map_or(t, |(s, _)| s) - t0;
        self.out.add_stall(c, dt);
        // A stall of another cause: trouble, no idle tail (transfer_end.rs).
        if c != 3 {
            self.pauses.clear();
        }
        // An idle stall: a place the transfer may have ended (transfer_end.rs).
        if c == 3 && dt > 0.0 && self.first_seq.is_finite() {
            let sent = self.high - self.first_seq;
            // The peer's message came in the pause's second half and the sender's
            // data followed it: the pause waited for it (as `peer_wait` above).
            let (row, peer_spoke) = (self.open_row, self.request_at.is_some_and(|r| r >= t0 && t - r <= 0.5 * dt));
            let burst = sent - self.idle_burst_from;
            if burst >= transfer_end::BULK_MIN_SEGMENTS * self.full_segment {
                self.pauses.push(Pause { row, t: t0, bytes: sent, burst, seconds: dt, peer_spoke });
            }
            self.idle_burst_from = sent;
        }
        // A window-limited stall in which the window fell below 3/4 of its
        // maximum: the receiver's buffer held unread data, as in `Window` below
        // (a printer's window of 180 B–1.3 KiB, 1.1–1.4 s each until its update:
        // stalls/small_window.rs).
        if c == 1 && self.open_min_win.is_finite() && self.running_max_win.is_finite() && self.open_min_win < 0.75 * self.running_max_win {
            self.out.window_shrunk += dt;
        }
    }
}
