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

/// The connection's trusted full round trips as (completed at s, round trip s), in time
/// order, less those a receiver's held ACK may explain (module doc). `samples`, `tick`:
/// the RTT samples and the clock.
pub(super) fn path_round_trips(conn: &ConnectionSummary, p: &PacketColumns, samples: &dyn RttSource, tick: f64) -> Vec<(f64, f64)> {
    let rule = RoundTripRule::of(conn, tick);
    let whole = whole_flight_acks(p);
    // The sample's ACK is a row of the peer at the sample's time (the same clock).
    let at = |v: &Vec<f64>, t: f64| {
        let k = v.partition_point(|&x| x < t - 1e-7);
        v.get(k).is_some_and(|&x| x <= t + 1e-7)
    };
    let mut out = Vec::new();
    rule.for_each(samples, &mut |t, dir, measured_ms, round_trip_ms, kind| {
        let d = (dir & 1) as usize;
        if kind & EXCLUDED != 0 || rule.follows[d] {
            return;
        }
        let timer_could_hold = measured_ms <= DELAYED_ACK_MAX_MS;
        let held = kind & ANSWERED != 0 || (timer_could_hold && (kind & DELAYABLE != 0 || at(&whole[d], t)));
        if !held {
            out.push((t, round_trip_ms / 1000.0));
        }
    });
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}
