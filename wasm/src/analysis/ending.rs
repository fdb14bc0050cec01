//! How a connection ended (docs/ANALYSIS.md "How the connection ended"): closed by a
//! FIN each way (RFC 9293 §3.6, and who closed first), half-closed (a FIN one way
//! only: the other side may go on sending, §3.6), reset (§3.10.7: by whom, when, after
//! what), refused (a reset answering a SYN, §3.10.7.1), unanswered, or still open when
//! the capture ended; a TLS alert (RFC 8446 §6) that was a side's last data; and the
//! payload each side sent that its peer never acknowledged in the capture.
//!
//! Cost: the analyzer calls [`Closing::note`] only for a segment with FIN or RST set
//! or a payload starting with a TLS alert record (decode/tls.rs), and keeps one byte
//! per connection of who sent the latest payload; everything else is read at the end
//! from the state the analysis already keeps (each side's highest byte sent and the
//! peer's highest cumulative ACK). So the ending is known for every connection,
//! including those past the stored-rows budget (limits.rs).

use super::analyzer::{HandshakeTimes, Side};
use super::diagnosis_format::{format_bytes, format_duration, format_timestamp};
use crate::decode::tcp_flags::{FIN, RST};
use crate::decode::tls::{alert_name, TlsAlert};
use crate::decode::TcpSegment;
use serde::Serialize;

/// Every value `Ending::kind` takes.
pub const ENDING_KINDS: [&str; 6] = ["fin-both", "fin-one-way", "reset", "refused", "unanswered", "open"];
/// Every value `Reset::after` takes.
pub const RESET_AFTER: [&str; 5] = ["syn", "fin", "peer-data", "own-data", "no-data"];

/// `last_data_dir` before any payload.
pub(crate) const NO_DATA: u8 = 2;

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
    /// side's); else after the latest payload, the peer's or its own; or no data at all.
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
    alert: [Option<AlertMark>; 2],
}

impl Closing {
    /// A segment of direction `d` with FIN or RST, or starting with a TLS alert;
    /// called after the analyzer has updated `sides` with it. `last_data_dir`: the
    /// direction of the latest payload before it (`NO_DATA`: none).
    #[cold]
    pub(crate) fn note(slot: &mut Option<Box<Closing>>, d: usize, seg: &TcpSegment, t_ns: i64, sides: &[Side; 2], hs: &HandshakeTimes, last_data_dir: u8) {
        let c = slot.get_or_insert_with(Box::default);
        let at = Mark { t_ns, frame: u32::try_from(seg.packet_index + 1).unwrap_or(u32::MAX) };
        if let Some(alert) = seg.tls_alert {
            c.alert[d] = Some(AlertMark { at, alert, data_end: sides[d].sent_high });
        }
        if seg.flags & FIN != 0 && c.fin[d].is_none() {
            c.fin[d] = Some(at);
            c.first_fin.get_or_insert(d as u8);
        }
        if seg.flags & RST != 0 {
            c.resets[d] += 1;
            if c.reset.is_none() {
                // RFC 9293 §3.10.7.1: a SYN to a port nobody listens on is answered by a
                // reset; the resetter never sent its SYN/ACK.
                let refused = hs.syn.is_some() && hs.client_dir as usize != d && hs.syn_ack.is_none();
                let after = if refused {
                    "syn"
                } else if c.fin.iter().any(Option::is_some) {
                    "fin"
                } else if last_data_dir == NO_DATA {
                    "no-data"
                } else if last_data_dir as usize == d {
                    "own-data"
                } else {
                    "peer-data"
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
    };
    e.words = words(&e, roles);
    e.abnormal = abnormal(&e);
    e.text = sentence(&e, roles);
    e
}

/// Payload bytes `side` sent beyond its peer's highest cumulative ACK (the peer's
/// ACK of a FIN, one past the last byte, counts no byte); None without a packet of
/// the peer (`peer_packets`) to tell by. Before any ACK of the peer, its lowest byte
/// sent stands in for it (as bytes in flight do, analyzer.rs).
fn unacknowledged(side: &Side, peer_packets: u64) -> Option<u64> {
    if peer_packets == 0 {
        return None;
    }
    let (Some(high), Some(low)) = (side.sent_high, side.sent_low) else { return Some(0) };
    Some((high - side.peer_ack.unwrap_or(low)).max(0) as u64)
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
    reset || alert || (ended && unacked)
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

/// The header's sentence (and the diagnosis's, when abnormal).
fn sentence(e: &Ending, roles: &Roles) -> String {
    let name = |d: u8| roles.names[d as usize & 1].as_str();
    let at = |t: f64| format_timestamp(t);
    let mut s = match (e.kind, e.reset) {
        ("refused", Some(r)) => format!("{} refused the connection: it answered the SYN with a reset at {} (RFC 9293 §3.10.7.1).", name(r.by), at(r.at)),
        (_, Some(r)) => {
            let mut s = format!("The connection was reset by {} at {}", name(r.by), at(r.at));
            match r.after {
                "fin" => {
                    let fins: Vec<u8> = (0..2).filter(|&d| e.fin_at[d as usize].is_some()).collect();
                    s += &match fins.as_slice() {
                        [d] if *d == r.by => ", after its own FIN".to_string(),
                        [d] => format!(", after the FIN of {}", name(*d)),
                        _ => ", after both FINs".to_string(),
                    };
                }
                "peer-data" => s += &format!(", after data from {}", name(1 - r.by)),
                "own-data" if !e.tls_alert.is_some_and(|a| a.by == r.by) => s += ", after its own data",
                "no-data" => s += ", before any data",
                _ => {}
            }
            if let Some(a) = e.tls_alert.filter(|a| a.at <= r.at) {
                let whose = if a.by == r.by { "its".to_string() } else { format!("{}'s", name(a.by)) };
                s += &format!(", {} after {whose} {}", format_duration(r.at - a.at), alert_words(&a));
            }
            if let Some(b) = e.unacknowledged_bytes[r.by as usize].filter(|&b| b > 0) {
                s += &format!(", with {} it had sent never acknowledged", bytes(b));
            }
            s + "."
        }
        ("fin-both", _) => {
            let first = e.first_fin.unwrap_or(0);
            let (a, b) = (e.fin_at[first as usize].unwrap_or(0.0), e.fin_at[1 - first as usize].unwrap_or(0.0));
            format!("Closed by a FIN each way: {} closed first at {}, {} {} later (RFC 9293 §3.6).", name(first), at(a), name(1 - first), format_duration(b - a))
        }
        ("fin-one-way", _) => {
            let d = e.first_fin.unwrap_or(0);
            format!(
                "Half-closed: {} sent a FIN at {}; {} sent none before the capture ended (RFC 9293 §3.6: it may still send).",
                name(d),
                at(e.fin_at[d as usize].unwrap_or(0.0)),
                name(1 - d)
            )
        }
        ("unanswered", _) => format!("No answer: {} sent a SYN and the capture holds nothing from {}.", name(roles.client.unwrap_or(0)), name(1 - roles.client.unwrap_or(0))),
        _ => "Still open when the capture ended: no FIN or reset in it.".to_string(),
    };
    // The alert, where the reset sentence did not already say it.
    if let (Some(a), false) = (e.tls_alert, e.reset.is_some_and(|r| e.tls_alert.is_some_and(|a| a.at <= r.at))) {
        s += &format!(" {} sent {} at {}.", name(a.by), alert_words(&a), at(a.at));
    }
    for d in 0..2u8 {
        let said = e.reset.is_some_and(|r| r.by == d);
        if let (Some(b), false) = (e.unacknowledged_bytes[d as usize].filter(|&b| b > 0), said) {
            let when = if e.kind == "open" { "were not yet acknowledged when the capture ended" } else { "were never acknowledged" };
            s += &format!(" {} of the data {} sent {when}.", capital(&bytes(b)), name(d));
        }
    }
    s
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

/// The diagnosis's sentence about the ending: `text` when it is abnormal.
pub fn diagnosis_sentence(conn: &super::ConnectionSummary) -> Option<&str> {
    conn.ending.abnormal.then_some(conn.ending.text.as_str())
}

#[cfg(test)]
mod tests {
    #[test]
    fn byte_counts_in_the_diagnosis_unit_and_exactly() {
        assert_eq!(super::bytes(900), "900 bytes");
        assert_eq!(super::bytes(24_647), "24 KiB (24,647 bytes)");
        assert_eq!(super::bytes(3_000_000), "2.9 MiB (3,000,000 bytes)");
    }
}
