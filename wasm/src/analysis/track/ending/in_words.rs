//! The ending in words (docs/ANALYSIS.md "How the connection ended"): the table's
//! short words and the header's sentence, from the [`Ending`] that `judge` found.

use super::{AlertSeen, Ending, NotEstablished, NotTheEnd, Roles};
use crate::analysis::format::{format_bytes, format_duration};
use std::fmt::Write;

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
pub(super) fn words(e: &Ending, roles: &Roles) -> &'static str {
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
pub(super) fn sentence(e: &Ending, roles: &Roles) -> String {
    let name = |d: u8| roles.names[d as usize & 1].as_str();
    let mut s = String::with_capacity(160);
    let at = push_timestamp;
    let said_open = super::after_data::push_sentence(&mut s, e);
    match (e.kind, e.reset) {
        ("refused", Some(r)) => {
            s += name(r.by);
            s += " refused the connection: it answered ";
            s += &refused_what(e, name(1 - r.by));
            s += " with a reset";
            s += if e.resets[r.by as usize & 1] > 1 { ", the first at " } else { " at " };
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
                "peer-data" => s += &format!(", {}after data from {}", since(r.at, r.data_at), name(1 - r.by)),
                "own-data" if !e.tls_alert.is_some_and(|a| a.by == r.by) => s += &format!(", {}after its own data", since(r.at, r.data_at)),
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
                s += &alert_words(&a, e);
            }
            if let Some(b) = e.unacknowledged_bytes[r.by as usize].filter(|&b| b > 0) {
                s += ", with ";
                s += &bytes(b);
                s += &unacknowledged_words(e, r.by, name(1 - r.by), "reset");
            }
            s += ".";
        }
        ("fin-both", _) => {
            let first = e.first_fin.unwrap_or(0);
            let (a, b) = (e.fin_at[first as usize].unwrap_or(0.0), e.fin_at[1 - first as usize].unwrap_or(0.0));
            // A FIN its sender did not take the ACK of completed no close (fin_resent.rs).
            let open = super::fin_resent::not_taken(e);
            s += match open {
                [true, true] => "A FIN each way, but neither close completed: ",
                [false, false] => "Closed by a FIN each way: ",
                _ => "A FIN each way, but one close not completed: ",
            };
            s += name(first);
            s += if open.contains(&true) { " sent its FIN first at " } else { " closed first at " };
            at(&mut s, a);
            s += ", ";
            s += name(1 - first);
            s += " ";
            s += &format_duration(b - a);
            s += " later (RFC 9293 §3.6).";
            fins_unacknowledged_words(&mut s, e, &name);
            super::fin_resent::push_words(&mut s, e, &name, roles.second_sender);
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
            super::fin_resent::push_words(&mut s, e, &name, roles.second_sender);
        }
        ("unanswered", _) => {
            let c = roles.client.unwrap_or(0);
            s += "No answer: ";
            s += name(c);
            s += " sent ";
            s += &e.not_established.map_or_else(|| "a SYN".to_string(), |n| syns_phrase(&n));
            s += " and the capture holds nothing from ";
            s += name(1 - c);
            s += ".";
        }
        _ if said_open => {} // by the after-data sentence
        _ => open_words(&mut s, e, roles, &name),
    }
    for n in [e.reset_ended_nothing, e.fin_ended_nothing].into_iter().flatten() {
        ended_nothing_words(&mut s, &n, e, &name);
    }
    // The alert, where the reset sentence did not already say it.
    if let (Some(a), false) = (e.tls_alert, e.reset.is_some_and(|r| e.tls_alert.is_some_and(|a| a.at <= r.at))) {
        s += " ";
        s += name(a.by);
        s += " sent ";
        s += &alert_words(&a, e);
        s += " at ";
        at(&mut s, a.at);
        s += ".";
    }
    unacknowledged_sentences(&mut s, e, &name);
    s
}

/// " 420 KiB (…) of the data A sent were never acknowledged …" for each direction the
/// reset clause did not already say; where data came after the reset, what was in flight
/// at it apart from what came after (`after_reset.rs`).
fn unacknowledged_sentences<'a>(s: &mut String, e: &Ending, name: &impl Fn(u8) -> &'a str) {
    for d in 0..2u8 {
        let said = e.reset.is_some_and(|r| r.by == d);
        // Data after the reset: what was in flight at it, apart from what came after.
        if let Some(a) = e.after_reset.filter(|a| a.by == d) {
            super::after_reset::push_words(s, &a, name(d), name(1 - d));
            continue;
        }
        if let (Some(b), false) = (e.unacknowledged_bytes[d as usize].filter(|&b| b > 0), said) {
            *s += " ";
            *s += &capital(&bytes(b));
            *s += " of the data ";
            *s += name(d);
            *s += &unacknowledged_words(e, d, name(1 - d), if e.kind == "reset" { "ended" } else { e.kind });
        }
    }
}

/// "161 s " (the reset's distance from the data `after` names, `Reset::data_at`), or
/// nothing where that time is not known.
fn since(at: f64, data_at: Option<f64>) -> String {
    data_at.filter(|d| *d <= at).map_or_else(String::new, |d| format!("{} ", format_duration(at - d)))
}

/// "11 SYNs over 67 s (0.430 s to 67.833 s)", "a SYN at 0.430 s" (ending.rs
/// `NotEstablished`); without the times where the rows were not stored.
pub(crate) fn syns_phrase(n: &NotEstablished) -> String {
    let mut s = String::with_capacity(48);
    match (n.syns, n.first_syn_at, n.last_syn_at) {
        (1, first, _) => {
            s += "a SYN";
            if let Some(t) = first {
                s += " at ";
                push_timestamp(&mut s, t);
            }
        }
        (k, Some(a), Some(b)) => {
            let _ = write!(s, "{k} SYNs over {} (", format_duration(b - a));
            push_timestamp(&mut s, a);
            s += " to ";
            push_timestamp(&mut s, b);
            s += ")";
        }
        (k, _, _) => {
            let _ = write!(s, "{k} SYNs");
        }
    }
    s
}

/// What a refusal answered: "the SYN", or "each of the 3 SYNs <client> sent over …"
/// (a reset for every SYN), or "the 3 SYNs … (2 resets)".
fn refused_what(e: &Ending, client: &str) -> String {
    let resets = e.reset.map_or(0, |r| e.resets[r.by as usize & 1]);
    match e.not_established {
        Some(n) if n.syns > 1 => {
            let each = if resets >= u64::from(n.syns) { "each of " } else { "" };
            let mut s = format!("{each}the {} SYNs {client} sent", n.syns);
            if let (Some(a), Some(b)) = (n.first_syn_at, n.last_syn_at) {
                let _ = write!(s, " over {} (", format_duration(b - a));
                push_timestamp(&mut s, a);
                s += " to ";
                push_timestamp(&mut s, b);
                s += ")";
            }
            if resets < u64::from(n.syns) {
                let _ = write!(s, " ({resets} reset{})", if resets == 1 { "" } else { "s" });
            }
            s
        }
        _ => "the SYN".to_string(),
    }
}

/// A connection with no ending in the capture: still open, or (a reset or FIN that
/// ended nothing before it) where its handshake stood.
fn open_words<'a>(s: &mut String, e: &Ending, roles: &Roles, name: &impl Fn(u8) -> &'a str) {
    let at = push_timestamp;
    match (e.reset_ended_nothing.or(e.fin_ended_nothing), roles.client) {
        (None, _) => *s += "Still open when the capture ended: no FIN or reset in it.",
        // The SYN/ACK never came: the handshake is where it stands.
        (Some(n), Some(c)) if n.syn_ack_at.is_none() => {
            *s += "Not established when the capture ended: ";
            *s += name(c);
            match e.not_established {
                Some(syns) => {
                    *s += " sent ";
                    *s += &syns_phrase(&syns);
                    *s += " and got no SYN/ACK in it.";
                }
                None => *s += "'s SYN got no SYN/ACK in it.",
            }
        }
        (Some(n), _) => {
            *s += "Still open when the capture ended: no FIN or reset in it";
            if let Some(sa) = n.syn_ack_at {
                *s += " after the handshake (SYN/ACK at ";
                at(s, sa);
                *s += ")";
            }
            *s += ".";
        }
    }
}

/// " The 2 resets from X (the first at T) ended nothing: <why>." (`NotTheEnd`).
fn ended_nothing_words<'a>(s: &mut String, n: &NotTheEnd, e: &Ending, name: &impl Fn(u8) -> &'a str) {
    // `data-after` is said of resets in `reset_ended_nothing`, of FINs in `fin_ended_nothing`.
    let reset = e.reset_ended_nothing.as_ref() == Some(n);
    let what = if reset { "reset" } else { "FIN" };
    let (own, other) = (n.count[n.by as usize & 1], n.count[1 - (n.by as usize & 1)]);
    let many = own + other > 1;
    *s += " ";
    if own > 1 {
        *s += &format!("The {own} {what}s from ");
    } else {
        *s += &format!("The {what} from ");
    }
    *s += name(n.by);
    *s += if own > 1 { " (the first at " } else { " (at " };
    push_timestamp(s, n.at);
    *s += ")";
    if other > 0 {
        *s += &format!(" and {other} from ");
        *s += name(1 - n.by);
    }
    *s += " ended nothing: ";
    let (they, them) = if many { ("they", "them") } else { ("it", "it") };
    match n.why {
        "syn-not-acknowledged" => {
            *s += they;
            *s += &format!(
                " did not acknowledge the SYN, as a refusal does (RFC 9293 §3.10.7.1): a reset without that ACK answers a segment sent before the handshake completed (§3.10.7.2), and a client waiting for its SYN/ACK drops {them} (§3.10.7.3)"
            );
        }
        "handshake-after" => {
            *s += they;
            *s += " came before the SYN/ACK, and the handshake went on";
        }
        "before-own-syn" => {
            *s += name(n.by);
            *s += &format!(" sent {them} before its SYN/ACK, outside the sequence numbers that begin with it (RFC 9293 §3.4), and a client waiting for its SYN/ACK drops a segment with neither SYN nor RST (§3.10.7.3)");
        }
        "data-after" if reset => {
            *s += name(n.by);
            *s += &format!(" went on sending new data after {them}, so the connection went on (a receiver drops a reset whose sequence number is not the next it expects, RFC 5961 §3.2)");
        }
        _ => {
            *s += name(n.by);
            *s += &format!(" went on sending data beyond {them}, and a FIN is the last byte of its sender's stream (RFC 9293 §3.6)");
        }
    }
    // Where the state sentence did not already give the SYN/ACK's time.
    if let (Some(sa), false) = (n.syn_ack_at, e.kind == "open") {
        *s += " (SYN/ACK at ";
        push_timestamp(s, sa);
        *s += ")";
    }
    *s += ".";
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

/// `diagnosis_format::format_timestamp`'s "1.234 s" ("{:.3} s"), written in place and,
/// where the rounding cannot differ, from the integer milliseconds: the float
/// formatter's exact mode was a third of the ending's cost at 10^5 connections. The
/// product t × 1000 is within 10^-7 of exact below 10^6 s, so a fraction at least
/// 10^-3 from one half rounds as the exact value does.
pub(super) fn push_timestamp(s: &mut String, t: f64) {
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

/// "TLS alert (fatal handshake_failure)", "TLS alert (encrypted)"; an encrypted alert
/// that was its sender's last data (`latest_final_alert`) and that the same side's FIN
/// followed: "encrypted TLS alert (probably close_notify: followed by its FIN)". RFC 8446
/// §6.1 (and RFC 5246 §7.2.1): a side closing its write half sends close_notify first,
/// then closes; its record, once keys are in use, is encrypted and its description
/// unreadable, but an alert and then the FIN, nothing between, is that closure (an error
/// alert is usually followed by a reset, or by nothing). elh313 compnet `http4.pcapng`
/// connection 18: the client's 31-B alert (frame 801), its FIN 0.6 ms later (frame 804).
/// A close_notify is sent by the close itself, so its FIN follows within the same
/// system call's work (the 1,051 of 1,091 corpus cases came within 10 ms); an alert
/// and a FIN seconds apart are two acts (nDPI `telegram_videocall` #9: 5 s), and then
/// the alert keeps its neutral words. 1 s leaves room for a slow host or a batched clock.
const CLOSE_NOTIFY_FIN_WITHIN_S: f64 = 1.0;

fn alert_words(a: &AlertSeen, e: &Ending) -> String {
    match (a.level, a.description) {
        (Some(level), Some(d)) => {
            let level = if level == 2 { "fatal" } else { "warning" };
            match a.name {
                Some(n) => format!("TLS alert ({level} {n})"),
                None => format!("TLS alert ({level}, description {d})"),
            }
        }
        _ if e.fin_at[usize::from(a.by.min(1))].is_some_and(|t| t >= a.at && t - a.at <= CLOSE_NOTIFY_FIN_WITHIN_S) => {
            "encrypted TLS alert (probably close_notify: followed by its FIN)".to_string()
        }
        _ => "TLS alert (encrypted)".to_string(),
    }
}

/// What follows the count of direction `d`'s unacknowledged bytes, in the reset's clause
/// (`how` "reset", only there: it has no verb) or its own sentence (`how` "open": the capture ended first; else the
/// connection had ended): where its peer SACKed some of them, split ([`sacked_split`]).
fn unacknowledged_words(e: &Ending, d: u8, peer: &str, how: &str) -> String {
    let (plain, split, end) = match how {
        "reset" => (" it had sent never acknowledged", " it had sent not acknowledged: ", ""),
        "open" => (" sent were not yet acknowledged when the capture ended", " sent were not yet cumulatively acknowledged when the capture ended: ", "."),
        _ => (" sent were never acknowledged", " sent were not acknowledged: ", "."),
    };
    let b = e.unacknowledged_bytes[d as usize & 1].unwrap_or(0);
    match e.sacked_bytes[d as usize & 1].filter(|&k| k > 0) {
        Some(k) => format!("{split}{}{end}", sacked_split(b, k, peer)),
        None => format!("{plain}{end}"),
    }
}

/// Bytes not acknowledged, `b`, of which the peer (`peer`) SACKed `k` (ending.rs
/// `sacked_bytes`): "1.4 KiB (1,448 bytes) never acknowledged at all, 4.2 KiB (4,344
/// bytes) selectively acknowledged (SACK, RFC 2018: they reached B) but not
/// cumulatively". Those SACKed reached the receiver; the rest below them did not, as
/// far as the capture shows.
pub(super) fn sacked_split(b: u64, k: u64, peer: &str) -> String {
    let mut s = String::with_capacity(120);
    if b > k {
        s += &bytes(b - k);
        s += " never acknowledged at all, ";
    }
    s += &bytes(k);
    s += " selectively acknowledged (SACK, RFC 2018: they reached ";
    s += peer;
    s += ") but not cumulatively";
    s
}

/// "24.6 KiB (25,190 bytes)": the unit the diagnosis uses, and the exact count.
pub(super) fn bytes(b: u64) -> String {
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
