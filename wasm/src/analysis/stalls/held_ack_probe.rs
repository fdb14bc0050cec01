//! A timer re-send behind an ACK the receiver held for its next message (docs/ANALYSIS.md
//! "Stall causes", `ack-wait`; issue 39 review Z class C-SPURIOUS-TLP-AS-OUTAGE).
//!
//! Three facts of the capture, all needed:
//! - the re-send was needless: the receiver reported the bytes a duplicate (D-SACK,
//!   RFC 2883 §4) or Eifel evidence says the original had arrived (retrans_kinds.rs);
//! - the receiver's first ACK covering those bytes passed the capture point later than
//!   one path round trip (+ 10 ms) after the re-send, **riding on the receiver's own new
//!   data** (or carrying a sequence number past every byte of the receiver's captured:
//!   its next message was sent, and lost before the capture point). A receiver answers a duplicate at once (RFC 5681 §4.2), and that answer
//!   passes any capture point within one round trip, so a later ACK is the receiver's
//!   ACK of the original; carried by its next message, it was held for that message
//!   (a VNC viewer acknowledging the framebuffer only with its next request, or a
//!   delayed ACK piggybacked, RFC 1122 §4.2.3.2), and the sender's timer fired first
//!   (RFC 8985 §7: a tail loss probe fires after about two round trips without an ACK).
//!
//! - and the receiver's last ACK advance before the re-send rode on its own data too: it
//!   acknowledges with its messages (a receiver that had been sending pure ACKs and then
//!   went silent lost them on the way, a blackhole, rather than held them).
//!
//! Then the gap the re-send ended, and the one it began that new data ended (no timer
//! re-send of the peer's in between), were waits on the receiver's ACK, not loss:
//! `ack-wait`, neither an outage nor loss time. A late *pure* ACK proves no hold: a delay
//! spike on the path makes the same D-SACKed, late-acknowledged re-send (the first form
//! of this rule, session 36, re-labelled those and was withdrawn), so those keep the
//! timer's cause. A re-send acknowledged at once keeps its cause too (acked_resend.rs).
//! VNC `ftp.pcap` (vedanandusekar): 11 server probes, D-SACKed, the viewer acknowledging
//! only with its next 10-B request 0.25–1 s later, read "Nothing got through" eight times.

use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::cause::{Stall, StallCause};
use crate::analysis::stalls::{needless, peer_timer_resend};
use crate::decode::tcp_flags::{FIN, SYN};

/// Slack on top of one path round trip for the answer to a re-send to pass the capture
/// point (the same slack as diagnosis_episodes/acked_resends.rs).
pub const ANSWER_SLACK_S: f64 = 0.010;

/// Whether row `j` is a needless re-send of direction `dir` whose bytes the peer first
/// acknowledged, with new data of its own, later than `rtt_s` + [`ANSWER_SLACK_S`] after
/// it (module doc). The row of that ACK, or None.
pub fn held_ack_of(p: &PacketColumns, j: usize, dir: u8, rtt_s: f64) -> Option<usize> {
    if p.dir[j] != dir || p.len[j] == 0 || !needless(p.flags[j]) || !p.seq[j].is_finite() {
        return None;
    }
    let end = p.seq[j] + f64::from(p.len[j]);
    // The peer's first ACK covering the re-sent bytes, before or after the re-send.
    let k = (0..p.t.len()).find(|&k| p.dir[k] != dir && p.ack[k].is_finite() && p.ack[k] >= end)?;
    // Its own new data, or a sequence number past every byte of the peer's captured
    // before it: the peer had sent its next message (lost before the capture point).
    // (A SYN or FIN takes one number, RFC 9293 §3.4.)
    let one = |r: usize| if p.flags[r] & u32::from(SYN | FIN) != 0 { 1.0 } else { 0.0 };
    let peer_high = (0..k).filter(|&r| p.dir[r] != dir && p.seq[r].is_finite()).map(|r| p.seq[r] + f64::from(p.len[r]) + one(r)).fold(f64::NEG_INFINITY, f64::max);
    let own_message = (p.len[k] > 0 && p.flags[k] & flag_bits::ANY_RETRANSMISSION == 0) || (peer_high.is_finite() && p.seq[k] > peer_high);
    (k > j && own_message && p.t[k] - p.t[j] > rtt_s + ANSWER_SLACK_S && acks_with_messages(p, j, dir)).then_some(k)
}

/// Whether the peer's last ACK advance of direction `dir`'s data before row `j` rode on
/// the peer's own new data: it acknowledged with its messages before the re-send too. A
/// peer that had been acknowledging with pure ACKs and then went silent lost its ACKs
/// (a blackhole both ways: `reqresp-blackhole.pcap`, the client's pure ACKs up to
/// 0.687 s, then its request re-sent at 1.136 s acknowledging everything), not held them.
fn acks_with_messages(p: &PacketColumns, j: usize, dir: u8) -> bool {
    let mut high = f64::NEG_INFINITY;
    let mut last_advance = None;
    for r in (0..j).filter(|&r| p.dir[r] != dir && p.ack[r].is_finite()) {
        if p.ack[r] > high {
            if high.is_finite() {
                last_advance = Some(r);
            }
            high = p.ack[r];
        }
    }
    last_advance.is_some_and(|r| p.len[r] > 0 && p.flags[r] & flag_bits::ANY_RETRANSMISSION == 0)
}

/// Re-labels direction `dir`'s `retransmission-timeout` stalls ended by such a re-send,
/// or begun by one and ended by new data with no timer re-send of the peer's in between,
/// as `ack-wait`. `rtt_s`: the path round trip (none known: nothing is re-labelled).
pub fn reclassify(stalls: &mut [Stall], p: &PacketColumns, dir: u8, rtt_s: Option<f64>) {
    let Some(rtt) = rtt_s.filter(|r| *r > 0.0) else { return };
    for s in stalls.iter_mut().filter(|s| s.cause == StallCause::RetransmissionTimeout) {
        let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        let words = if let Some(k) = held_ack_of(p, j, dir, rtt) {
            format!(
                "{}; needless: the receiver already had those bytes (its D-SACK or its ACK's timestamp echo says so, RFC 2883, RFC 3522) and acknowledged them only at {}, with its next message, so the sender's timer fired while the receiver held its ACK",
                s.ended_by,
                crate::analysis::format::format_timestamp(p.t[k])
            )
        } else if held_ack_of(p, i, dir, rtt).is_some() && p.dir[j] == dir && p.len[j] > 0 && p.flags[j] & flag_bits::ANY_RETRANSMISSION == 0 && !(i + 1..j).any(|r| p.dir[r] != dir && peer_timer_resend(p.flags[r])) {
            format!("{}; the re-send before it was needless (the receiver already had those bytes): the wait was on the receiver's ACK of the original, held for its next message", s.ended_by)
        } else {
            continue;
        };
        s.cause = StallCause::AckWait;
        s.ended_by = words;
    }
}

/// An outage span (`a`, `b`] in which the data's sender re-sent nothing
/// (diagnosis_episodes.rs `Progress::in_span`): its progress is read from every packet of
/// both directions up to one path round trip + [`ANSWER_SLACK_S`] before the span's end —
/// what came later is the outage ending (an ACK lets the sender go on at once); only the
/// receiver's ACKs count there, never data sent (a packet sent is no proof it arrived:
/// suricata-verify `filestore-5408` #0, a request's second segment 1 µs after the first,
/// both lost, once read "Things still got through … sent 165 B of its own") — and not
/// at all without a path RTT. The row bound (exclusive), or None where no packet after
/// the span's first row `from` lies that early. Review Z vnc: 84.861–88.265 s read
/// "Nothing got through for 3.4 s" while the viewer's ACK of 173 new bytes came at 85.123 s.
pub fn settled_end(p: &PacketColumns, from: usize, b: f64, path_rtt_ms: Option<f64>) -> Option<usize> {
    let rtt = path_rtt_ms.filter(|r| *r > 0.0)? / 1000.0;
    let end = p.t.partition_point(|&t| t <= b - rtt - ANSWER_SLACK_S);
    (end > from).then_some(end)
}

/// The progress of such a span (`settled_end`), kept only where it shows arrival during
/// it: no data sent counts (a packet sent is no proof it arrived), and the receiver's ACK
/// advance only where one came more than a path round trip + [`ANSWER_SLACK_S`] after the
/// span's start `a` — sooner, it answered what was sent before the outage (nfstream
/// `skype_no_unknown.pcap` #37: the client's ACK 77 µs after the server's 107 B at the
/// span's start, then its own 8 B re-sent four times and never acknowledged, once read
/// "Things still got through … ACK advanced 1 time (107 B)"). `rows`: the span's first
/// row and the bound; `d`: the data direction.
pub fn settled_progress(new_data: &mut [f64; 2], (acked, steps): (&mut f64, &mut u32), p: &PacketColumns, (from, end): (usize, usize), a: f64, path_rtt_ms: Option<f64>, d: u8) {
    *new_data = [0.0; 2];
    let Some(rtt) = path_rtt_ms.map(|r| r / 1000.0) else { return };
    let before = (0..from).filter(|&r| p.dir[r] != d && p.ack[r].is_finite()).map(|r| p.ack[r]).fold(f64::NEG_INFINITY, f64::max);
    let mut high = before;
    let late = (from..end.min(p.t.len())).any(|r| {
        let advanced = p.dir[r] != d && p.ack[r].is_finite() && p.ack[r] > high;
        if p.dir[r] != d && p.ack[r].is_finite() {
            high = high.max(p.ack[r]);
        }
        advanced && p.t[r] > a + rtt + ANSWER_SLACK_S
    });
    if !late {
        (*acked, *steps) = (0.0, 0);
    }
}
