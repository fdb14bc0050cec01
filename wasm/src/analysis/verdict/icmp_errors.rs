//! ICMP errors about a connection's own packets (issue 39 class C-ICMP-UNREAD;
//! docs/ANALYSIS.md "ICMP errors"): a router that could not forward a segment may
//! say so, quoting the segment's IP header and its first 8 TCP bytes (decode/icmp.rs).
//! The quote names the connection (addresses and ports) and the segment (its sequence
//! number); "fragmentation needed" / "packet too big" also name the next hop's MTU
//! (RFC 1191 §4, RFC 8201 §4), the cause of a loss no re-send count can give.
//!
//! A message counts as evidence only when its sequence number falls on bytes this
//! capture saw the quoted side send before the message (the check RFC 5927 §4.1 asks
//! of a TCP receiving one); others are listed, not narrated.

use crate::analysis::report::ConnectionSummary;
use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::decode::tcp_flags::{FIN, SYN};
use crate::analysis::track::sequence::SeqSpace;
pub use crate::analysis::track::icmp::{IcmpErrors, IcmpMessage, MAX_LISTED};
use crate::decode::icmp::{IcmpKind, IcmpQuote};
use std::collections::HashMap;
use std::net::IpAddr;

/// The flow key both directions share: the lower (address, port) first.
fn key(a: (IpAddr, u16), b: (IpAddr, u16)) -> ((IpAddr, u16), (IpAddr, u16)) {
    if a <= b { (a, b) } else { (b, a) }
}

/// Each message (time in s since the file's first packet, quote) given to the
/// connection it quotes: the one between those endpoints that started last at or
/// before it (a 4-tuple reused later is a new connection, connections.rs); the first
/// such connection when all started after it. `conns`: (endpoints, first time) by
/// position. Returns the messages by connection position.
pub fn assign(quotes: &[(f64, IcmpQuote)], conns: &mut dyn Iterator<Item = ([(IpAddr, u16); 2], f64)>) -> HashMap<usize, Vec<(f64, IcmpQuote)>> {
    let mut out: HashMap<usize, Vec<(f64, IcmpQuote)>> = HashMap::new();
    if quotes.is_empty() {
        return out;
    }
    let mut by_key: HashMap<_, Vec<(usize, f64)>> = HashMap::new();
    for (i, (e, first)) in conns.enumerate() {
        by_key.entry(key(e[0], e[1])).or_default().push((i, first));
    }
    for (t, q) in quotes {
        let Some(cands) = by_key.get(&key((q.src, q.src_port), (q.dst, q.dst_port))) else { continue };
        let pick = cands.iter().filter(|c| c.1 <= *t).max_by(|a, b| a.1.total_cmp(&b.1)).or_else(|| cands.first());
        if let Some(&(i, _)) = pick {
            out.entry(i).or_default().push((*t, *q));
        }
    }
    out
}

/// Puts `quotes` (this connection's, from [`assign`]) on `summary.icmp`, before the
/// diagnosis, whose loss text reads them (pmtu_resends.rs); [`tell`] says them after it.
/// `seqs`: each direction's sequence space, for the relative numbers.
pub fn attach(summary: &mut ConnectionSummary, quotes: &[(f64, IcmpQuote)], seqs: [SeqSpace; 2], endpoints: &[(IpAddr, u16); 2], packets: &PacketColumns) {
    if quotes.is_empty() {
        return;
    }
    let mut errors = IcmpErrors { count: quotes.len() as u64, messages: Vec::new() };
    for (t, q) in quotes.iter().take(MAX_LISTED) {
        let d = u8::from(endpoints[0] != (q.src, q.src_port));
        let mut space = seqs[d as usize];
        let rel = space.rel(q.seq) as f64;
        // Rows that used the quoted sequence number: payload over it, or a SYN or FIN at
        // it (a pure ACK uses none: a quoted one names no segment that could be lost).
        let covers = |r: usize| {
            let f = packets.flags[r];
            let len = f64::from(packets.len[r]) + if f & u32::from(SYN | FIN) != 0 { 1.0 } else { 0.0 };
            packets.dir[r] == d && packets.seq[r] <= rel && rel < packets.seq[r] + len
        };
        let rows = 0..packets.t.len();
        let seen = rows.clone().any(|r| packets.t[r] <= *t && covers(r));
        // Sent again: not by a keep-alive or window probe, whose byte is old on purpose.
        let probe = flag_bits::KEEP_ALIVE | flag_bits::ZERO_WINDOW_PROBE;
        let resent = seen && rows.into_iter().any(|r| packets.t[r] > *t && covers(r) && packets.flags[r] & probe == 0);
        errors.messages.push(IcmpMessage {
            frame: q.packet_index + 1,
            t: *t,
            kind: q.kind,
            reporter: q.reporter.to_string(),
            direction: d,
            mtu: q.mtu,
            quoted_len: q.quoted_len,
            quoted_seq: rel,
            seen,
            resent,
        });
    }
    summary.icmp = Some(Box::new(errors));
}

/// Says `summary.icmp` ([`attach`]) in the diagnosis, before the ending's sentence,
/// which closes the story (diagnosis.rs).
pub fn tell(summary: &mut ConnectionSummary) {
    let Some(s) = summary.icmp.as_deref().and_then(|errors| sentence(errors, &summary.endpoints)) else { return };
    let text = &mut summary.diagnosis.text;
    let ending = format!(" {}", summary.ending.text);
    let at = if !summary.ending.text.is_empty() && text.ends_with(&ending) { text.len() - ending.len() } else { text.len() };
    let sep = if at == 0 { "" } else { " " };
    text.insert_str(at, &format!("{sep}{s}"));
}

/// The diagnosis's sentence about the messages whose quoted byte the capture saw sent
/// (the others may be forged or of bytes before the capture): one clause per kind.
pub fn sentence(errors: &IcmpErrors, endpoints: &[String; 2]) -> Option<String> {
    let seen: Vec<&IcmpMessage> = errors.messages.iter().filter(|m| m.seen).collect();
    let mut kinds: Vec<IcmpKind> = seen.iter().map(|m| m.kind).collect();
    kinds.sort();
    kinds.dedup();
    let clauses: Vec<String> = kinds.iter().map(|&k| clause(k, &seen.iter().copied().filter(|m| m.kind == k).collect::<Vec<_>>(), endpoints)).collect();
    (!clauses.is_empty()).then(|| clauses.join(" "))
}

/// One kind's sentence, e.g. "The path reported an MTU of 1500 bytes (2 ICMP
/// "fragmentation needed" messages from 10.0.0.254, frames 9 and 20) for packets of
/// 1645 and 1665 bytes from 10.0.0.1:40000 (RFC 1191): the path dropped them, and
/// both were sent again after the message."
fn clause(kind: IcmpKind, ms: &[&IcmpMessage], endpoints: &[String; 2]) -> String {
    let n = ms.len();
    let reporters = distinct(ms.iter().map(|m| m.reporter.clone()));
    let frames = list(&ms.iter().map(|m| m.frame.to_string()).collect::<Vec<_>>());
    let senders = distinct(ms.iter().map(|m| endpoints[m.direction as usize].clone()));
    let messages = if n == 1 { format!("ICMP \"{}\" from {}, frame {frames}", kind.words(), reporters.join(", ")) } else { format!("{n} ICMP \"{}\" messages from {}, frames {frames}", kind.words(), reporters.join(", ")) };
    let resent = ms.iter().filter(|m| m.resent).count();
    let fate = match (resent, n) {
        (0, 1) => "; the capture shows no re-send of it".to_string(),
        (0, _) => "; the capture shows no re-send of them".to_string(),
        (r, n) if r == n && n == 1 => ", and it was sent again after the message".to_string(),
        (r, n) if r == n && n == 2 => ", and both were sent again after the messages".to_string(),
        (r, n) if r == n => ", and all were sent again after the messages".to_string(),
        (1, n) => format!(", and 1 of the {n} was sent again after its message"),
        (r, n) => format!(", and {r} of the {n} were sent again after their messages"),
    };
    let them = if n == 1 { "it" } else { "them" };
    if kind.too_big() {
        let mtus = distinct(ms.iter().filter_map(|m| m.mtu).map(|m| m.to_string()));
        let sizes = list(&distinct(ms.iter().map(|m| m.quoted_len.to_string())));
        let rfc = if kind == IcmpKind::FragNeeded { "RFC 1191" } else { "RFC 8201" };
        let reported = match mtus.len() {
            0 => "The path reported a packet too big for its next hop".to_string(),
            1 => format!("The path reported an MTU of {} bytes", mtus[0]),
            _ => format!("The path reported MTUs of {} bytes", list(&mtus)),
        };
        let packets = if n == 1 { "a packet" } else { "packets" };
        format!("{reported} ({messages}) for {packets} of {sizes} bytes from {} ({rfc}): the path dropped {them}{fate}.", senders.join(" and "))
    } else {
        // Who refused it may be a router or the receiving host's own firewall (its
        // address, or another of the same host): "undelivered" holds for both.
        // The sentence starts with words, not the reporter: an IPv6 address may begin with
        // a letter ("fe80::2"), and a sentence then begins in lower case.
        let (r, s) = (reporters.join(" and "), senders.join(" and "));
        if n == 1 {
            format!("An ICMP \"{}\" from {r} (frame {frames}) reported a packet from {s} undelivered{fate}.", kind.words())
        } else {
            format!("{n} ICMP \"{}\" messages from {r} (frames {frames}) reported {n} packets from {s} undelivered{fate}.", kind.words())
        }
    }
}

/// The values in first-seen order, once each.
fn distinct(values: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// "9", "9 and 20", "9, 20 and 31", the first five and "…" beyond.
fn list(items: &[String]) -> String {
    let shown: Vec<&str> = items.iter().take(5).map(String::as_str).collect();
    let more = if items.len() > 5 { format!(" and {} more", items.len() - 5) } else { String::new() };
    match shown.len() {
        0 => String::new(),
        1 => format!("{}{more}", shown[0]),
        k if more.is_empty() => format!("{} and {}", shown[..k - 1].join(", "), shown[k - 1]),
        _ => format!("{}{more}", shown.join(", ")),
    }
}
