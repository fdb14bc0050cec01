//! One retransmitted segment as the tracker keeps it (128 bytes: `record_size`), and
//! what its kept feedback times tell: SND.UNA and the quiet time as the sender knew
//! them, and whether feedback came between two re-sends.

use super::FEEDBACK_KEPT;

/// One retransmitted segment, as seen when it was captured.
#[derive(Clone, Copy, Debug)]
pub(super) struct Record {
    /// Row of the segment in the connection's store (u32::MAX: not stored).
    pub(super) row: u32,
    pub(super) t_ns: i64,
    /// How long before it (µs, saturating) the receiver's last `FEEDBACK_KEPT`
    /// feedback ACKs were captured, most recent first; `feedback_n` are valid.
    pub(super) feedback_ago_us: [u32; FEEDBACK_KEPT],
    pub(super) feedback_n: u8,
    /// Feedback events seen before it, modulo 2³² (two records with the same value had
    /// no feedback between them; records compared are at most `SCAN` apart).
    pub(super) feedback_seq: u32,
    pub(super) seq: i64,
    pub(super) end: i64,
    /// Highest byte sent before it (SND.NXT) and the cumulative ACK (SND.UNA).
    pub(super) high: i64,
    pub(super) una: i64,
    /// How far `una` last advanced (bytes, saturating) and how long before this
    /// segment the capture saw that advance (µs, saturating): `una_heard`.
    pub(super) una_advance: u32,
    pub(super) una_advanced_ago_us: u32,
    /// TSval of the first retransmission of this range (RFC 3522's RetransmitTS).
    pub(super) retransmit_tsval: u32,
    /// `retransmit_tsval` is set (an Option<u32> would take 8 bytes: `record_size`).
    pub(super) retransmit_ts_known: bool,
    pub(super) spurious: bool,
    /// When the capture saw the evidence that made it spurious (i64::MAX: none yet).
    pub(super) spurious_at_ns: i64,
    /// The receiver had reported (SACKed) data above it when it was sent: a hole.
    pub(super) below_sack: bool,
    /// The Eifel check was made (on the first ACK covering the segment).
    pub(super) checked: bool,
    /// A SYN (always a timeout: RFC 6298 §5.7).
    pub(super) syn: bool,
    /// Feedback ACKs captured after it, before the next retransmission (saturating).
    pub(super) feedback_after: u8,
    /// F-RTO's evidence (RFC 5682 §3, SACK-enhanced; Linux FLAG_ORIG_SACK_ACKED):
    /// when one of the first two feedback ACKs after it newly acknowledged (ACK or
    /// SACK) bytes that were never retransmitted and below this segment's SND.NXT,
    /// the capture time of that ACK (i64::MAX: none) and the lowest such byte.
    pub(super) original_acked_at_ns: i64,
    pub(super) original_acked_lo: i64,
    /// Duplicate ACKs for its SND.UNA before it (saturating): three or more and the
    /// sender was in fast recovery (RFC 5681 §3.2), even when the capture missed its
    /// fast retransmission (lost before a receiver-side capture point).
    pub(super) dupacks_before: u8,
    /// How long before it (µs) the run's latest duplicate ACK past the third came, when
    /// it is the run's first re-send (no SACK); u32::MAX: none. Feedback at the sender
    /// only (`quiet_ns`): a sender that raised its duplicate-ACK threshold.
    pub(super) late_dupack_ago_us: u32,
}

impl Record {
    /// TSval of the first retransmission of this range (RFC 3522's RetransmitTS).
    pub(super) fn retransmit_ts(&self) -> Option<u32> {
        self.retransmit_ts_known.then_some(self.retransmit_tsval)
    }

    /// SND.UNA as the sender knew it when it sent this segment: the cumulative ACK
    /// captured at least `lag_ns` before it. Past the sender (a receiver-side capture)
    /// the ACK that just advanced is still on its way for a sender lag: a go-back-N
    /// burst re-sent after a timeout without SACK arrives right behind the ACK that its
    /// first segment's repair let jump, and was sent in the timeout's loss state (Linux
    /// without SACK, 2 % loss, 50 ms path, at the client: 45 such re-sends read as fast
    /// retransmissions, where the kernel counted slow start). One step back only: the
    /// latest advance.
    pub(super) fn una_heard(&self, lag_ns: i64) -> i64 {
        if i64::from(self.una_advanced_ago_us) >= lag_ns.max(0) / 1000 {
            self.una
        } else {
            self.una - i64::from(self.una_advance)
        }
    }

    /// How long the sender had heard no feedback when it sent this segment: the
    /// last feedback captured at least `lag_ns` before it, minus the lag (the ACK
    /// needed the lag to reach the sender and the retransmission to come back).
    /// None: no feedback ever. When all kept feedback ACKs are within the lag, the
    /// receiver was sending feedback continuously: 0.
    /// `at_sender`: the capture was taken at this direction's sender (vantage.rs), where
    /// a run's late duplicate ACK counts too (`late_dupack_ago_us`). Not merely lag 0:
    /// the lag is 0 also where the vantage is unknown.
    pub(super) fn quiet_ns(&self, lag_ns: i64, at_sender: bool) -> Option<i64> {
        let late = (at_sender && self.late_dupack_ago_us != u32::MAX).then(|| i64::from(self.late_dupack_ago_us) * 1000);
        match (self.strict_quiet_ns(lag_ns), late) {
            (Some(q), Some(l)) => Some(q.min(l)),
            (q, l) => q.or(l),
        }
    }

    pub(super) fn strict_quiet_ns(&self, lag_ns: i64) -> Option<i64> {
        if self.feedback_n == 0 {
            return None;
        }
        let lag_us = lag_ns.max(0) / 1000;
        let kept = &self.feedback_ago_us[..self.feedback_n as usize];
        match kept.iter().find(|&&ago| ago as i64 >= lag_us) {
            Some(&ago) => Some((ago as i64 - lag_us) * 1000),
            None if kept.len() == FEEDBACK_KEPT => Some(0),
            None => None,
        }
    }
}

/// Whether the sender could have heard feedback between sending `a` and sending `b`
/// (`a` earlier): an ACK captured at least `lag_ns` before `b` and at most `lag_ns`
/// before `a` (see `Record::quiet_ns`). At the sender (lag 0) that is any feedback
/// captured between them. Away from it an ACK captured just before `b` was still on
/// its way when `b` left: a timeout's re-send and the few sent with it after an outage,
/// each captured just after an ACK of the one before at a receiver-side capture, are
/// one burst (rx-outage-in-recovery.pcap, 80 ms RTT: 5 timeouts and 508 slow-start
/// re-sends were read where the kernel counted 3 timeouts and none).
pub(super) fn heard_between(a: &Record, b: &Record, lag_ns: i64) -> bool {
    if lag_ns <= 0 {
        return a.feedback_seq != b.feedback_seq;
    }
    let (lag_us, span_us) = (lag_ns / 1000, b.t_ns.saturating_sub(a.t_ns).max(0) / 1000);
    // Captured in [a − lag, b − lag): "ago" (before b) in (lag, span + lag].
    let after_a = |ago: i64| ago > lag_us && ago <= span_us.saturating_add(lag_us);
    fn kept(r: &Record) -> impl Iterator<Item = i64> + '_ {
        r.feedback_ago_us[..r.feedback_n as usize].iter().map(|&x| x as i64)
    }
    kept(b).any(after_a)
        // Kept by `a` (before it): captured in [a − lag, a) and before b − lag.
        || kept(a).any(|ago| ago <= lag_us && ago.saturating_add(span_us) > lag_us)
        // More feedback between them than `b` keeps: the older ones were before b − lag.
        // (Counts modulo 2³², `Record::feedback_seq`: a difference past 2³¹ is b before a.)
        || (FEEDBACK_KEPT as u32 + 1..1 << 31).contains(&b.feedback_seq.wrapping_sub(a.feedback_seq))
}

#[cfg(test)]
#[test]
fn record_size() {
    // MAX_RECORDS × this bounds the tracker's memory per direction (128 MiB).
    assert_eq!(std::mem::size_of::<Record>(), 128);
}
