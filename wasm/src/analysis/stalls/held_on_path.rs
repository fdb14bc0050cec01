//! Stalls the path made, re-labelled by the sender's own clock (docs/ANALYSIS.md "Stall
//! causes", rule 3a). timing/sender_clock.rs reads the sender's TSvals packet by packet
//! and marks the segment that ends a gap the path made (`HELD_ON_PATH`) or that echoes
//! a TSval older than the peer's ACK of everything (`ACK_HELD_ON_PATH`); its module
//! comment gives the mechanism (RFC 7323 §3, §4.3).

use crate::analysis::format::{format_duration, format_timestamp};
use crate::analysis::rows::columns::flag_bits::{ACK_HELD_ON_PATH, HELD_ON_PATH};
use crate::analysis::rows::columns::PacketColumns;
use super::cause::{Stall, StallCause};

/// Re-labels the `application-idle` stalls of direction `dir` that the path made
/// (`HELD_ON_PATH` on the segment that ends the gap) as `ack-wait`: in the sender's
/// time it had sent that segment and was waiting on the path, not idle. Past the
/// sender only (`lag_s` > 0: at the sender its own gaps are what it sent).
/// `free[k]`: stall `k`'s sender was shown free to send (stalls/gaps/gap.rs `not_held`):
/// data it sent before the ACK reached it was not waiting on that ACK.
pub fn reclassify(stalls: &mut [Stall], p: &PacketColumns, lag_s: f64, free: &[bool]) {
    if !(lag_s > 0.0) {
        return;
    }
    // A timeout stall too: a timer's re-send carries the time it was re-sent (RFC 7323
    // §3), so a re-send whose TSval moved less than half the gap was sent soon after
    // the segment before it and held on the path (issue 39: a 219 ms hold during which
    // the sender's clock moved 2 ms read "retransmission timer").
    let held_causes = |c: StallCause| matches!(c, StallCause::ApplicationIdle | StallCause::RetransmissionTimeout);
    for (k, s) in stalls.iter_mut().enumerate().filter(|(_, s)| held_causes(s.cause)) {
        let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        if s.cause == StallCause::RetransmissionTimeout && p.flags[j] & HELD_ON_PATH == 0 {
            continue;
        }
        if p.flags[j] & HELD_ON_PATH != 0 {
            s.cause = StallCause::AckWait;
            s.ended_by = format!(
                "data at {} that its sender had sent well within the {} gap (its TCP timestamp moved less \
                 than half of it): held on the path — a queue, a radio's retries or power save — while the \
                 sender waited, not an idle sender",
                format_timestamp(p.t[j]),
                format_duration(s.duration)
            );
        } else if p.flags[j] & ACK_HELD_ON_PATH != 0 && !p.peer_payload_in(i..j, p.dir[j]) && !free.get(k).copied().unwrap_or(false) {
            // Not where the peer sent a request during the gap (its application's turn).
            s.cause = StallCause::AckWait;
            s.ended_by = format!(
                "data at {} whose TCP timestamp echo is older than the peer's ACK of everything: its sender \
                 had not yet received that ACK — held on the way back, a queue or a radio's uplink — and was \
                 waiting on ACKs, not an idle sender",
                format_timestamp(p.t[j])
            );
        }
    }
}
