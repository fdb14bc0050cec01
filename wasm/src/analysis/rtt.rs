//! Round-trip-time samples, two ways (DESIGN.md "RTT samples"):
//!
//! * ACK-based: a segment occupying sequence space (data, SYN or FIN) is timed
//!   until the first cumulative ACK that covers it. When one ACK covers several
//!   segments, the sample is taken from the newest of them (the one the ACK was
//!   most likely sent for; timing the older ones would add delayed-ACK time).
//!   Karn's algorithm (Karn & Partridge 1987, RFC 6298 §3): no sample from a
//!   segment whose bytes were sent more than once, since the ACK is ambiguous.
//! * Timestamps (RFC 7323 §4, RTTM): the time from the first segment that carried
//!   a TSval to the first segment of the peer that echoes it in TSecr (only on
//!   segments with the ACK flag, where TSecr is valid, §3.2).
//!
//! Both queues are bounded so a capture that never shows the ACKs cannot grow
//! memory without limit; they allocate only when the option/data appears.

use std::collections::VecDeque;

/// Upper bound on remembered unacknowledged segments / TSvals per direction.
const MAX_PENDING: usize = 1 << 16;

#[derive(Clone, Copy, Debug)]
struct Sent {
    start: i64,
    end: i64,
    t_ns: i64,
    retransmitted: bool,
}

/// ACK-based RTT state of one direction (times in ns, sequence numbers relative).
#[derive(Default, Debug)]
pub struct AckRtt {
    pending: VecDeque<Sent>,
    /// Highest end of sequence space sent so far.
    high: Option<i64>,
}

impl AckRtt {
    /// A segment covering [start, end) of sequence space (SYN/FIN count one) was sent.
    pub fn on_send(&mut self, start: i64, end: i64, t_ns: i64) {
        if end <= start {
            return;
        }
        let high = self.high.unwrap_or(start);
        if start < high {
            // Bytes sent again: Karn — mark every pending segment it overlaps.
            for p in self.pending.iter_mut().rev() {
                if p.end <= start {
                    break;
                }
                if p.start < end {
                    p.retransmitted = true;
                }
            }
        }
        if end > high || self.high.is_none() {
            let new_start = start.max(high);
            if self.pending.len() == MAX_PENDING {
                self.pending.pop_front();
            }
            // A segment that is partly a retransmission is ambiguous as well.
            self.pending.push_back(Sent { start: new_start, end, t_ns, retransmitted: start < high });
            self.high = Some(end);
        }
    }

    /// The peer acknowledged everything below `ack`; returns an RTT in ns if the
    /// ACK completes a sample.
    pub fn on_ack(&mut self, ack: i64, t_ns: i64) -> Option<i64> {
        let mut newest = None;
        while let Some(p) = self.pending.front() {
            if p.end > ack {
                break;
            }
            newest = self.pending.pop_front();
        }
        match newest {
            Some(p) if !p.retransmitted && t_ns >= p.t_ns => Some(t_ns - p.t_ns),
            _ => None,
        }
    }
}

/// Timestamp-echo RTT state of one direction: TSvals this side sent, oldest first.
#[derive(Default, Debug)]
pub struct TsRtt {
    sent: VecDeque<(u32, i64)>,
}

impl TsRtt {
    /// This side sent a segment with `tsval`; only the first segment with a given
    /// value starts the clock.
    pub fn on_send(&mut self, tsval: u32, t_ns: i64) {
        if let Some(&(last, _)) = self.sent.back() {
            // RFC 7323 §5.3: TSvals are monotonic (mod 2^32); ignore repeats/older.
            if (tsval.wrapping_sub(last) as i32) <= 0 {
                return;
            }
        }
        if self.sent.len() == MAX_PENDING {
            self.sent.pop_front();
        }
        self.sent.push_back((tsval, t_ns));
    }

    /// The peer echoed `tsecr`; returns the RTT in ns for the first echo of a TSval.
    pub fn on_echo(&mut self, tsecr: u32, t_ns: i64) -> Option<i64> {
        while let Some(&(v, t)) = self.sent.front() {
            let d = tsecr.wrapping_sub(v) as i32;
            if d < 0 {
                return None; // echo of something older than all pending: already used
            }
            self.sent.pop_front();
            if d == 0 {
                return (t_ns >= t).then_some(t_ns - t);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_sample_from_newest_covered_segment() {
        let mut r = AckRtt::default();
        r.on_send(1, 1449, 0); // segment 1 at t=0
        r.on_send(1449, 2897, 2_000_000); // segment 2 at t=2 ms
        // One ACK for both at t=12 ms: sample from segment 2 → 10 ms (not 12 ms).
        assert_eq!(r.on_ack(2897, 12_000_000), Some(10_000_000));
        // A repeated ACK gives nothing.
        assert_eq!(r.on_ack(2897, 13_000_000), None);
    }

    #[test]
    fn partial_ack_gives_no_sample_for_uncovered_segment() {
        let mut r = AckRtt::default();
        r.on_send(1, 1001, 0);
        // ACK 500 covers no whole segment.
        assert_eq!(r.on_ack(500, 5_000_000), None);
        assert_eq!(r.on_ack(1001, 6_000_000), Some(6_000_000));
    }

    #[test]
    fn karn_skips_retransmitted_segments() {
        let mut r = AckRtt::default();
        r.on_send(1, 1001, 0);
        r.on_send(1, 1001, 200_000_000); // retransmitted after an RTO
        // The ACK could be for either copy: no sample (Karn).
        assert_eq!(r.on_ack(1001, 210_000_000), None);
        // New data afterwards is timed again.
        r.on_send(1001, 2001, 220_000_000);
        assert_eq!(r.on_ack(2001, 230_000_000), Some(10_000_000));
    }

    #[test]
    fn timestamps_first_echo_only() {
        let mut r = TsRtt::default();
        r.on_send(100, 0);
        r.on_send(100, 1_000_000); // same TSval again: clock started at t=0
        r.on_send(101, 3_000_000);
        assert_eq!(r.on_echo(100, 8_000_000), Some(8_000_000));
        assert_eq!(r.on_echo(100, 9_000_000), None); // second echo of 100
        assert_eq!(r.on_echo(101, 10_000_000), Some(7_000_000));
    }

    #[test]
    fn timestamps_skip_unechoed_values() {
        let mut r = TsRtt::default();
        r.on_send(5, 0);
        r.on_send(6, 1_000_000);
        r.on_send(7, 2_000_000);
        // Echo of 7 (5 and 6 were never echoed): 2 ms → 12 ms = 10 ms.
        assert_eq!(r.on_echo(7, 12_000_000), Some(10_000_000));
    }
}
