//! How a connection ended (docs/ANALYSIS.md "How the connection ended"): closed by a
//! FIN each way (RFC 9293 §3.6, and who closed first), half-closed (a FIN one way
//! only: the other side may go on sending, §3.6), reset (§3.10.7: by whom, when, after
//! what), refused (a reset answering a SYN, §3.10.7.1), unanswered, or still open when
//! the capture ended; a TLS alert (RFC 8446 §6) that was a side's last data; and the
//! payload each side sent that its peer never acknowledged in the capture.
//!
//! Cost: the analyzer calls [`Closing::note`] only for a segment with FIN or RST set
//! or a payload starting with a TLS alert record (decode/tls.rs); everything else is
//! read from the state the analysis already keeps (each side's highest byte sent, the
//! peer's highest cumulative ACK, when its sequence space last advanced). So the ending is known for every connection,
//! including those past the stored-rows budget (limits.rs).

use super::conn::{HandshakeTimes, Side};
use crate::analysis::format::{format_bytes, format_duration};
use std::fmt::Write;
use crate::decode::tcp_flags::{FIN, RST};
use crate::decode::tls::{alert_name, TlsAlert};
use crate::decode::TcpSegment;
use serde::Serialize;

/// Every value `Ending::kind` takes.
pub const ENDING_KINDS: [&str; 6] = ["fin-both", "fin-one-way", "reset", "refused", "unanswered", "open"];
/// Every value `Reset::after` takes.
pub const RESET_AFTER: [&str; 5] = ["syn", "fin", "peer-data", "own-data", "no-data"];

/// How the connection ended (see the module doc), `connection.ending` in the report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Ending {
    /// One of [`ENDING_KINDS`]: a reset, else a FIN each way, else a FIN one way, else
    /// a SYN nobody answered, else open.
    #[cfg_attr(test, ts(type = "EndingKind"))]
    pub kind: &'static str,
    /// The table's short words: "FIN both", "reset by server", "open", ... Client and
    /// server where a SYN is in the capture, else the data sender and receiver.
    #[cfg_attr(test, ts(type = "string"))]
    pub words: &'static str,
    /// The header's sentence, every number in it from the fields below.
    pub text: String,
    /// The diagnosis repeats `text`: a reset not after a FIN, a refusal, a TLS alert
    /// other than close_notify, or an ended connection with data never acknowledged.
    pub abnormal: bool,
    /// Time of each direction's first FIN, s since the first packet of the file.
    pub fin_at: [Option<f64>; 2],
    /// The direction that sent the first FIN: it closed first.
    pub first_fin: Option<u8>,
    /// The connection's first reset.
    pub reset: Option<Reset>,
    /// RST segments each direction sent.
    pub resets: [u64; 2],
    /// The latest TLS alert that was its sender's last data.
    pub tls_alert: Option<AlertSeen>,
    /// Payload bytes each direction sent beyond the peer's highest cumulative ACK at
    /// the end of the capture: never acknowledged in it. None where the peer sent no
    /// packet the capture holds (nothing to tell by).
    pub unacknowledged_bytes: [Option<u64>; 2],
    /// FIN segments each direction sent whose FIN the peer never acknowledged in the
    /// capture (RFC 9293 §3.6: a FIN takes a sequence number and is ACKed like data);
    /// 0 where it was acknowledged, none was sent, or the side sent no data to tell by.
    pub fins_unacknowledged: [u64; 2],
}

/// The first reset of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Reset {
    /// The direction that sent it (its sender reset the connection).
    pub by: u8,
    /// s since the first packet of the file.
    pub at: f64,
    pub frame: u32,
    /// One of [`RESET_AFTER`]: answering a SYN it never accepted; after a FIN (either
    /// side's); else after the latest new data, the peer's or its own; or no data at all.
    #[cfg_attr(test, ts(type = "ResetAfter"))]
    pub after: &'static str,
}

/// A TLS alert record at the start of a segment's payload (decode/tls.rs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AlertSeen {
    /// The direction that sent it.
    pub by: u8,
    pub at: f64,
    pub frame: u32,
    /// 1 warning, 2 fatal; None for an encrypted alert (record length above 2).
    pub level: Option<u8>,
    pub description: Option<u8>,
    /// RFC 8446 §6's name of the description ("handshake_failure").
    #[cfg_attr(test, ts(type = "string | null"))]
    pub name: Option<&'static str>,
}

#[derive(Clone, Copy, Debug)]
struct Mark {
    t_ns: i64,
    frame: u32,
}

#[derive(Clone, Copy, Debug)]
struct AlertMark {
    at: Mark,
    alert: TlsAlert,
    /// Its sender's highest byte sent after it: the alert was its last data while
    /// that stays the highest.
    data_end: Option<i64>,
}

/// What the analyzer notes of the closing segments of one connection (made at the
/// first of them; most connections of a port scan never make one).
#[derive(Clone, Debug, Default)]
pub(crate) struct Closing {
    fin: [Option<Mark>; 2],
    first_fin: Option<u8>,
    reset: Option<(u8, Mark, &'static str)>,
    resets: [u64; 2],
    /// FIN segments each direction sent, re-sends included.
    fins: [u64; 2],
    alert: [Option<AlertMark>; 2],
}

impl Closing {
    /// A segment of direction `d` with FIN or RST, or starting with a TLS alert;
    /// called after the analyzer has updated `sides` with it.
    #[cold]
    pub(crate) fn note(slot: &mut Option<Box<Closing>>, d: usize, seg: &TcpSegment, t_ns: i64, sides: &[Side; 2], hs: &HandshakeTimes) {
        let c = slot.get_or_insert_with(Box::default);
        let at = Mark { t_ns, frame: u32::try_from(seg.packet_index + 1).unwrap_or(u32::MAX) };
        if let Some(alert) = seg.tls_alert {
            c.alert[d] = Some(AlertMark { at, alert, data_end: sides[d].sent_high });
        }
        if seg.flags & FIN != 0 {
            c.fins[d] += 1;
            if c.fin[d].is_none() {
                c.fin[d] = Some(at);
                c.first_fin.get_or_insert(d as u8);
            }
        }
        if seg.flags & RST != 0 {
            c.resets[d] += 1;
            if c.reset.is_none() {
                // RFC 9293 §3.10.7.1: a SYN to a port nobody listens on is answered by a
                // reset; the resetter never sent its SYN/ACK.
                let refused = hs.syn.is_some() && hs.client_dir as usize != d && hs.syn_ack.is_none();
                // Whose new data came last: the time each side's sequence space last
                // advanced (flags.rs `nextseq_time`), of a side that sent payload.
                let new_data = |s: &Side| s.sent_high.map(|_| s.ws.nextseq_time);
                let after = if refused {
                    "syn"
                } else if c.fin.iter().any(Option::is_some) {
                    "fin"
                } else {
                    match (new_data(&sides[d]), new_data(&sides[1 - d])) {
                        (None, None) => "no-data",
                        (Some(own), Some(peer)) if own > peer => "own-data",
                        (Some(_), None) => "own-data",
                        _ => "peer-data",
                    }
                };
                c.reset = Some((d as u8, at, after));
            }
        }
    }
}

/// Who the sentences and the table name: each direction's sender.
pub(crate) struct Roles<'a> {
    /// The direction that sent the SYN, when one is in the capture.
    pub client: Option<u8>,
    pub data_direction: u8,
    pub names: &'a [String; 2],
    /// Packets each direction sent.
    pub packets: [u64; 2],
}

impl Roles<'_> {
    /// "client" / "server", or "sender" / "receiver" of the data without a SYN.
    fn role(&self, d: u8) -> &'static str {
        match self.client {
            Some(c) if c == d => "client",
            Some(_) => "server",
            None if d == self.data_direction => "sender",
            None => "receiver",
        }
    }
}

/// The connection's ending at the end of the capture (see the module doc).
pub(crate) fn judge(closing: Option<&Closing>, sides: &[Side; 2], roles: &Roles) -> Ending {
    let secs = |ns: i64| ns as f64 / 1e9;
    let unacked = [0, 1].map(|d| unacknowledged(&sides[d], roles.packets[1 - d]));
    let empty = Closing::default();
    let c = closing.unwrap_or(&empty);
    let alert = latest_final_alert(c, sides);
    let fin_at = c.fin.map(|m| m.map(|m| secs(m.t_ns)));
    let reset = c.reset.map(|(by, m, after)| Reset { by, at: secs(m.t_ns), frame: m.frame, after });
    let unanswered = roles.client.is_some_and(|cl| roles.packets[1 - cl as usize] == 0);
    let kind = match (reset, fin_at) {
        (Some(r), _) if r.after == "syn" => "refused",
        (Some(_), _) => "reset",
        (None, [Some(_), Some(_)]) => "fin-both",
        (None, [Some(_), None] | [None, Some(_)]) => "fin-one-way",
        _ if unanswered => "unanswered",
        _ => "open",
    };
    let mut e = Ending {
        kind,
        words: "",
        text: String::new(),
        abnormal: false,
        fin_at,
        first_fin: c.first_fin,
        reset,
        resets: c.resets,
        tls_alert: alert,
        unacknowledged_bytes: unacked,
        fins_unacknowledged: [0, 1].map(|d| fin_unacknowledged(&sides[d], c.fins[d])),
    };
    e.words = words(&e, roles);
    e.abnormal = abnormal(&e);
    e.text = sentence(&e, roles);
    e
}

/// Payload bytes `side` sent beyond its peer's highest cumulative ACK (the peer's
/// ACK of a FIN, one past the last byte, counts no byte); None without a packet of
/// the peer (`peer_packets`) to tell by. Before any ACK of the peer, its lowest byte
/// sent stands in for it (as bytes in flight do, track/conn.rs).
fn unacknowledged(side: &Side, peer_packets: u64) -> Option<u64> {
    if peer_packets == 0 {
        return None;
    }
    let (Some(high), Some(low)) = (side.sent_high, side.sent_low) else { return Some(0) };
    Some((high - side.peer_ack.unwrap_or(low)).max(0) as u64)
}

/// " X's FIN was sent N times and never acknowledged." for each side whose FIN was
/// re-sent (its timer fired: RFC 9293 §3.10.8) without an ACK in the capture; a FIN
/// sent once may only have been cut off by the capture's end, and is not said.
fn fins_unacknowledged_words<'a>(s: &mut String, e: &Ending, name: &impl Fn(u8) -> &'a str) {
    for d in 0..2u8 {
        let n = e.fins_unacknowledged[d as usize];
        if n >= 2 {
            *s += " ";
            *s += name(d);
            *s += &format!("'s FIN was sent {n} times and never acknowledged: the peer had gone, or its ACKs were lost.");
        }
    }
}

/// `fins` (the FIN segments `side` sent) when the peer never acknowledged its FIN: the
/// FIN follows the last payload byte (its sequence number is `sent_high`), so the
/// peer's ACK of it passes `sent_high`. 0 without data to tell by.
fn fin_unacknowledged(side: &Side, fins: u64) -> u64 {
    match (side.sent_high, side.peer_ack) {
        (Some(high), Some(ack)) if fins > 0 && ack <= high => fins,
        (Some(_), None) if fins > 0 => fins,
        _ => 0,
    }
}

/// The latest TLS alert that was its sender's last data (nothing sent beyond it).
fn latest_final_alert(c: &Closing, sides: &[Side; 2]) -> Option<AlertSeen> {
    let finals = (0..2).filter_map(|d| {
        let a = c.alert[d]?;
        (a.data_end == sides[d].sent_high).then_some((d as u8, a))
    });
    let (by, a) = finals.max_by_key(|(_, a)| a.at.t_ns)?;
    let (level, description) = match a.alert {
        TlsAlert::Plain { level, description } => (Some(level), Some(description)),
        TlsAlert::Unreadable => (None, None),
    };
    Some(AlertSeen { by, at: a.at.t_ns as f64 / 1e9, frame: a.at.frame, level, description, name: description.and_then(alert_name) })
}

/// Abnormal (the diagnosis says it): a reset other than after a FIN, a refusal, a
/// readable alert other than close_notify (RFC 8446 §6.1: the closure alert; an
/// encrypted alert cannot be told from it and is not counted), or a connection that
/// ended with data never acknowledged. An open connection's unacknowledged bytes may
/// still be on their way when the capture stopped: not abnormal.
fn abnormal(e: &Ending) -> bool {
    let reset = e.reset.is_some_and(|r| r.after != "fin");
    let alert = e.tls_alert.is_some_and(|a| a.description.is_some_and(|d| d != 0));
    let ended = matches!(e.kind, "fin-both" | "fin-one-way" | "reset" | "refused");
    let unacked = e.unacknowledged_bytes.iter().any(|b| b.is_some_and(|b| b > 0));
    // A FIN re-sent and never acknowledged: its sender's timer fired on a peer that
    // had gone (or whose ACKs never came back).
    let fin_lost = e.fins_unacknowledged.iter().any(|&n| n >= 2);
    reset || alert || (ended && unacked) || fin_lost
}

/// Every value `Ending::words` takes, in the order the table sorts them (table.rs
/// keeps a row's position here, no text of its own).
pub const ENDING_WORDS: [&str; 12] = [
    "FIN both",
    "FIN by client only",
    "FIN by server only",
    "FIN by sender only",
    "FIN by receiver only",
    "reset by client",
    "reset by server",
    "reset by sender",
    "reset by receiver",
    "refused",
    "no answer",
    "open",
];

/// The table's words: one of [`ENDING_WORDS`].
fn words(e: &Ending, roles: &Roles) -> &'static str {
    // Position of the role in each "... by <role>" group: client, server, sender, receiver.
    let role = |d: u8| match roles.role(d) {
        "client" => 0,
        "server" => 1,
        "sender" => 2,
        _ => 3,
    };
    match e.kind {
        "fin-both" => ENDING_WORDS[0],
        "fin-one-way" => ENDING_WORDS[1 + e.first_fin.map_or(3, role)],
        "reset" => ENDING_WORDS[5 + e.reset.map_or(3, |r| role(r.by))],
        "refused" => ENDING_WORDS[9],
        "unanswered" => ENDING_WORDS[10],
        _ => ENDING_WORDS[11],
    }
}

/// The header's sentence (and the diagnosis's, when abnormal). Written into one
/// string: a capture of 10^5 short connections makes 10^5 of them (issue 16).
fn sentence(e: &Ending, roles: &Roles) -> String {
    let name = |d: u8| roles.names[d as usize & 1].as_str();
    let mut s = String::with_capacity(160);
    let at = push_timestamp;
    match (e.kind, e.reset) {
        ("refused", Some(r)) => {
            s += name(r.by);
            s += " refused the connection: it answered the SYN with a reset at ";
            at(&mut s, r.at);
            s += " (RFC 9293 §3.10.7.1).";
        }
        (_, Some(r)) => {
            s += "The connection was reset by ";
            s += name(r.by);
            s += " at ";
            at(&mut s, r.at);
            match r.after {
                // Only the FINs captured before the reset: a FIN that came after it
                // (its sender had not yet seen the reset) is no "after" of it.
                "fin" => match e.fin_at.map(|f| f.is_some_and(|t| t <= r.at)) {
                    [true, true] => s += ", after both FINs",
                    [a, _] if a == (r.by == 0) => s += ", after its own FIN",
                    [a, _] => {
                        s += ", after the FIN of ";
                        s += name(if a { 0 } else { 1 });
                    }
                },
                "peer-data" => {
                    s += ", after data from ";
                    s += name(1 - r.by);
                }
                "own-data" if !e.tls_alert.is_some_and(|a| a.by == r.by) => s += ", after its own data",
                "no-data" => s += ", before any data",
                _ => {}
            }
            if let Some(a) = e.tls_alert.filter(|a| a.at <= r.at) {
                s += ", ";
                s += &format_duration(r.at - a.at);
                s += " after ";
                if a.by == r.by {
                    s += "its";
                } else {
                    s += name(a.by);
                    s += "'s";
                }
                s += " ";
                s += &alert_words(&a);
            }
            if let Some(b) = e.unacknowledged_bytes[r.by as usize].filter(|&b| b > 0) {
                s += ", with ";
                s += &bytes(b);
                s += " it had sent never acknowledged";
            }
            s += ".";
        }
        ("fin-both", _) => {
            let first = e.first_fin.unwrap_or(0);
            let (a, b) = (e.fin_at[first as usize].unwrap_or(0.0), e.fin_at[1 - first as usize].unwrap_or(0.0));
            s += "Closed by a FIN each way: ";
            s += name(first);
            s += " closed first at ";
            at(&mut s, a);
            s += ", ";
            s += name(1 - first);
            s += " ";
            s += &format_duration(b - a);
            s += " later (RFC 9293 §3.6).";
            fins_unacknowledged_words(&mut s, e, &name);
        }
        ("fin-one-way", _) => {
            let d = e.first_fin.unwrap_or(0);
            s += "Half-closed: ";
            s += name(d);
            s += " sent a FIN at ";
            at(&mut s, e.fin_at[d as usize].unwrap_or(0.0));
            s += "; ";
            s += name(1 - d);
            s += " sent none before the capture ended (RFC 9293 §3.6: it may still send).";
            fins_unacknowledged_words(&mut s, e, &name);
        }
        ("unanswered", _) => {
            let c = roles.client.unwrap_or(0);
            s += "No answer: ";
            s += name(c);
            s += " sent a SYN and the capture holds nothing from ";
            s += name(1 - c);
            s += ".";
        }
        _ => s += "Still open when the capture ended: no FIN or reset in it.",
    }
    // The alert, where the reset sentence did not already say it.
    if let (Some(a), false) = (e.tls_alert, e.reset.is_some_and(|r| e.tls_alert.is_some_and(|a| a.at <= r.at))) {
        s += " ";
        s += name(a.by);
        s += " sent ";
        s += &alert_words(&a);
        s += " at ";
        at(&mut s, a.at);
        s += ".";
    }
    for d in 0..2u8 {
        let said = e.reset.is_some_and(|r| r.by == d);
        if let (Some(b), false) = (e.unacknowledged_bytes[d as usize].filter(|&b| b > 0), said) {
            s += " ";
            s += &capital(&bytes(b));
            s += " of the data ";
            s += name(d);
            s += if e.kind == "open" { " sent were not yet acknowledged when the capture ended." } else { " sent were never acknowledged." };
        }
    }
    s
}

/// `diagnosis_format::format_timestamp`'s "1.234 s" ("{:.3} s"), written in place and,
/// where the rounding cannot differ, from the integer milliseconds: the float
/// formatter's exact mode was a third of the ending's cost at 10^5 connections. The
/// product t × 1000 is within 10^-7 of exact below 10^6 s, so a fraction at least
/// 10^-3 from one half rounds as the exact value does.
fn push_timestamp(s: &mut String, t: f64) {
    let ms = t * 1000.0;
    if t.is_finite() && t.abs() < 1e6 && (ms.fract().abs() - 0.5).abs() > 1e-3 {
        // "{:.3}" keeps the sign of a time that rounds to 0 ("-0.000 s").
        if t.is_sign_negative() {
            s.push('-');
        }
        let ms = ms.abs().round() as u64;
        let _ = write!(s, "{}.{:03} s", ms / 1000, ms % 1000);
    } else {
        let _ = write!(s, "{t:.3} s");
    }
}

/// "a TLS alert (fatal handshake_failure)", "a TLS alert (encrypted)".
fn alert_words(a: &AlertSeen) -> String {
    match (a.level, a.description) {
        (Some(level), Some(d)) => {
            let level = if level == 2 { "fatal" } else { "warning" };
            match a.name {
                Some(n) => format!("TLS alert ({level} {n})"),
                None => format!("TLS alert ({level}, description {d})"),
            }
        }
        _ => "TLS alert (encrypted)".to_string(),
    }
}

/// "24.6 KiB (25,190 bytes)": the unit the diagnosis uses, and the exact count.
fn bytes(b: u64) -> String {
    if b < 1024 {
        return format!("{b} bytes");
    }
    let mut digits = b.to_string();
    let mut i = digits.len();
    while i > 3 {
        i -= 3;
        digits.insert(i, ',');
    }
    format!("{} ({digits} bytes)", format_bytes(b as f64))
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

#[cfg(test)]
#[path = "ending_tests.rs"]
mod tests;
