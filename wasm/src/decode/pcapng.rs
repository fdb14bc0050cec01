//! pcapng framing (draft-ietf-opsawg-pcapng): blocks of type, length, body, length.
//! Blocks are parsed with pcap-parser once a whole block is buffered; this file checks
//! the lengths first (so a lying length is an error, not an endless wait), keeps the
//! interfaces of the current section, and turns EPB / SPB / obsolete Packet Blocks
//! into packets. Unknown blocks are skipped (draft §3.1: "MUST be ignored").

use super::frame::{Ctx, RawPacket};
use super::pcap::{HARD_MAX_RECORD, MAX_SNAPLEN};
use crate::error::{DecodeError, ErrorKind};
use pcap_parser::pcapng::{parse_block_be, parse_block_le, Block};

pub const SHB_TYPE: u32 = 0x0A0D_0D0A;
const BOM: u32 = 0x1A2B_3C4D;
const OBSOLETE_PB_TYPE: u32 = 2;
const SPB_TYPE: u32 = 3;
const EPB_TYPE: u32 = 6;
/// Non-packet blocks may be large (name resolution, secrets) but not endless.
const MAX_BLOCK: u32 = HARD_MAX_RECORD;
/// Option codes (draft §4.2).
const IF_TSOFFSET: u16 = 14;
/// Apple's Darwin Process Information Block (type 0x80000001, macOS `tcpdump -P`;
/// Wireshark wiretap/pcapng-darwin-custom.c; pcap-parser `ProcessInformationBlock`):
/// process id (u32), then options, of which 2 = process name (UTF-8).
const DPIB_NAME: u16 = 2;
/// EPB option: index of the packet's DPIB within the section (u32, section order).
const EPB_DARWIN_PIB_ID: u16 = 0x8001;

#[derive(Clone, Debug)]
pub struct Interface {
    pub link_type: u32,
    pub snaplen: u32,
    /// Timestamp units per second (if_tsresol, draft §4.2: 10^n, or 2^n when the
    /// high bit is set; default 10^6).
    pub units_per_sec: u64,
    /// if_tsoffset seconds added to every timestamp.
    pub offset_sec: i64,
}

#[derive(Clone, Debug, Default)]
pub struct NgFormat {
    pub big_endian: bool,
    pub interfaces: Vec<Interface>,
    pub sections: u32,
    /// The section's DPIBs in order, as indices into the decoder's process table
    /// (filled by capture.rs, which owns the table; None when it was full).
    pub processes: Vec<Option<u32>>,
}

/// What one block meant.
pub enum NgEvent<'a> {
    Nothing,
    Interface(u32),
    Packet(RawPacket<'a>),
    /// A packet block naming an interface that was never described.
    BadInterface { if_id: u32, orig_len: u32, ts_ns: Option<i64> },
    /// A Darwin Process Information Block: process id and name.
    Process { pid: u32, name: Vec<u8> },
}

fn u32_of(b: &[u8], at: usize, big: bool) -> u32 {
    let x = [b[at], b[at + 1], b[at + 2], b[at + 3]];
    if big {
        u32::from_be_bytes(x)
    } else {
        u32::from_le_bytes(x)
    }
}

fn is_packet_block(t: u32) -> bool {
    matches!(t, EPB_TYPE | SPB_TYPE | OBSOLETE_PB_TYPE)
}

impl NgFormat {
    /// Total length of the next block, from the bytes available.
    pub fn needed(&self, b: &[u8], ctx: Ctx) -> Result<usize, DecodeError> {
        if b.len() < 8 {
            return Ok(8);
        }
        let le_type = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let big = if le_type == SHB_TYPE {
            // The section's byte order is only known from the byte-order magic.
            if b.len() < 12 {
                return Ok(12);
            }
            match u32::from_le_bytes([b[8], b[9], b[10], b[11]]) {
                BOM => false,
                x if x == BOM.swap_bytes() => true,
                x => {
                    return Err(ctx.err(
                        if self.sections == 0 { ErrorKind::BadMagic } else { ErrorKind::Malformed },
                        format!("The pcapng section header at byte {} has byte-order magic {x:08x}, expected 1a2b3c4d in either byte order.", ctx.offset),
                    ))
                }
            }
        } else {
            self.big_endian
        };
        let block_type = u32_of(b, 0, big);
        let len = u32_of(b, 4, big);
        let packet = is_packet_block(block_type);
        let limit = if packet { self.max_packet_block() } else { MAX_BLOCK };
        if len < 12 || !len.is_multiple_of(4) || len > limit {
            let what = if packet { format!("packet {}", ctx.packet + 1) } else { format!("block type 0x{block_type:08x}") };
            let why = if len > limit { format!("more than the {limit}-byte limit") } else { "not a multiple of 4 of at least 12 (draft-ietf-opsawg-pcapng §3.1)".to_string() };
            return Err(ctx.block_err(packet, ErrorKind::BadLength, format!("The pcapng block at byte {} ({what}) claims a length of {len} bytes, {why}: the file is damaged after packet {}.", ctx.offset, ctx.packet)));
        }
        Ok(len as usize)
    }

    fn max_packet_block(&self) -> u32 {
        let snap = self.interfaces.iter().map(|i| i.snaplen).max().unwrap_or(0);
        // Block header and trailer, EPB fields, room for options.
        snap.clamp(MAX_SNAPLEN, HARD_MAX_RECORD) + 32 + 65_536
    }

    /// Interpret one complete block (exactly `needed` bytes).
    pub fn block<'a>(&mut self, unit: &'a [u8], ctx: Ctx) -> Result<NgEvent<'a>, DecodeError> {
        let len = unit.len();
        // Decide the byte order for this block: an SHB carries its own.
        let le_type = u32::from_le_bytes([unit[0], unit[1], unit[2], unit[3]]);
        let big = if le_type == SHB_TYPE { u32::from_le_bytes([unit[8], unit[9], unit[10], unit[11]]) != BOM } else { self.big_endian };
        let block_type = u32_of(unit, 0, big);
        let packet = is_packet_block(block_type);
        let trailer = u32_of(unit, len - 4, big);
        if trailer as usize != len {
            return Err(ctx.block_err(packet, ErrorKind::BadLength, format!(
                "The pcapng block at byte {} (type 0x{block_type:08x}) starts with length {len} but ends with length {trailer}: the file is damaged after packet {}.",
                ctx.offset, ctx.packet
            )));
        }
        let parsed = if big { parse_block_be(unit) } else { parse_block_le(unit) };
        let block = match parsed {
            Ok((_, b)) => b,
            Err(e) => {
                let why = match e {
                    pcap_parser::nom::Err::Incomplete(_) => "its contents run past its own length".to_string(),
                    other => format!("{other}"),
                };
                return Err(ctx.block_err(packet, ErrorKind::BadLength, format!(
                    "The pcapng block at byte {} (type 0x{block_type:08x}, {len} bytes) is inconsistent: {why}; the file is damaged after packet {}.",
                    ctx.offset, ctx.packet
                )));
            }
        };
        match block {
            Block::SectionHeader(shb) => {
                if shb.major_version != 1 {
                    return Err(ctx.err(ErrorKind::Unsupported, format!("The pcapng section at byte {} has version {}.{}; only 1.x is defined.", ctx.offset, shb.major_version, shb.minor_version)));
                }
                self.big_endian = shb.big_endian();
                self.interfaces.clear(); // interface ids are per section (draft §4.2)
                self.processes.clear(); // so are DPIB indices
                self.sections += 1;
                Ok(NgEvent::Nothing)
            }
            Block::InterfaceDescription(idb) => {
                let units_per_sec = ts_resolution(idb.if_tsresol).ok_or_else(|| {
                    ctx.err(ErrorKind::BadHeader, format!("Interface {} (block at byte {}) has if_tsresol 0x{:02x}, which is not a valid time resolution.", self.interfaces.len(), ctx.offset, idb.if_tsresol))
                })?;
                // pcap-parser reads if_tsoffset little-endian only; read it in section order.
                let offset_sec = idb
                    .options
                    .iter()
                    .find(|o| o.code.0 == IF_TSOFFSET && o.value.len() >= 8)
                    .map(|o| {
                        let mut x = [0u8; 8];
                        x.copy_from_slice(&o.value[..8]);
                        if big { i64::from_be_bytes(x) } else { i64::from_le_bytes(x) }
                    })
                    .unwrap_or(0);
                let link_type = idb.linktype.0 as u32;
                self.interfaces.push(Interface { link_type, snaplen: idb.snaplen, units_per_sec, offset_sec });
                Ok(NgEvent::Interface(link_type))
            }
            Block::EnhancedPacket(epb) => {
                let data = epb.data.get(..epb.caplen as usize).unwrap_or(epb.data);
                let dpib = epb.options.iter().find(|o| o.code.0 == EPB_DARWIN_PIB_ID && o.value.len() >= 4).map(|o| u32_of(&o.value, 0, big));
                let mut event = self.packet(epb.if_id, Some((epb.ts_high, epb.ts_low)), data, epb.origlen);
                if let NgEvent::Packet(raw) = &mut event {
                    raw.dpib = dpib;
                }
                Ok(event)
            }
            Block::ProcessInformation(pib) => {
                let name = pib.options.iter().find(|o| o.code.0 == DPIB_NAME).map_or(&[][..], |o| &o.value[..]);
                // Darwin writes the name without a NUL; tolerate one.
                let name = name.split(|&c| c == 0).next().unwrap_or(&[]).to_vec();
                Ok(NgEvent::Process { pid: pib.process_id, name })
            }
            Block::SimplePacket(spb) => {
                // draft §4.4: interface 0; captured length = min(orig len, snaplen, body).
                let mut n = (spb.origlen as usize).min(spb.data.len());
                if let Some(i) = self.interfaces.first().filter(|i| i.snaplen > 0) {
                    n = n.min(i.snaplen as usize);
                }
                Ok(self.packet(0, None, &spb.data[..n], spb.origlen))
            }
            Block::Unknown(u) if block_type == OBSOLETE_PB_TYPE => {
                // draft Appendix A: if_id u16, drops u16, ts high, ts low, caplen, len, data.
                let d = u.data;
                if d.len() < 20 {
                    return Err(ctx.block_err(true, ErrorKind::BadLength, format!("The obsolete Packet Block at byte {} is too short ({len} bytes).", ctx.offset)));
                }
                let if_id = if big { u16::from_be_bytes([d[0], d[1]]) } else { u16::from_le_bytes([d[0], d[1]]) };
                let caplen = u32_of(d, 12, big) as usize;
                let data = d.get(20..20 + caplen).ok_or_else(|| {
                    ctx.block_err(true, ErrorKind::BadLength, format!("The obsolete Packet Block at byte {} claims {caplen} captured bytes but holds only {}.", ctx.offset, d.len() - 20))
                })?;
                Ok(self.packet(u32::from(if_id), Some((u32_of(d, 4, big), u32_of(d, 8, big))), data, u32_of(d, 16, big)))
            }
            _ => Ok(NgEvent::Nothing),
        }
    }

    fn packet<'a>(&self, if_id: u32, ts: Option<(u32, u32)>, data: &'a [u8], orig_len: u32) -> NgEvent<'a> {
        let Some(iface) = self.interfaces.get(if_id as usize) else {
            return NgEvent::BadInterface { if_id, orig_len, ts_ns: ts.map(|(h, l)| ts_to_ns(h, l, 1_000_000, 0).0) };
        };
        let ts = ts.map(|(h, l)| ts_to_ns(h, l, iface.units_per_sec, iface.offset_sec));
        let (ts_ns, ts_impossible) = (ts.map(|t| t.0), ts.is_some_and(|t| t.1));
        NgEvent::Packet(RawPacket { link_type: iface.link_type, data, orig_len, ts_ns, ts_impossible, dpib: None })
    }
}

/// Units per second of an if_tsresol byte (draft §4.2): 10^n, or 2^n when the high bit
/// is set. Not pcap-parser's `build_ts_resolution`, which rejects every 2^n value
/// (it compares the byte, high bit included, with 63).
pub fn ts_resolution(r: u8) -> Option<u64> {
    let n = u32::from(r & 0x7f);
    if r & 0x80 != 0 {
        (n <= 63).then(|| 1u64 << n)
    } else {
        10u64.checked_pow(n)
    }
}

/// 64-bit timestamp in interface units → ns since the epoch, saturating at i64, and
/// whether it had to saturate (a time past 2262 or before 1678: the unsigned 64-bit
/// count of the draft holds up to 584 942 years of microseconds, more than i64 ns).
pub fn ts_to_ns(high: u32, low: u32, units_per_sec: u64, offset_sec: i64) -> (i64, bool) {
    let t = (u128::from(high) << 32) | u128::from(low);
    let units = u128::from(units_per_sec.max(1));
    let ns = (t / units) * 1_000_000_000 + (t % units) * 1_000_000_000 / units;
    let ns = i128::try_from(ns).unwrap_or(i128::MAX) + i128::from(offset_sec) * 1_000_000_000;
    let clamped = ns.clamp(i128::from(i64::MIN), i128::from(i64::MAX));
    (clamped as i64, clamped != ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsresol_values() {
        assert_eq!(ts_resolution(6), Some(1_000_000));
        assert_eq!(ts_resolution(9), Some(1_000_000_000));
        assert_eq!(ts_resolution(0x80 | 20), Some(1 << 20));
        assert_eq!(ts_resolution(0x80 | 63), Some(1 << 63));
        assert_eq!(ts_resolution(20), None);
        assert_eq!(ts_resolution(0xff), None);
    }

    #[test]
    fn timestamp_resolutions() {
        // draft §4.6 example: 97 c3 04 00 aa 47 ca 64 (µs) = 2012-06-29 07:28:25.298858 UTC.
        let ns = ts_to_ns(0x0004_c397, 0x64ca_47aa, 1_000_000, 0);
        assert_eq!(ns, (1_340_954_905_298_858_000, false));
        assert_eq!(ts_to_ns(0, 1_500_000_000, 1_000_000_000, 0), (1_500_000_000, false));
        assert_eq!(ts_to_ns(0, 3 << 20, 1 << 20, 0), (3_000_000_000, false)); // 2^-20 s units
        assert_eq!(ts_to_ns(0, 1 << 19, 1 << 20, 10), (10_500_000_000, false));
        assert_eq!(ts_to_ns(0, 5, 1000, 0), (5_000_000, false));
        assert_eq!(ts_to_ns(u32::MAX, u32::MAX, 1, i64::MAX), (i64::MAX, true));
        // PcapPlusPlus's pcapng-example.pcapng, interface 1: µs counts near 2^64
        // (year 586 524 as Wireshark shows them) cannot be held in i64 ns.
        assert_eq!(ts_to_ns(0xffff_ffff, 0xe1df_d279, 1_000_000, 0), (i64::MAX, true));
    }
}
