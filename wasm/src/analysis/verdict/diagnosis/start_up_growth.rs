//! A flow whose start-up had not ended when the capture ends (review AJ, class
//! C-SLOWSTART-MISSED, known since review AD; docs/ANALYSIS.md "Still in start-up").
//!
//! "X once its start-up was over" (phrases.rs `path_despite_loss_text`) quotes the
//! delivered rate after delivered.rs's fixed cut (the first bin at 90 % of the best):
//! true of a flow whose window stopped growing. Slow start grows the congestion window
//! by up to a segment per ACK, doubling the flight per round trip (1.5× with delayed
//! ACKs), and ends only at a loss or at ssthresh (RFC 5681 §3.1; HyStart also on a rise
//! of the RTT, RFC 9406). Where the data sent per round trip of the ACK clock
//! (slow_start_words.rs `acked_rounds`: a round ends when the ACK of its first segment
//! returns) was still reaching new heights at the end — the last full round the largest,
//! the last three rounds never smaller than the one before, and at least 1.5² × the round
//! three before it — the capture ends inside start-up, and no rate of "its start-up
//! over" exists. saikowshik07 `Computer-networks/icmp.pcapng` #11: a 1.86 MB upload whose
//! rounds grew 20 → 37 → 71 → 118 → 236 → 371 → 728 kB to the capture's end (the RTT
//! rising 1.4 → 4.3 s with them) read "1 Mbit/s once its start-up was over, steadily near
//! its best".

use super::slow_start_words::acked_rounds;
use super::*;

/// Growth per round trip slow start shows (RFC 5681 §3.1; 1.5× with delayed ACKs), as
/// slow_start_words.rs `SLOW_START_GROWTH`.
const SLOW_START_GROWTH: f64 = 1.5;
/// Full rounds the end of the growth is read over: the last one and the three before.
const LAST_ROUNDS: usize = 4;

/// The growth a flow still showed at the capture's end ([`still_growing`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct StillGrowing {
    /// Bytes sent in the first round of the final run of rounds that never fell, and in
    /// the last full round.
    pub from: u64,
    pub to: u64,
    /// Round trips from the one to the other.
    pub rounds: usize,
}

/// The data direction's rounds of the ACK clock, from its first new data segment to its
/// last before the transfer's end, where they still grew at the end (module comment).
pub(super) fn still_growing(f: &Facts) -> Option<StillGrowing> {
    use crate::analysis::rows::columns::flag_bits::ANY_RETRANSMISSION;
    use crate::analysis::stalls::is_data_segment;
    if !(f.min_rtt > 0.0) {
        return None;
    }
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let end = f.sh.transfer_end.as_ref().map_or(f64::INFINITY, |e| e.at);
    let new = |i: usize| is_data_segment(p, i, d) && p.t[i] <= end && p.flags[i] & ANY_RETRANSMISSION == 0;
    let first = (0..p.t.len()).find(|&i| new(i))?;
    let last = (first..p.t.len()).rev().find(|&i| new(i))?;
    let rounds = acked_rounds(f, first, last, &new, &super::wire_segments::WireSegments::of(f))?;
    // The last round is cut by the capture's (or the data's) end: not a full one.
    let full: Vec<u64> = rounds[..rounds.len().saturating_sub(1)].iter().map(|r| r.0).collect();
    growth_at_end(&full)
}

/// The test of [`still_growing`] on the bytes of the full rounds: the last the largest,
/// the last [`LAST_ROUNDS`] never smaller than the one before, the last at least
/// [`SLOW_START_GROWTH`]² × the first of them.
fn growth_at_end(full: &[u64]) -> Option<StillGrowing> {
    let n = full.len();
    if n < LAST_ROUNDS {
        return None;
    }
    let to = full[n - 1];
    let tail = &full[n - LAST_ROUNDS..];
    let grew = full.iter().all(|&b| b <= to) && tail.windows(2).all(|w| w[1] >= w[0]) && to as f64 >= SLOW_START_GROWTH * SLOW_START_GROWTH * tail[0] as f64;
    if !grew {
        return None;
    }
    // The whole run of rounds that never fell, back from the last.
    let from_k = (1..n).rev().find(|&k| full[k] < full[k - 1]).unwrap_or(0);
    Some(StillGrowing { from: full[from_k], to, rounds: n - 1 - from_k })
}

/// ", and it was still in start-up when the capture ends: …", in place of the rate "once
/// its start-up was over" and "steadily near its best".
/// The path verdict's closing sentence where the capture ends inside start-up (path_words.rs
/// `path_text`; review AJ C-SLOWSTART-MISSED, saikowshik07 icmp.pcapng #11, which the
/// loss-despite words no longer reach once its needless copies are no loss).
pub(super) fn sentence(f: &Facts) -> Option<String> {
    still_growing(f).map(|g| format!(". The congestion window or the path's capacity was the limit{}.", phrase(&g)))
}

pub(super) fn phrase(g: &StillGrowing) -> String {
    format!(
        ", and it was still in start-up when the capture ends: the data it sent per round trip grew from {} to {} over its last {} \
         and had not levelled off (slow start ends only at a loss or at ssthresh, RFC 5681 §3.1), so it never ran at a steady rate",
        format_bytes(g.from as f64),
        format_bytes(g.to as f64),
        crate::analysis::format::plural(g.rounds as u64, "round trip")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_still_doubling_at_the_end_are_start_up() {
        // saikowshik07 icmp #11's rounds (bytes per ACK-clock round, the ClientHello
        // first): every one larger than the last, 728,224 ≥ 2.25 × 118,260.
        let r = [550, 5132, 10024, 20048, 37232, 70674, 118260, 235942, 370978, 728224];
        assert_eq!(growth_at_end(&r), Some(StillGrowing { from: 550, to: 728224, rounds: 9 }));
    }

    #[test]
    fn a_flight_that_levelled_off_or_fell_is_not() {
        // Slow start to 80 segments, then flat (congestion avoidance or a full link).
        assert_eq!(growth_at_end(&[10, 20, 40, 80, 82, 81, 83, 84]), None);
        // Growing at the end, but a larger round before (a restart after a timeout
        // climbing back towards its old flight: RFC 5681 §3.1 ssthresh = half of it).
        assert_eq!(growth_at_end(&[80, 40, 1, 2, 4, 8, 16, 32]), None);
        // Linear growth (+1 segment per round trip, RFC 5681 §3.1 congestion
        // avoidance): 13/10 < 2.25 over the last four rounds.
        assert_eq!(growth_at_end(&[8, 9, 10, 11, 12, 13]), None);
        // Too few full rounds to read.
        assert_eq!(growth_at_end(&[10, 20, 40]), None);
    }
}
