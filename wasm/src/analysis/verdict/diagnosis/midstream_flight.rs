//! A capture that opens in the middle of a transfer, with a flight already in progress
//! (review AJ class C-MIDSTREAM-QUEUE-AS-PATH-RTT; docs/ANALYSIS.md "A transfer already
//! under way").
//!
//! The `too-short` headline says a flow "needs at least 10 data segments over 4 round
//! trips to leave slow start": true of a flow whose start is in the capture. Where the
//! sender's first captured data lies more than an initial window beyond the receiver's
//! ACK (RFC 6928: at most 10 segments before the first ACK), the window had already grown
//! past its first round trip before the capture began: the flow's start and its slow start
//! are not in the capture, and its round trips (the path RTT is their minimum) all carry
//! that backlog — an upper bound of the path's own RTT, not a measure of it.
//!
//! Where, over at least one of those round trips, the flight did not grow by the half
//! that slow start adds per round trip (RFC 5681 §3.1: up to twice the flight, 1.5× with
//! delayed ACKs), and it never fell below an initial window, the sender kept a standing
//! backlog: the receiver's ACKs then advance at the rate the path's bottleneck delivered
//! (draft-cheng-iccrg-delivery-rate-estimation §1), and at that rate the backlog takes
//! about as long as the round trips it fills. The headline is then the path's capacity
//! (`path`), told from the ACK clock. kannaammulu25 `computer-networks-CPT/udp.pcapng` #0:
//! the first data (frame 3) 232,700 B beyond the ACK (frame 2), every send 50–100 µs after
//! an ACK, the ACKs advancing a steady ~0.86 Mbit/s, "path RTT 1.8 s" = 2.2 s of backlog
//! at that rate; once read "Too short to judge … to leave slow start".

use super::*;
use crate::analysis::rows::columns::flag_bits::ANY_RETRANSMISSION;
use crate::analysis::stalls::is_data_segment;

/// Segments a sender may send before its first ACK (RFC 6928 §2: an initial window of
/// at most 10 segments, and of 14,600 B for an MSS up to 1,460: [`initial_window`]): a
/// first captured segment further than that beyond the receiver's ACK was sent by a
/// window that had grown, past the flow's first round trip.
const INITIAL_WINDOW_SEGMENTS: f64 = 10.0;
/// Growth of the flight over a round trip that slow start shows (RFC 5681 §3.1, 1.5×
/// with an ACK every other segment, as slow_start_words.rs `SLOW_START_GROWTH`).
const SLOW_START_GROWTH: f64 = 1.5;
/// A send this soon after an ACK that freed room was released by it (a host sends on
/// the ACK's arrival: tens of µs at the sender's own capture).
const CLOCK_DELAY_S: f64 = 0.001;
/// Share of the bursts released by an ACK for the sender to be called ACK-clocked.
const CLOCKED_SHARE: f64 = 0.8;
/// The ACKs' rate is "steady" where each quarter of their time advanced within this
/// share of the mean (a bottleneck's constant rate, not a ramp or stalls).
const STEADY_SPREAD: f64 = 1.0 / 3.0;

/// What the capture shows of a transfer already under way ([`mid_flight`]).
pub(super) struct MidFlight {
    /// Rows of the first captured data segment and of the peer's ACK it lies beyond.
    first: usize,
    acked: usize,
    /// Bytes of the sender's beyond that ACK at its first captured data (unacknowledged
    /// data sent before the capture began).
    backlog: f64,
    /// Bytes in flight (the sender's highest byte less the peer's ACK) at the first
    /// data segment, their least and largest at the data segments up to the transfer's end.
    flight: (f64, f64, f64),
    /// An ACK covered the first captured data before the data ended: the capture holds
    /// at least one of the flow's round trips while it sent.
    round: bool,
    /// (bursts released within [`CLOCK_DELAY_S`] of an ACK that freed room, bursts) at a
    /// sender-side capture.
    clock: Option<(usize, usize)>,
    /// (first advancing ACK's row, last, bytes they advanced, seconds, steady).
    acks: Option<(usize, usize, f64, f64, bool)>,
}

/// The connection's transfer already under way at the capture's start, if it was (the
/// module comment): no handshake, and the first data segment more than an initial
/// window beyond the peer's first ACK after it.
pub(super) fn mid_flight(f: &Facts) -> Option<MidFlight> {
    if f.conn.handshake_seen {
        return None;
    }
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let end = f.sh.transfer_end.as_ref().map_or(f64::INFINITY, |e| e.at);
    let ours = |i: usize| is_data_segment(p, i, d) && p.t[i] <= end;
    let theirs = |i: usize| p.dir[i] != d && p.ack[i].is_finite();
    let first = (0..p.t.len()).find(|&i| ours(i))?;
    // The peer's first ACK after that segment left: an older one may be stale (ACKs the
    // capture missed in between), this one shows the backlog still unacknowledged.
    let acked = (first..p.t.len()).find(|&i| theirs(i))?;
    let backlog = p.seq[first] - p.ack[acked];
    if !(backlog > initial_window(f)) {
        return None;
    }
    let last = (first..p.t.len()).rev().find(|&i| ours(i))?;
    // The flight at each data segment, from the highest byte sent and the ACK seen.
    let (mut high, mut una) = (f64::NEG_INFINITY, p.ack[acked]);
    let (mut at_first, mut least, mut most) = (f64::NAN, f64::INFINITY, 0.0_f64);
    let mut round = false;
    let (mut bursts, mut clocked, mut freed_at) = (0, 0, None::<f64>);
    let mut prev_ours = false;
    for i in first..=last {
        if p.dir[i] != d {
            if theirs(i) && p.ack[i] > una {
                una = p.ack[i];
                freed_at = Some(p.t[i]);
                round |= una >= p.seq[first] + f64::from(p.len[first]);
            }
            prev_ours = false;
            continue;
        }
        if !ours(i) {
            continue;
        }
        high = high.max(p.seq[i] + f64::from(p.len[i]));
        let flight = high - una;
        if i == first {
            at_first = flight;
        }
        (least, most) = (least.min(flight), most.max(flight));
        // A burst: new data after a packet of the peer's. Released by an ACK that freed
        // room when it left within CLOCK_DELAY_S of it.
        if i > first && !prev_ours && p.flags[i] & ANY_RETRANSMISSION == 0 {
            bursts += 1;
            clocked += usize::from(freed_at.is_some_and(|t| p.t[i] - t <= CLOCK_DELAY_S));
        }
        freed_at = None;
        prev_ours = true;
    }
    let sender_side = f.conn.vantage == crate::analysis::timing::vantage::Vantage::Sender;
    let clock = (sender_side && bursts > 0).then_some((clocked, bursts));
    Some(MidFlight { first, acked, backlog, flight: (at_first, least, most), round, clock, acks: ack_rate(f, acked, high) })
}

/// The largest initial window RFC 6928 §2 allows, bytes: min(10 × MSS, max(2 × MSS,
/// 14,600)) is at most 14,600 B for an MSS up to 1,460 and at most 10 segments above it.
fn initial_window(f: &Facts) -> f64 {
    (INITIAL_WINDOW_SEGMENTS * real_segment_bytes(f)).max(14_600.0)
}

/// The peer's cumulative ACK from row `from` to the first ACK of everything captured
/// (`high`, else its last): (first row, last row, bytes, seconds, steady: each quarter
/// of the time within [`STEADY_SPREAD`] of the mean).
fn ack_rate(f: &Facts, from: usize, high: f64) -> Option<(usize, usize, f64, f64, bool)> {
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let mut points: Vec<(usize, f64, f64)> = vec![(from, p.t[from], p.ack[from])];
    for i in from + 1..p.t.len() {
        if p.dir[i] != d && p.ack[i] > points.last()?.2 {
            points.push((i, p.t[i], p.ack[i]));
            if p.ack[i] >= high {
                break;
            }
        }
    }
    let (a, b) = (points.first()?, points.last()?);
    let (bytes, seconds) = (b.2 - a.2, b.1 - a.1);
    if points.len() < 8 || !(seconds > 0.0) || !(bytes > 0.0) {
        return None;
    }
    // Each quarter's advance: the ACK reached at its end (the last ACK at or before).
    let reached = |t: f64| points.iter().take_while(|q| q.1 <= t).last().map_or(a.2, |q| q.2);
    let mean = bytes / 4.0;
    let steady = (0..4).all(|k| {
        let (t0, t1) = (a.1 + seconds * k as f64 / 4.0, a.1 + seconds * (k + 1) as f64 / 4.0);
        ((reached(t1) - reached(t0)) - mean).abs() <= STEADY_SPREAD * mean
    });
    Some((a.0, b.0, bytes, seconds, steady))
}

/// The headline of a transfer already under way that the `too-short` rule caught (the
/// module comment): `path` from the ACK clock where the sender kept a standing backlog
/// that did not grow as slow start grows it, else `too-short` without the slow-start
/// sentence, which needs the flow's start.
pub(super) fn headline(f: &Facts) -> Option<(&'static str, String)> {
    let m = mid_flight(f)?;
    let p = f.rows.packets;
    let (at_first, least, most) = m.flight;
    let start = format!(
        "The capture starts in the middle of a transfer: the sender's first captured data (frame {}) lies {} beyond the receiver's next ACK (frame {}), \
         more than the initial window a flow may send before its first ACK (10 segments, at most 14,600 B for a 1,460-B MSS: RFC 6928), so the flow's start and its slow start are not in the capture",
        p.frame[m.first],
        format_bytes(m.backlog),
        p.frame[m.acked]
    );
    let Some((from, to, bytes, seconds, steady)) = m.acks.filter(|_| m.round && most < SLOW_START_GROWTH * at_first && least > initial_window(f)) else {
        return Some((
            "too-short",
            format!(
                "Too short to judge: {} in {}. {start}: the capture shows a stretch of a longer transfer, and every round trip it measured ({}) was behind that backlog.",
                super::wire_segments::count_phrase(f),
                format_duration(f.sh.active.max(0.0)),
                rtt_phrase(f)
            ),
        ));
    };
    let rate = 8.0 * bytes / seconds;
    let clock = match m.clock {
        Some((n, of)) if n as f64 >= CLOCKED_SHARE * of as f64 => format!(
            " {n} of its {of} bursts left within {} of an ACK that freed room: the sender was ACK-clocked, sending as fast as the ACKs came back.",
            format_duration(CLOCK_DELAY_S)
        ),
        _ => String::new(),
    };
    // Little's law: the backlog at the bottleneck's rate is the time it waited.
    let drain = 8.0 * m.backlog / rate;
    let queue = if f.min_rtt.is_finite() && drain >= 0.5 * f.min_rtt {
        format!(
            " At that rate the backlog alone takes {} to deliver: the round trips ({}) are mostly that queue, an upper bound of the path's own RTT.",
            format_duration(drain),
            rtt_phrase(f)
        )
    } else {
        " The round trips measured carry that backlog: an upper bound of the path's own RTT.".to_string()
    };
    Some((
        "path",
        format!(
            "The path's capacity set this flow's rate. {start}. The flight went from {} to at most {} over the {} of data (never below {}): not the growth of slow start, \
             which adds up to a flight per round trip (RFC 5681 §3.1), but a standing backlog.{clock} The receiver's ACKs advanced {} in {} (frames {} → {}), \
             {}{}: the rate the path's bottleneck delivered, with the unacknowledged data queued before it.{queue}",
            format_bytes(at_first),
            format_bytes(most),
            format_duration(f.sh.active.max(0.0)),
            format_bytes(least),
            format_bytes(bytes),
            format_duration(seconds),
            p.frame[from],
            p.frame[to],
            if steady { "a steady " } else { "on average " },
            format_rate(rate)
        ),
    ))
}
