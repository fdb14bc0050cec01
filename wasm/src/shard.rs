//! One capture's connections analysed by N shards (issue 43, item 2): each shard is a
//! whole `Session` that decodes the whole file but hands the analyzer only the TCP
//! segments whose connection (the direction-independent 4-tuple, as the flow table
//! keys it) hashes to it; the shards' connection tables are then merged.
//!
//! Why every shard decodes the file rather than one decoder shipping packets: decoding
//! is ~7 % of the one-shard time at 100 k connections (bench/README.md, session 35), far
//! less than copying each decoded segment to another thread would cost; and every
//! shard then holds the capture-wide facts of the session itself (packets, bytes,
//! formats, decoder warnings, the timeline's repairs) exactly as one session would.
//!
//! Exact by construction or not at all: a merged report must be byte for byte the
//! report of one session. Connection ids follow the order in which connections opened,
//! so each shard records the global position (among every TCP segment handed on) of
//! the segment that opened each of its connections, and [`plan`] interleaves them. What
//! the analysis computes across connections is checked instead of merged ([`Facts`],
//! `plan`): any capture-wide warning of the analysis (each is told when one connection
//! shows it, so none in any shard means none in one session), copies of frames,
//! checksum verdicts, ICMP errors, MPTCP, a connection with a clock of its own, the
//! capture's clock tick (computed here over every segment, against each shard's), a
//! payload-only capture, the connection and stored-packet limits, and each host pair's
//! base RTT (the least path RTT among its connections: it must be the same in every
//! shard holding that pair). When one fails, `plan` says why and the caller analyses
//! the capture in one session. Not checked: a host numbering the IPv4 Identification
//! of all its connections from one counter (`SourceIds`): a skip another connection
//! took is told from the source's previous datagram, which may sit in another shard.

use crate::analysis::clock::ClockTicks;
use crate::analysis::Analysis;
use crate::decode::TcpSegment;
use crate::fxhash::FxHasher;
use serde::{Deserialize, Serialize};
use std::hash::Hasher;
use std::net::IpAddr;

/// Which segments one shard analyses, and what it saw of all of them.
#[derive(Debug, Clone)]
pub struct ShardFilter {
    pub index: u32,
    pub count: u32,
    /// TCP segments handed on so far (every shard counts all of them, in one order).
    delivered: u64,
    /// Global position of the segment that opened each of this shard's connections.
    opens: Vec<u64>,
    /// The capture clock over every segment handed on (analyzer's `ClockTicks`).
    clock: ClockTicks,
    /// Segments handed on, and those without payload (`CaptureFacts::payload_only`).
    segments: (u64, u64),
}

/// The shard of a connection: its 4-tuple, either direction, hashed.
pub fn shard_of(seg: &TcpSegment, count: u32) -> u32 {
    let bits = |a: IpAddr| match a {
        IpAddr::V4(v4) => u128::from(u32::from(v4)),
        IpAddr::V6(v6) => u128::from(v6),
    };
    let (a, b) = ((bits(seg.src), seg.src_port), (bits(seg.dst), seg.dst_port));
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    let mut h = FxHasher::default();
    h.write_u128(lo.0);
    h.write_u16(lo.1);
    h.write_u128(hi.0);
    h.write_u16(hi.1);
    // The high bits mix best.
    ((h.finish() >> 32) % u64::from(count.max(1))) as u32
}

impl ShardFilter {
    pub fn new(index: u32, count: u32) -> Self {
        ShardFilter { index, count: count.max(1), delivered: 0, opens: Vec::new(), clock: ClockTicks::default(), segments: (0, 0) }
    }

    /// Whether this shard analyses `seg` (at analysis time `t_ns`); counts it either way.
    #[inline]
    pub fn take(&mut self, seg: &TcpSegment, t_ns: i64) -> bool {
        self.delivered += 1;
        self.clock.add(t_ns);
        self.segments.0 += 1;
        self.segments.1 += u64::from(seg.payload_len == 0);
        shard_of(seg, self.count) == self.index
    }

    /// After the analyzer took the segment: `connections` it now tracks.
    #[inline]
    pub fn opened(&mut self, connections: usize) {
        while self.opens.len() < connections {
            self.opens.push(self.delivered - 1);
        }
    }

    /// What `plan` needs of this shard, from its finished `analysis`.
    pub fn facts(&self, analysis: Option<&Analysis>, session_blockers: &[&'static str]) -> Facts {
        let mut blockers: Vec<String> = session_blockers.iter().map(|s| s.to_string()).collect();
        let mut pair_rtt: Vec<(String, String, Option<f64>)> = Vec::new();
        let mut resolution_ns = None;
        let mut connections = 0;
        if let Some(a) = analysis {
            connections = a.connections.len();
            resolution_ns = a.capture.timestamp_resolution_ns;
            blockers.extend(a.warnings.iter().map(|w| format!("warning {}", w.kind)));
            if a.capture.duplicate_frames > a.capture.repeated_frames || a.capture.wifi_retries > 0 {
                blockers.push("copies of frames".into());
            }
            if !a.mptcp.is_empty() || a.connections.iter().any(|c| c.mptcp.is_some()) {
                blockers.push("MPTCP".into());
            }
            if a.linked_text {
                blockers.push("a diagnosis naming other connections".into());
            }
            if a.connections.iter().any(|c| c.clock_tick_ms.is_some()) {
                blockers.push("a connection's own clock".into());
            }
            let mut pairs: std::collections::HashMap<(&str, &str), Option<f64>, crate::fxhash::FxBuild> = Default::default();
            for c in &a.connections {
                let (x, y) = (host(&c.endpoints[0]), host(&c.endpoints[1]));
                let e = pairs.entry(if x <= y { (x, y) } else { (y, x) }).or_insert(None);
                if let Some(r) = c.path_rtt_ms {
                    *e = Some(e.map_or(r, |v: f64| v.min(r)));
                }
            }
            pair_rtt = pairs.into_iter().map(|((x, y), r)| (x.to_string(), y.to_string(), r)).collect();
            pair_rtt.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        }
        Facts {
            opens: self.opens.clone(),
            connections,
            resolution_ns,
            clock_ns: self.clock.resolution_ns(),
            segments: self.segments.0,
            empty_segments: self.segments.1,
            blockers,
            pair_rtt,
        }
    }
}

/// The host of "ip:port" or "[ip6]:port" (as `set_base_rtts` keys host pairs).
fn host(e: &str) -> &str {
    crate::analysis::track::connections::split_endpoint(e).0
}

/// One shard's account (`ShardFilter::facts`), as JSON between threads.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Facts {
    pub opens: Vec<u64>,
    pub connections: usize,
    /// The clock tick the shard's analysis used, and the one over every segment.
    pub resolution_ns: Option<i64>,
    pub clock_ns: Option<i64>,
    pub segments: u64,
    pub empty_segments: u64,
    /// Why this shard's part cannot be merged exactly (empty: it can).
    pub blockers: Vec<String>,
    /// Each host pair's least path RTT among the shard's connections (ms).
    pub pair_rtt: Vec<(String, String, Option<f64>)>,
}

/// How the shards' reports make the one-session report (`plan`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Plan {
    /// For each connection id of the one-session report, in order: (shard, the
    /// connection's index in that shard).
    pub order: Vec<(u32, u32)>,
    /// The shard whose header is the merged one (`merged_header`): the first with a
    /// connection (a shard without one has no clock tick of its analysis).
    pub header: u32,
}

/// The merge of `shards` (in shard order), or why the shards cannot be merged exactly
/// (then analyse in one session).
pub fn plan(shards: &[Facts], options: &crate::analysis::AnalysisOptions) -> Result<Plan, String> {
    if let Some(b) = shards.iter().flat_map(|f| &f.blockers).next() {
        return Err(b.clone());
    }
    let total: usize = shards.iter().map(|f| f.connections).sum();
    if shards.iter().any(|f| f.opens.len() != f.connections) {
        return Err("a connection opened out of step".into());
    }
    if total >= options.max_connections {
        return Err("the connection limit".into());
    }
    let Some(first) = shards.first() else { return Ok(Plan { order: Vec::new(), header: 0 }) };
    if first.segments >= options.max_stored_packets {
        return Err("the stored-packet limit".into());
    }
    // One session's analysis counts the same segments as each shard's filter did (no
    // copies, no checksum verdicts: blockers above).
    if shards.iter().any(|f| f.connections > 0 && f.resolution_ns != first.clock_ns) {
        return Err("the capture clock's tick differs by shard".into());
    }
    if first.empty_segments == 0 && first.segments > 0 {
        return Err("a capture without segments lacking payload".into());
    }
    let mut best: std::collections::HashMap<(&str, &str), Option<f64>> = Default::default();
    for f in shards {
        for (x, y, r) in &f.pair_rtt {
            let e = best.entry((x, y)).or_insert(*r);
            *e = match (*e, *r) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
    }
    if shards.iter().flat_map(|f| &f.pair_rtt).any(|(x, y, r)| best.get(&(x.as_str(), y.as_str())) != Some(r)) {
        return Err("a host pair's base RTT differs by shard".into());
    }
    // Interleave by the segment that opened each connection: one session numbers them so.
    let mut next = vec![0usize; shards.len()];
    let mut order = Vec::with_capacity(total);
    for _ in 0..total {
        let s = (0..shards.len()).filter(|&s| next[s] < shards[s].opens.len()).min_by_key(|&s| shards[s].opens[next[s]]).expect("a connection left");
        order.push((s as u32, next[s] as u32));
        next[s] += 1;
    }
    let header = shards.iter().position(|f| f.connections > 0).unwrap_or(0) as u32;
    Ok(Plan { order, header })
}

/// The header of the merged report: the `plan`'s header shard's (`Report::header_json`,
/// whose last field is the connection count), counting all `connections`.
pub fn merged_header(header: &str, connections: usize) -> String {
    match header.rfind(",\"connectionCount\":") {
        Some(at) => format!("{},\"connectionCount\":{connections}}}", &header[..at]),
        None => header.to_string(),
    }
}

/// Each shard's connections' ids in the merged report, from `plan`'s order.
pub fn ids_by_shard(order: &[(u32, u32)], shards: usize) -> Vec<Vec<u32>> {
    let mut ids = vec![Vec::new(); shards];
    for (id, &(s, _)) in order.iter().enumerate() {
        ids[s as usize].push(id as u32);
    }
    ids
}
