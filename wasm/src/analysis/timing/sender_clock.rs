//! Gaps the path made, told by the sender's own clock (docs/ANALYSIS.md "Stall
//! causes", rule 3a).
//!
//! A sender that offers TCP timestamps stamps each segment with its clock when it
//! sends it (TSval, RFC 7323 §3: "the current value of the timestamp clock"; Linux
//! 1 ms, as most stacks). Past the sender — at the receiver, or a tap downstream —
//! a gap between two data segments of the capture is the sender's gap plus whatever
//! the path added to the second segment's trip. When the TSvals either side of a gap
//! moved far less than the gap, the sender sent the later segment soon after the
//! earlier one and the path held it: a queue, a radio's retries or power save, a
//! stalled forwarder. Read as "everything acknowledged, nothing sent", such a gap
//! would blame the sender's application. `rx-cubic-loss.pcap` at 0.611 s: 80 ms
//! between frames 942 and 944 at the client, 6 ms between their TSvals, the
//! sender's datagram numbers consecutive (nothing unseen): the emulator had stalled.
//!
//! The ACKs can be held on the way back as well. Past the sender, a gap in which the
//! capture saw the peer acknowledge everything reads "nothing to send"; but the sender
//! echoes in each segment's TSecr the TSval of the latest peer segment it had received
//! (RFC 7323 §4.3: TS.Recent; a pure ACK at RCV.NXT updates it, Linux
//! `tcp_replace_ts_recent`). When the segment that ends the gap echoes a TSval older
//! than that of the peer's ACK of everything, the sender had not received the ACK: it
//! was waiting on ACKs the path held (a receiver-side capture with delay spikes: 120 ms
//! after a spurious timeout, the client's ACKs 400 ms late to the server, once read
//! "application idle").
//!
//! That echo is evidence only when it is an echo of the peer's clock. A stack (or a
//! middlebox rewriting options) may fill TSecr with values that are none of the peer's
//! TSvals (echoes of 11…85 against TSvals of 29 million on an MPTCP subflow); any such
//! value compares "older" with the peer's TSval by accident. RFC 7323 §4.3 makes every
//! echo the TSval of a segment the peer sent (TS.Recent), so an echo counts as one of
//! the peer's clock only when it lies within the TSvals the peer has sent since this
//! sender's first data (wrap-aware), and the ACK-held test is kept at the end of the
//! capture only when at least half of this sender's echoes on its data are of the
//! peer's clock (`ECHO_SHARE_MIN`); else its marks are dropped.
//!
//! A TSval counts ticks of the sender's TS clock, 1 ms to 1 s each (RFC 7323 §5.4), but
//! a stack may move it by several ticks at a time (a device whose clock is updated every
//! 50 ms steps its TSval by 50): then an unchanged TSval across a 20 ms gap says
//! nothing. The clock's granularity is the greatest common step of its TSval changes
//! between consecutive data segments, in ticks; a gap is the path's only when the
//! advance plus two granules of rounding is below half of it.

use crate::analysis::rows::columns::flag_bits::{ACK_HELD_ON_PATH, HELD_ON_PATH};
use crate::analysis::timing::far_bounds::FarBounds;
use crate::analysis::timing::ts_clock::{OneWayDelay, UpstreamQueue};
use crate::analysis::timing::peer_silences::PeerSilences;

/// Shortest gap recorded: the stall threshold's floor (stalls/gaps.rs `default_threshold_s`).
const MIN_GAP_NS: i64 = 10_000_000;
/// Gaps kept per direction (16 B each), a documented cap: 1 MiB at most.
pub const MAX_GAPS: usize = 1 << 16;
/// The clock's rate is measured over at least this span and this many ticks.
const MIN_SPAN_NS: i64 = 100_000_000;
const MIN_TICKS: u32 = 20;
/// The path held a gap when the sender's part of it is less than this share of it
/// (after two granules of its clock's rounding: `granularity`).
const SENDER_SHARE_MAX: f64 = 0.5;
/// The least share of this sender's echoes (TSecr ≠ 0 on its data) that are TSvals of
/// the peer's clock for any echo to be read as the age of what it had received: an
/// echo is always one of the peer's TSvals (RFC 7323 §4.3), so a stack that echoes
/// them shows at least this many, give or take the peer's segments the capture
/// missed; one whose echoes are mostly something else is not echoing the peer.
const ECHO_SHARE_MIN: f64 = 0.5;

/// One direction's TSvals on its data segments (kept in `Side`, made at its first
/// data segment with a timestamp).
#[derive(Debug)]
pub(crate) struct SenderClock {
    first: (i64, u32),
    last: (i64, u32),
    /// (row after the gap, TSval advance over it, capture gap ns).
    gaps: Vec<(u32, u32, i64)>,
    /// The peer's TSval on its first ACK of everything this direction had sent, until
    /// this direction sends new data.
    peer_acked_all: Option<u32>,
    /// The greatest common divisor of the non-zero TSval advances between consecutive
    /// data segments (`granularity`); 0 before the first.
    step_gcd: u32,
    /// The peer's TSvals seen since this clock was made: the first and the furthest
    /// on (wrap-aware); None before the first.
    peer_tsvals: Option<(u32, u32)>,
    /// This sender's echoes on its data (TSecr ≠ 0) while the peer's TSvals were known,
    /// and how many of them lay within those TSvals.
    echoes: (u32, u32),
    /// Rows of data whose echo is older than the peer's ACK of everything (kept to
    /// `MAX_GAPS`), marked `ACK_HELD_ON_PATH` at the end only if the echoes are the
    /// peer's clock (`ECHO_SHARE_MIN`).
    ack_held_rows: Vec<u32>,
    /// The far part of the round trip, bounded by the echoes (far_bounds.rs).
    far: FarBounds,
    /// The one-way delay of its segments to the capture (ts_clock.rs).
    owd: OneWayDelay,
    /// The peer's silences by its own TSvals (peer_silences.rs).
    pub peer_silences: PeerSilences,
}

impl SenderClock {
    pub fn new(t_ns: i64, tsval: u32) -> SenderClock {
        let mut owd = OneWayDelay::default();
        owd.on_segment(t_ns, tsval);
        SenderClock { first: (t_ns, tsval), last: (t_ns, tsval), gaps: Vec::new(), peer_acked_all: None, step_gcd: 0, peer_tsvals: None, echoes: (0, 0), ack_held_rows: Vec::new(), far: FarBounds::default(), owd, peer_silences: PeerSilences::default() }
    }

    /// The peer acknowledged everything this direction had sent, on a segment with
    /// TSval `peer_tsval`.
    pub fn on_peer_acked_all(&mut self, peer_tsval: u32) {
        self.peer_acked_all.get_or_insert(peer_tsval);
    }

    /// A TSval the peer sent (on any segment), for telling whether this sender's echoes
    /// are of the peer's clock. A TSval more than 2^30 ticks past the furthest is not
    /// this clock's (corrupted or foreign) and does not widen the range.
    /// At `t_ns`; `echoable`: the segment starts at or below the last ACK this sender was
    /// seen to send, so its TSval would become TS.Recent (far_bounds.rs).
    pub fn on_peer_tsval(&mut self, tsval: u32, t_ns: i64, echoable: bool) {
        self.far.on_receiver_tsval(tsval, t_ns, echoable);
        self.peer_tsvals = Some(match self.peer_tsvals {
            None => (tsval, tsval),
            Some((first, far)) => {
                let ahead = tsval.wrapping_sub(far) as i32;
                (first, if ahead > 0 && ahead < 1 << 30 { tsval } else { far })
            }
        });
    }

    /// Whether `tsecr` lies within the peer's TSvals seen (`on_peer_tsval`).
    fn echoes_peer(&self, tsecr: u32) -> bool {
        self.peer_tsvals.is_some_and(|(first, far)| (tsecr.wrapping_sub(first) as i32) >= 0 && (far.wrapping_sub(tsecr) as i32) >= 0)
    }

    /// Whether `tsecr` is a TSval this direction's clock showed on its data: between
    /// its first and its latest data segment's (wrap-aware, RFC 7323 §5.2). An echo
    /// outside them is not of this clock (rewritten or broken timestamps: echoes of
    /// 62…330 against TSvals of 288 million once made 17 of 19 repairs "spurious" by
    /// Eifel's test, RFC 3522), so no test may read it as the age of a segment.
    pub fn could_echo(&self, tsecr: u32) -> bool {
        (tsecr.wrapping_sub(self.first.1) as i32) >= 0 && (self.last.1.wrapping_sub(tsecr) as i32) >= 0
    }

    /// Whether the peer's echo `tsecr` is at or past this direction's latest data
    /// segment's TSval: the peer had received that segment (`ANSWERS_PEER_DATA`).
    pub fn is_echoed_by(&self, tsecr: u32) -> bool {
        (tsecr.wrapping_sub(self.last.1) as i32) >= 0
    }

    /// A data segment of this direction with `tsval`, captured at `t_ns`, store row `row`;
    /// `tsecr`: its timestamp echo; `new_data`: it sends data beyond any sent before.
    /// Whether its echo is older than the peer's ACK of everything: sent before the
    /// sender had that ACK (its row is kept for `ACK_HELD_ON_PATH`, see `finish`).
    pub fn on_data(&mut self, t_ns: i64, (tsval, tsecr): (u32, u32), new_data: bool, row: Option<u32>) -> bool {
        let acked_all = if new_data { self.peer_acked_all.take() } else { self.peer_acked_all };
        let of_peer = self.echoes_peer(tsecr);
        if tsecr != 0 && self.peer_tsvals.is_some() {
            self.echoes.0 += 1;
            self.echoes.1 += u32::from(of_peer);
        }
        let ack_held = of_peer && acked_all.is_some_and(|t| (tsecr.wrapping_sub(t) as i32) < 0);
        if let (true, Some(r)) = (ack_held, row) {
            if self.ack_held_rows.len() < MAX_GAPS {
                crate::lean::push(&mut self.ack_held_rows, r);
            }
        }
        let (t0, v0) = self.last;
        let advance = tsval.wrapping_sub(v0);
        // A TSval behind the last one is a segment reordered on the way (or a clock
        // reset): no gap of the sender's to compare, and the clock goes on.
        let gap_ns = t_ns.saturating_sub(t0);
        // Faster than 1 MHz (RFC 7323 §5.4 bounds the clock at 1 ms to 1 s per tick;
        // some stacks run µs clocks) plus a second of slack: not this clock — a
        // corrupted or foreign TSval, which would shrink the measured tick for the
        // whole direction. Left out, and the clock goes on from the last good one.
        if (advance as i32) < 0 || f64::from(advance) > gap_ns.max(0) as f64 / 1e3 + 1e6 {
            return ack_held;
        }
        if of_peer && new_data {
            // Ticks since the first TSval (wrap-aware: the clock moves forward here).
            let ticks = i64::from(tsval.wrapping_sub(self.first.1));
            self.far.on_data(tsecr, t_ns, ticks);
        }
        if advance != 0 && (self.step_gcd == 0 || advance % self.step_gcd != 0) {
            self.step_gcd = gcd(self.step_gcd, advance);
        }
        if let (Some(r), true) = (row, gap_ns >= MIN_GAP_NS && self.gaps.len() < MAX_GAPS) {
            crate::lean::push(&mut self.gaps, (r, advance, gap_ns));
        }
        self.last = (t_ns, tsval);
        self.owd.on_segment(t_ns, tsval);
        ack_held
    }

    /// A standing queue upstream of the capture by the one-way delay of its segments
    /// (ts_clock.rs), against the path's round trip `rtt_s`.
    pub fn upstream_queue(&self, rtt_s: f64) -> Option<UpstreamQueue> {
        self.owd.finish(rtt_s, self.granularity())
    }

    /// The far part's lower bounds (far_bounds.rs), (capture time s, bound s), when the
    /// echoes are the peer's clock (`echoes_are_peers`); none otherwise.
    pub fn take_far_bounds(&mut self) -> Vec<(f64, f64)> {
        let far = std::mem::take(&mut self.far);
        if self.echoes_are_peers() { far.finish(self.tick_ns()) } else { Vec::new() }
    }

    /// The clock's tick, ns: its TSvals' advance over the capture's span of them, when
    /// long enough to tell (at least `MIN_SPAN_NS` and `MIN_TICKS`) and of 1 µs to 1 s.
    fn tick_ns(&self) -> Option<f64> {
        let (span_ns, ticks) = (self.last.0.saturating_sub(self.first.0), self.last.1.wrapping_sub(self.first.1));
        if span_ns < MIN_SPAN_NS || ticks < MIN_TICKS || (ticks as i32) < 0 {
            return None;
        }
        Some(span_ns as f64 / f64::from(ticks)).filter(|t| (1e3..=1e9).contains(t))
    }

    /// The clock's granularity, in its ticks: the greatest common step of its TSval
    /// changes between consecutive data segments (1 before any change). A clock that
    /// ticks every ms but is read every 50 ms moves in steps of 50.
    pub fn granularity(&self) -> u32 {
        self.step_gcd.max(1)
    }

    /// Whether this sender's echoes are the peer's clock: at least `ECHO_SHARE_MIN` of
    /// them lie within the peer's TSvals.
    pub fn echoes_are_peers(&self) -> bool {
        let (all, of_peer) = self.echoes;
        all > 0 && f64::from(of_peer) >= ECHO_SHARE_MIN * f64::from(all)
    }

    /// End of capture: the rows after a gap the path made, to mark `HELD_ON_PATH`, and
    /// the rows whose echo showed the peer's ACK of everything held on the way back
    /// (`ACK_HELD_ON_PATH`), when the echoes are the peer's clock (`echoes_are_peers`).
    /// The clock's rate is its TSvals' advance over the capture's span of them; its
    /// rounding, two granules (`granularity`) in that rate.
    pub fn finish(mut self) -> Vec<(u32, u32)> {
        let ack_held: Vec<(u32, u32)> = if self.echoes_are_peers() {
            std::mem::take(&mut self.ack_held_rows).into_iter().map(|r| (r, ACK_HELD_ON_PATH)).collect()
        } else {
            Vec::new()
        };
        let mut marks = self.path_held();
        marks.extend(ack_held);
        marks
    }

    /// The rows after a gap the path made (`HELD_ON_PATH`).
    fn path_held(self) -> Vec<(u32, u32)> {
        // Not a clock of 1 µs to 1 s per tick, or too short to tell: nothing.
        let Some(tick_ns) = self.tick_ns() else { return Vec::new() };
        let rounding = 2.0 * f64::from(self.granularity());
        self.gaps
            .into_iter()
            .filter(|&(_, advance, gap_ns)| (f64::from(advance) + rounding) * tick_ns < SENDER_SHARE_MAX * gap_ns as f64)
            .map(|(row, _, _)| (row, HELD_ON_PATH))
            .collect()
    }
}

fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::stalls::cause::StallCause;

    #[test]
    fn a_gap_the_senders_clock_did_not_see_was_made_on_the_path() {
        // A 1 kHz clock over 1 s of data, one segment per ms (rows 0..1000), then:
        // row 1000 80 ms later with a TSval 6 ms on (held on the path), row 1001
        // 100 ms later with a TSval 100 ms on (the sender waited: not marked).
        let mut c = SenderClock::new(0, 5000);
        for k in 1..1000u32 {
            c.on_data(i64::from(k) * 1_000_000, (5000 + k, 1), true, Some(k));
        }
        c.on_data(1_079_000_000, (5000 + 999 + 6, 1), true, Some(1000));
        c.on_data(1_179_000_000, (5000 + 999 + 106, 1), true, Some(1001));
        assert_eq!(c.finish(), vec![(1000, HELD_ON_PATH)]);
    }

    #[test]
    fn data_sent_before_the_peers_ack_of_everything_arrived_was_waiting_on_acks() {
        // One segment per ms for 200 ms (the sender's TSvals 5000.., the peer's ACKs
        // echoed: TSecr 9000..); the peer acknowledges everything on a segment with TSval
        // 9300; 120 ms later the next data echoes 9210 — a TSval of the peer from before
        // that ACK: the sender had not received it (row 200). Had it echoed 9300, it had.
        let run = |tsecr: u32| {
            let mut c = SenderClock::new(0, 5000);
            for k in 1..200u32 {
                c.on_peer_tsval(9000 + k, 0, false);
                assert!(!c.on_data(i64::from(k) * 1_000_000, (5000 + k, 9000 + k), true, Some(k)));
            }
            c.on_peer_tsval(9300, 0, false);
            c.on_peer_acked_all(9300);
            let held = c.on_data(319_000_000, (5319, tsecr), true, Some(200));
            (held, c.finish().contains(&(200, ACK_HELD_ON_PATH)))
        };
        assert_eq!(run(9210), (true, true));
        assert_eq!(run(9300), (false, false));
    }

    #[test]
    fn echoes_that_are_none_of_the_peers_tsvals_say_nothing_of_its_acks() {
        // The same flow, but the sender's echoes are 11…85 while the peer's TSvals are
        // 29,499,618 on (an MPTCP subflow's stack filling TSecr with its own numbers):
        // none lies within the peer's TSvals, so an echo "older" than the peer's ACK of
        // everything (85 < 29,499,918) is an accident of two unrelated numbers, and
        // RFC 7323 §4.3's TS.Recent is not what the sender echoed. No mark.
        let mut c = SenderClock::new(0, 5000);
        for k in 1..200u32 {
            c.on_peer_tsval(29_499_618 + k, 0, false);
            c.on_data(i64::from(k) * 1_000_000, (5000 + k, 11 + k % 75), true, Some(k));
        }
        c.on_peer_tsval(29_499_918, 0, false);
        c.on_peer_acked_all(29_499_918);
        assert!(!c.on_data(319_000_000, (5319, 85), true, Some(200)));
        assert!(!c.echoes_are_peers());
        assert!(!c.finish().iter().any(|&(_, f)| f == ACK_HELD_ON_PATH));
        // A sender echoing the peer in only 40 of 200 data segments (the rest foreign)
        // is below ECHO_SHARE_MIN: an echo of the peer's older TSval there is no mark
        // either, as the echoes cannot be trusted as TS.Recent.
        let mut c = SenderClock::new(0, 5000);
        for k in 1..200u32 {
            c.on_peer_tsval(9000 + k, 0, false);
            let echo = if k % 5 == 0 { 9000 + k } else { 11 };
            c.on_data(i64::from(k) * 1_000_000, (5000 + k, echo), true, Some(k));
        }
        c.on_peer_tsval(9300, 0, false);
        c.on_peer_acked_all(9300);
        assert!(c.on_data(319_000_000, (5319, 9210), true, Some(200)));
        assert!(!c.finish().iter().any(|&(_, f)| f == ACK_HELD_ON_PATH));
    }

    /// Capture at client A; server B answers a request with 20 segments. While the last
    /// two are on their way A sends a small pipelined request D (TSval 150), then its pure
    /// ACK of everything (TSval 152) before B has acknowledged D. B's application answers
    /// D 250 ms later echoing `answer_echo`.
    fn pipelined(answer_echo: u32) -> crate::analysis::report::Analysis {
        use crate::analysis::track::testseg::{run, Seg};
        use crate::decode::tcp_flags::{ACK, SYN};
        const LEN: u32 = 1448;
        let mut v = vec![
            Seg::a_to_b(0.0).seq(1000).flags(SYN).mss(1460).ts(100, 0),
            Seg::b_to_a(0.020).seq(5000).ack(1001).flags(SYN | ACK).mss(1460).ts(9000, 100),
            Seg::a_to_b(0.02001).seq(1001).ack(5001).ts(120, 9000),
            Seg::a_to_b(0.02002).seq(1001).ack(5001).len(100).ts(120, 9000),
        ];
        let (mut next, mut a_seq, mut a_ts) = (5001u32, 1101u32, 140u32);
        for k in 0..20u32 {
            let t = 0.041 + 0.0001 * f64::from(k);
            v.push(Seg::b_to_a(t).seq(next).ack(1101).len(LEN).ts(9021 + k / 10, 120));
            next += LEN;
            v.push(Seg::a_to_b(t + 0.00001).seq(a_seq).ack(next).ts(a_ts, 9021 + k / 10));
            if k == 17 {
                a_ts = 150;
                v.push(Seg::a_to_b(t + 0.00002).seq(a_seq).ack(next).len(50).ts(a_ts, 9021 + k / 10));
                a_seq += 50;
            }
            a_ts += 1;
        }
        // B's delayed ACK of D, then its answer.
        v.push(Seg::b_to_a(0.102).seq(next).ack(a_seq).ts(9080, 150));
        v.push(Seg::b_to_a(0.300).seq(next).ack(a_seq).len(1000).ts(9280, answer_echo));
        v.push(Seg::a_to_b(0.30001).seq(a_seq).ack(next + 1000).ts(400, 9280));
        run(v)
    }

    #[test]
    fn an_echo_held_by_an_unacknowledged_request_is_not_an_ack_held_on_the_path() {
        // B had not acknowledged D when A's ACK of everything came, so its TS.Recent stays
        // at D's TSval (RFC 7323 §4.3: only a segment at or below Last.ACK.sent updates
        // it): echoing 150 says nothing about that ACK. B's application was slow.
        let a = pipelined(150);
        let c = &a.connections[0];
        let st = &c.directions[c.data_direction as usize].stalls;
        assert_eq!(st.iter().map(|s| s.cause).collect::<Vec<_>>(), vec![StallCause::ApplicationIdle], "{st:?}");
    }

    #[test]
    fn paced_data_sent_before_the_ack_of_everything_arrived_is_not_application_time() {
        // At client A: B's segments, each ACKed by A at once (A's TSval: its clock in ms).
        // The first 20 follow each ACK within 0.2 ms (a short path), the next 100 come 5 ms
        // apart, A having acknowledged everything before each. Either B's application
        // paused (each echoes A's latest TSval) or a shaper's queue released them (`queued`:
        // each echoes A's TSval from 40 ms earlier: sent before B had A's ACK).
        let flow = |queued: bool| paced_flow(queued, false);
        assert!(flow(false) > 0.9, "{}", flow(false));
        // Queued: only the first 20 short intervals (3.6 of 504 ms) stay application time.
        assert!(flow(true) < 0.01, "{}", flow(true));
    }

    #[test]
    fn echoes_of_another_clock_do_not_make_paced_data_wait_on_acks() {
        // The queued flow again, but B's echoes are 11 + k mod 60 — none of A's TSvals
        // (100 and up, its clock in ms): B's stack does not echo A (RFC 7323 §4.3), so
        // "older than the ACK of everything" is two unrelated numbers compared, and the
        // paced intervals stay application time as in the unqueued flow.
        let application = paced_flow(true, true);
        assert!(application > 0.9, "{application}");
    }

    /// At client A: B's segments, each ACKed by A at once (A's TSval: its clock in ms).
    /// The first 20 follow each ACK within 0.2 ms (a short path), the next 100 come 5 ms
    /// apart, A having acknowledged everything before each. Either B's application
    /// paused (each echoes A's latest TSval) or a shaper's queue released them (`queued`:
    /// each echoes A's TSval from 40 ms earlier: sent before B had A's ACK); `foreign`:
    /// B's echoes are none of A's TSvals. The application share of the diagnosis.
    fn paced_flow(queued: bool, foreign: bool) -> f64 {
        use crate::analysis::track::testseg::{run, Seg};
        use crate::decode::tcp_flags::{ACK, SYN};
        let a_ts = |t: f64| 100 + (t * 1000.0) as u32;
        let mut v = vec![
            Seg::a_to_b(0.0).seq(1000).flags(SYN).mss(1460).ts(100, 0),
            Seg::b_to_a(0.0001).seq(5000).ack(1001).flags(SYN | ACK).mss(1460).ts(9000, 100),
            Seg::a_to_b(0.0002).seq(1001).ack(5001).ts(100, 9000),
            Seg::a_to_b(0.0003).seq(1001).ack(5001).len(64).ts(100, 9000),
        ];
        let (mut next, mut t, mut last_ack_t) = (5001u32, 0.0005, 0.0003);
        for k in 0..120u32 {
            t += if k < 20 { 0.0002 } else { 0.005 };
            let echo = if foreign {
                11 + k % 60
            } else if queued && k >= 20 {
                a_ts(last_ack_t - 0.040).max(100)
            } else {
                a_ts(last_ack_t)
            };
            v.push(Seg::b_to_a(t).seq(next).ack(1065).len(1448).ts(9001 + k, echo));
            next += 1448;
            last_ack_t = t + 0.00001;
            v.push(Seg::a_to_b(last_ack_t).seq(1065).ack(next).win(60_000).ts(a_ts(last_ack_t), 9001 + k));
        }
        run(v).connections[0].diagnosis.shares.application
    }

    #[test]
    fn a_tsval_that_moves_in_steps_of_50_says_nothing_of_a_20_ms_gap() {
        // A 1 kHz TS clock read every 50 ms (TSval 5000 + 50 × ⌊t / 50 ms⌋), one segment
        // every 20 ms for 1 s (rows 1..=50): many 20 ms gaps with the TSval unchanged.
        // Its granularity is 50 ticks (gcd of the steps 50 and 100), so a gap is the
        // path's only when advance + 2 × 50 ms < ½ gap: none of the 20 ms gaps (the
        // rule with 2 ticks of rounding, 0 + 2 ms < 10 ms, once marked 30 of them
        // "held on the path"). Row 51, 400 ms after row 50 with the same TSval (sent
        // before the clock's next read), is: the rate is 1.4 ms a tick over the 1.4 s
        // of TSvals 1000 ticks apart, and (0 + 100) × 1.4 = 140 ms < 200 ms.
        let tsval = |t_ms: i64| 5000 + 50 * (t_ms / 50) as u32;
        let mut c = SenderClock::new(0, tsval(0));
        for k in 1..=50i64 {
            c.on_data(k * 20_000_000, (tsval(k * 20), 1), true, Some(k as u32));
        }
        assert_eq!(c.granularity(), 50);
        c.on_data(1_400_000_000, (tsval(1000), 1), true, Some(51));
        assert_eq!(c.finish(), vec![(51, HELD_ON_PATH)]);
    }

    #[test]
    fn a_short_or_frozen_clock_says_nothing() {
        // 50 ms of data: too short to know the clock's rate.
        let mut c = SenderClock::new(0, 7);
        c.on_data(50_000_000, (57, 1), true, Some(1));
        assert_eq!(c.finish(), vec![]);
        // A TSval that never moves (a stack that does not run its clock).
        let mut c = SenderClock::new(0, 7);
        c.on_data(500_000_000, (7, 1), true, Some(1));
        assert_eq!(c.finish(), vec![]);
    }

    #[test]
    fn one_foreign_tsval_does_not_rescale_the_clock() {
        // A 1 kHz clock over 1 s, one TSval corrupted by 2^30 ticks, then a 500 ms
        // gap the sender made (its TSval 500 ms on): not held on the path.
        let mut c = SenderClock::new(0, 5000);
        for k in 1..1000u32 {
            let tsval = if k == 500 { 5000 + k + (1 << 30) } else { 5000 + k };
            c.on_data(i64::from(k) * 1_000_000, (tsval, 1), true, Some(k));
        }
        c.on_data(1_499_000_000, (5000 + 999 + 500, 1), true, Some(1000));
        assert_eq!(c.finish(), vec![]);
    }
}
