//! A slow start of the connection itself (issue 39 review V class C-HANDSHAKE-UNTOLD,
//! nDPI `tls_with_huge_ch`: SYN at 0 s, re-sent at 1.027 s and 3.039 s; the server's
//! SYN/ACKs passed the capture at 1.168 s and 2.182 s, but the client's ACK at 3.041 s
//! echoes the first one's timestamp; then its 11.4 KB ClientHello left in 1, 2, 4 and 5
//! segments a round trip. 3.8 s of 31.7 s, and the page never said so: the shares,
//! stalls and savings start at the first data segment).
//!
//! The rule (docs/ANALYSIS.md "The handshake's own time"): where the first SYN → the
//! client's ACK that completed the handshake (RFC 9293 §3.5) took more than
//! [`SLOW_HANDSHAKE_RTTS`] path round trips and a SYN or SYN/ACK was sent more than once
//! before that ACK, the handshake is told:
//! - the SYN's re-sends (its retransmission timer, RFC 6298 §5, RFC 9293 §3.8.1, where
//!   they fit one: [`resend_cause`]);
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

/// The handshake is told where the first SYN → the completing ACK took more than this many
/// path round trips (one for the SYN → SYN/ACK, one slack for the ACK and the first
/// write, one for a capture away from both ends).
pub const SLOW_HANDSHAKE_RTTS: f64 = 3.0;
/// Fewest flights of a first message that show a slow start from one segment.
const SLOW_START_FLIGHTS: usize = 3;
/// A SYN re-send sooner than this after the SYN is no retransmission timer ([`resend_cause`]), s.
const TIMER_FIRST_S: f64 = 0.9;
/// A backed-off timer's next interval is at least this share of the one before.
const TIMER_HELD: f64 = 0.9;
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
    // The handshake's time runs to the client's ACK that completed it (RFC 9293 §3.5),
    // not to the first data: the wait after it is an application's (issue 39 review Y
    // W3, nfstream `wechat.pcap` connection 44: ACK 269 ms after the SYN, data 4.55 s later).
    let Some(k) = (a0..p.t.len()).find(|&i| p.dir[i] == c && p.flags[i] & u32::from(SYN) == 0 && p.flags[i] & u32::from(ACK) != 0) else {
        return String::new();
    };
    let took = p.t[k] - p.t[s0];
    // Only SYNs and SYN/ACKs before that ACK tell of the handshake's time.
    let before = |v: &[usize]| v.iter().filter(|&&i| i < k).count();
    if took <= SLOW_HANDSHAKE_RTTS * rtt || (before(&syns) < 2 && before(&syn_acks) < 2) || first_data < a0 {
        return String::new();
    }
    let times = |v: &[usize]| list(&v.iter().map(|&i| format_timestamp(p.t[i])).collect::<Vec<_>>());
    let mut s = format!(
        " Setting the connection up took {} (frame {} at {} → the ACK that completed it, frame {} at {}), where the path's round trip is {}:",
        wait_words(took),
        p.frame[s0],
        format_timestamp(p.t[s0]),
        p.frame[k],
        format_timestamp(p.t[k]),
        format_duration(rtt)
    );
    let resent: Vec<usize> = syns.iter().copied().filter(|&i| i < k).skip(1).collect();
    if !resent.is_empty() {
        s += &format!(" {client} re-sent its SYN at {}{};", times(&resent), resend_cause(p, &syns[..=resent.len()]));
    }
    let shown: Vec<usize> = syn_acks.iter().copied().filter(|&i| i < k).collect();
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
    // The SYN/ACK the completing ACK's timestamp echo names.
    if let Some(a) = echoed(f, k, &shown) {
        s += &format!(
            "; that ACK echoes the timestamp of the SYN/ACK of {} (TSecr, RFC 7323 §4.3), answered {} after it passed the capture, \
             where a round trip takes {}",
            format_timestamp(p.t[a]),
            wait_words(p.t[k] - p.t[a]),
            format_duration(rtt)
        );
    }
    s.push('.');
    s += &after_completion(f, &syn_acks, k, first_data);
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

/// The SYN re-sends' cause: "its retransmission timer" only where they fit one — the
/// first at least [`TIMER_FIRST_S`] after the SYN (RFC 6298 §2.1: an initial RTO of 1 s;
/// Linux's SYN timer starts at 1 s, Windows' at 3 s) and none sooner after the one before
/// than the one before it (§5.5 backs the timer off). Else only how far apart they came
/// (zeek `ssh.pcap` connection 18: SYNs 112 ms and 101 ms apart, each the same ISN).
fn resend_cause(p: &PacketColumns, syns: &[usize]) -> String {
    let gaps: Vec<f64> = syns.windows(2).map(|w| p.t[w[1]] - p.t[w[0]]).collect();
    let timer = gaps.first().is_some_and(|&g| g >= TIMER_FIRST_S) && gaps.windows(2).all(|w| w[1] >= TIMER_HELD * w[0]);
    if timer {
        " (its retransmission timer, RFC 6298 §5)".to_string()
    } else {
        format!(" ({} after the one before)", list(&gaps.iter().map(|&g| format_duration(g)).collect::<Vec<_>>()))
    }
}

/// After the completing ACK (row `k`): the server's SYN/ACKs re-sent though that ACK had
/// passed the capture (its timer, on an ACK lost beyond the capture: RFC 9293 §3.8.1),
/// and a first data more than [`SLOW_HANDSHAKE_RTTS`] path round trips later — time of
/// its sender's application, not of the setup.
fn after_completion(f: &Facts, syn_acks: &[usize], k: usize, first_data: usize) -> String {
    let p = f.rows.packets;
    let server = &f.conn.endpoints[usize::from(p.dir[k] == 0)];
    let late: Vec<String> = syn_acks.iter().filter(|&&i| i > k && i < first_data).map(|&i| format_timestamp(p.t[i])).collect();
    let mut s = String::new();
    if !late.is_empty() {
        s += &format!(
            " {server} re-sent its SYN/ACK at {} after that ACK had passed the capture: its timer, on an ACK lost beyond the capture.",
            list(&late)
        );
    }
    let wait = p.t[first_data] - p.t[k];
    if first_data > k && wait > SLOW_HANDSHAKE_RTTS * f.min_rtt {
        s += &format!(
            " The first data (frame {} at {}) came {} after the connection was up: {}'s application's time, not the setup's.",
            p.frame[first_data],
            format_timestamp(p.t[first_data]),
            wait_words(wait),
            f.conn.endpoints[p.dir[first_data] as usize]
        );
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
