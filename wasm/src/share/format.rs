//! The snapshot container and its one parser.
//!
//! Header (11 bytes, uncompressed, so a newer or foreign snapshot is recognised
//! before any work; the same in every format version):
//!   "TCPS" | format (u8) | report schema (u16 LE) | payload length (u32 LE)
//! Formats 1 and 2: then the payload, raw deflate. Format 1 is the first round's
//! per-packet snapshot (web/share, read by legacy.rs); format 2 holds view answers:
//!   uvarint length + UTF-8 JSON {name, view, report (no connections), summary} (meta.rs)
//!   f64 t0 | f64 t1 | uvarint columns          — the link's grid
//!   uvarint series, each: u8 series | u8 direction | notes | answer (answers.rs)
//! Format 3 (written since issue 15's coder): uvarint length of the deflated part,
//! the deflated part (the payload as in format 2, except that point answers hold only
//! their scalars there), then the range-coded integer streams of the point answers
//! (coded.rs, coder.rs) to the end.
//! Format 4 (written since links list only the stalls the shared view shows, build.rs):
//! the bytes of format 3; its summary may leave a direction's stalls out, or list
//! only some, and then says how many there were (`stallCount`, meta.rs). A page that
//! reads formats up to 3 would show such a direction with fewer stalls than it had,
//! so these links carry a new format number and older pages refuse them.

use super::answer_bytes::{self, Detail};
use super::answers::{Grid, Quant, StoredData, StoredPoints};
use super::bytes::{self, error, Reader, Writer};
use super::coded::{self, Prepared};
use super::coder::{Decoder, Encoder};
use super::legacy;
use super::meta::{self, Meta};
use crate::error::{DecodeError, ErrorKind};
use crate::view::request::{MAX_ABS_T, MAX_COLUMNS};
use crate::view::Series;

pub const MAGIC: &[u8; 4] = b"TCPS";
pub const FORMAT: u8 = 4;
const HEADER_BYTES: usize = 11;
/// Cap on a payload (format 1 files carry packets: up to this much), against zip bombs.
pub const MAX_PAYLOAD_BYTES: usize = 64 << 20;
/// What a snapshot of view answers (formats 2 to 4) may unpack to (issue 45, item 9).
/// Links we make are at most 8 KB of text and unpack to well under 1 MiB; a stored answer
/// is at most a few points per pixel column, so 8 MiB bounds what any honest link of
/// these formats holds, and the memory opening one takes (tens of MB).
pub const MAX_ANSWERS_PAYLOAD_BYTES: usize = 8 << 20;
/// Longest JSON part.
const MAX_META_BYTES: u64 = 4 << 20;
/// Series in the order of their code in the payload (new series go at the end).
pub const SERIES: [Series; 21] = [
    Series::Throughput, Series::Goodput, Series::Wire, Series::Inflight, Series::Rwnd,
    Series::WindowLimited, Series::Rtt, Series::Sequence, Series::Stalls, Series::Ack, Series::WindowEdge,
    Series::Pipe, Series::Retransmissions, Series::DuplicateAcks, Series::ZeroWindows,
    Series::CeMarks, Series::Ece, Series::Cwr, Series::Ecn, Series::MptcpData, Series::SenderInflight,
];

#[derive(Clone, Debug, PartialEq)]
pub struct StoredSeries {
    pub series: Series,
    pub direction: u8,
    /// The engine's notes on the series (window scale unknown, …).
    pub notes: Vec<String>,
    /// Stalls: the threshold they were found with, ms.
    pub stall_threshold_ms: Option<f64>,
    /// `senderInflight`: the engine's error bound, bytes (`ViewResponse::error_bound`);
    /// written after the notes of that series only (no older link holds it), −1 for none.
    pub error_bound: Option<f64>,
    pub data: StoredData,
}

/// A format-2 snapshot: view answers on the link's grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub meta: Meta,
    pub grid: Grid,
    pub series: Vec<StoredSeries>,
}

/// What a snapshot's bytes hold.
pub enum Parsed {
    Answers(Snapshot),
    Packets(legacy::Legacy),
}

fn json_meta(w: &mut Writer, meta: &serde_json::Value) {
    let text = meta.to_string();
    w.str(&text);
}

fn head(w: &mut Writer, meta_json: &serde_json::Value, grid: &Grid, series: usize) {
    json_meta(w, meta_json);
    w.f64(grid.t0);
    w.f64(grid.t1);
    w.uvarint(grid.columns as u64);
    w.uvarint(series as u64);
}

fn series_head(w: &mut Writer, s: &StoredSeries) {
    w.byte(SERIES.iter().position(|&x| x == s.series).unwrap_or(0) as u8);
    w.byte(s.direction);
    w.uvarint(s.notes.len() as u64);
    for n in &s.notes {
        w.str(n);
    }
    if s.series == Series::Stalls {
        w.f64(s.stall_threshold_ms.unwrap_or(-1.0));
    }
    if s.series == Series::SenderInflight {
        w.f64(s.error_bound.unwrap_or(-1.0));
    }
}

fn header(format: u8, payload_len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES);
    out.extend_from_slice(MAGIC);
    out.push(format);
    out.extend_from_slice(&(crate::SCHEMA_VERSION as u16).to_le_bytes());
    out.extend_from_slice(&(payload_len as u32).to_le_bytes());
    out
}

/// A format-4 snapshot (format 3's bytes, build.rs's stall lists). `detail`: steps of the value grids and which details of the
/// columns are kept (answers.rs, coded.rs).
pub fn encode(meta_json: &serde_json::Value, grid: &Grid, series: &[StoredSeries], detail: Detail) -> Vec<u8> {
    let mut w = Writer::default();
    let mut c = Encoder::default();
    head(&mut w, meta_json, grid, series.len());
    let mut earlier: Vec<(usize, Prepared)> = Vec::new();
    for (index, s) in series.iter().enumerate() {
        series_head(&mut w, s);
        match &s.data {
            StoredData::Points(p) => {
                w.byte(1);
                let this = Prepared::new(p, s.series, detail.levels);
                coded::write(&mut w, &mut c, index, &this, &earlier, detail);
                earlier.push((index, this));
            }
            StoredData::Intervals(i) => {
                w.byte(2);
                coded::write_spans(&mut w, &mut c, index, i);
            }
            data => answer_bytes::write(&mut w, data, s.series, detail),
        }
    }
    let packed = bytes::deflate(&w.buf);
    let mut out = header(FORMAT, w.buf.len());
    let mut length = Writer::default();
    length.uvarint(packed.len() as u64);
    out.extend_from_slice(&length.buf);
    out.extend_from_slice(&packed);
    out.extend_from_slice(&c.finish());
    out
}

/// A format-2 snapshot (as links made before format 3 hold them): kept so that the
/// tests can make such links and check that they still open.
pub fn encode_v2(meta_json: &serde_json::Value, grid: &Grid, series: &[StoredSeries], detail: Detail) -> Vec<u8> {
    let mut w = Writer::default();
    head(&mut w, meta_json, grid, series.len());
    for s in series {
        series_head(&mut w, s);
        answer_bytes::write(&mut w, &s.data, s.series, detail);
    }
    let mut out = header(2, w.buf.len());
    out.extend_from_slice(&bytes::deflate(&w.buf));
    out
}

/// The one parser: header, inflate, meta checks, then the answers (format 2) or
/// the packet columns (format 1). Every failure is a sentence for the user.
pub fn parse(data: &[u8]) -> Result<Parsed, DecodeError> {
    if data.len() < 4 || &data[..4] != MAGIC {
        return Err(error(ErrorKind::BadMagic, 0, "This is not a tcpscope snapshot (its signature is wrong); the link may have been cut or altered."));
    }
    if data.len() < HEADER_BYTES {
        return Err(damaged(error(ErrorKind::Truncated, data.len(), "it is cut short")));
    }
    let format = data[4];
    if format > FORMAT {
        return Err(error(ErrorKind::Unsupported, 4, format!("This link was made by a newer tcpscope (snapshot format {format}); this page reads formats 1 to {FORMAT}.")));
    }
    if format == 0 {
        return Err(damaged(error(ErrorKind::BadHeader, 4, "unknown snapshot format 0")));
    }
    let schema = u16::from_le_bytes([data[5], data[6]]) as u32;
    if schema != crate::SCHEMA_VERSION {
        let which = if schema > crate::SCHEMA_VERSION { "a newer" } else { "an older" };
        return Err(error(ErrorKind::Unsupported, 5, format!("This link holds data of {which} schema ({schema}); this page reads schema {}.", crate::SCHEMA_VERSION)));
    }
    let length = u32::from_le_bytes([data[7], data[8], data[9], data[10]]) as usize;
    if length > MAX_PAYLOAD_BYTES {
        return Err(damaged(error(ErrorKind::BadLength, 7, format!("it claims {} MB of data, more than the {} MB limit", length >> 20, MAX_PAYLOAD_BYTES >> 20))));
    }
    // Format 1 is bounded by its packet count (legacy::MAX_PACKETS), the others here.
    if format >= 2 && length > MAX_ANSWERS_PAYLOAD_BYTES {
        return Err(damaged(error(ErrorKind::TooLarge, 7, format!("it claims {} MB of data, more than the {} MB a link of view answers may unpack to", length >> 20, MAX_ANSWERS_PAYLOAD_BYTES >> 20))));
    }
    // Formats 3 and 4: the deflated part's length, the deflated part, the coded part.
    let (packed, coded) = if format >= 3 {
        let mut r = Reader::new(&data[HEADER_BYTES..]);
        let n = r.uvarint("the packed part's length").map_err(damaged)?;
        if n > r.remaining() as u64 {
            return Err(damaged(error(ErrorKind::Truncated, HEADER_BYTES, format!("it is cut short: its packed part of {n} bytes is longer than the {} bytes that follow", r.remaining()))));
        }
        let packed = r.bytes(n as usize, "the packed part").map_err(damaged)?;
        (packed, Some(&data[HEADER_BYTES + r.pos..]))
    } else {
        (&data[HEADER_BYTES..], None)
    };
    let payload = bytes::inflate(packed, length, HEADER_BYTES).map_err(damaged)?;
    if payload.len() != length {
        return Err(damaged(error(ErrorKind::BadLength, 7, format!("it holds {} bytes of data instead of {length}", payload.len()))));
    }
    let mut r = Reader::new(&payload);
    let mut decoder = coded.map(Decoder::new);
    let parsed = body(&mut r, format, decoder.as_mut());
    let parsed = parsed.and_then(|p| if r.remaining() == 0 { Ok(p) } else { Err(r.fail(format!("{} unexpected bytes follow the data", r.remaining()))) });
    let parsed = parsed.and_then(|p| decoder.as_ref().map_or(Ok(()), Decoder::finish).map(|_| p));
    parsed.map_err(damaged)
}

/// `coded`: the decoder of a format-3 link's coded part.
fn body(r: &mut Reader, format: u8, mut coded: Option<&mut Decoder>) -> Result<Parsed, DecodeError> {
    let text = r.str(MAX_META_BYTES as usize, "the summary")?;
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| r.fail(format!("the summary is not valid JSON ({e})")))?;
    let meta = meta::parse(value).map_err(|why| r.fail(why))?;
    if format == 1 {
        return legacy::read(r, meta).map(Parsed::Packets);
    }
    let t0 = r.finite(MAX_ABS_T, "the view's start")?;
    let t1 = r.finite(MAX_ABS_T, "the view's end")?;
    if t1 <= t0 {
        // fmt_t: a denormal edge is "-1.28e-238", not 240 characters of "-0.000…0128" (issue 45).
        return Err(r.fail(format!("the view ends ({} s) before it starts ({} s)", crate::view::request::fmt_t(t1), crate::view::request::fmt_t(t0))));
    }
    let columns = r.count(MAX_COLUMNS as u64, "the column count")? as u32;
    if columns == 0 {
        return Err(r.fail("the view has no pixel columns"));
    }
    let grid = Grid { t0, t1, columns };
    let n = r.count(2 * SERIES.len() as u64, "the series count")?;
    let mut series = Vec::new();
    let mut earlier: Vec<(usize, StoredPoints, Quant)> = Vec::new();
    for index in 0..n as usize {
        let code = r.byte("a series")?;
        let s = *SERIES.get(code as usize).ok_or_else(|| r.fail(format!("unknown series {code} (a newer tcpscope made this link)")))?;
        let direction = r.byte("a direction")?;
        if direction > 1 {
            return Err(r.fail(format!("direction {direction} does not exist")));
        }
        let mut notes = Vec::new();
        for _ in 0..r.count(8, "the note count")? {
            notes.push(r.str(500, "a note")?.to_string());
        }
        let stall_threshold_ms = match s {
            Series::Stalls => Some(r.finite(1e12, "the stall threshold")?).filter(|&ms| ms > 0.0),
            _ => None,
        };
        let error_bound = match s {
            Series::SenderInflight => Some(r.finite(1e15, "the error bound")?).filter(|&b| b >= 0.0),
            _ => None,
        };
        let kind = r.byte("the kind of a series")?;
        let data = match coded.as_deref_mut() {
            Some(c) if kind == 1 => {
                let (p, q) = coded::read(r, c, index, s, columns, &earlier)?;
                earlier.push((index, p.clone(), q));
                StoredData::Points(p)
            }
            Some(c) if kind == 2 => StoredData::Intervals(coded::read_spans(r, c, index, &grid)?),
            _ => answer_bytes::read_kind(r, kind, &grid)?,
        };
        let fits = match &data {
            StoredData::Rates(_) => s.is_rate(),
            StoredData::Points(_) => matches!(s, Series::Inflight | Series::Rwnd | Series::Pipe | Series::Rtt | Series::Sequence | Series::Ack | Series::WindowEdge | Series::Ecn | Series::SenderInflight),
            StoredData::Intervals(_) => matches!(s, Series::WindowLimited | Series::Stalls),
            StoredData::SummaryStalls | StoredData::SummaryStallsInView { .. } => s == Series::Stalls,
        };
        if !fits {
            return Err(r.fail(format!("the {s:?} series holds the wrong kind of data")));
        }
        series.push(StoredSeries { series: s, direction, notes, stall_threshold_ms, error_bound, data });
    }
    Ok(Parsed::Answers(Snapshot { meta, grid, series }))
}

fn damaged(e: DecodeError) -> DecodeError {
    DecodeError { message: format!("This snapshot is damaged and cannot be shown ({}).", e.message), ..e }
}

/// The snapshot bytes named by a link's fragment (`#c=1&snap=…`), None when it names none.
/// Keys are read as the page's URLSearchParams reads them (percent-decoded, `+` a space),
/// so `#sn%61p=A` names a snapshot here too; a fragment naming two (`#snap=A&sn%61p=B`)
/// is refused, not read one way by the CLI and another by the page (issue 45, item 13).
pub fn from_fragment(fragment: &str) -> Result<Option<Vec<u8>>, DecodeError> {
    fragment_bytes(fragment, "snap", "snapshot").map_err(damaged)
}

/// The bytes of the base64url value of `key` in a link's fragment, None when it has none;
/// read as [`from_fragment`] reads `snap=` (`what` names the value in messages). Errors
/// are the bare reason: the caller says what is damaged.
pub fn fragment_bytes(fragment: &str, key: &str, what: &str) -> Result<Option<Vec<u8>>, DecodeError> {
    let mut found: Option<String> = None;
    for part in fragment.trim_start_matches('#').split('&') {
        let (k, value) = part.split_once('=').unwrap_or((part, ""));
        if url_decode(k) != key {
            continue;
        }
        if found.is_some() {
            return Err(error(ErrorKind::Malformed, 0, format!("the link names two {what}s ({key}= twice)")));
        }
        found = Some(url_decode(value));
    }
    let Some(value) = found else {
        return Ok(None);
    };
    if value.len() > MAX_PAYLOAD_BYTES / 3 * 4 {
        return Err(error(ErrorKind::BadLength, 0, "the link is far too long"));
    }
    bytes::from_base64url(&value)
        .map(Some)
        .ok_or_else(|| error(ErrorKind::Malformed, 0, format!("the link contains characters that do not belong to a {what}")))
}

/// application/x-www-form-urlencoded decoding (WHATWG URL §5.1), as URLSearchParams does:
/// `+` is a space, `%XX` a byte, invalid UTF-8 replaced.
fn url_decode(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod fragment_tests {
    use super::*;

    #[test]
    fn keys_are_read_as_the_page_reads_them() {
        let a = bytes::to_base64url(b"TCPS-a");
        assert_eq!(from_fragment(&format!("c=1&sn%61p={a}")).unwrap().unwrap(), b"TCPS-a");
        let two = from_fragment(&format!("sn%61p={a}&snap={a}")).unwrap_err();
        assert!(two.message.contains("two snapshots"), "{}", two.message);
        assert!(from_fragment("c=1&snapx=AAAA").unwrap().is_none());
        assert_eq!(url_decode("%"), "%");
        assert_eq!(url_decode("a%2"), "a%2");
        assert_eq!(url_decode("%e2%80%ae"), "\u{202e}");
    }
}
