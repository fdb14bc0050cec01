//! The same connection in both captures (docs/ANALYSIS.md `twin.matchedBy`).
//!
//! Signals, strongest first:
//! - the initial sequence numbers of the SYN and the SYN/ACK: 64 random bits
//!   (RFC 9293 §3.4.1, RFC 6528) that a NAT or a load balancer leaves alone (it
//!   rewrites addresses and ports, RFC 3022 §2);
//! - datagrams with the same sequence number, acknowledgment number, length and TCP
//!   timestamps (TSval, TSecr; RFC 7323 §3): the bottom-k sketch of collect.rs gives
//!   two captures of one connection shared hashes, unrelated connections none;
//! - the 4-tuple, which alone proves nothing (a port pair is reused by the next
//!   connection, Wireshark's tcp.stream): it pairs only where the ISNs agree or
//!   datagrams are shared.
//! Different SYN ISNs on both sides mean different connections, whatever else agrees.
//! Each connection pairs at most once, strongest evidence first. (A middlebox that
//! also rewrites sequence numbers, as some firewalls randomise them, defeats all but
//! the 4-tuple: such captures pair only where the addresses survive, and then share
//! no datagram: refused with that reason.)

use std::collections::HashMap;

use super::collect::{ConnPrint, Prints};
use super::report::MatchedBy;
use super::MAX_LISTED;
use crate::analysis::connections::endpoint_name;

/// One connection found in both captures.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairing {
    /// Its index (report id) in capture 0 and in capture 1.
    pub conn: [u32; 2],
    /// `dir_in_b[d]`: the local direction in capture 1 of capture 0's local direction d.
    pub dir_in_b: [u8; 2],
    pub matched_by: MatchedBy,
    pub evidence: Vec<MatchedBy>,
    pub rewritten: bool,
}

pub struct Found {
    pub pairs: Vec<Pairing>,
    pub unpaired: [Vec<u32>; 2],
    /// Why nothing paired (empty when something did).
    pub reason: String,
}

/// What two connections share.
#[derive(Default)]
struct Shared {
    same_tuple: bool,
    /// Some(true): the SYNs' ISNs agree (and the SYN/ACKs' where both have one).
    isn: Option<bool>,
    /// Both the SYN's and the SYN/ACK's ISNs agree.
    both_isns: bool,
    datagrams: u32,
    /// Votes for "direction 0 of A is direction 0 of B" and for "… is direction 1".
    votes: [u32; 2],
}

fn isn_agreement(a: &ConnPrint, b: &ConnPrint) -> (Option<bool>, bool) {
    match (a.syn, b.syn) {
        (Some((_, x)), Some((_, y))) if x != y => (Some(false), false),
        (Some(_), Some(_)) => match (a.syn_ack, b.syn_ack) {
            (Some(x), Some(y)) => (Some(x == y), x == y),
            _ => (Some(true), false),
        },
        _ => (None, false),
    }
}

fn shared(a: &ConnPrint, b: &ConnPrint) -> Shared {
    let (isn, both_isns) = isn_agreement(a, b);
    let mut s = Shared { same_tuple: a.key == b.key, isn, both_isns, ..Shared::default() };
    // Both sketches are sorted by hash: walk them together.
    let (mut i, mut j) = (0, 0);
    while i < a.sketch.len() && j < b.sketch.len() {
        let (ha, da) = a.sketch[i];
        let (hb, db) = b.sketch[j];
        match ha.cmp(&hb) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                s.datagrams += 1;
                s.votes[usize::from(da != db)] += 1;
                i += 1;
                j += 1;
            }
        }
    }
    s
}

/// The pair's evidence, strongest first, or None when it is not one connection.
fn judge(a: &ConnPrint, b: &ConnPrint, s: &Shared) -> Option<Vec<MatchedBy>> {
    if s.isn == Some(false) {
        return None;
    }
    let mut ev = Vec::new();
    let isn_proves = s.isn == Some(true) && (s.same_tuple || s.both_isns || s.datagrams > 0);
    if s.same_tuple && (isn_proves || s.datagrams > 0) {
        ev.push(MatchedBy::FourTuple);
    }
    if isn_proves {
        ev.push(MatchedBy::Isn);
    }
    if s.datagrams >= 2 || (s.datagrams == 1 && !ev.is_empty()) {
        ev.push(if a.timestamps && b.timestamps { MatchedBy::Timestamps } else { MatchedBy::Segments });
    }
    (!ev.is_empty()).then_some(ev)
}

/// Local direction of B for A's direction 0.
fn direction_map(a: &ConnPrint, b: &ConnPrint, s: &Shared) -> [u8; 2] {
    let first_same = if s.same_tuple {
        a.ends[0] == b.ends[0]
    } else if let (Some((da, _)), Some((db, _))) = (a.syn, b.syn) {
        da == db
    } else {
        s.votes[0] >= s.votes[1]
    };
    if first_same {
        [0, 1]
    } else {
        [1, 0]
    }
}

/// Pairs the connections of two captures.
pub fn pair(prints: &[Prints; 2]) -> Found {
    let (a, b) = (&prints[0].conns, &prints[1].conns);
    let mut by_key: HashMap<_, Vec<usize>> = HashMap::new();
    let mut by_isn: HashMap<u32, Vec<usize>> = HashMap::new();
    let mut by_hash: HashMap<u64, Vec<usize>> = HashMap::new();
    for (j, c) in b.iter().enumerate() {
        by_key.entry(c.key).or_default().push(j);
        if let Some((_, isn)) = c.syn {
            by_isn.entry(isn).or_default().push(j);
        }
        for &(h, _) in &c.sketch {
            by_hash.entry(h).or_default().push(j);
        }
    }
    let mut candidates: Vec<(u8, u32, usize, usize, Vec<MatchedBy>, [u8; 2])> = Vec::new();
    let mut reused_ports = 0usize;
    for (i, c) in a.iter().enumerate() {
        let mut js: Vec<usize> = by_key.get(&c.key).cloned().unwrap_or_default();
        if let Some((_, isn)) = c.syn {
            js.extend(by_isn.get(&isn).into_iter().flatten());
        }
        for (h, _) in &c.sketch {
            js.extend(by_hash.get(h).into_iter().flatten().take(64));
        }
        js.sort_unstable();
        js.dedup();
        for j in js {
            let s = shared(c, &b[j]);
            match judge(c, &b[j], &s) {
                Some(ev) => {
                    let rank = match ev[0] {
                        _ if s.isn == Some(true) => 3,
                        MatchedBy::FourTuple => 2,
                        _ => 1,
                    };
                    let map = direction_map(c, &b[j], &s);
                    candidates.push((rank, s.datagrams, i, j, ev, map));
                }
                None => reused_ports += usize::from(s.same_tuple),
            }
        }
    }
    candidates.sort_by(|x, y| (y.0, y.1).cmp(&(x.0, x.1)).then((x.2, x.3).cmp(&(y.2, y.3))));
    let (mut used_a, mut used_b) = (vec![false; a.len()], vec![false; b.len()]);
    let mut pairs = Vec::new();
    for (_, _, i, j, evidence, dir_in_b) in candidates {
        if used_a[i] || used_b[j] {
            continue;
        }
        used_a[i] = true;
        used_b[j] = true;
        let rewritten = a[i].key != b[j].key;
        pairs.push(Pairing { conn: [i as u32, j as u32], dir_in_b, matched_by: evidence[0], evidence, rewritten });
    }
    pairs.sort_by_key(|p| p.conn);
    let list = |used: &[bool]| used.iter().enumerate().filter(|(_, u)| !**u).map(|(k, _)| k as u32).take(MAX_LISTED).collect::<Vec<_>>();
    let reason = if pairs.is_empty() { no_match_reason(a, b, reused_ports) } else { String::new() };
    Found { unpaired: [list(&used_a), list(&used_b)], pairs, reason }
}

fn no_match_reason(a: &[ConnPrint], b: &[ConnPrint], reused_ports: usize) -> String {
    let example = |c: &[ConnPrint]| {
        c.first().map(|x| format!(", e.g. {} ↔ {}", endpoint_name(x.ends[0].0, x.ends[0].1), endpoint_name(x.ends[1].0, x.ends[1].1))).unwrap_or_default()
    };
    let mut s = format!(
        "No connection shares a 4-tuple, an ISN or timestamps: capture 1 holds {} connection{}{}, capture 2 holds {}{}; they are not captures of one transfer.",
        a.len(),
        if a.len() == 1 { "" } else { "s" },
        example(a),
        b.len(),
        example(b)
    );
    if reused_ports > 0 {
        s += &format!(" {reused_ports} share a 4-tuple but with other initial sequence numbers or no datagram in common: another connection on the same ports, or another part of a long one.");
    }
    s
}
