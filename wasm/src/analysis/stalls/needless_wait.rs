//! A timer re-send the receiver later reported it already had, before its ACK of the
//! original came (docs/ANALYSIS.md "Stall causes", `ack-wait`; issue 39 review Z class
//! C-SPURIOUS-TLP-AS-OUTAGE). A D-SACK (RFC 2883 §4) or Eifel evidence (retrans_kinds.rs)
//! says the original had arrived: the probe repaired no loss. Where the receiver's first
//! ACK covering those bytes passed the capture point later than one path round trip
//! after the re-send, that ACK cannot be the answer to the re-send (a receiver answers a
//! duplicate at once, RFC 5681 §4.2; wherever the capture is, the answer passes it
//! within one round trip of the segment): the receiver was holding its ACK of the
//! original (a delayed ACK, or an application that acknowledges only with its next
//! message), and the sender's timer fired first (RFC 8985 §7: a tail loss probe fires
//! after about two round trips without an ACK). So the gap the re-send ended, and the
//! one from it to the ACK that let the sender go on, were waits on the receiver's ACK,
//! not loss: `ack-wait`, neither an outage nor loss time. A re-send whose ACK came back
//! at once keeps its cause (the ACK of the original was lost or never sent:
//! acked_resend.rs, diagnosis_episodes/acked_resends.rs), as does a gap the peer's own
//! re-sent request ended (the peer's loss). VNC `ftp.pcap` (vedanandusekar): 11 server
//! probes, every one D-SACKed, the viewer acknowledging only with its next request
//! 0.25–1 s later, read "Nothing got through" eight times and "9.6 s retransmission timeout".
//!
//! NOT WIRED IN (session 36, h36i): applied in later_rules.rs it also re-labelled the
//! spurious timeouts a delay spike fires (real_captures delay-spikes, blackholes,
//! bursts-outage, transformed copies), which the tests keep as timeouts: a late ACK
//! there is the path's delay, not a receiver holding its ACK. It needs a test that
//! tells the two apart (the receiver's ACK riding on its next message) before use.

use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::cause::{Stall, StallCause};
use crate::analysis::stalls::{needless, peer_timer_resend};

/// Slack on top of one path round trip for the answer to a re-send to pass the capture
/// point (the same slack as diagnosis_episodes/acked_resends.rs).
pub const ANSWER_SLACK_S: f64 = 0.010;

/// Whether row `j` is a needless re-send of direction `dir` whose bytes the peer first
/// acknowledged later than `rtt_s` + [`ANSWER_SLACK_S`] after it (see the module doc):
/// the peer's ACK was held, not lost. The ACK's time, or None.
pub fn late_ack_of_needless(p: &PacketColumns, j: usize, dir: u8, rtt_s: f64) -> Option<f64> {
    if p.dir[j] != dir || p.len[j] == 0 || !needless(p.flags[j]) || !p.seq[j].is_finite() {
        return None;
    }
    let end = p.seq[j] + f64::from(p.len[j]);
    // The peer's first ACK covering the re-sent bytes, before or after the re-send.
    let k = (0..p.t.len()).find(|&k| p.dir[k] != dir && p.ack[k].is_finite() && p.ack[k] >= end)?;
    (k > j && p.t[k] - p.t[j] > rtt_s + ANSWER_SLACK_S).then_some(p.t[k])
}

/// Re-labels direction `dir`'s `retransmission-timeout` stalls ended by such a re-send,
/// or begun by one and ended by new data with no re-send of the peer's in between, as
/// `ack-wait`. `rtt_s`: the path round trip (none known: nothing is re-labelled).
pub fn reclassify(stalls: &mut [Stall], p: &PacketColumns, dir: u8, rtt_s: Option<f64>) {
    let Some(rtt) = rtt_s.filter(|r| *r > 0.0) else { return };
    for s in stalls.iter_mut().filter(|s| s.cause == StallCause::RetransmissionTimeout) {
        let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        let words = if let Some(at) = late_ack_of_needless(p, j, dir, rtt) {
            format!(
                "{}; needless: the receiver reported it already had those bytes (D-SACK, RFC 2883) and acknowledged them only at {}, so the sender's timer fired while the receiver held its ACK",
                s.ended_by,
                crate::analysis::format::format_timestamp(at)
            )
        } else if late_ack_of_needless(p, i, dir, rtt).is_some() && p.dir[j] == dir && p.len[j] > 0 && p.flags[j] & flag_bits::ANY_RETRANSMISSION == 0 && !(i + 1..j).any(|r| p.dir[r] != dir && peer_timer_resend(p.flags[r])) {
            format!("{}; the re-send before it was needless (D-SACK, RFC 2883): the wait was on the receiver's ACK of the original", s.ended_by)
        } else {
            continue;
        };
        s.cause = StallCause::AckWait;
        s.ended_by = words;
    }
}
