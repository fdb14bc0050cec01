//! The connection's stalls counted once each (docs/ANALYSIS.md `twin.distinctStalls`).
//!
//! Each capture's report lists the gaps it saw (analysis/stalls); a pause that both
//! captures saw is in both lists, one path's delay apart. The merged view counts it once:
//! a stall of one capture is the same gap as a stall of the other when they are in the
//! same direction and, on the merged axis (clock.rs: the estimated offset, good to its
//! uncertainty), the one at the receiving end lies where the one at the sending end
//! does, one floor (the direction's fastest one-way delay) later. The evidence, strongest
//! first:
//! 1. `same-datagram` — the datagram that ended (or began) one gap is the one that ended
//!    (or began) the other: the merge matched it at both points (matching.rs);
//! 2. `same-sequence` — the datagrams that ended them carry the same sequence range, or,
//!    without payload, the same acknowledgment (a copy seen at one point only: a resend
//!    made below one capture, a copy lost between);
//! 3. `overlap` — neither: the two gaps overlap, on the merged axis, for at least half of
//!    the shorter one.
//!
//! The first two also need the gaps to overlap at all (a sequence number recurs after
//! 4 GiB; a datagram's match says nothing about a gap elsewhere). Each stall stands for
//! at most one distinct stall: pairs are taken strongest evidence first, then largest
//! overlap. A stall no other matches is a distinct stall of its own (`one-capture`).

use super::*;
use crate::twin::report::{DistinctStall, Word};

/// The ways two captures' stalls are tied into one (`DistinctStall::tied_by`).
pub const TIED_WORDS: [&str; 4] = ["same-datagram", "same-sequence", "overlap", "one-capture"];

/// One stall row, placed on the merged axis for matching.
struct Row {
    k: usize,
    side: usize,
    r: usize,
    /// Start and end on the merged axis, ns, the receiving end's moved one floor earlier.
    span: (f64, f64),
    before: Option<usize>,
    after: Option<usize>,
}

impl Ctx<'_> {
    /// The distinct stalls of a pair's placed `stalls` (every capture's rows, as
    /// `place_stalls` lists them), in time order (module doc).
    pub fn distinct_stalls(&self, stalls: &[PlacedStall]) -> Vec<DistinctStall> {
        let sender_side = 1 - self.clock.receiver;
        let rows: Vec<Row> = stalls
            .iter()
            .enumerate()
            .filter_map(|(k, s)| {
                let side = if s.capture == "sender-side" { sender_side } else { self.clock.receiver };
                let r = usize::from(s.direction);
                let at = s.at * 1e9;
                if !at.is_finite() {
                    return None;
                }
                let shift = if side == self.near[r] { 0.0 } else { self.floor[r] };
                let idx = |frame: u32| self.frames[side].get(&frame).map(|&i| i as usize);
                Some(Row { k, side, r, span: (at - shift, at - shift + s.duration * 1e9), before: idx(s.frame_before), after: idx(s.frame_after) })
            })
            .collect();
        // Both ends of the merged axis are good to the offset's uncertainty.
        let slack = self.clock.uncertainty;
        let mut candidates = Vec::new();
        for a in rows.iter().filter(|a| a.side == sender_side) {
            for b in rows.iter().filter(|b| b.side != sender_side && b.r == a.r) {
                let overlap = a.span.1.min(b.span.1) - a.span.0.max(b.span.0) + slack;
                if overlap <= 0.0 {
                    continue;
                }
                let shorter = (a.span.1 - a.span.0).min(b.span.1 - b.span.0);
                let rank = if self.same_datagram(a, b) {
                    0
                } else if self.same_sequence(a, b) {
                    1
                } else if overlap >= shorter / 2.0 {
                    2
                } else {
                    continue;
                };
                candidates.push((rank, overlap, a.k, b.k));
            }
        }
        candidates.sort_by(|x, y| x.0.cmp(&y.0).then(y.1.total_cmp(&x.1)));
        let mut taken = vec![false; stalls.len()];
        let mut out = Vec::new();
        for (rank, _, a, b) in candidates {
            if taken[a] || taken[b] {
                continue;
            }
            taken[a] = true;
            taken[b] = true;
            out.push(self.one_gap(stalls, &[a, b], TIED_WORDS[rank]));
        }
        for row in &rows {
            if !taken[row.k] {
                out.push(self.one_gap(stalls, &[row.k], TIED_WORDS[3]));
            }
        }
        self.fold_peer_waits(&mut out);
        out.sort_by(|a, b| a.at.total_cmp(&b.at));
        out
    }

    /// A host that took its time before answering a message stalls two directions:
    /// its answer (a gap in its sending host) and the peer's next message, which waits
    /// on that answer (turn-taking, placed in its receiving host: the same host). Such a
    /// pair is one pause: entry `a` (sender's host, direction r) and entry `b` (receiver's
    /// host, direction 1 − r) are tied when, at a capture that holds both gaps, the
    /// datagram that ended a's gap is the first data of direction r after the datagram
    /// that began b's gap (the message the answer answers) and before b's gap ended:
    /// the answer whose late start is a's stall is what b's requester waited for. `b` is
    /// folded into `a` (`peer_wait_frames`), each entry at most once, earliest first.
    fn fold_peer_waits(&self, out: &mut Vec<DistinctStall>) {
        let sender_side = 1 - self.clock.receiver;
        let side_of = |c: usize| if c == 0 { sender_side } else { self.clock.receiver };
        let idx = |side: usize, frame: u32| self.frames[side].get(&frame).map(|&i| i as usize);
        // The index at `to` of datagram i seen at `from`.
        let at_side = |from: usize, i: usize, to: usize| if from == to { Some(i) } else { self.partner(from, i) };
        let answers = |a: &DistinctStall, b: &DistinctStall| -> bool {
            let r = usize::from(a.direction);
            if a.place != Place::SenderHost || b.place != Place::ReceiverHost || usize::from(b.direction) != 1 - r {
                return false;
            }
            (0..2).any(|ca| {
                (0..2).any(|cb| {
                    let (Some(fa), Some(fb)) = (a.frames[ca], b.frames[cb]) else { return false };
                    let (sa, sb) = (side_of(ca), side_of(cb));
                    let (Some(end_a), Some(b0), Some(b1)) = (idx(sa, fa[1]), idx(sb, fb[0]), idx(sb, fb[1])) else { return false };
                    let Some(end_a) = at_side(sa, end_a, sb) else { return false };
                    let d = self.d[sb];
                    let first = (b0 + 1..b1).take(1_000_000).find(|&k| usize::from(d[k].dir()) == r && d[k].len > 0);
                    first == Some(end_a)
                })
            })
        };
        let mut folded = vec![false; out.len()];
        let mut order: Vec<usize> = (0..out.len()).collect();
        order.sort_by(|&x, &y| out[x].at.total_cmp(&out[y].at));
        for &a in &order {
            if folded[a] || out[a].peer_wait_frames.is_some() {
                continue;
            }
            if let Some(&b) = order.iter().find(|&&b| !folded[b] && b != a && out[b].peer_wait_frames.is_none() && answers(&out[a], &out[b])) {
                folded[b] = true;
                out[a].peer_wait_frames = Some(out[b].frames);
            }
        }
        let mut k = 0;
        out.retain(|_| {
            k += 1;
            !folded[k - 1]
        });
    }

    /// The datagram that ended (or began) one gap is the datagram that ended (began)
    /// the other, seen at both points.
    fn same_datagram(&self, a: &Row, b: &Row) -> bool {
        let same = |x: Option<usize>, y: Option<usize>| x.zip(y).is_some_and(|(x, y)| self.partner(a.side, x) == Some(y));
        same(a.after, b.after) || same(a.before, b.before)
    }

    /// The datagrams that ended the two gaps carry the same bytes (or, without payload,
    /// the same acknowledgment) of the same direction.
    fn same_sequence(&self, a: &Row, b: &Row) -> bool {
        let (Some(x), Some(y)) = (a.after, b.after) else { return false };
        let (x, y) = (&self.d[a.side][x], &self.d[b.side][y]);
        if x.dir() != y.dir() {
            return false;
        }
        if x.seq_len() > 0 || y.seq_len() > 0 {
            x.seq == y.seq && x.seq_len() == y.seq_len()
        } else {
            x.has_ack() && y.has_ack() && x.ack == y.ack
        }
    }

    /// One distinct stall of rows `ks` (one per capture). Its time and length are those
    /// of the row at the capture near the stalled direction's sender when it has one
    /// (the gap as its sender made it), else the other's. Its place: the rows' place when
    /// they agree; when they do not, that same row's (the receiving end's row sees the
    /// gap one path later, and rule 1 of the placement follows it back to the sender).
    fn one_gap(&self, stalls: &[PlacedStall], ks: &[usize], tied_by: Word) -> DistinctStall {
        let r = usize::from(stalls[ks[0]].direction);
        let near_sender = if self.near[r] == 1 - self.clock.receiver { "sender-side" } else { "receiver-side" };
        let lead = ks.iter().copied().find(|&k| stalls[k].capture == near_sender).unwrap_or(ks[0]);
        let s = &stalls[lead];
        let mut frames = [None, None];
        for &k in ks {
            frames[usize::from(stalls[k].capture != "sender-side")] = Some([stalls[k].frame_before, stalls[k].frame_after]);
        }
        let agree = ks.iter().all(|&k| stalls[k].place == s.place);
        DistinctStall { direction: s.direction, at: s.at, duration: s.duration, place: s.place, frames, tied_by, places_agree: agree, peer_wait_frames: None }
    }
}
