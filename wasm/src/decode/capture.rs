//! Push-based capture decoding: bytes in chunks of any size → one callback per packet.
//!
//! The file is a sequence of "units" (pcap file header, pcap records, pcapng blocks).
//! For each unit the format code says how many bytes it needs (`needed`, from the
//! bytes available); whole units are decoded straight from the caller's chunk, and
//! only an incomplete unit at the end of a chunk is copied into `buf`, which is
//! topped up with exactly the bytes that unit still lacks. So memory stays at one
//! record, whatever the chunk size, and the output does not depend on chunking.

use super::frame::{Ctx, RawPacket};
use super::link::{is_supported, link_type_name};
use super::packet::decode_record;
use super::pcap::{is_pcap_magic, PcapFormat};
use super::pcapng::{NgEvent, NgFormat, SHB_TYPE};
use super::pktap::PktapHeader;
use super::process::ProcessTable;
use super::link::linktype::{PKTAP, USER2_PKTAP};
use super::{CaptureInfo, Decoded, WarningKind};
use crate::error::{DecodeError, ErrorKind, Layer};
use std::collections::HashSet;

#[derive(Clone, Debug)]
enum Format {
    /// Nothing read yet.
    Start,
    Pcap(PcapFormat),
    Pcapng(NgFormat),
}

pub struct CaptureDecoder {
    info: CaptureInfo,
    format: Format,
    /// The unconsumed start of the next unit (always shorter than that unit).
    buf: Vec<u8>,
    error: Option<DecodeError>,
    /// Timestamp of the previous packet (time order check; Simple Packet Blocks).
    prev_ts: Option<i64>,
    /// Link types and their names already in `info.link_types`.
    link_types_seen: HashSet<u32>,
    link_names_seen: HashSet<String>,
    /// Processes named by PKTAP headers and Darwin process blocks.
    processes: ProcessTable,
    /// ICMP errors quoting a TCP segment (icmp.rs), the first `icmp::MAX_KEPT`.
    icmp: Vec<super::icmp::IcmpQuote>,
}

impl Default for CaptureDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl CaptureDecoder {
    pub fn new() -> Self {
        CaptureDecoder {
            info: CaptureInfo::default(),
            format: Format::Start,
            buf: Vec::new(),
            error: None,
            prev_ts: None,
            link_types_seen: HashSet::new(),
            link_names_seen: HashSet::new(),
            processes: ProcessTable::default(),
            icmp: Vec::new(),
        }
    }

    /// Feed the next chunk of the file; `on_packet` is called once per packet.
    /// After a fatal error every later call returns the same error and decodes nothing.
    pub fn push(&mut self, chunk: &[u8], on_packet: &mut dyn FnMut(Decoded)) -> Result<(), DecodeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let result = self.push_inner(chunk, on_packet);
        if let Err(e) = &result {
            self.error = Some(e.clone());
            self.buf = Vec::new();
        }
        result
    }

    /// End of input: bytes left over in the middle of a record become a `Truncated` error.
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let ctx = self.ctx();
        let err = match (&self.format, self.buf.len()) {
            (Format::Start, 0) => Some(ctx.err(
                ErrorKind::Truncated,
                "The file is empty (0 bytes): expected a pcap or pcapng capture.".into(),
            )),
            (Format::Start, n) => Some(DecodeError::new(
                Layer::Capture,
                ErrorKind::Truncated,
                None,
                Some(0),
                format!("The file is only {n} bytes long, too short for a pcap or pcapng header."),
            )),
            (_, 0) => None,
            (f, have) => {
                let need = match f {
                    Format::Pcap(p) => p.needed(&self.buf, ctx).ok(),
                    Format::Pcapng(n) => n.needed(&self.buf, ctx).ok(),
                    Format::Start => None,
                };
                let of = need.map(|n| format!(" of {n}")).unwrap_or_default();
                Some(ctx.err(
                    ErrorKind::Truncated,
                    format!(
                        "The file ends in the middle of packet {} (the record starting at byte {}, {have}{of} bytes present): it was cut short; the {} packets before it were read.",
                        ctx.packet + 1,
                        ctx.offset,
                        ctx.packet
                    ),
                ))
            }
        };
        match err {
            Some(e) => {
                self.error = Some(e.clone());
                Err(e)
            }
            None => Ok(()),
        }
    }

    pub fn info(&self) -> &CaptureInfo {
        &self.info
    }

    /// The processes the capture named so far; `FrameMeta::process` indexes it.
    pub fn processes(&self) -> &ProcessTable {
        &self.processes
    }

    /// The ICMP errors quoting TCP segments read so far (icmp.rs).
    pub fn icmp_quotes(&self) -> &[super::icmp::IcmpQuote] {
        &self.icmp
    }

    fn ctx(&self) -> Ctx {
        Ctx { packet: self.info.packets, offset: self.info.bytes_consumed }
    }

    fn push_inner(&mut self, mut input: &[u8], on_packet: &mut dyn FnMut(Decoded)) -> Result<(), DecodeError> {
        // 1. Complete the unit whose start is buffered, taking only the bytes it lacks.
        while !self.buf.is_empty() {
            let need = self.needed(&self.buf)?;
            if self.buf.len() >= need {
                let mut unit = std::mem::take(&mut self.buf);
                self.consume(&unit[..need], on_packet)?;
                unit.drain(..need); // keeps the allocation for the next partial unit
                self.buf = unit;
                continue;
            }
            if input.is_empty() {
                return Ok(());
            }
            let take = (need - self.buf.len()).min(input.len());
            self.buf.extend_from_slice(&input[..take]);
            input = &input[take..];
        }
        // 2. Decode whole units in place; keep the incomplete tail.
        while !input.is_empty() {
            let need = self.needed(input)?;
            if input.len() < need {
                self.buf.extend_from_slice(input);
                return Ok(());
            }
            self.consume(&input[..need], on_packet)?;
            input = &input[need..];
        }
        Ok(())
    }

    /// Bytes the unit starting at `b` needs in total (may exceed `b.len()`: wait for
    /// more). A caller that hands `push` exactly one whole unit at a time (slice.rs,
    /// which copies whole records and blocks out) learns which unit each packet came from.
    pub fn unit_len(&self, b: &[u8]) -> Result<usize, DecodeError> {
        self.needed(b)
    }

    /// Bytes the next unit needs in total (may exceed `b.len()`: wait for more).
    fn needed(&self, b: &[u8]) -> Result<usize, DecodeError> {
        let ctx = self.ctx();
        match &self.format {
            Format::Start => {
                if b.len() < 4 {
                    return Ok(4);
                }
                let magic = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                if is_pcap_magic(magic) {
                    Ok(24)
                } else if magic == SHB_TYPE {
                    NgFormat::default().needed(b, ctx)
                } else {
                    Err(bad_magic(b))
                }
            }
            Format::Pcap(p) => p.needed(b, ctx),
            Format::Pcapng(n) => n.needed(b, ctx),
        }
    }

    /// Decode one complete unit.
    fn consume(&mut self, unit: &[u8], on_packet: &mut dyn FnMut(Decoded)) -> Result<(), DecodeError> {
        let ctx = self.ctx();
        if let Format::Start = self.format {
            let magic = u32::from_le_bytes([unit[0], unit[1], unit[2], unit[3]]);
            if magic == SHB_TYPE {
                self.format = Format::Pcapng(NgFormat::default());
                self.info.format = Some("pcapng");
            } else {
                let p = PcapFormat::from_header(unit)?;
                self.add_link_type(p.link_type);
                self.format = Format::Pcap(p);
                self.info.format = Some("pcap");
                self.info.interfaces = 1;
                self.info.bytes_consumed += unit.len() as u64;
                return Ok(());
            }
        }
        match &mut self.format {
            Format::Pcap(p) => {
                let raw = p.frame(unit, ctx)?;
                self.emit(raw, None, on_packet);
            }
            Format::Pcapng(ng) => match ng.block(unit, ctx)? {
                NgEvent::Nothing => {}
                NgEvent::Interface(lt) => {
                    self.info.interfaces = self.info.interfaces.saturating_add(1);
                    self.add_link_type(lt)
                }
                NgEvent::Packet(raw) => {
                    // The EPB names its DPIB by position in the section.
                    let process = raw.dpib.and_then(|i| ng.processes.get(i as usize).copied().flatten());
                    self.emit(raw, process, on_packet)
                }
                NgEvent::Process { pid, name } => {
                    let id = self.processes.intern(pid, &name);
                    ng.processes.push(id);
                }
                NgEvent::BadInterface { orig_len, ts_ns, .. } => {
                    let ts_ns = self.count_packet(orig_len, ts_ns);
                    self.warn(WarningKind::MalformedPacket);
                    on_packet(Decoded::Other { packet_index: ctx.packet, ts_ns, wire_len: orig_len });
                }
            },
            Format::Start => {}
        }
        self.info.bytes_consumed += unit.len() as u64;
        Ok(())
    }

    /// Constant time per interface: a pcapng file may describe tens of thousands of
    /// interfaces (a 2 MB file holds 65 535 IDBs), and a linear `contains` over the
    /// names made that quadratic — half a minute in the worker (issue 8).
    fn add_link_type(&mut self, lt: u32) {
        if !self.link_types_seen.insert(lt) {
            return;
        }
        let name = link_type_name(lt);
        if self.link_names_seen.insert(name.clone()) {
            self.info.link_types.push(name);
        }
    }

    fn warn(&mut self, kind: WarningKind) {
        *self.info.warnings.entry(kind).or_insert(0) += 1;
    }

    /// Count a packet in `info`; returns its timestamp (a Simple Packet Block has
    /// none and gets the previous packet's, so that it does not disturb time order).
    /// `info.first_ts_ns` is the first packet's time, `info.last_ts_ns` the latest
    /// time seen (so that last − first is the capture's span even if time steps back).
    fn count_packet(&mut self, wire_len: u32, ts_ns: Option<i64>) -> i64 {
        let ts = ts_ns.or(self.prev_ts).unwrap_or(0);
        self.info.packets += 1;
        self.info.bytes += u64::from(wire_len);
        if self.info.first_ts_ns.is_none() {
            self.info.first_ts_ns = Some(ts);
        }
        if matches!(self.prev_ts, Some(prev) if ts < prev) {
            self.warn(WarningKind::TimeWentBackwards);
        }
        self.prev_ts = Some(ts);
        self.info.last_ts_ns = Some(self.info.last_ts_ns.map_or(ts, |l| l.max(ts)));
        ts
    }

    /// `process`: the packet's process from its pcapng block, if any; PKTAP headers
    /// name theirs in the frame.
    fn emit(&mut self, raw: RawPacket<'_>, mut process: Option<u32>, on_packet: &mut dyn FnMut(Decoded)) {
        let packet_index = self.info.packets;
        // A record whose original length is below its captured length is bogus;
        // the captured bytes are real, so count those.
        let wire_len = raw.orig_len.max(raw.data.len() as u32);
        let ts_ns = self.count_packet(wire_len, raw.ts_ns);
        if raw.ts_impossible {
            self.warn(WarningKind::ImpossibleTimestamp);
        }
        let mut unread_subframes = 0;
        let result = if is_supported(raw.link_type) {
            decode_record(raw.link_type, raw.data, wire_len, packet_index, ts_ns, &mut unread_subframes)
        } else {
            Err(WarningKind::UnknownLinkType)
        };
        // An 802.11 A-MSDU's subframes after its first (packet.rs `decode_record`).
        if unread_subframes > 0 {
            *self.info.warnings.entry(WarningKind::AmsduSubframe).or_insert(0) += u64::from(unread_subframes);
        }
        match result {
            Ok(mut seg) => {
                if matches!(raw.link_type, PKTAP | USER2_PKTAP) {
                    if let Some((pid, name)) = PktapHeader::parse(raw.data).ok().and_then(|h| h.process()) {
                        process = self.processes.intern(pid, name);
                    }
                }
                seg.meta.process = process;
                seg.meta.bits.set_ts_impossible(raw.ts_impossible);
                on_packet(Decoded::Tcp(seg))
            }
            Err(kind) => {
                self.warn(kind);
                if kind == WarningKind::NotTcp && self.icmp.len() < super::icmp::MAX_KEPT {
                    self.icmp.extend(super::icmp::read(raw.link_type, raw.data, packet_index, ts_ns));
                }
                if kind == WarningKind::TcpFragment {
                    self.info.tcp_fragment_bytes += u64::from(wire_len);
                }
                on_packet(Decoded::Other { packet_index, ts_ns, wire_len });
            }
        }
    }
}

/// The error for a file that is not a capture, naming what it looks like.
fn bad_magic(b: &[u8]) -> DecodeError {
    let hex: Vec<String> = b.iter().take(4).map(|x| format!("{x:02x}")).collect();
    let looks = if b.starts_with(&[0x89, b'P', b'N', b'G']) {
        " (this looks like a PNG image)"
    } else if b.starts_with(&[0x1f, 0x8b]) {
        " (this looks like a gzip file: decompress it first)"
    } else if b.starts_with(b"PK") {
        " (this looks like a zip archive: extract the capture first)"
    } else if b.iter().take(4).all(|c| c.is_ascii_graphic() || c.is_ascii_whitespace()) {
        " (this looks like a text file, e.g. HTML or a text export)"
    } else {
        ""
    };
    DecodeError::new(
        Layer::Capture,
        ErrorKind::BadMagic,
        None,
        Some(0),
        format!(
            "Not a capture file: it starts with {}{looks}; expected a pcap magic number (a1b2c3d4 or a1b23c4d, in either byte order) or a pcapng section header (0a0d0d0a).",
            hex.join(" ")
        ),
    )
}
