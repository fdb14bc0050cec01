//! Latency under load (docs/ANALYSIS.md "Base RTT" and "Latency under load"): the path's
//! round trip rising while a flow loads it — flent's headline number — said only where
//! the capture shows both halves of the claim (issue 39, review AF
//! C-LATENCY-UNDER-LOAD-UNFOUNDED):
//!
//! 1. **The base is this path's.** Another connection's smallest round trip is a base
//!    for this one only over the same path: the same two hosts at the same hop counts
//!    (each host's IP TTL range, RFC 791 §3.2 / RFC 8200's hop limit, overlapping in both
//!    connections), within [`SAME_PATH_WINDOW_S`] of it. A different TTL from the same
//!    address is a different path or a different box: an in-path transparent proxy
//!    answering port 80 at 1.7 ms with TTL 60 beside the server's TTL 54 on 443
//!    (skudlur ccn-lab lab3.pcapng conn 11 / 13); a host behind a port forward one hop
//!    further (irc-dcc-send.trace's IRC server, TTL 63 on 6667, 64 on its DCC sends).
//!    Without the TTLs of both, the same listening port (host and port) must be shared.
//! 2. **The rise is shown under load.** Either this connection's own samples rose: its
//!    path median ([`LATENCY_MIN_SAMPLES`] samples that time the path, not an answer)
//!    at least [`QUEUEING_RTT_RATIO`] × its own smallest round trip (its handshake or
//!    first unloaded one), with more than an initial window outstanding
//!    ([`LOAD_MIN_BYTES`]); or a connection on the same path that ran at the same time
//!    showed that rise itself (the bulk flows filling the queue a small flow then only
//!    ever saw: bufferbloat.pcap), and this connection's own path samples (at least
//!    [`LATENCY_MIN_SAMPLES`] in one direction) put its median there. Never from another connection's minimum alone:
//!    connections to one anycast address each keep their own flat RTT (9.2 … 27.8 ms,
//!    wenjie01 "lab final 7-13.pcapng", conn 36 flat at 23.6 ms from its SYN/ACK on),
//!    and a session of single small messages times its peer's answers, not a queue
//!    (hiqnet, an SSH session at 2.6 kbit/s, zerologon's SMB exchanges).
//! 3. Never on a connection whose round trips the capture cannot time: capture gaps,
//!    one direction, a broken clock, no connection (audit.rs's guard).

use super::{queue_direction, LATENCY_MIN_SAMPLES, LATENCY_UNDER_LOAD_RATIO, QUEUEING_RTT_RATIO};
use crate::analysis::format::format_duration;
use crate::analysis::report::{ConnectionSummary, Episode};
use crate::analysis::rows::columns::{PacketColumns, RttSource};
use crate::analysis::timing::round_trips::{times_path, RoundTripRule};
use crate::analysis::track::connections::split_endpoint;

/// Connections further apart in time than this are not taken for the same path: a
/// route lives hours (Paxson, "End-to-end routing behavior", 1997), a Wi-Fi client moves
/// or a mobile one changes cell sooner.
pub const SAME_PATH_WINDOW_S: f64 = 600.0;
/// Neighbours in start order each connection compares with, each side: bounds the
/// work at 100 k connections between two hosts (issue 16); the nearest in time are
/// the ones the window keeps anyway.
const NEIGHBOURS: usize = 256;
/// Bytes in flight a sender must have reached for its own load to be said to raise the
/// RTT: more than RFC 3390's largest initial window (4,380 B). A sender that never had
/// more outstanding sent only what it may send unprobed, one message at a time, and
/// its "round trips" are its peer's answers (RFC 6298 §3 times data, not think time).
pub const LOAD_MIN_BYTES: u64 = 4380;

/// What one connection brings to the comparison.
struct PathOf<'a> {
    hosts: [&'a str; 2],
    ports: [&'a str; 2],
    ttl: [Option<(u8, u8)>; 2],
    start: f64,
    end: f64,
    own: Option<f64>,
    rose: bool,
}

fn path_of(c: &ConnectionSummary) -> PathOf<'_> {
    let (a, b) = (split_endpoint(&c.endpoints[0]), split_endpoint(&c.endpoints[1]));
    // Ordered by host so that both directions of a pair compare alike.
    let (hosts, ports, ttl) = if a.0 <= b.0 { ([a.0, b.0], [a.1, b.1], c.ttl) } else { ([b.0, a.0], [b.1, a.1], [c.ttl[1], c.ttl[0]]) };
    PathOf { hosts, ports, ttl, start: c.start, end: c.end, own: c.path_rtt_ms, rose: own_rise(c).is_some() }
}

/// The same path (rule 1 above): same hosts, each at an overlapping TTL range, or
/// without them a listening port in common; and within [`SAME_PATH_WINDOW_S`].
#[cfg(test)]
fn same_path(a: &PathOf, b: &PathOf) -> bool {
    a.hosts == b.hosts && same_path_of_hosts(a, b)
}

/// [`same_path`] of two connections already known to be between the same hosts.
#[cfg(test)]
fn same_path_of_hosts(a: &PathOf, b: &PathOf) -> bool {
    same_path_given_hosts((a.start, a.end, a.ttl), (b.start, b.end, b.ttl), || (0..2).any(|h| a.ports[h] == b.ports[h]))
}

/// The rule of [`same_path`] for two connections between the same hosts, from their
/// (start, end, TTL ranges); `same_port`: a listening port in common.
fn same_path_given_hosts(a: (f64, f64, [Option<(u8, u8)>; 2]), b: (f64, f64, [Option<(u8, u8)>; 2]), same_port: impl Fn() -> bool) -> bool {
    if b.0 > a.1 + SAME_PATH_WINDOW_S || a.0 > b.1 + SAME_PATH_WINDOW_S {
        return false;
    }
    match (a.2, b.2) {
        ([Some(a0), Some(a1)], [Some(b0), Some(b1)]) => overlap(a0, b0) && overlap(a1, b1),
        _ => same_port(),
    }
}

/// A connection's [`PathOf`] in the neighbour scan of `set_base_rtts`: its host pair
/// and ports as numbers.
struct Near {
    pair: u32,
    ports: [u32; 2],
    ttl: [Option<(u8, u8)>; 2],
    start: f64,
    end: f64,
    own: Option<f64>,
    rose: bool,
}

impl Near {
    /// [`same_path_given_hosts`], the ports compared as numbers.
    fn same_path(&self, b: &Near) -> bool {
        same_path_given_hosts((self.start, self.end, self.ttl), (b.start, b.end, b.ttl), || self.ports[0] == b.ports[0] || self.ports[1] == b.ports[1])
    }
}

fn overlap(a: (u8, u8), b: (u8, u8)) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

/// Small-flight round trips needed for their median to be the connection's own unloaded
/// RTT (as window_and_queue.rs `SMALL_FLIGHT_MIN_SAMPLES`); fewer, and the path's base is.
pub const SMALL_FLIGHT_MIN_SAMPLES: usize = 5;

/// The control of rule 2 (review AH C-LATENCY-UNDER-LOAD-UNFOUNDED): the medians, ms, of
/// the queue direction's path round trips (round_trips.rs `times_path`, as its
/// `path_median_ms`) whose data left with at most [`LOAD_MIN_BYTES`] in flight (none
/// below [`SMALL_FLIGHT_MIN_SAMPLES`] of them) and with more (none below
/// [`LATENCY_MIN_SAMPLES`]). A lone small message has nothing queued behind it of its
/// own (RFC 6349 §3.3.2 measures buffer delay against the RTT of the pipe unloaded): where
/// it waits as long as a loaded round, the wait is the path's or the peer's — a Wi-Fi
/// client's link waking from power save (lesquive smartpcap test.cap conn 3: tshark's
/// ack_rtt 24.8 ms median at ≤ 3 kB in flight against 31.6 ms above 25 kB) — not load.
/// Read from the rows at diagnosis time into `ConnectionSummary::flight_rtt_ms`: the
/// summary-level pass below has no rows.
pub fn flight_rtts(c: &ConnectionSummary, p: &PacketColumns, rtt: &dyn RttSource, tick: f64) -> [Option<f64>; 2] {
    let q = queue_direction(c, false) as u8;
    let rule = RoundTripRule::of(c, tick);
    // The flight of the last data segment of direction q sent by `sent` (within 64 rows).
    let flight_at = |sent: f64| {
        let k = p.t.partition_point(|&t| t <= sent);
        (k.saturating_sub(64)..k).rev().find(|&i| p.dir[i] == q && p.len[i] > 0 && p.in_flight[i].is_finite()).map(|i| p.in_flight[i])
    };
    let (mut small, mut loaded) = (Vec::new(), Vec::new());
    rule.for_each(rtt, &mut |t, dir, measured_ms, round_trip_ms, kind| {
        if dir & 1 == q && times_path(kind, measured_ms, rule.offset_ms[1 - q as usize]) && round_trip_ms.is_finite() && round_trip_ms > 0.0 {
            match flight_at(t - round_trip_ms / 1000.0) {
                Some(w) if w <= LOAD_MIN_BYTES as f64 => small.push(round_trip_ms),
                Some(_) => loaded.push(round_trip_ms),
                None => {}
            }
        }
    });
    let median = |v: &mut Vec<f64>, min: usize| {
        v.sort_by(f64::total_cmp);
        (v.len() >= min.max(1)).then(|| v[v.len() / 2])
    };
    [median(&mut small, SMALL_FLIGHT_MIN_SAMPLES), median(&mut loaded, LATENCY_MIN_SAMPLES as usize)]
}

/// This connection's own rise under its own load (rule 2's first half), ms: (the RTT it
/// rose from, if its own small-flight median, and the median it rose to). With at least
/// [`SMALL_FLIGHT_MIN_SAMPLES`] small-flight round trips (`flight_rtt_ms`), the median of
/// those with more than [`LOAD_MIN_BYTES`] in flight at least [`QUEUEING_RTT_RATIO`] × the
/// small-flight median; without them, its path median at least that × its own smallest
/// round trip over at least [`LATENCY_MIN_SAMPLES`] path samples, with more than
/// [`LOAD_MIN_BYTES`] in flight at some point.
fn own_rise(c: &ConnectionSummary) -> Option<(Option<f64>, f64)> {
    if !timed(c) {
        return None;
    }
    let q = queue_direction(c, false);
    let d = &c.directions[q];
    let own = c.path_rtt_ms.filter(|&r| r > 0.0)?;
    if let [Some(small), loaded] = c.flight_rtt_ms {
        // The control: the same connection's rounds with little in flight.
        let loaded = loaded?;
        return (loaded >= QUEUEING_RTT_RATIO * small.max(own)).then_some((Some(small.max(own)), loaded));
    }
    let median = d.rtt.path_median_ms.filter(|_| d.rtt.path_samples >= LATENCY_MIN_SAMPLES)?;
    // The load of the data these samples time (direction q's).
    let loaded = d.max_bytes_in_flight.unwrap_or(0) > LOAD_MIN_BYTES;
    (loaded && median >= QUEUEING_RTT_RATIO * own).then_some((None, median))
}

/// Rule 3: a limit under which the capture times round trips.
fn timed(c: &ConnectionSummary) -> bool {
    !matches!(c.diagnosis.limit.as_str(), "capture-gaps" | "one-direction" | "not-established" | "clock-broken")
}

/// Sets every connection's `base_rtt_ms` (its own path RTT and that of the connections
/// on the same path) and appends the latency-under-load sentence where it is shown.
pub fn set_base_rtts(conns: &mut [ConnectionSummary]) {
    let notes: Vec<(Option<f64>, bool)> = {
        let paths: Vec<PathOf> = conns.iter().map(path_of).collect();
        let mut order: Vec<usize> = (0..paths.len()).collect();
        order.sort_by(|&i, &j| (paths[i].hosts, paths[i].start).partial_cmp(&(paths[j].hosts, paths[j].start)).unwrap_or(std::cmp::Ordering::Equal));
        // Host pairs as numbers, in sorted order: the neighbours compared below are
        // those of the same pair (contiguous after the sort), without comparing strings
        // (100 k connections between two hosts made 51 M string comparisons).
        let mut pair = vec![0u32; paths.len()];
        for k in 1..order.len() {
            pair[k] = pair[k - 1] + u32::from(paths[order[k]].hosts != paths[order[k - 1]].hosts);
        }
        // Speed (issues 41, 43): 100 k connections between two hosts compare 51 M
        // neighbours. Each is read from a compact copy in sorted order (no index into
        // `paths`, its ports as numbers) and only within its host pair's run of the
        // sorted order: the same neighbours, in the same order, as before.
        // Built after `paths` is freed (each taken again from its connection), so the
        // compact copy adds nothing to the memory this step holds at its largest.
        drop(paths);
        let mut near: Vec<Near> = Vec::with_capacity(order.len());
        let mut port_ids: std::collections::HashMap<&str, u32> = Default::default();
        for (&i, &pair) in order.iter().zip(&pair) {
            let p = path_of(&conns[i]);
            let mut ports = [0; 2];
            for (id, port) in ports.iter_mut().zip(p.ports) {
                let next = port_ids.len() as u32;
                *id = *port_ids.entry(port).or_insert(next);
            }
            near.push(Near { pair, ports, ttl: p.ttl, start: p.start, end: p.end, own: p.own, rose: p.rose });
        }
        drop((pair, port_ids)); // the scan reads `near` alone
        let mut notes = vec![(None, false); near.len()];
        let mut run_start = 0;
        for (k, &i) in order.iter().enumerate() {
            if near[k].pair != near[run_start].pair {
                run_start = k;
            }
            let me = &near[k];
            let (mut base, mut loaded_beside) = (me.own, false);
            let (lo, hi) = (k.saturating_sub(NEIGHBOURS).max(run_start), (k + NEIGHBOURS + 1).min(order.len()));
            let run = near[lo..hi].iter().take_while(|o| o.pair == me.pair);
            for (m, o) in (lo..hi).zip(run) {
                if m == k || !me.same_path(o) {
                    continue;
                }
                if let Some(r) = o.own {
                    base = Some(base.map_or(r, |b: f64| b.min(r)));
                }
                // The path was loaded while this connection ran: another flow on it
                // showed its own rise and overlapped this one in time.
                loaded_beside |= o.rose && o.start < me.end && me.start < o.end;
            }
            notes[i] = (base, loaded_beside);
        }
        notes
    };
    for (c, (base, loaded_beside)) in conns.iter_mut().zip(notes) {
        c.base_rtt_ms = base;
        if let Some(base) = base {
            note_latency_under_load(c, base, loaded_beside);
        }
    }
}

/// Appends the sentence and its episode when the rise from the path's base is shown
/// (rules 2 and 3) and is news: the base lower than this connection's own path RTT
/// (its own queueing is said by the headline's queue phrase).
fn note_latency_under_load(conn: &mut ConnectionSummary, base_ms: f64, loaded_beside: bool) {
    let Some(own) = conn.path_rtt_ms else { return };
    if !timed(conn) || base_ms >= 0.9 * own {
        return;
    }
    // Its own rise's median; or, loaded by the other flows only, the median of the
    // direction with the more path samples, at least [`LATENCY_MIN_SAMPLES`] of them —
    // never its smallest round trip alone: a lone small message's "round trip" is its
    // peer's answer time (an SSH session's echoes, 123 ms, beside a VNC connection).
    let beside = || {
        let r = conn.directions.iter().map(|d| &d.rtt).filter(|r| r.path_samples >= LATENCY_MIN_SAMPLES).max_by_key(|r| r.path_samples)?;
        r.path_median_ms
    };
    let Some((own_small, rtt_ms)) = own_rise(conn).or_else(|| loaded_beside.then(beside).flatten().map(|m| (None, m))) else { return };
    // The control (its own small-flight rounds where it had them; loaded by other flows
    // only, its own small messages too: lesquive test.cap conn 3 beside conn 6) vetoes a
    // rise its lone messages show as well; the rise is then said from the path's base, the
    // unloaded path (bufferbloat.pcap conn 1: small-flight 29 ms inside conn 2's queue,
    // netem's 10 ms the path).
    if let Some(small) = own_small.or(conn.flight_rtt_ms[0]) {
        if !(rtt_ms >= LATENCY_UNDER_LOAD_RATIO * small && rtt_ms - small >= 10.0) {
            return;
        }
    }
    if !(rtt_ms >= LATENCY_UNDER_LOAD_RATIO * base_ms && rtt_ms - base_ms >= 10.0) {
        return;
    }
    let text = format!(
        "Latency under load: the RTT rose from {} (the path's base, the smallest round trip of the connections \
         between these hosts at the same hop counts) to {} (median, {:.0}×).",
        format_duration(base_ms / 1000.0),
        format_duration(rtt_ms / 1000.0),
        rtt_ms / base_ms
    );
    conn.diagnosis.text += &format!(" {text}");
    conn.diagnosis.episodes.push(Episode { start: conn.start, end: conn.end, kind: "latency", text });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path<'a>(ports: [&'a str; 2], ttl: [Option<(u8, u8)>; 2], start: f64) -> PathOf<'a> {
        PathOf { hosts: ["10.0.0.1", "10.0.0.2"], ports, ttl, start, end: start + 1.0, own: Some(1.0), rose: false }
    }

    #[test]
    fn the_same_path_is_the_same_hop_counts_or_without_them_a_shared_port() {
        let me = path(["40000", "443"], [Some((64, 64)), Some((54, 54))], 0.0);
        // A transparent proxy on port 80 answering at TTL 60 (skudlur ccn-lab lab3.pcapng).
        assert!(!same_path(&me, &path(["40001", "80"], [Some((64, 64)), Some((60, 60))], 0.0)));
        // The same hop counts, another port: the same path (irc-dcc-send's DCC sends).
        assert!(same_path(&me, &path(["40001", "8443"], [Some((64, 64)), Some((53, 54))], 0.0)));
        // No TTL on one side: only a listening port in common makes it the same path.
        assert!(same_path(&me, &path(["40002", "443"], [None, None], 0.0)));
        assert!(!same_path(&me, &path(["40002", "80"], [None, None], 0.0)));
        // More than SAME_PATH_WINDOW_S (600 s) apart: not taken for the same path.
        assert!(!same_path(&me, &path(["40003", "443"], [Some((64, 64)), Some((54, 54))], 602.0)));
    }
}
