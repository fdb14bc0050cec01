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

use crate::analysis::format::{format_bytes, format_rate};
use crate::decode::mptcp::{Join, Mptcp};
use crate::decode::tcp_flags::{ACK, RST, SYN};
use crate::decode::TcpSegment;
use crate::fxhash::FxBuild;
use serde::Serialize;
use std::collections::HashMap;

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

/// How a subflow took part (docs/ANALYSIS.md `mptcp[].subflows[].status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum SubflowStatus {
    /// The first subflow, opened with MP_CAPABLE, both ends agreeing.
    Initial,
    /// Joined with MP_JOIN: SYN, SYN/ACK, the initiator's third ACK, and the
    /// responder's next segment (not a reset) that acknowledged it (RFC 8684 §3.2).
    Joined,
    /// The capture holds the subflow's data but not its opening (started mid-way).
    Unknown,
    /// An MP_JOIN SYN that got no answer in the capture.
    JoinUnanswered,
    /// An MP_JOIN answered by a SYN/ACK without MP_JOIN (which the initiator must
    /// reset, RFC 8684 §3.2), or reset by the responder (the end that got the MP_JOIN
    /// SYN) before it acknowledged the third ACK (Linux refuses a join beyond its
    /// subflow limit so, MP_TCPRST reason 3).
    JoinRefused,
    /// MP_JOIN SYN and SYN/ACK, but the third ACK, or the responder's acknowledgment
    /// of it, is not in the capture; also when the responder re-sent its SYN/ACK after
    /// the third ACK (it never got it) and a reset came later.
    JoinIncomplete,
    /// The initiator reset the subflow before the join completed: it gave up (an
    /// unanswered or unacknowledged handshake), nothing the responder refused.
    JoinAbandoned,
    /// Fell back to plain TCP (§3.7): an MP_CAPABLE SYN answered without it, an
    /// infinite mapping, or MP_FAIL.
    Fallback,
}

impl SubflowStatus {
    fn failed_join(self) -> bool {
        matches!(self, SubflowStatus::JoinUnanswered | SubflowStatus::JoinRefused | SubflowStatus::JoinIncomplete | SubflowStatus::JoinAbandoned)
    }
}

/// One subflow of an MPTCP connection (report `mptcp[].subflows[]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SubflowSummary {
    /// `connection.id` of the subflow: its own TCP analysis.
    pub connection: u32,
    pub status: SubflowStatus,
    /// The MP_JOIN's address id (0 for the initial subflow).
    pub address_id: u8,
    /// Joined as a backup path (MP_JOIN flag B, or MP_PRIO).
    pub backup: bool,
    /// The MP_TCPRST reason code of the reset that ended or refused it (RFC 8684 §3.6).
    pub reset_reason: Option<u8>,
    /// Data-level bytes this subflow carried, per MPTCP direction [client → server,
    /// server → client] (each byte once however often the subflow resent it).
    pub data_bytes: [u64; 2],
}

/// One direction of an MPTCP connection at the data level.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MptcpDirection {
    pub from: String,
    pub to: String,
    /// Distinct data-level bytes the subflows carried: the data the application wrote,
    /// as far as the capture saw it.
    pub data_bytes: u64,
    /// Payload bytes of this direction on all subflows together, retransmissions
    /// included (the sum of the subflows' `direction.payloadBytes`).
    pub payload_bytes: u64,
    /// Data-level bytes sent on more than one subflow, counted once per extra subflow:
    /// Σ over subflows of their `dataBytes` − `dataBytes`.
    pub redundant_bytes: u64,
    /// `sentOnSubflows[k-1]`: data-level bytes sent on exactly k subflows.
    pub sent_on_subflows: Vec<u64>,
    /// `dataBytes` × 8 over the MPTCP connection's duration, bit/s.
    pub data_mean_bps: f64,
    /// Data-level bytes the peer's DATA_ACK covered, from the first byte (IDSN + 1); null
    /// when the key, and so the IDSN, is not in the capture.
    pub data_acked: Option<u64>,
    /// A DATA_FIN was sent: the application closed this direction.
    pub data_fin: bool,
    /// The range store hit `MAX_RANGES`: the byte counts are lower bounds.
    pub ranges_capped: bool,
}

/// An MPTCP connection (report `mptcp[]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MptcpConnection {
    /// Position in the report's `mptcp` list; each subflow's `connection.mptcp`.
    pub id: u32,
    /// MPTCP version of the MP_CAPABLE exchange (0: RFC 6824, 1: RFC 8684); null when
    /// the initial subflow's opening is not in the capture.
    pub version: Option<u8>,
    /// [client's, server's] key as 16 hex digits (64-bit numbers do not fit a JSON
    /// number exactly); null where not seen.
    pub keys: [Option<String>; 2],
    /// [client's, server's] token, 8 hex digits (Wireshark's `mptcp.token`).
    pub tokens: [Option<String>; 2],
    pub subflows: Vec<SubflowSummary>,
    pub start: f64,
    pub end: f64,
    /// [client → server, server → client].
    pub directions: [MptcpDirection; 2],
    /// The direction with more data-level bytes.
    pub data_direction: u8,
    /// ADD_ADDR announcements (echoes not counted) and REMOVE_ADDR options seen.
    pub add_addr: u32,
    pub remove_addr: u32,
    /// An MP_FASTCLOSE closed the connection at once (§3.5).
    pub fast_close: bool,
    /// An MP_FAIL was sent: a checksum failed and a subflow fell back or was reset (§3.7).
    pub mp_fail: bool,
    /// What the grouping found, in sentences.
    pub text: String,
    /// Per MPTCP direction, when the data first appeared on any subflow (`data_arrivals`):
    /// the view series `mptcpData`. Not in the report.
    #[serde(skip)]
    #[cfg_attr(test, ts(skip))]
    pub arrivals: [DataArrivals; 2],
}

/// New data-level bytes over time: at `t[i]` (s since the first packet of the file),
/// `bytes[i]` bytes of data sequence space no subflow had carried before (docs/ANALYSIS.md
/// "MPTCP connection-level rate"). Sorted by time; Σ bytes = `dataBytes` unless capped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DataArrivals {
    pub t: Vec<f64>,
    pub bytes: Vec<u64>,
    /// `MAX_ARRIVALS` was reached: data after that point is missing.
    pub capped: bool,
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

/// Data-level ranges [start, end) of the payload at relative subflow sequence `start`,
/// `len` bytes long, through the most recent mapping that covers each part.
fn map_payload(recent: &[Mapping], start: u32, len: u32) -> [Option<(u64, u64)>; 2] {
    let mut out = [None, None];
    let mut n = 0;
    let end = u64::from(start) + u64::from(len);
    for m in recent.iter().rev() {
        let m_end = m.len.map_or(u64::MAX, |l| u64::from(m.ssn) + u64::from(l));
        let (a, b) = (u64::from(start).max(u64::from(m.ssn)), end.min(m_end));
        if a < b && n < out.len() {
            let offset = a - u64::from(m.ssn);
            out[n] = Some((m.dsn.wrapping_add(offset), m.dsn.wrapping_add(offset + (b - a))));
            n += 1;
            if a == u64::from(start) && b == end {
                break;
            }
        }
    }
    out
}

/// Add [a, b) to a subflow's ranges, merged with the last one when they touch.
fn add_range(ranges: &mut Vec<(u64, u64)>, a: u64, b: u64, total: &mut usize, capped: &mut bool) {
    if let Some(last) = ranges.last_mut() {
        if a <= last.1 && b >= last.0 {
            last.0 = last.0.min(a);
            last.1 = last.1.max(b);
            return;
        }
    }
    if *total >= MAX_RANGES {
        *capped = true;
        return;
    }
    *total += 1;
    ranges.push((a, b));
}

/// Bytes covered by exactly k of the subflows' range lists, k = 1.. (index k − 1).
fn coverage(lists: &[Vec<(u64, u64)>]) -> Vec<u64> {
    let mut events: Vec<(u64, i32, usize)> = Vec::new();
    for (s, list) in lists.iter().enumerate() {
        for &(a, b) in list {
            events.push((a, 1, s));
            events.push((b, -1, s));
        }
    }
    events.sort_unstable_by_key(|&(x, delta, _)| (x, delta));
    let mut per = vec![0i32; lists.len()];
    let mut on = 0usize;
    let mut out = vec![0u64; lists.len()];
    let mut at = 0u64;
    for (x, delta, s) in events {
        if on > 0 {
            out[on - 1] += x - at;
        }
        at = x;
        let before = per[s] > 0;
        per[s] += delta;
        match (before, per[s] > 0) {
            (false, true) => on += 1,
            (true, false) => on -= 1,
            _ => {}
        }
    }
    while out.len() > 1 && out.last() == Some(&0) {
        out.pop();
    }
    out
}

/// The MPTCP connection-level rate's events (docs/ANALYSIS.md "MPTCP connection-level
/// rate", view series `mptcpData`): every mapped piece of MPTCP direction `md` on any
/// subflow, in time order, counts only the data sequence bytes no piece before it
/// covered. A subflow's own retransmission and a redundant copy on another subflow
/// map to data already counted and add nothing (RFC 8684 §3.3.1: a DSN names one byte
/// of the connection's stream, whatever subflow carries it); so the bytes add up to
/// `directions[md].dataBytes`, the union of the ranges.
fn data_arrivals(subflows: &[Subflow], members: &[(usize, u8)], md: usize, idsn: Option<u64>, capped: bool) -> DataArrivals {
    let mut pieces: Vec<(i64, u64, u64)> = Vec::new();
    for &(p, client_dir) in members {
        for (tcp_d, dir) in subflows[p].dirs.iter().enumerate() {
            if usize::from(tcp_d as u8 != client_dir) == md {
                let shift = shift_of(dir, idsn);
                pieces.extend(dir.arrivals.iter().map(|&(t, a, b)| (t, a.wrapping_add(shift), b.wrapping_add(shift))));
            }
        }
    }
    // Stable: pieces of one instant keep their subflow order.
    pieces.sort_by_key(|p| p.0);
    // Data covered so far: start → end, disjoint, merged when they touch.
    let mut covered: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    let mut out = DataArrivals { capped, ..Default::default() };
    for (t, a, b) in pieces {
        if b <= a {
            continue;
        }
        let (mut lo, mut hi, mut new) = (a, b, b - a);
        // Every covered range that overlaps or touches [a, b): take out the overlap, merge.
        let first = covered.range(..=a).next_back().map(|(&s, _)| s).unwrap_or(a);
        let touching: Vec<(u64, u64)> = covered.range(first..=b).map(|(&s, &e)| (s, e)).filter(|&(s, e)| e >= a && s <= b).collect();
        for (s, e) in touching {
            new -= e.min(b).saturating_sub(s.max(a));
            lo = lo.min(s);
            hi = hi.max(e);
            covered.remove(&s);
        }
        covered.insert(lo, hi);
        if new > 0 {
            let secs = t as f64 / 1e9;
            if out.t.last() == Some(&secs) {
                *out.bytes.last_mut().unwrap() += new;
            } else {
                out.t.push(secs);
                out.bytes.push(new);
            }
        }
    }
    out.t.shrink_to_fit();
    out.bytes.shrink_to_fit();
    out
}

/// 4-octet DSNs were kept in the subflow's own space: the shift to the connection's
/// (nearest its IDSN) once that is known; 0 for 8-octet ones.
fn shift_of(dir: &SubflowDir, idsn: Option<u64>) -> u64 {
    match (dir.recent.first().map(|m| m.dsn_32), dir.ranges.first().map(|r| r.0).or(dir.fin_dsn), idsn) {
        (Some(true), Some(a), Some(base)) => extend32(a as u32, base).wrapping_sub(a),
        _ => 0,
    }
}

/// The DATA_FIN's data sequence number in MPTCP direction `md`, if one was sent.
fn fin_at(subflows: &[Subflow], members: &[(usize, u8)], md: usize, idsn: Option<u64>) -> Option<u64> {
    members
        .iter()
        .flat_map(|&(p, client_dir)| subflows[p].dirs.iter().enumerate().filter(move |(tcp_d, _)| usize::from(*tcp_d as u8 != client_dir) == md))
        .filter_map(|(_, dir)| dir.fin_dsn.map(|f| f.wrapping_add(shift_of(dir, idsn))))
        .max()
}

#[allow(clippy::too_many_arguments)]
fn connection(
    id: u32,
    group: Option<&Group>,
    members: &[(usize, u8)],
    subflows: &[Subflow],
    idsn: [Option<u64>; 2],
    keys: [Option<u64>; 2],
    tokens: [Option<u32>; 2],
    ranges_capped: bool,
    payload: &dyn Fn(u32) -> [u64; 2],
    span: &dyn Fn(u32) -> (f64, f64),
    names: &dyn Fn(u32) -> [String; 2],
) -> MptcpConnection {
    let (mut start, mut end) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut subs = Vec::with_capacity(members.len());
    // Per MPTCP direction, each subflow's ranges in the connection's data space.
    let mut lists: [Vec<Vec<(u64, u64)>>; 2] = [Vec::new(), Vec::new()];
    let mut payload_bytes = [0u64; 2];
    let mut data_fin = [false; 2];
    let mut data_ack: [Option<u64>; 2] = [None; 2];

    for &(p, client_dir) in members {
        let sf = &subflows[p];
        let (s, e) = span(sf.connection);
        start = start.min(s);
        end = end.max(e);
        let tcp_payload = payload(sf.connection);
        let mut data_bytes = [0u64; 2];
        for (tcp_d, dir) in sf.dirs.iter().enumerate() {
            let md = usize::from(tcp_d as u8 != client_dir);
            payload_bytes[md] += tcp_payload[tcp_d];
            data_fin[md] |= dir.data_fin;
            let shift = shift_of(dir, idsn[md]);
            let ranges: Vec<(u64, u64)> = dir.ranges.iter().map(|&(a, b)| (a.wrapping_add(shift), b.wrapping_add(shift))).collect();
            data_bytes[md] = coverage(std::slice::from_ref(&ranges)).first().copied().unwrap_or(0);
            lists[md].push(ranges);
            // A data ACK sent in direction md acknowledges the other direction's data.
            if let (Some((ack, ack64)), Some(base)) = (dir.data_ack, idsn[1 - md]) {
                let ack = if ack64 { ack } else { extend32(ack as u32, base) };
                // The DATA_FIN's own sequence number is not data (§3.3.3).
                let past_fin = fin_at(subflows, members, 1 - md, idsn[1 - md]).is_some_and(|f| ack > f);
                let acked = ack.wrapping_sub(base.wrapping_add(1)).wrapping_sub(u64::from(past_fin));
                if acked < 1 << 62 {
                    data_ack[1 - md] = Some(data_ack[1 - md].map_or(acked, |a: u64| a.max(acked)));
                }
            }
        }
        let status = status(sf, group.is_some_and(|g| g.initial as usize == p));
        subs.push(SubflowSummary { connection: sf.connection, status, address_id: sf.address_id, backup: sf.backup, reset_reason: sf.reset_reason, data_bytes });
    }
    if !start.is_finite() {
        (start, end) = (0.0, 0.0);
    }
    let duration = end - start;
    let first = members.first().map(|&(p, c)| (subflows[p].connection, c));
    let endpoint_names = first.map(|(conn, c)| {
        let n = names(conn);
        if c == 0 {
            n
        } else {
            [n[1].clone(), n[0].clone()]
        }
    });
    let directions: [MptcpDirection; 2] = [0, 1].map(|md| {
        let cov = coverage(&lists[md]);
        let data_bytes: u64 = cov.iter().sum();
        let carried: u64 = cov.iter().enumerate().map(|(k, b)| (k as u64 + 1) * b).sum();
        let (from, to) = endpoint_names.as_ref().map_or((String::new(), String::new()), |n| (n[md].clone(), n[1 - md].clone()));
        MptcpDirection {
            from,
            to,
            data_bytes,
            payload_bytes: payload_bytes[md],
            redundant_bytes: carried - data_bytes,
            sent_on_subflows: cov,
            data_mean_bps: if duration > 0.0 { data_bytes as f64 * 8.0 / duration } else { 0.0 },
            data_acked: data_ack[md],
            data_fin: data_fin[md],
            ranges_capped,
        }
    });
    let data_direction = u8::from(directions[1].data_bytes > directions[0].data_bytes);
    let hex64 = |k: Option<u64>| k.map(|k| format!("{k:016x}"));
    let hex32 = |t: Option<u32>| t.map(|t| format!("{t:08x}"));
    let mut c = MptcpConnection {
        id,
        version: group.and_then(|g| g.version),
        keys: keys.map(hex64),
        tokens: tokens.map(hex32),
        subflows: subs,
        start,
        end,
        directions,
        data_direction,
        add_addr: members.iter().map(|&(p, _)| subflows[p].add_addr).sum(),
        remove_addr: members.iter().map(|&(p, _)| subflows[p].remove_addr).sum(),
        fast_close: members.iter().any(|&(p, _)| subflows[p].fast_close),
        mp_fail: members.iter().any(|&(p, _)| subflows[p].mp_fail),
        text: String::new(),
        arrivals: Default::default(),
    };
    // The initial subflow's MP_CAPABLE SYN answered without it (§3.1): MPTCP was
    // offered and not accepted, and nothing of the connection is multipath.
    let refused_offer = members.len() == 1 && members.iter().all(|&(p, _)| subflows[p].capable_syn && subflows[p].answered == Some(false));
    c.text = if refused_offer { offer_not_accepted_text(&c) } else { text(&c) };
    c
}

/// The text of a connection whose MP_CAPABLE SYN was answered without MP_CAPABLE: both
/// ends use plain TCP from the SYN/ACK on (RFC 8684 §3.1, §3.7), so there is no data
/// level to describe; the connection's own TCP analysis says the rest.
fn offer_not_accepted_text(c: &MptcpConnection) -> String {
    let id = c.subflows.first().map_or(0, |s| s.connection);
    let d = &c.directions[0];
    format!("Connection {id} ({} to {}) offered MPTCP (MP_CAPABLE on its SYN) and it was not accepted (the SYN/ACK carried none): plain TCP was used.", d.from, d.to)
}

fn status(sf: &Subflow, initial: bool) -> SubflowStatus {
    if sf.join_token.is_some() {
        // Who reset before completion: the initiator gave up; the responder refused,
        // unless it had re-sent its SYN/ACK after the third ACK (it never saw that ACK,
        // so its later reset refuses nothing: the handshake stayed incomplete).
        let reset_by_initiator = sf.reset_before_join.is_some() && sf.reset_before_join == sf.syn_dir;
        return match (sf.answered, sf.third_ack, sf.confirmed) {
            (Some(false), _, _) => SubflowStatus::JoinRefused,
            (_, _, false) if reset_by_initiator => SubflowStatus::JoinAbandoned,
            (Some(true), _, false) if sf.reset_before_join.is_some() && sf.synack_after_third => SubflowStatus::JoinIncomplete,
            (_, _, false) if sf.reset_before_join.is_some() => SubflowStatus::JoinRefused,
            (None, _, _) => SubflowStatus::JoinUnanswered,
            (Some(true), true, true) => SubflowStatus::Joined,
            (Some(true), _, _) => SubflowStatus::JoinIncomplete,
        };
    }
    if sf.capable_syn && sf.answered == Some(false) || sf.fallback {
        return SubflowStatus::Fallback;
    }
    if initial && (sf.capable_syn || sf.third_ack) {
        SubflowStatus::Initial
    } else {
        SubflowStatus::Unknown
    }
}

/// The reasons of RFC 8684 §3.6.
fn reset_reason(code: u8) -> &'static str {
    match code {
        0 => "unspecified",
        1 => "MPTCP-specific error",
        2 => "lack of resources",
        3 => "administratively prohibited",
        4 => "too much outstanding data",
        5 => "unacceptable performance",
        6 => "middlebox interference",
        _ => "unknown reason",
    }
}

/// "a half", "a third", "a quarter", else "1/k".
fn fraction(k: usize) -> String {
    match k {
        2 => "half".into(),
        3 => "a third".into(),
        4 => "a quarter".into(),
        k => format!("1/{k}"),
    }
}

/// The sentences of one MPTCP connection (docs/ANALYSIS.md `mptcp[].text`).
fn text(c: &MptcpConnection) -> String {
    let mut out = Vec::new();
    let d = &c.directions[c.data_direction as usize];
    let carrying: Vec<&SubflowSummary> = c.subflows.iter().filter(|s| s.data_bytes[c.data_direction as usize] > 0).collect();
    let ids: Vec<String> = c.subflows.iter().map(|s| s.connection.to_string()).collect();
    out.push(format!(
        "MPTCP connection of {} subflow{} (connection{} {}): {} of data from {} to {} at {}, on {} of them.",
        c.subflows.len(),
        if c.subflows.len() == 1 { "" } else { "s" },
        if ids.len() == 1 { "" } else { "s" },
        ids.join(", "),
        format_bytes(d.data_bytes as f64),
        d.from,
        d.to,
        format_rate(d.data_mean_bps),
        carrying.len()
    ));
    if d.redundant_bytes > 0 {
        let k = d.sent_on_subflows.len();
        let everything_k_times = d.sent_on_subflows[..k - 1].iter().all(|&b| b == 0);
        let goodput_share = if d.payload_bytes > 0 { d.data_bytes as f64 / d.payload_bytes as f64 } else { 0.0 };
        if everything_k_times {
            out.push(format!("The same {} was sent on {k} subflows: goodput is {} of what the subflows carried.", format_bytes(d.data_bytes as f64), fraction(k)));
        } else {
            let several = d.data_bytes - d.sent_on_subflows[0];
            out.push(format!(
                "{} of the data was sent on more than one subflow (up to {k}): {} sent again, goodput {:.0} % of what the subflows carried.",
                format_bytes(several as f64),
                format_bytes(d.redundant_bytes as f64),
                goodput_share * 100.0
            ));
        }
    }
    for s in &c.subflows {
        let reason = s.reset_reason.map(|r| format!(" (MP_TCPRST reason {r}: {})", reset_reason(r))).unwrap_or_default();
        let why = match s.status {
            SubflowStatus::JoinUnanswered => "its MP_JOIN SYN got no answer in the capture".to_string(),
            SubflowStatus::JoinRefused if s.reset_reason.is_some() => format!("it was reset before the join completed{reason}"),
            SubflowStatus::JoinRefused => "the join was refused (a reset before it completed, or an answer without MP_JOIN)".to_string(),
            SubflowStatus::JoinAbandoned => format!("its initiator reset it before the join completed{reason}"),
            SubflowStatus::JoinIncomplete => "its MP_JOIN handshake did not complete in the capture (no third ACK, or none acknowledged)".to_string(),
            SubflowStatus::Fallback => "it fell back to plain TCP (an answer without MP_CAPABLE, an infinite mapping or MP_FAIL)".to_string(),
            _ => continue,
        };
        let verb = if s.status.failed_join() { "did not join" } else { "is not multipath" };
        out.push(format!("Subflow {} {verb}: {why}.", s.connection));
    }
    if c.fast_close {
        out.push("An MP_FASTCLOSE closed the whole connection at once.".into());
    }
    out.join(" ")
}

#[cfg(test)]
#[path = "mptcp_tests.rs"]
mod tests;
