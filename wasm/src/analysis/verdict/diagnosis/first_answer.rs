//! The wait before the data direction's first byte (issue 39 review L class C-TTFB):
//! the shares, stalls and savings start at the first data segment, so a server that
//! took 16.65 s to answer a POST whose 6.8 MB answer then took 26 ms read only "about
//! 6.2 ms instead of 26 ms" — the wait a user saw, never said.
//!
//! The rule (RFC 9293 §3.10.7: data before the request is the peer's; a request with
//! nothing of ours outstanding hands the turn to us): the silence between the peer's
//! last data segment before our first data and that first data is our side's time to
//! answer, measured at the capture point (a client-side capture adds one path round
//! trip). Without data from the peer before it, the silence since the handshake is
//! said as such (the request may have travelled elsewhere: another MPTCP subflow).

use super::*;
#[path = "handshake_story.rs"]
mod handshake_story;
#[path = "answer_turns.rs"]
mod answer_turns;
#[path = "path_hold.rs"]
mod path_hold;
#[path = "upload_answer.rs"]
mod upload_answer;

/// The thresholds of a first answer's wait (first_byte.rs, shared with the
/// capture-gaps verdict).
pub use crate::analysis::verdict::first_byte::{FIRST_ANSWER_MIN_S, FIRST_ANSWER_RTTS, MIN_ANSWER_SEGMENTS};

/// "The first byte of the answer came 16.65 s after the request (frame 4 at 0.001 s →
/// frame 10 at 16.655 s); the 6.5 MiB of data then took 26 ms." None when the wait is
/// below the thresholds, the answer a message (under [`MIN_ANSWER_SEGMENTS`]), or the
/// handshake is missing (the capture may start mid-way).
pub(super) fn first_answer_sentence(f: &Facts) -> Option<String> {
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    const SYN: u32 = crate::decode::tcp_flags::SYN as u32;
    // The span: the request (or the handshake's end) → the first data (first_byte.rs).
    let crate::analysis::verdict::first_byte::FirstByte { request, from, first } = crate::analysis::verdict::first_byte::span(p, f.conn, d)?;
    let wait = p.t[first] - p.t[from];
    let floor = (FIRST_ANSWER_RTTS * f.min_rtt).max(FIRST_ANSWER_MIN_S);
    if !(wait >= floor && wait >= f.sh.active) {
        return None;
    }
    let span = format!(
        "frame {} at {} → frame {} at {}",
        p.frame[from],
        format_timestamp(p.t[from]),
        p.frame[first],
        format_timestamp(p.t[first])
    );
    // The data's sequence span from the first data segment: what was sent or
    // acknowledged, holes in the capture included (a capture that missed the last
    // 1.1 MiB still holds the receiver's ACK of it).
    let end = (first..p.t.len())
        .filter(|&i| (p.dir[i] == d && p.len[i] > 0) || (p.dir[i] != d && p.flags[i] & SYN == 0))
        .map(|i| if p.dir[i] == d { p.seq[i] + p.len[i] as f64 } else { p.ack[i] })
        .filter(|v| v.is_finite())
        .fold(f64::NEG_INFINITY, f64::max);
    // An answer of a message or two (a greeting, one reply) has no transfer time to
    // set the wait against: said only for at least two full segments sent over a
    // measured time.
    if !(f.sh.active > 0.0 && end - p.seq[first] >= MIN_ANSWER_SEGMENTS * real_segment_bytes(f)) {
        return None;
    }
    let (end, took) = own_burst(p, d, first).unwrap_or((end, f.sh.active));
    let then = if took > 0.0 && end > p.seq[first] {
        format!("; the {} of data then took {}", format_bytes(end - p.seq[first]), format_duration(took))
    } else {
        String::new()
    };
    let held = path_hold::sentence(f, d, first).unwrap_or_default(); // the path's part, by the sender's own TSvals
    Some(match request {
        Some(_) => format!(
            "The first byte of the answer came {} after the peer's request ({span}){then}: the wait for the answer, not the transfer, took the time.{held}",
            wait_words(wait)
        ),
        // On an MPTCP subflow the request may have gone on another subflow (mptcp_subflow.rs).
        None => format!(
            "The first data came {} after the handshake ({span}){}{then}.",
            wait_words(wait),
            crate::analysis::verdict::mptcp_subflow::no_peer_data_words(f.conn)
        ),
    })
}

use crate::analysis::verdict::first_byte::wait_words;

/// The first answer's own end where the peer spoke again before the sender's last data
/// (review Z class 5: "took" is measured per answer, never across later turns): the
/// highest byte sent or acknowledged before the peer's next message, and the time from
/// the first data row to the sender's last data row before it. None where the peer
/// said nothing more inside the transfer.
fn own_burst(p: &crate::analysis::rows::columns::PacketColumns, d: u8, first: usize) -> Option<(f64, f64)> {
    const SYN: u32 = crate::decode::tcp_flags::SYN as u32;
    let is_data = |i: usize| crate::analysis::stalls::is_data_segment(p, i, d);
    let last = (first..p.t.len()).rev().find(|&i| is_data(i))?;
    let next = (first + 1..last).find(|&i| p.dir[i] != d && p.len[i] > 0 && p.flags[i] & (SYN | crate::analysis::rows::columns::flag_bits::KEEP_ALIVE) == 0)?;
    let z = (first..next).rev().find(|&i| is_data(i))?;
    let end = (first..next)
        .filter(|&i| (p.dir[i] == d && p.len[i] > 0) || (p.dir[i] != d && p.flags[i] & SYN == 0))
        .map(|i| if p.dir[i] == d { p.seq[i] + p.len[i] as f64 } else { p.ack[i] })
        .filter(|v| v.is_finite())
        .fold(f64::NEG_INFINITY, f64::max);
    Some((end, p.t[z] - p.t[first]))
}

/// Of the sender's data since the peer's last message, at most this share may precede
/// the answer's first byte (a protocol's control frame: an HTTP/2 SETTINGS ack).
pub const LEAD_SHARE: f64 = 0.01;

/// The longest wait for an answer later in the connection (issue 39 review Q, ffx: the
/// server sent a 30-byte HTTP/2 SETTINGS ack 47 ms after the browser's request and
/// its 389 KiB answer 1.66 s after it, the client silent in between; the first-answer
/// rule above saw only the TLS handshake's quick first bytes). The rule: the sender's
/// data after each message of the peer (up to the peer's next) is an answer; its first
/// byte is the segment after the answer's longest gap, only less than [`LEAD_SHARE`]
/// of what followed and under one full segment sent before it (a control frame is no
/// answer's first byte); the wait runs from the peer's message to that byte, with no
/// data of the peer in it: the sender's time (RFC 9293 §3.10.7: a message with
/// nothing of ours outstanding hands the turn to us). Said for the longest such wait
/// where it is at least [`FIRST_ANSWER_RTTS`] path RTTs, at least the time from that
/// byte to the transfer's end (a measured time, above 0), at least half the transfer's new bytes came after it,
/// and the answer (to the peer's next message) was at least [`MIN_ANSWER_SEGMENTS`]
/// full segments — a few bytes the sender sent after a long silence may be its own
/// initiative (a command from an operator), not an answer: then the wait, not the
/// transfer, took the time.
fn answer_wait_sentence(f: &Facts) -> Option<String> {
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    const SYN: u32 = crate::decode::tcp_flags::SYN as u32;
    let is_data = |i: usize| crate::analysis::stalls::is_data_segment(p, i, d);
    let last = (0..p.t.len()).rev().find(|&i| is_data(i))?;
    let end_t = f.sh.ends_at().map_or(p.t[last], |e| e.min(p.t[last]));
    let segment = real_segment_bytes(f);
    // (peer's message, the answer's first byte, bytes before it since the message, bytes
    // from it to the peer's next message, the answer's last data row)
    let mut best: Option<(usize, usize, f64, f64, usize)> = None;
    // The answer since the peer's last message: its first byte, the bytes before it, the
    // gap before it and its bytes so far.
    let (mut peer, mut prev, mut lead, mut chunk) = (None::<usize>, None::<usize>, 0.0, None::<(usize, f64, f64, f64)>);
    let mut first_seq = f64::NAN;
    // The sender's last data row since the peer's last message, re-sends included (the
    // answer's time runs to its last byte's last sending: a tail re-sent is part of it).
    let mut tail = None::<usize>;
    // A server's reply to the client's data hands no turn back (answer_turns.rs).
    let (opened, mut spoke, mut reply) = (answer_turns::sender_opened(f.conn, d), false, false);
    let consider = |best: &mut Option<(usize, usize, f64, f64, usize)>, peer: Option<usize>, chunk: Option<(usize, f64, f64, f64)>, prev: Option<usize>| {
        if let (Some(r), Some((k, l, _, bytes)), Some(z)) = (peer, chunk, prev) {
            if best.is_none_or(|(br, bk, _, _, _)| p.t[k] - p.t[r] > p.t[bk] - p.t[br]) {
                *best = Some((r, k, l, bytes, z));
            }
        }
    };
    for i in 0..p.t.len() {
        if p.t[i] > end_t {
            break;
        }
        if is_data(i) {
            tail = Some(i);
        }
        // The peer's data (a keep-alive's garbage byte is none, RFC 1122 §4.2.3.6).
        if p.dir[i] != d && p.len[i] > 0 && p.flags[i] & SYN == 0 && p.flags[i] & crate::analysis::rows::columns::flag_bits::KEEP_ALIVE == 0 {
            consider(&mut best, peer, chunk, tail);
            tail = None;
            (reply, spoke) = (if spoke { opened } else { reply }, false);
            (peer, prev, lead, chunk) = ((!reply).then_some(i), None, 0.0, None);
        } else if is_data(i) && p.flags[i] & crate::analysis::rows::columns::flag_bits::ANY_RETRANSMISSION == 0 {
            spoke = true;
            if first_seq.is_nan() {
                first_seq = p.seq[i];
            }
            // The segment after the longest gap since the peer's message starts the answer.
            let gap = p.t[i] - prev.map_or_else(|| peer.map_or(f64::NAN, |r| p.t[r]), |j| p.t[j]);
            if peer.is_some() && chunk.is_none_or(|(_, _, longest, _)| gap > longest) {
                chunk = Some((i, lead, gap, 0.0));
            }
            if let Some(c) = chunk.as_mut() {
                c.3 += f64::from(p.len[i]);
            }
            lead += f64::from(p.len[i]);
            prev = Some(i);
        }
    }
    consider(&mut best, peer, chunk, tail);
    let (r, k, lead, answer, z) = best?;
    let wait = p.t[k] - p.t[r];
    let sent_end = |until: f64| (0..=last).filter(|&i| is_data(i) && p.t[i] <= until).map(|i| p.seq[i] + f64::from(p.len[i])).fold(f64::NEG_INFINITY, f64::max);
    let (rest, total, took) = (sent_end(end_t) - p.seq[k], sent_end(end_t) - first_seq, end_t - p.t[k]);
    let floor = (FIRST_ANSWER_RTTS * f.min_rtt).max(FIRST_ANSWER_MIN_S);
    if !(wait >= floor && took > 0.0 && wait >= took && 2.0 * rest >= total && rest >= MIN_ANSWER_SEGMENTS * segment && lead < LEAD_SHARE * rest && lead < segment && answer >= MIN_ANSWER_SEGMENTS * segment) {
        return None;
    }
    let between = if lead > 0.0 { format!(", only {} sent before it", format_bytes(lead)) } else { String::new() };
    // The answer's own bytes and time, to its last segment before the peer's next
    // message: not across later turns (review Z class 5, wifi: "the 12 KiB of data then
    // took 17 s" joined two requests sent 17 s apart, each in under 2 ms).
    let (rest, took) = (sent_end(p.t[z]) - p.seq[k], p.t[z] - p.t[k]);
    Some(format!(
        "The answer came {} after the peer's message (frame {} at {} → frame {} at {}), the peer silent meanwhile{between}; \
         the {} of data then took {}: the wait for the answer, not the transfer, took the time.",
        wait_words(wait),
        p.frame[r],
        format_timestamp(p.t[r]),
        p.frame[k],
        format_timestamp(p.t[k]),
        format_bytes(rest),
        format_duration(took)
    ))
}

/// Words that put the transfer's own headline after a wait sentence that took more of
/// the time than the transfer did (`after_headline`).
pub const WITHIN_THE_TRANSFER: &str = "Within the transfer, ";

/// The headline `(limit, text)` led by [`first_answer_sentence`] where it is said: the
/// wait it tells was at least the transfer's whole time, so it comes first, and the
/// transfer's own limit follows as the transfer's (review T class C-HEADLINE-VS-FIRST-BYTE: an 802.11
/// download's "Loss limited this flow …" above "the wait for the answer, not the
/// transfer, took the time" gave a reader two limits).
///
/// Only the first answer's wait comes before the transfer the shares measure; a later
/// answer's wait lies inside it (the headline's idle time holds it), so it follows the
/// headline as before (review U class C-WITHIN-TRANSFER-INCLUDES-WAIT: "Within the
/// transfer, … idle gaps totalling 8.1 s" after an 8.1-s wait, beside a 51-ms transfer).
/// Then the handshake's own time, where it was slow (handshake_story.rs).
pub(super) fn after_headline(f: &Facts, (limit, text): (&'static str, String)) -> (&'static str, String) {
    // The peer's answer after an upload follows the upload's own headline (upload_answer.rs).
    let handshake = handshake_story::said(f) + &upload_answer::sentence(f).map(|s| format!(" {s}")).unwrap_or_default();
    if let Some(s) = first_answer_sentence(f) {
        return (limit, format!("{s} {WITHIN_THE_TRANSFER}{}{handshake}", lower_first(&text)));
    }
    match answer_wait_sentence(f) {
        Some(s) => (limit, format!("{text} {s}{handshake}")),
        None => (limit, text + &handshake),
    }
}

/// `text` with its first letter in lower case ("The sending …" → "the sending …"; an
/// address or a number stays as it is).
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) if c.is_ascii_uppercase() => c.to_ascii_lowercase().to_string() + chars.as_str(),
        _ => text.to_string(),
    }
}
