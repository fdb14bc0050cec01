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

mod in_words;

use super::conn::{HandshakeTimes, Side};
use crate::decode::tcp_flags::{ACK, FIN, RST};
use crate::decode::tls::{alert_name, TlsAlert};
use crate::decode::TcpSegment;
use serde::Serialize;
use in_words::{sentence, words};
pub use in_words::ENDING_WORDS;

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
            // A refusal noted before the handshake completed after all (a later copy of
            // the SYN was accepted) ended nothing: the next reset is the connection's.
            let superseded = hs.syn_ack.is_some() && c.reset.is_some_and(|r| r.2 == "syn");
            // RFC 9293 §3.10.7.1: a SYN to a port nobody listens on is answered by a
            // reset; the resetter never sent its SYN/ACK. That reset acknowledges the
            // SYN (<SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>). A reset from that side
            // before its SYN/ACK without that ACK answers something else (an ACK-flagged
            // segment sent before the SYN/ACK, which §3.10.7.2 answers with
            // <SEQ=SEG.ACK><CTL=RST>), and the client, in SYN-SENT, drops it (§3.10.7.3:
            // a reset counts there only if its ACK is acceptable): it ends nothing.
            let before_handshake = hs.syn.is_some() && hs.client_dir as usize != d && hs.syn_ack.is_none();
            let client = &sides[hs.client_dir as usize & 1];
            let acks_the_syn = seg.flags & ACK != 0 && client.seq.base().is_some_and(|isn| seg.ack == isn.wrapping_add(1));
            if (c.reset.is_none() || superseded) && !(before_handshake && !acks_the_syn) {
                let refused = before_handshake;
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

impl Closing {
    /// The closing as it stands once the capture is read: a reset noted as refusing the
    /// SYN ended nothing when the SYN/ACK (`syn_ack`, ns) came after it — the server
    /// accepted a later copy of the SYN and the connection went on.
    pub(crate) fn with_handshake_completed(&self, syn_ack: Option<i64>) -> Closing {
        let mut c = self.clone();
        if c.reset.is_some_and(|(_, m, after)| after == "syn" && syn_ack.is_some_and(|sa| sa > m.t_ns)) {
            c.reset = None;
        }
        c
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

#[cfg(test)]
#[path = "ending_tests.rs"]
mod tests;
