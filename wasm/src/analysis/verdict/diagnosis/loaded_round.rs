//! Waits that were one round trip of the path as loaded at that moment (issue 39 review
//! X class C-LOADED-RTT-AS-STALL; docs/ANALYSIS.md "Loaded round trips").
//!
//! The stall threshold is the larger of 10 ms and 4 × the connection's minimum RTT
//! (DESIGN.md). Where a queue lifts the RTT far above that minimum — parallel flows
//! sharing one bottleneck, a sender's own standing queue — every round of an
//! ACK-clocked sender (Jacobson 1988; RFC 5681: send a flight, wait for its ACKs, send
//! the next) becomes a gap above the threshold. Such a gap stays in the stall list (the
//! definition says so), but it is no wait a readier peer would remove: it is the
//! congestion window's pace at the RTT the path then had. So:
//! - the RTT "then" is RFC 6298's estimator run over the data direction's trusted round
//!   trips (round_trips.rs: the full round trip, the far part added at a receiver-side
//!   capture) that completed by the gap's first packet: SRTT, and RTTVAR for its spread
//!   (samples completed within the gap time the gap itself: a late ACK ending it is no
//!   loaded path);
//! - a gap is a **loaded round** when it is an `ack-wait` or `unknown` stall no longer
//!   than SRTT + 4·RTTVAR (RFC 6298 §2's RTO before its 1 s floor: a round trip longer
//!   than that is what a sender's own timer calls lost), the receiver's cumulative ACK
//!   advanced at or after the gap's first packet (an ACK released the next flight),
//!   and the next data left within SRTT + 4·RTTVAR of the last such ACK before it;
//! - every `ack-wait` / `unknown` stall is priced (savings.rs `stalls`) against the round
//!   trip the path then had, the larger of the path RTT and SRTT, and a loaded round
//!   against itself: removing it saves nothing;
//! - all of it only where the capture shows the wait timed the path, not a receiver
//!   holding its ACKs ([`clock_shown`]: at the receiver's capture, or the ACK clock ran);
//! - where loaded rounds hold at least half of that stalled time, the headline is the
//!   path, naming the queue: the RTT rose from the base to the loaded round trip.

use super::super::phrases::rate_phrase;
use super::Facts;
use crate::analysis::format::{format_duration, format_percent};
use crate::analysis::rows::columns::{PacketColumns, RttSource};
use crate::analysis::stalls::cause::{Stall, StallCause};
use crate::analysis::timing::round_trips::{RoundTripRule, ANSWERED, DELAYABLE, EXCLUDED};

/// RFC 6298 §2's gains: α = 1/8 for SRTT, β = 1/4 for RTTVAR, K = 4.
const ALPHA: f64 = 0.125;
const BETA: f64 = 0.25;
const K: f64 = 4.0;

/// RFC 6298's estimator, seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Smoothed {
    pub srtt: f64,
    pub rttvar: f64,
}

impl Smoothed {
    /// The longest one round trip may take: SRTT + K·RTTVAR (RFC 6298's RTO, no floor).
    pub fn bound(&self) -> f64 {
        self.srtt + K * self.rttvar
    }
}

/// The estimator after each sample, in time order: (time the sample completed, state).
/// `samples`: (completion time s, round trip s) of trusted samples, in time order.
pub(crate) fn smoothed(samples: &[(f64, f64)]) -> Vec<(f64, Smoothed)> {
    let mut out: Vec<(f64, Smoothed)> = Vec::with_capacity(samples.len());
    for &(t, r) in samples {
        let next = match out.last() {
            // RFC 6298 §2.2: the first measurement R sets SRTT = R, RTTVAR = R/2.
            None => Smoothed { srtt: r, rttvar: r / 2.0 },
            // §2.3: RTTVAR first, with the old SRTT.
            Some(&(_, s)) => {
                let rttvar = (1.0 - BETA) * s.rttvar + BETA * (s.srtt - r).abs();
                Smoothed { srtt: (1.0 - ALPHA) * s.srtt + ALPHA * r, rttvar }
            }
        };
        out.push((t, next));
    }
    out
}

/// The state after the last sample completed at or before `t` (None before the first).
pub(crate) fn at(est: &[(f64, Smoothed)], t: f64) -> Option<Smoothed> {
    est.partition_point(|&(ts, _)| ts <= t).checked_sub(1).map(|k| est[k].1)
}

/// The data direction's trusted full round trips (s), in time order: not excluded, not
/// an ACK that rode on the receiver's answer or that its delayed-ACK timer may have
/// held (round_trips.rs): those time a host, not the path.
pub(crate) fn path_round_trips(f: &Facts) -> Vec<(f64, f64)> {
    let d = f.conn.data_direction.min(1);
    let rule = RoundTripRule::of(f.conn, f.tick);
    let rtt: &dyn RttSource = f.rows.rtt;
    let mut out = Vec::new();
    rule.for_each(rtt, &mut |t, dir, _, round_trip_ms, kind| {
        if dir & 1 == d && kind & (EXCLUDED | ANSWERED | DELAYABLE) == 0 && round_trip_ms.is_finite() && round_trip_ms > 0.0 {
            out.push((t, round_trip_ms / 1000.0));
        }
    });
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// Whether stall `s` of direction `d` was one ACK-clocked round at `now` (module doc):
/// an ACK of the receiver advanced at or after the gap's first packet, and the data
/// that ended the gap left within one round trip of the last such ACK.
pub(crate) fn is_round(p: &PacketColumns, d: u8, s: &Stall, now: Smoothed, base: f64) -> bool {
    // A queue shown: SRTT at least QUEUEING_RTT_RATIO × the path's base RTT (the test
    // of "packets queued at the bottleneck", phrases.rs `rtt_queueing`); no base, no claim.
    if !(base > 0.0 && now.srtt >= crate::analysis::verdict::diagnosis::QUEUEING_RTT_RATIO * base) {
        return false;
    }
    // Not a Nagle hold (`delayed-ack`): the receiver's timer, not the path, ended it.
    if !matches!(s.cause, StallCause::AckWait | StallCause::Unknown) || !(s.duration <= now.bound()) {
        return false;
    }
    let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { return false };
    let before = (0..=i).rev().filter(|&r| p.dir[r] != d && p.ack[r].is_finite()).map(|r| p.ack[r]).next().unwrap_or(f64::NEG_INFINITY);
    // The last ACK in the gap that advanced the cumulative ACK: the release.
    let mut high = before;
    let mut released = None;
    for r in i..j {
        if p.dir[r] != d && p.ack[r] > high {
            high = p.ack[r];
            released = Some(p.t[r]);
        }
    }
    released.is_some_and(|at| p.t[j] - at <= now.bound())
}

/// The data direction's `ack-wait` / `unknown` stalls priced against the round trip the
/// path had then: (stalls that were loaded rounds, their seconds, the median SRTT at
/// them s, the cut of the `stalls` saving s: what pricing at the path RTT `base` had
/// taken as avoidable but was one round trip at that moment). `skip`: stalls already
/// priced otherwise (drain_saving.rs: the ACK clock ticking within them).
pub(crate) struct Rounds {
    pub count: usize,
    pub seconds: f64,
    pub median_srtt: f64,
    pub cut: f64,
}

pub(crate) fn rounds(f: &Facts, stalls: &[Stall], base: f64, skip: &dyn Fn(&Stall) -> bool) -> Rounds {
    let p = f.rows.packets;
    let d = f.conn.data_direction.min(1);
    let est = smoothed(&path_round_trips(f));
    let mut out = Rounds { count: 0, seconds: 0.0, median_srtt: f64::NAN, cut: 0.0 };
    let mut srtts = Vec::new();
    for s in stalls.iter().filter(|s| matches!(s.cause.share_slot(), 4 | 5)) {
        // The RTT the path had then, as measured before the gap began: samples that
        // complete within it time the gap itself (at a sender-side capture the late
        // ACKs that end it, at a receiver-side one the far part the data ending it
        // adds), and would make any one late ACK "the path as loaded".
        let Some(now) = at(&est, s.start) else { continue };
        // Without the evidence that no receiver held the ACKs ([`clock_shown`]) the RTT
        // "then" may be the hold itself: neither a round nor priced at it.
        let shown = clock_shown(f, s);
        let round = shown && is_round(p, d, s, now, base);
        if round {
            out.count += 1;
            out.seconds += s.duration;
            srtts.push(now.srtt);
        }
        if skip(s) {
            continue;
        }
        // A loaded round saves nothing; any other wait only what exceeds the round trip
        // the path then had (never less than the path's own).
        let then = if round { s.duration } else if shown { base.max(now.srtt) } else { base };
        out.cut += (s.duration - base).max(0.0) - (s.duration - then).max(0.0);
    }
    srtts.sort_by(f64::total_cmp);
    if !srtts.is_empty() {
        out.median_srtt = srtts[srtts.len() / 2];
    }
    out
}

/// Whether the capture shows that stall `s` (and the round trips before it) timed the
/// path, not a receiver holding its ACKs. At the data receiver's capture (vantage
/// `Receiver`) the round trips run from the receiver's ACK leaving to the data it released
/// (round_trips.rs, the far part): a hold at the receiver is not in them, so SRTT above the
/// base is the path's queue. Elsewhere a queue and a receiver hold look the same in a
/// round trip sample, and only the ACK clock tells them apart: a bottleneck's queue
/// releases a flight's ACKs spread at its pace through the wait, a hold releases them in
/// one batch at its end (Jacobson 1988) — the test drain_saving.rs [`super::ticking`]
/// already makes for `clocked_waits`, reused here.
fn clock_shown(f: &Facts, s: &Stall) -> bool {
    f.conn.vantage == crate::analysis::timing::vantage::Vantage::Receiver || super::ticking(f.rows.packets, f.conn.data_direction.min(1), s).is_some()
}

/// The data direction's stalls of the transfer (not the idle after it).
fn transfer_stalls<'a>(f: &'a Facts) -> std::borrow::Cow<'a, [Stall]> {
    crate::analysis::verdict::peer_silent::stalls_within(&f.conn.directions[f.conn.data_direction.min(1) as usize].stalls, f.sh)
}

/// Lowers the `stalls` saving of `f` to the round trip the path had at each wait.
pub(crate) fn reprice(f: &mut Facts) {
    let base = crate::analysis::verdict::savings::round_trip_s(f.conn);
    // Without a path RTT no round trip was taken off (savings.rs): none to correct.
    if !(base.is_finite() && base > 0.0) {
        return;
    }
    let d = f.conn.data_direction.min(1);
    let stalls = transfer_stalls(f).into_owned();
    let r = rounds(f, &stalls, base, &|s| super::ticking(f.rows.packets, d, s).is_some());
    if r.cut <= 0.0 {
        return;
    }
    for sv in f.savings.iter_mut().filter(|sv| sv.limit == "stalls") {
        sv.seconds -= r.cut;
    }
    f.savings.retain(|s| s.seconds.is_finite() && s.seconds > 1e-9);
    f.savings.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
}

/// The loaded rounds of the data direction where they hold at least half of its waits on
/// ACKs and of unknown cause (the `stalled` share): then the path, not the stalls, is the
/// headline.
/// Not where waits in which the ACK clock kept ticking hold half of that time: the
/// path's headline then says so (wait_words.rs `clocked_waits`).
pub(crate) fn most(f: &Facts) -> Option<Rounds> {
    let stalled = f.sh.stall_by_cause[4] + f.sh.stall_by_cause[5];
    let base = crate::analysis::verdict::savings::round_trip_s(f.conn);
    let stalls = transfer_stalls(f);
    let d = f.conn.data_direction.min(1);
    let ticking: f64 = stalls.iter().filter(|s| super::ticking(f.rows.packets, d, s).is_some()).map(|s| s.duration).sum();
    if !(base.is_finite() && base > 0.0) || 2.0 * ticking >= stalled {
        return None;
    }
    let r = rounds(f, &stalls, base, &|_| false);
    (r.count > 0 && stalled > 0.0 && 2.0 * r.seconds >= stalled && r.median_srtt.is_finite()).then_some(r)
}

/// The headline where most waits were loaded rounds ([`most`]): the path's queue, then
/// the other stalls of the transfer, if any, and what they cost beyond the round trip
/// the path then had.
pub(crate) fn text(f: &Facts) -> String {
    let Some(r) = most(f) else { return String::new() };
    let base = crate::analysis::verdict::savings::round_trip_s(f.conn);
    // `most` holds a base, and each round's SRTT is at least 1.5 × it.
    // "Packets queued" only where the round trips rose with the flow's own flight
    // (own_queue.rs): with a flat few-segment flight the rise is a host's or another
    // flow's, which the capture does not name (review AJ C-LATENCY-UNDER-LOAD-UNFOUNDED).
    let queued = if super::super::phrases::own_queue::median(f).is_some() { ", packets queued at the bottleneck" } else { "" };
    let rose = format!("the RTT had risen from {} (the path's base) to about {} (smoothed, median over these waits){queued}", format_duration(base), format_duration(r.median_srtt));
    let (gaps, each, flight) = if r.count == 1 {
        ("1 gap".to_string(), "", "the next flight")
    } else {
        (format!("{} gaps", r.count), "each ", "each next flight")
    };
    let all = transfer_stalls(f);
    let est = smoothed(&path_round_trips(f));
    let others: Vec<&Stall> = all.iter().filter(|s| !is_loaded(f, &est, s)).collect();
    let rest = if others.is_empty() {
        String::new()
    } else {
        let n = others.len();
        format!(
            " The other {} ({}) {} not shown to be such a round (longer than the round trip measured before it, or of another cause).",
            if n == 1 { "stall".to_string() } else { format!("{n} stalls") },
            format_duration(others.iter().map(|s| s.duration).sum::<f64>()),
            if n == 1 { "was" } else { "were" }
        )
    };
    format!(
        "The path limited this flow: {gaps} in its data ({}, {} of the time) {each}lasted about one round trip of the path as loaded at that moment — \
         {rose} — and {flight} left within a round trip of the ACKs that released it: \
         the congestion window's pace at that RTT (the ACK clock), not a wait a readier peer would remove; {}.{rest}",
        format_duration(r.seconds),
        format_percent(r.seconds / f.sh.active.max(f64::MIN_POSITIVE)),
        rate_phrase(f)
    ) + &super::super::saving_sentence(f, "stalls", "Had each longer wait lasted no more than the round trip the path then had")
}

/// Whether stall `s` of the data direction was a loaded round ([`is_round`]).
fn is_loaded(f: &Facts, est: &[(f64, Smoothed)], s: &Stall) -> bool {
    let base = crate::analysis::verdict::savings::round_trip_s(f.conn);
    clock_shown(f, s) && at(est, s.start).is_some_and(|now| is_round(f.rows.packets, f.conn.data_direction.min(1), s, now, base))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimator_follows_rfc_6298() {
        // 20 ms, then a queue: 100 ms samples. First: SRTT 20, RTTVAR 10. Second:
        // RTTVAR = 0.75·10 + 0.25·|20 − 100| = 27.5; SRTT = 0.875·20 + 0.125·100 = 30.
        let est = smoothed(&[(1.0, 0.020), (2.0, 0.100)]);
        assert!((est[0].1.srtt - 0.020).abs() < 1e-12 && (est[0].1.rttvar - 0.010).abs() < 1e-12);
        assert!((est[1].1.rttvar - 0.0275).abs() < 1e-12 && (est[1].1.srtt - 0.030).abs() < 1e-12);
        // Bound 30 + 4·27.5 = 140 ms: a 120 ms round is within it.
        assert!((est[1].1.bound() - 0.140).abs() < 1e-12);
        assert_eq!(at(&est, 0.5), None);
        assert_eq!(at(&est, 1.5), Some(est[0].1));
        assert_eq!(at(&est, 2.0), Some(est[1].1));
    }
}
