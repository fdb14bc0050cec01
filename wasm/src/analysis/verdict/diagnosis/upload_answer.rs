//! The peer's answer after an upload (issue 39 review AD class
//! C-ANSWER-AFTER-UPLOAD-UNNAMED, Shmosh001 `TCP.pcapng` connection 0: a Windows client
//! POSTed 303 kB through a proxy; its last byte was acknowledged at frame 312 (0.344 s)
//! and the "HTTP/1.1 200" came at frame 323 (3.187 s) — 2.84 s, 89 % of the exchange —
//! and the page said only that the connection "stayed open" after its data).
//!
//! The mirror of first_answer.rs: there the data direction answers the peer; here the
//! data direction is the one that opened the connection (the client: RFC 9293 §3.5,
//! the SYN's sender) and uploaded, and the peer answered with a message smaller than the
//! upload. The rule (docs/ANALYSIS.md "The answer after an upload"): the upload's last
//! turn is the sender's data since the peer's previous message; once the peer had
//! acknowledged all of it (RFC 9293 §3.10.7.4: an ACK covering SND.NXT — nothing of the
//! sender's was outstanding, the turn was the peer's), the time to the peer's next
//! payload is the peer's own, measured between two of its own segments, so the same at
//! any vantage (a delayed ACK only shortens it). Said where that wait is at least the
//! first answer's floor (four path RTTs, 10 ms) and at least the upload's own time, and
//! the upload at least [`MIN_ANSWER_SEGMENTS`] full segments. An answer that is only an
//! ACK (no payload) is no answer: nothing is said.

use super::*;
use crate::analysis::rows::columns::flag_bits;
use crate::analysis::verdict::first_byte::{wait_words, FIRST_ANSWER_MIN_S, FIRST_ANSWER_RTTS, MIN_ANSWER_SEGMENTS};
use crate::decode::tcp_flags::SYN;

/// The rows (upload's first data, the peer's ACK of its last byte, the peer's answer).
pub(super) fn rows(f: &Facts) -> Option<(usize, usize, usize)> {
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    // Only the side that opened the connection asks (its SYN seen): the other side's
    // next message after a download is the client's next request, not an answer.
    let sender = &f.conn.directions[d as usize].from;
    if !f.conn.handshake.syn.as_ref().is_some_and(|s| &s.from == sender) {
        return None;
    }
    let is_data = |i: usize| crate::analysis::stalls::is_data_segment(p, i, d);
    // The peer's message: payload that is neither a keep-alive's byte nor on a SYN.
    let peer_says = |i: usize| p.dir[i] != d && p.len[i] > 0 && p.flags[i] & (SYN as u32 | flag_bits::KEEP_ALIVE) == 0;
    let last = (0..p.t.len()).rev().find(|&i| is_data(i))?;
    // The upload's last turn: its data since the peer's previous message.
    let from = (0..last).rev().find(|&i| peer_says(i)).map_or(0, |i| i + 1);
    let start = (from..=last).find(|&i| is_data(i))?;
    let high = (start..=last).filter(|&i| is_data(i)).map(|i| p.seq[i] + f64::from(p.len[i])).fold(f64::NEG_INFINITY, f64::max);
    let acked = (last + 1..p.t.len()).find(|&i| p.dir[i] != d && p.ack[i] >= high)?;
    if peer_says(acked) {
        return None; // the answer carried the ACK itself: no wait
    }
    let answer = (acked + 1..p.t.len()).find(|&i| peer_says(i))?;
    Some((start, acked, answer))
}

/// "128.119.245.12:80 answered 2.84 s after acknowledging the upload's last byte (frame 312
/// at 0.344 s → frame 323 at 3.187 s), 89 % of the 3.2 s exchange and longer than the
/// 296 KiB upload itself took (308 ms), …". None where the module's rule does not hold.
pub(super) fn sentence(f: &Facts) -> Option<String> {
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let (start, acked, answer) = rows(f)?;
    let wait = p.t[answer] - p.t[acked];
    let took = p.t[acked] - p.t[start];
    let floor = (FIRST_ANSWER_RTTS * f.min_rtt).max(FIRST_ANSWER_MIN_S).max(f.tick);
    let bytes = p.ack[acked] - p.seq[start];
    // The peer's answer is smaller than the upload (else it is the data direction).
    let answer_bytes: f64 = (answer..p.t.len()).filter(|&i| p.dir[i] != d && p.len[i] > 0).map(|i| f64::from(p.len[i])).sum();
    if !(wait >= floor && wait >= took && took > 0.0 && bytes >= MIN_ANSWER_SEGMENTS * real_segment_bytes(f) && answer_bytes < bytes) {
        return None;
    }
    // The exchange: the connection's first row to the answer.
    let exchange = p.t[answer] - p.t[0];
    let peer = &f.conn.directions[1 - d as usize].from;
    let share = wait / exchange;
    // "took the time" only where the wait was most of the exchange (a slow handshake
    // may have taken more: cisco mercury `capture2.pcap` connection 117, 463 ms of 4 s).
    let most = if share >= 0.5 { ": the wait for the answer, not the upload, took the time" } else { "" };
    Some(format!(
        "{peer} answered {} after acknowledging the upload's last byte (frame {} at {} → frame {} at {}), {:.0} % of the {} \
         exchange and longer than the {} upload itself took ({}), the peer's own time to answer (its application's, or a \
         server's behind a proxy that acknowledged for it){most}.",
        wait_words(wait),
        p.frame[acked],
        format_timestamp(p.t[acked]),
        p.frame[answer],
        format_timestamp(p.t[answer]),
        100.0 * share,
        format_duration(exchange),
        format_bytes(bytes),
        format_duration(took),
    ))
}
