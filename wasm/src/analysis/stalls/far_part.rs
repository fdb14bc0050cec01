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
use crate::analysis::format::{format_duration, format_timestamp};

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

/// Re-labels as `ack-wait` the application-idle stalls at a receiver-side capture that the
/// far part of the round trip, as the data sender's echoes bounded it in the round trip
/// before (timing/far_bounds.rs: (capture time of the data, bound) s, in capture order),
/// fills but for less than a stall (`threshold_s`). Returns how many.
///
/// At the receiver every segment looks acknowledged the moment it arrives; the sender
/// learns it one trip later and its answer takes another to come back: a silence after
/// the last data holds one far part of the round trip, whatever the sender's application
/// did (issue 39: the application is idle only when the sender has nothing outstanding).
/// The stall rules judge it by the path RTT, the smallest round trip; under load the far
/// part is longer, and a queue that held the receiver's ACKs 100 ms on a 20 ms path made
/// each request/response turn read "application" (PcapPlusPlus `example.pcap` #3). The
/// bound is the path's alone (no application time is in it), measured on data that
/// arrived at most one bound before the silence began (the round trip before it): the
/// far part then. When that bound takes most of the silence (the rest is no longer than
/// it, and less than a stall), the application held the sender less than the path did
/// and less than a stall, and the silence is the path's: waiting on the ACK the path
/// held (the rest stays said in the words). A silence the bound does not take most of
/// stays the application's (a server thinking 120 ms on a 40 ms path, its ACKs 19 ms
/// late: `a44y-rr-think-ackloss.pcap`).
pub fn reclassify_loaded(stalls: &mut [Stall], bounds: &[(f64, f64)], vantage: Vantage, threshold_s: f64) -> usize {
    if vantage != Vantage::Receiver || bounds.is_empty() {
        return 0;
    }
    let mut n = 0;
    for s in stalls.iter_mut().filter(|s| s.cause == StallCause::ApplicationIdle) {
        let (t0, t1) = (s.start, s.start + s.duration);
        // A bound is a lower bound: a small one (data sent back to back) says nothing of
        // how long the far part was, so a silence it does not fill is judged as unmeasured.
        let covers = |far: f64| covers(s.duration, far, threshold_s);
        let measured = loaded_far_part(bounds, t0, t1).filter(|&(_, far)| covers(far));
        let Some((at, far)) = measured else {
            // Not measured in its round trip, but within FAR_RTT_BOUND_S of it the echoes
            // showed a far part that would fill it: the path may have held the sender for
            // all of it, or its application; the capture cannot tell which.
            let near = bounds.iter().filter(|&&(t, _)| t >= t0 - FAR_RTT_BOUND_S && t <= t1 + FAR_RTT_BOUND_S);
            if let Some(&(at, far)) = near.filter(|&&(_, b)| covers(b)).max_by(|a, b| a.1.total_cmp(&b.1)) {
                s.cause = StallCause::Unknown;
                // The stall pass's words said the application; they are replaced, not kept.
                s.ended_by = format!(
                    "new data after a silence the path may have held (captured at the receiver, whose round trip towards the sender was not measured in the round trip before this silence: at {} the sender's timestamp echo showed it at least {} — a queue — which would take most of it, so the path may have held the sender, not its application)",
                    format_timestamp(at),
                    format_duration(far)
                );
                n += 1;
            }
            continue;
        };
        let rest = s.duration - far;
        s.cause = StallCause::AckWait;
        s.ended_by = format!(
            "new data within the round trip the path then had (captured at the receiver): the sender's data at {} echoed a TCP timestamp older than one the receiver had sent {} before it, so the sender had not yet received that segment and the far part of the round trip was at least {}; the rest, {}, is less than that and less than a stall",
            format_timestamp(at),
            format_duration(far),
            format_duration(far),
            format_duration(rest.max(0.0))
        );
        n += 1;
    }
    n
}

/// Whether a far part of `far` s takes most of a silence of `duration` s: the rest, which
/// the sender's application may have taken, is no longer than it and shorter than a stall.
fn covers(duration: f64, far: f64, threshold_s: f64) -> bool {
    let rest = duration - far;
    rest <= far && rest < threshold_s
}

/// The largest bound measured on data that arrived in the round trip before `t0` (no
/// earlier than one bound before it) or up to `t1`, and when: (capture time, bound) s.
fn loaded_far_part(bounds: &[(f64, f64)], t0: f64, t1: f64) -> Option<(f64, f64)> {
    // Bounds are in capture order; none is longer than MAX_LOOKBACK_S looks back.
    let from = bounds.partition_point(|&(t, _)| t < t0 - MAX_LOOKBACK_S);
    bounds[from..].iter().take_while(|&&(t, _)| t <= t1).filter(|&&(t, b)| t >= t0 - b).copied().fold(None, |best: Option<(f64, f64)>, x| match best {
        Some(b) if b.1 >= x.1 => Some(b),
        _ => Some(x),
    })
}

/// The longest far part the lookback considers, s: [`FAR_RTT_BOUND_S`] and more (a bound
/// longer than it still looks back only this far).
const MAX_LOOKBACK_S: f64 = 4.0 * FAR_RTT_BOUND_S;

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

    #[test]
    fn a_silence_the_loaded_far_part_takes_most_of_is_the_paths() {
        // Stalls from 1.0 s; threshold 80 ms. Bounds: 119 ms measured at 0.95 s (in the
        // round trip before 1.0 s: 0.95 ≥ 1.0 − 0.119), 0.4 ms at 0.99 s (back-to-back
        // data: bounds little).
        let bounds = [(0.95, 0.119), (0.99, 0.0004)];
        let at = |duration: f64, bounds: &[(f64, f64)]| {
            let mut s = vec![idle(duration)];
            reclassify_loaded(&mut s, bounds, Vantage::Receiver, 0.080);
            s[0].cause
        };
        // 120 ms: 1 ms beyond the bound, the path's. 230 ms: the rest, 111 ms, is more
        // than a stall and than the bound: the application's. 200 ms: rest 81 ms, just
        // over the threshold: the application's.
        assert_eq!(at(0.120, &bounds), StallCause::AckWait);
        assert_eq!(at(0.230, &bounds), StallCause::ApplicationIdle);
        assert_eq!(at(0.200, &bounds), StallCause::ApplicationIdle);
        // Measured 0.8 s before (0.2 < 1.0 − 0.119): not its round trip, but within 1 s:
        // unknown. 1.5 s before: too far, the application's.
        assert_eq!(at(0.120, &[(0.2, 0.119)]), StallCause::Unknown);
        assert_eq!(at(0.120, &[(-0.5, 0.119)]), StallCause::ApplicationIdle);
        // A bound of 40 ms takes less than half of 120 ms: the application's.
        assert_eq!(at(0.120, &[(0.99, 0.040)]), StallCause::ApplicationIdle);
        // Not at the receiver: nothing changes.
        let mut s = vec![idle(0.120)];
        assert_eq!(reclassify_loaded(&mut s, &bounds, Vantage::Middle, 0.080), 0);
    }
}
