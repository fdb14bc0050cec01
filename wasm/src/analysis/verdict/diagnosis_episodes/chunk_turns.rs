//! Request/response turns inside bulk bursts (issue 39 reviews P and Q, class
//! C-BURST-UNEXPLAINED, turns): a burst between the application's pauses may itself be
//! a run of turns — the sender sends a chunk, waits until the peer has it and asks for
//! the next with a small request, then sends the next chunk (a remote-access tool's
//! 5 KB per 28-byte request, a file protocol's reads of 4–64 KiB). Its pace is then
//! neither the network's windows nor "the exchange's own pace" between bursts: it is
//! the chunk size, one turn per chunk, each costing at least a round trip.
//!
//! The rule, inside the bulk bursts' spans (savings.rs `BulkBursts::spans`): a chunk
//! is the sender's data from one data segment of the peer to the next; a chunk is
//! released by a request when the peer's data before it (the request) was under one
//! full segment and came when everything the sender had sent was acknowledged (its ACK
//! may ride on the request): the sender had nothing outstanding and sent more only on
//! the request (stop-and-wait; RFC 9293 §3.8.6.2.1 would let any sender with data
//! queued fill the window without one), and the wait before the chunk (below) was at
//! least one path RTT, as a turn's is wherever the capture is. The bursts were paced by turns where at least
//! [`MIN_TURNS`] chunks inside them (not the first of a burst) were so released, those
//! chunks carried at least half the bursts' bytes and no one chunk did.
//!
//! What it costs: the time from each released chunk's previous chunk's last segment to
//! its first segment is the turn's wait. At a capture anywhere on the path it is at
//! least one path round trip (the chunk's end must reach the peer and its request come
//! back), the rest the two applications' time. Fewer, larger chunks would save at most
//! those waits, of which one path round trip per turn is the network's.

use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::is_data_segment;

/// Fewest released chunks inside the bursts for "paced by turns".
pub const MIN_TURNS: usize = 3;

/// The turns found inside the bulk bursts.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkTurns {
    /// Chunks released by a request (the turns).
    pub turns: usize,
    /// Median bytes of a released chunk, and of the request that released it.
    pub chunk: f64,
    pub request: f64,
    /// Median time from a released chunk's first segment to the next chunk's, s.
    pub every: f64,
    /// The turns' waits, all told, s ([`module docs`](self)).
    pub waited: f64,
    /// Of them, one path round trip per turn (at most `waited`), s.
    pub round_trips: f64,
}

/// One chunk of the sender's data inside a span.
struct Chunk {
    start: f64,
    last: f64,
    bytes: f64,
    /// Released by a request: (its bytes, the wait before the chunk).
    released: Option<(f64, f64)>,
}

/// The turns inside `spans` (sender time, s, in order), for the data direction `d`;
/// `full`: a full segment of the sender, bytes; `path_rtt`: s (0 or NaN: unknown).
/// None where the spans were not paced by turns.
pub fn inside(p: &PacketColumns, d: u8, spans: &[(f64, f64)], full: f64, path_rtt: f64) -> Option<ChunkTurns> {
    let mut chunks: Vec<Chunk> = Vec::new();
    for &(a, b) in spans {
        chunks.extend(chunks_in(p, d, (a, b), full, if path_rtt > 0.0 { path_rtt } else { 0.0 }));
    }
    let total: f64 = chunks.iter().map(|c| c.bytes).sum();
    let released: Vec<&Chunk> = chunks.iter().filter(|c| c.released.is_some()).collect();
    let largest = chunks.iter().map(|c| c.bytes).fold(0.0, f64::max);
    let released_bytes: f64 = released.iter().map(|c| c.bytes).sum();
    if released.len() < MIN_TURNS || !(total > 0.0) || 2.0 * released_bytes < total || 2.0 * largest >= total {
        return None;
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    // From each chunk's start to the next's, where the next was released (a turn).
    let every: Vec<f64> = chunks.windows(2).filter(|w| w[1].released.is_some()).map(|w| w[1].start - w[0].start).collect();
    let waited: f64 = released.iter().map(|c| c.released.map_or(0.0, |r| r.1)).sum();
    let rtt = if path_rtt > 0.0 { path_rtt } else { 0.0 };
    Some(ChunkTurns {
        turns: released.len(),
        chunk: median(released.iter().map(|c| c.bytes).collect()),
        request: median(released.iter().map(|c| c.released.map_or(0.0, |r| r.0)).collect()),
        every: median(every),
        waited,
        round_trips: (released.len() as f64 * rtt).min(waited),
    })
}

/// The sender's chunks in one span [a, b]: the first is the burst's start (no turn).
/// `path_rtt`: s (0: unknown); a turn's wait is at least one (see below).
fn chunks_in(p: &PacketColumns, d: u8, (a, b): (f64, f64), full: f64, path_rtt: f64) -> Vec<Chunk> {
    let (from, to) = (p.t.partition_point(|&t| t < a), p.t.partition_point(|&t| t <= b));
    // What the sender had sent, and the peer acknowledged, so far (from the start of
    // the capture: a chunk's ACK may come before the span does).
    let (mut sent_end, mut acked) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for i in 0..from {
        note(p, d, i, &mut sent_end, &mut acked);
    }
    let mut out: Vec<Chunk> = Vec::new();
    // The peer's data since the sender's last data segment: bytes, and whether all it
    // had sent was acknowledged when the request came.
    let mut request: Option<(f64, bool)> = None;
    for i in from..to {
        note(p, d, i, &mut sent_end, &mut acked);
        if p.dir[i] != d {
            // A keep-alive's garbage byte (RFC 1122 §4.2.3.6) is no request.
            if p.len[i] > 0 && p.flags[i] & flag_bits::KEEP_ALIVE == 0 {
                let r = request.get_or_insert((0.0, acked >= sent_end));
                r.0 += f64::from(p.len[i]);
            }
            continue;
        }
        if !is_data_segment(p, i, d) || p.flags[i] & flag_bits::ANY_RETRANSMISSION != 0 {
            continue;
        }
        let len = f64::from(p.len[i]);
        match (out.last_mut(), request.take()) {
            (Some(c), None) => {
                c.last = p.t[i];
                c.bytes += len;
            }
            (last, req) => {
                let released = match (last, req) {
                    // A turn takes at least a path round trip wherever the capture is
                    // (the chunk's end reaches the peer, its request comes back): a
                    // message of the peer answered sooner came while data flowed (an
                    // HTTP/2 client's next request), no request the sender waited for.
                    (Some(prev), Some((bytes, all_acked))) if all_acked && bytes < full && p.t[i] - prev.last >= path_rtt => Some((bytes, p.t[i] - prev.last)),
                    _ => None,
                };
                out.push(Chunk { start: p.t[i], last: p.t[i], bytes: len, released });
            }
        }
    }
    out
}

/// Keeps the highest sequence end the sender sent and the highest ACK of the peer.
fn note(p: &PacketColumns, d: u8, i: usize, sent_end: &mut f64, acked: &mut f64) {
    if p.dir[i] == d {
        if p.len[i] > 0 && p.seq[i].is_finite() {
            *sent_end = sent_end.max(p.seq[i] + f64::from(p.len[i]));
        }
    } else if p.ack[i].is_finite() {
        *acked = acked.max(p.ack[i]);
    }
}

/// The sentence for [`inside`]'s turns, `path_rtt`: s, `full`: a full segment, bytes.
/// Where the median chunk is a message (under savings.rs `MESSAGE_SEGMENTS` full
/// segments: issue 39 review V class C-PUSH-AS-ANSWER, nDPI `tls_with_huge_ch`'s 400-B
/// records per 380-B record of the peer, one every 222 ms) the turns are an interactive
/// exchange, a message per message: "fewer, larger chunks" has nothing to merge, and only
/// the waits are said.
pub fn words(t: &ChunkTurns, path_rtt: f64, full: f64) -> String {
    use crate::analysis::format::{format_bytes, format_duration, format_rate};
    let rate = if t.every > 0.0 { format!(" ({})", format_rate(8.0 * t.chunk / t.every)) } else { String::new() };
    let round_trips = if path_rtt > 0.0 && t.round_trips > 0.0 {
        format!(", {} of it the path's round trips (one of {} a turn) and the rest the two applications' time", format_duration(t.round_trips), format_duration(path_rtt))
    } else {
        String::new()
    };
    if t.chunk < crate::analysis::verdict::savings::MESSAGE_SEGMENTS * full {
        return format!(
            "Inside them the two ends exchanged messages, the sender's each only once one of the peer's had come with everything \
             acknowledged: {} turns, a median {} per {} message of the peer, one every {}{rate}. The sender waited {} between them in \
             all{round_trips}: an interactive exchange, message for message, not a transfer cut into chunks.",
            t.turns,
            format_bytes(t.chunk),
            format_bytes(t.request),
            format_duration(t.every),
            format_duration(t.waited),
        );
    }
    format!(
        "Inside them the sender sent its data in chunks, each only once a small request of the peer had come with everything \
         acknowledged: {} turns, a median {} per {} request, one every {}{rate}, so the chunk size, not the network, set these \
         bursts' pace. The sender waited {} between chunks in all{round_trips}: fewer, larger chunks would save up to that.",
        t.turns,
        format_bytes(t.chunk),
        format_bytes(t.request),
        format_duration(t.every),
        format_duration(t.waited),
    )
}

/// [`words`] for the turns inside `spans`, where they paced them.
pub fn said(p: &PacketColumns, d: u8, spans: &[(f64, f64)], full: f64, path_rtt: f64) -> Option<String> {
    inside(p, d, spans, full, path_rtt).map(|t| words(&t, path_rtt, full))
}

/// The chunk that carried most of the burst `span` (sender time, s): its first and last
/// segment and new bytes, where the burst began with smaller turns before it — then it,
/// not the span, is the burst's bulk, and its bounds are the ones said (issue 39 review
/// Q, emerge: a 3.1 MiB rsync transfer from 4.794 s was named "from 4.052 s" in one
/// sentence and "during 4.794 s–20.374 s" in the next, the first 0.7 s being three
/// exchanges of a few bytes). None where the span is one chunk, none holds most, or
/// another is more than a message.
pub fn main_chunk(p: &PacketColumns, d: u8, span: (f64, f64), full: f64) -> Option<(f64, f64, f64)> {
    let chunks = chunks_in(p, d, span, full, 0.0);
    let main = chunks.iter().skip(1).max_by(|a, b| a.bytes.total_cmp(&b.bytes))?;
    // Every other chunk a message (under savings.rs `MESSAGE_SEGMENTS` full segments):
    // a burst of several transfers interleaved with the peer's requests is no one chunk's.
    let message = crate::analysis::verdict::savings::MESSAGE_SEGMENTS * full;
    let total: f64 = chunks.iter().map(|c| c.bytes).sum();
    let others_messages = chunks.iter().filter(|c| !std::ptr::eq(*c, main)).all(|c| c.bytes < message);
    (2.0 * main.bytes > total && others_messages).then_some((main.start, main.last, main.bytes))
}
