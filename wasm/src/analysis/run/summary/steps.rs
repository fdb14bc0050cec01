//! The named steps of `summarize`, in the order it takes them: the path RTT, the round
//! trips, the trackers finished, the window scale bounded, each direction's stalls and
//! rate, the ending, the ECN counts.

use super::{apply_kinds, rtt_summaries, RttMinima, Scratch};
use crate::decode::icmp::IcmpQuote;
use std::net::IpAddr;
use crate::analysis::loss::capture_loss::CaptureLoss;
use crate::analysis::loss::reported::Recovery;
use crate::analysis::report::{DirectionSummary, RttSummary};
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::rows::store::ConnStore;
use crate::analysis::stalls::later_rules::LaterRules;
use crate::analysis::stalls::{self, active_time};
use crate::analysis::timing::round_trips::RoundTripRule;
use crate::analysis::timing::vantage::{self, Vantage};
use crate::analysis::track::conn::{HandshakeTimes, Side};
use crate::analysis::track::ecn::EcnCounts;
use crate::analysis::track::ending;
use crate::analysis::track::two_senders::{self, Senders, TwoSenders};
use crate::analysis::track::handshake::HandshakeOffers;

/// The path RTT from the two parts of the round trip (vantage.rs), with the parts and
/// the direction whose sender sits at the capture point: the capture's own host by its
/// checksums (`at_host[e]`: side e's host is the capture's, capture_host.rs), else by the TTLs.
pub(super) fn path_rtt(handshake: &HandshakeTimes, minima: &RttMinima, sides: &[Side; 2], data_direction: u8, tick: f64, at_host: Option<[bool; 2]>) -> (vantage::Parts, Option<u8>, vantage::PathRtt) {
    let hs = handshake.syn.map(|syn| {
        let h = handshake;
        let half = |a: i64, b: i64, resent: bool| vantage::handshake_half(a, b, resent, tick);
        (h.client_dir, h.syn_ack.and_then(|sa| half(syn, sa, h.syn_resent)), h.syn_ack.zip(h.ack).and_then(|(sa, a)| half(sa, a, h.syn_ack_resent)))
    });
    let mut parts = vantage::Parts::new(minima.min_s(tick), hs);
    parts.below_tick_share = minima.below_tick_share();
    // toward[d] reaches the sender of the other direction.
    parts.no_router = [1, 0].map(|e: usize| vantage::sent_with_initial_ttl(sides[e].ttl));
    // The capture's host only where its packets here left with one initial TTL (or none
    // told, IPv6): another stack answering from its address (a transparent proxy, packets
    // arriving through a router) is not it (capture_host.rs).
    let at_host = at_host.filter(|h| (0..2).all(|e| !h[e] || sides[e].ttl.map_or(true, |t| vantage::sent_with_initial_ttl(Some(t)))));
    // toward[d] reaches side 1 - d's host.
    parts.capture_host = at_host.map_or([None; 2], |h| [Some(h[1]), Some(h[0])]);
    let by_checksum = at_host.and_then(|h| h.iter().position(|&x| x)).map(|e| e as u8);
    let by_ttl = vantage::local_by_ttl([sides[0].ttl, sides[1].ttl]);
    let path = vantage::path_rtt_with_ttl(&parts, data_direction, tick, by_ttl);
    (parts, by_checksum.or(by_ttl), path)
}

/// Each direction's samples as full round trips (round_trips.rs), summarized.
pub(super) fn round_trip_summaries(store: &ConnStore, parts: &vantage::Parts, at: Vantage, data_direction: u8, tick: f64, scratch: &mut Scratch) -> [RttSummary; 2] {
    let offsets_ms = [0, 1].map(|d| parts.toward[1 - d].unwrap_or(0.0) * 1000.0);
    let rule = RoundTripRule::new(at, data_direction, offsets_ms, tick);
    let mut round_trips = std::mem::take(&mut scratch.trusted);
    let rtts = rtt_summaries(store, &rule, &mut round_trips);
    // Handed back (or freed, when large) before the columns below are materialized.
    scratch.keep_samples(round_trips);
    rtts
}

/// Finishes each side's trackers now that the vantage and the path are known, puts the
/// flags they found on the rows, and counts the holes that were capture loss.
#[allow(clippy::too_many_arguments)]
/// Also each direction's recoveries its receiver reported (reported.rs), and the far part's
/// lower bounds its echoes gave (far_bounds.rs), for the stalls; and the bytes each side's
/// peer SACKed above its cumulative ACK (ending.rs `sacked_unacknowledged`, read before the
/// scoreboard is taken).
pub(super) fn finish_trackers(sides: &mut [Side; 2], directions: &mut [DirectionSummary; 2], store: &mut ConnStore, path: &vantage::PathRtt, parts: &vantage::Parts, lags: [f64; 2], data_direction: u8, tick: f64, offers: &HandshakeOffers, icmp: (&[(f64, IcmpQuote)], &[(IpAddr, u16); 2])) -> (CaptureLoss, [Vec<Recovery>; 2], [Vec<(f64, f64)>; 2], [u64; 2]) {
    let sacked = ending::sacked_unacknowledged(sides);
    // Re-sends an ICMP "fragmentation needed" / "packet too big" set off (pmtu_kind.rs).
    let seqs = [sides[0].seq, sides[1].seq];
    let too_big = crate::analysis::loss::pmtu_kind::too_big(icmp.0, icmp.1, |d, raw| { let mut s = seqs[d]; s.rel(raw) }, &*store);
    let mut capture_loss = CaptureLoss::default();
    let mut recoveries: [Vec<Recovery>; 2] = Default::default();
    let mut far_bounds: [Vec<(f64, f64)>; 2] = Default::default();
    for (d, side) in sides.iter_mut().enumerate() {
        if let Some(h) = side.holes.take() {
            directions[d].missed = h.missed();
            capture_loss.unseen_segments += h.loss.unseen_segments;
            capture_loss.unseen_bytes += h.loss.unseen_bytes;
            capture_loss.holes += h.loss.holes;
            capture_loss.late_sightings += h.loss.late_sightings;
        }
        // The datagrams the capture did not see (datagram_ids.rs), marked on the rows
        // after them for the stall causes (unseen_timeout.rs).
        // Whether the capture is at direction d's sender (vantage.rs names it for the data
        // direction; the other direction's sender is the data receiver).
        let at_sender = match path.vantage {
            Vantage::Sender => d == data_direction as usize,
            Vantage::Receiver => d != data_direction as usize,
            _ => false,
        };
        // What the receiver reported lost (reported.rs). At the sender's own host every
        // re-send passes the capture point: an ACK covering a reported loss with none
        // captured was the capture's own drop or a late original, never a re-send the
        // path hid, and the stalls keep their causes.
        if let Some(r) = side.reported.take() {
            let (counts, mut spans) = r.finish();
            directions[d].lost_after_capture = counts.lost_after_capture;
            directions[d].unseen_resends = if at_sender { 0 } else { counts.unseen_resends };
            if at_sender {
                spans.iter_mut().for_each(|s| s.unseen_resend = false);
            }
            recoveries[d] = spans;
        }
        if let Some(ids) = side.ids.take() {
            let (unseen, marks) = ids.finish();
            // At the sender's own host every datagram it sends is captured (unless the
            // capture dropped it, which capture_loss.rs counts): a skipped number went
            // to another connection of the host (one counter for all its datagrams,
            // RFC 6864 §4 allows it), never lost before the capture point.
            if at_sender {
                directions[d].unseen_datagrams = unseen.map(|_| 0);
            } else {
                directions[d].unseen_datagrams = unseen;
                store.add_late_flags(marks);
            }
        }
        // Gaps the path made, by the sender's TSvals (sender_clock.rs), for the stall causes.
        if let Some(mut clock) = side.clock.take() {
            directions[d].upstream_queue = path.rtt.and_then(|r| clock.upstream_queue(r));
            far_bounds[d] = clock.take_far_bounds();
            store.add_late_flags(clock.finish());
        }
        let Some(mut tracker) = side.kinds.take() else { continue };
        // The longest round trip of d's data bounds its sender's smoothed RTT.
        tracker.set_rtt_max(directions[d].rtt.max_ms.map(|ms| (ms * 1e6) as i64));
        let rtt_bound_ns = path.timer_bound(&parts, tick).map(|s| (s * 1e9) as i64);
        let (kinds, marks) = tracker.finish_with((lags[d] * 1e9) as i64, at_sender, rtt_bound_ns, offers.send_mss(d as u8), &too_big[d]);
        apply_kinds(&mut directions[d], kinds);
        store.add_late_flags(marks);
    }
    (capture_loss, recoveries, far_bounds, sacked)
}

/// An unknown window scale, bounded from below where the sender had more in flight
/// than the raw window (stalls/gaps.rs): the one bound the chart, the headline and the
/// calculator all use, and the windows the stalls and shares are judged by. `mss`: each
/// sender's MSS estimate, found here where needed.
pub(super) fn bound_unknown_scales(directions: &mut [DirectionSummary; 2], packets: &PacketColumns, lags: [f64; 2], mss: &mut [Option<f64>; 2]) {
    for d in 0..2 {
        let receiver = &mut directions[1 - d];
        if receiver.window_scale_unknown {
            let m = *mss[d].get_or_insert_with(|| stalls::mss_estimate(packets, d as u8));
            let lb = stalls::scale_lower_bound_lagged(packets, d as u8, lags[d], m);
            receiver.window_scale_lower_bound = receiver.window_scale_lower_bound.max(lb);
        }
    }
}

/// Each direction's sender's lag (sender_view.rs) and the stall threshold, s: the one
/// chosen (`chosen_ms`, when finite and positive), else 4 × the path RTT (DESIGN.md
/// "Stall"). A receiver-side capture that never measured the far part: that part read
/// from the ACK → new-data pairs (stalls/far_estimate.rs) is the data sender's lag and
/// sets the threshold, instead of a 0 lag and 10 ms.
pub(super) fn lags_and_threshold(path: &mut vantage::PathRtt, parts: &vantage::Parts, store: &ConnStore, data_direction: u8, chosen_ms: Option<f64>, tick: f64) -> ([f64; 2], f64) {
    let chosen = chosen_ms.filter(|ms| ms.is_finite() && *ms > 0.0).map(|ms| stalls::chosen_threshold_s(ms, tick));
    let mut lags = [0, 1].map(|d| super::sender_lag(parts, d, path.rtt));
    let mut rtt_ms = path.rtt.map(|s| s * 1000.0);
    // One copy of the rows for both readings below (only connections without a round trip pay for it).
    let mut rows = None;
    if let Some(far) = far_estimate(path, store, &mut rows, data_direction) {
        lags[data_direction as usize] = far;
        rtt_ms = Some(far * 1000.0);
    }
    let default = stalls::default_threshold_s(rtt_ms, tick);
    // Nothing measured or estimated the round trip: the flow's own even pace
    // (stalls/even_pace.rs), where it has one, keeps its spacing from reading as stalls.
    let bounded = stalls::round_trip_bound_s(path.rtt, &path.method, tick).is_some();
    let paced = if rtt_ms.is_none() && !bounded && chosen.is_none() { even_pace(path, store, &mut rows, data_direction, default) } else { None };
    (lags, chosen.unwrap_or(paced.unwrap_or(default)))
}

/// The threshold from the data direction's even pace (stalls/even_pace.rs) where it is
/// above `default`, s, said in the method's words; None where there is no even pace.
fn even_pace(path: &mut vantage::PathRtt, store: &ConnStore, rows: &mut Option<PacketColumns>, data_direction: u8, default: f64) -> Option<f64> {
    let p = stalls::even_pace::even_pace(rows_of(store, rows), data_direction)?;
    let threshold = p.threshold_s();
    (threshold > default).then(|| {
        let f = crate::analysis::format::format_duration;
        path.method += &format!(
            "; the data arrives evenly, about {} apart (the median of {} spacings; {} of the {} not below half of it lie within 2× of it): that spacing is the flow's pace, not a wait, so only a gap beyond {} (4 × it, at most 200 ms) counts as a stall",
            f(p.seconds),
            p.gaps,
            p.near,
            p.slots,
            f(threshold)
        );
        threshold
    })
}

/// The connection's packet rows, copied from `store` the first time they are asked for.
fn rows_of<'a>(store: &ConnStore, rows: &'a mut Option<PacketColumns>) -> &'a PacketColumns {
    rows.get_or_insert_with(|| {
        let mut packets = PacketColumns::default();
        store.fill_packet_columns(&mut packets, false);
        packets
    })
}

/// A receiver-side capture that never measured the far part (`path.rtt` None): that part
/// read from the ACK → new-data pairs (stalls/far_estimate.rs), s, said in the method's
/// words; None where there is no trusted estimate. Reads a copy of the packet rows (only
/// such connections pay for it).
fn far_estimate(path: &mut vantage::PathRtt, store: &ConnStore, rows: &mut Option<PacketColumns>, data_direction: u8) -> Option<f64> {
    if path.rtt.is_some() || path.vantage != Vantage::Receiver {
        return None;
    }
    let e = stalls::far_estimate::ack_to_new_data(rows_of(store, rows), data_direction)?;
    let shorter = if e.shorter > 0 { format!("; {} shorter pairs were data already in flight", e.shorter) } else { String::new() };
    path.method += &format!(
        "; the receiver's ACKs and the data each released put the round trip near {} (the lower quartile of {} ACK → new-data pairs, {} of them within 1.5× of it{shorter}), which sets the sender's lag and the stall threshold",
        crate::analysis::format::format_duration(e.seconds),
        e.pairs,
        e.near
    );
    Some(e.seconds)
}

/// Direction `d`'s stalls and their causes (stalls/), judged in its sender's time
/// (`lag`), with the sender's facts the stall pass found; `m`: its MSS estimate.
#[allow(clippy::too_many_arguments)]
/// `later`: what the later rules read (stalls/later_rules.rs).
/// `tick`: the connection's clock tick, s (for `stalls::round_trip_bound_s`).
pub(super) fn judge_stalls(ds: &mut DirectionSummary, d: usize, packets: &PacketColumns, m: f64, lag: f64, threshold_s: f64, path: &vantage::PathRtt, full_segment: u32, scale_known: bool, later: &LaterRules, tick: f64) -> stalls::SenderFacts {
    let round_trip = stalls::round_trip_bound_s(path.rtt, &path.method, tick);
    let (found, f) = stalls::judge_stalls_and_facts(packets, d as u8, threshold_s, lag, round_trip, full_segment, ds.unseen_datagrams.is_some(), m, scale_known);
    ds.stalls = found;
    // The rules that read more than the rows (stalls/later_rules.rs), the view's too.
    later.apply(&mut ds.stalls, packets, d as u8, threshold_s);
    stalls::timer_label::relabel(&mut ds.stalls, packets, d as u8, lag, round_trip); // a timer stall's label follows the counters
    f
}

/// How the connection ended (ending.rs). The client is the sender of the SYN, where it
/// is in the capture.
/// `rows`: the connection's packet rows, where all of them were stored; `sacked`: the
/// bytes each side's peer SACKed above its cumulative ACK (ending.rs). With the ending,
/// the connection's (`id`) second sender on one side, if any (two_senders.rs): its FIN is
/// no close of that side.
#[allow(clippy::too_many_arguments)]
pub(super) fn judge_ending(handshake: &HandshakeTimes, (closing, senders, id): (Option<Box<ending::Closing>>, Option<Box<Senders>>, u32), sides: &[Side; 2], sacked: [u64; 2], names: &[String; 2], directions: &[DirectionSummary; 2], data_direction: u8, rows: Option<&PacketColumns>, (threshold_s, payload_only): (f64, bool)) -> (Box<ending::Ending>, Option<Box<TwoSenders>>) {
    let (closing, two_senders) = two_senders::judge(senders, id, names, closing);
    let client = handshake.syn.map(|_| handshake.client_dir);
    let packets = [directions[0].packets, directions[1].packets];
    let not_established = not_established(handshake, directions, rows);
    let second_sender = two_senders.as_ref().and_then(|t| Some((t.direction, t.other.as_ref()?.refused_acks?)));
    let roles = ending::Roles { client, data_direction, names, packets, not_established, second_sender, payload_only };
    // A reset before the SYN/ACK refused nothing when the handshake completed after it.
    let closing = closing.map(|c| c.with_handshake_completed(handshake.syn_ack));
    (Box::new(ending::judge(closing.as_ref(), sides, sacked, &roles, rows, threshold_s)), two_senders)
}

/// The handshake stopped at the client's SYNs (ending.rs `NotEstablished`): a SYN in the
/// capture, no SYN/ACK, no payload either way, and every packet of the client a SYN (a
/// client in SYN-SENT sends nothing else, RFC 9293 §3.10.7.3). The SYNs' first and last
/// times from the rows (SYN without ACK, of the client), where all rows were stored.
fn not_established(handshake: &HandshakeTimes, directions: &[DirectionSummary; 2], rows: Option<&PacketColumns>) -> Option<ending::NotEstablished> {
    use crate::decode::tcp_flags::{ACK, SYN};
    let c = handshake.client_dir as usize & 1;
    let stopped = handshake.syn.is_some() && handshake.syn_ack.is_none() && handshake.syns > 0;
    let no_data = directions.iter().all(|d| d.payload_bytes == 0);
    if !(stopped && no_data && directions[c].packets == u64::from(handshake.syns)) {
        return None;
    }
    let times = rows.map(|r| {
        let syn = |i: &usize| r.dir[*i] as usize == c && r.flags[*i] & (SYN | ACK) as u32 == SYN as u32;
        let mut t = (0..r.t.len()).filter(syn).map(|i| r.t[i]);
        let first = t.next();
        (first, t.last().or(first))
    });
    let (first_syn_at, last_syn_at) = times.unwrap_or((None, None));
    Some(ending::NotEstablished { syns: handshake.syns, first_syn_at, last_syn_at })
}

/// Direction `d`'s rate while sending (active_time.rs). `both_directions`: the ACKs
/// answered the data (not a capture of one direction).
pub(super) fn active_mean_bps(ds: &DirectionSummary, d: usize, packets: &PacketColumns, lag: f64, path: &vantage::PathRtt, both_directions: bool) -> f64 {
    // A rate is bytes over the time they took to be delivered together: a burst of one
    // segment is timed only by its own round trip (its size over that round trip, a
    // 32-byte heartbeat "671 kbit/s"), no rate the flow had. No burst of two: no rate (0,
    // as for data all at one instant; docs/ANALYSIS.md `throughput.activeMeanBps`).
    if !some_burst_of_two(packets, d as u8, &ds.stalls) {
        return 0.0;
    }
    // Bursts timed to their acknowledgement in the sender's time, which needs the
    // vantage point, and ACKs that answered the data (not a capture of one direction).
    let timed = path.vantage != Vantage::Unknown && both_directions;
    let clock = timed.then_some(active_time::DeliveryClock { lag_s: lag, path_rtt_s: path.rtt });
    active_time::active_mean_bps(packets, d as u8, &ds.stalls, clock, ds.throughput.mean_bps)
}

/// Whether some burst of `dir`'s data between two application pauses (the bursts of
/// `active_time::active_mean_bps`) held two data segments or more.
fn some_burst_of_two(cols: &PacketColumns, dir: u8, stalls: &[stalls::cause::Stall]) -> bool {
    let mut pauses: Vec<usize> = stalls.iter().filter(|s| s.cause == stalls::cause::StallCause::ApplicationIdle).filter_map(|s| cols.row_of(s.frame_after, s.start + s.duration)).collect();
    pauses.sort_unstable();
    let mut pauses = pauses.into_iter().peekable();
    let mut in_burst = 0u32;
    for i in 0..cols.t.len() {
        if !stalls::is_data_segment(cols, i, dir) {
            continue;
        }
        while pauses.peek().is_some_and(|&r| i >= r) {
            pauses.next();
            in_burst = 0;
        }
        in_burst += 1;
        if in_burst >= 2 {
            return true;
        }
    }
    false
}

/// Each direction's ECN summary (ecn.rs); returns the CE-marked data segments' frame
/// numbers.
pub(super) fn apply_ecn(mut counts: Box<EcnCounts>, directions: &mut [DirectionSummary; 2], offers: &HandshakeOffers) -> Vec<u32> {
    let [e0, e1] = counts.summaries(offers.accecn());
    (directions[0].ecn, directions[1].ecn) = (Some(e0), Some(e1));
    counts.take_ce_frames()
}

#[cfg(test)]
#[path = "steps_tests.rs"]
mod tests;

/// Marks the re-sends needless_resends.rs shows needless (flag KIND_SPURIOUS) on the
/// rows of each direction whose sender the capture is at (`vantage` names the data
/// direction's side); `rtt`: the measured path RTT, s.
pub(super) fn mark_needless_at_sender(packets: &mut PacketColumns, vantage: Vantage, data_direction: u8, rtt: Option<f64>) {
    for d in 0..2u8 {
        let at_sender = match vantage {
            Vantage::Sender => d == data_direction,
            Vantage::Receiver => d != data_direction,
            _ => false,
        };
        if at_sender {
            for i in crate::analysis::loss::needless_resends::needless_at_sender(packets, d, rtt) {
                packets.flags[i] |= crate::analysis::rows::columns::flag_bits::KIND_SPURIOUS;
            }
        }
    }
}
