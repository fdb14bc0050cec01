//! Round trips that show the path, not a receiver holding its ACK: what "the path
//! slowed down" (verdict/diagnosis_episodes/slow_bursts.rs) is checked against
//! (docs/ANALYSIS.md "Episodes").
//!
//! A round-trip sample ends at the receiver's ACK, and a receiver may hold an ACK (RFC
//! 1122 §4.2.3.2, RFC 9293 §3.8.6.3: up to 0.5 s, typically 40–200 ms). A long sample
//! is a slower path only where that hold is ruled out. It is not where:
//! - the ACK covered less than two full-sized segments or rode on the receiver's own
//!   data (round_trips.rs `DELAYABLE`, `ANSWERED`);
//! - the ACK advanced to everything the data's sender had sent (the whole flight, or
//!   its last two full segments or more): a receiver that ACKs every second full-sized
//!   segment as RFC 1122 asks, and at once, ends a flight with an ACK of the last
//!   segment or two as they arrive; one that waits and acknowledges the flight whole
//!   held its ACKs, and its timer (or its own schedule) may be what released it. A
//!   delay the path added to the flight looks the same from here, so it is no evidence
//!   either way. protos c06-ldapv3-app-r1: every
//!   connection's server acknowledged each flight of 2–6 full segments with one ACK
//!   10–100 ms after its last segment (path RTT 0.9 ms), and 31 connections read "a
//!   burst took 67 ms instead of 9.3 ms: no retransmissions: the path slowed down".
//!
//! Longer than 0.5 s no delayed-ACK timer holds (`DELAYED_ACK_MAX_MS`): such a sample
//! counts whatever its ACK covered. An ACK that left data outstanding was sent while
//! the flight still arrived, so its delay is the path's, and counts too.

use crate::analysis::report::ConnectionSummary;
use crate::analysis::rows::columns::{PacketColumns, RttSource};
use crate::analysis::stalls::delayed_ack::full_segment;
use crate::analysis::stalls::mss_estimate;
use crate::analysis::timing::round_trips::{RoundTripRule, ANSWERED, DELAYABLE, DELAYED_ACK_MAX_MS, EXCLUDED};

/// The times (s) of the ACKs of direction d's data that advanced the cumulative ACK to
/// everything d had sent (see the module doc), in time order.
fn whole_flight_acks(p: &PacketColumns) -> [Vec<f64>; 2] {
    let mut out: [Vec<f64>; 2] = Default::default();
    let mut sent_end = [f64::NEG_INFINITY; 2];
    let mut acked = [f64::NEG_INFINITY; 2];
    for i in 0..p.t.len() {
        let y = (p.dir[i] & 1) as usize;
        let x = 1 - y;
        // An ACK (of y's peer x's data) that advanced.
        if p.ack[i].is_finite() && p.ack[i] > acked[x] {
            if sent_end[x].is_finite() && p.ack[i] >= sent_end[x] {
                out[x].push(p.t[i]);
            }
            acked[x] = p.ack[i];
        }
        if p.len[i] > 0 {
            sent_end[y] = sent_end[y].max(p.seq[i] + f64::from(p.len[i]));
        }
    }
    out
}

/// The data segments of each direction as (sequence end, payload bytes), sorted by end:
/// which segment an ACK number closes.
fn segment_ends(p: &PacketColumns) -> [Vec<(f64, u32)>; 2] {
    let mut out: [Vec<(f64, u32)>; 2] = Default::default();
    for i in 0..p.t.len() {
        if p.len[i] > 0 && p.seq[i].is_finite() {
            out[(p.dir[i] & 1) as usize].push((p.seq[i] + f64::from(p.len[i]), p.len[i]));
        }
    }
    for v in &mut out {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// The round trips a slowdown is judged on: [`path_round_trips`]' and the bases they are
/// compared with.
pub(super) struct DataRoundTrips {
    /// (completed at s, round trip s, direction of the data timed), in time order:
    /// trusted, not held (module doc), and each the ACK of a full-sized data segment.
    pub(super) trips: Vec<(f64, f64, u8)>,
    /// Per direction of the data timed, the smallest round trip of any ACK of one of its
    /// full-sized segments, held or not (a hold only adds to a round trip: every sample
    /// is an upper bound of the path's for that size), s; NaN without one.
    pub(super) base: [f64; 2],
}

impl DataRoundTrips {
    /// Whether a round trip completed during [a, b] reached twice its direction's base
    /// and `least` s above it.
    pub(super) fn grew_during(&self, a: f64, b: f64, least: f64) -> bool {
        let from = self.trips.partition_point(|&(t, _, _)| t < a);
        self.trips[from..].iter().take_while(|&&(t, _, _)| t <= b).any(|&(_, r, x)| {
            let base = self.base[usize::from(x & 1)];
            base > 0.0 && r >= (2.0 * base).max(base + least)
        })
    }
}

/// The connection's trusted full round trips of full-sized data segments, less those a
/// receiver's held ACK may explain (module doc), and their bases. `samples`, `tick`:
/// the RTT samples and the clock.
///
/// Like with like: a full-sized segment's round trip includes its transmission time on
/// every link of the path, which the handshake's 60-byte SYN does not. protos
/// c06-ldapv3-app-r1 connection 228: the SYN's round trip is 0.97 ms, its client's
/// 1460-byte segments leave 1.82 ms apart (its link's pace) and every prompt ACK of two
/// of them (frames 4012, 4037, 4040) comes 3.8–4.0 ms after the second; against the SYN
/// each read as "the path slowed down", against each other nothing grew. So each
/// direction's base is its data's own smallest round trip, and only ACKs of a
/// full-sized segment (a data sample's ACK number closes the segment it times) are
/// compared: not the SYN's, nor a short last segment's (frame 4041: the 120-byte end
/// of the transfer, 0.75 ms).
pub(super) fn path_round_trips(conn: &ConnectionSummary, p: &PacketColumns, samples: &dyn RttSource, tick: f64) -> DataRoundTrips {
    let rule = RoundTripRule::of(conn, tick);
    let whole = whole_flight_acks(p);
    let ends = segment_ends(p);
    let full: [f64; 2] = [0, 1].map(|x| f64::from(full_segment(&conn.handshake, &conn.directions[x].from, p, x as u8, mss_estimate(p, x as u8) as u32)));
    // The sample's ACK is a row of the peer at the sample's time (the same clock).
    let at = |v: &Vec<f64>, t: f64| {
        let k = v.partition_point(|&x| x < t - 1e-7);
        v.get(k).is_some_and(|&x| x <= t + 1e-7)
    };
    // Whether the ACK completing a sample of direction x's data at t closes a full-sized
    // segment of x's.
    let closes_full = |x: usize, t: f64| {
        let from = p.t.partition_point(|&u| u < t - 1e-7);
        (from..p.t.len()).take_while(|&i| p.t[i] <= t + 1e-7).filter(|&i| (p.dir[i] & 1) as usize != x && p.ack[i].is_finite()).any(|i| {
            let v = &ends[x];
            let k = v.partition_point(|&(e, _)| e < p.ack[i] - 0.5);
            v.get(k).is_some_and(|&(e, len)| (e - p.ack[i]).abs() <= 0.5 && full[x] > 0.0 && f64::from(len) >= full[x])
        })
    };
    let mut out = DataRoundTrips { trips: Vec::new(), base: [f64::NAN; 2] };
    rule.for_each(samples, &mut |t, dir, measured_ms, round_trip_ms, kind| {
        let x = (dir & 1) as usize;
        if kind & EXCLUDED != 0 || rule.follows[x] || !closes_full(x, t) {
            return;
        }
        let rtt = round_trip_ms / 1000.0;
        out.base[x] = out.base[x].min(rtt);
        let timer_could_hold = measured_ms <= DELAYED_ACK_MAX_MS;
        let held = kind & ANSWERED != 0 || (timer_could_hold && (kind & DELAYABLE != 0 || at(&whole[x], t)));
        if !held {
            out.trips.push((t, rtt, x as u8));
        }
    });
    out.trips.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}
