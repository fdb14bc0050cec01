//! A gap ended by a timer re-sending data its peer had already acknowledged
//! (docs/ANALYSIS.md "Stall causes", `retransmission-timeout`; issue 39 review T class
//! C-TEXT-VS-COUNTERS). The capture shows everything acknowledged and the sender silent:
//! rule 3 would call it the application's idle time. But the segment that ended the gap
//! carried no new data: it re-sent bytes at or below the peer's cumulative ACK, alone,
//! with no request of the peer in the gap and no duplicate ACKs to send it (not a fast
//! retransmission). A sender re-sends data only while it holds it unacknowledged (RFC
//! 9293 §3.10.7.4 removes acknowledged data from the retransmission queue), so it never
//! took that ACK: lost on its way back past the capture point, or not acceptable to it
//! (an ACK above its SND.NXT is dropped, §3.10.7.4 — the ACK of an injected answer that
//! raced the real server's). What it waited on was its retransmission timer (RFC 6298).
//! fox-it quantuminsert `bro.org-harlemshake-inject.pcap` connection 13: the real server
//! re-sent its 485-B answer 445 times, every ~100 ms for 46 s, below the client's ACK of
//! the injected 6,354 B; the report said "100 % … the sender still had nothing to send"
//! beside its own 447 `rtoEvents`.

use crate::analysis::format::format_timestamp;
use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::cause::{Stall, StallCause};

/// Re-labels the `application-idle` stalls of direction `dir` that a re-send of data its
/// peer had acknowledged ended (see the module doc).
pub fn reclassify(stalls: &mut [Stall], p: &PacketColumns, dir: u8) {
    for s in stalls.iter_mut().filter(|s| s.cause == StallCause::ApplicationIdle) {
        let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        let f = p.flags[j];
        if p.dir[j] != dir || p.len[j] == 0 || f & flag_bits::ANY_RETRANSMISSION == 0 || f & (flag_bits::KIND_FAST | flag_bits::FAST_RETRANSMISSION) != 0 {
            continue;
        }
        if p.peer_payload_in(i..j, dir) {
            continue; // a request of the peer in the gap: turn-taking, not a timer
        }
        // The peer's cumulative ACK before the re-send, and when it first covered it.
        let end = p.seq[j] + f64::from(p.len[j]);
        let Some(k) = (0..j).filter(|&k| p.dir[k] != dir && p.ack[k].is_finite()).find(|&k| p.ack[k] >= end) else { continue };
        s.cause = StallCause::RetransmissionTimeout;
        s.ended_by = format!(
            "timer re-send of {} bytes at {} that the peer had already acknowledged (at {}): the sender never took that ACK (lost on its way back, or not acceptable to it) and waited on its retransmission timer",
            p.len[j],
            format_timestamp(p.t[j]),
            format_timestamp(p.t[k])
        );
    }
}
