//! Which re-sends a D-SACK block shows needless (RFC 2883 §4; docs/ANALYSIS.md
//! "Spurious retransmissions").
//!
//! A D-SACK block names one contiguous run of bytes the receiver got twice, and "each
//! duplicate contiguous sequence of data received is reported in at most one D-SACK
//! block (i.e., the receiver sends two identical D-SACK blocks in subsequent packets
//! only if the receiver receives two duplicate segments)" (RFC 2883 §4). So:
//! - one block reports one duplicate copy of each byte it names: every re-sent segment
//!   whose bytes lie in it, not only the latest (a receiver that coalesces its ACKs
//!   extends one block over several duplicate segments, Linux `tcp_dsack_extend`);
//! - a block whose bytes an earlier D-SACK block already reported reports a new
//!   duplicate only where a copy of them was captured since that earlier block: the
//!   receiver answers a duplicate at once (RFC 5681 §4.2; Linux `tcp_send_dupack`), so
//!   the copy it reports came after the one the earlier block reported. A receiver that
//!   repeats a D-SACK block in later ACKs (against §4) reports nothing new with it.
//!   Before, each repeat marked one more re-send of the same bytes needless.
//!
//! Which copy of a segment's bytes was the duplicate: the most recent re-send overlapping
//! them, or, when that one is already known needless, an earlier re-send of the same
//! bytes with the same RetransmitTS that no cumulative ACK covered before the latest
//! was sent (the same chain of timer re-sends, e.g. a probe before a timeout); never an
//! older, unrelated one: a re-send whose bytes the cumulative ACK covered before the
//! latest was sent ended its chain (that ACK answered it, and the latest, re-sent after
//! it, is the duplicate). Without timestamps every re-send has the same (absent)
//! RetransmitTS: gmail.pcapng.cap's 5601 re-sent at 3.897 s (the ACK then jumped to
//! 7001) and again after that ACK read as two needless, one D-SACK.

use super::record::Record;

/// D-SACK blocks remembered per direction (the most recent; a repeat of an older one
/// is bounded by the re-sends of its bytes, each marked needless at most once).
const REMEMBERED: usize = 16;

/// The D-SACK blocks already reported, with the number of records (re-sends) the
/// tracker held when each came: copies captured after that are new.
#[derive(Debug, Default)]
pub(super) struct Reported {
    blocks: Vec<(i64, i64, usize)>,
}

/// D-SACK block [l, r), captured at `t_ns`, against the re-send `records` (the newest
/// `scan` looked at): marks the re-sends it shows needless (module doc).
pub(super) fn on_dsack(records: &mut [Record], reported: &mut Reported, (l, r): (i64, i64), t_ns: i64, scan: usize) {
    // Copies captured since the latest earlier block that named all of these bytes.
    let since = reported.blocks.iter().filter(|b| b.0 <= l && r <= b.1).map(|b| b.2).max().unwrap_or(0);
    let from = records.len().saturating_sub(scan).max(since);
    if reported.blocks.len() == REMEMBERED {
        reported.blocks.remove(0);
    }
    reported.blocks.push((l, r, records.len()));
    // The parts of [l, r) already accounted for by a newer re-send (sorted ranges).
    let mut accounted: Vec<(i64, i64)> = Vec::new();
    for last in (from..records.len()).rev() {
        let head = records[last];
        let (lo, hi) = (head.seq.max(l), head.end.min(r));
        if lo >= hi || covered(&accounted, lo, hi) {
            continue;
        }
        accounted.push((lo, hi));
        accounted.sort_unstable();
        let same_chain = |x: &Record| x.seq == head.seq && x.end == head.end && x.retransmit_ts() == head.retransmit_ts() && x.end > head.una;
        if let Some(rec) = records[from..=last].iter_mut().rev().take_while(|x| same_chain(x)).find(|x| !x.spurious) {
            rec.spurious = true;
            rec.spurious_at_ns = t_ns;
        }
        if covered(&accounted, l, r) {
            break;
        }
    }
}

/// Whether the sorted ranges cover every byte of [lo, hi).
fn covered(ranges: &[(i64, i64)], lo: i64, hi: i64) -> bool {
    let mut reached = lo;
    for &(a, b) in ranges {
        if a > reached {
            break;
        }
        reached = reached.max(b);
    }
    reached >= hi
}
