//! Packets the capture itself dropped (docs/ANALYSIS.md "connection.captureLoss"):
//! bytes the receiver acknowledged that the capture never saw. Zeek's capture_loss
//! script is the model ("ACKed but unseen" content gaps); Wireshark flags the same
//! moment as "ACKed segment that wasn't captured".
//!
//! Why it is capture loss and not network loss: a hole in the captured sequence
//! space ("previous segment not captured") is either a segment lost before the
//! capture point — then the receiver cannot acknowledge it until its retransmission
//! arrives, and that retransmission passes the capture point and fills the hole
//! first — or a segment that went past without being recorded. So a hole the
//! receiver's cumulative ACK passes while still unfilled was delivered but not
//! captured. Such holes never count as retransmissions (nothing was re-sent) and
//! the diagnosis does not take them for loss (the segment after one carries
//! `flag_bits::CAPTURE_LOSS`).

use serde::Serialize;

/// Holes remembered per direction at most (the oldest is forgotten first).
pub const MAX_GAPS: usize = 64;

/// RFC 7323 §2.3: the largest window a receiver can offer, 2^30 bytes (65,535 shifted
/// by the largest scale, 14); without scaling (RFC 9293 §3.1), 65,535.
pub const MAX_WINDOW: i64 = 1 << 30;

/// The ACK `ack` acknowledges bytes its peer cannot have sent: more than the largest
/// window the ACK's sender could have offered past `seen_next`, the end of everything
/// the capture saw the peer send (`shift`: the ACK sender's window scale, None when
/// not known: then [`MAX_WINDOW`]). A sender sends nothing beyond the window its
/// receiver offered (RFC 9293 §3.8.6), and a receiver drops an ACK of something not
/// yet sent (RFC 9293 §3.10.7.4, "SEG.ACK > SND.NXT"): such an ACK is a corrupted or
/// fuzzed number, or another incarnation's, and no evidence of data the capture
/// missed (nDPI fuzz-2006-09-29-28586 connection 4: a handshake ACK 436 MB past the
/// SYN/ACK, no scaling, read as "416 MiB never captured"). Where the capture did miss
/// several windows of both sides, the peer's next captured segment opens a hole its
/// receiver's next ACK passes, and that counts it (`Holes::on_segment`).
pub fn acks_unsent(ack: i64, seen_next: i64, shift: Option<u8>) -> bool {
    let largest = shift.map_or(MAX_WINDOW, |s| 65_535i64 << s.min(14));
    ack - seen_next > largest
}

/// A range of sequence space [start, end) never captured, the store row of the
/// segment that revealed it (u32::MAX: not stored) and when that segment was
/// captured (ns since the first packet of the file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap {
    pub start: i64,
    pub end: i64,
    pub row: u32,
    pub opened_ns: i64,
    /// Already counted in `CaptureLoss::holes` (a hole acknowledged in parts is one).
    pub counted: bool,
    /// Some of its bytes came in a retransmission (`Holes::on_segment`'s `resent`).
    pub resent: bool,
    /// When the receiver's first ACK captured after it opened (`Holes::on_report`)
    /// passed the capture: the earliest news of the hole the sender could act on.
    pub reported_ns: Option<i64>,
}

/// `connection.captureLoss`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CaptureLoss {
    /// Estimated segments: each hole's bytes over the largest payload seen from that
    /// side until then, rounded up.
    pub unseen_segments: u64,
    pub unseen_bytes: u64,
    /// Holes: runs of sequence space never captured that the receiver acknowledged,
    /// each counted once however many segments it held or ACKs passed it (the
    /// estimated segments around a hole are not holes: a GRO receiver's ACK may pass
    /// a hole of one segment whose neighbours the capture saw).
    pub holes: u64,
    /// Segments the capture first saw after the receiver had acknowledged them, each
    /// numbered as its sender's next datagram: originals seen late, not re-sends
    /// (track/conn/late_sighting.rs). Told by the `capture-loss` warning, not a key.
    #[serde(skip)]
    pub late_sightings: u64,
}

/// What the capture missed of one side's data: THE definition both readers use
/// (docs/ANALYSIS.md "Bytes the capture missed of a side"): the capture-loss count
/// (`connection.captureLoss`, the part the receiver acknowledged) and the
/// `capture-gaps` sentence (verdict/blind_capture.rs, which adds the runs a later
/// captured segment of the side proves sent though no acknowledgement of them was
/// captured). Counted by [`Holes::missed`]; not in the JSON (`DirectionSummary::missed`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Missed {
    /// Bytes of the side's sequence space never captured: acknowledged ones and holes
    /// still open at the end (a later captured segment of the side starts beyond them).
    pub bytes: u64,
    /// Maximal runs of them (a run acknowledged in parts, or acknowledged past the
    /// captured data and then followed by the data after it, is one).
    pub holes: u64,
}

/// A segment the capture saw only after the receiver's ACK of it
/// (track/conn/loss.rs `Conn::hold_late_copy`), held as the original until the receiver shows it got a
/// second copy (`Conn::settle_late_copy`).
#[derive(Debug)]
pub struct LateCopy {
    pub(crate) row: Option<u32>,
    pub(crate) t_ns: i64,
    pub(crate) seq: i64,
    pub(crate) end: i64,
    /// The retransmission flags Wireshark's rules gave it, put back on confirmation.
    pub(crate) bits: u32,
    pub(crate) una: Option<i64>,
    pub(crate) tsval: Option<u32>,
    /// The capture loss its ACK had counted for its bytes (capture_loss.rs).
    pub(crate) uncounted: Uncounted,
}

/// What `Holes::uncount_first_copy` took back of the capture-loss counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uncounted {
    bytes: u64,
    segments: u64,
    hole: bool,
    counted_high: i64,
}

/// Per direction: the holes in what the capture saw of this side's data. Boxed by
/// the analyzer and made only when a hole appears (most connections never have one).
#[derive(Debug, Default)]
pub struct Holes {
    pub gaps: Vec<Gap>,
    /// Highest acknowledged byte already counted as unseen beyond the captured data.
    counted_high: Option<i64>,
    pub loss: CaptureLoss,
    /// A segment first captured just after the receiver's ACK of it, held as the
    /// original until the receiver's next segment tells (track/conn/loss.rs).
    pub late_copy: Option<LateCopy>,
    /// Bytes below this were acknowledged at the capture's start in answer to a
    /// keep-alive (RFC 9293 §3.8.4: SEG.SEQ = SND.NXT − 1, so its ACK is one above what
    /// the capture saw): sent before the capture began, never a hole
    /// ([`Holes::sent_before_capture`]).
    before_capture: Option<i64>,
}

impl Holes {
    /// What the capture missed of this side ([`Missed`]): the acknowledged-unseen count
    /// plus the holes still open (a segment beyond each was captured; no capture of
    /// them, and no captured acknowledgement, came).
    pub fn missed(&self) -> Missed {
        let open = self.gaps.iter().map(|g| (g.end - g.start).max(0) as u64).sum::<u64>();
        let new_runs = self.gaps.iter().filter(|g| !g.counted && g.end > g.start).count() as u64;
        Missed { bytes: self.loss.unseen_bytes + open, holes: self.loss.holes + new_runs }
    }

    /// When the oldest hole [a, b) would fill opened (`Gap::opened_ns`), if it fills any:
    /// what tells a re-send from an original overtaken on the way (track/conn/loss.rs
    /// `reclassify_out_of_order`), asked before `on_segment` fills it.
    pub fn oldest_filled(&self, a: i64, b: i64) -> Option<i64> {
        self.gaps.iter().filter(|g| a < g.end && b > g.start).map(|g| g.opened_ns).min()
    }

    /// When the receiver first reported the oldest hole [a, b) would fill
    /// (`Gap::reported_ns`): None when it fills none or no ACK came since it opened.
    pub fn first_report(&self, a: i64, b: i64) -> Option<i64> {
        let oldest = self.gaps.iter().filter(|g| a < g.end && b > g.start).min_by_key(|g| g.opened_ns)?;
        oldest.reported_ns
    }

    /// The receiver's ACK `ack` captured at `t_ns`: every hole still open at or above
    /// its cumulative ACK is now reported to the sender. A receiver answers a segment
    /// beyond a hole at once with a duplicate ACK (RFC 5681 §4.2; RFC 9293 §3.10.7.4),
    /// with SACK blocks naming what it holds (RFC 2018), so this is the first ACK a
    /// fast retransmission (RFC 5681 §3.2, RFC 6675 §5) or RACK (RFC 8985 §6.2) can
    /// answer.
    pub fn on_report(&mut self, ack: i64, t_ns: i64) {
        for g in self.gaps.iter_mut().filter(|g| g.reported_ns.is_none() && g.start >= ack && t_ns >= g.opened_ns) {
            g.reported_ns = Some(t_ns);
        }
    }

    /// A segment of this side [a, b) captured at `t_ns` after the capture had seen up
    /// to `prev` (a hole [prev, a) when prev < a), a retransmission when `resent`.
    /// Returns how many holes it closed that no retransmission had filled any of:
    /// every byte of them came late in originals overtaken on the way (reordering,
    /// docs/ANALYSIS.md `direction.lostSegments`).
    /// `mark(row)` is called when the hole before it was already counted as unseen.
    pub fn on_segment(&mut self, prev: Option<i64>, a: i64, b: i64, row: Option<u32>, t_ns: i64, resent: bool, mut mark: impl FnMut(u32)) -> u32 {
        // Bytes a keep-alive's answer showed sent before the capture open no hole.
        let prev = prev.map(|p| self.before_capture.map_or(p, |k| p.max(k)));
        // Bytes already counted as acknowledged beyond everything captured are no
        // new hole when the data after them arrives: this segment follows capture loss.
        if let (Some(p), Some(c)) = (prev, self.counted_high) {
            if p < a && c > p {
                if let Some(r) = row {
                    mark(r);
                }
            }
        }
        // A hole that starts where the bytes already counted beyond the captured data
        // end continues that run: one hole, not two (`CaptureLoss::holes`).
        let continues = matches!((prev, self.counted_high), (Some(p), Some(c)) if c > p);
        let prev = prev.map(|p| self.counted_high.map_or(p, |c| p.max(c)));
        if let Some(p) = prev.filter(|&p| p < a) {
            if self.gaps.len() == MAX_GAPS {
                self.gaps.remove(0);
            }
            self.gaps.push(Gap { start: p, end: a, row: row.unwrap_or(u32::MAX), opened_ns: t_ns, counted: continues, resent: false, reported_ns: None });
        }
        if b > a {
            self.fill(a, b, resent)
        } else {
            0
        }
    }

    /// Removes [a, b) from the holes; returns how many it closed with no byte of them
    /// re-sent (`on_segment`).
    fn fill(&mut self, a: i64, b: i64, resent: bool) -> u32 {
        let mut reordered = 0;
        let mut i = 0;
        while i < self.gaps.len() {
            let mut g = self.gaps[i];
            if a < g.end && b > g.start {
                g.resent |= resent;
                self.gaps[i].resent = g.resent;
                match (a > g.start, b < g.end) {
                    (true, true) => {
                        self.gaps[i].end = a;
                        self.gaps.insert(i + 1, Gap { start: b, ..g });
                        i += 2;
                        continue;
                    }
                    (true, false) => self.gaps[i].end = a,
                    (false, true) => self.gaps[i].start = b,
                    (false, false) => {
                        self.gaps.remove(i);
                        // One hole filled in the middle first is two pieces: it was
                        // reordering only if neither piece was re-sent.
                        let mut pieces = self.gaps.iter_mut().filter(|o| o.opened_ns == g.opened_ns && o.row == g.row).peekable();
                        if pieces.peek().is_none() {
                            reordered += u32::from(!g.resent);
                        }
                        pieces.for_each(|o| o.resent |= g.resent);
                        continue;
                    }
                }
            }
            i += 1;
        }
        reordered
    }

    /// The receiver's cumulative ACK `ack` for this side's data; `seen_next`: the end
    /// of what the capture has seen of it (SYN/FIN included). Bytes below the ACK
    /// that are still holes, or beyond everything seen, were delivered unseen.
    /// `segment`: the largest payload seen from this side, at least the receiver's
    /// announced MSS (the estimate's segment size); `mark(row)` is called for the segment that revealed each such hole.
    /// `reported(a, b)`: the receiver had reported [a, b) missing (reported.rs): then it
    /// was not delivered unseen but lost, and its re-send passed unseen — network loss,
    /// neither counted here nor marked.
    pub fn on_ack(&mut self, ack: i64, seen_next: i64, segment: u32, reported: &dyn Fn(i64, i64) -> bool, mut mark: impl FnMut(u32)) {
        let mut i = 0;
        while i < self.gaps.len() {
            let g = self.gaps[i];
            if g.start >= ack {
                i += 1;
                continue;
            }
            if reported(g.start, g.end.min(ack)) {
                if g.end <= ack {
                    self.gaps.remove(i);
                } else {
                    self.gaps[i].start = ack;
                    i += 1;
                }
                continue;
            }
            self.count(g.end.min(ack) - g.start, segment);
            if !g.counted {
                self.loss.holes += 1;
            }
            if g.row != u32::MAX {
                mark(g.row);
            }
            if g.end <= ack {
                self.gaps.remove(i);
            } else {
                self.gaps[i].start = ack;
                self.gaps[i].counted = true;
                i += 1;
            }
        }
        let seen_next = self.before_capture.map_or(seen_next, |k| k.max(seen_next));
        let from = self.counted_high.map_or(seen_next, |c| c.max(seen_next));
        if ack > from && reported(from, ack) {
            self.counted_high = Some(ack);
        } else if ack > from {
            // A new run beyond everything captured, or more of the one already counted.
            if self.counted_high.is_none_or(|c| c < seen_next) {
                self.loss.holes += 1;
            }
            self.count(ack - from, segment);
            self.counted_high = Some(ack);
        }
    }

    /// The first copy the capture saw of [a, b) arrives just after the receiver's ACK of
    /// it had been counted as bytes delivered unseen beyond everything captured (`on_ack`):
    /// takes that count back, for `recount` should the copy prove a re-send after all
    /// (track/conn/loss.rs `LateCopy`). None unless [a, b) starts where the counted run
    /// begins (nothing captured between) and lies within it.
    pub fn uncount_first_copy(&mut self, a: i64, b: i64, segment: u32) -> Option<Uncounted> {
        let high = self.counted_high?;
        if b > high || b <= a {
            return None;
        }
        let bytes = (b - a) as u64;
        let segments = bytes.div_ceil(u64::from(segment.max(1)));
        // The copy brings the whole run: no hole is left of it.
        let whole = b == high;
        let taken = Uncounted { bytes: bytes.min(self.loss.unseen_bytes), segments: segments.min(self.loss.unseen_segments), hole: whole && self.loss.holes > 0, counted_high: high };
        self.loss.unseen_bytes -= taken.bytes;
        self.loss.unseen_segments -= taken.segments;
        self.loss.holes -= u64::from(taken.hole);
        if whole {
            self.counted_high = None;
        }
        Some(taken)
    }

    /// A connection picked up mid-stream whose first segment from this side was a
    /// keep-alive, answered by the receiver's ACK `ack` one above it (track/conn/acks.rs
    /// `keep_alive_answer`): the byte below `ack` was sent and acknowledged before the
    /// capture began, so this side's next segment at `ack` follows no hole (review Z
    /// class C-KEEPALIVE-AS-CAPTURE-HOLE: TaliaSeada Ex3_Networking `http.pcapng`,
    /// seven connections whose keep-alive pair was followed by a FIN or data at
    /// SND.NXT, each counted "1 hole (1 B)").
    pub fn sent_before_capture(&mut self, ack: i64) {
        self.before_capture = Some(self.before_capture.map_or(ack, |k| k.max(ack)));
    }

    /// Puts back what `uncount_first_copy` took.
    pub fn recount(&mut self, u: Uncounted) {
        self.loss.unseen_bytes += u.bytes;
        self.loss.unseen_segments += u.segments;
        self.loss.holes += u64::from(u.hole);
        self.counted_high = Some(self.counted_high.map_or(u.counted_high, |c| c.max(u.counted_high)));
    }

    fn count(&mut self, bytes: i64, segment: u32) {
        let bytes = bytes.max(0) as u64;
        let mss = u64::from(segment.max(1));
        self.loss.unseen_bytes += bytes;
        self.loss.unseen_segments += bytes.div_ceil(mss);
    }
}

#[cfg(test)]
#[path = "capture_loss_tests.rs"]
mod tests;
