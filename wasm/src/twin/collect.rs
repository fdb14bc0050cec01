//! The two walks over each capture: fingerprints of every connection (for pairing),
//! then the datagrams of the paired connections (for the merge).
//!
//! Connections are numbered as the report numbers them (slice.rs does the same): in
//! order of first packet, by direction-independent 4-tuple, a SYN with a new ISN on a
//! known 4-tuple starting the next one (Wireshark's tcp.stream, connections.rs
//! `starts_new_connection`). A frame the capture holds twice is one datagram
//! (analysis/capture/duplicates.rs `DuplicateFilter`), and a frame whose checksum shows
//! it corrupted on the way never reached a TCP (decode/checksum.rs): both are left out
//! as the analysis leaves them out.

use std::collections::HashMap;
use std::net::IpAddr;

use super::{Recording, Walked, MAX_CONNECTIONS, MAX_DATAGRAMS, MAX_FINGERPRINTED};
use crate::analysis::capture::duplicates::DuplicateFilter;
use crate::analysis::connections::{starts_new_connection, ConnTable, FlowKey, Lookup};
use crate::decode::acked::AckedEvidence;
use crate::decode::checksum::ChecksumEvidence;
use crate::decode::tcp_flags::{ACK, FIN, RST, SYN};
use crate::decode::TcpSegment;
use crate::error::DecodeError;

/// Datagram hashes kept per connection (a bottom-k sketch: the k smallest hashes of
/// all its datagrams). Two captures of one connection keep the same smallest hashes of
/// the datagrams both saw, so they share about k × (the share both saw) of them.
pub const SKETCH: usize = 32;

/// `Dgram::bits`.
pub const DIR: u8 = 1;
pub const HAS_TS: u8 = 2;
pub const HAS_ID: u8 = 4;
pub const HAS_SACK: u8 = 8;

/// One datagram of a paired connection as the merge keeps it (48 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dgram {
    pub t_ns: i64,
    /// 1-based frame number in its capture (the report's frame numbers).
    pub frame: u32,
    pub seq: u32,
    pub ack: u32,
    /// TCP payload bytes.
    pub len: u32,
    pub tsval: u32,
    pub tsecr: u32,
    /// The highest right edge of its SACK blocks (RFC 2018), with `HAS_SACK`.
    pub sack_right: u32,
    pub ip_id: u16,
    /// The raw window field (RFC 9293 §3.1; scaled by `ConnPrint::wscale`).
    pub window: u16,
    pub flags: u8,
    /// `DIR` (0: sent by the connection's first endpoint in this capture; after
    /// pairing, 0: sent by the data sender), `HAS_TS`, `HAS_ID`, `HAS_SACK`.
    pub bits: u8,
}

impl Dgram {
    fn of(s: &TcpSegment, dir: u8) -> Dgram {
        let o = &s.options;
        let (tsval, tsecr) = o.timestamp.unwrap_or((0, 0));
        let sacks = &o.sack_blocks[..usize::from(o.sack_count.min(4))];
        let sack_right = sacks.iter().map(|b| b.1).max_by(|x, y| (x.wrapping_sub(*y) as i32).cmp(&0)).unwrap_or(0);
        let bits = dir
            | if o.timestamp.is_some() { HAS_TS } else { 0 }
            | if s.frame_id.ip_id.is_some() { HAS_ID } else { 0 }
            | if sacks.is_empty() { 0 } else { HAS_SACK };
        Dgram {
            t_ns: s.ts_ns,
            frame: (s.packet_index as u32).wrapping_add(1),
            seq: s.seq,
            ack: s.ack,
            len: s.payload_len,
            tsval,
            tsecr,
            sack_right,
            ip_id: s.frame_id.ip_id.unwrap_or(0),
            window: s.window,
            flags: s.flags,
            bits,
        }
    }
    pub fn dir(&self) -> u8 {
        self.bits & DIR
    }
    pub fn ts(&self) -> Option<u32> {
        (self.bits & HAS_TS != 0).then_some(self.tsval)
    }
    pub fn id(&self) -> Option<u16> {
        (self.bits & HAS_ID != 0 && self.ip_id != 0).then_some(self.ip_id)
    }
    /// Sequence space it uses: payload, + 1 for SYN, + 1 for FIN (RFC 9293 §3.4).
    pub fn seq_len(&self) -> u32 {
        self.len + u32::from(self.flags & SYN != 0) + u32::from(self.flags & FIN != 0)
    }
    pub fn has_ack(&self) -> bool {
        self.flags & ACK != 0
    }
}

/// What pairing needs of one connection of one capture.
#[derive(Clone, Debug)]
pub struct ConnPrint {
    /// The sender of local direction 0 and of direction 1, as (address, port).
    pub ends: [(IpAddr, u16); 2],
    pub key: FlowKey,
    /// The SYN's local direction and ISN (RFC 9293 §3.4).
    pub syn: Option<(u8, u32)>,
    /// The SYN/ACK's ISN.
    pub syn_ack: Option<u32>,
    pub packets: [u64; 2],
    pub payload: [u64; 2],
    /// Bottom-k datagram hashes (sorted), each with its local direction.
    pub sketch: Vec<(u64, u8)>,
    /// The sketched datagrams carried TCP timestamps.
    pub timestamps: bool,
    /// The window scale each local direction's sender announced in its SYN (RFC 7323
    /// §2.3): windows it sends are shifted by it when both SYNs carried the option.
    pub wscale: [Option<u8>; 2],
}

impl ConnPrint {
    /// The shift of the windows local direction d sends (0 without both SYNs' option).
    pub fn shift(&self, d: u8) -> u8 {
        match self.wscale {
            [Some(a), Some(b)] => [a, b][usize::from(d)].min(14),
            _ => 0,
        }
    }
}

/// The first walk's result for one capture.
pub struct Prints {
    /// The first `MAX_CONNECTIONS` connections.
    pub conns: Vec<ConnPrint>,
    /// Connections in the capture (more than `conns` holds beyond the cap).
    pub total: u64,
    /// Earliest and latest timestamp of any packet, ns.
    pub span: Option<(i64, i64)>,
    pub error: Option<DecodeError>,
}

/// Numbers connections as the report does (module doc).
#[derive(Default)]
struct Numbering {
    table: ConnTable,
    /// Per connection: its first sender and each direction's base sequence number.
    conns: Vec<((IpAddr, u16), [Option<u32>; 2])>,
}

impl Numbering {
    /// The segment's connection and its local direction; `opened` when it is new.
    fn number(&mut self, seg: &TcpSegment) -> (u32, u8, bool) {
        let key = FlowKey::of(seg);
        let dir = |first: (IpAddr, u16)| u8::from((seg.src, seg.src_port) != first);
        let (index, opened) = match self.table.lookup(&key) {
            Lookup::Existing(i) => {
                let (first, base) = self.conns[i as usize];
                if starts_new_connection(seg, base[usize::from(dir(first))]) {
                    (self.open(key, seg), true)
                } else {
                    (i, false)
                }
            }
            Lookup::New => (self.open(key, seg), true),
        };
        let (first, base) = &mut self.conns[index as usize];
        let d = usize::from(dir(*first));
        if base[d].is_none() {
            base[d] = Some(if seg.flags & SYN != 0 { seg.seq } else { seg.seq.wrapping_sub(1) });
        }
        if seg.flags & ACK != 0 && base[1 - d].is_none() {
            base[1 - d] = Some(seg.ack.wrapping_sub(1));
        }
        (index, d as u8, opened)
    }
    /// The connection and local direction of a segment of a known connection, changing
    /// nothing (for a copy, which the report does not count).
    fn peek(&mut self, seg: &TcpSegment) -> Option<(u32, u8)> {
        match self.table.lookup(&FlowKey::of(seg)) {
            Lookup::Existing(i) => Some((i, u8::from((seg.src, seg.src_port) != self.conns[i as usize].0))),
            Lookup::New => None,
        }
    }
    fn open(&mut self, key: FlowKey, seg: &TcpSegment) -> u32 {
        let index = self.conns.len() as u32;
        self.conns.push(((seg.src, seg.src_port), [None, None]));
        self.table.insert(key, index);
        index
    }
}

/// A datagram's identity apart from addresses, ports and IPv4 Identification (which a
/// NAT may rewrite): what both captures see alike.
pub fn datagram_hash(seq: u32, ack: u32, len: u32, flags: u8, ts: Option<(u32, u32)>) -> u64 {
    let (v, e) = ts.map_or((u64::MAX, u64::MAX), |(v, e)| (u64::from(v), u64::from(e)));
    let mut h = 0u64;
    for w in [u64::from(seq) << 32 | u64::from(ack), u64::from(len) << 8 | u64::from(flags & (SYN | FIN | RST)), v << 32 ^ e] {
        h = (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    h ^ h >> 29
}

fn sketch_add(sketch: &mut Vec<(u64, u8)>, h: u64, dir: u8) {
    if sketch.len() == SKETCH && h >= sketch[SKETCH - 1].0 {
        return;
    }
    if let Err(at) = sketch.binary_search_by_key(&h, |e| e.0) {
        sketch.insert(at, (h, dir));
        sketch.truncate(SKETCH);
    }
}

/// The first walk: every connection's fingerprint.
pub fn fingerprint(rec: &dyn Recording) -> Prints {
    let mut numbering = Numbering::default();
    let mut conns: Vec<ConnPrint> = Vec::new();
    let mut span: Option<(i64, i64)> = None;
    let mut duplicates = DuplicateFilter::default();
    let mut total = 0u64;
    let error = rec.walk(&mut |p| {
        let t = match p {
            Walked::Tcp(s) => s.ts_ns,
            Walked::Other(t) => t,
        };
        span = Some(span.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
        let Walked::Tcp(s) = p else { return };
        if duplicates.is_copy(s) {
            return;
        }
        let (index, dir, opened) = numbering.number(s);
        total += u64::from(opened);
        if opened && conns.len() < MAX_CONNECTIONS {
            let peer = (s.dst, s.dst_port);
            conns.push(ConnPrint {
                ends: [(s.src, s.src_port), peer],
                key: FlowKey::of(s),
                syn: None,
                syn_ack: None,
                packets: [0; 2],
                payload: [0; 2],
                sketch: Vec::new(),
                timestamps: false,
                wscale: [None; 2],
            });
        }
        let Some(c) = conns.get_mut(index as usize) else { return };
        let d = usize::from(dir);
        c.packets[d] += 1;
        c.payload[d] += u64::from(s.payload_len);
        match s.flags & (SYN | ACK) {
            SYN => c.syn = c.syn.or(Some((dir, s.seq))),
            f if f == SYN | ACK => c.syn_ack = c.syn_ack.or(Some(s.seq)),
            _ => {}
        }
        if s.flags & SYN != 0 {
            c.wscale[d] = c.wscale[d].or(s.options.window_scale);
        }
        if (index as usize) < MAX_FINGERPRINTED {
            let h = datagram_hash(s.seq, s.ack, s.payload_len, s.flags, s.options.timestamp);
            sketch_add(&mut c.sketch, h, dir);
            c.timestamps |= s.options.timestamp.is_some();
        }
    });
    Prints { conns, total, span, error }
}

/// One paired connection's datagrams in one capture.
#[derive(Clone, Debug, Default)]
pub struct Collected {
    /// Time order (a capture's order is not time order).
    pub dgrams: Vec<Dgram>,
    /// Frames this capture holds twice (analysis/capture/duplicates.rs): the later copy
    /// of each. At the receiving side and not at the sending one, the copy was made on
    /// the way (or by that capture's set-up: the two look the same).
    pub copies: Vec<Dgram>,
}

/// Whether a datagram of direction `dir` before `s` carried any of its payload.
fn carried_before(dgrams: &[Dgram], dir: u8, s: &TcpSegment) -> bool {
    let end = s.seq.wrapping_add(s.payload_len);
    dgrams.iter().any(|d| {
        let d_end = d.seq.wrapping_add(d.len);
        d.bits & DIR == dir && d.t_ns < s.ts_ns && d.len > 0 && (d_end.wrapping_sub(s.seq) as i32) > 0 && (end.wrapping_sub(d.seq) as i32) > 0
    })
}

/// The second walk: the datagrams of the connections `wanted` (index → slot). A
/// connection is asked for only when its packet count is within `MAX_DATAGRAMS`; the
/// walk stops adding beyond it all the same.
pub fn collect(rec: &dyn Recording, wanted: &HashMap<u32, usize>, slots: usize) -> Vec<Collected> {
    let mut numbering = Numbering::default();
    let mut duplicates = DuplicateFilter::default();
    let mut checksums = ChecksumEvidence::default();
    let mut acked = AckedEvidence::default();
    let mut out: Vec<Collected> = vec![Collected::default(); slots];
    let mut held: Vec<(u32, TcpSegment)> = Vec::new();
    // Checksum evidence counts a source's good and bad frames over the whole capture
    // before judging one (decode/checksum.rs); frames that fail are kept aside until
    // the walk ends and judged then (few: a capture's corrupt frames).
    rec.walk(&mut |p| {
        let Walked::Tcp(s) = p else { return };
        checksums.observe(s.src, s.meta.checksum);
        acked.see(s);
        if checksums.may_judge(s.src, s.meta.checksum) {
            acked.watch(s);
        }
        if duplicates.is_copy(s) {
            if let Some((index, dir)) = numbering.peek(s) {
                if let Some(c) = wanted.get(&index).map(|&slot| &mut out[slot]).filter(|c| (c.copies.len() as u64) < MAX_DATAGRAMS) {
                    c.copies.push(Dgram::of(s, dir));
                }
            }
            return;
        }
        let (index, dir, _) = numbering.number(s);
        let Some(&slot) = wanted.get(&index) else { return };
        if s.meta.checksum == crate::decode::checksum::Checksum::Bad {
            if held.len() < MAX_DATAGRAMS as usize {
                held.push((u32::from(dir) << 31 | slot as u32, s.clone()));
            }
            return;
        }
        if (out[slot].dgrams.len() as u64) < MAX_DATAGRAMS {
            out[slot].dgrams.push(Dgram::of(s, dir));
        }
    });
    for (tag, s) in held {
        let (slot, dir) = ((tag & 0x7fff_ffff) as usize, (tag >> 31) as u8);
        // Acknowledged by the peer, its bytes in no other frame: delivered (decode/acked.rs,
        // as the session judges it; the frames before it are the slot's).
        let delivered = acked.acknowledged(&s) && !carried_before(&out[slot].dgrams, dir, &s);
        if (delivered || !checksums.is_corrupt(s.src, s.meta.checksum)) && (out[slot].dgrams.len() as u64) < MAX_DATAGRAMS {
            out[slot].dgrams.push(Dgram::of(&s, dir));
        }
    }
    for c in &mut out {
        c.dgrams.sort_by_key(|d| (d.t_ns, d.frame));
    }
    out
}
