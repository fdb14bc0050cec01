//! One pair at a time: roles, datagrams matched, sides, clocks, fates, delays, stalls,
//! the round trip's split and the bytes sent, not yet acknowledged (mod.rs lists the steps).

use std::collections::HashMap;

use super::clock::{self, Anchor, Clock, Sides};
use super::collect::{self, Collected, Dgram, Prints, DIR};
use super::matching::{self, EXACT};
use super::pairing::Pairing;
use super::report::*;
use super::{delay, fate, placement, sequence, split, Recording, MAX_DATAGRAMS, MAX_PAIRS};
use crate::analysis::connections::endpoint_name;
use crate::analysis::Analysis;

/// The refusal of a pair whose two captures are one vantage point.
pub const SAME_POINT: &str = "Both captures were taken at the same point: at every moment both hosts' datagrams show the same time difference between the two captures, none in transit either way (the same recording twice, or a copy with its clock shifted or drifting), so there is no path between them to measure.";

/// Merges every pair that fits (mod.rs caps): one more walk over each capture collects
/// their datagrams.
pub fn merge_pairs(recordings: [&dyn Recording; 2], analyses: [&Analysis; 2], prints: &[Prints; 2], pairs: &[Pairing]) -> TwinReport {
    let mut wanted: [HashMap<u32, usize>; 2] = [HashMap::new(), HashMap::new()];
    let mut refusals: Vec<Option<String>> = Vec::new();
    for (k, p) in pairs.iter().enumerate() {
        let size = |s: usize| prints[s].conns[p.conn[s] as usize].packets.iter().sum::<u64>();
        let refusal = if k >= MAX_PAIRS {
            Some(format!("Only the first {MAX_PAIRS} connections found in both captures are merged."))
        } else if let Some(s) = (0..2).find(|&s| size(s) > MAX_DATAGRAMS) {
            Some(format!(
                "Connection {} of capture {} has {} datagrams; the merge keeps at most {MAX_DATAGRAMS} of a connection per capture (about 48 MB). Slice a time range of it first (tcpscope slice).",
                p.conn[s],
                s + 1,
                size(s)
            ))
        } else {
            None
        };
        if refusal.is_none() {
            for (s, w) in wanted.iter_mut().enumerate() {
                w.insert(p.conn[s], k);
            }
        }
        refusals.push(refusal);
    }
    let mut lists = [collect::collect(recordings[0], &wanted[0], pairs.len()), collect::collect(recordings[1], &wanted[1], pairs.len())];
    let mut report = TwinReport::default();
    for (k, p) in pairs.iter().enumerate() {
        let own = [std::mem::take(&mut lists[0][k]), std::mem::take(&mut lists[1][k])];
        report.pairs.push(match refusals[k].take() {
            Some(why) => refused_pair(p, prints, 0, sender_dirs(p, prints), why),
            None => merge_one(p, prints, analyses, own),
        });
    }
    report
}

/// Names of `[data sender, receiver]` as capture s sees them.
fn names(p: &Pairing, prints: &[Prints; 2], s: usize, sender_dir: u8) -> [String; 2] {
    let c = &prints[s].conns[p.conn[s] as usize];
    let e = |d: u8| endpoint_name(c.ends[usize::from(d)].0, c.ends[usize::from(d)].1);
    [e(sender_dir), e(1 - sender_dir)]
}

fn side_ref(p: &Pairing, prints: &[Prints; 2], s: usize, sender_dir: u8) -> SideRef {
    SideRef { input: s as u8, connection: p.conn[s], endpoints: names(p, prints, s, sender_dir) }
}

/// A pair not merged (`why`), its sides named by role as far as they are known.
fn refused_pair(p: &Pairing, prints: &[Prints; 2], sender: usize, sender_dir: [u8; 2], why: String) -> TwinPair {
    TwinPair {
        matched_by: p.matched_by,
        evidence: p.evidence.clone(),
        rewritten: p.rewritten,
        sender_side: side_ref(p, prints, sender, sender_dir[sender]),
        receiver_side: side_ref(p, prints, 1 - sender, sender_dir[1 - sender]),
        sides_told_by: String::new(),
        refused: Some(why),
        clock: None,
        directions: Vec::new(),
        stalls: Vec::new(),
        distinct_stalls: Vec::new(),
        stall_threshold_ms: [None, None],
        rtt_split: None,
        in_flight: None,
        queued: "neither",
        events: Vec::new(),
        sequence: None,
    }
}

/// The data sender: the end that sent more payload, both captures together; its local
/// direction in each capture.
fn sender_dirs(p: &Pairing, prints: &[Prints; 2]) -> [u8; 2] {
    let (a, b) = (&prints[0].conns[p.conn[0] as usize], &prints[1].conns[p.conn[1] as usize]);
    let sent = |d: usize| a.payload[d] + b.payload[usize::from(p.dir_in_b[d])];
    let sa = u8::from(sent(1) > sent(0));
    [sa, p.dir_in_b[usize::from(sa)]]
}

fn clock_report(c: &Clock) -> TwinClock {
    TwinClock {
        offset_ms: c.theta0 / 1e6,
        uncertainty_ms: c.uncertainty / 1e6,
        drift_ppm: c.drift.map(|d| d.0),
        drift_uncertainty_ppm: c.drift.map(|d| d.1),
        samples: c.samples,
        arrived_before_sent: c.arrived_before_sent,
        inconsistent: c.inconsistent,
        text: c.text(),
    }
}

/// The analysis' position of the connection named `ends` near `index` (the report
/// numbers connections as collect.rs does; a capped analysis may not hold it).
fn find_conn(a: &Analysis, index: u32, ends: &[String; 2]) -> Option<usize> {
    let same = |c: &crate::analysis::ConnectionSummary| c.endpoints.contains(&ends[0]) && c.endpoints.contains(&ends[1]);
    match a.connections.get(index as usize) {
        Some(c) if c.id == index && same(c) => Some(index as usize),
        _ => a.connections.iter().position(same),
    }
}

fn merge_one(p: &Pairing, prints: &[Prints; 2], analyses: [&Analysis; 2], mut own: [Collected; 2]) -> TwinPair {
    let sender_dir = sender_dirs(p, prints);
    for (s, c) in own.iter_mut().enumerate() {
        for x in c.dgrams.iter_mut().chain(c.copies.iter_mut()) {
            x.bits = (x.bits & !DIR) | u8::from(x.dir() != sender_dir[s]);
        }
    }
    let d: [&[Dgram]; 2] = [&own[0].dgrams, &own[1].dgrams];
    let mut m = matching::anchors(d);
    let anchors: Vec<Anchor> =
        (0..d[0].len()).filter(|&i| m.how[0][i] == EXACT).map(|i| Anchor { dir: d[0][i].dir(), t: [d[0][i].t_ns, d[1][m.partner[0][i] as usize].t_ns] }).collect();
    let with_roles = |sender: usize, why: String| refused_pair(p, prints, sender, sender_dir, why);
    if anchors.is_empty() {
        return with_roles(0, "No datagram was seen at both points: the captures do not overlap in time, or a box between them rewrote sequence numbers.".into());
    }
    let turnaround = [clock::turnaround(d[0], 0), clock::turnaround(d[1], 0)];
    let (sender, told) = match clock::orient(&anchors, turnaround) {
        Sides::Told(s, words) => (s, words),
        Sides::SamePoint => return with_roles(0, SAME_POINT.into()),
        Sides::Unknown(why) => return with_roles(0, why),
    };
    let receiver = 1 - sender;
    let t0 = prints[sender].span.map_or(d[sender][0].t_ns, |s| s.0);
    let clock = clock::estimate(&anchors, sender, t0);
    let near = [sender, receiver];
    m.complete(d, near, &|side, t| clock.at(side, t));
    let spans = [0, 1].map(|s| prints[s].span.map_or((0.0, 0.0), |(a, b)| (clock.at(s, a), clock.at(s, b))));
    let f = fate::fates(&fate::Ctx { work: Default::default(), d, copies: [&own[0].copies, &own[1].copies], m: &m, clock: &clock, near, spans });
    let mut t = with_roles(sender, String::new());
    t.refused = None;
    t.sides_told_by = told;
    let names_s = &t.sender_side.endpoints.clone();
    let mut dirs = f.dirs.clone();
    for (r, dir) in dirs.iter_mut().enumerate() {
        dir.from = names_s[r].clone();
        dir.to = names_s[1 - r].clone();
        (dir.delay, dir.queue_p50_ms, dir.queue_p95_ms) = delay::stats(&f.delays[r]);
        dir.delay_series = delay::series(&f.delays[r]);
        dir.queue_sustained_ms = delay::sustained_queue(&f.delays[r]);
    }
    t.queued = delay::queued_direction([dirs[0].queue_sustained_ms, dirs[1].queue_sustained_ms]);
    let floor = [0, 1].map(|r| dirs[r].delay.map_or(clock.uncertainty, |s| s.min_ms * 1e6));
    let conns = [0, 1].map(|s| find_conn(analyses[s], p.conn[s], &names(p, prints, s, sender_dir[s])));
    let ctx = placement::Ctx {
        d,
        m: &m,
        clock: &clock,
        near,
        code: [&f.code[0], &f.code[1]],
        floor,
        shift: [0, 1].map(|r| prints[sender].conns[p.conn[sender] as usize].shift(if r == 0 { sender_dir[sender] } else { 1 - sender_dir[sender] })),
        frames: [0, 1].map(|s| d[s].iter().enumerate().map(|(i, x)| (x.frame, i as u32)).collect()),
    };
    t.stalls = place_stalls(&ctx, analyses, conns, [0, 1].map(|s| names(p, prints, s, sender_dir[s])[0].clone()));
    t.distinct_stalls = ctx.distinct_stalls(&t.stalls);
    t.stall_threshold_ms = near.map(|s| conns[s].and_then(|i| analyses[s].connections.get(i)).map(|c| c.stall_threshold_ms));
    t.rtt_split = Some(split::rtt_split(d[sender], d[receiver], &f.delays, clock.uncertainty));
    let sender_name = |s: usize| names(p, prints, s, sender_dir[s])[0].clone();
    let (sn, rn) = (sender_name(sender), sender_name(receiver));
    t.in_flight = match (conns[sender], conns[receiver]) {
        (Some(cs), Some(cr)) => split::in_flight(
            split::Seen { analysis: analyses[sender], connection: cs, data_sender: &sn },
            split::Seen { analysis: analyses[receiver], connection: cr, data_sender: &rn },
            d,
            &m,
            receiver,
        ),
        _ => None,
    };
    t.clock = Some(clock_report(&clock));
    t.directions = dirs.to_vec();
    t.events = f.events;
    sequence::due_times(&mut t.events, floor);
    t.sequence = Some(sequence::series(d, &m, &clock, f.base[0]));
    t
}

/// Every stall of both captures' reports of the connection, placed.
fn place_stalls(c: &placement::Ctx, analyses: [&Analysis; 2], conns: [Option<usize>; 2], data_sender: [String; 2]) -> Vec<PlacedStall> {
    let mut out = Vec::new();
    for s in [1 - c.clock.receiver, c.clock.receiver] {
        let Some(conn) = conns[s].and_then(|i| analyses[s].connections.get(i)) else { continue };
        for dir in conn.directions.iter() {
            let r = usize::from(dir.from != data_sender[s]);
            out.extend(dir.stalls.iter().map(|st| c.place(s, r, st)));
        }
    }
    out.sort_by(|a, b| a.at.total_cmp(&b.at));
    out
}
