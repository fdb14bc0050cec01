//! pcapng block framing for the split by interface (twin/interfaces.rs), streamed: whole
//! blocks out with where each goes, at most one partial block buffered. Checks only what
//! routing needs (draft-ietf-opsawg-pcapng §3.1: a length of at least 12, a multiple of 4;
//! the SHB's byte-order magic, §4.1); each side's own decoder checks the rest.

use crate::decode::pcap::HARD_MAX_RECORD;
use crate::decode::pcapng::SHB_TYPE;
use crate::error::{DecodeError, ErrorKind, Layer};

/// The largest block the splitter buffers: the decoder's largest packet block (pcapng.rs
/// `max_packet_block`: a 16 MiB record, its fields and 64 KiB of options).
pub const MAX_BLOCK_BYTES: usize = HARD_MAX_RECORD as usize + 32 + 65_536;

const IDB_TYPE: u32 = 1;
const OBSOLETE_PB_TYPE: u32 = 2;
const SPB_TYPE: u32 = 3;
const EPB_TYPE: u32 = 6;
const BOM: u32 = 0x1A2B_3C4D;
/// Interfaces whose names are kept (the probe's `MAX_INTERFACES`).
const MAX_NAMED: usize = super::interfaces::MAX_INTERFACES;
/// IDB option `if_name` (draft §4.2).
const IF_NAME: u16 = 2;

/// Where a block goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Route {
    /// A section header, an interface description or any other non-packet block.
    All,
    /// A packet block of this interface (numbered across sections).
    Interface(u32),
}

/// pcapng block framing, streamed: whole blocks out, one partial block buffered.
#[derive(Default)]
pub(super) struct Blocks {
    /// The start of a block whose end has not arrived (always shorter than it).
    pub(super) buf: Vec<u8>,
    /// File offset of the next block (the one in `buf`, if any).
    offset: u64,
    big_endian: bool,
    started: bool,
    /// Interface number of the current section's interface 0.
    section_base: u32,
    /// Interfaces described so far, all sections.
    pub(super) described: u32,
    /// Names (`if_name`) of the first `MAX_NAMED` interfaces.
    pub(super) names: Vec<Option<String>>,
    pub(super) error: Option<DecodeError>,
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
    pub(super) fn push(&mut self, mut input: &[u8], f: &mut dyn FnMut(Route, &[u8])) -> bool {
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
                if self.names.len() < MAX_NAMED {
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
