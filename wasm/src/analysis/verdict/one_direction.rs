//! A connection captured in one direction only (docs/ANALYSIS.md "The order of the
//! limit headline", 0; the `one-direction` warning): asymmetric routing, a tap or
//! SPAN port that mirrors one direction, a capture filter such as `src host X`
//! (often with `or tcp[tcpflags] & (tcp-syn|tcp-fin) != 0`, which keeps the other
//! side's handshake). Everything a limit is judged by needs both directions: the
//! receiver's ACKs and windows (RFC 9293 §3.8.6, §3.10.7.4) give bytes in flight,
//! the round trip and the losses. Wireshark says the same per packet:
//! `tcp.analysis.ack_lost_segment` ("ACKed segment that wasn't captured") on every
//! ACK of data it never saw.
//!
//! The captured side must show that the other side kept sending, unseen, one of:
//! - **its peer's data is missing**: the peer's packets (if any) carry no payload, yet
//!   the captured side's ACK number advanced past more than the peer's captured FIN
//!   (it acknowledged bytes the capture lacks), and no bare ACK of the peer's
//!   acknowledged this side's data (that direction was captured: `judge_counts`);
//! - **its peer's ACKs are missing**: it sent more than [`MORE_THAN_AN_INITIAL_WINDOW`]
//!   of new data while no captured packet of the peer acknowledged any of it — no
//!   sender sends more than its initial window before an ACK comes back (10 segments,
//!   RFC 6928; RFC 5681 §3.1). A peer ACK that comes only after the last data (a FIN
//!   kept by a SYN/FIN capture filter) does not count: it cannot have clocked the data.
//!
//! A side re-sending the same bytes to a silent peer (chrissanders'
//! tcp_retransmissions: 6 copies with backoff) or a lone SYN is not this case: the
//! peer, or the path to it, was silent, which the stalls tell. Both sides each
//! qualifying (a filter on packet size that kept the ACKs of both) is not one
//! direction either: the capture-loss warning says what is missing.

use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::format::{format_bytes, format_rate};
use crate::analysis::capture::limits::AnalysisWarning;
use crate::analysis::report::ConnectionSummary;
use crate::decode::tcp_flags::{ACK, FIN, RST, SYN};

/// More new data than any sender puts out before its first ACK comes back: the
/// initial window is 10 segments (RFC 6928, ≈ 14.6 kB), some CDNs raise it a few
/// times; without ACKs a sender can only re-send what it sent.
pub const MORE_THAN_AN_INITIAL_WINDOW: f64 = 65536.0;

/// Sequence bytes of a side's own data the capture may lack between its first and last
/// captured byte while its segments are still taken as one sequence space (`judge`):
/// 1 MiB, the reach rewritten_copies.rs allows an acknowledgment of data sent.
pub const ONE_SPACE_SLACK: f64 = 1_048_576.0;

/// What the capture lacks of the side it did not (fully) capture.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Missing {
    /// Not one packet of it; `peer_acked`: sequence bytes of the peer's that the captured
    /// side acknowledged (its data arrived: the peer was alive and reachable).
    Everything { peer_acked: f64 },
    /// Its data, which the captured side acknowledged: this many sequence bytes.
    Data { acked: f64 },
    /// Its ACKs of the captured side's data.
    Acks,
}

/// The captured side (a direction index) and what is missing of the other.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneDirection {
    pub seen: usize,
    pub missing: Missing,
    /// Where the captured side is the receiver of the missing side's data
    /// ([`Missing::Everything`] with bytes acknowledged): what its ACKs show of it.
    pub acks: Option<AckStream>,
}

/// What a receiver's ACK stream shows of data the capture does not hold (the sender's
/// packets took another path): its cumulative ACK is the data delivered to it in order
/// (RFC 9293 §3.4), a duplicate ACK (with its SACK blocks, RFC 2018) says a segment
/// arrived above a hole — data lost, or reordered, on the way to it (RFC 5681 §4.2) —
/// and its window is the room it offered (§3.8.6). Its sender's bytes in flight, round
/// trip, re-sends and limit need the missing packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckStream {
    /// Bytes the cumulative ACK advanced, first to last (a FIN of the peer's counted
    /// out where the captured side's own ACK of it is not told apart: at most 1 byte).
    pub acked: f64,
    /// Times (s) of the first ACK in the peer's space and of the last advance.
    pub first_t: f64,
    pub last_t: f64,
    /// The longest the cumulative ACK stood still between them: (start, end), s, and
    /// the duplicate ACKs sent in it (segments that arrived above a hole).
    pub longest_wait: (f64, f64),
    pub dup_acks_in_wait: u64,
    /// Distinct ACK numbers at which duplicate ACKs were sent: the holes the receiver
    /// reported.
    pub holes: u64,
    pub dup_acks: u64,
}

/// [`AckStream`] of direction `d` (the captured side), in the peer's space.
fn ack_stream(p: &PacketColumns, d: usize, syn: [Option<f64>; 2]) -> Option<AckStream> {
    use crate::analysis::rows::columns::flag_bits::DUPLICATE_ACK;
    let (mut high, mut first_ack, mut first_t, mut last_t) = (f64::NEG_INFINITY, f64::NAN, f64::NAN, f64::NAN);
    let (mut wait, mut dup_in_wait, mut dup_since) = ((0.0, 0.0), 0u64, 0u64);
    let (mut dup_acks, mut holes, mut last_dup_ack) = (0u64, 0u64, f64::NAN);
    for i in (0..p.t.len()).filter(|&i| usize::from(p.dir[i] & 1) == d) {
        if p.flags[i] & u32::from(ACK) == 0 || !p.ack[i].is_finite() || !acks_peer_space(syn[1 - d], p.t[i]) {
            continue;
        }
        if p.flags[i] & DUPLICATE_ACK != 0 {
            dup_acks += 1;
            dup_since += 1;
            if p.ack[i] != last_dup_ack {
                holes += 1;
                last_dup_ack = p.ack[i];
            }
        }
        if first_t.is_nan() {
            (first_ack, first_t, last_t, high) = (p.ack[i], p.t[i], p.t[i], p.ack[i]);
        } else if p.ack[i] > high {
            if p.t[i] - last_t > wait.1 - wait.0 {
                (wait, dup_in_wait) = ((last_t, p.t[i]), dup_since);
            }
            (high, last_t, dup_since) = (p.ack[i], p.t[i], 0);
        }
    }
    (high > first_ack).then_some(AckStream { acked: high - first_ack, first_t, last_t, longest_wait: wait, dup_acks_in_wait: dup_in_wait, holes, dup_acks })
}

/// Per direction, what the capture shows of it.
#[derive(Default)]
struct Side {
    payload: bool,
    fin: bool,
    /// Smallest and largest ACK number it sent (the peer's sequence space).
    acks: (f64, f64),
    /// First and end of its captured payload (its own sequence space).
    data: (f64, f64),
    last_data_t: f64,
    /// Largest ACK number it sent on a bare ACK (no payload, SYN, FIN or RST), in the
    /// peer's space: what it acknowledged on packets no SYN/FIN/RST filter keeps.
    bare_ack: f64,
    /// Payload bytes of its captured segments.
    bytes: f64,
}

/// When each direction's first SYN was captured (s), if one was.
fn first_syn(p: &PacketColumns) -> [Option<f64>; 2] {
    let mut syn = [None, None];
    for i in 0..p.t.len() {
        let d = usize::from(p.dir[i] & 1);
        if p.flags[i] & u32::from(SYN) != 0 && syn[d].is_none() {
            syn[d] = Some(p.t[i]);
        }
    }
    syn
}

fn sides(p: &PacketColumns) -> [Side; 2] {
    let empty = || Side { acks: (f64::INFINITY, f64::NEG_INFINITY), data: (f64::INFINITY, f64::NEG_INFINITY), last_data_t: f64::NEG_INFINITY, bare_ack: f64::NEG_INFINITY, ..Side::default() };
    let mut s = [empty(), empty()];
    let syn = first_syn(p);
    for i in 0..p.t.len() {
        let d = usize::from(p.dir[i] & 1);
        let side = &mut s[d];
        if p.flags[i] & u32::from(FIN) != 0 {
            side.fin = true;
        }
        if p.flags[i] & u32::from(ACK) != 0 && p.ack[i].is_finite() && acks_peer_space(syn[1 - d], p.t[i]) {
            side.acks = (side.acks.0.min(p.ack[i]), side.acks.1.max(p.ack[i]));
            if p.len[i] == 0 && p.flags[i] & u32::from(SYN | FIN | RST) == 0 {
                side.bare_ack = side.bare_ack.max(p.ack[i]);
            }
        }
        if p.len[i] > 0 && p.seq[i].is_finite() {
            side.payload = true;
            side.data = (side.data.0.min(p.seq[i]), side.data.1.max(p.seq[i] + f64::from(p.len[i])));
            side.bytes += f64::from(p.len[i]);
            side.last_data_t = side.last_data_t.max(p.t[i]);
        }
    }
    s
}

/// Whether an ACK number sent at `t` can acknowledge anything of the peer, whose first
/// captured SYN was at `peer_syn`: not before it. Until the peer has sent its SYN it
/// has no sequence space (its ISN is not chosen, RFC 9293 §3.3.2), so an ACK-flagged
/// segment sent earlier (an MPTCP join's or a stack's ACK with acknowledgement number
/// 0, a port scanner's bare ACK) acknowledges nothing: RFC 9293 §3.10.7.2/3 calls it
/// unacceptable and the peer answers it with a reset. Read as a number, it would place
/// the peer's sequence space up to 2^32 bytes away and make gigabytes "acknowledged".
/// Without the peer's SYN in the capture every ACK is taken as it is.
fn acks_peer_space(peer_syn: Option<f64>, t: f64) -> bool {
    peer_syn.is_none_or(|syn| t >= syn)
}

/// Whether only one direction of the connection is in the capture, and which.
pub fn judge(conn: &ConnectionSummary, p: &PacketColumns) -> Option<OneDirection> {
    judge_counts([conn.directions[0].packets, conn.directions[1].packets], p)
}

/// [`judge`] from the directions' packet counts (the summary asks before it is whole:
/// a rate timed by ACKs needs them, throughput.rs `active_mean_bps`).
pub fn judge_counts(packets: [u64; 2], p: &PacketColumns) -> Option<OneDirection> {
    let s = sides(p);
    let syn = first_syn(p);
    let qualify = |d: usize| -> Option<Missing> {
        let (me, peer) = (&s[d], &s[1 - d]);
        let peer_packets = packets[1 - d];
        if packets[d] == 0 {
            return None;
        }
        // Sequence space of the peer acknowledged, beyond its FIN if captured.
        let acked = me.acks.1 - me.acks.0 - if peer.fin { 1.0 } else { 0.0 };
        // Not where a bare ACK of the peer's acknowledged this side's data: that
        // direction passed the capture point after the data began (no SYN/FIN/RST
        // filter keeps a bare ACK), so what the capture lacks is the peer's data
        // segments only — frames lost or filtered out, which the capture-loss warning
        // tells — not a direction (nDPI `fuzz-2006-09-29-28586.pcap` connection 11: the
        // client's ACK of the server's 143-byte answer, frame 55, read "Only one
        // direction of this connection is in the capture … 2 captured packets carry
        // none", its 1.8 KiB request lost to corrupted IP fragments, frames 51/52).
        // Only where this side's data lies in one sequence space (at most
        // [`ONE_SPACE_SLACK`] of it unseen between its first and last byte): both
        // sides of a sequence-rewriting box hold two (packetlife `packet-c.cap`, two
        // copies of each segment 808 MB apart), and no ACK then says which was
        // acknowledged.
        let one_space = me.data.1 - me.data.0 <= me.bytes + ONE_SPACE_SLACK;
        let peer_acked_data = me.payload && peer.bare_ack > me.data.0 && one_space;
        let data_missing = !peer.payload && acked > 0.0 && !peer_acked_data;
        // Did any captured peer ACK, while the data was still being sent, cover it?
        // (Looked for only when more than an initial window was sent.)
        let clocked = || {
            (0..p.t.len()).any(|i| usize::from(p.dir[i] & 1) == 1 - d && p.t[i] <= me.last_data_t && p.flags[i] & u32::from(ACK) != 0 && acks_peer_space(syn[d], p.t[i]) && p.ack[i] > me.data.0)
        };
        let acks_missing = me.payload && me.data.1 - me.data.0 > MORE_THAN_AN_INITIAL_WINDOW && !clocked();
        match (peer_packets, data_missing, acks_missing) {
            (0, true, _) | (0, _, true) => Some(Missing::Everything { peer_acked: acked.max(0.0) }),
            // Data sent and not one packet back, however little: no ACK, window or RTT
            // to judge anything by (issue 39: six re-sends of one segment to a peer
            // that never answered read "Loss limited this flow: 1 tail loss probe and 4
            // retransmission timeouts", which a dead peer or a one-way tap look like too).
            (0, _, _) if me.payload => Some(Missing::Everything { peer_acked: acked.max(0.0) }),
            (_, true, _) => Some(Missing::Data { acked }),
            (_, _, true) => Some(Missing::Acks),
            _ => None,
        }
    };
    let seen = match (qualify(0), qualify(1)) {
        (Some(missing), None) => (0, missing),
        (None, Some(missing)) => (1, missing),
        _ => return None,
    };
    let acks = match seen.1 {
        Missing::Everything { peer_acked } if peer_acked > 0.0 => ack_stream(p, seen.0, syn),
        _ => None,
    };
    Some(OneDirection { seen: seen.0, missing: seen.1, acks })
}

/// The diagnosis text: what was captured, what cannot be judged, what to do.
pub fn text(conn: &ConnectionSummary, od: OneDirection) -> String {
    let d = od.seen;
    let (from, to) = (&conn.endpoints[d], &conn.endpoints[1 - d]);
    let ds = &conn.directions[d];
    let (n, m) = (ds.packets, conn.directions[1 - d].packets);
    let s = |k: u64| if k == 1 { "" } else { "s" };
    let why = "(asymmetric routing, a tap or mirror port on one direction, or a capture filter on one address)";
    let head = match od.missing {
        // Its ACK numbers moved: the peer's data reached this side, so the peer was up and
        // reachable and only its packets' way past the capture point is missing.
        Missing::Everything { peer_acked } if ds.retransmissions > 0 && peer_acked > 0.0 => format!(
            "Only one direction of this connection is in the capture: {n} packet{} from {from} to {to}, none back, though {from} acknowledged {} of {to}'s data, so {to} was up and its packets took another path {why}; the {} re-send{} of {from} cannot be judged without them.",
            s(n),
            format_bytes(peer_acked),
            ds.retransmissions,
            s(ds.retransmissions)
        ),
        Missing::Everything { .. } if ds.retransmissions > 0 => format!(
            "Only one direction of this connection is in the capture: {n} packet{} from {from} to {to}, none back, and {from} re-sent its data {} time{} as if nothing arrived: {to} was down or unreachable, or its packets took another path {why}.",
            s(n),
            ds.retransmissions,
            s(ds.retransmissions)
        ),
        Missing::Everything { .. } => format!("Only one direction of this connection is in the capture: {n} packet{} from {from} to {to}, none back {why}.", s(n)),
        Missing::Acks => format!(
            "Only one direction of this connection is in the capture: {n} packet{} from {from} to {to}; of {to}'s {m} packet{}, none acknowledged that data while it was sent {why}.",
            s(n),
            s(m)
        ),
        Missing::Data { acked } => format!(
            "Only one direction of this connection is in the capture: {n} packet{} from {from} to {to}, acknowledging {} of {to}'s data that the capture does not hold: {to}'s {m} captured packet{} carry none {why}.",
            s(n),
            format_bytes(acked),
            s(m)
        ),
    };
    if let Some(a) = od.acks.filter(|a| a.acked > ds.payload_bytes as f64) {
        format!("{head} {} Capture where both directions pass to see the limit.", ack_stream_words(conn, d, &a))
    } else if matches!(od.missing, Missing::Data { .. }) {
        format!(
            "{head} Without {to}'s data, its rate, bytes in flight, the round trip and which segments were lost cannot be judged. \
             Capture where both directions pass to see the limit."
        )
    } else if ds.payload_bytes > 0 {
        // All of it at one instant (one segment, or one timestamp): no time to divide by,
        // so no rate. tcpdump's bigtcp-ipv6.pcap, one 78 KiB BIG TCP frame, read "sent at
        // 0 bit/s while active".
        let rate = ds.throughput.active_mean_bps;
        let sent = if rate > 0.0 { format!("at {} while active", format_rate(rate)) } else { "at one instant, too brief for a rate".to_string() };
        format!(
            "{head} Without {to}'s ACKs and windows, the receive window, bytes in flight, the round trip and \
             which segments were lost cannot be judged; the capture only shows {} of data sent {sent}. \
             Capture where both directions pass to see the limit.",
            format_bytes(ds.payload_bytes as f64)
        )
    } else {
        format!("{head} They carry no data: the data from {to} took another path. Capture where both directions pass to see the limit.")
    }
}

/// What the receiver's ACKs (`a`, of the captured direction `d`) show of the transfer
/// the capture does not hold, and what they cannot.
fn ack_stream_words(conn: &ConnectionSummary, d: usize, a: &AckStream) -> String {
    use crate::analysis::format::{format_duration, format_timestamp, plural};
    let (from, to) = (&conn.endpoints[d], &conn.endpoints[1 - d]);
    let ds = &conn.directions[d];
    let span = a.last_t - a.first_t;
    let rate = if span > 0.0 { format!(", {} at the receiver", format_rate(a.acked * 8.0 / span)) } else { String::new() };
    let mut s = format!(
        "{from}'s ACKs show the transfer the other way: they acknowledged {} of {to}'s data from {} to {}{rate}.",
        format_bytes(a.acked),
        format_timestamp(a.first_t),
        format_timestamp(a.last_t)
    );
    if let Some(w) = ds.receive_window {
        // Unscaled when the SYN/ACK that tells whether scaling is on is not captured
        // (RFC 7323 §2.2): the values are the raw field then.
        let unit = if ds.window_scale_unknown { " (the raw field: whether it was scaled is not in the capture)" } else { "" };
        let closed = if ds.zero_windows > 0 { format!(", closed {}", plural(ds.zero_windows, "time")) } else { ", never closed".to_string() };
        s += &format!(" {from} offered a receive window of {}–{}{unit}{closed}.", format_bytes(w.min as f64), format_bytes(w.max as f64));
    }
    if a.holes > 0 {
        s += &format!(
            " Its {} reported {} in the data (lost or reordered on the way to it).",
            plural(a.dup_acks, "duplicate ACK"),
            plural(a.holes, "hole")
        );
    }
    let (w0, w1) = a.longest_wait;
    if w1 > w0 {
        let during = if a.dup_acks_in_wait > 0 {
            format!(", {} meanwhile: data above a hole arrived, and the hole was filled only at its end", plural(a.dup_acks_in_wait, "duplicate ACK"))
        } else {
            ", with no duplicate ACK: no data arrived above it".to_string()
        };
        s += &format!(" The acknowledgements stood still for at most {} ({}–{}){during}.", format_duration(w1 - w0), format_timestamp(w0), format_timestamp(w1));
    }
    s += &format!(
        " Without {to}'s packets, its bytes in flight, the round trip, its re-sends and what limited it cannot be judged; {from} sent {} of data itself.",
        format_bytes(ds.payload_bytes as f64)
    );
    s
}

/// The capture-wide `one-direction` warning: how many connections were captured in
/// one direction only (their diagnosis says which; the bytes they acknowledged unseen
/// are the missing direction, not packets the capture dropped, so `capture_loss::warning`
/// leaves them out).
pub fn warning(conns: &[ConnectionSummary]) -> Option<AnalysisWarning> {
    let n = conns.iter().filter(|c| is_one_direction(c)).count() as u64;
    (n > 0).then(|| AnalysisWarning {
        kind: "one-direction",
        count: n,
        message: format!(
            "{n} connection{} captured in one direction only {}: {} receive window, bytes in flight, round trip and losses cannot be judged, and no limit is named.",
            if n == 1 { " was" } else { "s were" },
            "(asymmetric routing, a tap or mirror port on one direction, or a capture filter on one address)",
            if n == 1 { "its" } else { "their" }
        ),
    })
}

pub fn is_one_direction(c: &ConnectionSummary) -> bool {
    c.diagnosis.limit == "one-direction"
}
