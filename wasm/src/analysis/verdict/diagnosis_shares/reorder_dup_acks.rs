//! Duplicate ACKs that reported no loss (issue 39: time counts as loss recovery only
//! while the capture shows a loss).
//!
//! A receiver sends a duplicate ACK, with a SACK block, for every segment that arrives
//! above a hole (RFC 5681 §4.2, RFC 2018), whether the hole's bytes were lost or are
//! only late: reordering makes a receiver send the duplicate ACKs of a loss (RFC 4653
//! §1). The duplicate ACKs alone cannot tell the two apart; how the hole closed can. A
//! hole is repaired by a re-send, or filled by its original arriving late. So the
//! duplicate ACKs that carry one cumulative ACK `a` (the hole's first byte) reported a
//! loss only if a re-send covering `a` that was not needless (D-SACK or Eifel
//! evidence, retrans_kinds.rs) went by before the peer's cumulative ACK passed `a`. At
//! a sender-side capture every re-send the sender made is in the capture, so a hole
//! whose cumulative ACK passed with none (or with only a needless one, RFC 2883 §4,
//! RFC 3708) was filled by the original; at a capture past the sender the late original
//! itself is seen (Wireshark's out-of-order). The same rule at every vantage point.
//!
//! Only holes whose first byte the capture holds count: a byte the capture never saw
//! (a "previous segment not captured" gap still open, or data beyond the highest
//! sequence captured) may have been lost and re-sent out of its sight, and its
//! duplicate ACKs stay a loss being detected. A hole never closed in the capture stays
//! one too.

use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::{is_data_segment, needless, reordered};

/// Ranges of the data direction's sequence space the capture skipped (a data segment
/// starting above the highest byte before it) and has not yet seen since; bounded, the
/// oldest dropped first (a dropped range then counts as seen: only the duplicate ACKs of
/// a hole older than 64 skips could be misread).
const MAX_UNSEEN_RANGES: usize = 64;

/// Re-sends not yet passed by the peer's cumulative ACK that were not needless, kept to
/// find the one that had already repaired a hole when its duplicate ACKs began (SACK
/// recovery re-sends every hole the scoreboard shows, RFC 6675 §5, so a second hole's
/// duplicate ACKs come after its re-send); bounded, the oldest dropped first.
const MAX_OPEN_RESENDS: usize = 256;

/// The hole the peer's duplicate ACKs report while its cumulative ACK stays at `at`.
struct Hole {
    at: f64,
    dup_acks: Vec<usize>,
    /// A re-send covering `at` that was not needless went by.
    repaired: bool,
    /// The capture held the byte `at` (its original, early or late).
    seen: bool,
}

/// Rows of the peer of direction `dir` flagged duplicate ACK whose hole closed without a
/// re-send that repaired it (see the module doc): reordering, not loss. Sorted row
/// indices; one pass in capture order.
pub fn dup_acks_of_reordering(cols: &PacketColumns, dir: u8) -> Vec<usize> {
    let mut out = Vec::new();
    let mut high = f64::NEG_INFINITY;
    let mut unseen: Vec<(f64, f64)> = Vec::new();
    let mut hole: Option<Hole> = None;
    let mut resends: Vec<(f64, f64)> = Vec::new();
    let mut peer_ack = f64::NEG_INFINITY;
    for i in 0..cols.t.len() {
        if cols.dir[i] == dir {
            if !is_data_segment(cols, i, dir) {
                continue;
            }
            let (seq, flags) = (cols.seq[i], cols.flags[i]);
            let end = seq + cols.len[i] as f64;
            if high.is_finite() && seq > high {
                if unseen.len() == MAX_UNSEEN_RANGES {
                    unseen.remove(0);
                }
                unseen.push((high, seq));
            }
            if seq < high {
                // Bytes seen now: cut them out of the ranges not yet seen.
                let mut kept = Vec::with_capacity(unseen.len() + 1);
                for &(a, b) in &unseen {
                    if end <= a || seq >= b {
                        kept.push((a, b));
                    } else {
                        if a < seq {
                            kept.push((a, seq));
                        }
                        if end < b {
                            kept.push((end, b));
                        }
                    }
                }
                unseen = kept;
            }
            let resend = (seq < high && !reordered(flags)) || flags & flag_bits::ANY_RETRANSMISSION != 0;
            let repairs = resend && !needless(flags);
            if repairs {
                if resends.len() == MAX_OPEN_RESENDS {
                    resends.remove(0);
                }
                resends.push((seq, end));
            }
            if let Some(h) = hole.as_mut().filter(|h| seq <= h.at && h.at < end) {
                if repairs {
                    h.repaired = true;
                } else {
                    h.seen = true;
                }
            }
            high = high.max(end);
            continue;
        }
        let a = cols.ack[i];
        if !a.is_finite() {
            continue;
        }
        if a > peer_ack {
            peer_ack = a;
            resends.retain(|&(_, end)| end > a);
            if let Some(h) = hole.take() {
                if !h.repaired && h.seen {
                    out.extend(h.dup_acks);
                }
            }
        }
        if cols.flags[i] & flag_bits::DUPLICATE_ACK != 0 && a == peer_ack {
            let h = hole.get_or_insert_with(|| Hole {
                at: a,
                dup_acks: Vec::new(),
                repaired: resends.iter().any(|&(lo, hi)| lo <= a && a < hi),
                seen: a < high && !unseen.iter().any(|&(lo, hi)| lo <= a && a < hi),
            });
            h.dup_acks.push(i);
        }
    }
    out.sort_unstable();
    out
}
