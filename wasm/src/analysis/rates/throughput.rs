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
//!   must show. The diagnosis and the calculator quote it (never a single bin);
//!   it needs the stalls, so stalls/active_time.rs computes it.
//!   docs/ANALYSIS.md `throughput.activeMeanBps` has the whole rule.
//! * Peak ≥ mean by construction: a transfer shorter than one bin puts all its bytes
//!   in one or two bins that are mostly empty time, so the fullest bin can read
//!   below the mean; then the peak is the mean (it ran at least that fast). The
//!   default bin follows the connection's length ([`auto_bin`]) so this is rare.

use crate::analysis::rows::columns::PacketColumns;
use serde::Serialize;

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

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ThroughputSummary {
    /// Payload bits over the connection's duration ("mean over the connection's duration").
    pub mean_bps: f64,
    /// Payload bits over the direction's active time: first to last data segment,
    /// stalls excluded ("mean while sending"; throughput.rs).
    pub active_mean_bps: f64,
    /// Fullest bin; never below `mean_bps` (throughput.rs).
    pub peak_bps: f64,
    pub bin_seconds: f64,
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
    /// hands packets to the analysis in time order, analysis/capture/timeline.rs).
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
        let k = bin_of(t, self.bin);
        match self.bins.last_mut() {
            Some((last, sum)) if *last == k => *sum += len,
            _ => crate::lean::push(&mut self.bins, (k, len)),
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
            f(rate_bps(sum, self.bin));
        }
    }
}

/// The bin of time `t`: bin k covers [k·bin, (k+1)·bin) of seconds since the file's
/// first packet (DESIGN.md "Throughput", the grid of tshark's `-z io,stat`). The one
/// rule: the summary's peak here and the charts' bins (view/rates.rs) both use it.
#[inline]
pub fn bin_of(t: f64, bin: f64) -> i64 {
    (t / bin).floor() as i64
}

/// The rate of `bytes` in one bin of `bin` seconds, bit/s (the summary's peak is the
/// largest; the throughput chart draws each).
#[inline]
pub fn rate_bps(bytes: u64, bin: f64) -> f64 {
    bytes as f64 * 8.0 / bin
}

#[cfg(test)]
mod tests {
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
