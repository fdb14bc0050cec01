//! Nagle holds shorter than the stall threshold (issue 39 review X, class
//! C-SUBTHRESHOLD-TIME-AS-PATH; docs/ANALYSIS.md "diagnosis.text", *Nagle holds below
//! the stall threshold*).
//!
//! Stall rule 5b (stalls/delayed_ack.rs) names Nagle's algorithm meeting the peer's
//! delayed ACK only in gaps above the stall threshold. A request/response exchange on a
//! long path repeats the same hold once per message, each shorter than the threshold
//! (4 round trips): a server writing "+OK\r\n" and then the body in a second call holds
//! the body (RFC 896; RFC 1122 §4.2.3.4) until the client's ACK of the "+OK", which the
//! client delays (RFC 1122 §4.2.3.2: up to 500 ms; 40 ms and up in use) because it has
//! nothing to send. Each such gap would otherwise count as the congestion window's or
//! the path's time. The same evidence as rule 5b, per gap between two consecutive data
//! segments of the sender that is none of its stalls:
//! - the first segment is smaller than a full one, and the peer's first ACK covering
//!   it is a pure ACK that came before the next segment, with no data of the peer's in
//!   the gap (a message of the peer's makes it a turn);
//! - that ACK was held at least `delayed_ack::MIN_HOLD_S` and at most
//!   `delayed_ack::MAX_HOLD_S` (RFC 9293 §3.8.6.3: a delayed ACK leaves within 0.5 s)
//!   past the moment a prompt one was due (nagle_shape.rs `ack_due`);
//! - both segments are new data (none below the highest byte sent before it): Nagle's
//!   algorithm holds new data only, and during a loss recovery each re-send released by
//!   a partial ACK (RFC 6582) is the recovery's pace, while a receiver holding
//!   out-of-order data acknowledges at once (RFC 5681 §4.2), so its ACK is no delayed one;
//! - what ended the gap is what Nagle holds (nagle_shape.rs `held_by_nagle`): small, or
//!   after a lone small write;
//! - and it left as the ACK reached the sender: it passed the capture point one round
//!   trip capture → sender → capture after the ACK did (the sender's lag, the least that
//!   round trip was measured; 0 at the sender) — no sooner than that, less a millisecond
//!   or a clock tick (an ACK cannot release what has already left), and no later than
//!   that plus the larger of a millisecond, a clock tick and a quarter of the round trip
//!   (the jitter of a queue on the way). An application's own next write is not timed by
//!   an ACK it cannot see.
//!
//! Each such gap, from the small segment to the one released, is the stacks' time:
//! without the hold the second write would have left behind the first.

use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::cause::Stall;
use crate::analysis::stalls::delayed_ack::{MAX_HOLD_S, MIN_HOLD_S};
use crate::analysis::stalls::is_data_segment;
use crate::analysis::stalls::nagle_shape::{ack_due, held_by_nagle, nagle_disproved, slack};

const SYN: u32 = crate::decode::tcp_flags::SYN as u32;

/// The holds found ([`holds`]): their time, from each small segment to the segment released.
pub type NagleHolds = super::super::nagle_turns::NagleTally;

/// The round trips a hold is read against, s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Legs {
    /// Capture point → receiver → capture point (path RTT less the sender's lag).
    pub to_receiver: f64,
    /// Capture point → sender → capture point (the sender's lag).
    pub to_sender: f64,
    /// The capture clock's tick (NaN: unknown).
    pub tick: f64,
    /// Whether `to_sender` was measured apart from the ACK → data pairs judged here (a
    /// handshake, timestamps, or 0 at the sender). A lag read from those pairs
    /// (stalls/far_estimate.rs) would time each release against itself: no hold counts.
    pub measured: bool,
}

/// The Nagle holds of direction `dir` in the gaps between its consecutive data
/// segments that are none of its `stalls` (module comment), up to `until` (capture
/// time); None where there is none. `full`: a full segment's payload for the sender.
pub fn holds(p: &PacketColumns, dir: u8, stalls: &[Stall], full: u32, legs: Legs, until: f64) -> Option<NagleHolds> {
    let clock = [1e-3, legs.tick].into_iter().filter(|v| v.is_finite()).fold(0.0, f64::max);
    let jitter = slack(legs.to_sender, legs.tick);
    if !legs.measured || nagle_disproved(p, dir, full, legs.to_sender, jitter) {
        return None; // a circular release test, or Nagle off at this sender
    }
    // Each hold's (data → data, ACK → data) spacing, for the clock test below.
    let mut spacing: Vec<(f64, f64)> = Vec::new();
    let mut out: Option<NagleHolds> = None;
    // The previous data segment, whether it was new data, and the highest byte sent.
    let (mut prev, mut high): (Option<(usize, bool)>, f64) = (None, f64::NEG_INFINITY);
    for k in (0..p.t.len()).filter(|&k| is_data_segment(p, k, dir)) {
        if p.t[k] > until {
            break;
        }
        let new = p.seq[k] >= high;
        high = high.max(p.seq[k] + f64::from(p.len[k]));
        let Some((i, i_new)) = prev.replace((k, new)) else { continue };
        if !(new && i_new) {
            continue; // a re-send on either side: recovery, not Nagle
        }
        let Some(j) = hold_ack(p, dir, i, k, full) else { continue };
        if stalls.iter().any(|s| s.start < p.t[k] && s.start + s.duration > p.t[i]) {
            continue; // a stall: its own cause says it
        }
        let release = p.t[k] - p.t[j];
        let held = p.t[j] - ack_due(p, dir, i, j, legs.to_receiver);
        let timed = release >= legs.to_sender - clock && release <= legs.to_sender + jitter;
        if !(MIN_HOLD_S..=MAX_HOLD_S).contains(&held) || !timed || !held_by_nagle(p, dir, i, k, full) {
            continue;
        }
        let gap = p.t[k] - p.t[i];
        spacing.push((gap, release));
        NagleHolds::add(&mut out, gap, (i, j, k));
    }
    (!own_clock(&spacing)).then_some(out).flatten()
}

/// Whether the sender kept its own clock: over 3 holds or more, its data-to-data
/// spacing was steadier (a smaller standard deviation) than its ACK-to-data spacing.
/// A segment released by an ACK follows the ACK, so the gap (the ACK's delay plus the
/// release) varies at least as much as the release; a timer's segment follows the one
/// before, and the release is what varies (review Y: a TLS push every 500 ms ± 3 ms,
/// released 449–461 ms after ACKs held 40–50 ms).
fn own_clock(spacing: &[(f64, f64)]) -> bool {
    let n = spacing.len() as f64;
    if spacing.len() < 3 {
        return false;
    }
    let sd = |v: &dyn Fn(&(f64, f64)) -> f64| {
        let mean = spacing.iter().map(v).sum::<f64>() / n;
        (spacing.iter().map(|x| (v(x) - mean).powi(2)).sum::<f64>() / n).sqrt()
    };
    sd(&|x| x.0) < sd(&|x| x.1)
}

/// The peer's pure ACK that first covered the small segment at row `i`, before the
/// next data segment at row `k` (new data), with no data of the peer's between: None
/// where the gap is not shaped so.
fn hold_ack(p: &PacketColumns, dir: u8, i: usize, k: usize, full: u32) -> Option<usize> {
    let end = p.seq[i] + f64::from(p.len[i]);
    if p.len[i] >= full || p.seq[k] < end {
        return None;
    }
    if (i + 1..k).any(|r| p.dir[r] != dir && p.len[r] > 0) {
        return None; // the peer spoke: a turn
    }
    let j = (i + 1..k).find(|&r| p.dir[r] != dir && p.flags[r] & SYN == 0 && p.ack[r] >= end)?;
    (p.len[j] == 0).then_some(j)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::stalls::testkit::Cols;

    const LEGS_AT_RECEIVER: Legs = Legs { to_receiver: 0.0002, to_sender: 0.079, tick: f64::NAN, measured: true };

    /// A POP3 TOP turn seen at the client, on a 79 ms path (the client's host 0.2 ms
    /// away): the server's 5-byte "+OK" at 1.000 s, the client's pure ACK of it 41 ms
    /// later (its delayed-ACK timer: a prompt one was due 0.2 ms after the segment),
    /// the 662-byte body 90 ms after that ACK — the ACK's way to the server (79 ms)
    /// plus 11 ms, within a quarter of that round trip (19.75 ms). The gap, 1.000 →
    /// 1.131 s, is 131 ms, below a 316-ms threshold: one hold of 131 ms.
    fn turn(cols: &mut Cols, t: f64, seq: f64, release_after_ack: f64) {
        cols.data(t, 0, seq, 5);
        cols.ack(t + 0.041, 1, seq + 5.0, 131584.0);
        cols.data(t + 0.041 + release_after_ack, 0, seq + 5.0, 662);
        cols.ack(t + 0.041 + release_after_ack + 0.040, 1, seq + 667.0, 131584.0);
    }

    #[test]
    fn a_small_segment_held_for_the_delayed_ack_below_the_threshold_is_a_hold() {
        let mut c = Cols::new(131584.0);
        turn(&mut c, 1.0, 1.0, 0.090);
        turn(&mut c, 3.0, 668.0, 0.090);
        let h = holds(&c.c.packets, 0, &[], 1358, LEGS_AT_RECEIVER, f64::INFINITY).expect("two holds");
        assert_eq!(h.count, 2);
        // 2 × (0.041 + 0.090) = 0.262 s.
        assert!((h.seconds - 0.262).abs() < 1e-9, "{h:?}");
        // Row 0 is the handshake's ACK (the testkit's): the first turn's rows are 1, 2, 3.
        assert_eq!(h.longest, (1, 2, 3));
    }

    #[test]
    fn a_release_not_timed_by_the_ack_is_no_hold() {
        // The body 150 ms after the ACK: 71 ms beyond the 79-ms way to the sender,
        // more than the 19.75-ms allowance — the application's own next write.
        let mut c = Cols::new(131584.0);
        turn(&mut c, 1.0, 1.0, 0.150);
        assert_eq!(holds(&c.c.packets, 0, &[], 1358, LEGS_AT_RECEIVER, f64::INFINITY), None);
        // At the sender (no lag) the held segment leaves within a millisecond of the
        // ACK: 90 ms after it is not the ACK's doing.
        let mut c = Cols::new(131584.0);
        turn(&mut c, 1.0, 1.0, 0.090);
        assert_eq!(holds(&c.c.packets, 0, &[], 1358, Legs { to_receiver: 0.079, to_sender: 0.0, tick: f64::NAN, measured: true }, f64::INFINITY), None);
    }

    #[test]
    fn a_release_sooner_than_the_round_trip_or_a_re_send_is_no_hold() {
        // The body 70 ms after the ACK at the client: 9 ms sooner than the ACK could
        // have reached the server (79 ms) and the body come back — it had left already.
        let mut c = Cols::new(131584.0);
        turn(&mut c, 1.0, 1.0, 0.070);
        assert_eq!(holds(&c.c.packets, 0, &[], 1358, LEGS_AT_RECEIVER, f64::INFINITY), None);
        // A loss recovery's re-sends, each released by a partial ACK one round trip after
        // the one before: 1,000 bytes sent (1..1001) and lost; re-sent as 500 + 500
        // bytes, the receiver's ACK of the first re-send 41 ms after it, the second re-send
        // 85 ms after that ACK — the shape of a hold, but re-sends.
        let mut c = Cols::new(131584.0);
        c.data(0.5, 0, 1.0, 1000);
        c.data(1.0, 0, 1.0, 500);
        c.ack(1.041, 1, 501.0, 131584.0);
        c.data(1.126, 0, 501.0, 500);
        assert_eq!(holds(&c.c.packets, 0, &[], 1358, LEGS_AT_RECEIVER, f64::INFINITY), None);
    }

    #[test]
    fn a_prompt_ack_or_a_peer_message_is_no_hold() {
        // The ACK 15 ms after the segment: below the 20-ms least delayed-ACK hold.
        let mut c = Cols::new(131584.0);
        c.data(1.0, 0, 1.0, 5);
        c.ack(1.015, 1, 6.0, 131584.0);
        c.data(1.105, 0, 6.0, 662);
        assert_eq!(holds(&c.c.packets, 0, &[], 1358, LEGS_AT_RECEIVER, f64::INFINITY), None);
        // The peer's 10-byte message in the gap: a turn, whatever the ACK's delay.
        let mut c = Cols::new(131584.0);
        c.data(1.0, 0, 1.0, 5);
        c.ack(1.041, 1, 6.0, 131584.0);
        c.data(1.060, 1, 1.0, 10);
        c.data(1.131, 0, 6.0, 662);
        assert_eq!(holds(&c.c.packets, 0, &[], 1358, LEGS_AT_RECEIVER, f64::INFINITY), None);
    }

    #[test]
    fn no_hold_where_the_sender_sent_small_segments_unacknowledged_or_the_lag_is_the_releases() {
        // Two holds (the first test), and then a 5-byte segment at 5.000 s, ACKed at
        // 5.041 s, and a 10-byte one at 5.050 s: 9 ms after that ACK on a 79-ms way to
        // the sender (less a quarter of it, 59.25 ms), so it left while the 5 bytes were
        // unacknowledged there — Nagle's algorithm would have held it: off at this
        // sender, and neither earlier hold is Nagle's.
        let mut c = Cols::new(131584.0);
        turn(&mut c, 1.0, 1.0, 0.090);
        turn(&mut c, 3.0, 668.0, 0.090);
        c.data(5.0, 0, 1335.0, 5);
        c.ack(5.041, 1, 1340.0, 131584.0);
        c.data(5.050, 0, 1340.0, 10);
        assert_eq!(holds(&c.c.packets, 0, &[], 1358, LEGS_AT_RECEIVER, f64::INFINITY), None);
        // The two holds alone, with the 79 ms read from these ACK → data pairs (no
        // handshake or timestamp measured it): the release test would be circular.
        let mut c = Cols::new(131584.0);
        turn(&mut c, 1.0, 1.0, 0.090);
        turn(&mut c, 3.0, 668.0, 0.090);
        assert_eq!(holds(&c.c.packets, 0, &[], 1358, Legs { measured: false, ..LEGS_AT_RECEIVER }, f64::INFINITY), None);
    }

    #[test]
    fn a_sender_on_its_own_clock_is_not_released_by_the_acks() {
        // A 100-byte record every 500 ms (gaps 500, 501, 499, 500 ms: sd 0.71 ms), each
        // ACKed 40, 50, 45, 42 ms after it (the receiver's delayed-ACK timer), on a 450-ms
        // way to the sender measured apart: the next record 460, 451, 454, 458 ms after
        // each ACK (sd 3.5 ms), all within 450 ms − 1 ms … 450 + 112.5 ms. Four gaps shaped
        // as holds, but the data → data spacing is the steadier: a timer, not the ACK.
        let legs = Legs { to_receiver: 0.0002, to_sender: 0.450, tick: f64::NAN, measured: true };
        let (t, delay) = ([1.0, 1.5, 2.001, 2.5, 3.0], [0.040, 0.050, 0.045, 0.042]);
        let mut c = Cols::new(131584.0);
        for n in 0..5 {
            c.data(t[n], 0, 1.0 + 100.0 * n as f64, 100);
            if n < 4 {
                c.ack(t[n] + delay[n], 1, 101.0 + 100.0 * n as f64, 131584.0);
            }
        }
        assert_eq!(holds(&c.c.packets, 0, &[], 1358, legs, f64::INFINITY), None);
        // The same ACKs, each record released 455 ms after its ACK (the ACK-to-data
        // spacing steady, sd 0): four holds of 495, 505, 500, 497 ms = 1.997 s.
        let mut c = Cols::new(131584.0);
        let mut at = 1.0;
        for n in 0..5 {
            c.data(at, 0, 1.0 + 100.0 * n as f64, 100);
            if n < 4 {
                c.ack(at + delay[n], 1, 101.0 + 100.0 * n as f64, 131584.0);
                at += delay[n] + 0.455;
            }
        }
        let h = holds(&c.c.packets, 0, &[], 1358, legs, f64::INFINITY).expect("four holds");
        assert_eq!(h.count, 4);
        assert!((h.seconds - 1.997).abs() < 1e-9, "{h:?}");
    }
}
