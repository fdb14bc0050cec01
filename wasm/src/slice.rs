//! Save for Wireshark (issue 42, item 6): the packets of one connection (optionally
//! within a time range) copied out of a capture into a pcapng file, byte for byte, with
//! their original timestamps, so the evidence can be attached to a ticket or opened in
//! Wireshark.
//!
//! Streaming, memory bounded: the capture goes through in chunks of any size; each
//! whole unit (pcap record, pcapng block) is handed to the one decoder
//! (decode::CaptureDecoder) alone, so the decoder's packet callback says which unit a
//! packet came from, and the unit is either written out whole or dropped. What is held
//! is one incomplete unit (at most the decoder's record cap, pcap.rs HARD_MAX_RECORD)
//! and, per connection of the file, its 4-tuple key and two base sequence numbers (the
//! connection numbering below; the analyzer keeps far more per connection). The output
//! of a chunk is returned with it and never accumulated here.
//!
//! Several connections can be sliced in one pass (the compare view's pair, `tcpscope
//! slice --connection A --connection B`), each with its own range: one section, the
//! packets in the capture's order. A gzip capture is inflated by the platform and
//! handed over with its compressed count ([`Slicer::push_inflated`]): the caps of
//! inflate.rs (size and ratio) stop a gzip bomb here as they stop the analysis.
//!
//! Connections are numbered as the analyzer numbers them (analysis/run/analyzer.rs): in
//! order of first packet, by direction-independent 4-tuple, with Wireshark's rule that a
//! SYN with a new ISN on a known 4-tuple starts the next connection (tcp.stream,
//! connections.rs `starts_new_connection`, base sequence numbers as Wireshark sets them).
//! So "connection N" here is connection N of the report.
//!
//! Output is always pcapng (draft-ietf-opsawg-pcapng):
//! - pcapng input: every Section Header Block and Interface Description Block is copied
//!   as it is (section comments, interface names, descriptions, filters, time
//!   resolutions kept), so the kept packet blocks' interface ids still name the same
//!   interfaces; the kept Enhanced/Simple/obsolete Packet Blocks are copied as they are
//!   (their comments and flags kept); other blocks (name resolution, decryption
//!   secrets, process information, custom) are copied too, except Interface Statistics
//!   Blocks, whose counters describe the whole capture, not the slice (§4.6).
//! - pcap input: one SHB and one IDB (the file's link type and snapshot length, and
//!   if_tsresol 9 for a nanosecond file, §4.2), then one EPB per kept record with the
//!   record's timestamp in the file's own resolution, captured and original lengths and
//!   bytes unchanged.

use std::net::IpAddr;

use crate::analysis::connections::{starts_new_connection, ConnTable, FlowKey, Lookup};
use crate::decode::{tcp_flags, CaptureDecoder, Decoded, TcpSegment};
use crate::error::{DecodeError, ErrorKind, Layer};
use crate::inflate::inflate_limit;

/// Which packets to keep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SliceRequest {
    /// The connection's id in the report.
    pub connection: u32,
    /// Seconds since the first packet of the file (the charts' time axis), inclusive;
    /// None: from the connection's start / to its end.
    pub from_s: Option<f64>,
    pub to_s: Option<f64>,
}

/// What a finished slice holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SliceStats {
    /// Packets of the capture read.
    pub packets_read: u64,
    /// Packets written (the connection's, in the range).
    pub packets_kept: u64,
    /// Bytes of pcapng written.
    pub bytes_written: u64,
    /// TCP connections of the capture, numbered as the report numbers them.
    pub connections: u64,
    /// Inflated bytes of a gzip capture (0 for one read as it is).
    pub inflated: u64,
}

const SHB: u32 = 0x0A0D_0D0A;
const IDB: u32 = 1;
const OBSOLETE_PB: u32 = 2;
const SPB: u32 = 3;
const ISB: u32 = 5;
const EPB: u32 = 6;
const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;

/// The input's framing, as far as copying needs it.
enum Input {
    Start,
    /// A pcap file: the fields the EPBs need (pcap.rs reads the same header).
    Pcap { big_endian: bool, nanos: bool, record_header: usize },
    /// A pcapng section: its byte order (block types are read in it).
    Pcapng { big_endian: bool },
}

/// A connection as the numbering needs it: who sent its first packet, and each
/// direction's base sequence number once known (direction 0: the first sender).
struct Tracked {
    first: (IpAddr, u16),
    base: [Option<u32>; 2],
}

pub struct Slicer {
    /// What to keep; a packet is kept when any request selects it.
    requests: Vec<SliceRequest>,
    /// Packets kept per request (a packet two requests select counts for the first).
    kept: Vec<u64>,
    decoder: CaptureDecoder,
    input: Input,
    /// The start of a unit whose end has not arrived (always shorter than that unit).
    buf: Vec<u8>,
    table: ConnTable,
    conns: Vec<Tracked>,
    stats: SliceStats,
    /// Largest `buf` capacity so far (the memory bound, asserted by tests).
    peak_buffer: usize,
}

impl Slicer {
    pub fn new(request: SliceRequest) -> Self {
        Slicer::of(vec![request])
    }

    /// One pass keeping the packets of every request (each its connection and range).
    pub fn of(requests: Vec<SliceRequest>) -> Self {
        Slicer {
            kept: vec![0; requests.len()],
            requests,
            decoder: CaptureDecoder::new(),
            input: Input::Start,
            buf: Vec::new(),
            table: ConnTable::default(),
            conns: Vec::new(),
            stats: SliceStats::default(),
            peak_buffer: 0,
        }
    }

    /// `push` for the inflated bytes of a gzip capture, `compressed` being the compressed
    /// bytes read so far: refused with inflate.rs's sentence (a `TooLarge` error, the
    /// chunk not sliced) once the inflated total breaks its size or ratio cap.
    pub fn push_inflated(&mut self, chunk: &[u8], compressed: u64, out: &mut Vec<u8>) -> Result<(), DecodeError> {
        let inflated = self.stats.inflated + chunk.len() as u64;
        if let Some(message) = inflate_limit(compressed, inflated) {
            return Err(DecodeError::new(Layer::Capture, ErrorKind::TooLarge, None, Some(self.stats.inflated), message));
        }
        self.stats.inflated = inflated;
        self.push(chunk, out)
    }

    /// The next chunk of the capture; the pcapng bytes it completes are appended to `out`.
    pub fn push(&mut self, mut chunk: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
        // A unit begun in an earlier chunk: top it up with exactly the bytes it lacks.
        while !self.buf.is_empty() {
            let need = self.decoder.unit_len(&self.buf)?;
            if self.buf.len() >= need {
                let unit = std::mem::take(&mut self.buf);
                self.unit(&unit[..need], out)?;
                self.buf = unit[need..].to_vec();
                continue;
            }
            if chunk.is_empty() {
                return Ok(());
            }
            let take = (need - self.buf.len()).min(chunk.len());
            self.buf.extend_from_slice(&chunk[..take]);
            self.peak_buffer = self.peak_buffer.max(self.buf.capacity());
            chunk = &chunk[take..];
        }
        // Whole units straight from the chunk; the incomplete tail is kept.
        while !chunk.is_empty() {
            let need = self.decoder.unit_len(chunk)?;
            if chunk.len() < need {
                self.buf.extend_from_slice(chunk);
                self.peak_buffer = self.peak_buffer.max(self.buf.capacity());
                return Ok(());
            }
            self.unit(&chunk[..need], out)?;
            chunk = &chunk[need..];
        }
        Ok(())
    }

    /// End of the capture: what was written, or why the capture could not be read to
    /// its end (a file cut short: the slice written so far is still a whole pcapng).
    pub fn finish(&mut self) -> Result<SliceStats, DecodeError> {
        if !self.buf.is_empty() {
            // The decoder names where the file was cut.
            let rest = std::mem::take(&mut self.buf);
            self.decoder.push(&rest, &mut |_| {})?;
        }
        self.decoder.finish()?;
        Ok(self.stats)
    }

    pub fn stats(&self) -> SliceStats {
        self.stats
    }

    /// One more request (before the first chunk: it selects only packets pushed after it).
    pub fn add(&mut self, request: SliceRequest) {
        self.requests.push(request);
        self.kept.push(0);
    }

    /// Packets kept per request, in the order of [`Slicer::of`].
    pub fn kept(&self) -> &[u64] {
        &self.kept
    }

    /// The most bytes the slicer held for an incomplete unit.
    pub fn peak_buffer(&self) -> usize {
        self.peak_buffer
    }

    /// One whole unit: decoded alone, then written out or dropped.
    fn unit(&mut self, unit: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
        let mut got: Option<Decoded> = None;
        self.decoder.push(unit, &mut |d| got = Some(d))?;
        let selected = match &got {
            Some(Decoded::Tcp(seg)) => self.selects(seg),
            _ => None,
        };
        if got.is_some() {
            self.stats.packets_read += 1;
        }
        let before = out.len();
        match self.input {
            Input::Start => self.first_unit(unit, out),
            Input::Pcap { big_endian, nanos, record_header } => {
                if selected.is_some() {
                    pcap_record_as_epb(unit, big_endian, nanos, record_header, out);
                }
            }
            Input::Pcapng { big_endian } => {
                let kind = u32_in(unit, 0, big_endian);
                if kind == SHB {
                    // A new section may change the byte order (§4.1).
                    self.input = Input::Pcapng { big_endian: section_is_big_endian(unit) };
                    out.extend_from_slice(unit);
                } else if matches!(kind, EPB | SPB | OBSOLETE_PB) {
                    if selected.is_some() {
                        out.extend_from_slice(unit);
                    }
                } else if kind != ISB {
                    out.extend_from_slice(unit);
                }
            }
        }
        if let Some(r) = selected.filter(|_| out.len() > before) {
            self.stats.packets_kept += 1;
            self.kept[r] += 1;
        }
        self.stats.bytes_written += (out.len() - before) as u64;
        Ok(())
    }

    /// The file's first unit (the decoder accepted it): a pcap header, or a pcapng SHB.
    fn first_unit(&mut self, unit: &[u8], out: &mut Vec<u8>) {
        if u32::from_le_bytes([unit[0], unit[1], unit[2], unit[3]]) == SHB {
            self.input = Input::Pcapng { big_endian: section_is_big_endian(unit) };
            out.extend_from_slice(unit);
            return;
        }
        // pcap.rs accepted this header: magic a1b2c3d4 (µs), a1b23c4d (ns) or a1b2cd34
        // (Kuznetzov "modified", 24-byte record headers), in either byte order.
        let magic_le = u32::from_le_bytes([unit[0], unit[1], unit[2], unit[3]]);
        let big_endian = !matches!(magic_le, 0xa1b2_c3d4 | 0xa1b2_3c4d | 0xa1b2_cd34);
        let magic = if big_endian { magic_le.swap_bytes() } else { magic_le };
        let nanos = magic == 0xa1b2_3c4d;
        let record_header = if magic == 0xa1b2_cd34 { 24 } else { 16 };
        let snaplen = u32_in(unit, 16, big_endian);
        // The LinkType field's low 16 bits; the high bits are FCS information (pcap draft §4).
        let link_type = (u32_in(unit, 20, big_endian) & 0xFFFF) as u16;
        self.input = Input::Pcap { big_endian, nanos, record_header };
        write_shb(out);
        write_idb(out, link_type, snaplen, nanos);
    }

    /// Numbers the segment's connection as the analyzer does; the first request whose
    /// connection it is and whose range holds it.
    fn selects(&mut self, seg: &TcpSegment) -> Option<usize> {
        let key = FlowKey::of(seg);
        let dir = |t: &Tracked| usize::from((seg.src, seg.src_port) != t.first);
        let index = match self.table.lookup(&key) {
            Lookup::Existing(i) => {
                let t = &self.conns[i as usize];
                if starts_new_connection(seg, t.base[dir(t)]) {
                    self.open(key, seg)
                } else {
                    i
                }
            }
            Lookup::New => self.open(key, seg),
        };
        // Wireshark's base_seq, set once per direction (track/conn.rs `Conn::push`).
        let t = &mut self.conns[index as usize];
        let d = dir(t);
        if t.base[d].is_none() {
            t.base[d] = Some(if seg.flags & tcp_flags::SYN != 0 { seg.seq } else { seg.seq.wrapping_sub(1) });
        }
        if seg.flags & tcp_flags::ACK != 0 && t.base[1 - d].is_none() {
            t.base[1 - d] = Some(seg.ack.wrapping_sub(1));
        }
        // Seconds since the file's first packet, as every time the page shows.
        let t0 = self.decoder.info().first_ts_ns.unwrap_or(seg.ts_ns);
        let t = (seg.ts_ns - t0) as f64 / 1e9;
        self.requests.iter().position(|r| r.connection == index && r.from_s.is_none_or(|from| t >= from) && r.to_s.is_none_or(|to| t <= to))
    }

    fn open(&mut self, key: FlowKey, seg: &TcpSegment) -> u32 {
        let index = self.conns.len() as u32;
        self.conns.push(Tracked { first: (seg.src, seg.src_port), base: [None, None] });
        self.table.insert(key, index);
        self.stats.connections += 1;
        index
    }
}

/// Slices a whole capture held in memory (tests, small inputs); `chunk_size` ≥ 1.
pub fn slice_bytes(bytes: &[u8], request: SliceRequest, chunk_size: usize) -> Result<(Vec<u8>, SliceStats), DecodeError> {
    let mut slicer = Slicer::new(request);
    let mut out = Vec::new();
    for chunk in bytes.chunks(chunk_size.max(1)) {
        slicer.push(chunk, &mut out)?;
    }
    let stats = slicer.finish()?;
    Ok((out, stats))
}

/// [`slice_bytes`] for several requests in one pass; also the packets kept per request.
pub fn slice_many_bytes(bytes: &[u8], requests: Vec<SliceRequest>, chunk_size: usize) -> Result<(Vec<u8>, SliceStats, Vec<u64>), DecodeError> {
    let mut slicer = Slicer::of(requests);
    let mut out = Vec::new();
    for chunk in bytes.chunks(chunk_size.max(1)) {
        slicer.push(chunk, &mut out)?;
    }
    let stats = slicer.finish()?;
    Ok((out, stats, slicer.kept().to_vec()))
}

/// Why a request cannot be sliced, for people (None: it can).
pub fn request_problem(request: &SliceRequest) -> Option<DecodeError> {
    let bad = |what: String| Some(DecodeError::new(Layer::Capture, ErrorKind::Malformed, None, None, what));
    match (request.from_s, request.to_s) {
        (Some(f), _) if !f.is_finite() => bad(format!("the range start {f} is not a number of seconds")),
        (_, Some(t)) if !t.is_finite() => bad(format!("the range end {t} is not a number of seconds")),
        (Some(f), Some(t)) if t < f => bad(format!("the range ends ({t} s) before it starts ({f} s)")),
        _ => None,
    }
}

fn u32_in(b: &[u8], at: usize, big_endian: bool) -> u32 {
    let x = [b[at], b[at + 1], b[at + 2], b[at + 3]];
    if big_endian {
        u32::from_be_bytes(x)
    } else {
        u32::from_le_bytes(x)
    }
}

/// An SHB's byte-order magic (§4.1) read little-endian: 0x1A2B3C4D unless big-endian.
fn section_is_big_endian(shb: &[u8]) -> bool {
    u32_in(shb, 8, false) != BYTE_ORDER_MAGIC
}

/// Section Header Block (§4.1), little-endian, version 1.0, section length unknown (-1).
fn write_shb(out: &mut Vec<u8>) {
    out.extend_from_slice(&SHB.to_le_bytes());
    out.extend_from_slice(&28u32.to_le_bytes());
    out.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(-1i64).to_le_bytes());
    out.extend_from_slice(&28u32.to_le_bytes());
}

/// Interface Description Block (§4.2); a nanosecond pcap gets if_tsresol = 9 (option 9:
/// 10^-9 s units), a microsecond one the default (10^-6 s) and no option.
fn write_idb(out: &mut Vec<u8>, link_type: u16, snaplen: u32, nanos: bool) {
    let options: &[u8] = if nanos { &[9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0] } else { &[] };
    let len = 20 + options.len() as u32;
    out.extend_from_slice(&IDB.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&link_type.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&snaplen.to_le_bytes());
    out.extend_from_slice(options);
    out.extend_from_slice(&len.to_le_bytes());
}

/// A pcap record (16-byte header: ts_sec, ts_frac, caplen, origlen; 24 bytes in the
/// modified format) as an Enhanced Packet Block (§4.3) on interface 0, its timestamp
/// in the IDB's units: ts_sec × 10^6 (or 10^9) + ts_frac, the record's own value.
fn pcap_record_as_epb(record: &[u8], big_endian: bool, nanos: bool, header: usize, out: &mut Vec<u8>) {
    let sec = u64::from(u32_in(record, 0, big_endian));
    let frac = u64::from(u32_in(record, 4, big_endian));
    let caplen = u32_in(record, 8, big_endian);
    let origlen = u32_in(record, 12, big_endian);
    let data = &record[header..header + caplen as usize];
    let ts = sec * if nanos { 1_000_000_000 } else { 1_000_000 } + frac;
    let padded = data.len().div_ceil(4) * 4;
    let len = (32 + padded) as u32;
    out.extend_from_slice(&EPB.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&((ts >> 32) as u32).to_le_bytes());
    out.extend_from_slice(&(ts as u32).to_le_bytes());
    out.extend_from_slice(&caplen.to_le_bytes());
    out.extend_from_slice(&origlen.to_le_bytes());
    out.extend_from_slice(data);
    out.resize(out.len() + padded - data.len(), 0);
    out.extend_from_slice(&len.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epb_keeps_the_record_timestamp_lengths_and_bytes() {
        // ts 1.000002 s, 5 bytes captured of 60 on the wire.
        let mut rec = Vec::new();
        for v in [1u32, 2, 5, 60] {
            rec.extend_from_slice(&v.to_le_bytes());
        }
        rec.extend_from_slice(b"abcde");
        let mut out = Vec::new();
        pcap_record_as_epb(&rec, false, false, 16, &mut out);
        assert_eq!(out.len(), 32 + 8, "5 bytes padded to 8 (§4.3: 32-bit alignment)");
        assert_eq!(u32_in(&out, 4, false), 40);
        assert_eq!(u32_in(&out, out.len() - 4, false), 40, "the trailing length repeats the leading one");
        // 1 s × 10^6 + 2 µs = 1,000,002 units (the IDB's default 10^-6 s resolution).
        assert_eq!((u64::from(u32_in(&out, 12, false)) << 32) | u64::from(u32_in(&out, 16, false)), 1_000_002);
        assert_eq!([u32_in(&out, 20, false), u32_in(&out, 24, false)], [5, 60]);
        assert_eq!(&out[28..33], b"abcde");
    }

    #[test]
    fn a_reversed_range_is_refused() {
        assert!(request_problem(&SliceRequest { connection: 0, from_s: Some(2.0), to_s: Some(1.0) }).is_some());
        assert!(request_problem(&SliceRequest { connection: 0, from_s: Some(f64::NAN), to_s: None }).is_some());
        assert!(request_problem(&SliceRequest { connection: 0, from_s: Some(1.0), to_s: Some(2.0) }).is_none());
    }
}
