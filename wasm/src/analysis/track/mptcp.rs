//! Multipath TCP (RFC 8684; v0 RFC 6824): subflows grouped into MPTCP connections, the
//! data-level bytes their DSS mappings carried, what was sent on more than one subflow,
//! and the subflows that failed to join. Each subflow stays an ordinary connection with
//! its own TCP analysis; this module only adds the level above it.
//!
//! Grouping (RFC 8684 §3.1–3.2): the initial subflow's MP_CAPABLE exchange carries both
//! ends' 64-bit keys; a key's token is the most significant 32 bits of its SHA-256 hash
//! (SHA-1 in v0), and its initial data sequence number (IDSN) the least significant 64
//! bits. A later subflow's MP_JOIN SYN names the connection it joins by the receiver's
//! token. Wireshark groups the same way (`mptcp.stream`, packet-mptcp.c).
//!
//! Data level (§3.3): a DSS mapping says that `len` bytes of data sequence space from
//! `dsn` ride on the subflow from relative subflow sequence number `ssn`. Each payload
//! byte a subflow carries is mapped through the mappings it announced (an option may
//! cover many later segments: Linux repeats it on every segment of a TSO burst, other
//! stacks send it once), and the data-level ranges each subflow carried are kept. Their
//! union is the data the application wrote (as far as the capture saw it); bytes in the
//! ranges of several subflows were sent redundantly (a redundant scheduler, or a
//! reinjection after a subflow stalled, §3.3.6). A subflow's own retransmissions are
//! its TCP analysis' and are not counted again here.
//!
//! Memory: one small record per subflow, and the data-level ranges, merged as they
//! grow contiguously; at most `MAX_RANGES` separate ranges per capture (then the
//! numbers say "at least", `MptcpDirection::ranges_capped`). For the data-level rate
//! over time (`data_arrivals`, view series `mptcpData`) each mapped piece is also kept
//! with its time, merged while contiguous at the same instant (a TSO burst); at most
//! `MAX_ARRIVALS` per capture (then the series ends early: `arrivals_capped`).

use crate::decode::mptcp::{Join, Mptcp};
use crate::decode::tcp_flags::{ACK, RST, SYN};
use crate::decode::TcpSegment;
use crate::fxhash::FxBuild;
use std::collections::HashMap;

mod connection;
mod data_level;
mod in_words;
pub use connection::{MptcpConnection, MptcpDirection, SubflowStatus, SubflowSummary};
pub use data_level::DataArrivals;
pub use in_words::reset_reason;
use connection::connection;
use data_level::{add_range, data_arrivals, map_payload};

/// Separate data-level ranges kept per capture (24 bytes each: 6 MiB).
pub const MAX_RANGES: usize = 1 << 18;
/// Timed data-level pieces kept per capture (24 bytes each: 12 MiB while the capture
/// is read; 16 bytes per piece that brought new data once analysed).
pub const MAX_ARRIVALS: usize = 1 << 19;
/// Mappings a subflow direction remembers to map later segments (and
/// retransmissions) through: a TSO burst is one mapping, so a few suffice.
const RECENT_MAPPINGS: usize = 8;

/// The token and IDSN of a key (RFC 8684 §3.1 v1: SHA-256; RFC 6824 §3.1 v0: SHA-1):
/// (most significant 32 bits, least significant 64 bits) of the hash of the key in
/// network byte order.
pub fn token_and_idsn(key: u64, version: u8) -> (u32, u64) {
    use sha1::Digest;
    let digest: Vec<u8> = if version == 0 { sha1::Sha1::digest(key.to_be_bytes()).to_vec() } else { sha2::Sha256::digest(key.to_be_bytes()).to_vec() };
    let n = digest.len();
    let token = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
    let mut low = [0u8; 8];
    low.copy_from_slice(&digest[n - 8..]);
    (token, u64::from_be_bytes(low))
}

/// The 64-bit number whose low 32 bits are `low` nearest to `reference` (a 4-octet
/// DSN or data ACK is the low half of the 64-bit one, RFC 8684 §3.3).
fn extend32(low: u32, reference: u64) -> u64 {
    let candidate = (reference & !0xffff_ffff) | u64::from(low);
    let delta = candidate.wrapping_sub(reference) as i64;
    if delta > i64::from(i32::MAX) {
        candidate.wrapping_sub(1 << 32)
    } else if delta < i64::from(i32::MIN) {
        candidate.wrapping_add(1 << 32)
    } else {
        candidate
    }
}

/// Data-level state of one direction of one subflow.
#[derive(Default, Debug)]
struct SubflowDir {
    /// This direction's ISN (from its SYN), or its first sequence number − 1.
    isn: Option<u32>,
    recent: Vec<Mapping>,
    /// Ranges [start, end) of data sequence space carried, in this subflow's own
    /// 64-bit space for 4-octet DSNs (`local32`), merged while contiguous.
    ranges: Vec<(u64, u64)>,
    /// 4-octet DSNs: extended against the previous one, starting from the first as is;
    /// `finish` moves them to the connection's space once its IDSN is known.
    local32: Option<u64>,
    /// Highest data ACK sent in this direction (8-octet), or the last 4-octet one.
    data_ack: Option<(u64, bool)>,
    data_fin: bool,
    /// The DATA_FIN's own data sequence number (the last of its mapping, §3.3.3), in
    /// the same space as `ranges`.
    fin_dsn: Option<u64>,
    payload: u64,
    /// (ns since the first packet of the file, start, end) of each mapped piece, in
    /// the space of `ranges`; merged while contiguous at the same instant.
    arrivals: Vec<(i64, u64, u64)>,
}

#[derive(Clone, Copy, Debug)]
struct Mapping {
    dsn: u64,
    dsn_32: bool,
    ssn: u32,
    /// Subflow bytes covered; None: infinite (a fallback, §3.7).
    len: Option<u32>,
}

#[derive(Debug)]
struct Subflow {
    connection: u32,
    /// Direction (of the TCP connection) that sent the SYN.
    syn_dir: Option<u8>,
    capable_syn: bool,
    join_token: Option<u32>,
    address_id: u8,
    backup: bool,
    answered: Option<bool>,
    third_ack: bool,
    /// The responder sent a segment other than a reset or a SYN/ACK after the third
    /// ACK: it took the HMAC (RFC 8684 §3.2: the join completes when the third ACK is
    /// acknowledged; a re-sent SYN/ACK says the third ACK never arrived).
    confirmed: bool,
    /// The responder re-sent its SYN/ACK after the third ACK.
    synack_after_third: bool,
    /// TCP direction of the first reset before the join was confirmed.
    reset_before_join: Option<u8>,
    /// The MP_TCPRST reason of a reset (§3.6).
    reset_reason: Option<u8>,
    fallback: bool,
    dirs: [SubflowDir; 2],
    /// ADD_ADDR announcements (not echoes) and REMOVE_ADDR options this subflow carried,
    /// MP_FASTCLOSE and MP_FAIL seen on it: credited to its MPTCP connection at `finish`.
    add_addr: u32,
    remove_addr: u32,
    fast_close: bool,
    mp_fail: bool,
    /// The MPTCP connection, for initial subflows (joins are resolved by token at the end).
    group: Option<u32>,
    /// TCP direction that is the MPTCP client → server direction, once known.
    client_dir: Option<u8>,
}

#[derive(Debug, Default)]
struct Group {
    version: Option<u8>,
    /// [client, server].
    keys: [Option<u64>; 2],
    initial: u32,
}

/// Collects MPTCP facts while the analyzer runs; made at the first MPTCP option.
#[derive(Default)]
pub struct Tracker {
    /// Subflow position of each analysed connection (by connection index); u32::MAX: none.
    subflow_of: Vec<u32>,
    subflows: Vec<Subflow>,
    groups: Vec<Group>,
    ranges: usize,
    ranges_capped: bool,
    arrivals: usize,
    arrivals_capped: bool,
}

impl Tracker {
    /// One segment of connection `index` sent in its direction `d`, `t_ns` after the
    /// first packet of the file.
    pub fn push(&mut self, index: u32, d: u8, seg: &TcpSegment, t_ns: i64) {
        let i = index as usize;
        let known = self.subflow_of.get(i).copied().filter(|&s| s != u32::MAX);
        let pos = match (known, seg.mptcp.as_deref()) {
            (Some(s), _) => s as usize,
            (None, Some(_)) => {
                if self.subflow_of.len() <= i {
                    self.subflow_of.resize(i + 1, u32::MAX);
                }
                self.subflow_of[i] = self.subflows.len() as u32;
                self.subflows.push(Subflow {
                    connection: index,
                    syn_dir: None,
                    capable_syn: false,
                    join_token: None,
                    address_id: 0,
                    backup: false,
                    answered: None,
                    third_ack: false,
                    confirmed: false,
                    synack_after_third: false,
                    reset_before_join: None,
                    reset_reason: None,
                    fallback: false,
                    dirs: Default::default(),
                    add_addr: 0,
                    remove_addr: 0,
                    fast_close: false,
                    mp_fail: false,
                    group: None,
                    client_dir: None,
                });
                self.subflows.len() - 1
            }
            (None, None) => return,
        };
        let (syn, ack, rst) = (seg.flags & SYN != 0, seg.flags & ACK != 0, seg.flags & RST != 0);
        let sf = &mut self.subflows[pos];
        let dir = &mut sf.dirs[d as usize];
        if syn {
            dir.isn = Some(seg.seq);
        } else if dir.isn.is_none() && seg.payload_len > 0 {
            dir.isn = Some(seg.seq.wrapping_sub(1));
        }
        let m = seg.mptcp.as_deref();
        if rst {
            // A reset before the join was confirmed refused it; one after ends a
            // working subflow.
            if !sf.confirmed {
                sf.reset_before_join.get_or_insert(d);
            }
            sf.reset_reason = sf.reset_reason.or(m.and_then(|m| m.tcprst));
        } else if sf.third_ack && sf.syn_dir == Some(d ^ 1) {
            if syn {
                sf.synack_after_third = true;
            } else {
                sf.confirmed = true;
            }
        }
        if syn && !ack {
            sf.syn_dir = Some(d);
            if let Some(m) = m {
                sf.capable_syn |= m.capable.is_some();
                if let Some(Join::Syn { token, address_id, backup, .. }) = m.join {
                    sf.join_token = Some(token);
                    sf.address_id = address_id;
                    sf.backup = backup;
                }
            }
        } else if syn && ack && sf.syn_dir == Some(d ^ 1) {
            // The answer must carry what the SYN offered (RFC 8684 §3.1, §3.2).
            let agreed = m.is_some_and(|m| if sf.join_token.is_some() { matches!(m.join, Some(Join::SynAck { .. })) } else { m.capable.is_some() });
            sf.answered = Some(agreed);
        } else if sf.syn_dir == Some(d) && m.is_some_and(|m| matches!(m.join, Some(Join::Ack)) || m.capable.is_some_and(|c| c.receiver_key.is_some())) {
            sf.third_ack = true;
        }
        if let Some(m) = m {
            self.on_options(pos, d, m);
        }
        let sf = &mut self.subflows[pos];
        if seg.payload_len > 0 {
            let dir = &mut sf.dirs[d as usize];
            dir.payload += u64::from(seg.payload_len);
            let isn = dir.isn.unwrap_or(seg.seq.wrapping_sub(1));
            let start = seg.seq.wrapping_sub(isn);
            let pieces = map_payload(&dir.recent, start, seg.payload_len);
            for (a, b) in pieces.into_iter().flatten() {
                add_range(&mut dir.ranges, a, b, &mut self.ranges, &mut self.ranges_capped);
                match dir.arrivals.last_mut() {
                    Some(last) if last.0 == t_ns && last.2 == a => last.2 = b,
                    _ if self.arrivals >= MAX_ARRIVALS => self.arrivals_capped = true,
                    _ => {
                        self.arrivals += 1;
                        dir.arrivals.push((t_ns, a, b));
                    }
                }
            }
        }
    }

    fn on_options(&mut self, pos: usize, d: u8, m: &Mptcp) {
        let sf = &mut self.subflows[pos];
        if let Some(c) = m.capable {
            // The MP_CAPABLE sender of two keys is the client (the third ACK, §3.1);
            // otherwise the SYN's sender is.
            let client_dir = if c.receiver_key.is_some() { d } else { sf.syn_dir.unwrap_or(d) };
            sf.client_dir.get_or_insert(client_dir);
            let client = sf.client_dir.unwrap_or(client_dir);
            let g = match sf.group {
                Some(g) => g as usize,
                None => {
                    self.groups.push(Group { initial: pos as u32, ..Group::default() });
                    sf.group = Some(self.groups.len() as u32 - 1);
                    self.groups.len() - 1
                }
            };
            let group = &mut self.groups[g];
            // The SYN/ACK's version is the one agreed (§3.1: the lower of the two).
            if group.version.is_none() || d != client {
                group.version = Some(c.version);
            }
            let me = usize::from(d != client);
            if let Some(k) = c.sender_key {
                group.keys[me].get_or_insert(k);
            }
            if let Some(k) = c.receiver_key {
                group.keys[1 - me].get_or_insert(k);
            }
            // v1 MP_CAPABLE on the first data (RFC 8684 §3.1) is itself a mapping: data
            // sequence IDSN + 1 (the sender's key is in the option), relative subflow
            // sequence 1, the Data-Level Length. v0 (RFC 6824) has no such form.
            if let (1, Some(len), Some(key)) = (c.version, c.data_len, c.sender_key) {
                let dsn = token_and_idsn(key, 1).1.wrapping_add(1);
                let dir = &mut sf.dirs[d as usize];
                // Later 4-octet DSNs extend from here, so they land in the same space.
                dir.local32.get_or_insert(dsn);
                if dir.recent.len() == RECENT_MAPPINGS {
                    dir.recent.remove(0);
                }
                dir.recent.push(Mapping { dsn, dsn_32: false, ssn: 1, len: (len > 0).then_some(u32::from(len)) });
            }
        }
        if let Some(dss) = m.dss {
            let dir = &mut sf.dirs[d as usize];
            if let Some(map) = dss.mapping {
                if map.len == 0 {
                    sf.fallback = true;
                }
                let len = (map.len > 0).then(|| u32::from(map.len) - u32::from(dss.data_fin));
                // A DATA_FIN alone is mapped at subflow sequence 0 (§3.3.3): no bytes.
                if map.ssn != 0 {
                    let dsn = if map.dsn_64 {
                        map.dsn
                    } else {
                        let v = dir.local32.map_or(u64::from(map.dsn as u32), |r| extend32(map.dsn as u32, r));
                        dir.local32 = Some(v);
                        v
                    };
                    if dir.recent.len() == RECENT_MAPPINGS {
                        dir.recent.remove(0);
                    }
                    dir.recent.push(Mapping { dsn, dsn_32: !map.dsn_64, ssn: map.ssn, len });
                }
                if dss.data_fin && map.len > 0 {
                    let dsn = if map.dsn_64 { map.dsn } else { dir.local32.map_or(u64::from(map.dsn as u32), |r| extend32(map.dsn as u32, r)) };
                    dir.fin_dsn = Some(dsn.wrapping_add(u64::from(map.len) - 1));
                }
            }
            dir.data_fin |= dss.data_fin;
            if let Some((ack, ack64)) = dss.data_ack {
                dir.data_ack = match dir.data_ack {
                    Some((old, true)) if ack64 && old >= ack => Some((old, true)),
                    _ => Some((ack, ack64)),
                };
            }
        }
        if m.fail.is_some() {
            sf.fallback = true;
        }
        // Counted per subflow: a joined subflow's group is known only at `finish`
        // (resolved by token), and these options travel on any subflow (§3.4–3.7).
        sf.add_addr += u32::from(m.add_addr.is_some_and(|a| !a.echo));
        sf.remove_addr += u32::from(m.remove_addr > 0);
        sf.fast_close |= m.fastclose.is_some();
        sf.mp_fail |= m.fail.is_some();
        if let Some(p) = m.prio {
            sf.backup = p;
        }
    }

    /// The MPTCP connections, and for each analysed connection its MPTCP connection's
    /// id (`connection.mptcp`). `payload` gives a connection's two directions' payload
    /// bytes and `span` its (start, end) in seconds (summary.rs).
    pub fn finish(self, payload: &dyn Fn(u32) -> [u64; 2], span: &dyn Fn(u32) -> (f64, f64), names: &dyn Fn(u32) -> [String; 2]) -> (Vec<MptcpConnection>, Vec<(u32, u32)>) {
        let Tracker { subflows, groups, ranges_capped, arrivals_capped, .. } = self;
        // Tokens of every key, to resolve the joins.
        let mut by_token: HashMap<u32, usize, FxBuild> = HashMap::default();
        let mut idsns: Vec<[Option<u64>; 2]> = Vec::with_capacity(groups.len());
        let mut tokens: Vec<[Option<u32>; 2]> = Vec::with_capacity(groups.len());
        for (g, group) in groups.iter().enumerate() {
            let version = group.version.unwrap_or(1);
            let hashed = group.keys.map(|k| k.map(|k| token_and_idsn(k, version)));
            for (token, _) in hashed.iter().flatten() {
                by_token.entry(*token).or_insert(g);
            }
            idsns.push(hashed.map(|h| h.map(|(_, idsn)| idsn)));
            tokens.push(hashed.map(|h| h.map(|(t, _)| t)));
        }
        // Members of each group: (subflow position, TCP direction of the MPTCP client).
        let mut members: Vec<Vec<(usize, u8)>> = vec![Vec::new(); groups.len()];
        let mut loose: Vec<usize> = Vec::new();
        for (p, sf) in subflows.iter().enumerate() {
            if let Some(g) = sf.group {
                members[g as usize].push((p, sf.client_dir.unwrap_or(0)));
            } else if let Some(&g) = sf.join_token.and_then(|t| by_token.get(&t)) {
                // The join SYN names the receiver's token: sent to the server, it comes
                // from the client side.
                let to_server = tokens[g][1] == sf.join_token;
                let syn_dir = sf.syn_dir.unwrap_or(0);
                members[g].push((p, if to_server { syn_dir } else { syn_dir ^ 1 }));
            } else {
                loose.push(p);
            }
        }
        let mut out = Vec::new();
        let mut of_connection = Vec::new();
        for (g, group) in groups.iter().enumerate() {
            let keys = group.keys;
            out.push(connection(out.len() as u32, Some(group), &members[g], &subflows, idsns[g], keys, tokens[g], ranges_capped, payload, span, names));
            out.last_mut().unwrap().arrivals = [0, 1].map(|md| data_arrivals(&subflows, &members[g], md, idsns[g][md], arrivals_capped));
        }
        // A subflow with MPTCP options that no opening in the capture explains (a join
        // whose connection began before the capture, or data mid-way): its own entry,
        // as Wireshark gives it its own `mptcp.stream`.
        for p in loose {
            let client = subflows[p].syn_dir.unwrap_or(0);
            out.push(connection(out.len() as u32, None, &[(p, client)], &subflows, [None; 2], [None; 2], [None; 2], ranges_capped, payload, span, names));
            out.last_mut().unwrap().arrivals = [0, 1].map(|md| data_arrivals(&subflows, &[(p, client)], md, None, arrivals_capped));
        }
        for c in &out {
            for s in &c.subflows {
                of_connection.push((s.connection, c.id));
            }
        }
        (out, of_connection)
    }
}

#[cfg(test)]
#[path = "mptcp_tests.rs"]
mod tests;
