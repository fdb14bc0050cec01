//! The analysis timeline: the time each packet is analysed at, which never goes
//! back (docs/ANALYSIS.md, "Time going backwards"; issue 18, item 4).
//!
//! Capture clocks step back: NTP adjustments, files merged from two interfaces,
//! multi-queue capture, a corrupted timestamp. Analysed as stamped, a packet 50 s
//! early opens a "50 s stall" before the capture even starts, and durations turn
//! negative. Two rules, decided one packet late (the packet after tells which of
//! the two a step belongs to):
//! 1. **A lone outlier** — a packet more than [`OUTLIER_JUMP_NS`] later than the one
//!    before it (or the first packet of the file) with the next packet again more
//!    than that much earlier — is one bad timestamp (a flipped high bit is 68 years
//!    late): it is analysed at the time of the packet before it (the first packet:
//!    at the next one's), so one bad stamp cannot stretch or empty everything after.
//! 2. **Any other step back** is analysed at the latest time seen so far: the packet
//!    arrived no later than the one before it was recorded.
//! So analysis times are non-decreasing, and every duration, gap and stall is ≥ 0.
//! The decoder counts each backward step as the `time-went-backwards` warning;
//! [`Timeline::moved`] counts the packets whose analysis time differs from their stamp.

/// A forward jump this large followed by a return is one bad timestamp, not a
/// pause: no real capture pauses an hour and then resumes before the pause began.
pub const OUTLIER_JUMP_NS: i64 = 3_600 * 1_000_000_000;

/// Analysis times of a packet stream, released one packet late.
#[derive(Debug, Default)]
pub struct Timeline {
    /// Analysis time of the last released packet.
    latest: Option<i64>,
    /// Raw stamp of the held packet, and whether it jumped far ahead of `latest`
    /// (or is the first packet of the file).
    held: Option<(i64, bool)>,
    moved: u64,
}

impl Timeline {
    /// The next packet's raw stamp; returns the analysis time of the packet held
    /// before it (None for the first packet).
    pub fn push(&mut self, ts_ns: i64) -> Option<i64> {
        let released = self.held.map(|(held, jumped)| {
            let outlier = jumped && ts_ns < held.saturating_sub(OUTLIER_JUMP_NS);
            let time = match (outlier, self.latest) {
                (true, Some(latest)) => latest,
                (true, None) => ts_ns, // a bad first stamp: the next packet's time
                (false, latest) => latest.map_or(held, |l| l.max(held)),
            };
            self.release(held, time)
        });
        let jumped = self.latest.map_or(true, |l| ts_ns > l.saturating_add(OUTLIER_JUMP_NS));
        self.held = Some((ts_ns, jumped));
        released
    }

    /// End of input: the analysis time of the packet still held.
    pub fn finish(&mut self) -> Option<i64> {
        let (held, _) = self.held.take()?;
        let time = self.latest.map_or(held, |l| l.max(held));
        Some(self.release(held, time))
    }

    fn release(&mut self, raw: i64, time: i64) -> i64 {
        if time != raw {
            self.moved += 1;
        }
        self.latest = Some(time);
        time
    }

    /// Packets analysed at another time than their stamp.
    pub fn moved(&self) -> u64 {
        self.moved
    }

    /// Analysis time of the last released packet.
    pub fn latest(&self) -> Option<i64> {
        self.latest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;

    fn times(stamps: &[i64]) -> (Vec<i64>, u64) {
        let mut timeline = Timeline::default();
        let mut out: Vec<i64> = stamps.iter().filter_map(|&t| timeline.push(t)).collect();
        out.extend(timeline.finish());
        (out, timeline.moved())
    }

    #[test]
    fn in_order_stamps_are_kept() {
        assert_eq!(times(&[0, S, 2 * S, 2 * S]), (vec![0, S, 2 * S, 2 * S], 0));
    }

    #[test]
    fn a_step_back_is_analysed_at_the_latest_time() {
        // 10 s, then a packet stamped 50 s earlier (the "50 s stall at −49.85 s" of
        // issue 18): analysed at 10 s, so no gap opens and nothing is negative.
        assert_eq!(times(&[0, 10 * S, -40 * S, 11 * S]), (vec![0, 10 * S, 10 * S, 11 * S], 1));
    }

    #[test]
    fn one_flipped_high_bit_moves_one_packet_not_the_rest() {
        // Bit 62 of a ns stamp set: ~146 years late. Only that packet moves (to the
        // time of the one before); the packets after keep their own times.
        let bad = 2 * S | (1 << 62);
        assert_eq!(times(&[0, S, bad, 3 * S, 4 * S]), (vec![0, S, S, 3 * S, 4 * S], 1));
    }

    #[test]
    fn a_bad_first_stamp_takes_the_next_packets_time() {
        let bad = i64::MAX - 5;
        assert_eq!(times(&[bad, S, 2 * S]), (vec![S, S, 2 * S], 1));
    }

    #[test]
    fn a_long_real_pause_is_kept() {
        // Two hours of silence, then the transfer resumes later still: a pause, not an outlier.
        assert_eq!(times(&[0, 7_200 * S, 7_201 * S]), (vec![0, 7_200 * S, 7_201 * S], 0));
    }

    #[test]
    fn a_late_last_packet_is_kept() {
        // Nothing comes after it to say it was an outlier: the view engine's bounds
        // (view/request.rs) keep such a span drawable.
        assert_eq!(times(&[0, S, 365 * 86_400 * S]), (vec![0, S, 365 * 86_400 * S], 0));
    }
}
