//! The same datagram at both points (docs/ANALYSIS.md "Two vantage points").
//!
//! A datagram is named by what its sender put in it and no box on the way changes:
//! direction, sequence and acknowledgment numbers, payload length, SYN/FIN/RST, TCP
//! timestamps (TSval, TSecr; RFC 7323 §3) and, where it names datagrams, the IPv4
//! Identification. A retransmission is a new datagram (Linux builds the header again:
//! a new Identification from the socket's counter, a new TSval once its clock ticked;
//! analysis/capture/duplicates.rs), so it pairs with its own arrival, not the
//! original's. Three passes:
//! 1. `anchors`: names that occur once at each point pair at once; nothing about the
//!    clocks is needed, and these pairs are what the clocks are read from (clock.rs);
//! 2. `Matching::complete`, names seen several times (duplicate ACKs, a resend
//!    identical to its original where neither timestamps nor the Identification tell
//!    them apart): in order, each arrival pairs with the send, after the one the
//!    previous arrival took, whose expected arrival (its send + the delay of the
//!    nearest anchor in time) is nearest; an arrival left over whose send was already
//!    paired is a network copy;
//! 3. byte ranges, for a sender-side capture of a TSO/GSO sender (one datagram of
//!    several segments, cut on the wire; every piece keeps the TSval, the
//!    Identification steps by one per piece, Linux `tcp_gso_segment`/`inet_gso_segment`)
//!    and a receiver-side capture after GRO (the reverse): pieces within the larger
//!    datagram's range, same TSval, Identification within range.
//! The Identification is used only where it names datagrams in this direction: non-zero,
//! changing, and equal at both points on at least 90 % of the anchors (a NAT that
//! rewrites it, RFC 6864 §4's constant values, and IPv6 are left to the other fields).

use std::collections::BTreeMap;

use super::collect::{datagram_hash, Dgram};
use crate::decode::tcp_flags::{FIN, RST, SYN};

pub const NONE: u32 = u32::MAX;
/// `Matching::how`.
pub const UNMATCHED: u8 = 0;
pub const EXACT: u8 = 1;
pub const PIECE: u8 = 2;
/// An arrival whose send was already paired: a copy the network made.
pub const COPY: u8 = 3;

/// Tolerance on a pairing's one-way delay after the offset, ns: below the floor by at
/// most the capture clocks' jitter.
pub const SLACK_NS: f64 = 200_000.0;
/// A datagram that took longer than this between the points is not the same one.
const MAX_DELAY_NS: f64 = 120e9;

pub struct Matching {
    /// `partner[side][i]`: the datagram at the other side, NONE without.
    pub partner: [Vec<u32>; 2],
    pub how: [Vec<u8>; 2],
    /// The Identification names datagrams of this direction at both points.
    pub ids_trusted: [bool; 2],
    /// Name hash, side, index: sorted; `groups` index into it.
    entries: Vec<(u64, u8, u32)>,
    groups: Vec<(u32, u32)>,
}

fn name(x: &Dgram) -> u64 {
    datagram_hash(x.seq, x.ack, x.len, x.flags, x.ts().map(|v| (v, x.tsecr))) ^ u64::from(x.dir())
}

fn same_name(a: &Dgram, b: &Dgram) -> bool {
    let f = SYN | FIN | RST;
    (a.dir(), a.seq, a.ack, a.len, a.flags & f, a.ts(), a.tsecr) == (b.dir(), b.seq, b.ack, b.len, b.flags & f, b.ts(), b.tsecr)
}

/// The delay of the anchor sent nearest to t (0 without anchors).
fn delay_near(anchors: &[(f64, f64)], t: f64) -> f64 {
    let i = anchors.partition_point(|a| a.0 < t);
    let near = [i.checked_sub(1), Some(i)].into_iter().flatten().filter_map(|k| anchors.get(k));
    near.min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs())).map_or(0.0, |a| a.1)
}

/// Pass 1 (module doc).
pub fn anchors(d: [&[Dgram]; 2]) -> Matching {
    let mut entries: Vec<(u64, u8, u32)> = Vec::with_capacity(d[0].len() + d[1].len());
    for (side, list) in d.iter().enumerate() {
        entries.extend(list.iter().enumerate().map(|(i, x)| (name(x), side as u8, i as u32)));
    }
    entries.sort_unstable();
    let mut m = Matching {
        partner: [vec![NONE; d[0].len()], vec![NONE; d[1].len()]],
        how: [vec![UNMATCHED; d[0].len()], vec![UNMATCHED; d[1].len()]],
        ids_trusted: [false; 2],
        entries: Vec::new(),
        groups: Vec::new(),
    };
    let mut lo = 0;
    while lo < entries.len() {
        let mut hi = lo + 1;
        while hi < entries.len() && entries[hi].0 == entries[lo].0 {
            hi += 1;
        }
        let at0 = entries[lo..hi].iter().filter(|e| e.1 == 0).count();
        let (i, j) = (entries[lo].2, entries[hi - 1].2);
        if at0 == 1 && hi - lo == 2 && same_name(&d[0][i as usize], &d[1][j as usize]) {
            m.pair(0, i, j, EXACT);
        } else if at0 > 0 && at0 < hi - lo {
            m.groups.push((lo as u32, hi as u32));
        }
        lo = hi;
    }
    m.entries = entries;
    m.trust_ids(d);
    m
}

impl Matching {
    fn pair(&mut self, side: usize, i: u32, j: u32, how: u8) {
        self.partner[side][i as usize] = j;
        self.how[side][i as usize] = how;
        self.partner[1 - side][j as usize] = i;
        self.how[1 - side][j as usize] = how;
    }

    /// Decides `ids_trusted` from the anchors, and undoes the anchors whose
    /// Identifications then disagree (not the same datagram).
    fn trust_ids(&mut self, d: [&[Dgram]; 2]) {
        let mut agree = [[0u64; 2]; 2];
        for (i, &j) in self.partner[0].iter().enumerate() {
            if j == NONE {
                continue;
            }
            let (a, b) = (&d[0][i], &d[1][j as usize]);
            if let (Some(x), Some(y)) = (a.id(), b.id()) {
                agree[usize::from(a.dir())][usize::from(x == y)] += 1;
            }
        }
        for r in 0..2 {
            let [no, yes] = agree[r];
            self.ids_trusted[r] = yes > 1 && yes * 10 >= (yes + no) * 9;
        }
        for i in 0..d[0].len() {
            let j = self.partner[0][i];
            if j == NONE {
                continue;
            }
            let (a, b) = (&d[0][i], &d[1][j as usize]);
            if self.ids_trusted[usize::from(a.dir())] && a.id() != b.id() {
                self.partner[0][i] = NONE;
                self.how[0][i] = UNMATCHED;
                self.partner[1][j as usize] = NONE;
                self.how[1][j as usize] = UNMATCHED;
            }
        }
    }

    /// Passes 2 and 3 (module doc), once the clocks are known: `near[r]` is the side
    /// that sees direction r leave, `at(side, t_ns)` a time on the merged axis, ns.
    pub fn complete(&mut self, d: [&[Dgram]; 2], near: [usize; 2], at: &dyn Fn(usize, i64) -> f64) {
        let expected = self.expected_delays(d, near, at);
        let groups = std::mem::take(&mut self.groups);
        let entries = std::mem::take(&mut self.entries);
        for &(lo, hi) in &groups {
            let group = &entries[lo as usize..hi as usize];
            let r = usize::from(d[usize::from(group[0].1)][group[0].2 as usize].dir());
            let (ns, fs) = (near[r], 1 - near[r]);
            // With trusted Identifications a pairing needs equal ones: one run per value.
            let trusted = self.ids_trusted[r];
            let id_key = |side: usize, i: u32| if trusted { d[side][i as usize].id() } else { None };
            let mut sends: Vec<u32> = group.iter().filter(|e| usize::from(e.1) == ns).map(|e| e.2).collect();
            let mut arrivals: Vec<u32> = group.iter().filter(|e| usize::from(e.1) == fs).map(|e| e.2).collect();
            sends.sort_by_key(|&i| (id_key(ns, i), i));
            arrivals.sort_by_key(|&i| (id_key(fs, i), i));
            let mut k = 0;
            let mut last: Option<(Option<u16>, u32)> = None;
            for &f in &arrivals {
                let key = id_key(fs, f);
                while k < sends.len() && id_key(ns, sends[k]) < key {
                    k += 1;
                }
                let t_far = at(fs, d[fs][f as usize].t_ns);
                // The path keeps datagrams in order (those of one name are told apart
                // by nothing else): the arrival pairs with a send after the one the
                // previous arrival took, the one whose expected arrival (its send + the
                // delay of the nearest anchor) is nearest; the sends skipped were lost.
                let mut best: Option<(f64, usize)> = None;
                for j in (k..sends.len()).take(4096) {
                    let n = sends[j];
                    let t = at(ns, d[ns][n as usize].t_ns);
                    if id_key(ns, n) != key || t > t_far + SLACK_NS {
                        break;
                    }
                    let miss = (t_far - t - delay_near(&expected[r], t)).abs();
                    if best.map_or(true, |b| miss < b.0) {
                        best = Some((miss, j));
                    }
                }
                match best {
                    Some((_, j)) => {
                        self.pair(ns, sends[j], f, EXACT);
                        last = Some((key, sends[j]));
                        k = j + 1;
                    }
                    None => {
                        if let Some((_, n)) = last.filter(|l| l.0 == key) {
                            self.partner[fs][f as usize] = n;
                            self.how[fs][f as usize] = COPY;
                        }
                    }
                }
            }
        }
        for r in 0..2 {
            self.byte_ranges(d, r, near[r], at);
        }
    }

    /// Per direction, the anchors' (send time, one-way delay) on the merged axis, in
    /// time order: what a datagram sent then should have taken.
    fn expected_delays(&self, d: [&[Dgram]; 2], near: [usize; 2], at: &dyn Fn(usize, i64) -> f64) -> [Vec<(f64, f64)>; 2] {
        let mut out = [Vec::new(), Vec::new()];
        for (i, &j) in self.partner[0].iter().enumerate() {
            if j == NONE {
                continue;
            }
            let r = usize::from(d[0][i].dir());
            let (n, f) = if near[r] == 0 { (d[0][i].t_ns, d[1][j as usize].t_ns) } else { (d[1][j as usize].t_ns, d[0][i].t_ns) };
            let t = at(near[r], n);
            out[r].push((t, at(1 - near[r], f) - t));
        }
        for v in &mut out {
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        out
    }

    /// Pass 3 for direction r (module doc).
    fn byte_ranges(&mut self, d: [&[Dgram]; 2], r: usize, ns: usize, at: &dyn Fn(usize, i64) -> f64) {
        let fs = 1 - ns;
        let Some(base) = d[ns].iter().chain(d[fs].iter()).find(|x| usize::from(x.dir()) == r).map(|x| x.seq) else { return };
        let rel = |x: &Dgram| i64::from(x.seq.wrapping_sub(base) as i32);
        let open = |m: &Matching, side: usize| -> BTreeMap<i64, Vec<u32>> {
            let mut map: BTreeMap<i64, Vec<u32>> = BTreeMap::new();
            for (i, x) in d[side].iter().enumerate() {
                if usize::from(x.dir()) == r && x.len > 0 && x.flags & SYN == 0 && m.how[side][i] == UNMATCHED {
                    map.entry(rel(x)).or_default().push(i as u32);
                }
            }
            map
        };
        for (big_side, small_side) in [(ns, fs), (fs, ns)] {
            let small = open(self, small_side);
            if small.is_empty() {
                continue;
            }
            for i in 0..d[big_side].len() {
                let x = &d[big_side][i];
                if usize::from(x.dir()) != r || x.len == 0 || self.how[big_side][i] != UNMATCHED {
                    continue;
                }
                let (s, e) = (rel(x), rel(x) + i64::from(x.len));
                let t_big = at(big_side, x.t_ns);
                let mut first = None;
                for (_, list) in small.range(s..e) {
                    for &j in list {
                        let y = &d[small_side][j as usize];
                        // Each piece's Identification is the large datagram's plus its place.
                        let ids_fit = !self.ids_trusted[r] || matches!((x.id(), y.id()), (Some(a), Some(b)) if b.wrapping_sub(a) < 1024);
                        let delay = if big_side == ns { at(small_side, y.t_ns) - t_big } else { t_big - at(small_side, y.t_ns) };
                        if self.how[small_side][j as usize] == UNMATCHED
                            && rel(y) + i64::from(y.len) <= e
                            && y.ts() == x.ts()
                            && ids_fit
                            && delay >= -SLACK_NS
                            && delay < MAX_DELAY_NS
                        {
                            self.partner[small_side][j as usize] = i as u32;
                            self.how[small_side][j as usize] = PIECE;
                            first = first.or(Some(j));
                        }
                    }
                }
                if let Some(j) = first {
                    self.partner[big_side][i] = j;
                    self.how[big_side][i] = PIECE;
                }
            }
        }
    }
}
