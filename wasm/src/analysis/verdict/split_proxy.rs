//! A proxy or NAT that terminates TCP near the capture (issue 39 reviews R and T, class
//! C-SPLIT-PROXY-RTT): VirtualBox's NAT engine, VMware's, an Android VPN app's TCP
//! stack, a transparent web proxy. It answers the client's SYN only once its own
//! connection to the server is made, then acknowledges the client's data itself. At a
//! capture between the client and it, the SYN → SYN/ACK then takes the round trip
//! beyond it (ctfs/bro `bro.org.pcap`: 75.7 ms; cisco mercury `surfshark.pcap`
//! connection 40: 15.5 ms) while every ACK of data comes from the near hop (0.1–0.4 ms),
//! and the far round trip comes back on each answer (bro.org: every GET answered
//! ~78 ms later). The path round trip measured from the ACKs is then the near hop's,
//! and a pause in the proxy's sending is its far connection's (unseen), not the path
//! slowing: "a burst took 11 ms instead of 1.4 ms … the path slowed down" (surfshark)
//! was the proxy with nothing yet to relay.
//!
//! The rule (docs/ANALYSIS.md "Split proxy"): the capture sees the handshake (one SYN,
//! not re-sent, Karn's rule) and at least [`MIN_SAMPLES`] ACK-based round trips of
//! the initiator's data after it (not ones whose ACK rode on an answer: those time the
//! answerer); their median is at most 1/[`RATIO`] of the SYN → SYN/ACK and [`GAP_S`]
//! below it, and three quarters of them at most 1/[`QUARTILE_RATIO`] of it (the ACKs
//! are quick consistently, not now and then); and the far round trip shows again: the
//! responder's first data after the initiator's first data came at least
//! [`ANSWER_SHARE`] of the handshake's time later. A server slow to answer SYNs alone
//! (a loaded host, RFC 4987's SYN cache or cookies) lengthens the SYN/ACK but not
//! every answer; a first packet that waited on ARP or a radio's wake-up lengthens the
//! handshake, not the answer after it, and its ACKs keep the path's round trip.

use crate::analysis::format::format_duration;
use crate::analysis::report::ConnectionSummary;
use crate::analysis::rows::columns::{PacketColumns, RttSource};
use crate::analysis::timing::round_trips::{ANSWERED, EXCLUDED};
use crate::decode::tcp_flags::{ACK, SYN};

/// The SYN → SYN/ACK is at least this many times the ACKs' median round trip.
pub const RATIO: f64 = 10.0;
/// … and three quarters of the ACKs' round trips are at most 1/this of it.
pub const QUARTILE_RATIO: f64 = 4.0;
/// … and this much longer than that median, s (µs paths' ARP and jitter say nothing).
pub const GAP_S: f64 = 0.005;
/// ACK-based round trips of the initiator's data needed after the handshake.
pub const MIN_SAMPLES: usize = 5;
/// The first answer came at least this share of the handshake's time after the request.
pub const ANSWER_SHARE: f64 = 0.5;

/// What the capture shows of a proxy near it ([`detect`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitProxy {
    /// Direction of the SYN (the client's).
    pub initiator: u8,
    /// Rows of the SYN and the SYN/ACK.
    pub syn: usize,
    pub syn_ack: usize,
    /// SYN → SYN/ACK at the capture, s: the round trip beyond the proxy.
    pub handshake_s: f64,
    /// Median measured round trip of the responder's ACKs of the initiator's data, s.
    pub ack_median_s: f64,
    /// How many of those.
    pub samples: usize,
    /// Rows of the initiator's first data and the responder's first data after it.
    pub request: usize,
    pub answer: usize,
}

/// The proxy the handshake and the ACKs show (module comment), or None.
pub fn detect(conn: &ConnectionSummary, p: &PacketColumns, rtt: &dyn RttSource) -> Option<SplitProxy> {
    let syn_from = &conn.handshake.syn.as_ref()?.from;
    let initiator = conn.directions.iter().position(|d| &d.from == syn_from)? as u8;
    let (syn_bits, both) = (u32::from(SYN), u32::from(SYN | ACK));
    let n = p.t.len();
    let syn_ack = (0..n).find(|&i| p.dir[i] != initiator && p.flags[i] & both == both)?;
    let mut syns = (0..n).filter(|&i| p.dir[i] == initiator && p.flags[i] & both == syn_bits);
    let syn = syns.next()?;
    // A SYN sent again: which one the SYN/ACK answers is unknown (Karn's rule).
    if syns.next().is_some() || (0..n).filter(|&i| p.dir[i] != initiator && p.flags[i] & both == both).count() != 1 {
        return None;
    }
    let handshake_s = p.t[syn_ack] - p.t[syn];
    if !(handshake_s > GAP_S) {
        return None;
    }
    let after = p.t[syn_ack];
    let mut samples: Vec<f64> = Vec::new();
    rtt.for_each_rtt_ms(&mut |t, dir, ms, kind| {
        if dir == initiator && t > after && kind & (1 | EXCLUDED | ANSWERED) == 0 && ms.is_finite() {
            samples.push(ms / 1000.0);
        }
    });
    if samples.len() < MIN_SAMPLES {
        return None;
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    let median = samples[samples.len() / 2];
    let quarter = samples[(samples.len() * 3) / 4];
    if !(median * RATIO <= handshake_s && handshake_s - median >= GAP_S && quarter * QUARTILE_RATIO <= handshake_s) {
        return None;
    }
    // The far round trip again: the responder's first data after the initiator's first.
    let request = (0..n).filter(|&i| p.dir[i] == initiator && p.len[i] > 0 && p.t[i] > after).min_by(|&a, &b| p.t[a].total_cmp(&p.t[b]))?;
    let answer = (0..n).filter(|&i| p.dir[i] != initiator && p.len[i] > 0).min_by(|&a, &b| p.t[a].total_cmp(&p.t[b]))?;
    // The responder spoke first (a banner): nothing repeats the far round trip.
    if p.t[answer] <= p.t[request] || p.t[answer] - p.t[request] < ANSWER_SHARE * handshake_s {
        return None;
    }
    Some(SplitProxy { initiator, syn, syn_ack, handshake_s, ack_median_s: median, samples: samples.len(), request, answer })
}

/// "The handshake took 15.5 ms (frame 1279 → frame 1280), but 172.64.146.182:443's ACKs
/// of 10.0.2.16:44532's data came in 344 µs (median of 278) and its first answer 18.9 ms
/// after the request (frame 1282 → frame 1286): a proxy or NAT near the capture answered
/// for 172.64.146.182:443 (it answers the SYN only once its own connection out is
/// made). The round trip measured here is to it; the 15.5 ms is the path beyond it,
/// which this capture cannot see, and a pause in what it relays can be that far side's,
/// not this path's nor an application's."
pub fn sentence(conn: &ConnectionSummary, p: &PacketColumns, rtt: &dyn RttSource) -> Option<String> {
    let s = detect(conn, p, rtt)?;
    let (client, server) = (&conn.directions[s.initiator as usize].from, &conn.directions[1 - s.initiator as usize].from);
    Some(format!(
        "The handshake took {hs} (frame {} → frame {}), but {server}'s ACKs of {client}'s data came in {} (median of {}) \
         and its first answer {} after the request (frame {} → frame {}): a proxy or NAT near the capture answered for \
         {server} (it answers the SYN only once its own connection out is made). The round trip measured here is to it; \
         the {hs} is the path beyond it, which this capture cannot see, and a pause in what it relays can be that far \
         side's, not this path's nor an application's.",
        p.frame[s.syn],
        p.frame[s.syn_ack],
        format_duration(s.ack_median_s),
        s.samples,
        format_duration(p.t[s.answer] - p.t[s.request]),
        p.frame[s.request],
        p.frame[s.answer],
        hs = format_duration(s.handshake_s),
    ))
}
