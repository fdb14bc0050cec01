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

use super::columns::PacketColumns;
use super::ThroughputSummary;

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
        let bins = &mut self.bins;
        bins.sort_unstable_by_key(|b| b.0);
        let mut peak: u64 = 0;
        let mut i = 0;
        while i < bins.len() {
            let (k, mut sum) = bins[i];
            i += 1;
            while i < bins.len() && bins[i].0 == k {
                sum += bins[i].1;
                i += 1;
            }
            peak = peak.max(sum);
        }
        let mean = if duration > 0.0 { total as f64 * 8.0 / duration } else { 0.0 };
        ThroughputSummary { mean_bps: mean, peak_bps: peak as f64 * 8.0 / self.bin, bin_seconds: self.bin }
    }
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
}
