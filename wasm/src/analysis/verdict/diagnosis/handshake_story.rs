//! A slow start of the connection itself (issue 39 review V class C-HANDSHAKE-UNTOLD,
//! nDPI `tls_with_huge_ch`: SYN at 0 s, re-sent at 1.027 s and 3.039 s; the server's
//! SYN/ACKs passed the capture at 1.168 s and 2.182 s, but the client's ACK at 3.041 s
//! echoes the first one's timestamp; then its 11.4 KB ClientHello left in 1, 2, 4 and 5
//! segments a round trip. 3.8 s of 31.7 s, and the page never said so: the shares,
//! stalls and savings start at the first data segment).
//!
//! The rule (docs/ANALYSIS.md "The handshake's own time"): where the first SYN → the
//! first data segment of either side took more than [`SLOW_HANDSHAKE_RTTS`] path round
//! trips and a SYN or SYN/ACK was sent more than once, the handshake is told:
//! - the SYN's re-sends (its retransmission timer, RFC 6298 §5, RFC 9293 §3.8.1);
//! - the SYN/ACKs that passed the capture more than a path round trip before one of
//!   those re-sends: they had not reached the client by then, or it would not have
//!   re-sent (RFC 9293 §3.10.7.3: a SYN-SENT end that gets the SYN/ACK answers it);
//! - the SYN/ACK the client's handshake ACK answered, where a TCP timestamp echo (RFC
//!   7323 §4.3: TSecr is the TSval of the segment it answers) ties the two — the RTT
//!   sample timing.rs takes from that echo ends at the ACK and starts at that SYN/ACK;
//! - a side that re-sent its SYN or SYN/ACK and then sent its first message in a
//!   slow start from one segment (RFC 5681 §3.1: "if the SYN or SYN/ACK is lost, the
//!   initial window used by a sender after a correctly transmitted SYN MUST be one
//!   segment"): its flights (runs of its data segments, a new one after a silence of
//!   half a path round trip) of 1, 2, … segments, and how many round trips an initial
//!   window of ten segments (RFC 6928) with the same doubling would have needed.

use super::*;
use crate::analysis::rows::columns::flag_bits;
use crate::analysis::verdict::first_byte::wait_words;
use crate::decode::tcp_flags::{ACK, SYN};

/// The handshake is told where the first SYN → first data took more than this many
/// path round trips (one for the SYN → SYN/ACK, one slack for the ACK and the first
/// write, one for a capture away from both ends).
pub const SLOW_HANDSHAKE_RTTS: f64 = 3.0;
/// Fewest flights of a first message that show a slow start from one segment.
const SLOW_START_FLIGHTS: usize = 3;
/// RFC 6928's initial window, segments.
const IW10: usize = 10;

/// The sentence (with a leading space), or empty.
pub(super) fn said(f: &Facts) -> String {
    let p = f.rows.packets;
    let rtt = f.min_rtt;
    let Some(syn) = f.conn.handshake.syn.as_ref() else { return String::new() };
    if !(rtt > 0.0) {
        return String::new();
    }
    let c = u8::from(syn.from != f.conn.endpoints[0]);
    let (client, server) = (&f.conn.endpoints[c as usize], &f.conn.endpoints[1 - c as usize]);
    let kind = |i: usize| (p.flags[i] & u32::from(SYN | ACK)) as u8;
    let syns: Vec<usize> = (0..p.t.len()).filter(|&i| p.dir[i] == c && kind(i) == SYN).collect();
    let syn_acks: Vec<usize> = (0..p.t.len()).filter(|&i| p.dir[i] != c && kind(i) == SYN | ACK).collect();
    let Some(first_data) = (0..p.t.len()).find(|&i| p.len[i] > 0 && p.flags[i] & u32::from(SYN) == 0) else { return String::new() };
    let (Some(&s0), Some(&a0)) = (syns.first(), syn_acks.first()) else { return String::new() };
    let took = p.t[first_data] - p.t[s0];
    // Only SYNs and SYN/ACKs before the first data tell of its wait.
    let before = |v: &[usize]| v.iter().filter(|&&i| i < first_data).count();
    if took <= SLOW_HANDSHAKE_RTTS * rtt || (before(&syns) < 2 && before(&syn_acks) < 2) || first_data < a0 {
        return String::new();
    }
    let times = |v: &[usize]| list(&v.iter().map(|&i| format_timestamp(p.t[i])).collect::<Vec<_>>());
    let mut s = format!(
        " Setting the connection up took {} (frame {} at {} → the first data, frame {} at {}), where the path's round trip is {}:",
        wait_words(took),
        p.frame[s0],
        format_timestamp(p.t[s0]),
        p.frame[first_data],
        format_timestamp(p.t[first_data]),
        format_duration(rtt)
    );
    let resent: Vec<usize> = syns.iter().copied().filter(|&i| i < first_data).skip(1).collect();
    if !resent.is_empty() {
        s += &format!(" {client} re-sent its SYN at {} (its retransmission timer, RFC 6298 §5);", times(&resent));
    }
    let shown: Vec<usize> = syn_acks.iter().copied().filter(|&i| i < first_data).collect();
    // SYN/ACKs a path round trip older than a SYN re-send had not reached the client.
    let unseen: Vec<usize> = shown.iter().copied().filter(|&a| resent.iter().any(|&r| p.t[r] - p.t[a] > rtt)).collect();
    let plural = |v: &[usize]| if v.len() == 1 { "" } else { "s" };
    match resent.iter().rev().find(|&&r| unseen.iter().any(|&a| p.t[r] - p.t[a] > rtt)) {
        Some(&last) => {
            s += &format!(
                " {server}'s SYN/ACK{} of {} passed the capture more than a round trip before the re-send of {}, so {} had not reached \
                 {client} by then",
                plural(&unseen),
                times(&unseen),
                format_timestamp(p.t[last]),
                if unseen.len() == 1 { "it" } else { "they" }
            )
        }
        None => s += &format!(" {server}'s SYN/ACK{} passed the capture at {}", plural(&shown), times(&shown)),
    }
    // The client's ACK that completed the handshake, and the SYN/ACK its echo names.
    if let Some(k) = (a0..p.t.len()).find(|&i| p.dir[i] == c && p.flags[i] & u32::from(SYN) == 0 && p.flags[i] & u32::from(ACK) != 0) {
        let at = format!("frame {} at {}", p.frame[k], format_timestamp(p.t[k]));
        s += &match echoed(f, k, &shown) {
            Some(a) => format!(
                "; its ACK completing the handshake ({at}) echoes the timestamp of the SYN/ACK of {} (TSecr, RFC 7323 §4.3), \
                 answered {} after it passed the capture, where a round trip takes {}",
                format_timestamp(p.t[a]),
                wait_words(p.t[k] - p.t[a]),
                format_duration(rtt)
            ),
            None => format!("; its ACK completed the handshake ({at})"),
        };
    }
    s.push('.');
    for side in [c, 1 - c] {
        let resent_own = if side == c { syns.len() } else { syn_acks.len() } >= 2;
        if let Some(w) = resent_own.then(|| one_segment_start(p, side, rtt)).flatten() {
            let who = &f.conn.endpoints[side as usize];
            let flights = list(&w.flights.iter().map(|n| n.to_string()).collect::<Vec<_>>());
            let ten = rounds_from(IW10, w.flights.iter().sum());
            s += &format!(
                " After its re-sent {} {who} started from a one-segment window (RFC 5681 §3.1): its first {} left in {} round trips of \
                 {flights} segments ({} → {}), where an initial window of ten segments (RFC 6928) would have needed {ten}, about {} sooner.",
                if side == c { "SYN" } else { "SYN/ACK" },
                format_bytes(w.bytes),
                w.flights.len(),
                format_timestamp(w.from),
                format_timestamp(w.to),
                format_duration((w.flights.len() - ten.min(w.flights.len())) as f64 * rtt)
            );
        }
    }
    s
}

/// The SYN/ACK among `shown` whose TSval the row `k` echoes: the timestamp RTT sample
/// that ends at `k` (timing/rtt.rs, kind bit 0) starts at it, to within 1 µs.
fn echoed(f: &Facts, k: usize, shown: &[usize]) -> Option<usize> {
    let p = f.rows.packets;
    let mut found = None;
    f.rows.rtt.for_each_rtt_ms(&mut |t, dir, ms, kind| {
        if kind & 1 == 1 && dir != p.dir[k] && (t - p.t[k]).abs() < 1e-6 {
            found = shown.iter().copied().find(|&a| (p.t[k] - ms / 1000.0 - p.t[a]).abs() < 1e-6);
        }
    });
    found
}

/// A side's first message sent in a slow start from one segment ([`one_segment_start`]).
struct SlowStart {
    flights: Vec<usize>,
    bytes: f64,
    from: f64,
    to: f64,
}

/// Side `d`'s first message (its data segments up to the peer's next data), in flights
/// of its segments (a new one after `rtt / 2` of silence): Some where they were at least
/// [`SLOW_START_FLIGHTS`], the first of one segment and the second of two.
fn one_segment_start(p: &PacketColumns, d: u8, rtt: f64) -> Option<SlowStart> {
    let first = (0..p.t.len()).find(|&i| p.dir[i] == d && p.len[i] > 0 && p.flags[i] & u32::from(SYN) == 0)?;
    let end = (first..p.t.len()).find(|&i| p.dir[i] != d && p.len[i] > 0).unwrap_or(p.t.len());
    let rows: Vec<usize> = (first..end).filter(|&i| p.dir[i] == d && p.len[i] > 0 && p.flags[i] & flag_bits::ANY_RETRANSMISSION == 0).collect();
    let mut flights: Vec<usize> = Vec::new();
    for (n, &i) in rows.iter().enumerate() {
        if n == 0 || p.t[i] - p.t[rows[n - 1]] > rtt / 2.0 {
            flights.push(0);
        }
        *flights.last_mut()? += 1;
    }
    if flights.len() < SLOW_START_FLIGHTS || flights[0] != 1 || flights[1] != 2 {
        return None;
    }
    let bytes = rows.iter().map(|&i| f64::from(p.len[i])).sum();
    Some(SlowStart { flights, bytes, from: p.t[rows[0]], to: p.t[*rows.last()?] })
}

/// Round trips a slow start from `iw` segments, doubling each, needs for `n` segments.
fn rounds_from(iw: usize, n: usize) -> usize {
    let (mut sent, mut w, mut rounds) = (0usize, iw.max(1), 0usize);
    while sent < n {
        sent += w;
        w *= 2;
        rounds += 1;
    }
    rounds
}

/// "a", "a and b", "a, b and c".
fn list(v: &[String]) -> String {
    match v {
        [] => String::new(),
        [a] => a.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_segments_need_fewer_round_trips_than_one() {
        // 12 segments: from one, 1 + 2 + 4 + 8 ≥ 12 in 4 round trips; from ten, 10 + 20 in 2.
        assert_eq!(rounds_from(1, 12), 4);
        assert_eq!(rounds_from(IW10, 12), 2);
        assert_eq!(rounds_from(IW10, 10), 1);
        assert_eq!(list(&["1".into(), "2".into(), "4".into()]), "1, 2 and 4");
    }
}
