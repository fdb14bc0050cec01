//! "The congestion window or the path's capacity" decided from the flights (issue 39
//! review X, class C-CWND-VS-PATH-UNDECIDED; docs/ANALYSIS.md "diagnosis.text",
//! *Congestion window, not the path*).
//!
//! The `other` share is data in flight below the receiver's window with nothing lost:
//! the congestion window or the path (RFC 4898's SndLimTimeCwnd). The capture tells
//! them apart. A path that holds the flow spaces its segments at the bottleneck's rate
//! and the ACK clock keeps that spacing (Jacobson 1988; RFC 5681 §3), so each round
//! trip's data is spread over the round trip. A congestion window lets a flight leave
//! as fast as the path carries it and then waits for the ACKs: the flight arrives in a
//! small part of the round trip, and from one round trip to the next it grows as the
//! window grows — doubling in slow start (1.5× where every other segment is ACKed),
//! about a segment per round trip in congestion avoidance (RFC 5681 §3.1; CUBIC, RFC
//! 9438, a few segments).
//!
//! The rule: the data direction's new data, cut into flights (segments less than half a
//! path RTT apart, a flight ending where the peer sent data); a train of flights, each
//! starting 3/4 to 3/2 round trips after the one before (one flight per round trip, no
//! pause between) and none after data of the peer's (an answer: a turn); at least
//! [`MIN_ROUNDS`] flights before the train's last (the last may be the data's end,
//! partial); none of them re-sent into, none up to the receiver's window less a full
//! segment (that flight is the receive window's); every flight before the last arrived
//! within a quarter of the round trip (median), and their segment counts never fell
//! and grew either as slow start (at least two thirds of the steps ×1.5 or more) or as
//! congestion avoidance (every step 0 to [`CA_MAX_STEP`] segments, a median step of at
//! least one). And the train covers at least half of the `other` time: it is what
//! that share was.

use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::is_data_segment;

/// Flights of a train before its last: three steps of growth to read a law from.
pub const MIN_ROUNDS: usize = 4;
/// The most a congestion-avoidance step grows a flight, segments (CUBIC's growth
/// over one round trip near its plateau is a few segments; Reno's one, two per ACKed
/// flight without delayed ACKs).
pub const CA_MAX_STEP: f64 = 4.0;

/// How the window grew ([`rounds`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CwndRounds {
    pub slow_start: bool,
    /// Segments per flight, the train's full rounds (the last left out).
    pub segments: Vec<u64>,
    /// Median time a flight took to pass the capture, s.
    pub median_spread: f64,
    /// First and last flight's start (capture time), s.
    pub from: f64,
    pub to: f64,
}

/// One flight: (start, end, bytes, segments, up to the window, re-sent into).
struct Flight {
    start: f64,
    end: f64,
    bytes: f64,
    segments: u64,
    at_window: bool,
    /// It followed data of the peer's: a train starts at it.
    answer: bool,
}

/// The train of flights in direction `dir` up to `until` that shows a congestion
/// window (module comment); None where none does. `rtt`: path RTT (s); `full`: a full
/// segment's payload; `other`: the `other` share's seconds.
pub fn rounds(p: &PacketColumns, dir: u8, rtt: f64, full: f64, until: f64, other: f64) -> Option<CwndRounds> {
    if !(rtt > 0.0 && full > 0.0) {
        return None;
    }
    let mut flights: Vec<Flight> = Vec::new();
    let (mut high, mut rwnd) = (f64::NEG_INFINITY, f64::INFINITY);
    let mut resent = false;
    // The peer sent data since the last flight: the next answers it (a turn), no round
    // of a window's growth — it starts a new train.
    let mut spoke = false;
    for k in 0..p.t.len() {
        if p.t[k] > until {
            break;
        }
        if p.dir[k] != dir {
            if p.win[k].is_finite() && p.ack[k].is_finite() {
                rwnd = p.win[k];
            }
            spoke |= p.len[k] > 0;
            continue;
        }
        if !is_data_segment(p, k, dir) {
            continue;
        }
        let (len, end) = (f64::from(p.len[k]), p.seq[k] + f64::from(p.len[k]));
        if p.seq[k] < high {
            resent = true; // a loss: the window's growth is broken
            continue;
        }
        high = end;
        // A frame larger than a full segment (TSO/GRO) holds as many segments.
        let segs = (len / full).ceil().max(1.0) as u64;
        match flights.last_mut() {
            Some(f) if p.t[k] - f.end < rtt / 2.0 && !spoke => {
                f.end = p.t[k];
                f.bytes += len;
                f.segments += segs;
                f.at_window |= f.bytes + full > rwnd;
            }
            _ => flights.push(Flight { start: p.t[k], end: p.t[k], bytes: len, segments: segs, at_window: len + full > rwnd, answer: spoke }),
        }
        spoke = false;
    }
    if resent {
        return None;
    }
    best_train(&flights, rtt).and_then(|train| judge(train, rtt, other))
}

/// The longest run of flights one round trip apart (3/4 to 3/2 RTTs).
fn best_train(flights: &[Flight], rtt: f64) -> Option<&[Flight]> {
    let (mut best, mut from) = ((0, 0), 0);
    for k in 1..=flights.len() {
        let joined = k < flights.len() && !flights[k].answer && {
            let step = flights[k].start - flights[k - 1].start;
            (0.75 * rtt..=1.5 * rtt).contains(&step)
        };
        if !joined {
            if k - from > best.1 - best.0 {
                best = (from, k);
            }
            from = k;
        }
    }
    (best.1 - best.0 > MIN_ROUNDS).then(|| &flights[best.0..best.1])
}

/// Whether `train` (its last flight left out) shows a window's growth (module comment).
fn judge(train: &[Flight], rtt: f64, other: f64) -> Option<CwndRounds> {
    let full = &train[..train.len() - 1];
    if full.iter().any(|f| f.at_window) || train[train.len() - 1].start - train[0].start < 0.5 * other {
        return None;
    }
    let mut spread: Vec<f64> = full.iter().map(|f| f.end - f.start).collect();
    spread.sort_by(f64::total_cmp);
    let median_spread = spread[spread.len() / 2];
    if median_spread > rtt / 4.0 {
        return None; // spread over the round trip: the path's spacing
    }
    let segments: Vec<u64> = full.iter().map(|f| f.segments).collect();
    let steps: Vec<f64> = segments.windows(2).map(|w| w[1] as f64 - w[0] as f64).collect();
    if steps.iter().any(|&s| s < 0.0) || segments[segments.len() - 1] <= segments[0] {
        return None;
    }
    let doubling = segments.windows(2).filter(|w| w[1] as f64 >= 1.5 * w[0] as f64).count();
    let slow_start = 3 * doubling >= 2 * steps.len();
    let mut sorted = steps.clone();
    sorted.sort_by(f64::total_cmp);
    let avoidance = steps.iter().all(|&s| s <= CA_MAX_STEP) && sorted[sorted.len() / 2] >= 1.0;
    (slow_start || avoidance).then(|| CwndRounds { slow_start, segments, median_spread, from: train[0].start, to: train[train.len() - 1].start })
}

/// " The congestion window was the limit, not the path's capacity: …" for the path
/// headline, where [`rounds`] shows it.
pub(super) fn sentence(f: &super::Facts) -> Option<String> {
    let d = f.conn.data_direction.min(1);
    let until = f.sh.ends_at().unwrap_or(f64::INFINITY);
    let r = rounds(f.rows.packets, d, f.min_rtt, super::segment_bytes(f), until, f.sh.other)?;
    let list: Vec<String> = r.segments.iter().map(u64::to_string).collect();
    Some(format!(
        ". The congestion window was the limit, not the path's capacity: from {} to {} the data left in one flight per \
         round trip, each passing the capture within a median {} of the {} round trip, and the flights grew as a \
         congestion window grows in {} from {} segments ({} segments per round trip).",
        crate::analysis::format::format_timestamp(r.from),
        crate::analysis::format::format_timestamp(r.to),
        crate::analysis::format::format_duration(r.median_spread),
        crate::analysis::format::format_duration(f.min_rtt),
        if r.slow_start { "slow start" } else { "congestion avoidance" },
        r.segments[0],
        list.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::stalls::testkit::Cols;

    /// pngex (review X): a TLS download seen at the client, 171-ms path, MSS 1,348 B:
    /// flights of 10, 12, 14, 16, 16, 18 segments one round trip apart, each arriving
    /// within about 1 ms, then a last flight of 8. Steps +2, +2, +2, 0, +2: congestion
    /// avoidance from 10 segments (median step 2, none above 4; no step ×1.5: not slow start).
    fn train(counts: &[u32], rtt: f64, spacing: f64) -> Cols {
        let mut c = Cols::new(269568.0);
        let mut seq = 1.0;
        for (r, &n) in counts.iter().enumerate() {
            for s in 0..n {
                c.data(5.0 + rtt * r as f64 + spacing * s as f64, 0, seq, 1348);
                seq += 1348.0;
            }
            c.ack(5.0 + rtt * r as f64 + spacing * n as f64 + 0.0001, 1, seq, 269568.0);
        }
        c
    }

    #[test]
    fn flights_that_arrive_at_once_and_grow_by_two_segments_are_congestion_avoidance() {
        let c = train(&[10, 12, 14, 16, 16, 18, 8], 0.171, 0.0001);
        let r = rounds(&c.c.packets, 0, 0.171, 1348.0, f64::INFINITY, 1.0).expect("a window");
        assert!(!r.slow_start);
        assert_eq!(r.segments, vec![10, 12, 14, 16, 16, 18]);
        // A flight of 18 segments 0.1 ms apart spans 1.7 ms; the median of the six
        // flights (0.9, 1.1, 1.3, 1.5, 1.5, 1.7 ms) is the 4th: 1.5 ms.
        assert!((r.median_spread - 0.0015).abs() < 1e-9, "{r:?}");
    }

    #[test]
    fn flights_that_grow_one_and_a_half_times_are_slow_start() {
        // tports: 2, 3, 3, 6, 9 segments per 87-ms round trip, then a last flight.
        let c = train(&[2, 3, 3, 6, 9, 5], 0.087, 0.0003);
        let r = rounds(&c.c.packets, 0, 0.087, 1348.0, f64::INFINITY, 0.4).expect("a window");
        assert!(r.slow_start);
        assert_eq!(r.segments, vec![2, 3, 3, 6, 9]);
    }

    #[test]
    fn segments_spread_over_the_round_trip_or_flat_flights_are_no_window() {
        // Segments 4.8 ms apart: flights of 43–77 ms (median 62 ms), more than a quarter
        // of the 171-ms round trip (42.75 ms) — the path spaced them.
        let c = train(&[10, 12, 14, 16, 17, 8], 0.171, 0.0048);
        assert_eq!(rounds(&c.c.packets, 0, 0.171, 1348.0, f64::INFINITY, 1.0), None);
        // The peer's 100-B request 10 ms before the 3rd flight: that flight answers it
        // and starts a new train. Before it, 10, 12: too few; from it, 14, 16, 16, 18
        // (and the last, 8): congestion avoidance from 14 segments.
        let mut c = Cols::new(269568.0);
        let mut seq = 1.0;
        for (r, &n) in [10u32, 12, 14, 16, 16, 18, 8].iter().enumerate() {
            if r == 2 {
                c.data(5.0 + 0.171 * r as f64 - 0.01, 1, 1.0, 100);
            }
            for s in 0..n {
                c.data(5.0 + 0.171 * r as f64 + 0.0001 * s as f64, 0, seq, 1348);
                seq += 1348.0;
            }
        }
        let r = rounds(&c.c.packets, 0, 0.171, 1348.0, f64::INFINITY, 1.0).expect("the train after the request");
        assert_eq!(r.segments, vec![14, 16, 16, 18]);
        // Flat flights: no growth, no window's law (a cap: sender_paced.rs).
        let c = train(&[12, 12, 12, 12, 12, 8], 0.171, 0.0001);
        assert_eq!(rounds(&c.c.packets, 0, 0.171, 1348.0, f64::INFINITY, 1.0), None);
        // The train (6 × 171 ms = 1.026 s) covers less than half of 2.1 s of `other` time.
        let c = train(&[10, 12, 14, 16, 16, 18, 8], 0.171, 0.0001);
        assert_eq!(rounds(&c.c.packets, 0, 0.171, 1348.0, f64::INFINITY, 2.1), None);
    }
}
