//! The classification pass (`RetransKinds::finish`): every record in capture order,
//! carrying the sender's loss state (after a timeout, in fast recovery, undone by
//! F-RTO or shown needless) to tell a timeout, a tail loss probe, a slow-start and a
//! fast / recovery retransmission apart (the rules are in the parent module's doc).

use super::record::{heard_between, Record};
use super::{KindCounts, RetransKinds, RtoChain, MAX_CHAINS, SCAN, TIMER_FLOOR_NS, TIMER_SLACK_NS};
use crate::analysis::loss::back_to_back::back_to_back_duplicate;
use crate::analysis::loss::pmtu_kind::{Claims, TooBig};
use crate::analysis::rows::columns::flag_bits as fb;

impl RetransKinds {
    /// Classifies every record. `lag_ns`: the sender lag (capture → sender →
    /// capture); `at_sender`: the capture is known to be at this direction's sender; `rtt_ns`: the path RTT (None: unknown, then a
    /// retransmission counts as timer-driven with no feedback ever or after 1 s of quiet,
    /// `timer_driven`); `smss`: the
    /// sender's segment size (handshake.rs `send_mss`; None: one segment per frame).
    /// Returns the counts and (row, kind bits) for the stored rows, in row order.
    pub fn finish(self, lag_ns: i64, at_sender: bool, rtt_ns: Option<i64>, smss: Option<u32>) -> (KindCounts, Vec<(u32, u32)>) {
        self.finish_with(lag_ns, at_sender, rtt_ns, smss, &[])
    }

    /// [`RetransKinds::finish`], with the too-big messages about this side's segments
    /// (pmtu_kind.rs): a re-send they set off is a PMTU re-send, counted apart, with no
    /// kind bit on its row, and it leaves the loss state as it was (no timeout, no
    /// recovery: the router's message, not a loss signal of the receiver's, found it).
    pub fn finish_with(self, lag_ns: i64, at_sender: bool, rtt_ns: Option<i64>, smss: Option<u32>, too_big: &[TooBig]) -> (KindCounts, Vec<(u32, u32)>) {
        let mut pmtu = Claims::new(too_big);
        let pmtu_acted = pmtu.acted(self.records.iter().filter(|r| !r.syn).map(|r| (r.t_ns, r.seq, r.end)), lag_ns);
        let mut c = KindCounts { retransmitted_segments: self.overflow, ..KindCounts::default() };
        // Segments of one retransmitted frame: a frame larger than the SMSS is a TSO /
        // GRO super-segment of ⌈len / SMSS⌉ (the kernel's tcp_skb_pcount).
        let segments = |r: &Record| smss.map_or(1, |m| ((r.end - r.seq).max(1) as u64).div_ceil(u64::from(m.max(1))));
        let mut marks = Vec::with_capacity(self.records.len());
        // Linux sends a tail loss probe only on a connection that negotiated SACK
        // (`tcp_schedule_loss_probe`: `!tcp_is_sack(tp)` → none), as RACK-TLP needs the
        // SACK scoreboard (RFC 8985 §4): without it every timer re-send is a timeout
        // (a client with tcp_sack=0 at 3 % loss: the kernel's 4 TCPTimeouts, no probe).
        let probes = self.sack_negotiated != Some(false);
        let mut state = LossState::new();
        let records = &self.records;
        // A timer that makes the sender retransmit more than one segment before any
        // feedback is not a retransmission timeout: after a timeout the sender
        // re-sends the first unacknowledged segment (RFC 6298 §5.4) with a congestion
        // window of one segment (RFC 5681 §3.1) and waits for an ACK. Several at once
        // are a loss-detection timer marking segments lost during recovery (RACK's
        // reordering timer, RFC 8985 §6.3): recovery retransmissions.
        //
        // Except when the burst re-sends bytes already re-sent since the last feedback:
        // RACK marks a retransmission lost again only on a later ACK (RFC 8985 §6.2) and
        // a probe is one segment (§7.3), so only the retransmission timer re-sends them
        // without feedback (RFC 6298 §5.5, the backoff). Its first segment is the timeout;
        // a stack that leaves a timeout with a window of two (Windows) sends a second
        // one, in loss state: slow start. Zeek's http/206_example_b.pcap: 11 such pairs,
        // 0.5 s → 15.6 s apart, were counted as 22 fast retransmissions and no timeout.
        let bursts = Bursts { records, lag_ns, rtt_or_zero: rtt_ns.unwrap_or(0) };
        for (i, r) in records.iter().enumerate() {
            state.leave_ended(r, lag_ns, self.sack_seen);
            if pmtu_acted && !r.syn && pmtu.claim(r.t_ns, r.seq, r.end) {
                c.pmtu_retransmissions += 1;
                c.retransmitted_segments += segments(r);
                c.spurious_retransmissions += u64::from(r.spurious);
                if r.row != u32::MAX {
                    marks.push((r.row, if r.spurious { fb::KIND_SPURIOUS } else { 0 }));
                }
                continue;
            }
            // Sent twice back to back, before any feedback or timer could ask for it
            // (loss/back_to_back.rs): counted apart, no kind bit, the loss state as it was.
            let new_data_ago = self.new_data_ago_us.get(i).copied().unwrap_or(u32::MAX);
            let since_new = (new_data_ago < u32::MAX - 1).then(|| i64::from(new_data_ago) * 1000);
            let fed_between = r.feedback_n > 0 && since_new.map_or(true, |s| i64::from(r.feedback_ago_us[0]) * 1000 <= s);
            if since_new.is_some_and(|s| back_to_back_duplicate(r.end == r.high, s, fed_between, r.syn)) && super::super::back_to_back::may_be_copy(self.hole_reported_before.get(i).copied().unwrap_or(0)) {
                c.back_to_back_duplicates += 1;
                c.retransmitted_segments += segments(r);
                c.spurious_retransmissions += u64::from(r.spurious);
                if r.row != u32::MAX {
                    marks.push((r.row, if r.spurious { fb::KIND_SPURIOUS } else { 0 }));
                }
                continue;
            }
            let quiet = r.quiet_ns(lag_ns, at_sender);
            let timer = timer_driven(r, quiet, rtt_ns, lag_ns);
            let hole = self.hole_reported_before.get(i).map_or(true, |b| b & 1 != 0);
            // No report of a hole, no recovery or timeout's loss state under way, and
            // some quiet: nothing of the receiver's asked for it, so its sender's timer
            // did (`LossState::unreported`).
            // Feedback of the receiver's after the sender's last new data (an advance,
            // a duplicate ACK) may have clocked it — a partial ACK: slow start after a
            // timeout the capture missed, NewReno's next hole (RFC 6582 §3.2), or a FIN
            // re-sent with the ACK of the peer's FIN; feedback before it acknowledged none
            // of the bytes sent since, so clocks no re-send of them. Unknown: no claim.
            let fed_since = r.feedback_n > 0 && (new_data_ago == u32::MAX || r.feedback_ago_us[0] <= new_data_ago);
            // Only for bytes the capture saw sent before (its end within SND.NXT): a
            // "re-send" reaching past it carries bytes first seen here (their original
            // never captured, known only from the peer's numbers), and when the sender
            // sent them is unknown.
            // A burst is a loss-detection timer's in recovery (see above), not this.
            let burst = bursts.in_burst(i) && !bursts.repeats_a_timer_burst(i);
            let unreported = !hole && !fed_since && !burst && r.end <= r.high && state.unreported(r) && quiet.map_or(true, |q| q >= TIMER_FLOOR_NS);
            let bits = if (!timer || burst) && !r.syn && !unreported {
                state.clocked(r, segments(r), hole, &mut c)
            } else if r.end >= r.high && state.last_timer != Some(r.feedback_seq) && !r.syn && probes && !self.past_probe_timeout(i, r, quiet, rtt_ns) {
                state.last_timer = Some(r.feedback_seq);
                c.tail_loss_probes += 1;
                fb::KIND_TLP
            } else {
                state.timeout(r, quiet, &mut c)
            };
            c.retransmitted_segments += segments(r);
            let spurious = if r.spurious {
                c.spurious_retransmissions += 1;
                fb::KIND_SPURIOUS
            } else {
                0
            };
            if r.row != u32::MAX {
                marks.push((r.row, bits | spurious));
            }
        }
        (c, marks)
    }
}

/// The longest delay a probe timer adds for the receiver's delayed ACK when one segment
/// is outstanding: RFC 8985 §7.2's WCDelAckT (200 ms), Linux's TCP_RTO_MIN there.
const PTO_DELAYED_ACK_NS: i64 = 200_000_000;
/// A probe timeout before the sender has an RTT sample (RFC 8985 §7.2; Linux
/// TCP_TIMEOUT_INIT): 1 s.
const PTO_NO_SAMPLE_NS: i64 = 1_000_000_000;

impl RetransKinds {
    /// Whether record `i` (`r`, `quiet` its `Record::quiet_ns`) came later than any
    /// probe timeout could fire: a sender arms its probe timer (PTO) when it sends new
    /// data or an ACK advances (RFC 8985 §7.2), to 2·SRTT, plus WCDelAckT with one
    /// segment outstanding, and never past the RTO (Linux: `tcp_schedule_loss_probe`,
    /// 2·SRTT + TCP_RTO_MIN or + 2 ms). No smoothed RTT exceeds the largest round trip
    /// measured (a weighted mean of samples, RFC 6298 §2), so a re-send later than
    /// 2 × that + 200 ms after both the last feedback and the last new data — a timer's,
    /// with the timer's slack ([`TIMER_SLACK_NS`]) — was the retransmission timer's
    /// (RFC 6298 §5), not a probe. Before any ACK of data (no feedback past the
    /// handshake's) the sender may have had no sample: 1 s then. Unknown round trips or
    /// an unknown time of the last new data: no bound (a probe stays possible).
    /// A printer's stream on a 0.2 ms LAN (its delayed ACKs up to 0.2 s): the last
    /// segment re-sent 5.5 s after it was sent, 10.3 s after the last ACK, had read as a
    /// tail loss probe.
    fn past_probe_timeout(&self, i: usize, r: &Record, quiet: Option<i64>, rtt_ns: Option<i64>) -> bool {
        let ago_us = self.new_data_ago_us.get(i).copied().unwrap_or(u32::MAX);
        let Some(srtt_max) = self.rtt_max_ns.get().max(rtt_ns) else { return false };
        if ago_us == u32::MAX {
            return false;
        }
        let since = quiet.map_or(i64::from(ago_us) * 1000, |q| q.min(i64::from(ago_us) * 1000));
        let mut pto_max = 2 * srtt_max + PTO_DELAYED_ACK_NS;
        if r.feedback_seq <= 1 {
            pto_max = pto_max.max(PTO_NO_SAMPLE_NS);
        }
        since > pto_max + TIMER_SLACK_NS
    }
}

/// The sender's loss state as the pass over the records goes.
struct LossState {
    // Loss state after a timeout: until the cumulative ACK passes `recover`.
    recover: Option<i64>,
    // feedback_seq of the last timer event (a probe or a timeout) and of the
    // last timeout, with the time of that timeout (for the backoff intervals).
    last_timer: Option<u32>,
    last_rto: Option<(u32, i64)>,
    open_chain: Option<usize>,
    // The timeouts and slow-start retransmissions of the current loss state: whether
    // one of them was needed (or not yet shown needless), and when the capture saw
    // the last evidence that they all were.
    period_needed: bool,
    period_shown_needless_at: i64,
    // When F-RTO showed the current loss state's timeout spurious (i64::MAX: not).
    period_undone_at: i64,
    // Fast recovery under way (RFC 6675): its recover point, SND.NXT at its first
    // retransmission.
    fast_recover: Option<i64>,
    // SND.NXT at the last timeout, until fast recovery begins: the bytes its
    // go-back-N may re-send (`clocked`).
    timeout_high: Option<i64>,
}

impl LossState {
    fn new() -> LossState {
        LossState {
            recover: None,
            last_timer: None,
            last_rto: None,
            open_chain: None,
            period_needed: false,
            period_shown_needless_at: i64::MIN,
            period_undone_at: i64::MAX,
            fast_recover: None,
            timeout_high: None,
        }
    }

    /// Leaves the loss state and fast recovery that ended before `r` was sent.
    fn leave_ended(&mut self, r: &Record, lag_ns: i64, sack_seen: bool) {
        let una = r.una_heard(lag_ns);
        if self.recover.is_some_and(|rc| una >= rc) {
            self.recover = None;
        }
        // Undone below (F-RTO, or every re-send of the episode shown needless): the sender
        // left the timeout's response (RFC 4015), so no go-back-N of it follows
        // (`clocked`); the loss state that the ACKs ended above keeps it.
        let before_undo = self.recover.is_some();
        // Without SACK the sender stays in recovery until the ACK passes the
        // recover point, not when it reaches it (RFC 6582 §3.2 step 3: "more than
        // recover"; Linux tcp_try_undo_recovery holds Reno's state at snd_una ==
        // high_seq), so a timeout then is one during recovery.
        if self.fast_recover.is_some_and(|rc| una > rc || (sack_seen && una == rc)) {
            self.fast_recover = None;
        }
        // F-RTO (RFC 5682 §3, SACK-enhanced; Linux tcp_process_loss step 3.b): an
        // ACK after the timeout acknowledged bytes below its recover point that
        // were never re-sent, so not all outstanding data was lost and the sender
        // undoes the timeout's response (RFC 4015; Linux TCPSpuriousRTOs and
        // TCPLossUndo): the holes it then fills are recovery. Linux, 80 ms RTT, a
        // 1 s outage in the middle of SACK recovery: the first ACK after the third
        // backoff SACKed data sent before the outage whose ACKs the outage had
        // eaten; the kernel counted 834 fast and 56 slow-start retransmissions,
        // where reading the whole episode as loss state gave 174 and 716.
        if self.recover.is_some() && self.period_undone_at.saturating_add(lag_ns.max(0)) <= r.t_ns {
            self.recover = None;
        }
        // A timeout shown spurious ends the loss state before the recover point:
        // every retransmission it led to reached a receiver that had the bytes
        // already (D-SACK, RFC 3708; or Eifel's timestamp echo, RFC 3522), so the
        // sender undoes its response (RFC 4015 §2; Linux tcp_try_undo_loss, which
        // needs exactly this: no retransmission of the episode left un-D-SACKed,
        // or a delayed original by timestamps) and the holes it then fills are
        // recovery, which the kernel counts as TCPFastRetrans. Linux recordings
        // with a 350 ms outage at the sender: 85 of 98 such retransmissions were
        // read as slow start (the ACKs had been lost, not the data).
        let shown_by = self.period_shown_needless_at.saturating_add(lag_ns.max(0));
        if self.recover.is_some() && !self.period_needed && shown_by <= r.t_ns {
            self.recover = None;
        }
        if before_undo && self.recover.is_none() {
            self.timeout_high = None;
        }
        if self.recover.is_none() {
            (self.period_needed, self.period_shown_needless_at, self.period_undone_at) = (false, i64::MIN, i64::MAX);
        }
    }

    /// Whether a re-send of `r`'s bytes with no hole reported since the cumulative ACK last
    /// advanced would have nothing but a timer behind it: no fast recovery under way (a
    /// partial ACK there clocks the next hole, RFC 6582 §3.2), no timeout's loss state
    /// (slow start) and not the go-back-N of the last timeout (`clocked`). A fast
    /// retransmission needs the receiver's report of a hole (RFC 5681 §3.2, RFC 6675 §5,
    /// RFC 8985 §6.2); without one the re-send is the timer's — a timeout, or a probe of
    /// the tail — however soon after the last ACK it came (a timer armed on the original,
    /// RFC 6298 §5.1, fires whenever the ACK of it is late). mercury
    /// http_request.capture2.pcap #146: a 4-byte message re-sent 1.17 s after it was sent,
    /// 946 ms after the peer's last packet (its own message, which acknowledged nothing),
    /// no duplicate ACK: counted "recovery" where the round trip was unknown.
    fn unreported(&self, r: &Record) -> bool {
        self.fast_recover.is_none() && self.recover.is_none() && !self.timeout_high.is_some_and(|h| r.end <= h)
    }

    /// Counts `r`, clocked by feedback: slow start in a timeout's loss state, else fast
    /// / recovery. Returns its kind bit. `hole_reported`: the receiver had reported a
    /// hole (a duplicate ACK that is not only a D-SACK, or SACKed data above the
    /// cumulative ACK) since its cumulative ACK last advanced.
    ///
    /// A fast retransmission needs that report (RFC 5681 §3.2: the third duplicate ACK;
    /// RFC 6675 §5: SACKed data above the hole; RFC 8985 §6.2: RACK marks a segment
    /// lost only on an ACK of data sent after it), or a recovery already under way (a
    /// partial ACK, RFC 6582 §3.2 step 5). Without either, a re-send of bytes that were
    /// outstanding at the last timeout is that timeout's go-back-N (RFC 5681 §3.1;
    /// Linux's TCPSlowStartRetrans), even where the capture saw the ACKs that should
    /// have ended its loss state pass before it: the sender had not heard them yet, or
    /// the estimate of when it did (`Record::una_heard`) was short. Chris Sanders'
    /// dns_isp_hijack.pcapng conn 2: the timer re-sent seq 1 (frame 41), then 5793–11585
    /// (50, 52, 54, 56) 25 ms later, after ACKs of everything and only D-SACK duplicate
    /// ACKs: counted 4 fast retransmissions.
    fn clocked(&mut self, r: &Record, segments: u64, hole_reported: bool, c: &mut KindCounts) -> u32 {
        let go_back_n = !hole_reported && self.fast_recover.is_none() && self.timeout_high.is_some_and(|h| r.end <= h);
        if self.recover.is_some() || go_back_n {
            c.slow_start_retransmissions += 1;
            c.slow_start_retransmitted_segments += segments;
            self.period_needed |= !r.spurious;
            self.period_shown_needless_at = self.period_shown_needless_at.max(r.spurious_at_ns);
            fb::KIND_SLOW_START
        } else {
            c.fast_retransmissions += 1;
            c.fast_retransmitted_segments += segments;
            self.fast_recover.get_or_insert(r.high);
            self.timeout_high = None;
            fb::KIND_FAST
        }
    }

    /// Counts `r` as a retransmission timeout, in its backoff chain. Returns its kind bit.
    fn timeout(&mut self, r: &Record, quiet: Option<i64>, c: &mut KindCounts) -> u32 {
        self.last_timer = Some(r.feedback_seq);
        c.rto_events += 1;
        self.recover = Some(r.high);
        self.timeout_high = Some(r.high);
        // Linux arms F-RTO for a timeout outside fast recovery, or a repeated
        // timeout of the same segment (RFC 5682 §3.2; tcp_enter_loss).
        let backoff = self.last_rto.is_some_and(|(seq, _)| seq == r.feedback_seq);
        let in_recovery = self.fast_recover.is_some() || r.dupacks_before >= 3;
        if (backoff || !in_recovery) && r.original_acked_lo < r.high {
            self.period_undone_at = self.period_undone_at.min(r.original_acked_at_ns);
        }
        self.fast_recover = None;
        self.period_needed |= !r.spurious;
        self.period_shown_needless_at = self.period_shown_needless_at.max(r.spurious_at_ns);
        match self.last_rto {
            Some((seq, t)) if seq == r.feedback_seq => {
                if let Some(ch) = self.open_chain.and_then(|i| c.rto_chains.get_mut(i)) {
                    ch.timeouts += 1;
                    ch.intervals_ms.push((r.t_ns - t) as f64 / 1e6);
                }
            }
            _ => {
                self.open_chain = (c.rto_chains.len() < MAX_CHAINS).then_some(c.rto_chains.len());
                if self.open_chain.is_some() {
                    c.rto_chains.push(RtoChain {
                        start: r.t_ns as f64 / 1e9,
                        timeouts: 1,
                        intervals_ms: quiet.map(|q| (q as f64 / 1e6).max(0.0)).into_iter().collect(),
                    });
                }
            }
        }
        self.last_rto = Some((r.feedback_seq, r.t_ns));
        fb::KIND_RTO
    }
}

/// Whether `r` was sent by a timer: the one shared test (loss/timer_driven.rs).
fn timer_driven(r: &Record, quiet: Option<i64>, rtt_ns: Option<i64>, lag_ns: i64) -> bool {
    crate::analysis::loss::timer_driven::timer_driven(quiet, rtt_ns, lag_ns, r.below_sack)
}

/// Re-sends sent together without feedback between them (see the comment in `finish`).
struct Bursts<'a> {
    records: &'a [Record],
    lag_ns: i64,
    rtt_or_zero: i64,
}

impl Bursts<'_> {
    fn close(&self, a: &Record, b: &Record) -> bool {
        !heard_between(a, b, self.lag_ns) && b.t_ns - a.t_ns < self.rtt_or_zero
    }

    fn in_burst(&self, i: usize) -> bool {
        let records = self.records;
        (i > 0 && self.close(&records[i - 1], &records[i])) || records.get(i + 1).is_some_and(|n| self.close(&records[i], n))
    }

    fn repeats_a_timer_burst(&self, i: usize) -> bool {
        let records = self.records;
        let r = &records[i];
        let first_of_burst = i == 0 || !self.close(&records[i - 1], r);
        first_of_burst
            && records[..i]
                .iter()
                .rev()
                .take(SCAN)
                .take_while(|x| x.feedback_seq == r.feedback_seq)
                .any(|x| x.seq <= r.seq && r.seq < x.end)
    }
}
