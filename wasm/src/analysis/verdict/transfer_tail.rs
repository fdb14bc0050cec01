//! The connection's idle tail after its transfer (diagnosis_shares/transfer_end.rs),
//! said on its own: the shares, the savings and the headline's times end at the
//! transfer's end, and this sentence tells what the connection did after it, so that
//! neither the idle nor the bytes that followed go unmentioned.

use crate::analysis::format::{format_bytes, format_duration, format_timestamp};
use crate::analysis::report::{ConnectionSummary, TransferEnd};
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::cause::StallCause;

/// The tail's longest idle pause (issue 39 review Q: a tail sentence that named its
/// first pause, 36 ms, hid the 58 s the connection then idled, newtoy #35; review P,
/// jackcr: "idled 15 ms", one ordinary request/response turn, where the connection
/// then sat 5 s without data until the server's reset).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TailPause {
    /// Its start (the last data before it) and length, s.
    pub start: f64,
    pub seconds: f64,
    /// What ended it.
    pub ended: Ended,
}

/// What ended a tail pause.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ended {
    /// The peer's message: the peer's last data before the sender's next came in the
    /// pause's second half (the sender answered it). Review P, hack: a 58 s pause ended
    /// by the client's record 24 ms before the server's answer read "before the sender
    /// sent again", because an earlier message of the client, right at the pause's
    /// start, was the one looked at.
    Peer,
    /// The sender's own next data.
    Sender,
    /// No data followed: the first FIN of either side, the reset, or the connection's
    /// last packet in the capture.
    Fin,
    Reset,
    CaptureEnd,
}

/// The tail's pauses as the packets show them: who ended its first (the pause
/// [`TransferEnd`] names) and its longest.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TailPauses {
    pub first: Option<Ended>,
    pub longest: Option<TailPause>,
}

/// The tail's pauses from the transfer's end on: the data direction's
/// `application-idle` stalls that began at the transfer's end or after, and the
/// silence from the connection's last data (either side) to its close (the first FIN
/// or reset after it, else its last packet).
pub fn tail_pauses(conn: &ConnectionSummary, p: &PacketColumns, te: &TransferEnd) -> TailPauses {
    use crate::analysis::rows::columns::flag_bits::KEEP_ALIVE;
    use crate::decode::tcp_flags::{FIN, RST, SYN};
    let d = conn.data_direction.min(1);
    // A keep-alive's one garbage byte (RFC 1122 §4.2.3.6) is no data.
    let has_data = |i: usize| p.len[i] > 0 && p.flags[i] & u32::from(SYN | FIN | RST) == 0 && p.flags[i] & KEEP_ALIVE == 0;
    let pause = |s: &crate::analysis::stalls::cause::Stall| {
        let (a, b) = (s.start, s.start + s.duration);
        let (from, to) = (p.t.partition_point(|&t| t <= a), p.t.partition_point(|&t| t < b));
        let last_peer = (from..to).rev().find(|&i| p.dir[i] != d && has_data(i));
        let peer = last_peer.is_some_and(|i| b - p.t[i] <= 0.5 * s.duration);
        TailPause { start: a, seconds: s.duration, ended: if peer { Ended::Peer } else { Ended::Sender } }
    };
    let idle: Vec<&crate::analysis::stalls::cause::Stall> =
        conn.directions[usize::from(d)].stalls.iter().filter(|s| s.cause == StallCause::ApplicationIdle && s.start >= te.at).collect();
    let first = idle.iter().find(|s| (s.start - te.at).abs() <= 1e-9).map(|s| pause(s).ended);
    let stall = idle.iter().max_by(|a, b| a.duration.total_cmp(&b.duration).then(b.start.total_cmp(&a.start))).map(|s| pause(s));
    // The silence after the last data, to the close.
    let last = (0..p.t.len()).rev().find(|&i| has_data(i)).filter(|&i| p.t[i] >= te.at);
    let silence = last.and_then(|l| {
        let close = (l + 1..p.t.len()).find(|&i| p.flags[i] & u32::from(FIN | RST) != 0);
        let (end, ended) = match close {
            Some(i) if p.flags[i] & u32::from(RST) != 0 => (p.t[i], Ended::Reset),
            Some(i) => (p.t[i], Ended::Fin),
            None => (*p.t.last()?, Ended::CaptureEnd),
        };
        Some(TailPause { start: p.t[l], seconds: end - p.t[l], ended })
    });
    let longest = match (stall, silence) {
        (Some(a), Some(b)) => Some(if b.seconds > a.seconds { b } else { a }),
        (a, b) => a.or(b),
    };
    TailPauses { first, longest }
}

/// "The transfer ended at 0.374 s (frame 2107, 2.1 MiB sent); the connection then
/// idled 869 ms until the sender answered a message of the peer, and only 400 B followed: …" — with the
/// first pause as [`TransferEnd`] has it ([`sentence_with`] reads the packets).
pub fn sentence(te: &TransferEnd) -> String {
    sentence_with(te, TailPauses::default())
}

/// [`sentence`] with who ended the first pause as the packets show it, and the tail's
/// longest pause where it came later and lasted longer than the first: "… the
/// connection then idled 36 ms before the sender sent again, and only 735 B followed
/// over the next 58 s; its longest pause, 58 s from 87.215 s, ended with the peer's
/// next message: …".
pub fn sentence_with(te: &TransferEnd, pauses: TailPauses) -> String {
    let until = |e: Ended| if e == Ended::Peer { "until the sender answered a message of the peer" } else { "before the sender sent again" };
    let ended = |e: Ended| match e {
        Ended::Peer => "ended when the sender answered a message of the peer",
        Ended::Sender => "ended when the sender sent again",
        Ended::Fin => "ended with the first FIN, no data after it",
        Ended::Reset => "ended with the reset, no data after it",
        Ended::CaptureEnd => "lasted to the connection's last packet in the capture, no data after it",
    };
    let first = pauses.first.unwrap_or(if te.peer_spoke { Ended::Peer } else { Ended::Sender });
    // A later pause than the first, and longer: the first is not what the connection did.
    let later = pauses.longest.filter(|l| l.start > te.at && l.seconds > te.idle_seconds);
    // The tail: to the direction's last data, or the end of that pause if later.
    let stayed = later.map_or(te.tail_seconds, |l| te.tail_seconds.max(l.start + l.seconds - te.at));
    // More than the one pause and its answer: say over how long the rest came.
    let over = if stayed > TAIL_MORE * te.idle_seconds { format!(" over the next {}", format_duration(stayed)) } else { String::new() };
    let longest = later.map_or_else(String::new, |l| {
        format!("; its longest pause, {} from {}, {}", format_duration(l.seconds), format_timestamp(l.start), ended(l.ended))
    });
    format!(
        "The transfer ended at {} (frame {}, {} sent); the connection then idled {} {}, and only {} followed{over}{longest}: \
         time the connection stayed open (waiting for a next request, a keep-alive or the close), not time the transfer \
         took, so everything above is of the transfer up to {}.",
        format_timestamp(te.at),
        te.frame,
        format_bytes(te.bytes),
        format_duration(te.idle_seconds),
        until(first),
        format_bytes(te.tail_bytes),
        format_timestamp(te.at),
    )
}

/// " " and [`sentence_with`] where the transfer ended before an idle tail, else nothing;
/// [`closing_sentence`] where only closing messages followed it.
pub fn said(end: Option<&TransferEnd>, conn: &ConnectionSummary, p: &PacketColumns) -> String {
    end.map_or_else(String::new, |te| match closing_after(conn, p, te) {
        Some(bytes) => format!(" {}", closing_sentence(te, bytes, conn.ending.after_data.is_some_and(|a| a.last_data_frame == te.frame))),
        None => format!(" {}", sentence_with(te, tail_pauses(conn, p, te))),
    })
}

/// The payload bytes after the transfer's end where all of it, of either side, was
/// closing messages (track/ending/closing_message.rs, at the stall threshold), else None.
fn closing_after(conn: &ConnectionSummary, p: &PacketColumns, te: &TransferEnd) -> Option<u32> {
    use crate::analysis::track::ending::closing_message::{closing_rows, is_data_not_closing};
    let closing = closing_rows(p, conn.stall_threshold_ms / 1000.0);
    let row = p.row_of(te.frame, te.at)?;
    let after = row + 1..p.t.len();
    let any = closing.iter().flatten().any(|&i| i > row);
    (any && after.clone().all(|i| !is_data_not_closing(p, closing, i))).then(|| closing.iter().flatten().filter(|&&i| i > row).map(|&i| p.len[i]).sum())
}

/// "The transfer ended at 81.799 s (frame 3723, 896 KiB sent); the connection then
/// idled 4.8 s until its close, and only closing messages followed (62 B, …)": the tail
/// of a connection that closed after an idle pause (diagnosis_shares/closing_end.rs).
/// `told`: the ending's after-data sentence tells the same open time (ending.afterData
/// from the same frame), so this one only marks where the numbers above end.
pub fn closing_sentence(te: &TransferEnd, bytes: u32, told: bool) -> String {
    let (at, idled) = (format_timestamp(te.at), format_duration(te.idle_seconds));
    if told {
        return format!(
            "The transfer ended at {at} (frame {}, {} sent) and everything above is of it; the connection then idled {idled} until its close, as its ending says.",
            te.frame,
            format_bytes(te.bytes)
        );
    }
    format!(
        "The transfer ended at {at} (frame {}, {} sent); the connection then idled {idled} until its close, and only closing messages \
         followed ({} B, each sent as its sender closed, as TLS's close_notify is): time the connection stayed open \
         before closing, not time the transfer took, so everything above is of the transfer up to {at}.",
        te.frame,
        format_bytes(te.bytes),
        bytes
    )
}

/// The tail lasted more than this many times its first pause: more than that pause and
/// its answer followed, and the sentence says over how long.
pub const TAIL_MORE: f64 = 1.5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_is_said_with_its_numbers() {
        let te = TransferEnd { at: 0.373922, frame: 2107, bytes: 2_174_291.0, idle_seconds: 0.86944, peer_spoke: true, tail_bytes: 400.0, tail_seconds: 0.86944 };
        assert_eq!(
            sentence(&te),
            "The transfer ended at 0.374 s (frame 2107, 2.1 MiB sent); the connection then idled 869 ms until the sender answered \
             a message of the peer, and only 400 B followed: time the connection stayed open (waiting for a next request, a keep-alive or the \
             close), not time the transfer took, so everything above is of the transfer up to 0.374 s."
        );
    }
}
