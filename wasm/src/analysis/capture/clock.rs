//! The capture clock's resolution (issue 13, "Capture clock").
//!
//! pcap stores µs or ns, pcapng whatever `if_tsresol` says, but the clock behind them
//! can be far coarser: old capture gear and some virtual NICs stamp in 10 ms ticks,
//! Windows' default timer ticks every 15.6 ms. Then an RTT of 0 means "less than a
//! tick" and a 10 ms gap may be one tick of jitter. We detect the tick two ways:
//! 1. the greatest common divisor of all timestamps' offsets from the first one (a
//!    clock of 10 ms ticks gives exactly 10,000,000 ns);
//! 2. for clocks whose tick is not an integer number of ns (15.625 ms): when at least
//!    [`EQUAL_SHARE`] of consecutive packets share a timestamp, the smallest non-zero
//!    step between consecutive timestamps.
//! The larger of the two is the resolution. Fewer than [`MIN_PACKETS`] packets say
//! nothing.

pub const MIN_PACKETS: u64 = 8;
/// Share of consecutive equal timestamps that marks a quantized clock.
pub const EQUAL_SHARE: f64 = 0.3;

#[derive(Default, Debug)]
pub struct ClockTicks {
    first: Option<i64>,
    prev: i64,
    gcd: u64,
    packets: u64,
    equal_steps: u64,
    min_step: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl ClockTicks {
    #[inline]
    pub fn add(&mut self, ts_ns: i64) {
        self.packets += 1;
        let Some(first) = self.first else {
            self.first = Some(ts_ns);
            self.prev = ts_ns;
            return;
        };
        let off = ts_ns.wrapping_sub(first).unsigned_abs();
        if off != 0 && (self.gcd == 0 || off % self.gcd != 0) {
            self.gcd = gcd(self.gcd, off);
        }
        let step = ts_ns.wrapping_sub(self.prev).unsigned_abs();
        if step == 0 {
            self.equal_steps += 1;
        } else if self.min_step == 0 || step < self.min_step {
            self.min_step = step;
        }
        self.prev = ts_ns;
    }

    /// The clock's tick in ns; None when the capture is too small to tell.
    pub fn resolution_ns(&self) -> Option<i64> {
        if self.packets < MIN_PACKETS || self.gcd == 0 {
            return None;
        }
        let mut res = self.gcd;
        if self.equal_steps as f64 >= EQUAL_SHARE * (self.packets - 1) as f64 {
            res = res.max(self.min_step);
        }
        i64::try_from(res).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticks(ts: &[i64]) -> Option<i64> {
        let mut c = ClockTicks::default();
        ts.iter().for_each(|&t| c.add(t));
        c.resolution_ns()
    }

    #[test]
    fn microsecond_clock() {
        // 1.000001 s, 1.000348 s, ...: offsets 347 µs, 1001 µs ... have gcd 1 µs.
        let t: Vec<i64> = [0, 347, 1001, 1350, 2999, 4000, 4001, 7777].iter().map(|us| 1_000_000_000 + us * 1000).collect();
        assert_eq!(ticks(&t), Some(1000));
    }

    #[test]
    fn ten_millisecond_clock() {
        let t: Vec<i64> = [0, 0, 10, 10, 10, 20, 50, 50, 60, 200].iter().map(|ms| 5_000_000_000 + ms * 1_000_000).collect();
        assert_eq!(ticks(&t), Some(10_000_000));
    }

    #[test]
    fn windows_timer_of_15_625_ms_in_microseconds() {
        // Ticks of 15.625 ms written in µs: 15625, 31250, 46875 µs — gcd 15.625 ms.
        let t: Vec<i64> = [0, 0, 1, 1, 2, 3, 3, 5, 8, 8].iter().map(|k| k * 15_625_000).collect();
        assert_eq!(ticks(&t), Some(15_625_000));
        // 15.6001 ms (Windows' real tick, not a whole number of µs) rounded to µs:
        // the gcd collapses, the equal-timestamp rule still finds one tick.
        let t: Vec<i64> = (0..40).map(|i| (i / 3) * 15_600_100 / 1000 * 1000).collect();
        assert_eq!(ticks(&t), Some(15_600_000));
    }

    #[test]
    fn too_few_packets() {
        assert_eq!(ticks(&[0, 10_000_000]), None);
    }
}
