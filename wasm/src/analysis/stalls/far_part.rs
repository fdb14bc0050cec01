//! Application time at a receiver-side capture whose far part of the round trip was
//! never measured.
//!
//! At a capture on the receiver's side, the silence after the receiver's ACK of
//! everything holds the whole far part of the round trip: the ACK still has to reach
//! the sender, and the sender's next data has to come back (vantage.rs). Where that part
//! was measured, the stalls are judged in the sender's time (sender_view.rs) and the
//! silence is split. Where it was not (no handshake, no timestamps, the receiver sent no
//! data of its own for the sender to acknowledge), a silence after the ACK of everything
//! may be nothing but that round trip: a sender held by its congestion window, sending
//! each flight as the ACK of the last arrives, looks idle between flights (a 400 ms path
//! read as "the application" 73 % of the time, from the receiver's 118 µs ACK delay).
//! So such a silence is the application's only when it is longer than any round trip
//! the path plausibly has: [`FAR_RTT_BOUND_S`]. Shorter ones are `unknown`, said so.

use crate::analysis::stalls::cause::Stall;
use crate::analysis::stalls::cause::StallCause;
use crate::analysis::timing::vantage::Vantage;

/// RFC 6298 §2.1 starts every connection's retransmission timer at 1 s because nearly
/// every path's round trip is shorter (its Appendix A: 1 s exceeds the RTT of ~97.5 %
/// of connections measured; a geostationary satellite hop is ~0.6 s).
pub const FAR_RTT_BOUND_S: f64 = 1.0;

/// Re-labels as `unknown` the application-idle stalls shorter than [`FAR_RTT_BOUND_S`]
/// at a receiver-side capture with no path RTT. Returns how many.
pub fn reclassify(stalls: &mut [Stall], vantage: Vantage, path_rtt: Option<f64>) -> usize {
    if vantage != Vantage::Receiver || path_rtt.is_some() {
        return 0;
    }
    let mut n = 0;
    for s in stalls.iter_mut().filter(|s| s.cause == StallCause::ApplicationIdle && s.duration < FAR_RTT_BOUND_S) {
        s.cause = StallCause::Unknown;
        s.ended_by = format!(
            "{} (captured at the receiver, whose round trip towards the sender was never measured: a silence under 1 s after the ACK of everything may be that round trip, not the sender's application)",
            s.ended_by
        );
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idle(duration: f64) -> Stall {
        Stall { start: 1.0, duration, cause: StallCause::ApplicationIdle, frame_before: 1, frame_after: 2, ended_by: "new data after all was acknowledged".into() }
    }

    #[test]
    fn short_silences_after_the_ack_are_unknown_only_where_the_far_part_is() {
        // A 0.6 s silence at a receiver without a path RTT may be a 0.4 s round trip
        // plus the receiver's 0.2 s delayed ACK; 3.4 s is longer than any plausible one.
        let mut s = vec![idle(0.6), idle(3.4)];
        assert_eq!(reclassify(&mut s, Vantage::Receiver, None), 1);
        assert_eq!((s[0].cause, s[1].cause), (StallCause::Unknown, StallCause::ApplicationIdle));
        // With the path RTT measured, or elsewhere, the stall pass already judged them.
        let mut s = vec![idle(0.6)];
        assert_eq!(reclassify(&mut s, Vantage::Receiver, Some(0.4)), 0);
        assert_eq!(reclassify(&mut s, Vantage::Sender, None), 0);
    }
}
