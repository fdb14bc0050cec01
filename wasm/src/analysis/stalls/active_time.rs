//! The time a direction was sending, for `throughput.activeMeanBps` (rates/throughput.rs
//! module comment; docs/ANALYSIS.md `throughput.activeMeanBps`): each burst between two
//! application pauses runs from its first data segment to the peer's ACK of its last
//! byte, in the sender's time. The pauses are stalls, so this lives with them.

use super::cause::{Stall, StallCause};
use super::gaps::is_data_segment;
use crate::analysis::rows::columns::PacketColumns;

/// How a burst's delivery is timed in the sender's time (`active_mean_bps`).
#[derive(Clone, Copy, Debug)]
pub struct DeliveryClock {
    /// How much later than the capture the sender sees the peer's packets (the sender
    /// lag, sender_view.rs): ≈ 0 at the sender, ≈ the path RTT at the receiver.
    pub lag_s: f64,
    /// The path RTT, s: no sender learns that a burst arrived sooner than a round trip
    /// after it sent the burst's first byte, whatever the capture's clock says.
    pub path_rtt_s: Option<f64>,
}

/// Payload bits of `dir` over the time its bursts took to be delivered (see the module
/// comment); `clock` None (the vantage point is unknown, so the sender's time is too):
/// over the bursts' data segments alone. `mean` when no time is left to divide by.
pub fn active_mean_bps(cols: &PacketColumns, dir: u8, stalls: &[Stall], clock: Option<DeliveryClock>, mean: f64) -> f64 {
    let lag = clock.map_or(0.0, |c| if c.lag_s.is_finite() && c.lag_s > 0.0 { c.lag_s } else { 0.0 });
    let min_delivery = clock.and_then(|c| c.path_rtt_s).filter(|r| r.is_finite() && *r > 0.0).unwrap_or(0.0);
    // A burst starts at the data segment that ends an application pause.
    // Its row: rows are in time order, frame numbers need not be (columns.rs `row_of`).
    let mut pauses: Vec<usize> = stalls
        .iter()
        .filter(|s| s.cause == StallCause::ApplicationIdle)
        .filter_map(|s| cols.row_of(s.frame_after, s.start + s.duration))
        .collect();
    pauses.sort_unstable();
    let mut pauses = pauses.into_iter().peekable();
    let (mut bits, mut seconds) = (0.0f64, 0.0f64);
    let mut burst: Option<Burst> = None;
    // Not the data sent into a peer's silence that never ended (receiver_silent.rs `find`):
    // never delivered, its re-sends would stretch the last burst to the connection's end.
    let rows = super::receiver_silent::find(cols, dir).map_or(cols.t.len(), |s| s.1);
    for i in 0..rows {
        let t = cols.t[i];
        if is_data_segment(cols, i, dir) {
            let mut starts = burst.is_none();
            while pauses.peek().is_some_and(|&r| i >= r) {
                pauses.next();
                starts = true;
            }
            if starts {
                if let Some(b) = burst.take() {
                    // Delivered before the next burst began, or the two ran together.
                    (bits, seconds) = b.add_to(bits, seconds, Some(t));
                }
                burst = Some(Burst { start: t, high: f64::NEG_INFINITY, end: t, acked: false, bytes: 0, first_instant_bytes: 0, last_data: t, max_len: 0, prev_ack: None });
            }
            if let Some(b) = burst.as_mut() {
                b.on_data(t, cols.seq.get(i).map_or(f64::NAN, |s| s + f64::from(cols.len[i])), cols.len[i]);
            }
        } else if cols.dir[i] != dir && clock.is_some() {
            if let Some(b) = burst.as_mut() {
                b.on_ack(cols.ack.get(i).copied().unwrap_or(f64::NAN), t + lag, min_delivery);
            }
        }
    }
    if let Some(b) = burst {
        (bits, seconds) = b.add_to(bits, seconds, None);
    }
    // Timestamps are whole nanoseconds: less than one left over is the rounding of the
    // seconds' floating-point sums, not time (pptp.pcap's 6-packet exchange, all of it
    // between application pauses, read "55340232 Tbit/s" once).
    if seconds >= 1e-9 { bits / seconds } else { mean }
}

/// One burst of the sender's data between application pauses, being timed.
struct Burst {
    /// Its first data segment (capture time, the sender's own).
    start: f64,
    /// Highest sequence number it sent (end of its data).
    high: f64,
    /// When all of it sent so far was delivered: the peer's ACK of `high` in the
    /// sender's time, or (not acknowledged yet) its last data segment.
    end: f64,
    acked: bool,
    bytes: u64,
    /// Bytes of the segments stamped at `start`.
    first_instant_bytes: u64,
    /// Its latest data segment (capture time) and largest payload.
    last_data: f64,
    max_len: u32,
    /// The last ACK that moved within it and did not cover all of it: (ACK, sender time).
    prev_ack: Option<(f64, f64)>,
}

impl Burst {
    fn on_data(&mut self, t: f64, seq_end: f64, len: u32) {
        self.bytes += u64::from(len);
        self.last_data = self.last_data.max(t);
        self.max_len = self.max_len.max(len);
        if t == self.start {
            self.first_instant_bytes += u64::from(len);
        }
        if seq_end > self.high {
            // New data: delivered only when an ACK covers it too.
            (self.high, self.acked) = (seq_end, false);
        }
        self.end = self.end.max(t);
    }

    /// A packet of the peer acknowledging `ack` (NaN: no ACK), at `t_sender`;
    /// `min_delivery`: the path RTT (0: unknown), the shortest an acknowledged burst takes.
    fn on_ack(&mut self, ack: f64, t_sender: f64, min_delivery: f64) {
        if self.acked || !ack.is_finite() {
            return;
        }
        if ack >= self.high {
            // An ACK that adds no more than one segment to the one before it, at least
            // delayed_ack.rs's MIN_HOLD_S (half Linux's 40 ms minimum delayed-ACK timer)
            // after it, may have been held by the receiver's delayed-ACK timer (RFC 1122 §4.2.3.2: a lone
            // segment waits up to 500 ms, RFC 9293 §3.8.6.3): the burst was delivered by
            // the previous ACK or a round trip after its last segment, whichever is
            // later, not when the receiver chose to say so (a 67 kB reply delivered in
            // 37 ms read 2.1 Mbit/s from its final ACK, 214 ms late).
            let delivered = match self.prev_ack {
                Some((prev, t_prev))
                    if self.max_len > 0 && self.high - prev <= f64::from(self.max_len) && t_sender - t_prev >= crate::analysis::stalls::delayed_ack::MIN_HOLD_S =>
                {
                    t_sender.min(t_prev.max(self.last_data + min_delivery))
                }
                _ => t_sender,
            };
            (self.end, self.acked) = (self.end.max(delivered).max(self.start + min_delivery), true);
            self.prev_ack = Some((ack, delivered));
        } else if self.prev_ack.is_none_or(|(prev, _)| ack > prev) {
            self.prev_ack = Some((ack, t_sender));
        }
    }

    /// The burst's bits and seconds added to the totals; `next`: when the next burst
    /// began (its delivery is cut there).
    fn add_to(self, bits: f64, seconds: f64, next: Option<f64>) -> (f64, f64) {
        let end = next.map_or(self.end, |n| self.end.min(n));
        // Not acknowledged (no ACK in the capture, or its last bytes never were): the
        // segments stamped at the first instant were sent "at" `start`, and only what
        // follows took the time to the last one — n segments span n − 1 gaps; on a
        // coarse clock counting them would put the rate above every bin (issue 18).
        let bytes = if self.acked { self.bytes } else { self.bytes - self.first_instant_bytes };
        (bits + bytes as f64 * 8.0, seconds + (end - self.start).max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_active_time_left_between_application_pauses_is_the_mean() {
        // tcpdump's pptp.pcap, connection 0: data at 0.000809, 0.070144 and 0.247808 s,
        // the two gaps between them application pauses (69.335 ms, 177.664 ms). Their
        // sum leaves 2.8e-17 s of "active" time in f64: 55340232 Tbit/s before.
        let t = vec![0.000809, 0.070144, 0.247808];
        let n = t.len();
        let cols = PacketColumns { t, dir: vec![0; n], frame: vec![1, 2, 3], len: vec![100, 124, 124], flags: vec![0; n], ..Default::default() };
        let stall = |start: f64, duration: f64, frame_before: u32| Stall { start, duration, cause: StallCause::ApplicationIdle, frame_before, frame_after: frame_before + 1, ended_by: String::new() };
        let stalls = [stall(0.000809, 0.069335, 1), stall(0.070144, 0.177664, 2)];
        assert!(0.247808 - 0.000809 - (0.069335 + 0.177664) > 0.0);
        assert_eq!(active_mean_bps(&cols, 0, &stalls, None, 2320.0), 2320.0);
    }

    #[test]
    fn a_burst_is_timed_from_its_first_segment_to_the_ack_of_its_last_byte() {
        // Two bursts of the sender (dir 0) with an application pause between them:
        // frames 1-2 at 0 and 1 ms (1,000 B each), the peer's ACK of both at 11 ms
        // (frame 3); frame 4 at 100 ms (1,000 B), its ACK at 110 ms (frame 5).
        let cols = PacketColumns {
            t: vec![0.0, 0.001, 0.011, 0.100, 0.110],
            dir: vec![0, 0, 1, 0, 1],
            frame: vec![1, 2, 3, 4, 5],
            seq: vec![0.0, 1000.0, 1.0, 2000.0, 1.0],
            len: vec![1000, 1000, 0, 1000, 0],
            ack: vec![f64::NAN, f64::NAN, 2000.0, f64::NAN, 3000.0],
            flags: vec![0; 5],
            ..Default::default()
        };
        let pause = Stall { start: 0.001, duration: 0.099, cause: StallCause::ApplicationIdle, frame_before: 2, frame_after: 4, ended_by: String::new() };
        let at = |lag_s: f64, path_rtt_s: Option<f64>| active_mean_bps(&cols, 0, std::slice::from_ref(&pause), Some(DeliveryClock { lag_s, path_rtt_s }), 0.0);
        // (Equal up to the rounding of the seconds' sums.)
        let close = |a: f64, b: f64| assert!((a - b).abs() <= 1e-9 * b, "{a} vs {b}");
        // At the sender (lag 0): 2,000 B in the 11 ms to their ACK, 1,000 B in 10 ms:
        // 3,000 B × 8 / 21 ms.
        close(at(0.0, Some(0.010)), 24_000.0 / 0.021);
        // At the receiver the sender sees each ACK one lag (5 ms here) after the capture:
        // 16 ms + 15 ms.
        close(at(0.005, Some(0.010)), 24_000.0 / (0.016 + 0.015));
        // An ACK sooner than the path RTT after the burst's first byte is the capture's
        // clock or a wrong lag, not the sender's: a round trip at least (20 ms each).
        close(at(0.0, Some(0.020)), 24_000.0 / 0.040);
        // Without the sender's time (vantage unknown) the data segments alone: the
        // bytes after each burst's first instant over the bursts' spans, 1,000 B in 1 ms.
        close(active_mean_bps(&cols, 0, std::slice::from_ref(&pause), None, 0.0), 8_000.0 / 0.001);
    }
}
