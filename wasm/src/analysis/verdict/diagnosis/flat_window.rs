//! "The congestion window or the path's capacity" where the flights show neither: a
//! flat flight, loss-free, each crossing the path far faster than the average (issue 39
//! review AJ, class C-FLAT-SENDER-WINDOW-LEFT-OPEN; docs/ANALYSIS.md "diagnosis.text",
//! *The sender's own window*).
//!
//! cwnd_rounds.rs reads a congestion window from flights that grow one round trip after
//! another. The same train of flights that does NOT grow rules both candidates out:
//! - not a congestion window in slow start or congestion avoidance: without loss (and no
//!   ECN echo) RFC 5681 §3.1 grows it every round trip — doubling in slow start, about a
//!   segment per round in avoidance (CUBIC, RFC 9438, more) — so a flight that stays
//!   flat for [`super::cwnd_rounds::MIN_ROUNDS`] loss-free rounds below the receiver's
//!   window is held by something else;
//! - not the path: at the receiver's capture each flight arrived within a small part of
//!   the round trip, i.e. the path carried it at many times the flow's average rate
//!   (a path that held the flow spreads a flight over the round trip: cwnd_rounds.rs).
//! What is left is the sender's own window: its socket send buffer, the application's
//! writes, or a relay feeding it a fixed amount per round (CharlesJu1 mycap.pcap conn 6:
//! 10, 11, 10, 11, 12 segments per 177-ms round, the first 14,280 B in 5.9 ms).
//!
//! The rule: a receiver-side capture (`Vantage::Receiver`: the spacing seen is the
//! path's); the data direction's new data from its first segment after the peer's last
//! data (the answer's start) to the peer's next data or the transfer's end, nothing
//! re-sent in it, cut into rounds of one path round trip each from its first segment; at
//! least [`MIN_ROUNDS`] full rounds (the last, partial, left out), each with data, none
//! reaching the receiver's window less a full segment, together at least half the `other`
//! time; flat: every full round within [`FLAT_SPREAD`] of the median round's segments,
//! fewer segments gained from the first full round to the last than rounds (less than
//! avoidance's one per round); and fast: the fastest round's data arrived at
//! [`FAST_FACTOR`] × the rounds' average rate or more (in a quarter of the round trip: the
//! path carried that much; a path that held the flow spreads a flight over all of it),
//! the median round's at [`MEDIAN_FAST_FACTOR`] × or more.

use super::*;
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::is_data_segment;
use crate::analysis::timing::vantage::Vantage;

/// How far a flat flight's rounds stray from their median, as a share of it.
pub const FLAT_SPREAD: f64 = 0.25;
/// Full rounds needed: four, three steps to read a growth law from (cwnd_rounds.rs).
pub const MIN_ROUNDS: usize = 4;
/// A round's data arriving this many times faster than the round's average: in a
/// quarter of the round trip or less.
pub const FAST_FACTOR: f64 = 4.0;
/// The median round's data arriving at least this many times faster than the average
/// (within half the round trip): the flights arrived fast as a rule.
pub const MEDIAN_FAST_FACTOR: f64 = 2.0;

/// The flat rounds ([`flat`]): first and last full round's start s, segments per full
/// round, median bytes per round, the median rate within a round bit/s.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatRounds {
    pub from: f64,
    pub to: f64,
    pub segments: Vec<u64>,
    pub bytes: f64,
    pub within_bps: f64,
    pub fastest_bps: f64,
}

/// One round: (segments, bytes, first and last arrival s, up to the window).
#[derive(Clone, Copy)]
struct Round {
    segments: u64,
    bytes: f64,
    first: f64,
    last: f64,
    at_window: bool,
}

/// The flat rounds of direction `dir` (module comment); None where the capture does not
/// show them. `rtt`: path RTT s; `full`: a full segment's payload; `other`: the
/// `other` share's seconds.
pub fn flat(p: &PacketColumns, dir: u8, rtt: f64, full: f64, until: f64, other: f64) -> Option<FlatRounds> {
    if !(rtt > 0.0 && full > 0.0) {
        return None;
    }
    let mut rounds: Vec<Round> = Vec::new();
    let (mut high, mut rwnd, mut t0) = (f64::NEG_INFINITY, f64::INFINITY, f64::NAN);
    for k in 0..p.t.len() {
        if p.t[k] > until {
            break;
        }
        if p.dir[k] != dir {
            if p.win[k].is_finite() && p.ack[k].is_finite() {
                rwnd = p.win[k];
            }
            // The peer's data: before the answer, the answer starts after it; within it, it ends.
            if p.len[k] > 0 {
                if rounds.is_empty() {
                    t0 = f64::NAN;
                } else {
                    break;
                }
            }
            continue;
        }
        if !is_data_segment(p, k, dir) {
            continue;
        }
        let (len, end) = (f64::from(p.len[k]), p.seq[k] + f64::from(p.len[k]));
        if p.seq[k] < high {
            return None; // a re-send: loss, or the capture's gap
        }
        high = end;
        if t0.is_nan() {
            t0 = p.t[k];
        }
        let r = ((p.t[k] - t0) / rtt + 1e-9).floor() as usize; // (a flight one round trip on is the next round)
        while rounds.len() <= r {
            rounds.push(Round { segments: 0, bytes: 0.0, first: f64::NAN, last: f64::NAN, at_window: false });
        }
        let x = &mut rounds[r];
        x.segments += (len / full).ceil().max(1.0) as u64;
        x.bytes += len;
        if x.first.is_nan() {
            x.first = p.t[k];
        }
        x.last = p.t[k];
        x.at_window |= x.bytes + full > rwnd;
    }
    // The last round may be the data's end: partial.
    let full_rounds = &rounds[..rounds.len().saturating_sub(1)];
    if full_rounds.len() < MIN_ROUNDS || full_rounds.iter().any(|r| r.segments == 0 || r.at_window) || (full_rounds.len() as f64) * rtt < 0.5 * other {
        return None;
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let segments: Vec<u64> = full_rounds.iter().map(|r| r.segments).collect();
    let mid = median(segments.iter().map(|&s| s as f64).collect());
    let gained = segments[segments.len() - 1] as f64 - segments[0] as f64;
    if !segments.iter().all(|&s| (s as f64 - mid).abs() <= FLAT_SPREAD * mid) || gained >= (segments.len() - 1) as f64 {
        return None;
    }
    // Within a round: the bytes after its first segment over the time they took. The
    // fastest round shows what the path carried (a lower bound of its capacity); the
    // median round, that the flights arrived fast as a rule, not once.
    let rates: Vec<f64> = full_rounds.iter().map(|r| if r.last > r.first && r.segments > 1 { r.bytes * (r.segments - 1) as f64 / r.segments as f64 * 8.0 / (r.last - r.first) } else { 0.0 }).collect();
    let fastest = rates.iter().copied().fold(0.0, f64::max);
    let within = median(rates);
    let bytes = median(full_rounds.iter().map(|r| r.bytes).collect());
    let average = bytes * 8.0 / rtt;
    (fastest >= FAST_FACTOR * average && within >= MEDIAN_FAST_FACTOR * average)
        .then(|| FlatRounds { from: full_rounds[0].first, to: full_rounds[full_rounds.len() - 1].first, segments, bytes, within_bps: within, fastest_bps: fastest })
}

/// ". The sender's own window was the limit …" for the path headline, where [`flat`]
/// shows it at a receiver-side capture.
pub(super) fn sentence(f: &Facts) -> Option<String> {
    if f.conn.vantage != Vantage::Receiver {
        return None;
    }
    let d = f.conn.data_direction.min(1);
    let until = f.sh.ends_at().unwrap_or(f64::INFINITY);
    let r = flat(f.rows.packets, d, f.min_rtt, segment_bytes(f), until, f.sh.other)?;
    let (lo, hi) = (r.segments.iter().min()?, r.segments.iter().max()?);
    let list: Vec<String> = r.segments.iter().map(u64::to_string).collect();
    Some(format!(
        ". The sender's own window was the limit, not a congestion window nor the path's capacity: from {} to {} it sent \
         {}{} segments per {} round trip ({}; about {} a round), with nothing lost and below the receiver's window, where \
         a congestion window grows every round (RFC 5681 §3.1); and the path carried a round's data to this receiver at up to {} \
         (the median round at {}), far above the average. Its send buffer, the application's writes or a relay feeding it held \
         it to about {}.",
        format_timestamp(r.from),
        format_timestamp(r.to),
        lo,
        if lo == hi { String::new() } else { format!("–{hi}") },
        format_duration(f.min_rtt),
        list.join(", "),
        format_bytes(r.bytes),
        format_rate(r.fastest_bps),
        format_rate(r.within_bps),
        format_rate(r.bytes * 8.0 / f.min_rtt)
    ))
}
