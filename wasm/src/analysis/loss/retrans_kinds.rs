//! What kind of retransmission each retransmitted segment was (docs/ANALYSIS.md
//! "Retransmission kinds"): a retransmission timeout (RFC 6298), a tail loss probe
//! (RFC 8985 §7), fast retransmit / loss recovery driven by the receiver's ACKs
//! (RFC 5681 §3.2, RFC 6582, RFC 6675 — what Linux counts as TCPFastRetrans), or a
//! slow-start retransmission after a timeout (RFC 5681 §3.1 "go-back-N"; Linux's
//! TCPSlowStartRetrans); and whether it was needless (spurious): the receiver
//! reported the bytes twice with a D-SACK (RFC 2883 §4), its timestamp echo
//! predates the retransmission (Eifel, RFC 3522 §3.2), or it had acknowledged the
//! bytes before the retransmission passed the capture point.
//!
//! Which retransmissions: exactly the segments `retransmissions` counts (Wireshark's
//! tcp.analysis.retransmission, fast and spurious included), so the five kinds (with
//! PMTU re-sends, pmtu_kind.rs) add up to it.
//!
//! Why the rules are not Wireshark's: tshark calls a retransmission "fast" only when
//! it follows two duplicate ACKs for exactly its sequence number within 20 ms. Under
//! SACK recovery (RFC 6675) a sender retransmits many holes, each after an ACK that
//! carries new SACK information, not a duplicate ACK for that segment: 23 of the
//! kernel's 688 on one recording. The question is what *triggered* the
//! retransmission: feedback from the receiver or a timer.
//!
//! Evidence, per retransmitted segment (decided when the connection ends, because
//! it needs the vantage: `sender_lag`):
//! - *quiet* = how long the sender had heard nothing new from the receiver when it
//!   sent it: capture time − capture time of the receiver's last *feedback* (an ACK
//!   that advanced the cumulative ACK, a SACK block reaching beyond every earlier one,
//!   a SACK option cut off by the snaplen, or a duplicate ACK without SACK blocks — without
//!   SACK only the first three of a run, see `on_peer_ack`) − the sender lag (the capture → sender →
//!   capture part of the round trip: at a receiver-side capture the retransmission
//!   passes the capture point one path RTT after the ACK that caused it).
//! - A retransmission with quiet ≥ one path RTT was sent by a timer: a PTO fires no
//!   earlier than 2·SRTT after the last ACK (RFC 8985 §7.2), an RTO no earlier than
//!   RTO ≥ SRTT + 4·RTTVAR (RFC 6298 §2); a retransmission clocked by an ACK leaves
//!   within pacing time of it. One path RTT is the middle ground.
//! - Timer-driven, re-sending the highest segment sent (its end is SND.NXT), the first
//!   timer event since the last feedback, on a connection that did not refuse SACK
//!   (RACK-TLP needs it, RFC 8985 §4): a tail loss probe (RFC 8985 §7.3: the
//!   probe re-sends the last segment when no new data can be sent; a sender arms the
//!   PTO only when no probe is outstanding). Every other timer-driven retransmission is
//!   a timeout. Consecutive timeouts without feedback between them form a backoff
//!   chain (RFC 6298 §5.5).
//! - Clocked by feedback: after a timeout and until the cumulative ACK passes what
//!   was outstanding at it (the "recover" point), a slow-start retransmission; else a
//!   fast / recovery retransmission.
//!
//! Blind spots (inherent to a passive capture, stated in the tests): a probe that
//! sends *new* data is not a retransmission and is not counted (the kernel's
//! TCPLossProbes counts both); at a receiver-side capture a retransmission lost before
//! the capture point (a probe or timeouts during an outage, TCPLostRetransmit) is never
//! seen, so a backoff chain shows only its last timeout (the one that got through, with
//! the whole outage as its quiet time); a stack without tail loss probes that times out
//! on a single outstanding segment reads as a probe. (A receiver-side refill of a hole
//! is a retransmission when it comes half a round trip or more after the hole opened:
//! track/conn/loss.rs `reclassify_out_of_order`; the re-send of a tail lost before it, whose
//! data looks new, is one where the sender's datagram numbering shows it:
//! datagram_ids.rs `resends_unseen`.)
//!
//! Memory: one record per retransmitted segment, at most [`MAX_RECORDS`] per
//! direction (later retransmissions are counted but get no kind).

use serde::Serialize;

mod classify;
mod opt_ns;
mod record;
use opt_ns::OptNs;
use record::Record;

/// Retransmission records kept per direction at most (128 bytes each: `record_size` test).
pub const MAX_RECORDS: usize = 1 << 20;
/// Feedback times kept per retransmission: enough to find the last feedback the
/// sender had heard at a receiver-side capture (one sender lag earlier).
const FEEDBACK_KEPT: usize = 8;
/// Records looked at per ACK at most, newest (D-SACK, RetransmitTS) or oldest
/// unacknowledged (Eifel) first.
const SCAN: usize = 1024;
pub(crate) use super::timer_driven::{TIMER_FLOOR_NS, TIMER_SLACK_NS};
/// The duplicate ACK that triggers a fast retransmission without SACK (RFC 5681 §3.2).
const NEWRENO_DUPTHRESH: u32 = 3;
/// Backoff chains listed per direction at most (the count is always complete).
pub const MAX_CHAINS: usize = 64;

/// A run of retransmission timeouts with no feedback between them (RFC 6298 §5.5:
/// the timer doubles each time).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RtoChain {
    /// Seconds since the first packet of the file (the first timeout's retransmission).
    pub start: f64,
    /// Timeouts in the chain (1 = no backoff).
    pub timeouts: u32,
    /// Time from the receiver's last feedback to the first timeout, then between
    /// consecutive timeouts, ms: with backoff each roughly doubles.
    pub intervals_ms: Vec<f64>,
}

/// The counts of one direction (docs/ANALYSIS.md "Retransmission kinds").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KindCounts {
    pub rto_events: u64,
    pub rto_chains: Vec<RtoChain>,
    pub tail_loss_probes: u64,
    pub fast_retransmissions: u64,
    pub slow_start_retransmissions: u64,
    /// Re-sends an ICMP "fragmentation needed" / "packet too big" set off (pmtu_kind.rs).
    pub pmtu_retransmissions: u64,
    /// Segments sent twice back to back, before feedback or a timer could ask (back_to_back.rs).
    pub back_to_back_duplicates: u64,
    pub spurious_retransmissions: u64,
    /// The same in segments of the sender's SMSS (a TSO frame of 45 counts 45), as a kernel counts them: all kinds (TcpRetransSegs), fast, slow start.
    pub retransmitted_segments: u64,
    pub fast_retransmitted_segments: u64,
    pub slow_start_retransmitted_segments: u64,
}

/// Per-direction tracker, fed by the analyzer: `on_feedback` for every ACK of the
/// peer, `on_retransmission` for every retransmitted segment of this side.
#[derive(Debug, Default)]
pub struct RetransKinds {
    records: Vec<Record>,
    /// Retransmissions beyond `MAX_RECORDS` (counted, not classified).
    overflow: u64,
    /// Capture times of the last `FEEDBACK_KEPT` feedback ACKs (a ring).
    recent: [i64; FEEDBACK_KEPT],
    recent_n: usize,
    feedback_seq: u64,
    /// Highest SACK right edge and cumulative ACK the peer has sent (relative; `OptNs`: Options in 8 bytes, here and below).
    sack_high: OptNs,
    una: OptNs,
    /// The cumulative ACK before the latest advance, and when that advance was captured (`Record::una_heard`).
    una_before: OptNs,
    una_since_ns: i64,
    /// Records not yet acknowledged (index of the first one possibly unacked).
    unacked_from: usize,
    /// The peer has sent a SACK option (RFC 2018): recovery ends as SACK's does.
    sack_seen: bool,
    /// Duplicate ACKs since the cumulative ACK last advanced.
    dupacks: u32,
    /// SACK per the handshake (None: not captured).
    sack_negotiated: Option<bool>,
    /// A retransmission was sent since the cumulative ACK last advanced.
    resent_in_run: bool,
    /// The latest duplicate ACK past the third of the current run, before its first
    /// re-send (no SACK): see `on_peer_ack`.
    late_dupack_ns: OptNs,
    /// When this side last advanced SND.NXT (`on_new_data`), and for each
    /// record how long before it (µs, saturating; u32::MAX: unknown) — kept beside the
    /// records, whose 128 bytes are full (`record_size`).
    last_new_data_ns: OptNs,
    new_data_ago_us: Vec<u32>,
    /// Since the cumulative ACK last advanced, the receiver reported a hole: a
    /// duplicate ACK that is not only a D-SACK, a SACK block above the cumulative ACK,
    /// or a SACK option cut short; and for each record its value when it was sent
    /// (`hole_reported_before` bit 0, beside the records like `new_data_ago_us`; bit 1 back_to_back.rs `APART`).
    hole_reported: bool,
    pub(crate) hole_reported_before: Vec<u8>,
    /// The longest round trip of this side's data (the RTT summary's maximum), which
    /// bounds the sender's smoothed RTT (`set_rtt_max`).
    rtt_max_ns: OptNs,
    /// The lowest byte the capture saw this side send (conn.rs `sent_low`): with no
    /// feedback yet (no ACK of the peer's before this side's data), a first ACK at or
    /// below it acknowledges nothing seen sent, so is no advance.
    pub(crate) sent_low: Option<i64>,
    pub(crate) b2b: super::back_to_back::SenderClockApart, // the sender's clock between a re-send and its original
}

/// One ACK of the peer, in this side's relative sequence space.
pub struct PeerAck<'a> {
    pub t_ns: i64,
    pub ack: i64,
    /// SACK blocks in the order the option lists them (RFC 2018).
    pub sack: &'a [(i64, i64)],
    /// A SACK option was present but the capture cut it short: blocks unknown.
    pub sack_unreadable: bool,
    pub tsecr: Option<u32>,
    /// A duplicate ACK by Wireshark's rules (same ACK, window, no data).
    pub duplicate: bool,
}

impl RetransKinds {
    /// The handshake completed after this tracker was made (its side's SYN carried
    /// data): SACK per the handshake, unless already known.
    pub fn learn_sack(&mut self, sack_permitted: Option<bool>) {
        self.sack_negotiated = self.sack_negotiated.or(sack_permitted);
    }

    /// A tracker for a side about to send its first data; `feedback_t_ns`: when the
    /// peer last acknowledged something (its SYN/ACK or ACK), if it did.
    /// `sack_permitted`: whether the handshake negotiated SACK (None: not captured; then
    /// the first SACK option seen tells).
    pub fn new(feedback_t_ns: Option<i64>, sack_permitted: Option<bool>) -> RetransKinds {
        let mut k = RetransKinds { sack_negotiated: sack_permitted, ..RetransKinds::default() };
        if let Some(t) = feedback_t_ns {
            k.recent[0] = t;
            k.recent_n = 1;
            k.feedback_seq = 1;
        }
        k
    }

    /// When this side last advanced SND.NXT (new data, a SYN or a FIN), called before each
    /// `on_retransmission` (None: unknown): a sender restarts its probe timer then
    /// (RFC 8985 §7.2).
    pub fn on_new_data(&mut self, t_ns: Option<i64>) {
        self.last_new_data_ns = t_ns.into();
    }

    /// The longest round trip measured for this side's data, ns (None: none): no
    /// smoothed RTT (RFC 6298 §2: a weighted mean of the samples) exceeds it, so it
    /// bounds the probe timeout (classify.rs `past_probe_timeout`).
    pub fn set_rtt_max(&mut self, rtt_max_ns: Option<i64>) {
        self.rtt_max_ns = rtt_max_ns.into();
    }

    /// The receiver's ACK `a` (for this side's data).
    pub fn on_peer_ack(&mut self, a: &PeerAck) {
        let advanced = self.una.get().or(self.sent_low.filter(|_| self.feedback_seq == 0)).map_or(true, |u| a.ack > u);
        let sack_right = a.sack.iter().map(|b| b.1).filter(|&r| r > a.ack).max();
        let new_sack = sack_right.is_some_and(|r| self.sack_high.get().map_or(true, |h| r > h));
        self.note_original_acked(a);
        self.sack_seen |= !a.sack.is_empty() || a.sack_unreadable;
        if advanced {
            self.dupacks = 0;
            self.resent_in_run = false;
            self.late_dupack_ns = OptNs::NONE;
            self.hole_reported = false;
        } else if a.duplicate {
            self.dupacks = self.dupacks.saturating_add(1);
        }
        // A duplicate ACK whose only news is a D-SACK (RFC 2883) reports a duplicate,
        // not a hole: no fast retransmission follows from it (RFC 6675 counts SACKed
        // bytes, not such ACKs; Linux's sacked_out does not grow).
        let only_dsack = dsack(a.ack, a.sack).is_some() && sack_right.is_none();
        self.hole_reported |= (a.duplicate && !only_dsack) || sack_right.is_some() || (a.sack_unreadable && a.sack.is_empty());
        // A SACK option the snaplen cut off: RFC 2018 §4 makes its first block the one
        // holding the segment that triggered the ACK, so it told the sender of data it
        // had not heard of (short of a D-SACK, which the capture cannot tell). Without
        // this, a receiver-side IPv6 capture at snaplen 96 hides all SACK feedback and
        // recovery retransmissions read as timeouts (rx-ipv6-loss.pcap).
        let cut_sack = a.sack_unreadable && a.sack.is_empty();
        // Without SACK only the duplicate ACKs up to the third clock a retransmission
        // (RFC 5681 §3.2 fast retransmit); later ones only let new data out (RFC 6582
        // §3.2 step 4) and do not restart the retransmission timer (RFC 6298 §5.3), so
        // a re-send after them, a round trip or more after the third, is the timer's.
        // Linux without SACK, 8 % loss, at the sender: a timeout and its 8 slow-start
        // re-sends were read as 9 fast retransmissions.
        let clocking_dupack = a.duplicate && a.sack.is_empty() && (self.sack_seen || self.dupacks <= NEWRENO_DUPTHRESH);
        // Until the run's first re-send, though, each later one may be the one: a sender
        // that has seen reordering waits for more than three (Linux raises its
        // threshold, tp->reordering, up to net.ipv4.tcp_max_reordering). Kept apart
        // (`Record::late_dupack_ago_us`): only at the sender does the capture see every
        // re-send of the run; past it the run's fast retransmission may have been lost
        // before the capture point, and the timeout after it would read as clocked.
        if a.duplicate && a.sack.is_empty() && !self.sack_seen && self.dupacks > NEWRENO_DUPTHRESH && !self.resent_in_run {
            self.late_dupack_ns = Some(a.t_ns).into();
        }
        if advanced || new_sack || cut_sack || clocking_dupack {
            if let Some(last) = self.records.last_mut() {
                last.feedback_after = last.feedback_after.saturating_add(1);
            }
            self.recent[(self.feedback_seq as usize) % FEEDBACK_KEPT] = a.t_ns;
            self.recent_n = (self.recent_n + 1).min(FEEDBACK_KEPT);
            self.feedback_seq += 1;
        }
        if new_sack {
            self.sack_high = sack_right.into();
        }
        if let Some(dup) = dsack(a.ack, a.sack) {
            self.on_dsack(dup, a.t_ns);
        }
        if advanced {
            let before = self.una;
            self.una = Some(a.ack).into();
            (self.una_before, self.una_since_ns) = (before, a.t_ns);
            self.eifel(a.ack, before.get(), a.tsecr, a.t_ns);
        }
    }

    /// F-RTO's evidence for the latest retransmission (see `Record::original_acked_at_ns`):
    /// bytes this ACK acknowledges, cumulatively or by SACK, above everything the
    /// receiver had acknowledged or SACKed before (so they were not SACKed already: a
    /// passive capture keeps no full scoreboard, so bytes between SND.UNA and the
    /// highest SACK edge are left out), and not all re-sent since (the retransmissions
    /// still outstanding cover them). The original transmission arrived.
    fn note_original_acked(&mut self, a: &PeerAck) {
        let Some(last) = self.records.last() else { return };
        // No feedback before it (a capture started mid-transfer): what the receiver
        // had acknowledged before is unknown, so nothing here is known to be new.
        if last.feedback_n == 0 || last.feedback_after >= 2 || last.original_acked_at_ns != i64::MAX {
            return;
        }
        // No ACK since the tracker began: SND.UNA is what it was at the retransmission.
        let una = self.una.get().unwrap_or(last.una);
        let edge = self.sack_high.get().map_or(una, |h| h.max(una));
        // Without SACK, a cumulative ACK that also covers a re-sent byte is no evidence:
        // the receiver may have had the originals only because the re-send filled the
        // hole below them (Linux tcp_clean_rtx_queue clears FLAG_ORIG_SACK_ACKED for a
        // non-SACK ACK that covers any retransmitted segment). A Reno download at 6 %
        // loss, captured at the sender: the ACK of a backoff timeout's re-send and of
        // 10 segments above it read as F-RTO's undo, and 45 of the kernel's
        // TCPSlowStartRetrans as fast retransmissions.
        let sack = self.sack_negotiated.unwrap_or(false) || self.sack_seen;
        let cumulative = (a.ack > edge && (sack || !self.overlaps_resent(edge, a.ack))).then_some((edge, a.ack));
        let sacked = a.sack.iter().filter(|b| b.1 > edge && b.1 > a.ack && b.0 < b.1).map(|b| (b.0.max(edge), b.1));
        let lowest_original = cumulative
            .into_iter()
            .chain(sacked)
            .filter(|&(lo, hi)| !self.resent(lo, hi))
            .map(|(lo, _)| lo)
            .min();
        let Some(lo) = lowest_original else { return };
        let last = self.records.last_mut().expect("checked above");
        if lo < last.high {
            last.original_acked_at_ns = a.t_ns;
            last.original_acked_lo = lo;
        }
    }

    /// The outstanding retransmissions, the newest `RESENT_SCAN` at most.
    fn outstanding_resends(&self) -> &[Record] {
        const RESENT_SCAN: usize = 64;
        &self.records[self.unacked_from.max(self.records.len().saturating_sub(RESENT_SCAN))..]
    }

    /// Whether any outstanding retransmission re-sent a byte of [lo, hi).
    fn overlaps_resent(&self, lo: i64, hi: i64) -> bool {
        self.outstanding_resends().iter().any(|r| r.seq < hi && r.end > lo)
    }

    /// Whether the outstanding retransmissions cover every byte of [lo, hi).
    fn resent(&self, lo: i64, hi: i64) -> bool {
        let mut covering: Vec<(i64, i64)> = self.outstanding_resends().iter().filter(|r| r.seq < hi && r.end > lo).map(|r| (r.seq, r.end)).collect();
        covering.sort_unstable();
        let mut reached = lo;
        for (seq, end) in covering {
            if seq > reached {
                return false;
            }
            reached = reached.max(end);
            if reached >= hi {
                return true;
            }
        }
        reached >= hi
    }

    /// RFC 2883 §4: the duplicate bytes came from the most recent retransmission
    /// overlapping them — or, when that one is already known to be needless, from an
    /// earlier re-send of the same bytes in the same chain (same range and
    /// RetransmitTS, e.g. a probe before a timeout). Never an older, unrelated one, and
    /// one D-SACK block explains one duplicate: a re-send whose bytes the cumulative ACK
    /// covered before the latest was sent ended its chain (that ACK answered it, and the
    /// latest, re-sent after it, is the duplicate). Without timestamps every re-send has
    /// the same (absent) RetransmitTS: gmail.pcapng.cap's 5601 re-sent at 3.897 s (the
    /// ACK then jumped to 7001) and again after that ACK read as two needless, one D-SACK.
    fn on_dsack(&mut self, (l, r): (i64, i64), t_ns: i64) {
        // The block is the duplicate segment's bytes (RFC 2883 §4): first the re-send of exactly them, then one all of whose bytes lie in it (arp.pcapng: the probe f314, not the later partial copy f390; a copy also holding bytes the receiver lacked was needed, review AM Jahnavipohar08 #3).
        let (recent, n, rs) = (self.records.len().saturating_sub(SCAN), self.records.len(), &self.records);
        let Some(last) = (recent..n).rev().find(|&i| rs[i].seq == l && rs[i].end == r).or_else(|| (recent..n).rev().find(|&i| rs[i].seq >= l && rs[i].end <= r)).or_else(|| (recent..n).rev().find(|&i| rs[i].seq < r && rs[i].end > l)) else {
            return;
        };
        let head = self.records[last];
        let same_chain = |x: &Record| x.seq == head.seq && x.end == head.end && x.retransmit_ts() == head.retransmit_ts() && x.end > head.una;
        if let Some(rec) = self.records[recent..=last].iter_mut().rev().take_while(|x| same_chain(x)).find(|x| !x.spurious) {
            rec.spurious = true;
            rec.spurious_at_ns = t_ns;
        }
    }

    /// RFC 3522 §3.2 (Eifel detection): the first ACK acknowledging a retransmitted
    /// segment echoes a timestamp older than its first retransmission: it was sent
    /// for the original.
    ///
    /// Only when that ACK acknowledges nothing before the segment (`una_before` had
    /// reached it): an ACK that also covers earlier unacknowledged data echoes the
    /// earliest of those segments (RFC 7323 §4.3: TS.Recent moves only with a segment
    /// at Last.ACK.sent, so a delayed ACK echoes its first segment), older than the
    /// retransmission whether or not the original arrived. Linux request/response at
    /// 3 % loss: 3 tail loss probes that repaired a lost tail (the kernel's
    /// TCPLossProbeRecovery; no D-SACK) were called spurious, because the ACK they
    /// triggered also covered the segment before, whose ACK the receiver had delayed.
    fn eifel(&mut self, ack: i64, una_before: Option<i64>, tsecr: Option<u32>, t_ns: i64) {
        let from = self.unacked_from;
        let older = |rts: Option<u32>| match (tsecr, rts) {
            // Wrap-aware "echo < RetransmitTS" (RFC 7323 §5.2 PAWS arithmetic).
            (Some(echo), Some(rts)) => (echo.wrapping_sub(rts) as i32) < 0,
            _ => false,
        };
        // The timer episodes (records with no feedback between them: a probe and the
        // timeouts after it) this ACK shows needless through a segment it acknowledges
        // alone. The sender undoes such an episode as a whole (Linux compares the echo
        // with the episode's first retransmission, tcp_packet_delayed), so its probe of
        // the tail, which the same ACK covers together with the head, was needless too.
        let mut shown_episode: Option<u32> = None;
        // Bounded: records past the first unacknowledged one are looked at
        // `SCAN` deep (a record the ACKs never cover must not make this quadratic).
        for rec in self.records[from..].iter().take(SCAN) {
            // No ACK of this side's data since the tracker began: SND.UNA is still
            // what it was when the segment was re-sent.
            let alone = una_before.unwrap_or(rec.una) >= rec.seq;
            if rec.end <= ack && !rec.checked && alone && older(rec.retransmit_ts()) {
                shown_episode = Some(rec.feedback_seq);
            }
        }
        let mut all_acked = true;
        for rec in self.records[from..].iter_mut().take(SCAN) {
            if rec.end > ack {
                all_acked = false;
                continue;
            }
            if !rec.checked {
                rec.checked = true;
                let alone = una_before.unwrap_or(rec.una) >= rec.seq;
                if (alone || shown_episode == Some(rec.feedback_seq)) && older(rec.retransmit_ts()) {
                    rec.spurious = true;
                    rec.spurious_at_ns = t_ns;
                }
            }
            if all_acked {
                self.unacked_from += 1;
            }
        }
    }

    /// A retransmitted segment [seq, end) of this side. `high`: SND.NXT before it;
    /// `una`: the peer's highest cumulative ACK so far; `row`: its store row.
    #[allow(clippy::too_many_arguments)] // one argument per fact of the segment
    /// `syn`: a SYN, which only its timer re-sends (a timeout, whatever the timing).
    pub fn on_retransmission(&mut self, row: Option<u32>, t_ns: i64, seq: i64, end: i64, high: i64, una: Option<i64>, tsval: Option<u32>, syn: bool) {
        let late_dupack_ago_us = match (self.resent_in_run, self.late_dupack_ns.get()) {
            (false, Some(t)) => u32::try_from(t_ns.saturating_sub(t).max(0) / 1000).unwrap_or(u32::MAX),
            _ => u32::MAX,
        };
        self.resent_in_run = true;
        if self.records.len() >= MAX_RECORDS {
            self.overflow += 1;
            return;
        }
        // The first retransmission of these bytes since they were last acknowledged
        // sets RetransmitTS; later ones (backoff) keep it.
        let earlier = self.records[self.unacked_from..].iter().rev().take(SCAN).find(|x| x.seq <= seq && x.end >= end && !x.checked);
        let retransmit_ts = earlier.map_or(tsval, |x| x.retransmit_ts());
        let mut feedback_ago_us = [0u32; FEEDBACK_KEPT];
        for (i, ago) in feedback_ago_us.iter_mut().enumerate().take(self.recent_n) {
            let slot = (self.feedback_seq as usize + FEEDBACK_KEPT - 1 - i) % FEEDBACK_KEPT;
            *ago = u32::try_from(t_ns.saturating_sub(self.recent[slot]).max(0) / 1000).unwrap_or(u32::MAX);
        }
        // Bytes the receiver had acknowledged before they were sent again: the
        // original arrived (Wireshark's tcp.analysis.spurious_retransmission; at a
        // receiver-side capture the ACK was still on its way to the sender).
        let acked_already = una.is_some_and(|u| u >= end);
        let new_data_ago = self.last_new_data_ns.get().map_or(u32::MAX, |tn| u32::try_from(t_ns.saturating_sub(tn).max(0) / 1000).unwrap_or(u32::MAX - 1));
        self.new_data_ago_us.push(new_data_ago);
        self.hole_reported_before.push(u8::from(self.hole_reported) | self.b2b.on_resend(tsval));
        self.records.push(Record {
            row: row.unwrap_or(u32::MAX),
            t_ns,
            feedback_ago_us,
            feedback_n: self.recent_n as u8,
            feedback_seq: self.feedback_seq as u32,
            seq,
            end,
            high,
            una: una.unwrap_or(seq),
            // The tracker's own history of the ACK the analyzer passes (they are the
            // same but for a connection without ACKs yet: then no history).
            una_advance: match (una, self.una_before.get()) {
                (Some(u), Some(b)) if una == self.una.get() => u32::try_from((u - b).max(0)).unwrap_or(u32::MAX),
                _ => 0,
            },
            una_advanced_ago_us: if una == self.una.get() { u32::try_from(t_ns.saturating_sub(self.una_since_ns).max(0) / 1000).unwrap_or(u32::MAX) } else { u32::MAX },
            retransmit_tsval: retransmit_ts.unwrap_or(0),
            retransmit_ts_known: retransmit_ts.is_some(),
            spurious: acked_already,
            spurious_at_ns: if acked_already { t_ns } else { i64::MAX },
            below_sack: self.sack_high.get().is_some_and(|h| h >= end),
            checked: false,
            syn,
            feedback_after: 0,
            original_acked_at_ns: i64::MAX,
            original_acked_lo: i64::MAX,
            dupacks_before: u8::try_from(self.dupacks).unwrap_or(u8::MAX),
            late_dupack_ago_us,
        });
    }
}

/// RFC 2883 §4: the first SACK block reports duplicate bytes (a D-SACK) when it lies
/// at or below the cumulative ACK, or inside the second block.
fn dsack(ack: i64, sack: &[(i64, i64)]) -> Option<(i64, i64)> {
    let &(l, r) = sack.first()?;
    let below = r <= ack;
    let inside = sack.get(1).is_some_and(|&(l2, r2)| l >= l2 && r <= r2);
    (l < r && (below || inside)).then_some((l, r))
}

#[cfg(test)]
#[path = "retrans_kinds_tests.rs"]
mod tests;
