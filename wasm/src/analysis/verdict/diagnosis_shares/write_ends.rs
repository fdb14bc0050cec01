//! A sender with nothing queued: its segments keep its application's write boundaries
//! (issue 39 review Z, class C-APP-PACED-AS-CWND; docs/ANALYSIS.md "diagnosis.text",
//! *The sender's writes*).
//!
//! The `other` share is data in flight below the receiver's window with nothing lost,
//! which the headline calls "the congestion window or the path's capacity". Both limits
//! hold data back: the sender has bytes written and waiting that it may not send yet.
//! A sender with such a backlog sends full segments. RFC 9293 §3.8.6.2.1 (sender SWS
//! avoidance) lets it send less than a full segment only when the data is pushed and
//! *all queued data can be sent now*; Linux cuts a window-limited burst at whole
//! segments (`tcp_mss_split_point`) and joins queued writes into full ones. So a new-data
//! segment that ends a write — PSH set, its length no whole number of full segments (a
//! 1,200-B segment and a 245-B tail of one RTP packet; a 16,384-B super-frame of 11
//! segments and a 456-B tail) — left the sender with nothing queued: until its next
//! segment, neither the congestion window nor the path held anything back; the
//! application had not written more. That is a backlog test, not a timing story: it
//! reads segment sizes, which a made-up capture clock (review AA W3) does not change.
//!
//! Not the sender's own time, though, where the peer's data reached the sender in the
//! interval (review AA W2, W4): a write released by the peer's message or flow-control
//! grant is a turn of the exchange. Those intervals are left in `other`.
//!
//! What the share pass keeps ([`WriteEnds`]): the `other` seconds of the intervals that
//! such a segment opened and in which the peer sent no payload (`TimeShares::other_written`).
//! What sender_paced.rs names ([`judge`]): those seconds, when they are most of `other`.

use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::is_data_segment;

const PSH: u32 = crate::decode::tcp_flags::PSH as u32;

/// New data segments that ended a write (with more data after them) a judgement needs.
pub const MIN_WRITE_ENDS: usize = 32;
/// Share of the `other` time the write-ended intervals must hold: most of it.
pub const MOST_OF_OTHER: f64 = 0.5;
/// The median time from a write's end to the next new segment must be this many times
/// the median time from a whole segment to the next ([`judge`]).
pub const LATER_THAN_QUEUED: f64 = 2.0;

/// How far the true segment size may lie from the full segment found (full_segment.rs:
/// without a cut seen, the peer's MSS less up to 40 option bytes).
pub const SEGMENT_SLACK: u32 = 40;

/// Segment `i` of its sender ended an application write with nothing queued behind it
/// (module comment): PSH set, new data (no re-send), and its payload no whole number of
/// full segments `full` — below one, or a super-frame (TSO/GSO/GRO) of no whole number of
/// any segment size within [`SEGMENT_SLACK`] of it (a receiver-side GRO frame of 5 × 1,448 B
/// is whole where the full segment was estimated at 1,420; 16,384 B is 11 × 1,448 + 456).
pub fn ends_write(cols: &PacketColumns, i: usize, full: f64) -> bool {
    cols.flags[i] & PSH != 0 && cols.flags[i] & flag_bits::ANY_RETRANSMISSION == 0 && !whole(cols.len[i], full)
}

/// `len` is a whole number (at least one) of full segments `full` (see [`ends_write`]).
pub fn whole(len: u32, full: f64) -> bool {
    let f = full as u32;
    if f == 0 || len < f {
        return len == 0 || f == 0;
    }
    // One segment, of a size the estimate may have missed by its option bytes.
    if len <= f + SEGMENT_SLACK {
        return true;
    }
    (f.saturating_sub(SEGMENT_SLACK).max(1)..=f + SEGMENT_SLACK).any(|s| len % s == 0)
}

/// The share pass's open interval, as this rule reads it.
#[derive(Clone, Copy, Default)]
pub struct WriteEnds {
    /// The interval opened at a segment that [`ends_write`].
    written: bool,
    /// The peer sent payload during the interval.
    peer_data: bool,
}

impl WriteEnds {
    /// The data segment `i` opens an interval.
    pub fn open(&mut self, cols: &PacketColumns, i: usize, full: f64) {
        *self = WriteEnds { written: ends_write(cols, i, full), peer_data: false };
    }

    /// A packet `i` of the peer during the interval.
    pub fn peer(&mut self, cols: &PacketColumns, i: usize) {
        self.peer_data |= cols.len[i] > 0;
    }

    /// `dt` seconds of the interval booked to `other`: the part `written` keeps.
    pub fn other(&self, dt: f64, written: &mut f64) {
        if self.written && !self.peer_data {
            *written += dt;
        }
    }
}

/// The evidence [`judge`] quotes: new data segments up to `stop`, those that ended a
/// write with more data after them, and those of whole full segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Writes {
    pub segments: usize,
    pub ends: usize,
    pub whole: usize,
    /// The median payload of the write-ending segments, and a full segment, bytes.
    pub tail: f64,
    pub full: f64,
}

/// The sender's write boundaries in direction `dir` from `start` up to `stop` (capture time), with
/// `full` a full segment; None below [`MIN_WRITE_ENDS`] write ends. Whole segments
/// must be seen too: a sender whose every segment "ends a write" may be one whose full
/// segment is smaller than the handshake says (a clamped path MTU). And the next data
/// must have come later after a write's end than after a whole segment (median, more
/// than [`LATER_THAN_QUEUED`] times): a stack that does not join queued writes (old
/// Windows sends each send() buffer's tail as its own segment) sends the next write
/// back to back, as it sends full segments; an application that had not written yet
/// sends it later. A capture clock that stamps every frame alike (review AA W3) or ticks
/// too coarsely to tell them apart shows no difference, and the rule stays silent.
pub fn judge(cols: &PacketColumns, dir: u8, full: f64, span: (f64, f64)) -> Option<Writes> {
    judge_timed(cols, dir, full, span, true)
}

/// [`judge`] without its timing guard (`next_bytes_later`): for unqueued_writes.rs, which
/// reads the absence of a backlog from loss, flights and drains instead.
pub fn judge_untimed(cols: &PacketColumns, dir: u8, full: f64, span: (f64, f64)) -> Option<Writes> {
    judge_timed(cols, dir, full, span, false)
}

fn judge_timed(cols: &PacketColumns, dir: u8, full: f64, (start, stop): (f64, f64), timed: bool) -> Option<Writes> {
    let (mut segments, mut wholes) = (0usize, 0usize);
    let mut tails = Vec::new();
    let mut last_end: Option<f64> = None;
    // Each new segment's (seq, end, time, ended a write), for the gaps to the next bytes.
    let mut sent: Vec<(f64, f64, f64, bool)> = Vec::new();
    let mut tick = f64::INFINITY;
    for i in 0..cols.t.len() {
        if cols.t[i] > stop {
            break;
        }
        // (from the transfer's start: the head's messages are no part of it, transfer_head.rs)
        if cols.dir[i] != dir || !is_data_segment(cols, i, dir) || cols.t[i] < start {
            continue;
        }
        // Originals the network reordered count (stalls/gaps/resends.rs `reordered`).
        if cols.flags[i] & flag_bits::ANY_RETRANSMISSION != 0 {
            continue;
        }
        segments += 1;
        // The previous write end had more data after it.
        if let Some(l) = last_end.take() {
            tails.push(l);
        }
        let end = ends_write(cols, i, full);
        if let Some(&(_, _, t, _)) = sent.last() {
            if cols.t[i] > t {
                tick = tick.min(cols.t[i] - t);
            }
        }
        sent.push((cols.seq[i], cols.seq[i] + f64::from(cols.len[i]), cols.t[i], end));
        if end {
            last_end = Some(f64::from(cols.len[i]));
        } else if whole(cols.len[i], full) {
            wholes += 1;
        }
    }
    let ends = tails.len();
    if ends < MIN_WRITE_ENDS || wholes == 0 || (timed && !next_bytes_later(&mut sent, tick)) {
        return None;
    }
    tails.sort_by(f64::total_cmp);
    Some(Writes { segments, ends, whole: wholes, tail: tails[ends / 2], full })
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The next bytes came later after a write's end than after a whole segment ([`judge`]):
/// from each new segment to the first sending of the byte after it (sequence order, so
/// that a path's reordering swaps no write ends; 0 where it came first), the median after
/// the write ends above [`LATER_THAN_QUEUED`] times the median after the others, and above
/// 1.5 capture ticks (`tick`, the least step between the segments).
fn next_bytes_later(sent: &mut [(f64, f64, f64, bool)], tick: f64) -> bool {
    sent.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut after_end, mut after_whole) = (Vec::new(), Vec::new());
    for w in sent.windows(2) {
        if w[1].0 != w[0].1 {
            continue;
        }
        let gap = (w[1].2 - w[0].2).max(0.0);
        if w[0].3 { after_end.push(gap) } else { after_whole.push(gap) }
    }
    let (e, o) = (median(&mut after_end), median(&mut after_whole));
    e > LATER_THAN_QUEUED * o && (!tick.is_finite() || e > 1.5 * tick)
}
