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
    /// The first sequence space the capture saw of this direction (a D-SACK of it may
    /// report a copy sent before the capture began: `on_ack_reporting`).
    first_seen: bool,
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
            crate::lean::push_back(&mut self.pending, Sent { start: new_start, end, t_ns, retransmitted: start < high || ambiguous, first_seen: none_yet });
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
        self.on_ack_behind(ack, t_ns).0
    }

    /// [`Self::on_ack`], and whether the newest segment it acknowledged had another of
    /// new data sent right behind it, which this ACK does not cover: within half the
    /// time from the acknowledged segment to this ACK. A receiver holding its ACK for
    /// the delayed-ACK timer would have had that next segment before the timer fired
    /// and acknowledged both (RFC 1122 §4.2.3.2; a FIFO path keeps their spacing), so
    /// the ACK left before the next segment arrived: the receiver held it at most that
    /// spacing, and at least half the sample is the path (Linux's quick ACKs of each
    /// segment of a burst after an idle, `tcp_in_quickack_mode`). Unknown is false.
    pub fn on_ack_behind(&mut self, ack: i64, t_ns: i64) -> (Option<(i64, bool)>, bool) {
        self.on_ack_reporting(ack, t_ns, None)
    }

    /// [`Self::on_ack_behind`] for an ACK whose first SACK block `dup` lies at or below
    /// its cumulative ACK: a D-SACK (RFC 2883 §4), the receiver reporting bytes that
    /// arrived twice. Such bytes were sent twice, whether or not the capture saw the
    /// second copy, so an ACK covering them is ambiguous and Karn's rule (RFC 6298 §3)
    /// takes no sample from it: a request whose re-send the capture missed (a lossy
    /// capture, suricata-verify `tcp-rst-unacked-stream-12`) was timed at 3.35 s, the
    /// first copy's send to the second copy's ACK, on a path whose every turnaround is
    /// 0.35–0.38 s.
    ///
    /// Except the first sequence space the capture saw of this direction: the other copy
    /// may have been sent before the capture began, and the ACK answer the one it saw. A
    /// keep-alive probe (RFC 9293 §3.8.4: one byte at SND.NXT − 1, acknowledged long
    /// before) is answered at once with a D-SACK of that byte; a capture that starts
    /// with it times the round trip by it (realjimmy `来疯直播 组播.pcap`, 2-packet
    /// connections of 8–22 ms). Where the capture saw earlier sequence space (the SYN, or
    /// data before), it saw these bytes first sent, so the other copy was a later re-send
    /// it missed.
    pub fn on_ack_reporting(&mut self, ack: i64, t_ns: i64, dup: Option<(i64, i64)>) -> (Option<(i64, bool)>, bool) {
        if let Some((l, r)) = dup {
            for p in self.pending.iter_mut().take_while(|p| p.start < r.min(ack)) {
                if p.end > l && !p.first_seen {
                    p.retransmitted = true;
                }
            }
        }
        let mut newest = None;
        while let Some(p) = self.pending.front() {
            if p.end > ack {
                break;
            }
            newest = self.pending.pop_front();
        }
        let behind = match (newest, self.pending.front()) {
            (Some(p), Some(next)) => next.t_ns.saturating_sub(p.t_ns).saturating_mul(2) <= t_ns.saturating_sub(p.t_ns),
            _ => false,
        };
        let sample = match newest {
            Some(p) if !p.retransmitted && t_ns >= p.t_ns => Some((t_ns - p.t_ns, p.end > self.sacked_high)),
            _ => None,
        };
        release_if_drained(&mut self.pending);
        (sample, behind)
    }

    /// Whether part of [a, b), not yet acknowledged, was sent more than once (Karn's
    /// mark, `on_send`): a re-send the capture saw (loss/reported.rs).
    pub fn resent_within(&self, a: i64, b: i64) -> bool {
        // Pending segments are in sequence order and never overlap: from the first
        // that ends past `a`.
        let from = self.pending.partition_point(|p| p.end <= a);
        self.pending.range(from..).take_while(|p| p.start < b).any(|p| p.retransmitted)
    }

    /// The peer SACKed sequence space up to `right` (a block above its cumulative ACK).
    pub fn on_sack(&mut self, right: i64) {
        self.sacked_high = self.sacked_high.max(right);
    }
}

/// Frees a queue's buffer once everything in it was answered: a drained queue kept
/// its capacity (4 entries at least) for the rest of the capture, in every connection
/// of a capture with many short ones (issue 43; bench/README.md "Session 37"). A
/// queue that fills again allocates again, at most once per round trip.
fn release_if_drained<T>(q: &mut VecDeque<T>) {
    if q.is_empty() && q.capacity() > 0 {
        *q = VecDeque::new();
    }
}

/// Timestamp-echo RTT state of one direction: TSvals this side sent, oldest first,
/// with whether the peer still had data outstanding after that segment.
#[derive(Default, Debug)]
pub struct TsRtt {
    sent: VecDeque<Pending>,
    /// The newest TSval this side sent and when, kept apart from `sent`, which an echo
    /// empties: a segment carrying that TSval again after its echo (the peer answered
    /// within one tick of our TSval clock) must not start a second clock for it.
    last_sent: Option<(u32, i64)>,
    /// The peer's new data as it arrived (see `on_echo`); made at its first segment.
    peer_data: Option<Box<ArrivalGaps>>,
}

/// A TSval this side sent: its value, when first, whether the peer was busy after it, and
/// whether the peer would echo it once received (`on_send`'s `echoable`).
#[derive(Clone, Copy, Debug)]
struct Pending {
    tsval: u32,
    t_ns: i64,
    peer: PeerAfter,
    echoable: bool,
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
        crate::lean::push_back(&mut self.gaps, (t_ns, gap));
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

/// The longest a window-limited peer takes to answer our ACK of all its data when no
/// round trip is known yet: it sends the moment that ACK arrives, one path round trip
/// later, and 1 s is the round trip RFC 6298 assumes before measuring one (§2.1's
/// initial RTO, §2.4's minimum), as far_part.rs bounds a silence after the ACK of
/// everything. Once one is known, [`answer_bound_ns`].
const ANSWER_BOUND_NS: i64 = 1_000_000_000;

/// Round trips within which the peer's answer counts as prompt, and the least bound
/// (ns): the stall threshold's, max(10 ms, 4 × the round trip) (stalls/gaps.rs
/// `default_threshold_s`): a silence longer than that is a stall, the peer's, not a
/// round trip.
const PROMPT_ROUND_TRIPS: i64 = 4;
const PROMPT_FLOOR_NS: i64 = 10_000_000;

/// How long after our copies of a TSval (the later of which acknowledged everything
/// the peer had sent) the peer's data still answers the earlier copy, ns:
/// [`ANSWER_BOUND_NS`] while no round trip is known (`round_trip_ns` None: no
/// handshake, no turn through each end yet, track/conn.rs `round_trip`), else the
/// stall threshold of that round trip, never above 1 s. A window-limited peer answers
/// one path round trip after our ACK, a queue at most lifting it a few-fold; a peer
/// that had everything acknowledged and whose data came later sent it when its
/// application had some (RFC 7323 §4.1's RTTM rule times only an echo that advances
/// SND.UNA; Linux takes TSecr samples only in `tcp_clean_rtx_queue`, an ACK of new
/// data). An RDP server's screen updates every 30–100 ms after the client's ACKs of
/// each, on a 0.35 ms LAN, read "The RTT rose from 127 µs to 115 ms" (review AD class
/// C-TS-ECHO-IDLE-AS-RTT, jovair1994 `rdp.pcap`).
pub fn answer_bound_ns(round_trip_ns: Option<i64>) -> i64 {
    match round_trip_ns.filter(|&r| r > 0) {
        Some(r) => r.saturating_mul(PROMPT_ROUND_TRIPS).max(PROMPT_FLOOR_NS).min(ANSWER_BOUND_NS),
        None => ANSWER_BOUND_NS,
    }
}

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
    /// `bound_ns` ([`answer_bound_ns`]) is its application's, after an idle: a 7.2 s
    /// pause of a chat server after such a pair of ACKs read as a 7.2 s round trip, and
    /// a receiver-side capture's far part (round_trips.rs) repeated it.
    fn answered_within(self, sample_ns: i64, bound_ns: i64) -> bool {
        match self {
            PeerAfter::Idle => false,
            PeerAfter::Busy => true,
            PeerAfter::BusyThenIdle => sample_ns <= bound_ns,
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
    /// The connection's round trip known so far, ns (track/conn.rs `round_trip`): how
    /// promptly an idle peer's data must come to answer our segment ([`answer_bound_ns`]).
    pub round_trip_ns: Option<i64>,
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
    /// `echoable`: the segment starts at or below the last ACK the peer was seen to send,
    /// so its TSval becomes the peer's TS.Recent once received (RFC 7323 §4.3; see `on_echo`).
    pub fn on_send(&mut self, tsval: u32, t_ns: i64, peer_busy: bool, echoable: bool) {
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
                    self.again(tsval, peer_busy, echoable);
                }
                return;
            }
        }
        self.last_sent = Some((tsval, t_ns));
        if self.sent.len() == MAX_PENDING {
            self.sent.pop_front();
        }
        crate::lean::push_back(&mut self.sent, Pending { tsval, t_ns, peer: if peer_busy { PeerAfter::Busy } else { PeerAfter::Idle }, echoable });
    }

    /// A later segment of this side carried `tsval` again (within one tick of its
    /// clock). The clock still runs from the first (RFC 7323 §4.1: the echo is timed
    /// from the earliest segment with the value), but the peer echoes TS.Recent, the
    /// TSval of the last segment it accepted (§4.3): after a second copy that
    /// acknowledged everything it had sent, its data echoes the value however long its
    /// application waited. So the copies' verdicts combine ([`PeerAfter`]).
    /// A later copy that is echoable makes the value echoable from its time on.
    fn again(&mut self, tsval: u32, peer_busy: bool, echoable: bool) {
        if let Some(back) = self.sent.back_mut().filter(|b| b.tsval == tsval) {
            back.peer = back.peer.then(peer_busy);
            back.echoable |= echoable;
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
        while let Some(&Pending { tsval: v, t_ns: t, peer: peer_busy, .. }) = self.sent.front() {
            let d = tsecr.wrapping_sub(v) as i32;
            if d < 0 {
                return None; // echo of something older than all pending: already used
            }
            self.sent.pop_front();
            if d == 0 {
                let arriving = echo.sends_new_data
                    && self.peer_data.as_mut().is_some_and(|p| p.longest_since(t).saturating_mul(2) < t_ns.saturating_sub(t));
                let busy = peer_busy.answered_within(t_ns.saturating_sub(t), answer_bound_ns(echo.round_trip_ns)) || arriving || self.sent_before_answer(t, t_ns);
                let trusted = echo.acks_new_data || (echo.sends_new_data && busy);
                release_if_drained(&mut self.sent);
                return (t_ns >= t).then_some(TsSample { ns: t_ns - t, trusted });
            }
        }
        None
    }

    /// Whether, when the peer's answer to our TSval sent at `t_ns` (just taken off the
    /// queue) arrived at `echo_ns`, we had already sent a newer TSval it would have echoed
    /// had it received it (echoable, sent before the answer arrived), within a quarter of
    /// the sample after the first: the answer echoes the older one, so the peer sent it
    /// before that newer segment reached it (RFC 7323 §4.3: TS.Recent), and it can have
    /// waited after our segment at most the time between the two, less than a quarter of
    /// the sample; at least three quarters of it are the path's (far_bounds.rs bounds it
    /// from the other side). Half would let a peer that sat on our segment for nearly half
    /// the sample pass (nDPI `netflix.pcap` #32: a 280 ms echo whose next ACK left 134 ms
    /// after the echoed one). A receiver-side capture's ACK → next data of a sender whose ACKs a queue held
    /// (PcapPlusPlus `example.pcap` #3: 99–120 ms against a 20 ms handshake, the data
    /// paused for most of each, so the `arriving` test left them out).
    fn sent_before_answer(&self, t_ns: i64, echo_ns: i64) -> bool {
        let sample = echo_ns.saturating_sub(t_ns);
        self.sent
            .iter()
            .take_while(|p| p.t_ns < echo_ns)
            .find(|p| p.echoable)
            .is_some_and(|p| p.t_ns.saturating_sub(t_ns).saturating_mul(4) < sample)
    }

    /// The peer sent a segment of new data at `t_ns` (before `on_echo` for that segment).
    /// Before its first, the peer was silent since our oldest pending TSval at least (a
    /// server that speaks first 50 ms after the handshake did not answer our ACK).
    pub fn on_peer_data(&mut self, t_ns: i64) {
        let since = self.sent.front().map_or(t_ns, |p| p.t_ns.min(t_ns));
        self.peer_data.get_or_insert_with(|| Box::new(ArrivalGaps::new(since))).on_arrival(t_ns);
    }
}

#[cfg(test)]
#[path = "rtt_tests.rs"]
mod tests;
