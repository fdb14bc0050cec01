//! Classic libpcap framing (draft-ietf-opsawg-pcap; tcpdump's pcap-savefile(5)):
//! a 24-byte file header, then records of a 16-byte header + captured bytes.
//! The framing itself is read with pcap-parser; this file adds the length checks
//! that turn a damaged file into a clear error instead of an endless wait for bytes.

use super::frame::{Ctx, RawPacket};
use crate::error::{DecodeError, ErrorKind, Layer};
use pcap_parser::pcap::{parse_pcap_frame, parse_pcap_frame_be, parse_pcap_frame_modified};
use pcap_parser::parse_pcap_header;

/// Largest record libpcap and Wireshark accept for ordinary link types
/// (libpcap's MAXIMUM_SNAPLEN, Wireshark's WTAP_MAX_PACKET_SIZE_STANDARD).
pub const MAX_SNAPLEN: u32 = 262_144;
/// Never buffer more than this for one record, whatever the header says.
pub const HARD_MAX_RECORD: u32 = 16 << 20;

/// Magic numbers as read little-endian from the first 4 bytes.
pub const MAGIC_USEC_LE: u32 = 0xa1b2_c3d4;
pub const MAGIC_USEC_BE: u32 = 0xd4c3_b2a1;
pub const MAGIC_NSEC_LE: u32 = 0xa1b2_3c4d;
pub const MAGIC_NSEC_BE: u32 = 0x4d3c_b2a1;
/// Alexey Kuznetzov's "modified" pcap (24-byte records with ifindex/protocol/type).
pub const MAGIC_MODIFIED_LE: u32 = 0xa1b2_cd34;
pub const MAGIC_MODIFIED_BE: u32 = 0x34cd_b2a1;

pub fn is_pcap_magic(m: u32) -> bool {
    matches!(m, MAGIC_USEC_LE | MAGIC_USEC_BE | MAGIC_NSEC_LE | MAGIC_NSEC_BE | MAGIC_MODIFIED_LE | MAGIC_MODIFIED_BE)
}

#[derive(Clone, Debug)]
pub struct PcapFormat {
    pub big_endian: bool,
    pub nanos: bool,
    pub modified: bool,
    pub link_type: u32,
    pub snaplen: u32,
}

impl PcapFormat {
    /// Read the 24-byte file header (the caller checked the magic and length).
    pub fn from_header(b: &[u8]) -> Result<Self, DecodeError> {
        let head_err = |kind, msg: String| DecodeError::new(Layer::Capture, kind, None, Some(0), msg);
        if b.get(..4) == Some(&MAGIC_MODIFIED_BE.to_le_bytes()[..]) {
            return Err(head_err(
                ErrorKind::Unsupported,
                "This is a big-endian \"modified\" (Kuznetzov) pcap file, which tcpscope cannot read; convert it with `editcap -F pcap` or `tcpdump -r in -w out`.".into(),
            ));
        }
        let (_, h) = parse_pcap_header(b).map_err(|e| head_err(ErrorKind::BadMagic, format!("The pcap file header could not be read: {e}.")))?;
        if h.version_major != 2 {
            return Err(head_err(
                ErrorKind::Unsupported,
                format!("The pcap file header says format version {}.{}; only version 2.x exists.", h.version_major, h.version_minor),
            ));
        }
        Ok(PcapFormat {
            big_endian: h.is_bigendian(),
            nanos: h.is_nanosecond_precision(),
            modified: h.is_modified_format(),
            // The upper bits of the link-type field carry FCS information
            // (draft-ietf-opsawg-pcap §4, libpcap LT_LINKTYPE): keep the low 26 bits.
            link_type: (h.network.0 as u32) & 0x03FF_FFFF,
            snaplen: h.snaplen,
        })
    }

    fn header_len(&self) -> usize {
        if self.modified {
            24
        } else {
            16
        }
    }

    fn u32_at(&self, b: &[u8], at: usize) -> u32 {
        let x = [b[at], b[at + 1], b[at + 2], b[at + 3]];
        if self.big_endian {
            u32::from_be_bytes(x)
        } else {
            u32::from_le_bytes(x)
        }
    }

    /// Total length of the next record, from the bytes available (at least the
    /// header length is needed before the record length is known).
    pub fn needed(&self, b: &[u8], ctx: Ctx) -> Result<usize, DecodeError> {
        let hl = self.header_len();
        if b.len() < hl {
            return Ok(hl);
        }
        let caplen = self.u32_at(b, 8);
        // libpcap accepts records longer than the file's snaplen (some writers get it
        // wrong) but not beyond the maximum for the link type; neither do we.
        let limit = self.snaplen.clamp(MAX_SNAPLEN, HARD_MAX_RECORD);
        if caplen > limit {
            let snap = if caplen > self.snaplen {
                format!("more than the snapshot length {}", self.snaplen)
            } else {
                format!("more than the {limit}-byte maximum")
            };
            // Point at the bad field itself (8 bytes into the record header).
            let at = ctx.offset + 8;
            let ctx = Ctx { offset: at, ..ctx };
            return Err(ctx.err(
                ErrorKind::BadLength,
                format!(
                    "Packet {} claims {caplen} captured bytes (record length field at byte {at}), {snap}: the file is damaged after packet {}.",
                    ctx.packet + 1,
                    ctx.packet
                ),
            ));
        }
        Ok(hl + caplen as usize)
    }

    /// Split one complete record (exactly `needed` bytes) into header fields and data.
    pub fn frame<'a>(&self, unit: &'a [u8], ctx: Ctx) -> Result<RawPacket<'a>, DecodeError> {
        let parsed = if self.modified {
            parse_pcap_frame_modified(unit)
        } else if self.big_endian {
            parse_pcap_frame_be(unit)
        } else {
            parse_pcap_frame(unit)
        };
        let (_, f) = parsed.map_err(|e| ctx.err(ErrorKind::Malformed, format!("Packet {} (record at byte {}) could not be read: {e}.", ctx.packet + 1, ctx.offset)))?;
        let frac_ns = if self.nanos { i64::from(f.ts_usec) } else { i64::from(f.ts_usec) * 1000 };
        Ok(RawPacket {
            link_type: self.link_type,
            data: f.data,
            orig_len: f.origlen,
            // The sub-second field counts the micro/nanoseconds "elapsed since the start
            // of that second" (draft-ietf-opsawg-pcap §5), so it is below 10^6 / 10^9; a
            // larger one is carried into the seconds, as libpcap's and Wireshark's
            // arithmetic does, and reported.
            ts_ns: Some(i64::from(f.ts_sec) * 1_000_000_000 + frac_ns),
            ts_impossible: frac_ns >= 1_000_000_000,
            dpib: None,
        })
    }
}
