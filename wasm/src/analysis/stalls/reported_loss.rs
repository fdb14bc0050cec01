//! Stalls that were loss recovery the capture could not show (docs/ANALYSIS.md "Stall
//! causes", rule 9): the receiver's SACK blocks reported data missing (RFC 2018; lost by
//! RFC 6675's rule, loss/reported.rs) and its cumulative ACK later covered that data with
//! no re-send of it captured. The sender re-sent it where this capture did not see it:
//! data lost after the capture point (it saw the original pass) or whose re-send took no
//! path past it or was not recorded. A gap in the sender's data during that recovery is
//! the sender repairing the loss (its fast retransmission or timer, RFC 6675 / RFC
//! 6298), not waiting on the path's ACKs: the ACKs were late because data was lost.

use crate::analysis::format::format_timestamp;
use crate::analysis::loss::reported::Recovery;
use crate::analysis::rows::store::secs;
use crate::analysis::stalls::cause::{Stall, StallCause};

/// Re-labels as `loss-recovery` the stalls of `ack-wait`, `delayed-ack`, `unknown` or
/// `window-limited` cause that a recovery with an unseen re-send spans: the receiver had
/// reported the loss before the gap ended, and its ACK had not yet covered what was sent
/// by then when the gap began. Returns how many.
pub fn reclassify(stalls: &mut [Stall], recoveries: &[Recovery]) -> usize {
    let mut n = 0;
    for s in stalls.iter_mut() {
        if !matches!(s.cause, StallCause::AckWait | StallCause::DelayedAck | StallCause::Unknown | StallCause::WindowLimited) {
            continue;
        }
        let (t0, t1) = (s.start, s.start + s.duration);
        let Some(r) = recoveries.iter().find(|r| r.unseen_resend && secs(r.start_ns) < t1 && r.end_ns.is_none_or(|e| secs(e) > t0)) else { continue };
        s.cause = StallCause::LossRecovery;
        s.ended_by = format!(
            "{}, in a loss recovery this capture could not see: the receiver reported data missing at {} (its SACK blocks) and acknowledged it later with no re-send of it captured",
            s.ended_by,
            format_timestamp(secs(r.start_ns))
        );
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(start: f64, duration: f64) -> Stall {
        Stall { start, duration, cause: StallCause::AckWait, frame_before: 1, frame_after: 2, ended_by: "new data after an ACK at 1.000 s".into() }
    }

    #[test]
    fn a_wait_inside_a_recovery_with_an_unseen_resend_is_loss_recovery() {
        let r = Recovery { start_ns: 1_100_000_000, end_ns: Some(2_000_000_000), recover: 10_000, unseen_resend: true };
        let mut stalls = vec![wait(1.0, 0.2), wait(2.5, 0.2), wait(0.5, 0.2)];
        assert_eq!(reclassify(&mut stalls, &[r]), 1);
        assert_eq!(stalls.iter().map(|s| s.cause).collect::<Vec<_>>(), vec![StallCause::LossRecovery, StallCause::AckWait, StallCause::AckWait]);
        // Re-sends the capture saw: the gaps stay as they were (gaps.rs judges those).
        let mut stalls = vec![wait(1.0, 0.2)];
        assert_eq!(reclassify(&mut stalls, &[Recovery { unseen_resend: false, ..r }]), 0);
    }
}
