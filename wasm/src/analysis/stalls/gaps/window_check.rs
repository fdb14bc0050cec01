//! Whether the receiver's windows, as the capture shows them, understate what the
//! sender was allowed (docs/ANALYSIS.md "Receive window": an unknown or wrong window
//! scale), judged from bytes in flight in the sender's time (sender_view.rs).
//!
//! A sender never has more in flight than the window it last saw (RFC 9293
//! §3.8.6.2.1); more than twice that window (and a segment) means the windows read are
//! too small, as a missing scale makes them. But the sender's time is reconstructed with
//! one lag for every packet, and the path's jitter moves each by a little: a burst that a
//! window update released can land just before that update. Where the windows are below
//! a few segments that alone looks like twice the window (a Windows receiver reading its
//! 64 KiB buffer in bursts, p4-team trendmicro `j1 attack.pcap`: 4,380 bytes sent on a
//! 5,632-byte update that the reconstruction put 4 µs after them, against the 1,280
//! bytes before it). So an excess is judged against the next window too, when that
//! comes within the reconstruction's tolerance; a scale that is really missing makes
//! that window too small as well, and the excess stands.

/// The share of the sender lag the reconstruction may misplace a packet by: the
/// jitter of one path crossing, less than half the lag it is measured in.
const TOLERANCE_OF_LAG: f64 = 0.5;

pub(super) struct WindowCheck {
    mss: f64,
    lagged: bool,
    scale_known: bool,
    tolerance_s: f64,
    // An excess not yet judged: the first excessive segment's time and the largest
    // flight since.
    pending: Option<(f64, f64)>,
    understated: bool,
}

impl WindowCheck {
    /// `understated`: known before any packet (the capture holds no pure ACK).
    pub(super) fn new(mss: f64, lag_s: f64, scale_known: bool, understated: bool) -> WindowCheck {
        WindowCheck { mss: mss.max(1.0), lagged: lag_s > 0.0, scale_known, tolerance_s: TOLERANCE_OF_LAG * lag_s.max(0.0), pending: None, understated }
    }

    /// The peer's window `w` at sender time `t`.
    pub(super) fn on_window(&mut self, t: f64, w: f64) {
        if let Some((t0, flight)) = self.pending {
            if t - t0 > self.tolerance_s {
                self.understated = true;
                self.pending = None;
            } else if !self.exceeds(flight, w) {
                self.pending = None;
            }
        }
    }

    /// A data segment at sender time `t` with `flight` bytes in flight and the peer's
    /// latest window `peer_win`.
    pub(super) fn on_data(&mut self, t: f64, flight: f64, peer_win: f64) {
        if self.pending.is_some_and(|(t0, _)| t - t0 > self.tolerance_s) {
            self.understated = true;
            self.pending = None;
        }
        if self.exceeds(flight, peer_win) {
            let (t0, top) = self.pending.unwrap_or((t, flight));
            self.pending = Some((t0, top.max(flight)));
        }
    }

    pub(super) fn understated(&self) -> bool {
        self.understated || self.pending.is_some()
    }

    fn exceeds(&self, flight: f64, peer_win: f64) -> bool {
        // In the sender's time the reconstruction carries the path's jitter; and with the
        // scale known (from the handshake) a little more in flight than the window is a
        // receiver that shrank its window (RFC 9293 §3.8.6.2.2) or the capture point's
        // timing, never a scale: a scale that is wrong is wrong by a power of two. Both ask
        // for a factor 2 (the smallest scale that can be missing, 2^1).
        let limit = if self.lagged || self.scale_known { 2.0 * peer_win + self.mss } else { peer_win + self.mss };
        flight > limit
    }
}

#[cfg(test)]
mod tests {
    use super::WindowCheck;

    #[test]
    fn a_burst_just_before_the_update_that_released_it_is_no_excess() {
        // j1's shape, lag 94 µs (tolerance 47 µs): 4,380 bytes in flight against the
        // 1,280-byte window, the 5,632-byte update 4 µs later: 4,380 ≤ 2 × 5,632 + 1,460.
        let mut c = WindowCheck::new(1460.0, 94e-6, true, false);
        c.on_data(0.013710, 4380.0, 1280.0);
        c.on_window(0.013714, 5632.0);
        c.on_data(0.014000, 1460.0, 5632.0);
        assert!(!c.understated());
    }

    #[test]
    fn an_excess_no_update_explains_stands() {
        // The same excess, the next window 100 µs later (beyond the tolerance): understated.
        let mut c = WindowCheck::new(1460.0, 94e-6, true, false);
        c.on_data(0.013710, 4380.0, 1280.0);
        c.on_window(0.013810, 5632.0);
        assert!(c.understated());
        // An update in time that is itself too small (a missing scale shrinks every window).
        let mut c = WindowCheck::new(1460.0, 94e-6, true, false);
        c.on_data(0.013710, 40_000.0, 1280.0);
        c.on_window(0.013714, 5632.0);
        assert!(c.understated());
        // An excess at the capture's last packet stands too.
        let mut c = WindowCheck::new(1460.0, 94e-6, true, false);
        c.on_data(0.013710, 4380.0, 1280.0);
        assert!(c.understated());
    }
}
