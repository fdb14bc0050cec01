//! Slow bursts (the `loss` episode, or `delay-spike` without re-sends): see the
//! parent module's doc for the rule; here the bursts are found, the slow ones grouped
//! into runs, and each run put in words.

use super::{BURST_ROUND_TRIPS, MIN_SLOWDOWN_S, SLOW_BURST};
use crate::analysis::format::{format_duration, format_timestamp};
use crate::analysis::report::{ConnectionSummary, Episode};
use crate::analysis::rows::columns::{flag_bits, PacketColumns, RttSource};
use crate::analysis::stalls::cause::StallCause;
use crate::analysis::stalls::delayed_ack::full_segment;
use crate::analysis::stalls::{is_data_segment, mss_estimate, needless};
use super::path_evidence::{path_round_trips, DataRoundTrips};

/// One burst of data: from its first data segment to its last (the application
/// wrote it at once; application-idle stalls separate bursts).
pub(super) struct Burst {
    pub(super) start: f64,
    pub(super) end: f64,
    pub(super) retransmissions: u32,
    /// Payload bytes of its data segments but re-sends: what it moved.
    pub(super) bytes: f64,
    /// The sender's own pauses inside it, s: see `bursts`.
    pub(super) paused: f64,
}

impl Burst {
    /// Its time on the path: first to last data segment less the sender's pauses.
    pub(super) fn took(&self) -> f64 {
        (self.end - self.start - self.paused).max(0.0)
    }
}

/// `path_rtt`: the connection's path RTT, s (0 or NaN: unknown).
/// `samples`, `tick`: the RTT samples and clock, read (`round_trips`) only when a run
/// without re-sends must be checked against them — most connections have none.
/// `bursts`: the data direction's ([`bursts`]).
pub(super) fn slow_bursts(conn: &ConnectionSummary, p: &PacketColumns, bursts: &[Burst], path_rtt: f64, samples: &dyn RttSource, tick: f64) -> Vec<Episode> {
    let trips = std::cell::OnceCell::new();
    if bursts.len() < 4 {
        return Vec::new();
    }
    let mut times: Vec<f64> = bursts.iter().map(Burst::took).collect();
    times.sort_by(|a, b| a.total_cmp(b));
    let typical = times[times.len() / 2];
    // A burst shorter than a round trip left in one flight: its first-to-last time is
    // the sender's own spacing (the application's writes, pacing), not the path's, and
    // bursts that size say nothing of the path slowing (a path that slows shows in the
    // RTT samples, `delay_spikes`). SSH's single-segment writes (tcpdump's
    // mptcp-v0.pcap, typical 0 s) and OpenFlow replies each sent on the controller's
    // next request (of10_s4810.pcap, 57 µs at a 257 µs path RTT) once read "a burst
    // took 8.1 ms instead of 0 s: the path slowed down".
    if path_rtt > 0.0 && typical < BURST_ROUND_TRIPS * path_rtt {
        return Vec::new();
    }
    // A burst is slow when it took longer AND moved its bytes slower: a burst that took
    // 140 times as long because it carried 140 times the bytes at the same rate is no
    // slowdown (issue 39: a line-rate flow, every bin 92 Mbit/s, read "a burst took 2.8 s
    // instead of 20 ms: the path slowed down").
    let mut rates: Vec<f64> = bursts.iter().filter(|b| b.took() > 0.0).map(|b| b.bytes / b.took()).collect();
    rates.sort_by(|a, b| a.total_cmp(b));
    let typical_rate = rates.get(rates.len() / 2).copied().unwrap_or(f64::NAN);
    let slow = |b: &Burst| {
        let took = b.took();
        took > SLOW_BURST * typical.max(0.001) && !(b.bytes / took >= typical_rate / SLOW_BURST)
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < bursts.len() {
        if !slow(&bursts[i]) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j + 1 < bursts.len() && slow(&bursts[j + 1]) {
            j += 1;
        }
        let run = &bursts[i..=j];
        // "The path slowed down" only where the round trips say so (issue 39: bursts of
        // an application's spaced writes at a flat 0.4 ms RTT read as slowed by the
        // path): some round trip during the run at least twice its direction's smallest
        // and a millisecond above it (µs paths jitter by their own size), like with
        // like: round trips of full-sized data segments against the same, not against
        // the handshake's (path_evidence.rs), among those no receiver's held ACK
        // explains. Without retransmissions and without that, nothing is claimed.
        let slowed = || {
            let data: &DataRoundTrips = trips.get_or_init(|| path_round_trips(conn, p, samples, tick));
            // Behind a proxy near the capture the round trips are its near hop's, and its
            // pauses its far connection's (split_proxy.rs): no evidence of this path slowing.
            path_rtt > 0.0 && data.grew_during(run[0].start, run[run.len() - 1].end, MIN_SLOWDOWN_S) && crate::analysis::verdict::split_proxy::detect(conn, p, samples).is_none()
        };
        if run.iter().all(|b| b.retransmissions == 0) && !slowed() {
            i = j + 1;
            continue;
        }
        out.push(slow_run_episode(run, typical));
        i = j + 1;
    }
    out
}

/// The data direction's bursts, in time order: a burst ends at the data segment an
/// application-idle stall follows, or that the peer's next message follows.
///
/// A gap inside a burst in which everything sent had been acknowledged is the sender's
/// pause, not the path's: nothing was on the path to be slowed. Its time from that
/// acknowledgement to the next data segment, less one path round trip (`path_rtt`, s;
/// what the acknowledgement and the next data take to cross the path at a capture near
/// the receiver), is the burst's `paused`. So is a gap (less one round trip) begun with
/// less than one full segment outstanding and no acknowledgement of it before the next
/// data: no window holds a sender below one segment (RFC 5681: the congestion window is
/// at least one), so it had nothing to send (a Nagle hold ends on the ACK: the rule
/// before). Issue 39: a proxy that sent two segments at
/// a time as its upstream gave them, each pair acknowledged within 56 µs, read "each of
/// 4 bursts took 9.9 ms–33 ms instead of 1.5 ms: the path slowed down", while its own
/// RFC 7323 TSval advanced by the same 25 ms as the arrival gap (Part4_q4.pcapng).
pub(super) fn bursts(conn: &ConnectionSummary, p: &PacketColumns, path_rtt: f64) -> Vec<Burst> {
    let rtt = if path_rtt > 0.0 { path_rtt } else { 0.0 };
    let d = conn.data_direction.min(1);
    let mut idle_after: Vec<u32> = conn.directions[d as usize]
        .stalls
        .iter()
        .filter(|s| s.cause == StallCause::ApplicationIdle)
        .map(|s| s.frame_before)
        .collect();
    idle_after.sort_unstable(); // stalls are in time order, frames need not be (timeline.rs)
    let mut bursts: Vec<Burst> = Vec::new();
    let mut open = true;
    // Highest sequence end sent, and when the peer's ACK first covered it (None while
    // some of it is outstanding).
    let (mut sent_end, mut acked, mut all_acked_at) = (f64::NEG_INFINITY, f64::NEG_INFINITY, None::<f64>);
    // Bytes outstanding just after the last data segment.
    let mut outstanding_then = f64::INFINITY;
    let full = f64::from(full_segment(&conn.handshake, &conn.directions[d as usize].from, p, d, mss_estimate(p, d) as u32));
    for i in 0..p.t.len() {
        if p.dir[i] != d && p.ack[i] > acked {
            acked = p.ack[i];
        }
        if p.dir[i] != d && p.ack[i] >= sent_end && all_acked_at.is_none() {
            all_acked_at = Some(p.t[i]);
        }
        // The peer's message inside a run of data starts a turn: what the sender sends
        // next answers it, a write of its own, not the rest of one burst (a run of
        // request/response turns, each waiting on the peer, once read "a burst took
        // 278 ms instead of 58 ms: the path slowed down" when the stall before it
        // became the peer's application).
        if p.dir[i] != d && p.len[i] > 0 && !open {
            open = true;
        }
        if !is_data_segment(p, i, d) {
            continue;
        }
        if open {
            bursts.push(Burst { start: p.t[i], end: p.t[i], retransmissions: 0, bytes: 0.0, paused: 0.0 });
            open = false;
        } else {
            let b = bursts.last_mut().expect("a burst is open");
            if let Some(at) = all_acked_at {
                b.paused += (p.t[i] - at - rtt).max(0.0);
            } else if outstanding_then < full {
                b.paused += (p.t[i] - b.end - rtt).max(0.0);
            }
        }
        let end = p.seq[i] + f64::from(p.len[i]);
        if end > sent_end {
            sent_end = end;
            all_acked_at = None;
        }
        outstanding_then = sent_end - acked;
        let b = bursts.last_mut().expect("a burst is open");
        b.end = p.t[i];
        if p.flags[i] & flag_bits::ANY_RETRANSMISSION == 0 {
            b.bytes += f64::from(p.len[i]);
        }
        // A needless re-send (D-SACK or Eifel: the original had arrived) repaired no
        // loss: a burst slowed only by those was slowed by something else.
        if p.flags[i] & flag_bits::ANY_RETRANSMISSION != 0 && !needless(p.flags[i]) {
            b.retransmissions += 1;
        }
        if idle_after.binary_search(&p.frame[i]).is_ok() {
            open = true;
        }
    }
    bursts
}

/// The episode of a run of consecutive slow bursts; `typical`: the median burst's time.
fn slow_run_episode(run: &[Burst], typical: f64) -> Episode {
    let (lo, hi) = run.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), b| (lo.min(b.took()), hi.max(b.took())));
    let (rlo, rhi) = run.iter().fold((u32::MAX, 0), |(lo, hi), b| (lo.min(b.retransmissions), hi.max(b.retransmissions)));
    let took = if run.len() == 1 {
        format!("a burst took {}", format_duration(hi))
    } else {
        format!("each of {} bursts took {}–{}", run.len(), format_duration(lo), format_duration(hi))
    };
    // "per burst" only when there are several ("a burst took 492 ms …: 233
    // retransmissions per burst" read as if there were more).
    let per = if run.len() == 1 { "" } else { " per burst" };
    let retrans = match (rlo, rhi) {
        (_, 0) => "no retransmissions: the path slowed down".to_string(),
        (a, b) if a == b => format!("{a} retransmission{}{per}", if a == 1 { "" } else { "s" }),
        (a, b) => format!("{a}–{b} retransmissions{per}"),
    };
    Episode {
        start: run[0].start,
        end: run[run.len() - 1].end,
        kind: if rhi > 0 { "loss" } else { "delay-spike" },
        text: format!(
            "During {}–{} {} instead of {}: {}.",
            format_timestamp(run[0].start),
            format_timestamp(run[run.len() - 1].end),
            took,
            format_duration(typical),
            retrans
        ),
    }
}
