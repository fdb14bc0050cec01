//! A peer that stopped answering for good (issue 39 review N class C-LOSS-HEADLINE):
//! the data direction's last data went unacknowledged, its timer re-sent it again and
//! again, and from the peer's last packet to the connection's end nothing at all came
//! back (a PLC rebooting after a firmware change, a client that went away mid-download).
//!
//! A live TCP peer answers every segment that reaches it: new data within the
//! delayed-ACK bound (RFC 9293 §3.8.6.3: 0.5 s at most), a duplicate or a segment
//! outside its window at once (RFC 9293 §3.10.7.4; RFC 5681 §4.2). Loss that the
//! sender recovers from shows as ACKs that resume; re-sends into a silence that never
//! ends repair nothing: the peer was gone, or its path cut in both directions (the
//! capture cannot tell which, and says so). That is the connection's end, not a limit
//! of its transfer, so — as for an idle tail (diagnosis_shares/transfer_end.rs) — the
//! shares, the savings and the headline are of the transfer up to the last data
//! segment before the silence, and a sentence of its own says when the peer went
//! silent and how long the sender kept re-sending (the outage episode of those
//! timeouts stays in the episode list; the sentence takes its place in the text).
//!
//! Only where the silence is beyond doubt (stalls/receiver_silent.rs [`find`], where it
//! is found, before the report): at least [`MIN_RESENDS`] re-sends after the peer's last
//! packet, the connection going on at least [`MIN_SILENCE_S`] after the first of them,
//! and a transfer before it (the peer had acknowledged some of the data): a connection
//! that never got an answer is said by its ending and outage.

use crate::analysis::format::{format_duration, format_timestamp, plural, timers_phrase};
use crate::analysis::report::ConnectionSummary;
pub use crate::analysis::stalls::receiver_silent::{find, MIN_RESENDS, MIN_SILENCE_S};
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::cause::Stall;
use crate::analysis::stalls::is_data_segment;
use crate::analysis::timing::vantage::Vantage;
use crate::analysis::verdict::diagnosis_shares::TimeShares;
use std::borrow::Cow;


impl TimeShares {
    /// Where the shares end: the transfer's end before an idle tail
    /// (diagnosis_shares/transfer_end.rs) or before the peer's silence, whichever
    /// comes first; None when they run to the last data segment.
    pub fn ends_at(&self) -> Option<f64> {
        match (self.transfer_end.map(|e| e.at), self.peer_silent.map(|p| p.at)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Where the shares start: the bulk phase after a head of small messages
    /// (diagnosis_shares/transfer_head.rs); None when they start at the first data segment.
    pub fn starts_at(&self) -> Option<f64> {
        self.transfer_start.map(|s| s.at)
    }
}

/// The stalls of the transfer: those that began before its end ([`TimeShares::ends_at`])
/// and not before its start ([`TimeShares::starts_at`]); all of them without either. A
/// stall that begins at the transfer's last data segment is the tail's; one that began
/// before the bulk phase's first segment (the pause that segment ended) is the head's.
pub fn stalls_within<'a>(stalls: &'a [Stall], sh: &TimeShares) -> Cow<'a, [Stall]> {
    match (sh.starts_at(), sh.ends_at()) {
        (None, None) => Cow::Borrowed(stalls),
        (a, e) => Cow::Owned(stalls.iter().filter(|s| s.start < e.unwrap_or(f64::INFINITY) && s.start >= a.unwrap_or(f64::NEG_INFINITY)).cloned().collect()),
    }
}

/// The needless re-sends (D-SACK or Eifel evidence, `stalls::needless`) of direction `d`
/// in the transfer before a peer's silence, or None without one (then the report's
/// counter is the transfer's: `spuriousRetransmissions`, which bounds this count: the
/// text quotes the smaller).
pub fn needless_before(packets: &PacketColumns, d: u8, sh: &TimeShares) -> Option<u64> {
    let end = sh.peer_silent?.at;
    let rows = 0..packets.t.partition_point(|&t| t <= end);
    Some(rows.filter(|&i| is_data_segment(packets, i, d) && crate::analysis::stalls::needless(packets.flags[i])).count() as u64)
}

/// Whether an episode starting at `t` is of the transfer, not of the peer's silence
/// (whose sentence takes the place of its outage's in the text).
pub fn before_silence(sh: &TimeShares, t: f64) -> bool {
    sh.peer_silent.is_none_or(|p| t < p.first_unanswered)
}

/// " " and the sentence where the peer went silent, else nothing: "192.168.10.120:44818
/// went silent after 61.687 s (its last packet, frame 10593): the data sent from 63.673 s
/// (frame 10597) on was never acknowledged, and 192.168.10.105:1057 re-sent 5 times over
/// 16 s (1 tail loss probe and 4 retransmission timeouts) until the connection's last
/// packet at 83.642 s …".
pub fn said(conn: &ConnectionSummary, packets: &PacketColumns, sh: &TimeShares) -> String {
    let Some(p) = sh.peer_silent else { return String::new() };
    let d = conn.data_direction.min(1);
    let (sender, peer) = (&conn.endpoints[d as usize], &conn.endpoints[1 - d as usize]);
    let stalls = &conn.directions[d as usize].stalls;
    let (probes, timeouts) = crate::analysis::verdict::diagnosis_episodes::timer_counts(stalls, packets, p.at, f64::INFINITY);
    let timers = timers_phrase(probes, timeouts).map_or_else(String::new, |t| format!(" ({t})"));
    let ended = if p.reset {
        format!("it reset the connection at {}", format_timestamp(p.until))
    } else {
        format!("the connection's last packet at {}", format_timestamp(p.until))
    };
    // At the receiver's side the re-sends were seen passing towards it unanswered; on its
    // host (stalls/receiver_silent.rs re-labelled the timeouts) they reached it.
    let on_host = crate::analysis::stalls::receiver_silent::silent_runs(stalls).iter().any(|r| r.0 >= p.at);
    let where_: Cow<str> = if p.peer_reset {
        reset_words(packets, d, sender).into()
    } else if on_host {
        "the re-sends reached this capture point on the peer's host and none was answered: its host or its stack stopped, not the path".into()
    } else if conn.vantage == Vantage::Receiver {
        "the re-sends passed this capture point on the peer's side and none was answered: the peer stopped (its host, its stack or its application) or the last stretch to it was cut".into()
    } else {
        "nothing came back at all: the peer stopped (its host, its stack or its application) or the path to it was cut in both directions; a capture at the peer would tell which".into()
    };
    // Where an idle tail ended the transfer earlier, the sentence about it said where
    // everything above ends (transfer_tail.rs).
    let up_to = if sh.transfer_end.is_some_and(|e| e.at <= p.at) {
        String::new()
    } else {
        format!(": everything above is of the transfer up to {} (frame {})", format_timestamp(p.at), p.frame)
    };
    let (which, into) = if p.peer_reset { (", which was its reset", "to a peer that had reset") } else { ("", "into a peer that never answers again") };
    format!(
        " {peer} went silent after {} (its last packet, frame {}){which}: nothing {sender} sent from {} (frame {}) on was \
         acknowledged, and it re-sent {}{timers} until {ended}; {where_}. Re-sends {into} end the connection, they \
         are not loss that limited its transfer{up_to}.",
        format_timestamp(p.peer_last),
        p.peer_last_frame,
        format_timestamp(p.first_unanswered),
        p.first_unanswered_frame,
        resent_words(&p),
    )
}

/// "5 segments over 15 s", or "1 segment at 0.243 s" (one re-send spans no time).
fn resent_words(p: &crate::analysis::report::PeerSilent) -> String {
    if p.resends == 1 {
        format!("1 segment at {}", format_timestamp(p.first_resend))
    } else {
        format!("{} over {}", plural(p.resends, "segment"), format_duration(p.last_resend - p.first_resend))
    }
}

/// Why the sender went on after the peer's reset, where the capture shows it: its ACKs
/// after the reset acknowledge past the reset's sequence number (the peer's FIN before
/// it, say), so the reset lay below the sender's window and was dropped (RFC 9293
/// §3.10.7.4: a reset is accepted only with a sequence number in the window); else it
/// went on as if the reset never arrived.
fn reset_words(packets: &PacketColumns, d: u8, sender: &str) -> String {
    let n = packets.t.len();
    let reset = (0..n).rev().find(|&i| packets.dir[i] != d);
    let past = reset.is_some_and(|r| (r + 1..n).any(|i| packets.dir[i] == d && packets.ack[i] > packets.seq[r]));
    if past {
        format!("{sender} had already acknowledged past the reset's sequence number (its ACKs after the reset say so), so the reset fell outside its window and was dropped (RFC 9293 §3.10.7.4), and it went on sending to a peer that had left")
    } else {
        format!("{sender} went on as if the reset had not reached it (lost on the way, or crossing its data)")
    }
}
