//! Throughput summary of one direction (DESIGN.md "Throughput"): payload bytes per
//! time bin, in bit/s.
//!
//! * `peak_bps`: the fullest bin. Bins are aligned on the file's time origin: bin k
//!   covers [k·bin, (k+1)·bin) of seconds since the first packet of the file, the
//!   same bins as make_oracle.py's `throughput_bins_100ms` and tshark's
//!   `-z io,stat,0.1`, so peaks can be compared directly.
//! * `mean_bps`: payload bits over the CONNECTION's duration (first to last packet
//!   of either direction), like make_oracle.py's
//!   `avg_payload_mbps_over_stream_duration` — the rate a user experiences for the
//!   whole transfer, including its idle start and end. 0 when the duration is 0.
//! * `active_mean_bps`: payload bits over the time the direction's bursts took to
//!   be delivered ("mean while active"): each burst between two application pauses
//!   runs from its first data segment to the peer's ACK of its last byte, in the
//!   sender's time (the ACK's capture time plus the sender lag) — the delivery rate a
//!   sender sees, at any vantage point, where the data segments' own spacing shows
//!   how fast a burst entered the first queue (at the sender) or how close two of its
//!   segments arrived (at the receiver). Zero-window, RTO and other stalls inside a
//!   burst stay in: they are the network's and the receiver's cost, which the rate
//!   must show. The diagnosis and the calculator quote it (never a single bin).
//!   docs/ANALYSIS.md `throughput.activeMeanBps` has the whole rule.
//! * Peak ≥ mean by construction: a transfer shorter than one bin puts all its bytes
//!   in one or two bins that are mostly empty time, so the fullest bin can read
//!   below the mean; then the peak is the mean (it ran at least that fast). The
//!   default bin follows the connection's length ([`auto_bin`]) so this is rare.

use crate::analysis::columns::PacketColumns;
use crate::analysis::stalls::is_data_segment;
use crate::analysis::{Stall, StallCause, ThroughputSummary};

/// Bins per connection the default aims at, at least: a 20 ms transfer gets 1 ms
/// bins instead of one 100 ms bar (issue 13).
pub const MIN_BINS: f64 = 20.0;

/// The default bin: `max_bin` (DESIGN.md's 100 ms) unless the connection is shorter
/// than [`MIN_BINS`] of them, then the largest 1-2-5 step giving that many bins;
/// never below one tick of the capture clock (a bin finer than the clock shows its
/// ticks, not the traffic), nor below 1 µs.
pub fn auto_bin(duration: f64, tick: f64, max_bin: f64) -> f64 {
    let max_bin = if max_bin.is_finite() && max_bin > 0.0 { max_bin } else { 0.1 };
    let mut bin = max_bin;
    if duration.is_finite() && duration > 0.0 && duration / MIN_BINS < max_bin {
        let want = duration / MIN_BINS;
        // Tolerances: 0.02 / 20 must give exactly the 1 ms step, not 0.5 ms.
        let decade = 10f64.powf((want.log10() + 1e-9).floor());
        bin = [5.0, 2.0, 1.0].iter().map(|m| m * decade).find(|&b| b <= want * (1.0 + 1e-9)).unwrap_or(decade);
    }
    bin.max(tick).max(1e-6)
}

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
    for i in 0..cols.t.len() {
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
                    if self.max_len > 0 && self.high - prev <= f64::from(self.max_len) && t_sender - t_prev >= crate::analysis::delayed_ack::MIN_HOLD_S =>
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

pub fn summarize(cols: &PacketColumns, dir: u8, bin_seconds: f64, duration: f64) -> ThroughputSummary {
    let mut acc = Bins::new(bin_seconds);
    let mut total = 0u64;
    for i in 0..cols.t.len() {
        if cols.dir[i] == dir {
            acc.add(cols.t[i], cols.len[i]);
            total += cols.len[i] as u64;
        }
    }
    acc.finish(total, duration)
}

/// One direction's throughput while the capture is still being read (the progressive
/// view, issue 41; view/partial.rs): the bins the analyzer fills for the summary, at
/// the options' bin (DESIGN.md's 100 ms), read in place — nothing is copied or kept
/// for it.
#[derive(Clone, Copy, Debug)]
pub struct RunningBins<'a> {
    pub bin_seconds: f64,
    /// (bin index, payload bytes) of the non-empty bins, in time order (the session
    /// hands packets to the analysis in time order, analysis/timeline.rs).
    pub bins: &'a [(i64, u64)],
    /// Payload bytes of the direction so far.
    pub payload: u64,
}

/// The same summary fed one packet at a time (the analyzer's per-direction totals).
#[derive(Debug)]
pub(crate) struct Bins {
    bin: f64,
    /// (bin index, payload bytes); i64 keys because times may precede the file's
    /// first packet (clock steps back).
    bins: Vec<(i64, u64)>,
}

impl Bins {
    pub fn new(bin_seconds: f64) -> Bins {
        let bin = if bin_seconds.is_finite() && bin_seconds > 0.0 { bin_seconds } else { 0.1 };
        Bins { bin, bins: Vec::new() }
    }

    /// The bins so far, read in place (`RunningBins`).
    pub fn running(&self, payload: u64) -> RunningBins<'_> {
        RunningBins { bin_seconds: self.bin, bins: &self.bins, payload }
    }

    /// A packet of the direction at `t` seconds with `len` payload bytes.
    #[inline]
    pub fn add(&mut self, t: f64, len: u32) {
        if len == 0 {
            return;
        }
        let len = len as u64;
        // Packets are in capture order, so a bin's packets are consecutive unless the
        // clock went backwards; the sort in `finish` keeps even that case exact.
        let k = (t / self.bin).floor() as i64;
        match self.bins.last_mut() {
            Some((last, sum)) if *last == k => *sum += len,
            _ => self.bins.push((k, len)),
        }
    }

    /// `total`: payload bytes of the direction (the caller counts them anyway).
    pub fn finish(mut self, total: u64, duration: f64) -> ThroughputSummary {
        let bin = self.bin;
        let mut peak: f64 = 0.0;
        self.for_each_rate_bps(|r| peak = peak.max(r));
        let mean = if duration > 0.0 { total as f64 * 8.0 / duration } else { 0.0 };
        ThroughputSummary { mean_bps: mean, active_mean_bps: mean, peak_bps: peak.max(mean), bin_seconds: bin }
    }

    /// The rate of each non-empty bin in time order, bit/s (bins whose packets came
    /// out of order, when the clock stepped back, are summed first).
    pub fn rates_bps(mut self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.bins.len());
        self.for_each_rate_bps(|r| out.push(r));
        out
    }

    /// [`Bins::rates_bps`] one at a time (the summary's peak needs no vector).
    fn for_each_rate_bps(&mut self, mut f: impl FnMut(f64)) {
        let bins = &mut self.bins;
        bins.sort_unstable_by_key(|b| b.0);
        let mut i = 0;
        while i < bins.len() {
            let (k, mut sum) = bins[i];
            i += 1;
            while i < bins.len() && bins[i].0 == k {
                sum += bins[i].1;
                i += 1;
            }
            f(sum as f64 * 8.0 / self.bin);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn no_active_time_left_between_application_pauses_is_the_mean() {
        use crate::analysis::{Stall, StallCause};
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
        use crate::analysis::{Stall, StallCause};
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

    use super::*;

    fn cols(rows: &[(f64, u8, u32)]) -> PacketColumns {
        let mut c = PacketColumns::default();
        for &(t, d, l) in rows {
            c.t.push(t);
            c.dir.push(d);
            c.len.push(l);
        }
        c
    }

    #[test]
    fn peak_is_fullest_aligned_bin_and_mean_uses_duration() {
        // dir 0: 1000 B at 0.05 and 0.09 (bin 0 = 2000 B), 500 B at 0.15 (bin 1);
        // dir 1's 9999 B must not count.
        let c = cols(&[(0.05, 0, 1000), (0.09, 0, 1000), (0.10, 1, 9999), (0.15, 0, 500)]);
        let s = summarize(&c, 0, 0.1, 2.0);
        // peak: 2000 B * 8 / 0.1 s = 160_000 bit/s
        assert_eq!(s.peak_bps, 160_000.0);
        // mean: 2500 B * 8 / 2 s = 10_000 bit/s
        assert_eq!(s.mean_bps, 10_000.0);
        assert_eq!(s.bin_seconds, 0.1);
    }

    #[test]
    fn out_of_order_times_still_sum_per_bin() {
        let c = cols(&[(0.05, 0, 100), (0.25, 0, 100), (0.06, 0, 100)]);
        // bin 0 holds 200 B → 200 * 8 / 0.1 = 16_000 bit/s
        assert_eq!(summarize(&c, 0, 0.1, 0.0).peak_bps, 16_000.0);
        assert_eq!(summarize(&c, 0, 0.1, 0.0).mean_bps, 0.0);
    }

    #[test]
    fn default_bin_follows_the_connection() {
        // 2 s or longer: DESIGN.md's 100 ms.
        assert_eq!(auto_bin(2.05, 1e-6, 0.1), 0.1);
        // 20 ms: 1 ms bins (20 of them), not one 100 ms bar.
        assert_eq!(auto_bin(0.020, 1e-6, 0.1), 0.001);
        // 19 ms → 0.95 ms wanted → 0.5 ms.
        assert_eq!(auto_bin(0.019, 1e-6, 0.1), 0.0005);
        // Never below the clock's tick: 10 ms clock, 200 ms transfer → 10 ms.
        assert_eq!(auto_bin(0.2, 0.010, 0.1), 0.010);
    }

    #[test]
    fn peak_never_below_mean() {
        // 20 ms transfer of 25 kB in one 100 ms bin: the bin says 2 Mbit/s, the
        // transfer ran at 10 Mbit/s; the peak is the mean.
        let c = cols(&[(0.0, 0, 12_500), (0.02, 0, 12_500)]);
        let s = summarize(&c, 0, 0.1, 0.02);
        assert_eq!((s.mean_bps, s.peak_bps), (10_000_000.0, 10_000_000.0));
    }
}
