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

mod after_data;
mod after_reset;
mod close_race;
pub(crate) mod closing_message;
mod fin_resent;
mod not_the_end;
mod in_words;
mod one_way;
mod other_sender;
mod payload_only;
mod reset_end;
mod unacked;
mod unusual;

use super::conn::{HandshakeTimes, Side};
use crate::decode::tcp_flags::{ACK, FIN, RST};
use crate::decode::tls::{alert_name, TlsAlert};
use crate::decode::TcpSegment;
use serde::Serialize;
use in_words::{sentence, words};
pub(crate) use unacked::sacked_unacknowledged;
use unacked::{fin_unacknowledged, unacknowledged};
pub(crate) use in_words::syns_phrase;
pub use in_words::ENDING_WORDS;
pub use after_data::AfterData;
pub use after_reset::AfterReset;
pub use fin_resent::FinResent;
use not_the_end::not_the_end;
use crate::analysis::rows::columns::PacketColumns;

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
    /// Of `unacknowledged_bytes`, those the peer selectively acknowledged (RFC 2018 SACK
    /// blocks above its cumulative ACK at the end of the capture): they reached it, but
    /// its cumulative ACK never covered them (a hole below them stayed open). None where
    /// `unacknowledged_bytes` is.
    pub sacked_bytes: [Option<u64>; 2],
    /// FIN segments each direction sent whose FIN the peer never acknowledged in the
    /// capture (RFC 9293 §3.6: a FIN takes a sequence number and is ACKed like data);
    /// 0 where it was acknowledged, none was sent, or the side sent no data to tell by.
    pub fins_unacknowledged: [u64; 2],
    /// Each direction's FIN re-sent after the capture held the peer's ACK of it
    /// ([`FinResent`]); from 2 re-sends the FIN is not told as completed. Or null.
    pub fin_resent_after_ack: [Option<FinResent>; 2],
    /// Resets in `resets` that ended nothing (see [`NotTheEnd`]), or null.
    pub reset_ended_nothing: Option<NotTheEnd>,
    /// FINs that ended nothing (see [`NotTheEnd`]), or null; not in `finAt`.
    pub fin_ended_nothing: Option<NotTheEnd>,
    /// The handshake never completed (see [`NotEstablished`]), or null.
    pub not_established: Option<NotEstablished>,
    /// It outlived its last data by longer than the data took ([`AfterData`]), or null.
    pub after_data: Option<AfterData>,
    /// The resetter's peer sent new data after the reset ([`AfterReset`]), or null.
    pub after_reset: Option<AfterReset>,
}

/// A connection that never got past its SYNs: the client's SYN, no SYN/ACK, no payload
/// either way, every packet of the client a SYN. A client in SYN-SENT sends nothing but
/// SYNs (RFC 9293 §3.10.7.3; it re-sends one when its timer fires, §3.8.1): it never saw
/// a SYN/ACK either. How the peer answered is `Ending::kind`: `unanswered`, `refused`
/// (a reset acknowledging the SYN, §3.10.7.1) or `open` (segments that ended nothing).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct NotEstablished {
    /// SYNs the client sent, re-sends included.
    pub syns: u32,
    /// The first and the last of them, s since the file's first packet; null where the
    /// connection's rows were not all stored (limits.rs: the packet budget).
    pub first_syn_at: Option<f64>,
    pub last_syn_at: Option<f64>,
}

/// Every value `NotTheEnd::why` takes.
pub const NOT_THE_END_WHY: [&str; 4] = ["syn-not-acknowledged", "handshake-after", "before-own-syn", "data-after"];

/// Resets or FINs the capture holds that did not end the connection, and why (the
/// sentence says it, so "no reset in it" is never said of a capture that holds some):
/// - `syn-not-acknowledged`: a reset from the SYN's receiver before its SYN/ACK that does
///   not acknowledge the SYN. It answers an ACK-flagged segment sent before the handshake
///   (<SEQ=SEG.ACK><CTL=RST>, RFC 9293 §3.10.7.2), and the client in SYN-SENT drops it: a
///   reset counts there only with an acceptable ACK (§3.10.7.3).
/// - `handshake-after`: a reset before the SYN/ACK, which came after it all the same (the
///   server accepted the SYN, or a later copy of it): the connection went on.
/// - `before-own-syn`: a FIN from the SYN's receiver before its SYN/ACK: its sequence space
///   begins at the ISN that SYN/ACK carries (§3.4), and the client in SYN-SENT drops a
///   segment with neither SYN nor RST (§3.10.7.3).
/// - `data-after`: a FIN after which its sender sent data beyond it: a FIN is the last
///   byte of its sender's stream (§3.6), so the peer took it as no end (an injected FIN,
///   or the stream went on).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct NotTheEnd {
    /// The direction that sent the first of them.
    pub by: u8,
    /// s since the first packet of the file, of the first of them.
    pub at: f64,
    pub frame: u32,
    /// How many such segments each direction sent.
    pub count: [u64; 2],
    /// One of [`NOT_THE_END_WHY`], of the first.
    #[cfg_attr(test, ts(type = "NotTheEndWhy"))]
    pub why: &'static str,
    /// The SYN/ACK that came after it (s), where one did.
    pub syn_ack_at: Option<f64>,
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
    /// For `own-data` and `peer-data`: when that data last advanced its sender's
    /// sequence space (s since the file's first packet), before the reset.
    pub data_at: Option<f64>,
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

/// A reset or FIN sent before the SYN/ACK (in a capture holding the SYN).
#[derive(Clone, Copy, Debug)]
struct Early {
    by: u8,
    at: Mark,
    /// A reset from the SYN's receiver that does not acknowledge the SYN.
    unacceptable: bool,
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
    /// The direction whose FIN the capture holds first.
    first_fin: Option<u8>,
    /// The reset that ended the connection so far and what stood at it (reset_end.rs).
    reset: Option<Box<reset_end::ResetEnd>>,
    /// Counts are u32 (`bump` saturates): a connection would need 2^32 FIN or RST
    /// segments to reach the bound, and 100,000 short connections each make a `Closing`
    /// (issue 43: 24 B less per connection than u64s).
    resets: [u32; 2],
    /// FIN segments each direction sent, re-sends included.
    fins: [u32; 2],
    /// TLS alerts, and resets and FINs that ended nothing (unusual.rs), from the first.
    unusual: Option<Box<unusual::Unusual>>,
    /// Each direction's latest FIN and its sequence number (relative, `Side::sent_high`'s
    /// space): data beyond it made its FINs no end.
    last_fin: [Option<(Mark, Option<i64>)>; 2],
    /// Each direction's FIN re-sent after the peer's ACK of it (fin_resent.rs).
    fin_track: [fin_resent::FinTrack; 2],
    /// Capture time less time since the file's first packet (ns): `HandshakeTimes` keeps
    /// capture times.
    epoch_ns: i64,
    /// The SYN/ACK's time (ns since the file's first packet), set once the capture is read.
    syn_ack_ns: Option<i64>,
}

impl Closing {
    fn unusual(&self) -> &unusual::Unusual {
        self.unusual.as_deref().unwrap_or(&unusual::NONE)
    }

    fn unusual_mut(&mut self) -> &mut unusual::Unusual {
        self.unusual.get_or_insert_with(Box::default)
    }

    /// A segment of direction `d` with FIN or RST, or starting with a TLS alert;
    /// called after the analyzer has updated `sides` with it.
    #[cold]
    pub(crate) fn note(slot: &mut Option<Box<Closing>>, d: usize, seg: &TcpSegment, t_ns: i64, sides: &[Side; 2], hs: &HandshakeTimes) {
        let c = slot.get_or_insert_with(Box::default);
        let at = Mark { t_ns, frame: u32::try_from(seg.packet_index + 1).unwrap_or(u32::MAX) };
        c.epoch_ns = seg.ts_ns - t_ns;
        if let Some(alert) = seg.tls_alert {
            c.unusual_mut().alert[d] = Some(AlertMark { at, alert, data_end: sides[d].sent_high });
        }
        // Before the SYN/ACK of a handshake the capture holds, from a side that has sent
        // no data yet (with data sent, the SYN/ACK was only missed by the capture); a
        // reset's own payload (a diagnostic text, RFC 9293 §3.5.3) does not count.
        let only_this = |(h, l): (i64, i64)| seg.payload_len > 0 && h - l <= i64::from(seg.payload_len);
        let early = hs.syn.is_some() && hs.syn_ack.is_none() && sides[d].sent_high.zip(sides[d].sent_low).is_none_or(only_this);
        // The end of this segment's sequence range, in its side's space (a FIN or reset
        // after which the side sent data beyond it ended nothing).
        // Data beyond it means beyond both this segment's own range and what the side had
        // already sent (a reset answering with <SEQ=SEG.ACK> lies below data sent before
        // it; a FIN captured before its last data lies above it).
        let own_end = sides[d].seq.is_set().then(|| {
            let mut space = sides[d].seq;
            space.rel(seg.seq) + i64::from(seg.payload_len)
        });
        let end = own_end.max(sides[d].sent_high);
        let from_server = hs.client_dir as usize != d;
        if seg.flags & FIN != 0 && early && from_server {
            // No end: see `NotTheEnd` ("before-own-syn").
            let u = c.unusual_mut();
            bump(&mut u.early_fins[d]);
            u.first_early_fin.get_or_insert(Early { by: d as u8, at, unacceptable: false });
        } else if seg.flags & FIN != 0 {
            c.last_fin[d] = Some((at, end));
            c.fin_track[d].note(own_end, (sides[d].peer_ack, sides[1 - d].peer_ack), at);
            bump(&mut c.fins[d]);
            if c.fin[d].is_none() {
                c.fin[d] = Some(at);
                c.first_fin.get_or_insert(d as u8);
            }
        }
        if seg.flags & RST != 0 {
            bump(&mut c.resets[d]);
            // A reset noted before the SYN/ACK ended nothing when the SYN/ACK came after
            // it (`with_handshake_completed`): the next reset is the connection's.
            let before_syn_ack = hs.syn_ack.is_some_and(|sa| c.reset_end().is_some_and(|r| r.1.t_ns < sa - c.epoch_ns));
            // A reset its sender sent new data after ended nothing either: the peer
            // dropped it (a reset outside the expected sequence number, RFC 9293
            // §3.10.7.4 and RFC 5961 §3.2) and the stream went on.
            let data_after = c.reset_end().is_some_and(|r| r.3.is_some() && sides[r.0 as usize].sent_high > r.3);
            if let (true, Some(r)) = (data_after, c.reset_end()) {
                let u = c.unusual_mut();
                bump(&mut u.data_after_resets[r.0 as usize]);
                u.first_data_after_reset.get_or_insert(Early { by: r.0, at: r.1, unacceptable: false });
            }
            let superseded = before_syn_ack || data_after;
            // RFC 9293 §3.10.7.1: a SYN to a port nobody listens on is answered by a
            // reset; the resetter never sent its SYN/ACK. That reset acknowledges the
            // SYN (<SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>). A reset from that side
            // before its SYN/ACK without that ACK answers something else (an ACK-flagged
            // segment sent before the SYN/ACK, which §3.10.7.2 answers with
            // <SEQ=SEG.ACK><CTL=RST>), and the client, in SYN-SENT, drops it (§3.10.7.3:
            // a reset counts there only if its ACK is acceptable): it ends nothing.
            let before_handshake = early && from_server;
            let client = &sides[hs.client_dir as usize & 1];
            let acks_the_syn = seg.flags & ACK != 0 && client.seq.base().is_some_and(|isn| seg.ack == isn.wrapping_add(1));
            if early {
                let e = Early { by: d as u8, at, unacceptable: before_handshake && !acks_the_syn };
                let u = c.unusual_mut();
                bump(&mut u.early_resets[d]);
                u.first_early_reset.get_or_insert(e);
                if e.unacceptable {
                    bump(&mut u.unacceptable_resets[d]);
                    u.first_unacceptable.get_or_insert(e);
                }
            }
            if (c.reset.is_none() || superseded) && !(before_handshake && !acks_the_syn) {
                let refused = before_handshake;
                // Whose new data came last: the time each side's sequence space last
                // advanced (flags.rs `nextseq_time`), of a side that sent payload.
                let new_data = |s: &Side| s.sent_high.map(|_| s.ws.nextseq_time);
                let (own, peer) = (new_data(&sides[d]), new_data(&sides[1 - d]));
                let after = if refused {
                    "syn"
                } else if c.fin.iter().any(Option::is_some) {
                    "fin"
                } else {
                    match (own, peer) {
                        (None, None) => "no-data",
                        (Some(own), Some(peer)) if own > peer => "own-data",
                        (Some(_), None) => "own-data",
                        _ => "peer-data",
                    }
                };
                let data_at = match after { "own-data" => own, "peer-data" => peer, _ => None };
                let end = (d as u8, at, after, end, data_at.map(|t| t - c.epoch_ns));
                c.reset = Some(Box::new(reset_end::ResetEnd { end, mark: (sides[1 - d].sent_high, c.resets[d]) }));
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
    /// The handshake stopped at the client's SYNs (`NotEstablished`), if it did.
    pub not_established: Option<NotEstablished>,
    /// The direction with a second sender and its `refused_acks` (two_senders.rs).
    pub second_sender: Option<(u8, [i64; 2])>,
    /// The capture holds no segment without payload (capture/facts.rs `payload_only`).
    pub payload_only: bool,
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
/// `sacked`: each direction's bytes its peer SACKed above its cumulative ACK
/// ([`sacked_unacknowledged`], read before the trackers are finished).
/// `rows`: its rows where all were stored; `floor_s`: its stall threshold ([`AfterData`]).
pub(crate) fn judge(closing: Option<&Closing>, sides: &[Side; 2], sacked: [u64; 2], roles: &Roles, rows: Option<&PacketColumns>, floor_s: f64) -> Ending {
    let secs = |ns: i64| ns as f64 / 1e9;
    let c = closing.map_or_else(Closing::default, |c| c.with_data_after_reset(sides));
    let c = &c;
    // With the bytes a FIN proves sent beyond the capture (close_race.rs).
    let unacked = close_race::with_unseen([0, 1].map(|d| unacknowledged(&sides[d], roles.packets[1 - d])), c, sides);
    let unacked = if roles.payload_only { payload_only::unacknowledged(unacked, rows, floor_s) } else { unacked }; // no ACK is no evidence there
    let alert = latest_final_alert(c, sides);
    // A direction that sent data beyond its latest FIN: its FINs ended nothing.
    let data_after_fin = [0, 1].map(|d| c.last_fin[d].is_some_and(|(_, end)| end.is_some() && sides[d].sent_high > end));
    let fin = [0, 1].map(|d| c.fin[d].filter(|_| !data_after_fin[d]));
    let fin_at = fin.map(|m| m.map(|m| secs(m.t_ns)));
    let first_fin = match fin {
        [Some(_), Some(_)] => c.first_fin,
        [Some(_), None] => Some(0),
        [None, Some(_)] => Some(1),
        [None, None] => None,
    };
    let fin_ended_nothing = match (c.unusual().first_early_fin, (0..2).find(|&d| data_after_fin[d])) {
        (Some(e), _) => Some(not_the_end(e, c.unusual().early_fins, "before-own-syn", c.syn_ack_ns)),
        (None, Some(d)) => {
            let first = c.fin[d].map(|at| Early { by: d as u8, at, unacceptable: false });
            first.map(|e| not_the_end(e, [0, 1].map(|k| if data_after_fin[k] { c.fins[k] } else { 0 }), "data-after", c.syn_ack_ns))
        }
        _ => None,
    };
    let reset = c.reset_end().map(|(by, m, after, _, data)| Reset { by, at: secs(m.t_ns), frame: m.frame, after, data_at: data.map(secs) });
    let unanswered = roles.client.is_some_and(|cl| roles.packets[1 - cl as usize] == 0) && !one_way::client_acknowledged(roles, sides);
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
        first_fin,
        reset,
        resets: c.resets.map(u64::from),
        tls_alert: alert,
        unacknowledged_bytes: unacked,
        sacked_bytes: [0, 1].map(|d| unacked[d].map(|u| sacked[d].min(u))),
        fins_unacknowledged: [0, 1].map(|d| if fin[d].is_some() { fin_unacknowledged(&sides[d], u64::from(c.fins[d])) } else { 0 }),
        fin_resent_after_ack: [0, 1].map(|d| fin[d].and(c.fin_track[d].finding(sides[1 - d].peer_ack))),
        reset_ended_nothing: c.resets_ended_nothing(),
        fin_ended_nothing,
        not_established: roles.not_established,
        after_data: rows.and_then(|p| after_data::after_data(p, (reset, fin_at), floor_s)),
        after_reset: if kind == "reset" { after_reset::after_reset(c, sides, sacked) } else { None },
    };
    e.words = words(&e, roles);
    e.abnormal = abnormal(&e);
    e.text = one_way::with_words(sentence(&e, roles), e.kind, roles, rows);
    e
}

/// The latest TLS alert that was its sender's last data (nothing sent beyond it).
fn latest_final_alert(c: &Closing, sides: &[Side; 2]) -> Option<AlertSeen> {
    let finals = (0..2).filter_map(|d| {
        let a = c.unusual().alert[d]?;
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
    // Or re-sent after the peer's ACK of it, which its sender did not take (fin_resent.rs).
    let fin_lost = e.fins_unacknowledged.iter().any(|&n| n >= 2) || fin_resent::not_taken(e).contains(&true);
    reset || alert || (ended && unacked) || fin_lost
}

#[cfg(test)]
#[path = "ending_tests.rs"]
mod tests;

/// One more of a `Closing` count (u32, saturating).
fn bump(n: &mut u32) {
    *n = n.saturating_add(1);
}
