//! A capture that misses most of a connection's data (docs/ANALYSIS.md "The order of
//! the limit headline", 0c; issue 39 review Q class C-BLIND-CAPTURE). Every limit is
//! judged from the segments and ACKs the capture holds; where it holds only fragments
//! of what a side sent, the time between two fragments is not time the transfer spent
//! in any state (a payload-only capture keeping 3.9 KiB of a 636 KiB download read
//! "window full 97 %, the path limited"). Then the diagnosis says what is missing,
//! with the numbers, and names no limit (`capture-gaps`).
//!
//! The numbers said are those of the one definition (loss/capture_loss.rs `Missed`,
//! docs/ANALYSIS.md "Bytes the capture missed of a side"), the capture-loss count's:
//! the rows give the span and the bytes captured in it, the tracker the bytes missing.
//!
//! What the capture itself proves a side sent, in its sequence numbers (RFC 9293 §3.4:
//! every byte of data has one; a sender sends them in order, so a captured segment
//! starting at S shows every byte below S was sent before it): from the first byte of
//! its first captured segment up to the highest byte it was seen to send or its peer
//! acknowledged (an ACK of B says every byte below B arrived, RFC 9293 §3.4). What the
//! capture missed of that span: the bytes of the holes between captured segments that
//! no later captured segment (a re-send, a late original) filled, and the bytes the
//! peer acknowledged beyond the highest captured one. A hole of 2^31 bytes or more is
//! no step forward in sequence space (RFC 9293 §3.4 compares modulo 2^32): numbers
//! rewritten or two flows mixed, and nothing is said.

use crate::analysis::format::{format_bytes, format_timestamp};
use crate::analysis::loss::capture_loss::Missed;
use crate::analysis::report::{ConnectionSummary, Diagnosis, Evidence};
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::is_data_segment;
use std::collections::VecDeque;

mod intact;

/// The share of a side's data missing from the capture above which no limit is named.
pub const MISSING_SAID: f64 = 0.5;
/// Half the sequence space: a larger jump is no forward step (module comment).
const SEQ_HALF: f64 = 2_147_483_648.0;
/// Open holes remembered; the oldest beyond them is taken as never filled (a re-send
/// fills a hole within round trips, while at most a window of new holes opens).
const MAX_OPEN_HOLES: usize = 256;

const RST: u32 = crate::decode::tcp_flags::RST as u32;
const SYN: u32 = crate::decode::tcp_flags::SYN as u32;

/// What the capture holds of the data one side sent (module comment), bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unseen {
    pub dir: u8,
    /// Sequence bytes the capture proves sent: first captured byte to the highest sent
    /// or acknowledged.
    pub sent: f64,
    /// Of them, the bytes missing from the capture.
    pub missing: f64,
    /// Runs of missing bytes (holes, and the acknowledged bytes past the last captured).
    pub holes: u64,
    /// The peer's highest acknowledgement above the first captured byte: (bytes of the
    /// span it covers, capture time, frame).
    pub acked: Option<(f64, f64, u32)>,
}

impl Unseen {
    pub fn captured(&self) -> f64 {
        self.sent - self.missing
    }
}

/// What the capture holds of direction `dir`'s data; None without data, or where the
/// numbers jump by half the sequence space. The rows give the span and the bytes
/// captured in it; what is missing is `missed`, the tracker's count of the side
/// (capture_loss.rs `Missed`, the one definition the capture-loss count shares), so
/// the sentence and the capture-loss numbers agree.
pub fn of_direction(cols: &PacketColumns, dir: u8, missed: Missed) -> Option<Unseen> {
    let n = cols.t.len();
    let first = (0..n).filter(|&i| is_data_segment(cols, i, dir)).map(|i| cols.seq[i]).fold(f64::INFINITY, f64::min);
    if !first.is_finite() {
        return None;
    }
    // With its SYN captured, the side's data starts at relative 1 (RFC 9293 §3.4: the
    // SYN takes the ISN), and bytes before the first captured one are a hole too (the
    // tracker counts them so); without it, the first captured byte starts the span.
    let syn = (0..n).any(|i| cols.dir[i] == dir && cols.flags[i] & SYN != 0 && cols.seq[i] == 0.0);
    let first = if syn { first.min(1.0) } else { first };
    let (mut high, mut missing) = (first, 0.0);
    // Open holes: [start, end) and the bytes of it still missing.
    let mut open: VecDeque<(f64, f64, f64)> = VecDeque::new();
    let mut acked: Option<(f64, f64, u32)> = None;
    for i in 0..n {
        if cols.dir[i] != dir {
            let a = cols.ack[i];
            if a.is_finite() && cols.flags[i] & RST == 0 && a > first && acked.is_none_or(|(b, _, _)| a - first > b + 1.0) {
                acked = Some((a - first, cols.t[i], cols.frame[i]));
            }
            continue;
        }
        // (An ACK one past the last, the FIN's sequence number, is no new byte: above.)
        if !is_data_segment(cols, i, dir) {
            continue;
        }
        let (seq, end) = (cols.seq[i], cols.seq[i] + f64::from(cols.len[i]));
        if seq > high {
            if seq - high >= SEQ_HALF {
                return None;
            }
            open.push_back((high, seq, seq - high));
            if open.len() > MAX_OPEN_HOLES {
                missing += open.pop_front().map_or(0.0, |h| h.2);
            }
        } else {
            // Bytes below the highest: they may fill holes (a re-send, a late original).
            // Filling twice is counted twice: the missing bytes are a lower bound.
            open.retain_mut(|h| {
                h.2 -= (end.min(h.1) - seq.max(h.0)).max(0.0);
                h.2 > 0.0
            });
        }
        high = high.max(end);
    }
    missing += open.iter().map(|h| h.2).sum::<f64>();
    // Acknowledged past the last captured byte; one more is the sender's FIN (RFC 9293
    // §3.4: it takes a sequence number), no data.
    let tail = acked.map_or(0.0, |(b, _, _)| first + b - high);
    if tail >= SEQ_HALF {
        return None;
    }
    // The bytes the capture holds of the span: what the sentence says captured.
    let captured = high - first - missing;
    let missing = missed.bytes as f64;
    Some(Unseen { dir, sent: captured + missing, missing, holes: missed.holes, acked })
}

/// The side whose data the capture mostly misses, if any: where the data direction's
/// data is mostly missing (the limit is of that data), or the connection's (both sides'
/// missing bytes over both sides' bytes sent) is; the side named is then the one that
/// misses the most bytes.
pub fn judge(conn: &ConnectionSummary, cols: &PacketColumns) -> Option<Unseen> {
    let d = conn.data_direction.min(1);
    let missed = |d: u8| conn.directions[d as usize].missed;
    let (mine, other) = (of_direction(cols, d, missed(d)), of_direction(cols, 1 - d, missed(1 - d)));
    let (sent, missing) = [mine, other].iter().flatten().fold((0.0, 0.0), |(s, m), u| (s + u.sent, m + u.missing));
    let mostly = |u: &Unseen| u.sent > 0.0 && u.missing > MISSING_SAID * u.sent;
    if mine.as_ref().is_some_and(mostly) {
        return mine;
    }
    (sent > 0.0 && missing > MISSING_SAID * sent).then(|| [mine, other].into_iter().flatten().fold(None, |b: Option<Unseen>, u| if b.is_some_and(|b| b.missing >= u.missing) { b } else { Some(u) })).flatten()
}

/// The sentence: what the capture holds of the side's data, and what its peer's ACKs show.
pub fn sentence(conn: &ConnectionSummary, cols: &PacketColumns, u: &Unseen) -> String {
    sentence_of(conn, cols, u, "no limit")
}

/// [`sentence`] naming what cannot be judged (`what`: "no limit", or "no limit of the
/// transfer" after the wait the capture holds whole, intact.rs).
fn sentence_of(conn: &ConnectionSummary, cols: &PacketColumns, u: &Unseen, what: &str) -> String {
    let (sender, receiver) = (&conn.directions[u.dir as usize].from, &conn.directions[1 - u.dir as usize].from);
    let pct = 100.0 * u.missing / u.sent;
    let pct = if pct >= 99.95 { "more than 99.9 %".to_string() } else { format!("{pct:.1} %") };
    let mut t = format!(
        "The capture holds only {} of the {} {sender} sent ({pct} never captured, in {} hole{} in its sequence numbers){}, \
         so {what} can be judged from it: the pauses between the fragments it holds are the capture's gaps, not the transfer's.",
        format_bytes(u.captured()),
        format_bytes(u.sent),
        u.holes,
        if u.holes == 1 { "" } else { "s" },
        if crate::analysis::stalls::acks_unseen(cols) { " and no pure ACK (it keeps only data segments)" } else { "" },
    );
    if let Some((b, at, frame)) = u.acked {
        t += &format!(" {receiver}'s acknowledgements show {} of it delivered by {} (frame {frame}).", format_bytes(b.min(u.sent)), format_timestamp(at));
    }
    t
}

/// The diagnosis of a connection whose capture misses most of a side's data (limit
/// `capture-gaps`), None otherwise: the sentence, then the ending where it is said
/// (a reset, a refusal, data never acknowledged: ending.rs), and nothing else.
pub fn diagnosis(conn: &ConnectionSummary, cols: &PacketColumns) -> Option<Diagnosis> {
    let u = judge(conn, cols)?;
    // What the capture holds whole comes first: the wait before the first answer.
    let mut text = match intact::first_answer(conn, cols) {
        Some(wait) => format!("{wait} {}", sentence_of(conn, cols, &u, "no limit of the transfer")),
        None => sentence(conn, cols, &u),
    };
    if conn.ending.abnormal || conn.ending.after_data.is_some() {
        text += &format!(" {}", conn.ending.text);
    }
    let evidence = Evidence { verdict: "unknown", ..Evidence::default() };
    Some(Diagnosis { limit: "capture-gaps".to_string(), text, evidence, ..Diagnosis::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (dir, seq, len, ack): dir 0 the sender's data, dir 1 the receiver's ACKs.
    fn cols(rows: &[(u8, f64, u32, f64)]) -> PacketColumns {
        let mut c = PacketColumns::default();
        for (k, &(d, seq, len, ack)) in rows.iter().enumerate() {
            c.t.push(k as f64);
            c.frame.push(k as u32 + 1);
            c.dir.push(d);
            c.seq.push(seq);
            c.len.push(len);
            c.ack.push(ack);
            c.win.push(65535.0);
            c.flags.push(0);
            c.in_flight.push(f64::NAN);
        }
        c
    }

    #[test]
    fn holes_filled_later_are_not_missing_and_acks_past_the_data_are() {
        // Bytes 1–1001 captured, 1001–3001 not (a hole), 3001–4001 captured, then a
        // re-send fills 1001–2001; the receiver acknowledges 6001 (frame 6): 4001–6001
        // was sent and never captured. Sent 6,000 B; missing 2001–3001 and 4001–6001 =
        // 3,000 B in 2 runs (the hole's part and the tail), captured 3,000 B.
        let c = cols(&[(0, 1.0, 1000, f64::NAN), (0, 3001.0, 1000, f64::NAN), (1, f64::NAN, 0, 1001.0), (0, 1001.0, 1000, f64::NAN), (1, f64::NAN, 0, 4001.0), (1, f64::NAN, 0, 6001.0)]);
        // The rows give the 3,000 B captured; the missing bytes and holes are the
        // tracker's (capture_loss.rs `Missed`), here the same 3,000 B in 2 runs.
        let u = of_direction(&c, 0, Missed { bytes: 3000, holes: 2 }).unwrap();
        assert_eq!((u.sent, u.missing, u.captured(), u.holes), (6000.0, 3000.0, 3000.0, 2));
        assert_eq!(u.acked, Some((6000.0, 5.0, 6)));
        // Half missing is not more than half.
        assert!(u.missing <= MISSING_SAID * u.sent);
        // A jump of half the sequence space is no hole (RFC 9293 §3.4): nothing is said.
        let c = cols(&[(0, 1.0, 1000, f64::NAN), (0, 1001.0 + SEQ_HALF, 1000, f64::NAN)]);
        assert_eq!(of_direction(&c, 0, Missed::default()), None);
    }
}
