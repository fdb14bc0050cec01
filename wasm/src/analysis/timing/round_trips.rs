//! One RTT sample → one full round trip: the one rule the RTT statistics, the RTT
//! chart, its CSV and the diagnosis's delay spikes share (docs/ANALYSIS.md "RTT").
//!
//! A sample measures one part of the round trip, cut at the capture point (vantage.rs:
//! the part towards this direction's receiver). The other part is added:
//! - where the measured part is the capturing host's own (a receiver-side capture's ACK
//!   delay for the data; a sender-side capture's turnaround for the ACKs), the other
//!   part is the whole path, queue included, and it changes with the queue: each sample
//!   adds the other direction's **latest** trusted sample, the far part measured at
//!   about the same time (Jiang & Dovrolis, SIGCOMM CCR 2002, §2, pair the two parts
//!   the same way), or that part's minimum before its first sample. A constant minimum
//!   there drew a flat 10 ms line for a download that waited 100 ms behind a queue;
//! - elsewhere the other part's minimum, `rtt.offsetMs`: at the data sender it is the
//!   sender's own turnaround (µs), which would only add its own noise; in the middle
//!   (a tap between the hosts) both parts are path and a queue on the other side stays
//!   hidden, but there both directions' samples often time applications (an SSH
//!   session's keystrokes answered in 49 ms on a 0.16 ms path, tcpdump's
//!   `mptcp-v0.pcap`), and each such sample added to every round trip of the other
//!   direction until the next one made "delay spikes" of it; vantage unknown: minima.

use crate::analysis::rows::columns::RttSource;
use crate::analysis::timing::vantage::Vantage;

/// Kind bit of a sample kept out of the statistics: the analysis's (rtt.rs) or,
/// from `RoundTripRule::for_each`, one below a clock tick.
pub const EXCLUDED: u8 = 2;
/// Kind bit of a timestamp echo by new data the peer sent because our segment let it
/// (track/conn.rs), not by an ACK of our data: at a receiver-side capture, the client's
/// ACK → the server's next data, the very part the data's round trip adds. An ACK of
/// the client's request times the server's ACK delay or think time instead (a BGP
/// peer's 40 ms delayed ACK made a 47 ms p95 93 ms, tcpdump's `bgp-lu-multiple-labels.pcap`).
pub const CLOCKED: u8 = 4;
/// Kind bit of a sample whose ACK the receiver may have delayed: it acknowledged less
/// than two full-sized segments (RFC 1122 §4.2.3.2, RFC 9293 §3.8.6.3: a receiver ACKs
/// at least every second full-sized segment and may hold the ACK of a lone one up to
/// 0.5 s; Linux ≥ 40 ms, Windows 200 ms), so the sample may include that hold (or the
/// receiver's think time, when the ACK rode on its answer). It counts in the statistics
/// like any other, but never raises a delay spike by itself (diagnosis_episodes.rs).
pub const DELAYABLE: u8 = 16;
/// Kind bit of a sample whose ACK rode on the receiver's new data (RFC 9293 §3.8.6.3:
/// a receiver may hold an ACK to send it with its own answer; RFC 1122 §4.2.3.2): the
/// sample times how long that host took to have data to send (a typist's next
/// keystroke, a server's think time), not the path. Always set with [`DELAYABLE`].
pub const ANSWERED: u8 = 32;
/// The longest a receiver may hold the ACK of a lone segment (RFC 1122 §4.2.3.2:
/// "the delay MUST be less than 0.5 seconds"; RFC 9293 §3.8.6.3), ms. A [`DELAYABLE`]
/// sample whose measured part is longer was not held by a delayed-ACK timer.
pub const DELAYED_ACK_MAX_MS: f64 = 500.0;

/// The least hold taken for a delayed-ACK timer's, ms: a lone segment's ACK within this
/// of the part's minimum left at once (a Linux receiver's quick ACK, a Windows one's
/// every-segment ACK); timers hold tens of ms (Linux ≥ 40 ms, Windows 200 ms) or, as a
/// BSD-style 200 ms heartbeat, anything up to it.
pub const DELAYED_ACK_MIN_HOLD_MS: f64 = 1.0;

/// Whether a sample (kind bits, measured part and that part's minimum, ms) times the
/// path rather than the receiver: not [`ANSWERED`], and not a [`DELAYABLE`] ACK of a lone
/// segment that came more than [`DELAYED_ACK_MIN_HOLD_MS`] after the part's minimum but
/// within [`DELAYED_ACK_MAX_MS`], a hold consistent with a delayed-ACK timer. Only such
/// samples show a queue ("median against minimum": a receiver that held each ACK 20 ms
/// for its timer on a 0.8 ms path is no queue). The RTT chart and the statistics keep
/// every sample; the queue's median is over these (`rtt.pathMedianMs`).
pub fn times_path(kind: u8, measured_ms: f64, part_min_ms: f64) -> bool {
    let held = measured_ms - part_min_ms > DELAYED_ACK_MIN_HOLD_MS && measured_ms <= DELAYED_ACK_MAX_MS;
    kind & EXCLUDED == 0 && kind & ANSWERED == 0 && !(kind & DELAYABLE != 0 && held)
}

/// Whether a sample is a pure ACK its receiver may have held for a delayed-ACK timer:
/// [`DELAYABLE`], not [`ANSWERED`], more than [`DELAYED_ACK_MIN_HOLD_MS`] above the part's
/// minimum and within [`DELAYED_ACK_MAX_MS`] (RFC 1122 §4.2.3.2), as in [`times_path`].
pub fn held_for_timer(kind: u8, measured_ms: f64, part_min_ms: f64) -> bool {
    let held = measured_ms - part_min_ms > DELAYED_ACK_MIN_HOLD_MS && measured_ms <= DELAYED_ACK_MAX_MS;
    kind & DELAYABLE != 0 && kind & ANSWERED == 0 && held
}

/// Kind bit `RoundTripRule::for_each` sets (never stored): the other part added was a
/// measured sample, not `offsetMs`. Where a direction follows and none of its round
/// trips has it, the far part is known only by its minimum (the handshake's, or an ACK
/// of the receiver's own data: `rtt.followedSamples`).
pub const FOLLOWED: u8 = 8;

/// How each direction's samples become round trips.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoundTripRule {
    /// The other part's minimum, ms (`rtt.offsetMs`).
    pub offset_ms: [f64; 2],
    /// Whether direction d adds the other direction's latest trusted sample instead
    /// (`rtt.offsetFollows`): d's own measured part is the capturing host's (its ACK
    /// delay or turnaround), the other the whole path. Its round trips add nothing to
    /// what the other direction measures but that host's delay (the delay spikes skip
    /// them).
    pub follows: [bool; 2],
    /// Kind bits a sample of direction d needs to serve as the other part: at a
    /// receiver-side capture the far part is the sender's data clocked out by the
    /// receiver's ACK ([`CLOCKED`]); at a sender-side one any trusted data sample — in
    /// both cases not a pure ACK held for a delayed-ACK timer ([`held_for_timer`]).
    pub serves_with: [u8; 2],
    /// The capture clock's resolution, ms (0: fine): a sample below it only says
    /// "less than a tick" and is left out (docs/ANALYSIS.md "RTT").
    pub tick_ms: f64,
}

impl RoundTripRule {
    /// `data_dir`'s part is local at a receiver-side capture, the other direction's at
    /// a sender-side one, neither in the middle (vantage.rs `path_rtt`). `tick_s`: the
    /// clock's resolution.
    pub fn new(vantage: Vantage, data_dir: u8, offset_ms: [f64; 2], tick_s: f64) -> RoundTripRule {
        RoundTripRule { offset_ms, follows: local_parts(vantage, data_dir), serves_with: serves_with(vantage, data_dir), tick_ms: tick_ms(tick_s) }
    }

    /// The rule a summary recorded: each direction's offset and whether it follows
    /// (report.rs `RoundTripRule::of` reads them from a connection's summary).
    pub(crate) fn recorded(vantage: Vantage, data_dir: u8, offset_ms: [f64; 2], follows: [bool; 2], tick_s: f64) -> RoundTripRule {
        RoundTripRule { offset_ms, follows, serves_with: serves_with(vantage, data_dir), tick_ms: tick_ms(tick_s) }
    }

    /// Calls `f(t s, dir, measured ms, round trip ms, kind)` for every sample of
    /// `samples`, in their order (capture order, which every caller shares). `kind` is
    /// the sample's with [`FOLLOWED`] set where the other part was a measured sample,
    /// and [`EXCLUDED`] also set below one clock tick: the measured part
    /// where the other part is a constant (a whole round trip below a tick), the round
    /// trip where it follows (a local part below a tick is the usual case there).
    /// Excluded samples get a round trip too (the chart marks them) but never serve as
    /// the other part.
    pub fn for_each(&self, samples: &dyn RttSource, f: &mut dyn FnMut(f64, u8, f64, f64, u8)) {
        let mut latest: [Option<f64>; 2] = [None; 2];
        samples.for_each_rtt_ms(&mut |t, dir, measured_ms, kind| {
            let d = (dir & 1) as usize;
            let (other, followed) = match latest[1 - d] {
                Some(ms) if self.follows[d] => (ms, FOLLOWED),
                _ => (self.offset_ms[d], 0),
            };
            let round_trip_ms = measured_ms + other;
            let judged = if self.follows[d] { round_trip_ms } else { measured_ms };
            let below_tick = self.tick_ms > 0.0 && judged < self.tick_ms;
            let kind = followed | if below_tick || !measured_ms.is_finite() { kind | EXCLUDED } else { kind };
            f(t, dir, measured_ms, round_trip_ms, kind);
            // A pure ACK its receiver held for a delayed-ACK timer ([`held_for_timer`]) never
            // serves as the far part: kholia VNC_06 #0, a client's 196 ms delayed ACK of the
            // server's first data added to every later round trip of the client's own data
            // (each ACKed ≤ 0.5 ms). An ACK riding on the receiver's answer still serves: in
            // a request/response exchange through a queue it is the only sample, and it
            // moves with the queue (bufferbloat.pcap #2: 94–125 ms on an 82 ms minimum).
            let serves = kind & self.serves_with[d] == self.serves_with[d] && !held_for_timer(kind, measured_ms, self.offset_ms[1 - d]);
            if kind & EXCLUDED == 0 && serves {
                latest[d] = Some(measured_ms);
            }
        });
    }
}

/// Which direction's measured part is the capturing host's own.
fn local_parts(vantage: Vantage, data_dir: u8) -> [bool; 2] {
    let d = (data_dir & 1) as usize;
    let mut local = [false; 2];
    match vantage {
        Vantage::Receiver => local[d] = true,
        Vantage::Sender => local[1 - d] = true,
        Vantage::Middle | Vantage::Unknown => {}
    }
    local
}

/// [`RoundTripRule::serves_with`].
fn serves_with(vantage: Vantage, data_dir: u8) -> [u8; 2] {
    let d = (data_dir & 1) as usize;
    let mut needs = [0; 2];
    if vantage == Vantage::Receiver {
        needs[1 - d] = CLOCKED;
    }
    needs
}

/// The tick in ms, computed one way for the statistics, the chart and the diagnosis.
fn tick_ms(tick_s: f64) -> f64 {
    if tick_s.is_finite() && tick_s > 0.0 { tick_s * 1000.0 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::rows::columns::RttColumns;

    fn walk(rule: RoundTripRule, rows: &[(f64, u8, f64, u8)]) -> Vec<(u8, f64)> {
        let cols = RttColumns {
            t: rows.iter().map(|r| r.0).collect(),
            dir: rows.iter().map(|r| r.1).collect(),
            rtt_ms: rows.iter().map(|r| r.2).collect(),
            kind: rows.iter().map(|r| r.3).collect(),
        };
        let mut out = Vec::new();
        rule.for_each(&cols, &mut |_, d, _, ms, _| out.push((d, ms)));
        out
    }

    #[test]
    fn at_the_receiver_the_data_adds_the_far_part_as_last_measured() {
        // A download captured at the client: the data (dir 1) is ACKed 0.05 ms after it
        // arrives; the client's segments come back in 10 ms, then 100 ms once a queue
        // built up. Minimum far part 10 ms.
        let rule = RoundTripRule::new(Vantage::Receiver, 1, [0.05, 10.0], 0.0);
        assert_eq!(rule.follows, [false, true]);
        let rows = [
            (0.10, 1, 0.05, 0), // before any far sample: + the 10 ms minimum
            (0.11, 0, 10.0, 5), // the server's data clocked by the client's ACK (CLOCKED)
            (0.12, 1, 0.05, 0), // + 10
            (0.50, 0, 100.0, 5),
            (0.505, 0, 300.0, 1), // an echo by an ACK of the client's data: not the far part
            (0.51, 1, 0.05, 0), // + 100: the queue, which a constant 10 ms hid
            (0.60, 0, 900.0, 7), // clocked but excluded (an echo across idle time): not the far part
            (0.61, 1, 40.0, 0),  // a delayed ACK: 40 + 100, as the sender timed it
        ];
        let got = walk(rule, &rows);
        assert_eq!(got, vec![(1, 10.05), (0, 10.05), (1, 10.05), (0, 100.05), (0, 300.05), (1, 100.05), (0, 900.05), (1, 140.0)]);
    }

    #[test]
    fn at_the_sender_the_data_adds_the_minimum_turnaround() {
        // Sender-side: the data's samples are the path; the ACK direction's (the
        // sender's own turnaround, µs) follow the path.
        let rule = RoundTripRule::new(Vantage::Sender, 0, [0.003, 10.0], 0.0);
        assert_eq!(rule.follows, [false, true]);
        let got = walk(rule, &[(0.1, 0, 30.0, 0), (0.2, 0, 12.0, 0), (0.3, 1, 0.004, 1)]);
        assert_eq!(got, vec![(0, 30.003), (0, 12.003), (1, 12.004)]);
        // In the middle, or unknown: minima only.
        assert_eq!(RoundTripRule::new(Vantage::Middle, 0, [1.0, 2.0], 0.0).follows, [false, false]);
        assert_eq!(RoundTripRule::new(Vantage::Unknown, 0, [1.0, 2.0], 0.0).follows, [false, false]);
    }

    #[test]
    fn a_delayed_ack_hold_never_serves_as_the_far_part() {
        // kholia VNC_06 #0 at the sender (data dir 1, the server's): the client held the ACK
        // of the server's lone first segment 196 ms (DELAYABLE, 196 ms above the part's
        // 0.4 ms minimum, within RFC 1122's 0.5 s). The client's own data (dir 0, its
        // part the sender-side turnaround 0.3 ms) must add the path's 0.4 ms, not the hold.
        let rule = RoundTripRule::new(Vantage::Sender, 1, [0.4, 0.02], 0.0);
        assert_eq!(rule.follows, [true, false]);
        let rows = [(0.1, 1, 196.0, DELAYABLE), (0.2, 0, 0.3, 0), (0.3, 1, 0.5, 0), (0.4, 0, 0.3, 0)];
        let got = walk(rule, &rows);
        // 0.3 + 0.4 (the minimum: the hold did not serve), then 0.3 + 0.5 (the latest path sample).
        assert_eq!(got, vec![(1, 196.02), (0, 0.7), (1, 0.52), (0, 0.8)]);
    }

    #[test]
    fn a_sample_below_a_tick_is_judged_by_what_it_measures() {
        // A 10 ms capture clock at a client: its ACKs leave in the same tick as the
        // data (0 ms measured) and count, as 0 + the 40 ms far part; a far-part sample
        // of 0 ms says only "less than a tick" and neither counts nor becomes the far
        // part.
        let rule = RoundTripRule::new(Vantage::Receiver, 1, [0.0, 40.0], 0.010);
        let mut got = Vec::new();
        let cols = RttColumns { t: vec![0.1, 0.2, 0.3], dir: vec![0, 0, 1], rtt_ms: vec![50.0, 0.0, 0.0], kind: vec![5, 5, 0] };
        rule.for_each(&cols, &mut |_, d, _, ms, kind| got.push((d, ms, kind & EXCLUDED != 0)));
        assert_eq!(got, vec![(0, 50.0, false), (0, 0.0, true), (1, 50.0, false)]);
    }
}
