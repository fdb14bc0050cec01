//! The connection's life after its last data (docs/ANALYSIS.md "How the connection
//! ended", `ending.afterData`; issue 39 review P class C-IDLE-TAIL-UNSAID). The shares
//! and the diagnosis's times end with the data; a connection that then stays open —
//! kept alive (RFC 1122 §4.2.3.6: a keep-alive carries no new data, it is the
//! connection staying open), waiting for a next request, or forgotten until a reset —
//! holds time no number above it counts. When that time is longer than the data took,
//! the ending says it: a zeek SMB3 capture's data took 1.8 s and the connection then
//! stayed open 161 s, kept alive every 30 s, until the server reset it; "77 % of the
//! time" was of the 1.8 s, and nothing said the rest.

use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use serde::Serialize;

/// What followed the connection's last data (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AfterData {
    /// The connection's last data segment, either direction (payload that is no
    /// keep-alive, zero-window probe or reset's text): s since the file's first packet,
    /// and its frame.
    pub last_data_at: f64,
    pub last_data_frame: u32,
    /// From the connection's first data segment to its last, s.
    pub data_seconds: f64,
    /// From its last data segment to the close (the reset, else the first FIN after
    /// it), or to the connection's last packet where it never closed, s: longer than
    /// `dataSeconds` and than the stall threshold.
    pub seconds: f64,
    /// The closing message that began the close (closing_message.rs: a side's last
    /// few bytes, just before or with its FIN, e.g. TLS's close_notify): its frame and
    /// payload bytes; no data, so the open time runs to it. Null where none.
    pub closing_frame: Option<u32>,
    pub closing_bytes: Option<u32>,
    /// TCP keep-alives either side sent in that time (RFC 1122 §4.2.3.6).
    pub keep_alives: u32,
    /// The median spacing of the keep-alives of the side that sent the most, s; null
    /// where it sent fewer than two.
    pub keep_alive_every: Option<f64>,
}

/// The shortest time after the data worth a sentence: RFC 6298 §2.4's floor on the
/// retransmission timeout, 1 s; a few milliseconds between the last data and the FIN
/// are the close itself, not a connection left open (review Q: tails of 11 ms).
pub const MIN_OPEN_S: f64 = 1.0;

/// The close that ends a connection's open time, and whether it was a FIN: the first
/// FIN of either side or the reset, whichever came first (RFC 9293 §3.6).
fn close_of(reset: Option<super::Reset>, fin_at: [Option<f64>; 2]) -> Option<(f64, bool)> {
    let fin = fin_at.into_iter().flatten().min_by(f64::total_cmp);
    match (reset.map(|r| r.at), fin) {
        (Some(r), Some(f)) if f <= r => Some((f, true)),
        (Some(r), _) => Some((r, false)),
        (None, f) => f.map(|f| (f, true)),
    }
}

/// What followed the last data of the connection whose rows are `p`, when it lasted
/// longer than its data took and than `floor_s` (the stall threshold: shorter is no
/// pause, and than [`MIN_OPEN_S`]); it lasted until the close: the first FIN of either
/// side (`fin_at`) or the reset, whichever came first, else the connection's last
/// packet; none where the close began before the last data.
pub(super) fn after_data(p: &PacketColumns, (reset, fin_at): (Option<super::Reset>, [Option<f64>; 2]), floor_s: f64) -> Option<AfterData> {
    // A side's closing message (a close_notify with its FIN) is the close, not data.
    let closing = super::closing_message::closing_rows(p, floor_s);
    let is_data = |p: &PacketColumns, i: usize| super::closing_message::is_data_not_closing(p, closing, i);
    let first = (0..p.t.len()).find(|&i| is_data(p, i))?;
    let last = (first..p.t.len()).rev().find(|&i| is_data(p, i))?;
    let (t0, t1) = (p.t[first], p.t[last]);
    // A connection that was already closing when its last data came (a FIN before it)
    // never "stayed open" after it (review Q: ftpd, cw4).
    let close_at = close_of(reset, fin_at).map(|(at, _)| at);
    if close_at.is_some_and(|c| c < t1) {
        return None;
    }
    let end = close_at.unwrap_or(*p.t.last()?);
    let seconds = end - t1;
    if !(seconds > t1 - t0 && seconds > floor_s.max(MIN_OPEN_S)) {
        return None;
    }
    let alive = |d: u8| (last..p.t.len()).filter(move |&i| p.dir[i] == d && p.t[i] <= end && p.flags[i] & flag_bits::KEEP_ALIVE != 0);
    let counts = [0, 1].map(|d| alive(d).count());
    let most = if counts[1] > counts[0] { 1 } else { 0 };
    let times: Vec<f64> = alive(most).map(|i| p.t[i]).collect();
    let mut spacings: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    spacings.sort_by(f64::total_cmp);
    let began = closing.into_iter().flatten().filter(|&i| i > last && p.t[i] <= end).min();
    Some(AfterData {
        closing_frame: began.map(|i| p.frame[i]),
        closing_bytes: began.map(|i| p.len[i]),
        last_data_at: t1,
        last_data_frame: p.frame[last],
        data_seconds: t1 - t0,
        seconds,
        keep_alives: (counts[0] + counts[1]) as u32,
        keep_alive_every: spacings.get(spacings.len() / 2).copied(),
    })
}

/// The after-data sentence at the start of the ending's (`s`), where there is one, and
/// a space before the next; true where it said all: an open connection with nothing
/// that ended nothing (the capture's end is its close).
pub(super) fn push_sentence(s: &mut String, e: &super::Ending) -> bool {
    let Some(a) = &e.after_data else { return false };
    let plain_open = e.kind == "open" && e.reset_ended_nothing.is_none() && e.fin_ended_nothing.is_none();
    // The close that ended the open time (`after_data`): a FIN before the reset ended it.
    let fin_first = close_of(e.reset, e.fin_at).is_some_and(|(_, fin)| fin);
    let until = match e.kind {
        "reset" if !fin_first => "the reset",
        "reset" | "fin-both" | "fin-one-way" => "the first FIN",
        _ if plain_open => "the capture ended, with no FIN or reset in it",
        _ => "the capture ended",
    };
    push_words(s, a, until);
    if !plain_open {
        *s += " ";
    }
    plain_open
}

/// "After its last data (frame 1350 at 1.823 s) the connection stayed open 161 s more,
/// longer than the 1.8 s its data took both ways, kept alive by 6 TCP keep-alives about every
/// 30 s (RFC 1122 §4.2.3.6), until the reset." — `until`: "the reset", "the FIN" or
/// "the capture ended" (", with no FIN or reset in it" where nothing else is said).
fn push_words(s: &mut String, a: &AfterData, until: &str) {
    use crate::analysis::format::format_duration;
    *s += "After its last data (frame ";
    *s += &a.last_data_frame.to_string();
    *s += " at ";
    super::in_words::push_timestamp(s, a.last_data_at);
    *s += ") the connection stayed open ";
    *s += &format_duration(a.seconds);
    *s += " more";
    // One data segment (or all in one tick) took no time to compare with.
    if a.data_seconds > 0.0 {
        *s += ", longer than the ";
        *s += &format_duration(a.data_seconds);
        // Both directions' data, first to last: not the data direction's transfer time the
        // savings quote (review U, ffx58: "227 ms" there, "247 ms" here, unexplained).
        *s += " its data took both ways";
    }
    match (a.keep_alives, a.keep_alive_every) {
        (0, _) => {}
        (n, Some(every)) if n >= 2 => {
            *s += &format!(", kept alive by {n} TCP keep-alives about every {}", format_duration(every));
            *s += " (RFC 1122 §4.2.3.6)";
        }
        (n, _) => *s += &format!(", with {} (RFC 1122 §4.2.3.6)", crate::analysis::format::plural(u64::from(n), "TCP keep-alive")),
    }
    *s += ", until ";
    if let (Some(frame), Some(bytes)) = (a.closing_frame, a.closing_bytes) {
        *s += &format!("a closing message of {bytes} B (frame {frame}, sent as its sender closed, as TLS's close_notify is) and ");
    }
    *s += until;
    *s += ".";
}
