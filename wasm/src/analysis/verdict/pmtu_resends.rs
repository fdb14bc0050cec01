//! Re-sends that an ICMP "fragmentation needed" / "packet too big" set off (review X,
//! class C-PMTU-RESEND-AS-FAST; docs/ANALYSIS.md "ICMP errors"). A router that cannot
//! forward a segment at its size drops it and says so with the next hop's MTU (RFC 1191
//! §4, RFC 8201 §4); the sender lowers its segment size and re-sends at once (RFC 1191
//! §6.4: "a retransmission … without waiting for the retransmission timer"). Its loss
//! is then found by the message, not by duplicate ACKs a round trip later nor by a
//! timer, so the loss text's "a lost segment is re-sent a round trip later at best, and
//! one at the end of a reply … only when the sender's probe timer or retransmission
//! timeout fires" does not describe it (CESNET ipfixprobe `smtp.pcap`: frames 22–25
//! dropped at 1,500 B by a PPPoE router, its message 26, the first re-send 27 at
//! 1,452 B 55 µs later, the others within 1 ms of the server's ACKs 31 and 34).
//!
//! The rule: every re-send of the data direction was a PMTU re-send (the counter
//! `pmtuRetransmissions` equals `retransmissions`: loss/pmtu_kind.rs decided each one).
//! Then the loss text's clause about when a lost segment is re-sent ([`loss_clause`],
//! asked by the sentence builder, path_words.rs) tells what the capture shows instead of
//! [`GENERIC`]: the first re-send's delay after its message and its size, and, when
//! every later re-send left within [`RELEASE_S`] of an ACK of the peer, that the
//! sender's window (the ACKs), not loss detection, spaced them.

use crate::analysis::format::format_duration;
use crate::analysis::report::ConnectionSummary;
use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::track::icmp::IcmpMessage;
use crate::decode::tcp_flags::ACK;

/// The loss text's generic clause about when a lost segment is re-sent ([`loss_clause`]).
pub const GENERIC: &str = "a lost segment is re-sent a round trip later at best, and one at the end of a reply, which no later \
segment's ACK can report, only when the sender's probe timer or retransmission timeout fires";

/// A re-send left this soon after an ACK of the peer: the ACK released it, s.
pub const RELEASE_S: f64 = 0.001;

/// What the capture shows of the re-sends a too-big message set off ([`detect`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PmtuResends {
    /// Rows of the data direction's re-sends, in time order.
    pub resends: Vec<usize>,
    /// The first too-big message (time, frame) and the segments it and the others dropped.
    pub message_t: f64,
    pub message_frame: u64,
    pub dropped: usize,
    /// Every re-send after the first left within [`RELEASE_S`] of an ACK of the peer.
    pub ack_released: bool,
}

/// The re-sends of the data direction when all of them are PMTU re-sends (module
/// comment), or None. `conn.icmp` holds the messages (icmp_errors.rs `attach`).
pub fn detect(conn: &ConnectionSummary, p: &PacketColumns) -> Option<PmtuResends> {
    let dir = conn.data_direction.min(1);
    let sender = &conn.directions[dir as usize];
    if sender.pmtu_retransmissions == 0 || sender.pmtu_retransmissions != sender.retransmissions {
        return None;
    }
    let errors = conn.icmp.as_deref()?;
    let msgs: Vec<&IcmpMessage> = errors.messages.iter().filter(|m| m.kind.too_big() && m.seen && m.resent && m.direction == dir).collect();
    let first = msgs.iter().min_by(|a, b| a.t.total_cmp(&b.t))?;
    let n = p.t.len();
    // The dropped segments: the data rows the messages quote (sent before their message).
    let dropped = msgs.iter().filter(|m| (0..n).any(|r| p.dir[r] == dir && p.len[r] > 0 && p.seq[r] <= m.quoted_seq && m.quoted_seq < p.seq[r] + f64::from(p.len[r]) && p.t[r] <= m.t)).count();
    let mut resends: Vec<usize> = (0..n).filter(|&r| p.dir[r] == dir && p.len[r] > 0 && p.flags[r] & flag_bits::ANY_RETRANSMISSION != 0).collect();
    resends.sort_by(|&a, &b| p.t[a].total_cmp(&p.t[b]));
    if dropped == 0 || resends.is_empty() || p.t[resends[0]] <= first.t {
        return None;
    }
    let ack = u32::from(ACK);
    let released = |r: usize| (0..n).any(|a| p.dir[a] != dir && p.flags[a] & ack != 0 && p.t[a] <= p.t[r] && p.t[r] - p.t[a] <= RELEASE_S);
    let ack_released = resends.len() > 1 && resends[1..].iter().all(|&r| released(r));
    Some(PmtuResends { resends, message_t: first.t, message_frame: first.frame, dropped, ack_released })
}

/// The clause that replaces [`GENERIC`], e.g. "the path's MTU dropped 4 segments and
/// its router said so at once: the first re-send left 55 µs after the message (frame 26
/// → frame 27), at 1452 bytes, found by the message, not by duplicate ACKs or a timer; the
/// last (frame 36) 774 ms after it, each later one within 1 ms of an ACK of the peer, so
/// the sender's window, not loss detection, spaced them".
pub fn clause(s: &PmtuResends, p: &PacketColumns) -> String {
    let (r1, rl) = (s.resends[0], *s.resends.last().unwrap_or(&s.resends[0]));
    let segs = if s.dropped == 1 { "1 segment".to_string() } else { format!("{} segments", s.dropped) };
    let mut t = format!(
        "the path's MTU dropped {segs} and its router said so at once: the first re-send left {} after the message (frame {} → frame {}), at {} bytes, found by the message, not by duplicate ACKs or a timer",
        format_duration(p.t[r1] - s.message_t),
        s.message_frame,
        p.frame[r1],
        p.len[r1],
    );
    if rl != r1 {
        t += &format!("; the last (frame {}) {} after it", p.frame[rl], format_duration(p.t[rl] - s.message_t));
        if s.ack_released {
            t += &format!(", each later one within {} of an ACK of the peer, so the sender's window, not loss detection, spaced them", format_duration(RELEASE_S));
        }
    }
    t
}

/// The loss text's clause on when a lost segment is re-sent (path_words.rs asks): the
/// PMTU re-sends' own story ([`clause`]) when every re-send was one, else [`GENERIC`].
pub fn loss_clause(conn: &ConnectionSummary, p: &PacketColumns) -> String {
    detect(conn, p).map_or_else(|| GENERIC.to_string(), |s| clause(&s, p))
}
