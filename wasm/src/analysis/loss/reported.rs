//! Loss the receiver reported (docs/ANALYSIS.md "direction.lostAfterCapture"): data its
//! SACK blocks (RFC 2018) show missing, by RFC 6675's rule, and what the capture saw of
//! it and of its re-send.
//!
//! A receiver's SACK blocks name what arrived above its cumulative ACK; the bytes between
//! are missing at the receiver. RFC 6675 §4 `IsLost`: a byte is lost once more than
//! (DupThresh − 1) × SMSS bytes above it were SACKed, or DupThresh discontiguous SACKed
//! ranges (DupThresh = 3, RFC 5681's three duplicate ACKs). Then:
//! - where the capture had seen that data pass toward the receiver, it was lost after
//!   the capture point (between here and the receiver), not missed by the capture;
//! - where it had not (a hole in the captured data), it was lost before the capture
//!   point or missed by the capture and lost after it — lost either way, never "delivered
//!   but not captured" (capture_loss.rs's reading of a hole the ACK passes), so the
//!   segment after the hole does not get `CAPTURE_LOSS`;
//! - when the cumulative ACK later covers it with no re-send of it captured, at least a
//!   round trip after the report (the sender has to hear of the loss and its re-send to
//!   arrive), the re-send passed unseen (`unseenResends`), and the time until then was
//!   loss recovery the capture cannot show (stalls/reported_loss.rs); sooner, the
//!   original only came late (reordered after the capture point): no loss at all.
//!
//! Each range is counted when the ACK covers it, so a reordering is never counted.
//!
//! Bounded: at most [`MAX_RANGES`] SACKed and lost ranges and [`MAX_SPANS`] recovery
//! spans per direction; made at the first SACK block above the cumulative ACK.

/// RFC 6675 §2 DupThresh (RFC 5681 §3.2's three duplicate ACKs).
pub const DUP_THRESH: i64 = 3;
/// Ranges remembered at most (each list); the oldest is forgotten first.
pub const MAX_RANGES: usize = 64;
/// Recovery spans remembered at most.
pub const MAX_SPANS: usize = 256;

/// A range the receiver reported lost, not yet acknowledged.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Lost {
    start: i64,
    end: i64,
    /// The capture had seen this data pass toward the receiver.
    seen: bool,
    /// A copy of it was captured after its first (a re-send).
    resend_seen: bool,
    /// When the receiver first reported it lost, ns.
    reported_ns: i64,
    /// The recovery span it belongs to (index into `spans`, or the open one).
    span: usize,
}

/// One recovery the receiver's reports opened: from the ACK that first reported a loss
/// to the ACK that covered everything sent then (RFC 6582's "recover"), ns; and whether a
/// range of it was acknowledged with no re-send captured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recovery {
    pub start_ns: i64,
    pub end_ns: Option<i64>,
    pub recover: i64,
    pub unseen_resend: bool,
}

/// What one direction's receiver reported lost (`DirectionSummary::lost_after_capture`,
/// `unseen_resends`), in segments of the sender's SMSS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReportedCounts {
    pub lost_after_capture: u64,
    pub unseen_resends: u64,
}

#[derive(Debug, Default)]
pub struct ReportedLoss {
    /// The scoreboard: SACKed ranges above the cumulative ACK, sorted, merged.
    sacked: Vec<(i64, i64)>,
    lost: Vec<Lost>,
    spans: Vec<Recovery>,
    pub counts: ReportedCounts,
}

impl ReportedLoss {
    /// The receiver's ACK at `t_ns`: cumulative `ack`, SACK `blocks` (any order; those
    /// at or below the ACK are D-SACK and ignored). `sent_high`: the highest sequence
    /// the sender was seen to send; `never_captured(a, b)`: the parts of [a, b) the
    /// capture never saw (capture_loss.rs holes); `smss`: the sender's segment size.
    /// `resent(a, b)`: whether a copy of part of [a, b) was captured after its first
    /// (the sender re-sent it before this report, on its own evidence: RACK, RFC 8985).
    /// `rtt_ns`: the path's round trip so far (None: not known yet).
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(&mut self, t_ns: i64, ack: i64, blocks: &[(i64, i64)], sent_high: i64, smss: u32, rtt_ns: Option<i64>, never_captured: &dyn Fn(i64, i64) -> Vec<(i64, i64)>, resent: &dyn Fn(i64, i64) -> bool) {
        let smss = i64::from(smss.max(1));
        self.acknowledge(t_ns, ack, smss, sent_high, rtt_ns.unwrap_or(0));
        for &(l, r) in blocks {
            if r > ack && r > l {
                self.add_sacked(l.max(ack), r);
            }
        }
        let Some(&(_, top)) = self.sacked.last() else { return };
        // Un-SACKed intervals below the top, from the highest down, with the SACKed
        // bytes and ranges above each.
        let (mut above_bytes, mut above_ranges) = (0i64, 0i64);
        let mut upper = top;
        let mut found = Vec::new();
        for k in (0..self.sacked.len()).rev() {
            let (l, r) = self.sacked[k];
            if r < upper {
                found.push((r, upper, above_bytes, above_ranges));
            }
            above_bytes += r - l;
            above_ranges += 1;
            upper = l;
        }
        if upper > ack {
            found.push((ack, upper, above_bytes, above_ranges));
        }
        for (a, b, bytes, ranges) in found {
            if bytes > (DUP_THRESH - 1) * smss || ranges >= DUP_THRESH {
                self.report(t_ns, a, b, sent_high.max(top), smss, never_captured, resent);
            }
        }
    }

    /// A re-send of [a, b) the capture saw.
    pub fn on_resend(&mut self, a: i64, b: i64) {
        for l in self.lost.iter_mut().filter(|l| l.start < b && a < l.end) {
            l.resend_seen = true;
        }
    }

    /// Recovery spans, oldest first (an open one has no end).
    pub fn finish(self) -> (ReportedCounts, Vec<Recovery>) {
        (self.counts, self.spans)
    }

    fn add_sacked(&mut self, l: i64, r: i64) {
        let (mut l, mut r) = (l, r);
        self.sacked.retain(|&(a, b)| {
            let overlaps = a <= r && l <= b;
            if overlaps {
                l = l.min(a);
                r = r.max(b);
            }
            !overlaps
        });
        let at = self.sacked.partition_point(|&(a, _)| a < l);
        self.sacked.insert(at, (l, r));
        if self.sacked.len() > MAX_RANGES {
            self.sacked.remove(0);
        }
    }

    /// The cumulative ACK reached `ack`: what it covers leaves the scoreboard; a lost
    /// range it covers with no re-send captured was re-sent unseen; a recovery whose
    /// point it reached ends.
    fn acknowledge(&mut self, t_ns: i64, ack: i64, smss: i64, sent_high: i64, rtt_ns: i64) {
        self.sacked.retain(|&(_, r)| r > ack);
        if let Some(first) = self.sacked.first_mut() {
            first.0 = first.0.max(ack);
        }
        let mut i = 0;
        while i < self.lost.len() {
            let l = self.lost[i];
            if l.start >= ack {
                i += 1;
                continue;
            }
            let covered = ((l.end.min(ack) - l.start) as u64).div_ceil(smss as u64);
            // Repaired by a re-send the capture saw, or by one it did not see (a round
            // trip after the report at least); else the original came late.
            let unseen = !l.resend_seen && t_ns - l.reported_ns >= rtt_ns;
            if l.resend_seen || unseen {
                if l.seen {
                    self.counts.lost_after_capture += covered;
                }
            }
            if unseen {
                self.counts.unseen_resends += covered;
                if let Some(s) = self.spans.get_mut(l.span) {
                    s.unseen_resend = true;
                }
            }
            if l.end <= ack {
                self.lost.remove(i);
            } else {
                self.lost[i].start = ack;
                i += 1;
            }
        }
        if let Some(open) = self.spans.last_mut().filter(|s| s.end_ns.is_none() && ack >= s.recover) {
            open.end_ns = Some(t_ns);
            // Losses reported during it and still unrepaired begin the next recovery
            // at once (RFC 6675 §5: a loss found after the recovery point is a new
            // recovery).
            if !self.lost.is_empty() && self.spans.len() < MAX_SPANS {
                let recover = self.sacked.last().map_or(sent_high, |&(_, r)| r.max(sent_high));
                self.spans.push(Recovery { start_ns: t_ns, end_ns: None, recover, unseen_resend: false });
                let span = self.spans.len() - 1;
                for l in &mut self.lost {
                    l.span = span;
                }
            }
        }
    }

    /// [a, b) reported lost at `t_ns`: the parts not already reported are recorded, by
    /// whether the capture had seen them, in the open recovery or a new one.
    #[allow(clippy::too_many_arguments)]
    fn report(&mut self, t_ns: i64, a: i64, b: i64, recover: i64, _smss: i64, never_captured: &dyn Fn(i64, i64) -> Vec<(i64, i64)>, resent: &dyn Fn(i64, i64) -> bool) {
        // A full list takes no more: the counts stay lower bounds, each byte counted once.
        if self.lost.len() >= MAX_RANGES {
            return;
        }
        let mut fresh = vec![(a, b)];
        for l in &self.lost {
            fresh = fresh.into_iter().flat_map(|(x, y)| minus((x, y), (l.start, l.end))).collect();
        }
        if fresh.is_empty() {
            return;
        }
        let span = match self.spans.last() {
            Some(s) if s.end_ns.is_none() => self.spans.len() - 1,
            _ if self.spans.len() < MAX_SPANS => {
                self.spans.push(Recovery { start_ns: t_ns, end_ns: None, recover, unseen_resend: false });
                self.spans.len() - 1
            }
            _ => usize::MAX,
        };
        for (x, y) in fresh {
            let unseen = never_captured(x, y);
            let mut seen = vec![(x, y)];
            for &u in &unseen {
                seen = seen.into_iter().flat_map(|s| minus(s, u)).collect();
            }
            for &(p, q) in &seen {
                self.push_lost(Lost { start: p, end: q, seen: true, resend_seen: resent(p, q), reported_ns: t_ns, span });
            }
            for &(p, q) in &unseen {
                self.push_lost(Lost { start: p, end: q, seen: false, resend_seen: resent(p, q), reported_ns: t_ns, span });
            }
        }
    }

    fn push_lost(&mut self, l: Lost) {
        if self.lost.len() < MAX_RANGES {
            self.lost.push(l);
        }
    }

    /// Bytes of [lo, hi) the receiver's SACK blocks reported received above its
    /// cumulative ACK, as the scoreboard stands (RFC 2018 §3: they reached it; at most
    /// [`MAX_RANGES`] ranges are kept, so a lower bound): track/ending.rs splits the
    /// bytes never acknowledged by them.
    pub fn sacked_between(&self, lo: i64, hi: i64) -> u64 {
        self.sacked.iter().map(|&(a, b)| (b.min(hi) - a.max(lo)).max(0) as u64).sum()
    }

    /// Whether the receiver reported [a, b) lost while it was never captured, and an
    /// ACK at `t_ns` that covers it comes at least `rtt_ns` later (a re-send's round
    /// trip; sooner, the original was only late): a hole that is network loss, not
    /// capture loss (capture_loss.rs).
    pub fn reported_unseen(&self, a: i64, b: i64, t_ns: i64, rtt_ns: i64) -> bool {
        self.lost.iter().any(|l| !l.seen && l.start < b && a < l.end && t_ns - l.reported_ns >= rtt_ns)
    }
}

/// [x, y) less [a, b): up to two pieces.
fn minus((x, y): (i64, i64), (a, b): (i64, i64)) -> Vec<(i64, i64)> {
    if b <= x || a >= y {
        return vec![(x, y)];
    }
    let mut out = Vec::new();
    if a > x {
        out.push((x, a));
    }
    if b < y {
        out.push((b, y));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: i64, _: i64) -> Vec<(i64, i64)> {
        Vec::new()
    }

    fn no(_: i64, _: i64) -> bool {
        false
    }

    #[test]
    fn seen_data_the_receiver_sacks_around_was_lost_after_the_capture_point() {
        // Segments of 1000 B, all captured; the receiver ACKs 1000 and SACKs
        // 2000–5000: 1000–2000 has 3000 B (> 2 × 1000) SACKed above it: lost after the
        // capture point. Then the ACK covers it with no re-send seen: re-sent unseen.
        // Round trip 5 ns; the ACK 10 ns after the report.
        let mut r = ReportedLoss::default();
        r.on_ack(10, 1000, &[(2000, 5000)], 5000, 1000, Some(5), &none, &no);
        assert_eq!(r.counts, ReportedCounts::default(), "counted once acknowledged");
        r.on_ack(20, 5000, &[], 5000, 1000, Some(5), &none, &no);
        let (counts, spans) = r.finish();
        assert_eq!(counts, ReportedCounts { lost_after_capture: 1, unseen_resends: 1 });
        assert_eq!(spans, vec![Recovery { start_ns: 10, end_ns: Some(20), recover: 5000, unseen_resend: true }]);
        // The same ACK sooner than a round trip after the report: the original was only
        // late (reordered after the capture point), no loss.
        let mut r = ReportedLoss::default();
        r.on_ack(10, 1000, &[(2000, 5000)], 5000, 1000, Some(50), &none, &no);
        r.on_ack(20, 5000, &[], 5000, 1000, Some(50), &none, &no);
        assert_eq!(r.finish().0, ReportedCounts::default());
    }

    #[test]
    fn two_segments_sacked_above_are_not_yet_a_loss() {
        // RFC 6675 IsLost: 2000 B above (not more than 2 × SMSS), 1 range: not lost
        // (reordering may still fill it).
        let mut r = ReportedLoss::default();
        r.on_ack(10, 1000, &[(2000, 4000)], 4000, 1000, Some(5), &none, &no);
        assert_eq!(r.counts, ReportedCounts::default());
        // A re-send captured after the report: not unseen.
        r.on_ack(20, 1000, &[(2000, 5000)], 5000, 1000, Some(5), &none, &no);
        r.on_resend(1000, 2000);
        r.on_ack(30, 5000, &[], 5000, 1000, Some(5), &none, &no);
        assert_eq!(r.finish().0, ReportedCounts { lost_after_capture: 1, unseen_resends: 0 });
    }

    #[test]
    fn a_hole_the_receiver_reported_missing_is_no_capture_loss() {
        let never = |a: i64, b: i64| if a < 2000 && b > 1000 { vec![(a.max(1000), b.min(2000))] } else { vec![] };
        let mut r = ReportedLoss::default();
        r.on_ack(10, 1000, &[(3000, 6000)], 6000, 1000, Some(5), &never, &no);
        assert!(r.reported_unseen(1000, 2000, 20, 5) && !r.reported_unseen(2000, 3000, 20, 5));
        assert!(!r.reported_unseen(1000, 2000, 12, 5), "sooner than a round trip: late, not lost");
        // 1000–2000 never captured, 2000–3000 captured: one lost after the capture point,
        // both re-sent unseen.
        r.on_ack(20, 6000, &[], 6000, 1000, Some(5), &never, &no);
        assert_eq!(r.finish().0, ReportedCounts { lost_after_capture: 1, unseen_resends: 2 });
    }
}
