//! Changes of regime the diagnosis names with their time span and cost (issue 13,
//! "Headlines that tell what happened"): a whole-connection share can say "mostly
//! the application" while, for two minutes, every burst took 30× longer because of
//! loss. Found from the data direction's stalls, bursts and RTT samples:
//! - `zero-window`: a zero-window stall of at least [`LONG_STALL_S`];
//! - `outage`: back-to-back retransmission-timeout stalls ([`OUTAGE_JOIN_S`]),
//!   together at least [`LONG_STALL_S`]: nothing got through (RFC 6298 backoff);
//! - `delay-spike`: RTT samples above max(3 × path RTT, path RTT + 20 ms, 2 × median), grouped
//!   when less than [`SPIKE_MERGE_S`] apart, at least [`MIN_SPIKE_SAMPLES`] of them
//!   (one high sample is a delayed ACK); named with the retransmission timeout that
//!   followed, if one did (a delay spike longer than the RTO fires the timer);
//! - `periodic`: stalls of the path or the peer recurring at a steady period
//!   (`periodic_holds`);
//! - `loss` (or `delay-spike` without re-sends, and then only where a round trip in the
//!   run was at least twice the path's): bursts (data separated by application-idle stalls) that took more than
//!   [`SLOW_BURST`] × the median burst's time at less than 1/[`SLOW_BURST`] of the median
//!   burst's rate, grouped when consecutive, with their
//!   retransmissions; only where the median burst lasted [`BURST_ROUND_TRIPS`] path RTTs;
//! - `transfer` (or `loss` where it re-sent): one burst between the application's
//!   pauses that lasted many round trips and a large part of the time, with what paced
//!   it (long_bursts.rs).

mod acked_resends;
pub mod chunk_turns;
mod long_bursts;
mod path_evidence;
mod slow_bursts;
mod timers;

use crate::analysis::format::{format_duration, format_percent, format_timestamp, plural};
use crate::analysis::verdict::diagnosis_shares::TimeShares;
use crate::analysis::stalls::needless;
use crate::analysis::rows::columns::{PacketColumns, RttSource};
use crate::analysis::timing::round_trips::{RoundTripRule, DELAYABLE, EXCLUDED};
use crate::analysis::report::ConnectionSummary;
use crate::analysis::report::Episode;
use crate::analysis::stalls::cause::StallCause;
use slow_bursts::slow_bursts;
pub use timers::{peer_timer_counts, timer_counts, timer_seconds};
use timers::timers_words;

pub const LONG_STALL_S: f64 = 0.3;
pub const MERGE_S: f64 = 1.0;
pub const SLOW_BURST: f64 = 3.0;
/// Bursts are compared only when the median one lasted at least this many path RTTs.
pub const BURST_ROUND_TRIPS: f64 = 2.0;
/// High RTT samples less than this apart belong to one spike.
pub const SPIKE_MERGE_S: f64 = 0.2;
pub const MIN_SPIKE_SAMPLES: u32 = 3;
/// (Defined with the stalls it joins: receiver_silent.rs.)
pub use crate::analysis::stalls::receiver_silent::OUTAGE_JOIN_S;
/// At most this many episodes per connection (the rest are in the stall list).
pub const MAX_EPISODES: usize = 8;

/// `tick`: the capture clock's resolution, s (round_trips.rs).
pub fn find(conn: &ConnectionSummary, packets: &PacketColumns, rtt: &dyn RttSource, sh: &TimeShares, path_rtt: f64, tick: f64) -> Vec<Episode> {
    let d = conn.data_direction.min(1);
    let stalls = &conn.directions[d as usize].stalls;
    let mut out = Vec::new();
    for s in stalls.iter().filter(|s| s.cause == StallCause::ZeroWindow && s.duration >= LONG_STALL_S) {
        out.push(Episode {
            start: s.start,
            end: s.start + s.duration,
            kind: "zero-window",
            text: format!(
                "The window was closed from {} to {} ({}).",
                format_timestamp(s.start),
                format_timestamp(s.start + s.duration),
                format_duration(s.duration)
            ),
        });
    }
    let rtos: Vec<(f64, f64)> = stalls
        .iter()
        .filter(|s| s.cause.is_timer())
        .map(|s| (s.start, s.start + s.duration))
        .collect();
    for (a, b, _) in merge(&rtos, OUTAGE_JOIN_S) {
        if b - a >= LONG_STALL_S {
            out.push(Episode {
                start: a,
                end: b,
                kind: "outage",
                text: outage_words(conn, packets, a, b, timers_words(conn, packets, (a, b))),
            });
        }
    }
    let receiver = &conn.endpoints[1 - d as usize];
    for (a, b, n) in crate::analysis::stalls::receiver_silent::silent_runs(stalls) {
        out.push(Episode {
            start: a,
            end: b,
            kind: "outage",
            text: format!(
                "{receiver} stopped answering for {} during {}–{}: the sender's timer re-sent {} and the re-sends reached the capture point on the receiver's side, not one acknowledged (a stopped host or stack, not loss on the path).",
                format_duration(b - a),
                format_timestamp(a),
                format_timestamp(b),
                plural(n as u64, "time")
            ),
        });
    }
    out.extend(periodic_holds(stalls, sh.active, tick));
    // Where the capture holds no segment of the connection without payload (no pure
    // ACK, handshake or FIN: facts.rs `payload_only`, for one connection), every ACK
    // rode on data and its sample times the peer's answer: no spike is read from them.
    let acks_alone = packets.len.iter().any(|&n| n == 0);
    if path_rtt > 0.0 && acks_alone {
        let timers: Vec<(f64, bool)> = stalls.iter().filter(|s| s.cause.is_timer()).map(|s| (s.start, s.cause == StallCause::TailLossProbe)).collect();
        out.extend(delay_spikes(conn, rtt, path_rtt, tick, &timers, sh.active));
    }
    let bursts = slow_bursts::bursts(conn, packets, path_rtt);
    let slow = slow_bursts(conn, packets, &bursts, path_rtt, rtt, tick);
    out.extend(long_bursts::long_bursts(conn, packets, &bursts, sh, (path_rtt, tick), &slow));
    out.extend(slow);
    // Keep the most telling (a period of slow bursts says more than one of its
    // spikes), then list them in time order.
    out.sort_by(|a, b| priority(a.kind).cmp(&priority(b.kind)).then(a.start.total_cmp(&b.start)));
    out.truncate(MAX_EPISODES);
    out.sort_by(|a, b| a.start.total_cmp(&b.start));
    out
}

/// What an outage says depends on what the capture saw of the receiver during it. A
/// receiver that is alive answers every segment that reaches it, a duplicate or out of
/// its window with an ACK (RFC 9293 §3.10.7.4; RFC 5681 §4.2): the re-sends were lost on
/// the way only if it kept talking (duplicate ACKs, its own data) without ACKing them.
/// A receiver that sent nothing at all while the sender's timer re-sent: at a capture on
/// the receiver's side the re-sends were seen arriving, so the receiver itself stopped
/// answering (its host or its stack, not the path); elsewhere the capture cannot tell
/// the data lost from the receiver gone, and says so.
fn outage_words(conn: &ConnectionSummary, packets: &PacketColumns, a: f64, b: f64, (timers, peer_timer): (String, Option<bool>)) -> String {
    let d = conn.data_direction.min(1);
    let receiver_silent = receiver_silent(conn, packets, a, b);
    let span = format!("{} during {}–{}", format_duration(b - a), format_timestamp(a), format_timestamp(b));
    let receiver = &conn.endpoints[1 - d as usize];
    let stalls = &conn.directions[d as usize].stalls;
    // Every re-send arrived needless: the receiver had the data, so what was lost or held
    // was its ACKs on the way back, not the data (RFC 2883 §5: D-SACK tells a sender
    // its retransmission was unnecessary, as after lost ACKs).
    if all_resends_needless(stalls, packets, a, b) {
        if let Some(w) = acked_resends::words(conn, stalls, packets, a, b, &timers) {
            return w;
        }
        return format!(
            "No ACK came back for {span}: {timers}, but the receiver already had that data (it reported the re-sends as duplicates): its ACKs were lost or held on the way back."
        );
    }
    match (receiver_silent, conn.vantage) {
        // Seen arriving at the receiver's side: re-sends under 0.5 s old may still be
        // awaiting their (delayed) ACK (receiver_silent.rs re-labels longer silences).
        (true, crate::analysis::timing::vantage::Vantage::Receiver) => format!(
            "No answer came back for {span}: {timers}; the re-sends reached this capture point on the receiver's side and none was acknowledged, nor anything else heard from {receiver} (lost between here and the receiver, or the receiver stopped answering)."
        ),
        (true, _) => format!(
            "No answer came back for {span}: {timers}, none acknowledged and nothing at all from {receiver} (the re-sends were lost on the way or the receiver stopped answering; a capture at the receiver would tell which)."
        ),
        (false, _) => match Progress::in_span(conn, packets, a, b) {
            p if p.acked > 0.0 || p.new_data[0] + p.new_data[1] > 0.0 => progress_words(conn, &span, (&timers, peer_timer), &p),
            _ => format!("Nothing got through for {span}: {timers}."),
        },
    }
}

/// What reached the capture point during an outage's span (a, b], before the sender's last
/// re-send in it: "nothing got through"
/// only holds where the data's receiver acknowledged nothing new and neither side sent
/// new data. A sender whose timer re-sent one segment at a time, each acknowledged,
/// moved on only when the timer fired: after a timeout the window restarts at one
/// segment (RFC 5681 §3.1) and each ACK should let out more (RFC 6298 §5), so new
/// data not following an ACK is the sender's or its ACKs' path's, not nothing at all.
#[derive(Debug, Default, PartialEq)]
pub struct Progress {
    /// Bytes the data receiver's cumulative ACK advanced in the span, and in how many steps.
    pub acked: f64,
    pub ack_steps: u32,
    /// New (never sent before) payload bytes each direction sent in the span.
    pub new_data: [f64; 2],
}

impl Progress {
    pub fn in_span(conn: &ConnectionSummary, packets: &PacketColumns, a: f64, b: f64) -> Progress {
        let d = usize::from(conn.data_direction.min(1));
        let mut p = Progress::default();
        // The highest ACK of the receiver and the highest byte each side sent, so far.
        let (mut ack_high, mut sent_high) = (f64::NEG_INFINITY, [f64::NEG_INFINITY; 2]);
        // Only what reached the capture point before the sender's last re-send in the
        // span counts: its timer still had to fire after it. ACKs that come at the end,
        // after the last re-send, are the outage ending, not progress during it.
        use crate::analysis::rows::columns::flag_bits::ANY_RETRANSMISSION;
        let end = packets.t.partition_point(|&t| t <= b);
        let from = packets.t.partition_point(|&t| t <= a);
        let last_resend = (from..end).rev().find(|&i| usize::from(packets.dir[i] & 1) == d && packets.flags[i] & ANY_RETRANSMISSION != 0);
        let Some(last) = last_resend.or_else(|| crate::analysis::stalls::held_ack_probe::settled_end(packets, from, b, conn.path_rtt_ms)) else { return p }; // none of the sender's: what reached it a round trip before the end
        // Only ACKs that reach into a segment the sender sent from the span's start on
        // (its re-sends, or new data) show that something got through during it. An ACK
        // of bytes whose copies were all sent before the span is the tail of the flight
        // that was on its way when the outage began (a bottleneck queue drains for a
        // while after a blackhole starts), not progress through the outage.
        let mut span_low = f64::INFINITY;
        for i in 0..last {
            let dir = usize::from(packets.dir[i] & 1);
            let inside = packets.t[i] > a;
            if dir != d && packets.flags[i] & u32::from(crate::decode::tcp_flags::ACK) != 0 && packets.ack[i].is_finite() {
                if inside && packets.ack[i] > span_low && ack_high.is_finite() && packets.ack[i] > ack_high {
                    p.acked += packets.ack[i] - ack_high;
                    p.ack_steps += 1;
                }
                ack_high = ack_high.max(packets.ack[i]);
            }
            if packets.len[i] > 0 && packets.seq[i].is_finite() {
                let end = packets.seq[i] + f64::from(packets.len[i]);
                if inside && sent_high[dir].is_finite() && end > sent_high[dir] {
                    p.new_data[dir] += end - packets.seq[i].max(sent_high[dir]);
                }
                sent_high[dir] = sent_high[dir].max(end);
            }
            if dir == d && packets.len[i] > 0 && packets.t[i] >= a && packets.seq[i].is_finite() {
                span_low = span_low.min(packets.seq[i]);
            }
        }
        if last_resend.is_none() { crate::analysis::stalls::held_ack_probe::settled_progress(&mut p.new_data, (&mut p.acked, &mut p.ack_steps), packets, (from, last), a, conn.path_rtt_ms, d as u8); } // read up to a round trip before the end: only a late ACK shows arrival
        p
    }
}

/// An outage span in which things did get through: what did.
fn progress_words(conn: &ConnectionSummary, span: &str, (timers, peer_timer): (&str, Option<bool>), p: &Progress) -> String {
    use crate::analysis::format::format_bytes;
    let d = usize::from(conn.data_direction.min(1));
    let (sender, receiver) = (&conn.endpoints[d], &conn.endpoints[1 - d]);
    let mut parts: Vec<String> = Vec::new();
    if p.acked > 0.0 {
        parts.push(format!("{receiver}'s ACK advanced {} ({})", plural(u64::from(p.ack_steps), "time"), format_bytes(p.acked)));
    }
    if p.new_data[d] > 0.0 {
        parts.push(format!("{sender} sent {} of new data", format_bytes(p.new_data[d])));
    } else if p.acked > 0.0 {
        // Acknowledged and still nothing new until the next timer: it moved on only
        // when its timer fired.
        // Where the peer's re-sent request ended a stall, not only the sender's timer.
        // No timer counted (timers.rs `untimed_words`): not "its timer fired".
        let which = match peer_timer { Some(true) => "a timer fired, its own or the peer's", Some(false) => "its timer fired", None => "it re-sent" };
        parts.push(format!("{sender} sent no new data: it moved on only when {which}"));
    }
    if p.new_data[1 - d] > 0.0 {
        parts.push(format!("{receiver} sent {} of its own", format_bytes(p.new_data[1 - d])));
    }
    let joined = match parts.len() {
        1 => parts[0].clone(),
        _ => {
            let last = parts.pop().unwrap_or_default();
            let but = if p.new_data[d] > 0.0 || p.acked == 0.0 || parts.len() > 1 { "and" } else { "but" };
            format!("{}, {but} {last}", parts.join(", "))
        }
    };
    format!("Things still got through in the {span} ({timers}): {joined}.")
}

/// Whether every re-send that ended a timeout stall starting in [a, b] was needless.
fn all_resends_needless(stalls: &[crate::analysis::stalls::cause::Stall], packets: &PacketColumns, a: f64, b: f64) -> bool {
    let mut any = false;
    for s in stalls.iter().filter(|s| s.cause.is_timer() && s.start >= a && s.start < b) {
        let Some((_, j)) = packets.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { return false };
        if !needless(packets.flags[j]) {
            return false;
        }
        any = true;
    }
    any
}

/// The data's receiver sent not one packet in (a, b].
pub fn receiver_silent(conn: &ConnectionSummary, packets: &PacketColumns, a: f64, b: f64) -> bool {
    let d = conn.data_direction.min(1);
    let (from, to) = (packets.t.partition_point(|&t| t <= a), packets.t.partition_point(|&t| t <= b));
    !(from..to).any(|i| packets.dir[i] != d)
}

/// Which episodes the headline names first: lower is more telling.
pub fn priority(kind: &str) -> u8 {
    match kind {
        "loss" | "transfer" => 0,
        "zero-window" => 1,
        "outage" => 2,
        "delay-spike" | "periodic" => 3,
        _ => 4,
    }
}

/// Stalls that recur like clockwork: at least [`MIN_PERIODIC`] of the path's or the
/// peer's (not the application's or the window's: an application on a timer is its
/// own business), their starts a steady period apart (each within
/// [`PERIOD_TOLERANCE`] of the median, for three quarters of them), each at most half
/// its period, together at least a tenth of the active time. A hold on a timer is something on the path or a host
/// pausing on a schedule — Wi-Fi background scanning or power save, a periodic task —
/// and TCP only waits it out (issue 39: ~215 ms held every 1.05 s, 27 % of a speed
/// test, never named).
fn periodic_holds(stalls: &[crate::analysis::stalls::cause::Stall], active: f64, tick: f64) -> Option<Episode> {
    let held: Vec<&crate::analysis::stalls::cause::Stall> = stalls
        .iter()
        .filter(|s| matches!(s.cause, StallCause::AckWait | StallCause::Unknown | StallCause::RetransmissionTimeout | StallCause::TailLossProbe))
        .collect();
    if held.len() < MIN_PERIODIC || !(active > 0.0) {
        return None;
    }
    let mut periods: Vec<f64> = held.windows(2).map(|w| w[1].start - w[0].start).collect();
    periods.sort_by(f64::total_cmp);
    let period = periods[periods.len() / 2];
    // A period of a few ticks of the capture's clock is the clock, not a timer (a
    // 1/60 s clock makes every gap 16.7 ms).
    if !(period > 0.0) || period < MIN_PERIOD_TICKS * tick {
        return None;
    }
    let steady = periods.iter().filter(|p| (*p - period).abs() <= PERIOD_TOLERANCE * period).count();
    let total: f64 = held.iter().map(|s| s.duration).sum();
    if steady < MIN_PERIODIC - 1 || (steady as f64) < 0.75 * periods.len() as f64 || total < 0.1 * active {
        return None;
    }
    let mut durations: Vec<f64> = held.iter().map(|s| s.duration).collect();
    durations.sort_by(f64::total_cmp);
    // A hold is an interruption: shorter than half its period. Stalls that fill their
    // period are the transfer's own pace (a slow path draining each write), not a timer.
    if durations[durations.len() / 2] > 0.5 * period {
        return None;
    }
    let (first, last) = (held[0], held[held.len() - 1]);
    Some(Episode {
        start: first.start,
        end: last.start + last.duration,
        kind: "periodic",
        text: format!(
            "{} stalls of about {} recurred every {} from {} to {} ({} of the time): something on the path or at a host \
             pauses on a timer (Wi-Fi scanning or power save, a periodic task), and TCP waits it out.",
            held.len(),
            format_duration(durations[durations.len() / 2]),
            // A period is read to the hundredth of a second: "1.05 s", not "1 s".
            if period >= 1.0 { format!("{period:.2} s") } else { format_duration(period) },
            format_timestamp(first.start),
            format_timestamp(last.start + last.duration),
            format_percent(total / active)
        ),
    })
}

/// Least growth of a round trip over the path's that shows the path slowing a burst.
pub const MIN_SLOWDOWN_S: f64 = 0.001;
/// A period must be at least this many ticks of the capture clock.
pub const MIN_PERIOD_TICKS: f64 = 10.0;
/// Fewest stalls called periodic.
pub const MIN_PERIODIC: usize = 4;
/// How far a period may stray from the median one and still be steady.
pub const PERIOD_TOLERANCE: f64 = 0.1;

/// Intervals less than MERGE_S apart joined: (start, end, how many).
fn merge(spans: &[(f64, f64)], join: f64) -> Vec<(f64, f64, usize)> {
    let mut out: Vec<(f64, f64, usize)> = Vec::new();
    for &(a, b) in spans {
        match out.last_mut() {
            Some(last) if a - last.1 <= join => {
                last.1 = last.1.max(b);
                last.2 += 1;
            }
            _ => out.push((a, b, 1)),
        }
    }
    out
}

/// Spikes are found in the round trips of directions whose own measured part is not
/// local (that do not follow, round_trips.rs): one that is only adds its host's ACK
/// delay or turnaround to what the other direction measures (a delayed ACK is no spike).
fn delay_spikes(conn: &ConnectionSummary, samples: &dyn RttSource, path_rtt: f64, tick: f64, rtos: &[(f64, bool)], active: f64) -> Vec<Episode> {
    let rule = RoundTripRule::of(conn, tick);
    // A spike stands out from the flow's own typical RTT too: a standing queue (the
    // median far above the base) is latency under load, said elsewhere, not a spike.
    // Typical in the same round trips the spikes are looked for in: a direction that
    // does not follow, of two the one measuring the larger part (the smaller offset).
    let d = conn.data_direction.min(1) as usize;
    let (data, other) = (&conn.directions[d].rtt, &conn.directions[1 - d].rtt);
    let spike_dir = if !rule.follows[d] && (rule.follows[1 - d] || data.offset_ms <= other.offset_ms) { d } else { 1 - d };
    let median = conn.directions[spike_dir].rtt.median_ms.map_or(0.0, |ms| ms / 1000.0);
    let limit = (3.0 * path_rtt).max(path_rtt + 0.020).max(2.0 * median);
    // (start, end, samples above the limit); a lone high sample is a delayed ACK
    // (RFC 1122 §4.2.3.2, ~40 ms on Linux), not a spike: at least MIN_SPIKE_SAMPLES.
    let mut spans: Vec<(f64, f64, u32)> = Vec::new();
    let mut peak: Vec<f64> = Vec::new();
    // The ACKs that ended the data direction's `delayed-ack` stalls: the receiver held
    // each one (stalls/gaps.rs rule 5b), and the sample it completes is that hold, no path
    // delay. tcpdump's ssh.pcap: 3 such stalls (ACKs held 44–75 ms) read both "Nagle's
    // algorithm waiting for the peer's delayed ACK" and "the RTT rose from 14 ms to 89 ms".
    // A direction's stalls are in time order and never overlap: one search per sample.
    let held: Vec<(f64, f64)> = conn.directions[d]
        .stalls
        .iter()
        .filter_map(crate::analysis::stalls::receiver_hold::acks_held) // and a receiving host's hold (receiver_hold.rs)
        .collect();
    let in_held = |t: f64| held.partition_point(|&(a, _)| a <= t).checked_sub(1).is_some_and(|k| t <= held[k].1);
    rule.for_each(samples, &mut |t, dir, _, round_trip_ms, kind| {
        // Full round trips, as the statistics and the chart count them; trusted only.
        let rtt = round_trip_ms / 1000.0;
        if kind & EXCLUDED != 0 || rule.follows[dir as usize & 1] || !(rtt > limit) {
            return;
        }
        if in_held(t) {
            return;
        }
        // An ACK of less than two full-sized segments the receiver may have held for
        // its delayed-ACK timer, or sent only with its own answer (round_trips.rs
        // `DELAYABLE`): its sample may time that host, not the path, so it never makes
        // or joins a spike. A Windows host's 40–50 ms ACKs of lone 57-byte segments, the
        // path's other answers 0.1 ms, read "the RTT rose from 106 µs to 50 ms".
        if kind & DELAYABLE != 0 {
            return;
        }
        // The sample's round trip began rtt before it completed.
        let (a, b) = (t - rtt, t);
        match spans.last_mut() {
            Some(last) if a - last.1 < SPIKE_MERGE_S => {
                last.1 = last.1.max(b);
                last.2 += 1;
                let p = peak.last_mut().expect("one peak per span");
                *p = p.max(rtt);
            }
            _ => {
                spans.push((a, b, 1));
                peak.push(rtt);
            }
        }
    });
    spans
        .iter()
        .zip(peak)
        // A "spike" over half the transfer is a standing queue, said by the headline.
        .filter(|(s, _)| s.2 >= MIN_SPIKE_SAMPLES && (active <= 0.0 || s.1 - s.0 <= 0.5 * active))
        .map(|(&(a, b, _), p)| {
            // A timer stall that began during the spike (or within two base RTTs after),
            // named as the stall is: a tail-loss probe's (RFC 8985 §7) or a timeout's.
            let rto = rtos.iter().find(|&&(s, _)| s >= a && s <= b + 2.0 * path_rtt);
            let then = match rto {
                Some(&(s, probe)) => format!(
                    "; {} followed at {}: the delay, not only loss, fired the timer",
                    if probe { "a tail-loss probe" } else { "a retransmission timeout" },
                    format_timestamp(s)
                ),
                None => String::new(),
            };
            Episode {
                start: a.max(0.0),
                end: b,
                kind: "delay-spike",
                text: format!(
                    "The RTT rose from {} to {} during {}–{} ({} of the transfer){}.",
                    format_duration(path_rtt),
                    format_duration(p),
                    format_timestamp(a.max(0.0)),
                    format_timestamp(b),
                    format_percent(if active > 0.0 { (b - a.max(0.0)) / active } else { 0.0 }),
                    then
                ),
            }
        })
        .collect()
}
