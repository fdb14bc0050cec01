//! A transfer that ended in slow start (issue 39 review class X): the `path` headline
//! of a flow whose data, round trip after round trip, grew as slow start grows it —
//! the congestion window doubling each round trip from the initial window (RFC 5681
//! §3.1; 1.5× with delayed ACKs) — and was all sent before the growth stopped. Such a
//! flow never reached the path's rate: "the congestion window or the path's capacity"
//! is true of its window and false of the path. The time was round trips.

use super::*;

/// Rounds a ramp needs (the last, partial, one not counted): fewer is no growth to read.
const MIN_FULL_ROUNDS: usize = 3;
/// Growth from one round trip to the next that slow start shows: cwnd doubles per round
/// trip, 1.5× where the receiver ACKs every other segment (RFC 5681 §3.1, §4.2).
const SLOW_START_GROWTH: f64 = 1.5;

/// (bytes, segments) per round trip; a frame larger than the largest segment (TSO/GRO)
/// counts as the segments it holds.
type Rounds = Vec<(u64, u64)>;

/// The data direction's payload bytes per round trip of the path, from its first data
/// segment (round k holds the data sent from k − 1/4 to k + 3/4 path RTTs after it), where they
/// show slow start to the end: no re-send, at least [`MIN_FULL_ROUNDS`] full rounds,
/// at least two thirds of them grown [`SLOW_START_GROWTH`]× over the one before, and
/// the largest full round one of the last two (the growth never levelled off).
pub(super) fn slow_start_rounds(f: &Facts) -> Option<Rounds> {
    let rtt = f.min_rtt;
    if !(rtt > 0.0) || retransmissions(f) > 0 {
        return None;
    }
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let mss = f.sh.mss.max(1.0);
    let mut rounds: Rounds = Vec::new();
    let mut t0 = None;
    for i in (0..p.t.len()).filter(|&i| crate::analysis::stalls::is_data_segment(p, i, d)) {
        let start = *t0.get_or_insert(p.t[i]);
        // A quarter of a round trip early: a round's first segment, one path RTT after
        // the last round's, falls inside its round, not on the boundary.
        let k = ((p.t[i] - start) / rtt + 0.25) as usize;
        if k >= 64 {
            return None; // a long transfer: not one that ended in slow start
        }
        if rounds.len() <= k {
            rounds.resize(k + 1, (0, 0));
        }
        rounds[k].0 += u64::from(p.len[i]);
        rounds[k].1 += (f64::from(p.len[i]) / mss).ceil().max(1.0) as u64;
    }
    let full = rounds.len().checked_sub(1)?;
    if full < MIN_FULL_ROUNDS || rounds[..full].iter().any(|r| r.0 == 0) {
        return None;
    }
    let grew = rounds[..full].windows(2).filter(|w| w[1].0 as f64 >= SLOW_START_GROWTH * w[0].0 as f64).count();
    let largest = (0..full).max_by_key(|&k| rounds[k].0).unwrap_or(0);
    (3 * grew >= 2 * (full - 1) && largest + 2 >= full).then_some(rounds)
}

/// The `path` text of a flow that ended in slow start ([`slow_start_rounds`]).
pub(super) fn slow_start_text(f: &Facts, rounds: &[(u64, u64)]) -> String {
    let segs: Vec<String> = rounds.iter().map(|r| r.1.to_string()).collect();
    let total: u64 = rounds.iter().map(|r| r.0).sum();
    format!(
        "Slow start took the whole transfer: the sender began with {} segments ({}) in its first round trip and \
         grew its flight each round trip as slow start does (RFC 5681 §3.1: up to twice the flight per round trip): \
         {} segments per round trip of the path over the {} ({}) it took to send {}. The data ran out before the congestion window stopped growing, so \
         the flow never reached the path's rate ({}). A transfer this short is paced by round trips, \
         not by the link: fewer round trips (a larger initial window, a reused connection) or a shorter RTT would \
         make it faster, a faster link would not.",
        segs[0],
        format_bytes(rounds[0].0 as f64),
        segs.join(", "),
        crate::analysis::format::plural(rounds.len() as u64, "round trip"),
        rtt_phrase(f),
        format_bytes(total as f64),
        rate_phrase(f)
    )
}
