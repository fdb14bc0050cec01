//! One pcapng whose interfaces are two vantage points (issue 44, item 1): what `mergecap
//! -I none` writes from a client-side and a server-side capture (each input keeps its own
//! Interface Description Block), what `cat a.pcapng b.pcapng` makes (one section each), and
//! what a host capturing on two interfaces of one path records. Each packet block names
//! its interface (pcapng draft-ietf-opsawg-pcapng §4.3 EPB `Interface ID`; §4.4 a Simple
//! Packet Block is interface 0's; Appendix A the obsolete Packet Block's), so the file's
//! packets split into the two captures the merge takes (twin/mod.rs), one per interface.
//!
//! Interfaces are numbered in file order across sections (each SHB starts its own
//! numbering, §4.2; the n-th IDB of the file is interface n-1, as Wireshark's
//! `frame.interface_id`).
//!
//! Two steps, both streaming over the file's chunks:
//! 1. [`InterfaceProbe`]: are two interfaces two vantage points of one transfer? The same
//!    TCP segment seen on both — identified by sequence and acknowledgment numbers,
//!    payload length, SYN/FIN/RST/ACK and the window field, which no forwarding hop
//!    rewrites (RFC 9293 §3.1; a NAT rewrites addresses and ports, RFC 3022, and leaves
//!    them) — on at least [`MIN_SHARED`] distinct segments. One decoder reads the file as
//!    it is, block by block, so each decoded segment is known to come from its block's
//!    interface. The probe stops early ([`PROBE_DECIDED`] shared segments, or
//!    [`PROBE_MAX_BYTES`] read): the question is asked of a file that is open already.
//! 2. [`InterfaceSplit`]: each block routed, never decoded: the section headers,
//!    interface descriptions and every other non-packet block to both sides (interface
//!    ids, per section, stay valid), each packet block to the side of its interface,
//!    packets of any other interface to neither. Each side is then a valid pcapng holding
//!    one vantage point's packets in file order, so the merge sees exactly what it would
//!    see from the two original files ([`InterfaceTwin`]; `wasm/tests/twin_interfaces.rs`).
//!
//! Memory: the splitter holds at most one block (≤ [`MAX_BLOCK_BYTES`]); the probe one
//! decoder and up to [`PROBE_KEYS_PER_INTERFACE`] 8-byte segment hashes for each of up to
//! [`MAX_INTERFACES`] interfaces (about 1.6 MiB each with the set's overhead); the merge
//! keeps each side's bytes up to twin/stream.rs `MAX_TWIN_CAPTURE_BYTES`, so the file's
//! packets are kept once (each in its side), not twice.
//!
//! Files: this one (the probe), twin/pcapng_blocks.rs (the block framing both steps
//! share), twin/interface_split.rs (the split, the merge of its sides, the two files).

use super::pcapng_blocks::{Blocks, Route};
use crate::decode::tcp_flags::{ACK, FIN, RST, SYN};
use crate::decode::{CaptureDecoder, Decoded, TcpSegment};
use crate::error::{DecodeError, ErrorKind};
use crate::fxhash::FxBuild;
use serde::Serialize;
use std::collections::HashSet;
use std::hash::{BuildHasher, Hash, Hasher};

pub use super::interface_split::{merge_interfaces, InterfaceSplit, InterfaceTwin, SplitFiles};
pub use super::pcapng_blocks::MAX_BLOCK_BYTES;

/// Interfaces the probe tells apart (a pcapng may describe 65,535); packets of later ones
/// are not compared.
pub const MAX_INTERFACES: usize = 64;
/// Segment hashes the probe keeps per interface.
pub const PROBE_KEYS_PER_INTERFACE: usize = 100_000;
/// Distinct segments two interfaces must share to be called two vantage points: one
/// chance agreement of 64 random bits (sequence and acknowledgment numbers, RFC 6528)
/// is already unlikely; eight make it a transfer, not an accident.
pub const MIN_SHARED: u64 = 8;
/// Shared segments after which the probe has seen enough and stops reading.
pub const PROBE_DECIDED: u64 = 1000;
/// Bytes the probe reads at most (inflated, for gzip): it answers from the file's start.
pub const PROBE_MAX_BYTES: u64 = 64 << 20;

/// What the probe found (crosses to the page as JSON: `VantageInterfaces` in
/// web/worker/generated/view.ts).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct VantageInterfaces {
    /// Interfaces the part of the file read describes, all sections.
    pub interfaces: u32,
    /// The two interfaces that carried the same TCP segments (the pair sharing the most),
    /// by number, lower first; None when no two did.
    pub sides: Option<[u32; 2]>,
    /// Their names (`if_name`), where the file gives them.
    pub names: [Option<String>; 2],
    /// Distinct TCP segments seen on both (counted up to the probe's caps).
    pub shared: u64,
    /// TCP segments read on each of `sides`.
    pub segments: [u64; 2],
    /// Bytes of the file the probe read (inflated, for gzip).
    pub bytes_read: u64,
    /// The probe read the whole file (else it stopped at `PROBE_DECIDED` shared segments,
    /// at `PROBE_MAX_BYTES`, or at a damaged block).
    pub complete: bool,
    /// What was found, or why the file cannot be split into two vantage points, in words.
    pub text: String,
}

/// How to keep two captures' interfaces apart when merging them into one file.
const MERGECAP_HINT: &str = "(mergecap joins identical interfaces into one unless it is given -I none; or give the two captures as two files.)";

/// Step 1: are two of the file's interfaces two vantage points of the same transfer?
pub struct InterfaceProbe {
    blocks: Blocks,
    decoder: CaptureDecoder,
    /// Per interface (up to `MAX_INTERFACES`): the segment hashes seen, and the TCP segments.
    seen: Vec<HashSet<u64, FxBuild>>,
    segments: Vec<u64>,
    /// Distinct segments shared by interfaces (i, j), i < j.
    shared: Vec<((u32, u32), u64)>,
    bytes_read: u64,
    decode_error: Option<DecodeError>,
    decided: bool,
}

impl Default for InterfaceProbe {
    fn default() -> Self {
        Self::new()
    }
}

/// A segment's identity at any point of its path (see the module comment).
fn segment_key(s: &TcpSegment) -> u64 {
    let mut h = FxBuild::default().build_hasher();
    (s.seq, s.ack, s.payload_len, s.flags & (SYN | FIN | RST | ACK), s.window).hash(&mut h);
    h.finish()
}

impl InterfaceProbe {
    pub fn new() -> Self {
        InterfaceProbe { blocks: Blocks::default(), decoder: CaptureDecoder::new(), seen: Vec::new(), segments: Vec::new(), shared: Vec::new(), bytes_read: 0, decode_error: None, decided: false }
    }

    /// The next chunk of the file; false once the probe has its answer (read no more).
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        if !self.wants_more() {
            return false;
        }
        self.bytes_read += chunk.len() as u64;
        let Self { blocks, decoder, seen, segments, shared, decode_error, decided, .. } = self;
        blocks.push(chunk, &mut |route, block| {
            if decode_error.is_some() || *decided {
                return;
            }
            let at = match route {
                Route::Interface(i) if (i as usize) < MAX_INTERFACES => Some(i),
                _ => None,
            };
            let mut each = |p: Decoded| {
                if let (Some(i), Decoded::Tcp(s)) = (at, &p) {
                    note_segment(seen, segments, shared, i as usize, segment_key(s));
                }
            };
            if let Err(e) = decoder.push(block, &mut each) {
                *decode_error = Some(e);
            }
            *decided = shared.iter().any(|&(_, n)| n >= PROBE_DECIDED);
        });
        self.wants_more()
    }

    fn wants_more(&self) -> bool {
        !self.decided && self.blocks.error.is_none() && self.decode_error.is_none() && self.bytes_read < PROBE_MAX_BYTES
    }

    /// The answer from what was read (the end of the file, or where the probe stopped).
    pub fn finish(&self) -> VantageInterfaces {
        let complete = self.wants_more() && self.blocks.buf.is_empty();
        let best = self.shared.iter().copied().filter(|&(_, n)| n >= MIN_SHARED).max_by_key(|&((i, j), n)| (n, std::cmp::Reverse((i, j))));
        let mut out = VantageInterfaces { interfaces: self.blocks.described, bytes_read: self.bytes_read, complete, ..Default::default() };
        let name = |i: u32| self.blocks.names.get(i as usize).cloned().flatten();
        let label = |i: u32| name(i).map_or(format!("interface {i}"), |n| format!("interface {i} ({n})"));
        match best {
            Some(((i, j), n)) => {
                out.sides = Some([i, j]);
                out.names = [name(i), name(j)];
                out.shared = n;
                out.segments = [self.segments[i as usize], self.segments[j as usize]];
                let more = if self.blocks.described > 2 { format!(" (of its {} interfaces, the two that share the most)", self.blocks.described) } else { String::new() };
                out.text = format!("{} and {} carry the same TCP segments ({n}{} seen on both): two vantage points of one transfer{more}.", label(i), label(j), if complete { "" } else { " or more" });
            }
            None => {
                out.text = if let Some(e) = self.blocks.error.as_ref().filter(|e| e.kind == ErrorKind::BadMagic) {
                    e.message.clone()
                } else if self.blocks.described < 2 {
                    format!("It describes one interface, so its packets cannot be told apart by where they were captured. {MERGECAP_HINT}")
                } else if self.segments.iter().filter(|&&n| n > 0).count() < 2 {
                    format!("Its {} interfaces: every TCP segment was captured on one of them, so there is one vantage point. {MERGECAP_HINT}", self.blocks.described)
                } else {
                    let read = if complete { String::new() } else { format!(" in the first {} MiB", self.bytes_read >> 20) };
                    format!("Its {} interfaces carry no TCP segment in common{read}: they are not two vantage points of one transfer.", self.blocks.described)
                };
            }
        }
        out
    }
}

/// Counts segment `key` of interface `i` as shared with every interface that saw it
/// before (once per distinct segment), then remembers it.
fn note_segment(seen: &mut Vec<HashSet<u64, FxBuild>>, segments: &mut Vec<u64>, shared: &mut Vec<((u32, u32), u64)>, i: usize, key: u64) {
    if seen.len() <= i {
        seen.resize_with(i + 1, HashSet::default);
        segments.resize(i + 1, 0);
    }
    segments[i] += 1;
    if seen[i].contains(&key) {
        return; // a retransmission or a copy on the same interface: counted once
    }
    for (j, other) in seen.iter().enumerate() {
        if j != i && other.contains(&key) {
            let pair = (i.min(j) as u32, i.max(j) as u32);
            match shared.iter_mut().find(|(p, _)| *p == pair) {
                Some((_, n)) => *n += 1,
                None => shared.push((pair, 1)),
            }
        }
    }
    if seen[i].len() < PROBE_KEYS_PER_INTERFACE {
        seen[i].insert(key);
    }
}

/// The probe over a whole file in memory.
pub fn probe(bytes: &[u8]) -> VantageInterfaces {
    let mut p = InterfaceProbe::new();
    for chunk in bytes.chunks(64 << 10) {
        if !p.push(chunk) {
            break;
        }
    }
    p.finish()
}
