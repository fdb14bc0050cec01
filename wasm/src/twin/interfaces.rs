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

use super::{TwinReport, TwinStream, MAX_TWIN_CAPTURE_BYTES};
use crate::analysis::AnalysisOptions;
use crate::decode::pcap::HARD_MAX_RECORD;
use crate::decode::pcapng::SHB_TYPE;
use crate::decode::tcp_flags::{ACK, FIN, RST, SYN};
use crate::decode::{CaptureDecoder, Decoded, TcpSegment};
use crate::error::{DecodeError, ErrorKind, Layer};
use crate::fxhash::FxBuild;
use serde::Serialize;
use std::collections::HashSet;
use std::hash::{BuildHasher, Hash, Hasher};

/// The largest block the splitter buffers: the decoder's largest packet block (pcapng.rs
/// `max_packet_block`: a 16 MiB record, its fields and 64 KiB of options).
pub const MAX_BLOCK_BYTES: usize = HARD_MAX_RECORD as usize + 32 + 65_536;
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

const IDB_TYPE: u32 = 1;
const OBSOLETE_PB_TYPE: u32 = 2;
const SPB_TYPE: u32 = 3;
const EPB_TYPE: u32 = 6;
const BOM: u32 = 0x1A2B_3C4D;
/// IDB option `if_name` (draft §4.2).
const IF_NAME: u16 = 2;

/// Where a block goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    /// A section header, an interface description or any other non-packet block.
    All,
    /// A packet block of this interface (numbered across sections).
    Interface(u32),
}

/// pcapng block framing, streamed: whole blocks out, one partial block buffered.
#[derive(Default)]
struct Blocks {
    /// The start of a block whose end has not arrived (always shorter than it).
    buf: Vec<u8>,
    /// File offset of the next block (the one in `buf`, if any).
    offset: u64,
    big_endian: bool,
    started: bool,
    /// Interface number of the current section's interface 0.
    section_base: u32,
    /// Interfaces described so far, all sections.
    described: u32,
    /// Names (`if_name`) of the first `MAX_INTERFACES` interfaces.
    names: Vec<Option<String>>,
    error: Option<DecodeError>,
}

fn u32_at(b: &[u8], at: usize, big: bool) -> u32 {
    let x = [b[at], b[at + 1], b[at + 2], b[at + 3]];
    if big { u32::from_be_bytes(x) } else { u32::from_le_bytes(x) }
}

fn u16_at(b: &[u8], at: usize, big: bool) -> u16 {
    let x = [b[at], b[at + 1]];
    if big { u16::from_be_bytes(x) } else { u16::from_le_bytes(x) }
}

impl Blocks {
    fn err(&self, kind: ErrorKind, message: String) -> DecodeError {
        DecodeError::new(Layer::Capture, kind, None, Some(self.offset), message)
    }

    /// Length of the block starting `b` (or the bytes needed to know it).
    fn needed(&self, b: &[u8]) -> Result<usize, DecodeError> {
        if !self.started && b.len() >= 4 && u32::from_le_bytes([b[0], b[1], b[2], b[3]]) != SHB_TYPE {
            return Err(self.err(ErrorKind::BadMagic, "The file is not a pcapng: it does not start with a Section Header Block (draft-ietf-opsawg-pcapng §4.1), and only a pcapng names the interface of each packet.".into()));
        }
        if b.len() < 8 {
            return Ok(8);
        }
        let shb = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) == SHB_TYPE;
        let big = if shb {
            if b.len() < 12 {
                return Ok(12);
            }
            match u32::from_le_bytes([b[8], b[9], b[10], b[11]]) {
                BOM => false,
                x if x == BOM.swap_bytes() => true,
                x => return Err(self.err(ErrorKind::BadMagic, format!("The pcapng section header at byte {} has byte-order magic {x:08x}, expected 1a2b3c4d in either byte order.", self.offset))),
            }
        } else {
            self.big_endian
        };
        let len = u32_at(b, 4, big) as usize;
        if len < 12 || len % 4 != 0 || len > MAX_BLOCK_BYTES {
            return Err(self.err(ErrorKind::BadLength, format!("The pcapng block at byte {} claims a length of {len} bytes, which no block has (a multiple of 4, 12 to {MAX_BLOCK_BYTES}): the file is damaged there, and its packets after it are not split by interface.", self.offset)));
        }
        Ok(len)
    }

    /// Hands every complete block of `input` to `f` with its route; false after a framing
    /// error (kept in `error`).
    fn push(&mut self, mut input: &[u8], f: &mut dyn FnMut(Route, &[u8])) -> bool {
        if self.error.is_some() {
            return false;
        }
        while !self.buf.is_empty() {
            let need = match self.needed(&self.buf) {
                Ok(n) => n,
                Err(e) => return self.fail(e),
            };
            if self.buf.len() < need {
                let take = (need - self.buf.len()).min(input.len());
                self.buf.extend_from_slice(&input[..take]);
                input = &input[take..];
                if self.buf.len() < need {
                    return true;
                }
                continue; // the length may be known only now (8 → 12 → the block)
            }
            let block = std::mem::take(&mut self.buf);
            self.block(&block, f);
        }
        while !input.is_empty() {
            let need = match self.needed(input) {
                Ok(n) => n,
                Err(e) => return self.fail(e),
            };
            if input.len() < need {
                self.buf.extend_from_slice(input);
                return true;
            }
            self.block(&input[..need], f);
            input = &input[need..];
        }
        true
    }

    fn fail(&mut self, e: DecodeError) -> bool {
        self.error = Some(e);
        self.buf = Vec::new();
        false
    }

    /// One whole block (its length checked by `needed`).
    fn block(&mut self, unit: &[u8], f: &mut dyn FnMut(Route, &[u8])) {
        self.offset += unit.len() as u64;
        if u32::from_le_bytes([unit[0], unit[1], unit[2], unit[3]]) == SHB_TYPE {
            self.big_endian = u32::from_le_bytes([unit[8], unit[9], unit[10], unit[11]]) != BOM;
            self.started = true;
            self.section_base = self.described; // interface ids restart per section (§4.2)
            return f(Route::All, unit);
        }
        let (big, base) = (self.big_endian, self.section_base);
        let interface = |local: u32| Route::Interface(base.saturating_add(local));
        let route = match u32_at(unit, 0, big) {
            EPB_TYPE if unit.len() >= 12 => interface(u32_at(unit, 8, big)),
            OBSOLETE_PB_TYPE if unit.len() >= 12 => interface(u32::from(u16_at(unit, 8, big))),
            SPB_TYPE => interface(0),
            IDB_TYPE => {
                if self.names.len() < MAX_INTERFACES {
                    self.names.push(interface_name(unit, big));
                }
                self.described = self.described.saturating_add(1);
                Route::All
            }
            _ => Route::All,
        };
        f(route, unit)
    }
}

/// The `if_name` option of an IDB (block header 8, link type 2, reserved 2, snaplen 4,
/// then options: code, length, value padded to 4; draft §3.5, §4.2).
fn interface_name(unit: &[u8], big: bool) -> Option<String> {
    let body = &unit[..unit.len() - 4];
    let mut at = 16;
    while at + 4 <= body.len() {
        let (code, len) = (u16_at(body, at, big), u16_at(body, at + 2, big) as usize);
        let value = body.get(at + 4..at + 4 + len)?;
        if code == 0 {
            return None;
        }
        if code == IF_NAME {
            let name = String::from_utf8_lossy(value).trim_end_matches('\0').chars().take(64).collect::<String>();
            return (!name.is_empty()).then_some(name);
        }
        at += 4 + len.div_ceil(4) * 4;
    }
    None
}

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

/// Step 2: the file's blocks routed to two sides by interface.
pub struct InterfaceSplit {
    blocks: Blocks,
    sides: [u32; 2],
    /// Packet blocks of other interfaces, routed to neither.
    left_out: u64,
}

impl InterfaceSplit {
    /// `sides`: the interface of side 0 and of side 1 (`VantageInterfaces::sides`).
    pub fn new(sides: [u32; 2]) -> Self {
        InterfaceSplit { blocks: Blocks::default(), sides, left_out: 0 }
    }

    /// Routes the blocks of `chunk`: `emit(side, bytes)` for each (both sides for a
    /// non-packet block); false after a damaged block (`error`).
    pub fn push(&mut self, chunk: &[u8], emit: &mut dyn FnMut(usize, &[u8])) -> bool {
        let (sides, left_out) = (self.sides, &mut self.left_out);
        self.blocks.push(chunk, &mut |route, block| match route {
            Route::All => {
                emit(0, block);
                emit(1, block);
            }
            Route::Interface(i) => match sides.iter().position(|&s| s == i) {
                Some(k) => emit(k, block),
                None => *left_out += 1,
            },
        })
    }

    /// The damaged block the split stopped at, if any.
    pub fn error(&self) -> Option<&DecodeError> {
        self.blocks.error.as_ref()
    }

    /// Bytes of a block cut short at the end (the file ends inside it).
    pub fn unfinished(&self) -> usize {
        self.blocks.buf.len()
    }

    /// What a merge report says about the split beyond the two sides: packets of other
    /// interfaces left out, a damaged block, a file cut inside a block.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.left_out > 0 {
            notes.push(format!("{} packets of interfaces other than {} and {} were left out of the merge.", self.left_out, self.sides[0], self.sides[1]));
        }
        if let Some(e) = self.error() {
            notes.push(format!("The split by interface stopped: {} Both sides are merged up to there.", e.message));
        } else if self.unfinished() > 0 {
            notes.push(format!("The file ends inside a block (its last {} bytes): both sides are merged up to it.", self.unfinished()));
        }
        notes
    }
}

/// The split written out as two capture files (the page opens them as the two captures
/// of a compare view): each side's bytes wait in `pending` until taken, and each side
/// stops at twin/stream.rs `MAX_TWIN_CAPTURE_BYTES`, the most the merge takes of one.
pub struct SplitFiles {
    split: InterfaceSplit,
    pending: [Vec<u8>; 2],
    written: [usize; 2],
    too_large: Option<usize>,
}

impl SplitFiles {
    pub fn new(sides: [u32; 2]) -> Self {
        SplitFiles { split: InterfaceSplit::new(sides), pending: Default::default(), written: [0, 0], too_large: None }
    }

    /// The next chunk of the file; false once the split stopped (a damaged block, or a
    /// side over the cap: `finish` says which).
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        if self.too_large.is_some() {
            return false;
        }
        let Self { split, pending, written, too_large } = self;
        let ok = split.push(chunk, &mut |k, block| {
            written[k] += block.len();
            if written[k] > MAX_TWIN_CAPTURE_BYTES {
                too_large.get_or_insert(k);
            } else if too_large.is_none() {
                pending[k].extend_from_slice(block);
            }
        });
        ok && self.too_large.is_none()
    }

    /// Side `k`'s bytes routed since the last take.
    pub fn take(&mut self, k: usize) -> Vec<u8> {
        self.pending.get_mut(k).map(std::mem::take).unwrap_or_default()
    }

    /// The split's notes (`InterfaceSplit::notes`), or why there are no two files.
    pub fn finish(&self) -> Result<Vec<String>, String> {
        match self.too_large {
            Some(k) => Err(format!("The packets of interface {} come to more than {} MiB, more than the merge takes of one capture: save the connection alone first (\"Save for Wireshark\" or tcpscope slice), then merge its two interfaces.", self.split.sides[k], MAX_TWIN_CAPTURE_BYTES >> 20)),
            None => Ok(self.split.notes()),
        }
    }
}

/// The merge of a file's two vantage points: the split's sides streamed into the merge
/// (twin/stream.rs) as two captures, interface `sides[0]` as the first.
pub struct InterfaceTwin {
    split: InterfaceSplit,
    twin: TwinStream,
}

impl InterfaceTwin {
    pub fn new(sides: [u32; 2], options: AnalysisOptions) -> Self {
        InterfaceTwin { split: InterfaceSplit::new(sides), twin: TwinStream::new(options) }
    }

    /// The next chunk of the file; false once neither side takes more.
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        self.route(chunk, None)
    }

    /// `push` for inflated gzip input (`compressed`: compressed bytes read so far; the
    /// inflate caps then apply to each side as to one capture).
    pub fn push_inflated(&mut self, chunk: &[u8], compressed: u64) -> bool {
        self.route(chunk, Some(compressed))
    }

    fn route(&mut self, chunk: &[u8], compressed: Option<u64>) -> bool {
        let twin = &mut self.twin;
        let mut taking = [true, true];
        let ok = self.split.push(chunk, &mut |k, block| {
            if taking[k] {
                taking[k] = match compressed {
                    Some(c) => twin.push_inflated(k, block, c),
                    None => twin.push(k, block),
                };
            }
        });
        ok && taking.iter().any(|&t| t)
    }

    /// The merge, with the split's own notes.
    pub fn finish(&mut self) -> TwinReport {
        let mut report = self.twin.finish().clone();
        report.notes.extend(self.split.notes());
        report
    }
}

/// A whole file in memory: probed, then its two vantage points merged; Err with the
/// probe's answer when no two interfaces are.
pub fn merge_interfaces(bytes: &[u8], options: AnalysisOptions) -> Result<TwinReport, VantageInterfaces> {
    let found = probe(bytes);
    let Some(sides) = found.sides else { return Err(found) };
    let mut twin = InterfaceTwin::new(sides, options);
    for chunk in bytes.chunks(1 << 20) {
        if !twin.push(chunk) {
            break;
        }
    }
    Ok(twin.finish())
}
