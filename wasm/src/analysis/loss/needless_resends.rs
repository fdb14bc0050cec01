//! Re-sends the receiver's cumulative ACKs show needless at a capture taken at their
//! sender, without a D-SACK or a timestamp echo (docs/ANALYSIS.md "Needless re-sends by
//! the ACKs' timing and order"). Two proofs, each from the capture's own clock and order:
//!
//! - *Timing* (the Eifel idea of RFC 3522 §2 / RFC 4015, with the capture's clock
//!   instead of the timestamp option): at the sender's host a copy's own ACK cannot come
//!   back before the copy has crossed the path and the ACK has crossed it back, one path
//!   round trip. An ACK that covers the re-sent bytes sooner than that after the *first*
//!   copy of them left acknowledges the original: the copy was needless (RFC 6298 §5:
//!   the timer fired, the segment had not been lost). Held against half the measured path
//!   RTT: a minimum measured only on delayed or queued ACKs can exceed the bare round
//!   trip, and half of it keeps the claim safe. saikowshik07 arp.pcapng: after a 1.5 s
//!   silence the ACKs return in a 10 ms burst, and each of 44 go-back-N copies is
//!   "acknowledged" 0.1–0.4 ms after it left, at a 372 ms round trip.
//! - *Order* (FIFO delivery, RFC 9293 §3.10.7.4: the receiver's cumulative ACK names the
//!   first byte it lacks): the first ACK covering the copied bytes stops at a byte A
//!   whose original left *before* the first copy, and the next ACK passes A with no copy
//!   of byte A ever sent. Byte A's original arrived after the copied bytes had; on a path
//!   that keeps order, a copy sent after it would have arrived after it too, so what
//!   delivered the copied bytes was their original, late, not the copy. saikowshik07
//!   smtp.pcapng: one timer copy, then the ACKs resume segment by segment for the
//!   originals sent 1.8 s before it.
//!
//! Only at the sender's side (there the capture sees every copy leave and every ACK
//! arrive as the sender does); only with a measured path RTT for the timing proof. The
//! receiver-side twin (a copy arriving after the receiver's ACK of the same bytes left)
//! is retrans_kinds.rs `acked_already`, already needless. These re-sends are a fact of
//! their own: the retransmission counters stay the kernel's (TCPSpuriousRtxHostQueues
//! and D-SACK/Eifel undo, verified on recordings), the story reads these rows.

use crate::analysis::rows::columns::{flag_bits, PacketColumns};

/// Already shown needless (retrans_kinds.rs: D-SACK, Eifel, acknowledged before it left).
fn needless(flags: u32) -> bool {
    flags & (flag_bits::KIND_SPURIOUS | flag_bits::SPURIOUS_RETRANSMISSION) != 0
}

/// Re-sends followed at most (the oldest dropped beyond it: memory stays bounded).
const PENDING_MAX: usize = 1024;

/// A re-send not yet acknowledged: its row and bytes, when the first copy of its bytes
/// left, and the highest byte sent before that copy.
#[derive(Clone, Copy)]
struct Pending {
    row: usize,
    seq: f64,
    end: f64,
    first_t: f64,
    high_before: f64,
    /// The byte the first ACK covering it stopped at, below `high_before` (the order proof waits for the next advance).
    stopped_at: Option<f64>,
    /// Shown needless already: kept only as a copy of its bytes, never reported.
    known: bool,
}

/// Rows of direction `dir`'s re-sends (not already shown needless by D-SACK or Eifel)
/// that the ACKs show needless, ascending. `path_rtt_s`: the measured path RTT (None:
/// unknown, then only the order proof). Call only for a capture at `dir`'s sender.
pub fn needless_at_sender(cols: &PacketColumns, dir: u8, path_rtt_s: Option<f64>) -> Vec<usize> {
    let mut out = Vec::new();
    let mut pending: Vec<Pending> = Vec::new();
    let (mut high, mut una) = (f64::NAN, f64::NAN);
    let too_soon = path_rtt_s.filter(|r| r.is_finite() && *r > 0.0).map(|r| 0.5 * r);
    for i in 0..cols.t.len() {
        let t = cols.t[i];
        if cols.dir[i] == dir {
            let (seq, len, flags) = (cols.seq[i], cols.len[i] as f64, cols.flags[i]);
            if len <= 0.0 || flags & crate::decode::tcp_flags::SYN as u32 != 0 {
                continue;
            }
            let end = seq + len;
            let resent = high.is_finite() && seq < high && flags & (flag_bits::ANY_RETRANSMISSION | flag_bits::ANY_KIND) != 0 && flags & flag_bits::OUT_OF_ORDER == 0;
            if resent {
                let end = end.min(high);
                // A copy of byte A ends the wait of the order proof on A: the next ACK may be the copy's.
                pending.retain(|p| !p.stopped_at.is_some_and(|a| seq <= a && a < end));
                // The first copy of these bytes since they were last acknowledged: an
                // earlier one still outstanding may be what the ACK acknowledges — unless
                // it is shown needless itself (its bytes had arrived by their original).
                let earlier = pending.iter().filter(|p| p.seq < end && p.end > seq && !p.known);
                let first_t = earlier.clone().map(|p| p.first_t).fold(t, f64::min);
                let high_before = earlier.map(|p| p.high_before).fold(high, f64::min);
                if pending.len() == PENDING_MAX {
                    pending.remove(0);
                }
                pending.push(Pending { row: i, seq, end, first_t, high_before, stopped_at: None, known: needless(flags) });
            }
            if !high.is_finite() || end > high {
                high = end;
            }
            continue;
        }
        let ack = cols.ack[i];
        if !ack.is_finite() || una.is_finite() && ack <= una {
            continue;
        }
        una = ack;
        pending.retain_mut(|p| {
            // The order proof: byte A was passed with no copy of it sent.
            if let Some(a) = p.stopped_at {
                if ack > a && !p.known {
                    out.push(p.row);
                }
                return ack <= a;
            }
            if ack < p.end {
                return true;
            }
            if too_soon.is_some_and(|w| t - p.first_t < w) {
                if !p.known {
                    out.push(p.row);
                }
                return false;
            }
            // Stopped below bytes sent before the first copy: wait for the next advance,
            // unless byte A was already re-sent (then that copy may be what arrived).
            if ack < p.high_before && !p.known {
                p.stopped_at = Some(ack);
                return true;
            }
            false
        });
        // A copy of byte A already sent (outstanding) ends those waits at once.
        let copies: Vec<(f64, f64)> = pending.iter().map(|p| (p.seq, p.end)).collect();
        pending.retain(|p| p.stopped_at.map_or(true, |a| !copies.iter().any(|&(s, e)| s <= a && a < e)));
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
#[path = "needless_resends_tests.rs"]
mod tests;
