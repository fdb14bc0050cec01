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
#[derive(Debug)]
pub struct AckRtt {
    pending: VecDeque<Sent>,
    /// Highest end of sequence space sent so far (i64::MIN: nothing yet; no Option,
    /// so that the SACK edge below adds nothing to 10^6 connections' state).
    high: i64,
    /// Highest right edge of the SACK blocks the peer sent (i64::MIN: none): the
    /// bytes below it that a later cumulative ACK covers were received before it.
    sacked_high: i64,
}

impl Default for AckRtt {
    fn default() -> Self {
        AckRtt { pending: VecDeque::new(), high: i64::MIN, sacked_high: i64::MIN }
    }
}

impl AckRtt {
    /// A segment covering [start, end) of sequence space (SYN/FIN count one) was sent.
    /// `ambiguous`: its ACK will not time a round trip even if sent once — a
    /// zero-window probe is answered only when the window reopens (RFC 9293
    /// §3.8.6.1), so its "RTT" is the persist interval.
    pub fn on_send(&mut self, start: i64, end: i64, t_ns: i64, ambiguous: bool) {
        if end <= start {
            return;
        }
        let none_yet = self.high == i64::MIN;
        let high = if none_yet { start } else { self.high };
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
        if end > high || none_yet {
            let new_start = start.max(high);
            if self.pending.len() == MAX_PENDING {
                self.pending.pop_front();
            }
            // A segment that is partly a retransmission is ambiguous as well.
            self.pending.push_back(Sent { start: new_start, end, t_ns, retransmitted: start < high || ambiguous });
            self.high = end;
        }
    }

    /// The peer acknowledged everything below `ack`; returns an RTT in ns if the
    /// ACK completes a sample, and whether that sample times a round trip: not when
    /// the peer had already SACKed the segment timed (RFC 2018 §4). Then the receiver held it
    /// out of order behind a hole, and the cumulative ACK moved only once the hole was
    /// filled: the "RTT" is the repair (outage-in-recovery.pcap: 5,027 ms on a 10 ms
    /// path, tshark's `ack_rtt` says so too). Karn's rule does not catch it: that
    /// segment was sent once. (Linux times such a segment by the SACK instead.)
    pub fn on_ack(&mut self, ack: i64, t_ns: i64) -> Option<(i64, bool)> {
        let mut newest = None;
        while let Some(p) = self.pending.front() {
            if p.end > ack {
                break;
            }
            newest = self.pending.pop_front();
        }
        match newest {
            Some(p) if !p.retransmitted && t_ns >= p.t_ns => Some((t_ns - p.t_ns, p.end > self.sacked_high)),
            _ => None,
        }
    }

    /// The peer SACKed sequence space up to `right` (a block above its cumulative ACK).
    pub fn on_sack(&mut self, right: i64) {
        self.sacked_high = self.sacked_high.max(right);
    }
}

/// Timestamp-echo RTT state of one direction: TSvals this side sent, oldest first,
/// with whether the peer still had data outstanding after that segment.
#[derive(Default, Debug)]
pub struct TsRtt {
    sent: VecDeque<(u32, i64, PeerAfter)>,
    /// The newest TSval this side sent and when, kept apart from `sent`, which an echo
    /// empties: a segment carrying that TSval again after its echo (the peer answered
    /// within one tick of our TSval clock) must not start a second clock for it.
    last_sent: Option<(u32, i64)>,
    /// The peer's new data as it arrived (see `on_echo`); made at its first segment.
    peer_data: Option<Box<ArrivalGaps>>,
}

/// Gaps between the peer's segments of new data, for "the longest gap since time t"
/// with t rising (the pending TSvals are echoed oldest first): a monotonic queue
/// (the sliding-window maximum), gaps decreasing from front to back.
#[derive(Debug)]
struct ArrivalGaps {
    last_ns: i64,
    /// (arrival that ended the gap, gap), ns.
    gaps: VecDeque<(i64, i64)>,
    /// End of the latest gap dropped for room: a query from before it cannot know the
    /// longest gap and says "unknown" (i64::MAX), so no echo is trusted for it.
    evicted_end: i64,
}

/// Gaps remembered at most (16 B each, so ≤ 1 KiB per side): only a run of more than
/// this many strictly shrinking gaps fills it.
const MAX_GAPS: usize = 64;

impl ArrivalGaps {
    /// `since_ns`: when the silence before this first arrival began, as far as any
    /// pending TSval is concerned (the oldest one's time).
    fn new(since_ns: i64) -> ArrivalGaps {
        ArrivalGaps { last_ns: since_ns, gaps: VecDeque::new(), evicted_end: i64::MIN }
    }

    fn on_arrival(&mut self, t_ns: i64) {
        let gap = t_ns.saturating_sub(self.last_ns).max(0);
        self.last_ns = self.last_ns.max(t_ns);
        while self.gaps.back().is_some_and(|&(_, g)| g <= gap) {
            self.gaps.pop_back();
        }
        if self.gaps.len() == MAX_GAPS {
            if let Some((end, _)) = self.gaps.pop_front() {
                self.evicted_end = end;
            }
        }
        self.gaps.push_back((t_ns, gap));
    }

    /// The longest time without the peer's new data between `since_ns` and the latest
    /// arrival: the first gap ending after `since_ns` counts from there if it began
    /// before, every later one whole (the queue's next entry is the longest of those).
    /// Gaps ending by `since_ns` are dropped for good, since later queries start later.
    fn longest_since(&mut self, since_ns: i64) -> i64 {
        if since_ns < self.evicted_end {
            return i64::MAX;
        }
        while self.gaps.front().is_some_and(|&(end, _)| end <= since_ns) {
            self.gaps.pop_front();
        }
        let cut = self.gaps.front().map_or(0, |&(end, g)| g.min(end - since_ns));
        let whole = self.gaps.get(1).map_or(0, |&(_, g)| g);
        cut.max(whole)
    }
}

/// Whether the peer had data outstanding after our segments carrying one TSval (its
/// next data is then clocked by them, see `TsRtt::on_echo`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum PeerAfter {
    /// After the latest copy the peer had nothing outstanding (nor after any before).
    Idle,
    /// After the latest copy the peer still had data outstanding.
    Busy,
    /// After an earlier copy it had, but a later one acknowledged everything.
    BusyThenIdle,
}

/// The longest a window-limited peer takes to answer our ACK of all its data: it
/// sends the moment that ACK arrives, one path round trip later, and 1 s is the
/// round trip RFC 6298 assumes before measuring one (§2.1's initial RTO, §2.4's
/// minimum), as far_part.rs bounds a silence after the ACK of everything.
const ANSWER_BOUND_NS: i64 = 1_000_000_000;

impl PeerAfter {
    /// The verdict after one more copy of the same TSval.
    fn then(self, peer_busy: bool) -> PeerAfter {
        match (self, peer_busy) {
            (_, true) => PeerAfter::Busy,
            (PeerAfter::Idle, false) => PeerAfter::Idle,
            (PeerAfter::Busy | PeerAfter::BusyThenIdle, false) => PeerAfter::BusyThenIdle,
        }
    }

    /// Was the peer's data, `sample_ns` after the first copy, clocked by our copies?
    /// After an earlier copy the peer had a flight out; a window-limited sender's next
    /// flight answers that copy (TS.Recent is the same value: the IW10 server whose
    /// 11th segment waits for the first ACK of its first 10, RFC 6928), but once a
    /// later copy acknowledged everything it had sent, data later than
    /// [`ANSWER_BOUND_NS`] is its application's, after an idle: a 7.2 s pause of a
    /// chat server after such a pair of ACKs read as a 7.2 s round trip, and a
    /// receiver-side capture's far part (round_trips.rs) repeated it.
    fn answered_within(self, sample_ns: i64) -> bool {
        match self {
            PeerAfter::Idle => false,
            PeerAfter::Busy => true,
            PeerAfter::BusyThenIdle => sample_ns <= ANSWER_BOUND_NS,
        }
    }
}

/// How the peer's segment that echoed a TSval relates to it (for [`TsRtt::on_echo`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Echo {
    /// The echoing segment acknowledged new data of ours (it answers our segment).
    pub acks_new_data: bool,
    /// It carries new data and is no probe or keep-alive.
    pub sends_new_data: bool,
}

/// A timestamp RTT sample and whether it measures a round trip (see `on_echo`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TsSample {
    pub ns: i64,
    pub trusted: bool,
}

impl TsRtt {
    /// This side sent a segment with `tsval`; only the first segment with a given
    /// value starts the clock.
    /// `peer_busy`: after this segment the peer still had unacknowledged data, so
    /// its next data segment is clocked by our ACK rather than by its application.
    pub fn on_send(&mut self, tsval: u32, t_ns: i64, peer_busy: bool) {
        // Once every TSval was echoed and a second has passed (longer than any tick,
        // RFC 7323 §5.4), any value starts a clock again: a µs clock wraps its sign in
        // 36 minutes of idle, and one corrupt TSval far ahead must not block the rest.
        let stale = self.sent.is_empty() && self.last_sent.is_some_and(|(_, t)| t_ns.saturating_sub(t) > 1_000_000_000);
        if let Some((last, _)) = self.last_sent.filter(|_| !stale) {
            // RFC 7323 §5.3: TSvals are monotonic (mod 2^32); ignore repeats/older.
            // Compared with the newest ever sent, not the newest still pending: on a
            // path shorter than our tick the echo of TSval X comes back while we still
            // send X, and timing X again from a later segment measured µs
            // (`rx-gro-loss-variant`, 40 µs path, 1 ms TSval tick: a 3 µs "far part"
            // made the path RTT 1 µs and the vantage "sender").
            if (tsval.wrapping_sub(last) as i32) <= 0 {
                if tsval == last {
                    self.again(tsval, peer_busy);
                }
                return;
            }
        }
        self.last_sent = Some((tsval, t_ns));
        if self.sent.len() == MAX_PENDING {
            self.sent.pop_front();
        }
        self.sent.push_back((tsval, t_ns, if peer_busy { PeerAfter::Busy } else { PeerAfter::Idle }));
    }

    /// A later segment of this side carried `tsval` again (within one tick of its
    /// clock). The clock still runs from the first (RFC 7323 §4.1: the echo is timed
    /// from the earliest segment with the value), but the peer echoes TS.Recent, the
    /// TSval of the last segment it accepted (§4.3): after a second copy that
    /// acknowledged everything it had sent, its data echoes the value however long its
    /// application waited. So the copies' verdicts combine ([`PeerAfter`]).
    fn again(&mut self, tsval: u32, peer_busy: bool) {
        if let Some(back) = self.sent.back_mut().filter(|b| b.0 == tsval) {
            back.2 = back.2.then(peer_busy);
        }
    }

    /// The peer echoed `tsecr`; returns the sample for the first echo of a TSval.
    ///
    /// A TSecr can be old on purpose (RFC 7323 §4.3): the peer echoes TS.Recent, the
    /// TSval of the last segment it accepted, so the first segment it sends after an
    /// idle period (a new request 10 s later) echoes a TSval from before the pause.
    /// Such a sample measures the pause, not the path. The sample is `trusted` only
    /// when the echo answers our segment: it acknowledges new data of ours, or it is
    /// new data that our ACK clocked out (the peer was busy sending when we sent the
    /// TSval). Untrusted samples are kept for the chart and left out of statistics.
    ///
    /// The peer was busy when the capture saw it still had data outstanding after our
    /// segment (after the latest copy of the TSval, or after an earlier copy when its
    /// data came within [`ANSWER_BOUND_NS`]: `PeerAfter`), or when its new data kept arriving through the sample, never pausing
    /// for half of it: at a receiver-side capture the sender's data in flight is not
    /// yet seen when the ACK passes (the ACK covers all the capture saw), yet it keeps
    /// arriving, while a sender whose application paused sent nothing for most of the
    /// sample (`rx-cubic-loss.pcap` at 0.611 s: 80 ms of an 85 ms echo, which came on
    /// the second segment after the pause). Without the second test nine in ten
    /// far-part samples of a receiver-side bulk download were left out
    /// (round_trips.rs needs them). Call `on_peer_data` for an echoing segment first.
    pub fn on_echo(&mut self, tsecr: u32, t_ns: i64, echo: Echo) -> Option<TsSample> {
        while let Some(&(v, t, peer_busy)) = self.sent.front() {
            let d = tsecr.wrapping_sub(v) as i32;
            if d < 0 {
                return None; // echo of something older than all pending: already used
            }
            self.sent.pop_front();
            if d == 0 {
                let arriving = echo.sends_new_data
                    && self.peer_data.as_mut().is_some_and(|p| p.longest_since(t).saturating_mul(2) < t_ns.saturating_sub(t));
                let busy = peer_busy.answered_within(t_ns.saturating_sub(t)) || arriving;
                let trusted = echo.acks_new_data || (echo.sends_new_data && busy);
                return (t_ns >= t).then_some(TsSample { ns: t_ns - t, trusted });
            }
        }
        None
    }

    /// The peer sent a segment of new data at `t_ns` (before `on_echo` for that segment).
    /// Before its first, the peer was silent since our oldest pending TSval at least (a
    /// server that speaks first 50 ms after the handshake did not answer our ACK).
    pub fn on_peer_data(&mut self, t_ns: i64) {
        let since = self.sent.front().map_or(t_ns, |&(_, t, _)| t.min(t_ns));
        self.peer_data.get_or_insert_with(|| Box::new(ArrivalGaps::new(since))).on_arrival(t_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACKS: Echo = Echo { acks_new_data: true, sends_new_data: false };
    /// An echo by new data of the peer that acknowledges nothing of ours.
    const DATA: Echo = Echo { acks_new_data: false, sends_new_data: true };
    const MS: i64 = 1_000_000;

    #[test]
    fn ack_sample_from_newest_covered_segment() {
        let mut r = AckRtt::default();
        r.on_send(1, 1449, 0, false); // segment 1 at t=0
        r.on_send(1449, 2897, 2_000_000, false); // segment 2 at t=2 ms
        // One ACK for both at t=12 ms: sample from segment 2 → 10 ms (not 12 ms).
        assert_eq!(r.on_ack(2897, 12_000_000), Some((10_000_000, true)));
        // A repeated ACK gives nothing.
        assert_eq!(r.on_ack(2897, 13_000_000), None);
    }

    #[test]
    fn partial_ack_gives_no_sample_for_uncovered_segment() {
        let mut r = AckRtt::default();
        r.on_send(1, 1001, 0, false);
        // ACK 500 covers no whole segment.
        assert_eq!(r.on_ack(500, 5_000_000), None);
        assert_eq!(r.on_ack(1001, 6_000_000), Some((6_000_000, true)));
    }

    #[test]
    fn karn_skips_retransmitted_segments() {
        let mut r = AckRtt::default();
        r.on_send(1, 1001, 0, false);
        r.on_send(1, 1001, 200_000_000, false); // retransmitted after an RTO
        // The ACK could be for either copy: no sample (Karn).
        assert_eq!(r.on_ack(1001, 210_000_000), None);
        // New data afterwards is timed again.
        r.on_send(1001, 2001, 220_000_000, false);
        assert_eq!(r.on_ack(2001, 230_000_000), Some((10_000_000, true)));
    }

    #[test]
    fn timestamps_first_echo_only() {
        let mut r = TsRtt::default();
        r.on_send(100, 0, false);
        r.on_send(100, 1_000_000, false); // same TSval again: clock started at t=0
        r.on_send(101, 3_000_000, false);
        assert_eq!(r.on_echo(100, 8_000_000, ACKS), Some(TsSample { ns: 8_000_000, trusted: true }));
        assert_eq!(r.on_echo(100, 9_000_000, ACKS), None); // second echo of 100
        assert_eq!(r.on_echo(101, 10_000_000, ACKS), Some(TsSample { ns: 7_000_000, trusted: true }));
    }

    #[test]
    fn a_tsval_sent_again_after_its_echo_times_nothing() {
        // A 40 µs path and a 1 ms TSval clock: our TSval 303 first leaves at 0, the
        // peer echoes it 40 µs later, and we keep sending 303 until the next tick.
        // The peer's next echo of 303, 3 µs after our latest 303, answers the first
        // one: no second sample (it made a "3 µs" far part, rx-gro-loss-variant).
        let mut r = TsRtt::default();
        r.on_send(303, 0, true);
        assert_eq!(r.on_echo(303, 40_000, ACKS), Some(TsSample { ns: 40_000, trusted: true }));
        r.on_send(303, 600_000, true);
        assert_eq!(r.on_echo(303, 603_000, ACKS), None);
        // An older TSval after the queue emptied is ignored too (RFC 7323 §5.3).
        r.on_send(302, 700_000, true);
        assert_eq!(r.on_echo(302, 703_000, ACKS), None);
        r.on_send(304, 1_000_000, true);
        assert_eq!(r.on_echo(304, 1_040_000, ACKS), Some(TsSample { ns: 40_000, trusted: true }));
    }

    #[test]
    fn timestamps_skip_unechoed_values() {
        let mut r = TsRtt::default();
        r.on_send(5, 0, false);
        r.on_send(6, 1_000_000, false);
        r.on_send(7, 2_000_000, false);
        // Echo of 7 (5 and 6 were never echoed): 2 ms → 12 ms = 10 ms.
        assert_eq!(r.on_echo(7, 12_000_000, ACKS), Some(TsSample { ns: 10_000_000, trusted: true }));
    }

    #[test]
    fn old_echo_after_a_pause_is_not_trusted() {
        // Our pure ACK (TSval 9) acknowledged everything the peer had sent: the peer
        // was idle. Its next request 10 s later echoes 9 (TS.Recent, RFC 7323 §4.3):
        // a 10 s "sample" that measures the pause.
        let mut r = TsRtt::default();
        r.on_send(9, 0, false);
        let request = Echo { acks_new_data: false, sends_new_data: true };
        assert_eq!(r.on_echo(9, 10_000_000_000, request), Some(TsSample { ns: 10_000_000_000, trusted: false }));
        // A receiver's ACK (TSval 10) sent while the sender still had data in
        // flight: the sender's next data segment echoes it one path RTT later.
        r.on_send(10, 11_000_000_000, true);
        assert_eq!(r.on_echo(10, 11_040_000_000, request), Some(TsSample { ns: 40_000_000, trusted: true }));
    }

    #[test]
    fn a_tsval_sent_again_by_an_ack_of_everything_makes_the_peer_idle() {
        // Our ACK with TSval 40 leaves the peer a segment in flight (busy); a second
        // ACK within the same tick, TSval 40 again, covers everything. The peer's
        // application writes 7.2 s later and its data echoes 40 (TS.Recent, RFC 7323
        // §4.3): the clock runs from the first copy, 7.2 s, but nothing clocked that
        // data out: not a round trip.
        let mut r = TsRtt::default();
        r.on_peer_data(0);
        r.on_send(40, MS, true);
        r.on_send(40, MS + 500_000, false);
        r.on_peer_data(7_201 * MS);
        assert_eq!(r.on_echo(40, 7_201 * MS, DATA), Some(TsSample { ns: 7_200 * MS, trusted: false }));
        // A window-limited peer instead: its next flight, 40 ms after the first copy,
        // answers it (within ANSWER_BOUND_NS of the copies).
        r.on_send(50, 7_250 * MS, true);
        r.on_send(50, 7_250 * MS + 300_000, false);
        r.on_peer_data(7_290 * MS);
        assert_eq!(r.on_echo(50, 7_290 * MS, DATA), Some(TsSample { ns: 40 * MS, trusted: true }));
        // The other way round (the second copy left data in flight): the peer's next
        // data 40 ms later answers it.
        r.on_send(51, 7_300 * MS, false);
        r.on_send(51, 7_300 * MS + 200_000, true);
        r.on_peer_data(7_340 * MS);
        assert_eq!(r.on_echo(51, 7_340 * MS, DATA), Some(TsSample { ns: 40 * MS, trusted: true }));
    }

    #[test]
    fn at_a_receiver_the_senders_data_still_arriving_makes_its_echo_a_round_trip() {
        // Captured at the client of a download with a 100 ms queue: the client's ACK
        // (TSval 20) covers all the capture saw (the capture cannot tell the server has
        // data in flight: peer_busy false), yet the server's data keeps arriving every
        // 0.6 ms, and the segment echoing 20 comes 100 ms later: a round trip.
        let mut r = TsRtt::default();
        r.on_peer_data(0);
        r.on_send(20, MS, false);
        let mut t = MS;
        while t < 101 * MS {
            t += 600_000;
            r.on_peer_data(t);
        }
        assert_eq!(r.on_echo(20, t, DATA), Some(TsSample { ns: t - MS, trusted: true }));
        // The server's application pauses 80 ms after the client's ACK (TSval 21) and
        // writes again: the echo comes on the second segment after the pause, 0.1 ms
        // after the first, but the 80 ms without data (more than half of the 85 ms
        // sample) say it timed the pause (rx-cubic-loss.pcap at 0.611 s).
        let ack = t + MS;
        r.on_send(21, ack, false);
        r.on_peer_data(ack + 4 * MS);
        r.on_peer_data(ack + 84_900_000);
        r.on_peer_data(ack + 85 * MS);
        assert_eq!(r.on_echo(21, ack + 85 * MS, DATA), Some(TsSample { ns: 85 * MS, trusted: false }));
    }

    #[test]
    fn the_longest_pause_in_the_peers_data_decides_not_the_first() {
        // Peer data at 0, 50 and 90 ms; our TSval at 45 ms, echoed by the 90 ms segment:
        // 5 ms of the first gap fall inside the sample, but the second, 40 ms of 45,
        // whole: the peer paused, not a round trip (review of session 13).
        let mut r = TsRtt::default();
        r.on_peer_data(0);
        r.on_peer_data(50 * MS);
        r.on_send(7, 45 * MS, false);
        r.on_peer_data(90 * MS);
        assert_eq!(r.on_echo(7, 90 * MS, DATA), Some(TsSample { ns: 45 * MS, trusted: false }));
        // A server that speaks first, 50 ms after the client's handshake ACK (TSval 1):
        // its banner echoes that ACK, but nothing of it came before: not a round trip.
        let mut r = TsRtt::default();
        r.on_send(1, 0, false);
        r.on_peer_data(50 * MS);
        assert_eq!(r.on_echo(1, 50 * MS, DATA), Some(TsSample { ns: 50 * MS, trusted: false }));
    }

    #[test]
    fn a_gap_dropped_for_room_leaves_older_echoes_untrusted() {
        // A 1 s pause, then MAX_GAPS strictly shrinking gaps: the pause's entry
        // is dropped, and an echo of a TSval from before its end cannot be judged by the
        // arrivals (untrusted), while one from after it can.
        let mut r = TsRtt::default();
        r.on_peer_data(0);
        r.on_send(1, 10, false);
        let mut t = 1_000_000_000i64;
        r.on_peer_data(t);
        r.on_send(2, t + 1, false);
        for k in 0..MAX_GAPS as i64 {
            t += 1_000_000 - k * 1000;
            r.on_peer_data(t);
        }
        assert_eq!(r.on_echo(1, t, DATA).map(|s| s.trusted), Some(false));
        assert_eq!(r.on_echo(2, t, DATA).map(|s| s.trusted), Some(true));
    }

    #[test]
    fn an_ack_of_a_segment_sacked_before_times_the_repair_not_a_round_trip() {
        // Segments [0,1000) at 0 ms and [1000,2000) at 1 ms; the first is lost: the peer
        // SACKs [1000,2000) at 11 ms, the retransmission goes at 20 ms, and the ACK of
        // 2000 at 31 ms covers the second segment, received 20 ms before.
        let mut r = AckRtt::default();
        r.on_send(0, 1000, 0, false);
        r.on_send(1000, 2000, 1_000_000, false);
        r.on_sack(2000);
        r.on_send(0, 1000, 20_000_000, false);
        assert_eq!(r.on_ack(2000, 31_000_000), Some((30_000_000, false)));
        // The next segment, never SACKed: a round trip.
        r.on_send(2000, 3000, 32_000_000, false);
        assert_eq!(r.on_ack(3000, 42_000_000), Some((10_000_000, true)));
    }
}
