//! The capture clock's resolution (issue 13, "Capture clock").
//!
//! pcap stores µs or ns, pcapng whatever `if_tsresol` says, but the clock behind them
//! can be far coarser: old capture gear and some virtual NICs stamp in 10 ms ticks,
//! Windows' default timer ticks every 15.6 ms (16.67 ms at 60 Hz). Then an RTT of 0
//! means "less than a tick" and a 10 ms gap may be one tick of jitter. We detect the
//! tick two ways:
//! 1. the greatest common divisor of the steps between consecutive timestamps (a
//!    clock of 10 ms ticks gives exactly 10,000,000 ns; the steps generate the same
//!    numbers as the offsets from the first timestamp, so this is their gcd too);
//! 2. for clocks whose tick is not an integer number of ns (15.625 ms): when at least
//!    [`EQUAL_SHARE`] of consecutive packets share a timestamp, the smallest non-zero
//!    step between consecutive timestamps.
//! 3. for clocks whose driver keeps stamps unique by adding a microsecond or so to
//!    each packet inside one tick (kholia/my-pcaps `VNC/03-vnc-pass1234-3.8.pcap`:
//!    every step between packets is 0–3 µs or 158 µs and more, none between; review N,
//!    C-RTT-ARTEFACT): when at least [`EQUAL_SHARE`] of the steps are 0 or such a fill
//!    (≤ [`FILL_MAX_NS`]), no step lies between the fill and [`FILL_GAP_NS`], and the
//!    capture has [`FILL_MIN_PACKETS`] packets, the smallest step above the fill. A
//!    clock that resolves microseconds shows steps of every size between (a 1 Gbit/s
//!    segment takes 12 µs, ACKs come at any offset), so it never passes this test.
//! The largest of these is the resolution. Fewer than [`MIN_PACKETS`] packets say
//! nothing.
//!
//! One capture can hold packets stamped by different clocks: files of several sources
//! merged (mergecap), pcapng interfaces of different resolutions, a Windows host's
//! timer beside µs timestamps. The capture's tick is then its finest clock's, and a
//! connection stamped by a coarse one would see every tick as a gap. So the same
//! estimator also runs on each connection's own packets (`Conn::ticks`), and a
//! connection's tick is the coarser of the two ([`own_tick_ns`]). A connection of a
//! few packets at two or three instants shows its clock quantized (its packets share
//! timestamps) but not its tick: its one step between instants may be many ticks. Its
//! tick is measured only where it shows as a step between consecutive packets at least
//! twice ([`ClockTicks::shown_twice`]); otherwise it takes the tick such a connection of
//! the same capture showed, when its own steps are whole multiples of it.

pub const MIN_PACKETS: u64 = 8;
/// Share of consecutive equal timestamps that marks a quantized clock.
pub const EQUAL_SHARE: f64 = 0.3;
/// A tick above this is coarse: the `coarse-clock` warning (facts.rs), and the bar a
/// connection's own tick must pass to count ([`own_tick_ns`]).
pub const COARSE_NS: i64 = 1_000_000;
/// A step this small between two packets on a clock that otherwise steps by far more is
/// the driver's fill inside one tick (module doc, rule 3).
pub const FILL_MAX_NS: u64 = 5_000;
/// The smallest step above the fill must be at least this (20 × the fill) for rule 3.
pub const FILL_GAP_NS: u64 = 100_000;
/// Rule 3 needs this many packets: the absence of steps between fill and tick must
/// be seen often enough to mean something.
pub const FILL_MIN_PACKETS: u32 = 100;

/// 40 bytes: one per capture and one per connection (`Conn::ticks`). The counts
/// saturate at 2^32 packets (a file of 400 GB at least).
#[derive(Clone, Copy, Default, Debug)]
pub struct ClockTicks {
    prev: i64,
    gcd: u64,
    min_step: u64,
    packets: u32,
    equal_steps: u32,
    /// Steps within [`SAME_STEP`] of `min_step` (`shown_twice`).
    min_step_hits: u32,
    /// Steps of at most [`FILL_MAX_NS`] but not 0, and the smallest step above that
    /// (rule 3 of the module doc).
    fill_steps: u32,
    min_above_fill: u64,
}

/// The coarsest clock a capture file can hold: pcap stores whole seconds (`ts_sec`) at
/// least, so no capture clock ticks slower. A longer regular step between a
/// connection's packets is its traffic's period (keep-alives every 14 s), not a tick.
pub const MAX_TICK_NS: i64 = 1_000_000_000;

/// Two steps are the same tick within 1 % (a tick that is no whole number of the file's
/// units is rounded to 16.666 or 16.667 ms).
const SAME_STEP: u64 = 100;

fn same_step(a: u64, b: u64) -> bool {
    a.abs_diff(b) <= a.min(b) / SAME_STEP
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
        self.packets = self.packets.saturating_add(1);
        if self.packets == 1 {
            self.prev = ts_ns;
            return;
        }
        let step = ts_ns.wrapping_sub(self.prev).unsigned_abs();
        if step == 0 {
            self.equal_steps = self.equal_steps.saturating_add(1);
        } else {
            if step <= FILL_MAX_NS {
                self.fill_steps = self.fill_steps.saturating_add(1);
            } else if self.min_above_fill == 0 || step < self.min_above_fill {
                self.min_above_fill = step;
            }
            if self.gcd == 0 || step % self.gcd != 0 {
                self.gcd = gcd(self.gcd, step);
            }
            if self.min_step != 0 && same_step(step, self.min_step) {
                self.min_step_hits = self.min_step_hits.saturating_add(1);
            } else if self.min_step == 0 || step < self.min_step {
                self.min_step_hits = 1;
            }
            if self.min_step == 0 || step < self.min_step {
                self.min_step = step;
            }
        }
        self.prev = ts_ns;
    }

    /// The clock's tick in ns; None when the capture is too small to tell.
    pub fn resolution_ns(&self) -> Option<i64> {
        if u64::from(self.packets) < MIN_PACKETS || self.gcd == 0 {
            return None;
        }
        let mut res = self.gcd;
        if f64::from(self.equal_steps) >= EQUAL_SHARE * f64::from(self.packets - 1) {
            res = res.max(self.min_step);
        }
        let filled = f64::from(self.equal_steps.saturating_add(self.fill_steps)) >= EQUAL_SHARE * f64::from(self.packets - 1);
        if self.fill_steps > 0 && filled && self.packets >= FILL_MIN_PACKETS && self.min_above_fill >= FILL_GAP_NS {
            res = res.max(self.min_above_fill);
        }
        i64::try_from(res).ok()
    }

    /// The tick, when it showed as the step between consecutive packets at least twice:
    /// a clock's tick shows itself again and again, a single step between two instants
    /// may be many ticks (10 packets at two instants 400 ms apart on a 16.7 ms clock).
    pub fn shown_twice(&self) -> Option<i64> {
        let res = self.resolution_ns()?;
        (self.min_step_hits >= 2 && same_step(res.unsigned_abs(), self.min_step)).then_some(res)
    }
}

/// A connection's own tick (`ticks`: the estimator over its packets) when it is coarser
/// than the capture's (`capture_ns`) and coarse ([`COARSE_NS`]): its packets were stamped
/// by a coarser clock than the capture's finest, and its thresholds must follow it
/// (docs/ANALYSIS.md "A coarse capture clock", `connection.clockTickMs`). A finer
/// difference changes nothing (the stall threshold's 10 ms floor is above 3 such
/// ticks, and a time difference within the connection is 0 or at least its smallest
/// step, so no RTT sample lies below it), and a connection's few packets can share a
/// factor of a few ns by chance. Nor coarser than [`MAX_TICK_NS`]. The tick must show
/// twice (`shown_twice`); else, when
/// the connection's clock is quantized and its tick a whole multiple (within 1 %) of a
/// coarse tick another connection showed (`shown`: those ticks, from
/// [`shown_coarse_ticks`]), that one: the largest such.
pub fn own_tick_ns(ticks: &ClockTicks, capture_ns: Option<i64>, shown: &[i64]) -> Option<i64> {
    let coarse = |ns: i64| ns > COARSE_NS && ns <= MAX_TICK_NS && ns > capture_ns.unwrap_or(0);
    if let Some(ns) = ticks.shown_twice() {
        return Some(ns).filter(|&ns| coarse(ns));
    }
    let res = ticks.resolution_ns().filter(|&ns| ns > COARSE_NS && ns > capture_ns.unwrap_or(0))?;
    shown.iter().copied().filter(|&t| t <= res && whole_multiple(res, t)).max()
}

/// `a` is a whole multiple of `tick` within 1 % of a tick.
fn whole_multiple(a: i64, tick: i64) -> bool {
    let rest = a.rem_euclid(tick);
    rest.min(tick - rest) <= tick / SAME_STEP as i64
}

/// The coarse ticks connections showed twice (`ClockTicks::shown_twice`), coarser than
/// the capture's: the clocks a connection too short to show its own may take
/// (`own_tick_ns`). Sorted, each once.
pub fn shown_coarse_ticks<'a>(all: impl Iterator<Item = &'a ClockTicks>, capture_ns: Option<i64>) -> Vec<i64> {
    let mut v: Vec<i64> = all.filter_map(|t| t.shown_twice()).filter(|&ns| ns > COARSE_NS && ns <= MAX_TICK_NS && ns > capture_ns.unwrap_or(0)).collect();
    v.sort_unstable();
    v.dedup();
    v
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

    fn connection(ts: &[i64]) -> ClockTicks {
        let mut c = ClockTicks::default();
        ts.iter().for_each(|&t| c.add(t));
        c
    }

    #[test]
    fn a_connection_stamped_by_a_coarser_clock_than_the_capture_has_its_own_tick() {
        // A 60 Hz timer written in µs: instants 16.666 or 16.667 ms apart (rounded), 3-5
        // packets at each. The gcd of the steps is 1 µs, but 30 of 35 steps are 0: the
        // smallest step, seen 7 times, is the tick — coarser than the capture's 1 µs.
        let instants = [0i64, 16_667, 33_333, 50_000, 66_667, 83_333, 100_000, 116_667];
        let ts: Vec<i64> = instants.iter().enumerate().flat_map(|(k, us)| std::iter::repeat(us * 1000).take(3 + k % 3)).collect();
        let c = connection(&ts);
        assert_eq!(c.resolution_ns(), Some(16_666_000));
        assert_eq!(c.shown_twice(), Some(16_666_000));
        assert_eq!(own_tick_ns(&c, Some(1000), &[]), Some(16_666_000));
        // Not coarser than the capture's own tick, or not coarse: the capture's rules hold.
        assert_eq!(own_tick_ns(&c, Some(16_666_000), &[]), None);
        let fine: Vec<i64> = (0..20).map(|k| k / 3 * 500_000).collect(); // 0.5 ms steps
        assert_eq!(own_tick_ns(&connection(&fine), Some(1000), &[]), None);
        // Packets in pairs 14 s apart (keep-alives and their ACKs in the same ms): a
        // period, not a clock — no capture clock ticks slower than 1 s.
        let keepalives: Vec<i64> = (0..10).map(|k| (k / 2) * 14_016_000_000).collect();
        assert_eq!(connection(&keepalives).shown_twice(), Some(14_016_000_000));
        assert_eq!(own_tick_ns(&connection(&keepalives), Some(1_000_000), &[]), None);
    }

    #[test]
    fn a_connection_at_two_instants_takes_a_tick_another_connection_showed() {
        // 10 packets at two instants 400 ms apart: quantized (8 of 9 steps 0), but its one
        // step shows no tick — it is 24 ticks of a 16.666 ms clock. Alone: no tick of its
        // own. Beside a connection that showed 16.666 ms: that tick (400 = 24 × 16.666,
        // within 1 %); a 15 ms tick does not divide 400 ms (26.7 ticks): none.
        let c = connection(&[0, 0, 0, 0, 400_000_000, 400_000_000, 400_000_000, 400_000_000, 400_000_000, 400_000_000]);
        assert_eq!(c.resolution_ns(), Some(400_000_000));
        assert_eq!(c.shown_twice(), None);
        assert_eq!(own_tick_ns(&c, Some(1000), &[]), None);
        assert_eq!(own_tick_ns(&c, Some(1000), &[16_666_000]), Some(16_666_000));
        assert_eq!(own_tick_ns(&c, Some(1000), &[15_000_000]), None);
        let shown = shown_coarse_ticks([c, connection(&[0, 0, 0, 16_666_000, 16_666_000, 33_333_000, 33_333_000, 33_333_000])].iter(), Some(1000));
        assert_eq!(shown, vec![16_666_000]);
    }

    #[test]
    fn a_clock_that_fills_its_ticks_with_microseconds() {
        // A 0.3125 ms tick; the driver stamps a packet arriving within a tick the tick
        // + 1 µs per packet already stamped in it (the VNC capture of review N: steps of
        // 0–3 µs and ≥ 158 µs, nothing between). 120 packets in 40 ticks, 3 per tick:
        // 80 fill steps of 1 µs (67 %) and 39 steps of 0.3125 ms − 2 µs = 310.5 µs: the
        // gcd is 0.5 µs, the tick 310.5 µs (the smallest step above the fill).
        let t: Vec<i64> = (0..120).map(|i| (i / 3) * 312_500 + (i % 3) * 1_000).collect();
        assert_eq!(ticks(&t), Some(310_500));
        // The same steps in a µs capture that also shows steps of 12 µs (segments at 1
        // Gbit/s): a clock that resolves them, left at its gcd.
        let mut fine = t.clone();
        fine.extend((0..20).map(|k| 40 * 312_500 + k * 12_000));
        assert_eq!(ticks(&fine), Some(500));
        // Fewer than 100 packets: too few to read the absence of middle steps.
        assert_eq!(ticks(&t[..90]), Some(500));
    }

    #[test]
    fn too_few_packets() {
        assert_eq!(ticks(&[0, 10_000_000]), None);
    }
}
