//! A share link's merged view (issue 44, item 5): one pair of a two-vantage-point merge
//! (`twin::TwinPair`), carried in the link's `twin-snap=` beside the compare view's two
//! snapshots, so that a browser without the captures shows the same panel and charts.
//!
//! The whole pair is carried, whatever fields it has: serialised, its lists cut to the
//! link (resample.rs: time series to the link's columns, other lists evenly to a cap,
//! only when the budget demands), packed (packed.rs) and deflated. Everything that is
//! not a list of a series — the panel's numbers and words — is carried exactly. Lists
//! that lost rows are named in the report's notes ("this link holds 40 of the 210
//! stalls"), so nothing is dropped silently. Which detail gives way first, each try
//! until the text fits `max_chars` (at most [`MAX_TWIN_CHARS`], half a link):
//! 1. the series' columns, ¾ at each try from the sender's chart width down to
//!    [`KEEP_LISTS_COLUMNS`] (64 bars still show a queue building, and the time-sequence
//!    its stalls; the datagrams of note are worth more than finer columns);
//! 2. then the lists of events (stalls, datagrams of note), capped at 256, 128, 64 rows;
//! 3. then the columns again, ¾ at each try down to 16, then the lists to 32, 16 … 2 and 1 rows
//!    (never none: the panel would read a pair whose stalls were all cut as one without
//!    stalls), and last the columns to [`MIN_COLUMNS`].
//!
//! Bytes: "TCPT" | format (u8) | report schema (u16 LE) | payload length (u32 LE) | the
//! payload deflated; the payload is one packed value:
//! `{pair, index, found, notes, cut}` ([`Carried`]). Read back, it is the typed `TwinPair`
//! (serde, with the report's closed word lists), so a hostile link is refused with a
//! sentence before anything is drawn; the caller gets a `TwinReport` of that one pair.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::bytes::{self, error, Reader, Writer};
use super::format::{fragment_bytes, MAX_ANSWERS_PAYLOAD_BYTES};
use super::packed::{self, Limits, Words};
use super::resample::{self, Cut, Grid};
use crate::error::{DecodeError, ErrorKind};
use crate::twin::{TwinPair, TwinReport};

pub const MAGIC: &[u8; 4] = b"TCPT";
pub const FORMAT: u8 = 1;
/// The link's key for it.
pub const KEY: &str = "twin-snap";
/// The merged view's share of a link's 8 KB (issue 15's budget; web/share/snapshot.ts
/// `MAX_LINK_BYTES`): half, the compare view's two snapshots sharing the rest. Its two
/// time-sequence series, two one-way delay series and the datagrams of note take 4 KB at
/// 128 columns (wasm/tests/share_twin.rs: a third left 32 to 64 columns and 4 events);
/// the snapshots' charts show less that the merged view does not (each side's throughput
/// and bytes in flight), and a snapshot lowers its columns to fit.
pub const MAX_TWIN_CHARS: usize = 8192 / 2;
/// Columns below which the lists give way first (module doc, step 2).
pub const KEEP_LISTS_COLUMNS: usize = 64;
/// Rows of a list of events kept while the columns go down to [`FEW_COLUMNS`] (the marks
/// of 64 datagrams lost between tell where more than a finer chart would).
const LIST_ROWS: usize = 64;
const FEW_COLUMNS: usize = 16;
/// Fewest columns a series is cut to: a last resort, the queue's level and a trend.
pub const MIN_COLUMNS: usize = 8;
/// Most columns asked for (a 4K screen's width).
pub const MAX_COLUMNS: usize = 4096;
const HEADER_BYTES: usize = 11;
/// Notes carried, and their length (chars): the merge writes a handful of short ones.
const MAX_NOTES: usize = 8;
const MAX_NOTE_CHARS: usize = 400;
/// What a payload may unpack to, and hold: a link of 2.7 KB deflated holds well under
/// 100 KB; the caps bound the memory of opening a hostile one (a few tens of MB).
const MAX_PAYLOAD_BYTES: usize = 1 << 20;
const LIMITS: Limits = Limits { string: 16 << 10, key: 64, values: 1 << 18 };

/// The words a link writes as one byte (packed.rs): the keys of what it carries and the
/// closed vocabularies of the pair's words. Append-only: links name them by position. A
/// key missing here (a field added to `TwinPair` later) is still carried, written out;
/// wasm/tests/share_twin.rs says which to append.
pub const WORDS: Words = &[
    "pair", "index", "found", "notes", "cut", "key", "kept", "of",
    "matchedBy", "evidence", "rewritten", "senderSide", "input", "connection", "endpoints", "receiverSide",
    "sidesToldBy", "refused", "clock", "offsetMs", "uncertaintyMs", "driftPpm", "driftUncertaintyPpm", "samples",
    "arrivedBeforeSent", "inconsistent", "text", "directions", "from", "to", "sent", "delivered", "lostBetween",
    "lostBetweenWithoutData", "reordered", "duplicated", "notSeenAtSenderSide", "notSeenAtReceiverSide", "undecided",
    "outsideOtherCapture", "delay", "minMs", "medianMs", "p95Ms", "maxMs", "queueP50Ms", "queueP95Ms",
    "queueSustainedMs", "delaySeries", "t", "width", "count", "stalls", "stallThresholdMs", "rttSplit",
    "senderHostMs", "forwardPathMs", "receiverHostMs", "returnPathMs", "pathUncertaintyMs", "inFlight", "compared",
    "senderMedianBytes", "senderMaxBytes", "receiverEstimateMedianBytes", "receiverEstimateMaxBytes",
    "withinTenPercent", "queued", "events", "direction", "kind", "senderSideFrame", "receiverSideFrame", "seq", "len",
    "capture", "start", "duration", "cause", "frameBefore", "frameAfter", "at", "place", "networkMs", "why",
    // Values: how a pair matched, where a stall happened, its cause, an event's kind,
    // which direction queued, which capture listed a stall.
    "four-tuple", "isn", "timestamps", "segments", "sender-host", "network", "receiver-host", "unknown",
    "zero-window", "window-limited", "retransmission-timeout", "application-idle", "ack-wait", "delayed-ack",
    "lost-between", "not-seen-at-sender-side", "not-seen-at-receiver-side",
    "forward", "return", "both", "neither", "too-few-samples", "sender-side", "receiver-side",
    // The time-sequence series of each side (twin/sequence.rs) and the events' marks on it.
    "sequence", "binWidth", "datagrams", "retransmitted", "bins", "acks", "seqMin", "seqMax", "ack", "due",
    // The stalls counted once (twin/placement/distinct.rs) and how their rows were tied.
    "distinctStalls", "frames", "tiedBy", "placesAgree", "same-datagram", "same-sequence", "overlap", "one-capture",
    // The peer's wait a host's late answer made, folded into that stall.
    "peerWaitFrames",
];

/// What the payload holds: the pair (`P`: its JSON value when written, the typed pair
/// when read), which of the merge's pairs it is, the merge's notes, the lists cut.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Carried<P> {
    pair: P,
    /// 0-based, of `found` pairs the merge listed.
    index: u32,
    found: u32,
    notes: Vec<String>,
    cut: Vec<CutList>,
}

#[derive(Serialize, Deserialize)]
struct CutList {
    key: String,
    kept: u32,
    of: u32,
}

/// A merged view made into a link's part.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shared {
    /// base64url, for `twin-snap=`.
    pub snapshot: String,
    /// The columns its series were cut to, and the cap of its other lists (None: whole).
    pub columns: u32,
    pub cap: Option<u32>,
}

/// Pair `index` of the merge's report as a link's part of at most `max_chars` characters
/// (0: [`MAX_TWIN_CHARS`]), its series cut to `columns` (the sender's chart width) or
/// fewer. Err: why it cannot be shared, in words.
pub fn share(report: &TwinReport, index: usize, columns: u32, max_chars: usize) -> Result<Shared, String> {
    let pair = report.pairs.get(index).ok_or_else(|| format!("The merge found {} connections; there is no connection {} to share.", report.pairs.len(), index + 1))?;
    let max_chars = if max_chars == 0 { MAX_TWIN_CHARS } else { max_chars.min(MAX_TWIN_CHARS) };
    let value = serde_json::to_value(pair).map_err(|e| e.to_string())?;
    let notes: Vec<String> = report.notes.iter().take(MAX_NOTES).map(|n| n.chars().take(MAX_NOTE_CHARS).collect()).collect();
    let (t0, t1) = resample::span(&value).unwrap_or((0.0, 1.0));
    let grid = |columns: usize| Grid { t0, t1: if t1 > t0 { t1 } else { t0 + 1.0 }, columns };
    let mut smallest = usize::MAX;
    for (columns, cap) in attempts(columns as usize) {
        let mut pair = value.clone();
        let mut cuts = Vec::new();
        resample::resample(&mut pair, &grid(columns), cap, &mut cuts);
        let carried = Carried {
            pair,
            index: index as u32,
            found: report.pairs.len() as u32,
            notes: notes.clone(),
            cut: cuts.into_iter().map(|c: Cut| CutList { key: c.key, kept: c.kept as u32, of: c.of as u32 }).collect(),
        };
        let text = bytes::to_base64url(&encode(&serde_json::to_value(&carried).map_err(|e| e.to_string())?));
        if text.len() <= max_chars {
            return Ok(Shared { snapshot: text, columns: columns as u32, cap: cap.map(|c| c as u32) });
        }
        smallest = smallest.min(text.len());
    }
    Err(format!("The merged view does not fit a link: even cut to {MIN_COLUMNS} columns and a row a list it takes {smallest} characters, more than the {max_chars} it may."))
}

/// [`share`] of the report as the page holds it (`WasmTwin.finish`'s JSON): its pairs and
/// notes are read back typed, the rest is not needed.
pub fn share_json(report: serde_json::Value, index: usize, columns: u32, max_chars: usize) -> Result<Shared, String> {
    #[derive(Deserialize)]
    struct Held {
        pairs: Vec<TwinPair>,
        notes: Vec<String>,
    }
    let held: Held = serde_json::from_value(report).map_err(|e| format!("The merged view could not be read back to share it ({e})."))?;
    share(&TwinReport { pairs: held.pairs, notes: held.notes, ..TwinReport::default() }, index, columns, max_chars)
}

/// A question of the page or the CLI (bindings.rs `twinLink`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase", deny_unknown_fields)]
enum Question {
    /// Pair `pair` of `report` as a link's part (`share_json`).
    Share { report: serde_json::Value, pair: u32, columns: u32, max_chars: u32 },
    /// A link (or its fragment) whose `twin-snap=` is read back.
    Open(String),
}

/// The one entry of bindings.rs `twinLink`: `{"share": {report, pair, columns, maxChars}}`
/// answers `{snapshot, columns, cap}`; `{"open": link}` answers `{report}` (a TwinReport of
/// the link's pair); either answers `{error}` with the sentence when it cannot.
pub fn answer(question: &str) -> String {
    let error = |why: String| serde_json::json!({ "error": why }).to_string();
    match serde_json::from_str::<Question>(question) {
        Ok(Question::Share { report, pair, columns, max_chars }) => match share_json(report, pair as usize, columns, max_chars as usize) {
            Ok(shared) => serde_json::to_string(&shared).unwrap_or_else(|e| error(e.to_string())),
            Err(why) => error(why),
        },
        Ok(Question::Open(link)) => match from_fragment(link.split_once('#').map_or(&link[..], |(_, f)| f)) {
            Ok(Some(report)) => serde_json::json!({ "report": report }).to_string(),
            Ok(None) => error("This link holds no merged view (no twin-snap= in it).".into()),
            Err(e) => error(e.message),
        },
        Err(e) => error(format!("not a question about a link's merged view: {e}")),
    }
}

/// The tries, in order (module doc): a pair of (columns, cap of the lists of events).
fn attempts(requested: usize) -> Vec<(usize, Option<usize>)> {
    let first = requested.clamp(MIN_COLUMNS, MAX_COLUMNS);
    let mut out = Vec::new();
    let mut c = first;
    // Each try ¾ of the last: a link uses most of its room.
    while c > KEEP_LISTS_COLUMNS {
        out.push((c, None));
        c = c * 3 / 4;
    }
    let keep = first.min(c.max(KEEP_LISTS_COLUMNS));
    out.push((keep, None));
    // Long lists give way to 64 rows first, then the columns to 16, then the lists to 4.
    out.extend([256, 128, LIST_ROWS].map(|cap| (keep, Some(cap))));
    let mut c = keep * 3 / 4;
    while c >= FEW_COLUMNS {
        out.push((c, Some(LIST_ROWS)));
        c = c * 3 / 4;
    }
    let few = out.last().map_or(MIN_COLUMNS, |a| a.0);
    out.extend([32, 16, 8, 4].map(|cap| (few, Some(cap))));
    // Last, a row or two of each list (never none, or the panel would read a pair whose
    // stalls were all cut as one without stalls), then the fewest columns.
    out.extend([(few, Some(2)), (few, Some(1))]);
    if few > MIN_COLUMNS {
        out.push((MIN_COLUMNS, Some(1)));
    }
    out
}

fn encode(carried: &Value) -> Vec<u8> {
    let mut w = Writer::default();
    packed::Packer::new(WORDS).write(&mut w, carried);
    let mut out = Vec::with_capacity(HEADER_BYTES + w.buf.len() / 2);
    out.extend_from_slice(MAGIC);
    out.push(FORMAT);
    out.extend_from_slice(&(crate::SCHEMA_VERSION as u16).to_le_bytes());
    out.extend_from_slice(&(w.buf.len() as u32).to_le_bytes());
    out.extend_from_slice(&bytes::deflate(&w.buf));
    out
}

/// The merged view of a link's fragment (`…&twin-snap=…`), None when it holds none.
pub fn from_fragment(fragment: &str) -> Result<Option<TwinReport>, DecodeError> {
    match fragment_bytes(fragment, KEY, "merged view").map_err(damaged)? {
        Some(bytes) => open(&bytes).map(Some),
        None => Ok(None),
    }
}

/// A link's merged view read back: a report of its one pair, with the merge's notes and
/// a sentence for each list the link cut. Every failure is a sentence for the reader.
pub fn open(data: &[u8]) -> Result<TwinReport, DecodeError> {
    if data.len() < 4 || &data[..4] != MAGIC {
        return Err(error(ErrorKind::BadMagic, 0, "This link's merged view (twin-snap=) is not one tcpscope made (its signature is wrong); the link may have been cut or altered."));
    }
    if data.len() < HEADER_BYTES {
        return Err(damaged(error(ErrorKind::Truncated, data.len(), "it is cut short")));
    }
    if data[4] != FORMAT {
        let (kind, why) = if data[4] > FORMAT { (ErrorKind::Unsupported, "a newer tcpscope made it") } else { (ErrorKind::BadHeader, "no tcpscope writes that format") };
        return Err(error(kind, 4, format!("This link's merged view is in format {}, and this page reads format {FORMAT}: {why}.", data[4])));
    }
    let schema = u16::from_le_bytes([data[5], data[6]]) as u32;
    if schema != crate::SCHEMA_VERSION {
        return Err(error(ErrorKind::Unsupported, 5, format!("This link's merged view holds data of report schema {schema}; this page reads schema {}.", crate::SCHEMA_VERSION)));
    }
    let length = u32::from_le_bytes([data[7], data[8], data[9], data[10]]) as usize;
    if length > MAX_PAYLOAD_BYTES.min(MAX_ANSWERS_PAYLOAD_BYTES) {
        return Err(damaged(error(ErrorKind::TooLarge, 7, format!("it claims {length} bytes of data, more than the {MAX_PAYLOAD_BYTES} a merged view may unpack to"))));
    }
    let payload = bytes::inflate(&data[HEADER_BYTES..], length, HEADER_BYTES).map_err(damaged)?;
    if payload.len() != length {
        return Err(damaged(error(ErrorKind::BadLength, 7, format!("it holds {} bytes of data instead of {length}", payload.len()))));
    }
    let mut r = Reader::new(&payload);
    let value = packed::read(&mut r, &LIMITS, WORDS).map_err(damaged)?;
    if r.remaining() != 0 {
        return Err(damaged(r.fail(format!("{} unexpected bytes follow the data", r.remaining()))));
    }
    let carried: Carried<TwinPair> = serde_json::from_value(value).map_err(|e| damaged(error(ErrorKind::Malformed, 0, format!("its data is not a merged pair: {e}"))))?;
    check(&carried).map_err(|why| damaged(error(ErrorKind::BadHeader, 0, why)))?;
    Ok(report_of(carried))
}

/// What the types alone do not say: directions are 0 and 1, a pair is one of those found.
fn check(c: &Carried<TwinPair>) -> Result<(), String> {
    let p = &c.pair;
    if c.index >= c.found {
        return Err(format!("it is connection {} of {}", c.index + 1, c.found));
    }
    if p.directions.len() > 2 || p.stalls.iter().any(|s| s.direction > 1) || p.events.iter().any(|e| e.direction > 1) {
        return Err("a direction other than forward and return".into());
    }
    if c.notes.len() > MAX_NOTES || c.cut.len() > 64 {
        return Err("too many notes".into());
    }
    Ok(())
}

fn report_of(c: Carried<TwinPair>) -> TwinReport {
    let mut notes = c.notes;
    if c.found > 1 {
        notes.push(format!("This link holds connection {} of the {} found in both captures ({}).", c.index + 1, c.found, c.pair.sender_side.endpoints.join(" → ")));
    }
    for cut in &c.cut {
        notes.push(format!("This link holds {} of the pair's {} {}, spread evenly over time; the counts above are the whole pair's.", cut.kept, cut.of, words(&cut.key)));
    }
    TwinReport { pairs: vec![c.pair], notes, ..TwinReport::default() }
}

/// `delaySeries` → `delay series`.
fn words(key: &str) -> String {
    let mut out = String::new();
    for ch in key.chars().take(64) {
        if ch.is_uppercase() {
            out.push(' ');
        }
        out.extend(ch.to_lowercase());
    }
    out
}

fn damaged(e: DecodeError) -> DecodeError {
    DecodeError { message: format!("This link's merged view is damaged and cannot be shown ({}).", e.message), ..e }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tries_columns_first_then_lists_then_columns() {
        assert_eq!(
            attempts(900),
            [(900, None), (675, None), (506, None), (379, None), (284, None), (213, None), (159, None), (119, None), (89, None), (66, None), (64, None),
             (64, Some(256)), (64, Some(128)), (64, Some(64)), (48, Some(64)), (36, Some(64)), (27, Some(64)), (20, Some(64)), (20, Some(32)), (20, Some(16)), (20, Some(8)), (20, Some(4)), (20, Some(2)), (20, Some(1)), (8, Some(1))]
        );
        assert_eq!(attempts(100)[..4], [(100, None), (75, None), (64, None), (64, Some(256))]);
        assert_eq!(attempts(0), [(8, None), (8, Some(256)), (8, Some(128)), (8, Some(64)), (8, Some(32)), (8, Some(16)), (8, Some(8)), (8, Some(4)), (8, Some(2)), (8, Some(1))]);
        assert_eq!(words("delaySeries"), "delay series");
    }
}
