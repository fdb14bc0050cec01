//! A payload-only capture (capture/facts.rs `payload_only`, the `payload-only`
//! warning: not one segment without payload, so none of the pure ACKs every receiver
//! sends) says nothing by the absence of an ACK (docs/ANALYSIS.md "A payload-only
//! capture"; issue 39 review AB class C-PAYLOAD-ONLY-ACK-ASSUMED-MISSING).
//!
//! - **A silence longer than a retransmission timer, ended by new data where the captured
//!   data ended, with no ACK of the peer in it beyond that, is idle.** A
//!   sender with data unacknowledged re-sends its oldest unacknowledged segment when
//!   its retransmission timer expires (RFC 6298 §5.4), and the timer runs from its last
//!   send (§5.1). RFC 6298 §2.4 puts the timer at 1 s at least (Linux 200 ms, Windows
//!   300 ms), and at SRTT + 4·RTTVAR, which the stall threshold's 4 path RTTs
//!   (stalls/gaps.rs `default_threshold_s`) stands for: a sender silent for more than
//!   [`MIN_RTO_S`] + 2 × the threshold that then sends new data (not a re-send) had its
//!   data acknowledged, by pure ACKs this capture does not hold, and then had nothing
//!   to send: the gap is the application's (`application-idle`), not one "waiting on
//!   the peer or the path" of unknown cause. 13usmanali https_protocol.pcapng
//!   connection 44: a 57 KB answer in 9 ms, then 120 s of silence (the server's own IP
//!   ID counter goes 0xe2c5 → 0xe2c6 across it: not one datagram sent) and 46 B of new
//!   data; it read "stalled 125 s … unknown cause".
//! - **Bytes not acknowledged at the end are not told** unless the capture shows it:
//!   the sender re-sent some of them (it had no ACK of them when its timer fired), or
//!   the peer's data segment sent at least a stall threshold after the sender's last
//!   data acknowledged less than the sender had sent (RFC 9293 §3.4: every segment
//!   carries the receiver's cumulative ACK).

use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::cause::{Stall, StallCause};

/// RFC 6298 §2.4: the retransmission timer is at least 1 s (stacks use less).
pub const MIN_RTO_S: f64 = 1.0;

/// Re-label direction `d`'s stalls of unknown cause that ended with new data after a
/// silence no retransmission timer lasts (module doc). Only for a payload-only capture.
pub fn idle_after_timer(stalls: &mut [Stall], packets: &PacketColumns, d: u8, threshold_s: f64) {
    let longer_than_a_timer = MIN_RTO_S + 2.0 * threshold_s;
    // Not where the peer has no packet in the capture at all (one direction captured,
    // one_direction.rs): there nothing shows the peer was even there to acknowledge.
    if !packets.dir.iter().any(|&x| x & 1 != d & 1) {
        return;
    }
    for s in stalls.iter_mut().filter(|s| s.cause == StallCause::Unknown && s.duration > longer_than_a_timer) {
        let Some((before, after)) = packets.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        if usize::from(packets.dir[after] & 1) != usize::from(d & 1) || packets.len[after] == 0 || packets.flags[after] & flag_bits::ANY_RETRANSMISSION != 0 {
            continue;
        }
        // New data: at or beyond every byte the sender had sent before it.
        // The highest byte end a side (`own`: the sender's) had sent in the rows before `after`.
        let highest = |own: bool| (0..after).filter(|&i| (packets.dir[i] & 1 == d & 1) == own && packets.len[i] > 0).map(|i| packets.seq[i] + f64::from(packets.len[i])).fold(f64::NEG_INFINITY, f64::max);
        let high = highest(true);
        // Exactly where the captured data ended: a segment beyond it follows bytes the
        // capture never held, sent in the gap (review AC W1: tls2 connection 279, new data
        // 2,296 B past the last captured byte, was "idle"); and no ACK of the peer in the gap
        // passes that byte (quickplay connection 16: the peer acknowledged 836 KB the capture
        // never held during a 23.4-s "idle"). Either is a gap in which the capture missed
        // packets, not an idle sender.
        // Nor where the sender's own ACK at the end passes the peer's last captured byte:
        // the peer's data came in the gap unseen (quickplay connection 16: the client's
        // next request acknowledged 836 KB of an answer the capture never held) — a turn,
        // not an idle sender.
        let past = |x: f64| x > high + 0.5;
        let peer_high = highest(false);
        let unseen_answer = packets.ack[after].is_finite() && packets.ack[after] > peer_high.max(0.0) + 1.5;
        if packets.seq[after] < high || past(packets.seq[after]) || unseen_answer || (before..after).any(|i| packets.dir[i] & 1 != d & 1 && packets.ack[i].is_finite() && past(packets.ack[i])) {
            continue;
        }
        s.cause = StallCause::ApplicationIdle;
        s.ended_by = format!(
            "new data after {} with no re-send: longer than any retransmission timer (RFC 6298: at least 1 s), and a sender re-sends its oldest unacknowledged data first, so what it had sent was acknowledged by pure ACKs this capture does not hold (it keeps only segments with data) and the connection idled",
            crate::analysis::format::format_duration(s.duration)
        );
    }
}
