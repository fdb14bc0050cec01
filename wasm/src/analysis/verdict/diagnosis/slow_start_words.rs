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
/// The answer read from the peer's last message on carried at least this share of the
/// data direction's bytes up to the transfer's end: it is the transfer, what came before
/// it the exchange's messages (a TLS handshake's flights, a login's replies). As
/// bulk_limit_words.rs `ONE_BURST_SHARE`.
const ANSWER_SHARE: f64 = 0.8;

/// (bytes, segments) per round trip; a frame larger than one segment on the wire
/// (TSO/GRO: wire_segments.rs) counts as the segments it holds.
pub(super) type Rounds = Vec<(u64, u64)>;

/// A transfer that ended in slow start: its rounds, and where they were read from.
pub(super) struct Ramp {
    pub rounds: Rounds,
    /// The first data segment read, where it answered a message of the peer's after
    /// earlier data of the sender's (a TLS handshake, a login): the answer's start.
    pub answer_from: Option<usize>,
    /// The ramp's last new segment's time (capture clock, s).
    pub last_at: f64,
}

/// The data direction's payload bytes per round trip of the path, where they show slow
/// start to the end (RFC 5681 §3.1), read over the transfer's bulk answer: from the
/// first data segment after the peer's last data before the transfer's end (the last
/// request: RFC 5681 §4.1 restarts a window idle for longer than its RTO from the
/// initial window, and the turns before it were messages, not the transfer), where that
/// answer carried at least [`ANSWER_SHARE`] of the bytes, up to the transfer's end
/// (diagnosis_shares/transfer_end.rs; its idle tail is no round of the ramp). Rounds are
/// flights cut by the ACK clock ([`acked_rounds`]; by time, [`timed_rounds`], only where
/// the peer's ACKs are not captured). The ramp: no re-send inside it but ones shown needless (D-SACK or Eifel,
/// retrans_kinds.rs — RFC 2883/3522/4015: a sender undoes the window reduction of a
/// spurious recovery, and ssthresh falls only on loss, RFC 5681 §3.1; a segment that
/// arrived out of order is no re-send at all), at least [`MIN_FULL_ROUNDS`] full rounds, at
/// least two thirds of them grown [`SLOW_START_GROWTH`]× over the one before, and the
/// largest full round one of the last two (the growth never levelled off).
pub(super) fn slow_start_rounds(f: &Facts) -> Option<Ramp> {
    use crate::analysis::rows::columns::flag_bits::{ANY_RETRANSMISSION, KIND_SPURIOUS, KIND_TLP, SPURIOUS_RETRANSMISSION};
    use crate::analysis::stalls::is_data_segment;
    let rtt = f.min_rtt;
    if !(rtt > 0.0) {
        return None;
    }
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let end = f.sh.transfer_end.as_ref().map_or(f64::INFINITY, |e| e.at);
    let ours = |i: usize| is_data_segment(p, i, d) && p.t[i] <= end;
    let new = |i: usize| ours(i) && p.flags[i] & ANY_RETRANSMISSION == 0;
    let after = (0..p.t.len()).rev().find(|&i| ours(i))?;
    // The ramp ends at the last new segment: a tail loss probe after it (RFC 8985 §7.3,
    // the last segment sent again when its ACK is late) cut no round of the growth
    // (maskapurivarshini `OMIS660_LP2.pcapng` #18: a 368-B probe of the upload's last
    // segment 12 ms after it, review AH C-SLOWSTART-MISSED).
    let last = (0..=after).rev().find(|&i| new(i))?;
    let first = (0..=last).find(|&i| ours(i))?;
    let start = answer_start(f, first, last, &ours);
    let bytes = |from: usize| (from..=last).filter(|&i| new(i)).map(|i| u64::from(p.len[i])).sum::<u64>();
    if (bytes(start) as f64) < ANSWER_SHARE * bytes(first) as f64 {
        return None;
    }
    let needless = KIND_SPURIOUS | SPURIOUS_RETRANSMISSION;
    let probe = |i: usize| i > last && p.flags[i] & KIND_TLP != 0;
    if (start..=after).any(|i| ours(i) && p.flags[i] & ANY_RETRANSMISSION != 0 && p.flags[i] & needless == 0 && !probe(i)) {
        return None;
    }
    let wire = super::wire_segments::WireSegments::of(f);
    // Whether slow start is read from the flights' time (a round trip each): the ACK
    // clock's rounds only re-cut a ramp found so (review AI W1/W3: cut by the ACK clock, a
    // paced flow's flights of "2, 3, 2, 3, 3" or a queue's growing RTT passed for slow start).
    let timed = timed_rounds(f, start, last, &new, &wire)?;
    // The ACK clock where the capture sees the ACKs as the sender does (a sender-side
    // capture); elsewhere the flights' time (a lag mis-measured by a round trip would
    // merge two rounds in one).
    let sender_side = f.conn.vantage == crate::analysis::timing::vantage::Vantage::Sender;
    let acked = if sender_side { acked_rounds(f, start, last, &new, &wire).filter(|r| ramp_shape(r)) } else { None };
    // The round trips the sender saw doubled while the flight grew: a queue at the
    // bottleneck, whose rate the last rounds reached (review AI W3).
    if sender_side && queue_reached(f, start, last, &new) {
        return None;
    }
    let rounds = if ramp_shape(&timed) {
        acked.unwrap_or(timed)
    } else {
        // Rounds of one handshake RTT miss a round where the ACK clock ran slower than
        // the handshake's RTT (the receiver's turnaround of a TSO super-frame: p4
        // trendmicro `j1_attack` #6, rounds of 167–389 µs on a 168-µs path, the timed
        // round 2 empty): the ACK clock's rounds stand alone, where every round grew on
        // the one before (a paced flow's "2, 3, 2, 3" does not: review AI W1) and the
        // round trip did not double while it grew (a queue: review AI W3).
        acked.filter(never_fell)?
    };
    // A probe past the ramp was exempted above, or the peer's data crossed the answer
    // (answer_start): the ramp must then never fall (fox-it
    // `qi_local_SYNACK_imgur_qdp.pcap` #23, fixed windows of a receiver-side capture read
    // "2, 14, 2, 26": no growth each round, review AI W1's class).
    let crossed = (start..=last).any(|i| is_data_segment(p, i, 1 - d));
    if ((last..=after).any(|i| probe(i) && ours(i)) || crossed) && !never_fell(&rounds) {
        return None;
    }
    let answer_from = (start != first).then_some(start);
    // Turns before the answer that took half the active time or more are the headline
    // (path_words.rs `path_text`: "Request/response turns set the pace"), not its ramp.
    if answer_from.is_some() && f.sh.turns > 0 && f.sh.turn_time >= 0.5 * f.sh.active {
        return None;
    }
    Some(Ramp { rounds, answer_from, last_at: p.t[last] })
}

/// Rounds that grew as slow start does: at least [`MIN_FULL_ROUNDS`] full rounds, none
/// empty, two thirds of them [`SLOW_START_GROWTH`] × the one before, the largest among
/// the last three.
fn ramp_shape(rounds: &Rounds) -> bool {
    let Some(full) = rounds.len().checked_sub(1) else { return false };
    if full < MIN_FULL_ROUNDS || rounds[..full].iter().any(|r| r.0 == 0) {
        return false;
    }
    let grew = rounds[..full].windows(2).filter(|w| w[1].0 as f64 >= SLOW_START_GROWTH * w[0].0 as f64).count();
    let largest = (0..full).max_by_key(|&k| rounds[k].0).unwrap_or(0);
    3 * grew >= 2 * (full - 1) && largest + 2 >= full
}

/// Every full round at least the one before (the ACK clock's rounds alone: slow start
/// adds a segment per ACK, RFC 5681 §3.1, so its flights never shrink while data lasts).
fn never_fell(rounds: &Rounds) -> bool {
    let full = rounds.len().saturating_sub(1);
    rounds[..full].windows(2).all(|w| w[1].0 >= w[0].0)
}

/// Round trips a growing flight may stretch before a queue holds a path's worth of data:
/// an RTT of twice the unloaded one means a queue of one bandwidth-delay product at the
/// bottleneck, so its ACKs came back at the bottleneck's rate — the path's capacity was
/// reached (Jacobson 1988; RFC 9406 HyStart leaves slow start on far less RTT growth).
const QUEUE_RTT_GROWTH: f64 = 2.0;

/// At a sender-side capture, the ramp's round trips grew [`QUEUE_RTT_GROWTH`]× the path
/// RTT: RTT samples as tshark's `ack_rtt` (an ACK against the last new segment it covers
/// whole), their 90th percentile (a delayed ACK or one burst of compressed ACKs aside).
/// srd373 `tcp.pcapng` #7: 55 → 156 ms on a 41-ms path while the flight doubled — a queue
/// at a 3.8 Mbit/s uplink (review AI W3); maskapurivarshini `OMIS660_LP2.pcapng` #18:
/// 7.4 → 10.7 ms on a 5.7-ms path, no bottleneck's queue yet. ACKs after `last` count:
/// the last round's are the queue's.
fn queue_reached(f: &Facts, start: usize, last: usize, new: &dyn Fn(usize) -> bool) -> bool {
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    // New segments (their end, time sent), and the RTT samples.
    let (mut sent, mut samples): (Vec<(f64, f64)>, Vec<f64>) = (Vec::new(), Vec::new());
    let (mut next, mut acked) = (0, f64::NEG_INFINITY);
    for i in start..p.t.len() {
        if p.dir[i] == d {
            if i <= last && new(i) {
                sent.push((p.seq[i] + f64::from(p.len[i]), p.t[i]));
            }
            continue;
        }
        if !(p.ack[i] > acked) {
            continue;
        }
        acked = p.ack[i];
        let mut covered = None;
        while next < sent.len() && sent[next].0 <= acked {
            covered = Some(sent[next].1);
            next += 1;
        }
        if let Some(t) = covered {
            samples.push(p.t[i] - t);
        }
        if next == sent.len() && i > last {
            break;
        }
    }
    let mut all: Vec<f64> = samples;
    all.sort_by(f64::total_cmp);
    all.len() >= 4 && all[all.len() * 9 / 10] >= QUEUE_RTT_GROWTH * f.min_rtt
}

/// Where the ramp is read from: the first data segment after the peer's last message
/// that the sender answered from rest, else the sender's first data segment. RFC 5681
/// §4.1 restarts an idle window; turns before the answer are messages, not the transfer.
/// A message the sender did not answer from rest is one that crossed its flight (review
/// AI W5 = AG W3): the sender was mid-flight when (a) its data was still in flight at the
/// segment after the message (ivangcruz `lab 6.pcapng` #21: an upload's 11th segment
/// after a 242-B TLS ticket that arrived 3 ms into its initial window of 10, read "began
/// with 1 segments … 1, 18, 38"), or (b) its last segment before the message did not end
/// a write — no PSH, or a whole number of full segments: the application had more queued
/// (RFC 9293 §3.8.6.2.1, write_ends.rs) — and the ACK of everything came within one and
/// a half path RTTs of its next segment: that segment went on the ACK clock, not on the
/// message (p4 trendmicro `j1_attack` #6: an upload's 2- and 4-segment flights, then the
/// server's 17 + 87 B with the ACK of both, and the 8-segment flight 31 µs later). The
/// rounds then continue from the flight's real start.
fn answer_start(f: &Facts, first: usize, last: usize, ours: &dyn Fn(usize) -> bool) -> usize {
    use crate::analysis::stalls::is_data_segment;
    use crate::analysis::verdict::diagnosis_shares::write_ends::ends_write;
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let full = super::segment_bytes(f);
    let (mut start, mut spoke) = (first, false);
    // The sender's last new segment, its data's end, and when the ACK of it all came.
    let (mut prev, mut high, mut acked_at) = (None::<usize>, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for i in first..=last {
        if p.dir[i] != d {
            spoke |= is_data_segment(p, i, 1 - d);
            if p.ack[i] >= high && acked_at == f64::NEG_INFINITY {
                acked_at = p.t[i];
            }
            continue;
        }
        if !ours(i) {
            continue;
        }
        if spoke {
            let in_flight = p.in_flight[i] > f64::from(p.len[i]) + 1.0;
            let clocked = prev.is_some_and(|k| !ends_write(p, k, full)) && acked_at >= p.t[i] - 1.5 * f.min_rtt;
            if !in_flight && !clocked {
                start = i;
            }
            spoke = false;
        }
        let end = p.seq[i] + f64::from(p.len[i]);
        if end > high {
            (prev, high, acked_at) = (Some(i), end, f64::NEG_INFINITY);
        }
    }
    start
}

/// The `path` text of a flow that ended in slow start ([`slow_start_rounds`]).
pub(super) fn slow_start_text(f: &Facts, ramp: &Ramp) -> String {
    let rounds = &ramp.rounds;
    // Read from the answer's first segment: say where, so that the rounds can be found.
    let whole = ramp.answer_from.map_or("transfer: the sender".to_string(), |i| {
        let p = f.rows.packets;
        // The peer's data that crossed the answer's flight (answer_start) came later: the
        // message it followed is then not the peer's last.
        let d = f.conn.data_direction.min(1);
        let later = (i..p.t.len()).any(|k| p.t[k] <= ramp.last_at && crate::analysis::stalls::is_data_segment(p, k, 1 - d));
        let which = if later { "a message of the peer's (its later data crossed the answer's flight)" } else { "the peer's last message" };
        format!("answer, which followed {which}: from its first segment (frame {} at {}) the sender", p.frame[i], format_timestamp(p.t[i]))
    });
    let segs: Vec<String> = rounds.iter().map(|r| r.1.to_string()).collect();
    let total: u64 = rounds.iter().map(|r| r.0).sum();
    // The turns before the answer, as path_text says them: their waits were time too.
    let turns = if ramp.answer_from.is_some() && f.sh.turns > 0 && f.sh.active > 0.0 {
        format!(
            " Before the answer, {} (a request/response turn, or the peer's application granting more): {} of the time.",
            lower_first(&turns_count_phrase(f)),
            format_percent(f.sh.turn_time / f.sh.active)
        )
    } else {
        String::new()
    };
    let mut t = format!(
        "Slow start took the whole {whole} began with {} segments ({}) in its first round trip and \
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
    );
    t += &turns;
    t
}

/// "2 times the sender …" inside a sentence: its first letter lower-cased.
fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |h| h.to_lowercase().chain(c).collect())
}

/// The rounds of the ramp cut by the ACK clock (review AF C-SLOWSTART-BINS: fixed
/// bins of one RTT cut donkaloo `lab3.pcapng` #5's flight of f118–f135 in two, "10, 4,
/// 19"). A round of slow start is a flight: it ends when the ACK of its first segment
/// returns (RFC 5681 §3.1 grows cwnd per ACK, i.e. doubles it per round trip; RFC 3465
/// "per RTT"; Linux's HyStart round ends at the first ACK past the sequence sent when it
/// began), and what the sender sends after that ACK is the next round. The capture sees
/// that ACK `sender_lag_ms` before the sender does (vantage.rs: ~0 at the sender, the
/// path RTT at the receiver — read only at a sender-side capture for now: a receiver's
/// lag is the one part of the round trip a capture there cannot see; a minimum, so no answer to the ACK passes the capture
/// sooner), so the next round starts with the first new segment captured after the ACK
/// and at least that lag, less a tick of the capture clock, later. A segment of the
/// round before captured later than that arrived late (held in a queue: zeek
/// `tcp/timestamp.pcap`'s last 2 of a flight of 80, 44 ms after its first at a 51 ms
/// lag), not in answer to the ACK. None where the peer's ACKs are not in the capture.
pub(super) fn acked_rounds(f: &Facts, start: usize, last: usize, new: &dyn Fn(usize) -> bool, wire: &super::wire_segments::WireSegments) -> Option<Rounds> {
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let lag = if f.conn.sender_lag_ms.is_finite() { (f.conn.sender_lag_ms / 1000.0).clamp(0.0, f.min_rtt) } else { 0.0 };
    let mut rounds: Rounds = Vec::new();
    // The current round's first segment's sequence, and when the next round may start.
    let (mut first_seq, mut next_from, mut acked) = (f64::NAN, None::<f64>, false);
    for i in start..=last {
        if p.dir[i] != d {
            if next_from.is_none() && p.ack[i] > first_seq {
                next_from = Some(p.t[i] + (lag - f.tick.max(0.0)).max(0.0));
                acked = true;
            }
            continue;
        }
        if !new(i) {
            continue;
        }
        if rounds.is_empty() || next_from.is_some_and(|t| p.t[i] >= t) {
            if rounds.len() >= 64 {
                return None; // a long transfer: not one that ended in slow start
            }
            rounds.push((0, 0));
            (first_seq, next_from) = (p.seq[i], None);
        }
        let r = rounds.last_mut()?;
        r.0 += u64::from(p.len[i]);
        r.1 += wire.count(p.len[i]);
    }
    acked.then_some(rounds)
}

/// Without the peer's ACKs (a capture of one direction): round k holds the new data
/// sent from k − 1/4 to k + 3/4 path RTTs after the first segment.
fn timed_rounds(f: &Facts, start: usize, last: usize, new: &dyn Fn(usize) -> bool, wire: &super::wire_segments::WireSegments) -> Option<Rounds> {
    let (p, rtt) = (f.rows.packets, f.min_rtt);
    let mut rounds: Rounds = Vec::new();
    for i in (start..=last).filter(|&i| new(i)) {
        // A quarter of a round trip early: a round's first segment, one path RTT after
        // the last round's, falls inside its round, not on the boundary.
        let k = ((p.t[i] - p.t[start]) / rtt + 0.25) as usize;
        if k >= 64 {
            return None; // a long transfer: not one that ended in slow start
        }
        if rounds.len() <= k {
            rounds.resize(k + 1, (0, 0));
        }
        rounds[k].0 += u64::from(p.len[i]);
        rounds[k].1 += wire.count(p.len[i]);
    }
    Some(rounds)
}
