//! A receiver that stopped answering, seen from its own side of the path.
//!
//! A live TCP receiver answers every segment that reaches it: new data within the
//! delayed-ACK bound (RFC 9293 §3.8.6.3: 0.5 s at most), a duplicate or a segment
//! outside its window at once (RFC 9293 §3.10.7.4; RFC 5681 §4.2). At a capture taken
//! on the receiver's side (vantage.rs), a segment the capture saw arrive has reached the
//! receiver's host. So when the sender's timer re-sends and those re-sends arrive, and
//! the receiver sends nothing at all for longer than that bound after one of them, the
//! data was not lost on the path: the receiving host or its stack stopped (a crashed or
//! suspended host, a dead process whose socket the kernel no longer serves, a firewall
//! on the host dropping after the capture point). Calling that "loss" or "nothing got
//! through" contradicts the capture, which shows the data getting through. Only where the
//! capture is on the receiver's host or its LAN (its packets carry an initial TTL,
//! vantage.rs `local_by_ttl`): a router or two away, the last stretch may have lost them.
//!
//! The stall is then the sender waiting on ACKs that never came (`ack-wait`), not loss
//! recovery: the sender's timer still fired (its timeouts stay counted), but no
//! repair of the path would have helped. Elsewhere (sender side, middle, unknown) the
//! capture cannot tell lost re-sends from a receiver gone, and the stalls keep their
//! cause; the outage sentence says which it cannot tell (diagnosis_episodes.rs).

use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::format::{format_duration, format_timestamp};
use crate::analysis::stalls::cause::Stall;
use crate::analysis::stalls::cause::StallCause;
use crate::analysis::timing::vantage::Vantage;

/// RTO stalls are one outage when the next begins within this of the previous end
/// (exponential backoff: each retransmission is lost again, RFC 6298 §5.5).
pub const OUTAGE_JOIN_S: f64 = 0.001;

/// RFC 9293 §3.8.6.3: a receiver MUST acknowledge within 0.5 s of a segment's arrival.
pub const MAX_ACK_DELAY_S: f64 = 0.5;

/// How a re-labelled stall's `ended_by` begins (what [`silent_runs`] finds them by).
const ENDED_BY: &str = "a re-send by the sender's timer";

/// The receiver's packets (direction `1 - dir`) in (a, b], capture time.
fn receiver_sent(cols: &PacketColumns, dir: u8, a: f64, b: f64) -> bool {
    let (from, to) = (cols.t.partition_point(|&t| t <= a), cols.t.partition_point(|&t| t <= b));
    (from..to).any(|i| cols.dir[i] != dir)
}

/// Re-labels as `ack-wait` the retransmission-timeout stalls of direction `dir` at a
/// receiver-side capture during which the receiver sent nothing, although a segment
/// that began one of them (captured, so arrived) went unanswered for more than
/// [`MAX_ACK_DELAY_S`] while the capture still ran. `capture_end`: the time of the
/// connection's last packet (silence after it is the capture's end, not the receiver's).
/// Returns how many stalls were re-labelled.
/// `receiver_on_host`: the receiver's packets leave the capture point with an initial TTL
/// (vantage.rs `local_by_ttl`): no router between them, so what the capture saw arrive
/// reached the receiving host. Without it, a receiver-side capture a router or two away
/// cannot exclude the last stretch losing every re-send, and the stalls stay timeouts.
pub fn reclassify(stalls: &mut [Stall], cols: &PacketColumns, dir: u8, vantage: Vantage, receiver_on_host: bool, capture_end: f64) -> usize {
    if vantage != Vantage::Receiver || !receiver_on_host {
        return 0;
    }
    let mut n = 0;
    // Runs of back-to-back timeout stalls (the backoff of one outage): the receiver's
    // silence is judged over the run, as the outage episode joins them.
    let mut k = 0;
    while k < stalls.len() {
        if stalls[k].cause != StallCause::RetransmissionTimeout {
            k += 1;
            continue;
        }
        let mut end = k + 1;
        while end < stalls.len()
            && stalls[end].cause == StallCause::RetransmissionTimeout
            && stalls[end].start - (stalls[end - 1].start + stalls[end - 1].duration) <= OUTAGE_JOIN_S
        {
            end += 1;
        }
        let (a, b) = (stalls[k].start, stalls[end - 1].start + stalls[end - 1].duration);
        // The first segment of the run arrived at `a`; the receiver owed an answer by
        // a + 0.5 s and gave none, nor anything else, until the last re-send at b.
        let ignored = a + MAX_ACK_DELAY_S <= b.min(capture_end) && !receiver_sent(cols, dir, a, b);
        if ignored {
            // The receiver's last packet before the run: what it last said.
            let last_heard = cols.t[..cols.t.partition_point(|&t| t <= a)].iter().zip(&cols.dir).rev().find(|(_, &d)| d != dir).map(|(&t, _)| t);
            let since = last_heard.map_or_else(|| "the capture began".to_string(), format_timestamp);
            for s in &mut stalls[k..end] {
                s.cause = StallCause::AckWait;
                s.ended_by = format!(
                    "{ENDED_BY} at {}; the receiver had sent nothing since {} though the data reached this capture on its host ({} without an answer)",
                    format_timestamp(s.start + s.duration),
                    since,
                    format_duration(s.start + s.duration - a)
                );
                n += 1;
            }
        }
        k = end;
    }
    n
}

/// Runs of stalls that [`reclassify`] re-labelled, as (start, end, count): the
/// episodes say them ("… stopped answering for …").
pub fn silent_runs(stalls: &[Stall]) -> Vec<(f64, f64, usize)> {
    let mut out: Vec<(f64, f64, usize)> = Vec::new();
    for s in stalls.iter().filter(|s| s.cause == StallCause::AckWait && s.ended_by.starts_with(ENDED_BY)) {
        let (a, b) = (s.start, s.start + s.duration);
        match out.last_mut() {
            Some(last) if a - last.1 <= OUTAGE_JOIN_S => {
                last.1 = b;
                last.2 += 1;
            }
            _ => out.push((a, b, 1)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stall(start: f64, duration: f64) -> Stall {
        Stall { start, duration, cause: StallCause::RetransmissionTimeout, frame_before: 1, frame_after: 2, ended_by: String::new() }
    }

    fn cols(rows: &[(f64, u8)]) -> PacketColumns {
        let mut c = PacketColumns::default();
        for &(t, d) in rows {
            c.t.push(t);
            c.dir.push(d);
        }
        c
    }

    #[test]
    fn re_sends_that_arrive_unanswered_are_the_receiver_stopping() {
        // Receiver-side capture: data (dir 0) at 1.0 s re-sent by the timer at 1.3,
        // 1.9 and 3.1 s (backoff), the receiver silent from 0.9 s on: 3 stalls whose
        // re-sends arrived and went unanswered 2.1 s > 0.5 s.
        let c = cols(&[(0.9, 1), (1.0, 0), (1.3, 0), (1.9, 0), (3.1, 0)]);
        let mut s = vec![stall(1.0, 0.3), stall(1.3, 0.6), stall(1.9, 1.2)];
        assert_eq!(reclassify(&mut s, &c, 0, Vantage::Receiver, true, 3.1), 3);
        assert!(s[0].ended_by.contains("sent nothing since 0.900 s"), "{}", s[0].ended_by);
        assert!(s.iter().all(|s| s.cause == StallCause::AckWait));
        let runs = silent_runs(&s);
        assert_eq!(runs.len(), 1);
        assert!((runs[0].0 - 1.0).abs() < 1e-9 && (runs[0].1 - 3.1).abs() < 1e-9 && runs[0].2 == 3, "{runs:?}");
    }

    #[test]
    fn a_receiver_that_answers_or_a_capture_elsewhere_keeps_the_timeout() {
        // The receiver ACKs the re-send at 1.31 s: a tail loss repaired by the timer.
        let c = cols(&[(1.0, 0), (1.3, 0), (1.31, 1), (1.9, 0), (3.1, 0)]);
        let mut s = vec![stall(1.0, 0.3), stall(1.3, 0.6), stall(1.9, 1.2)];
        assert_eq!(reclassify(&mut s, &c, 0, Vantage::Receiver, true, 3.1), 0);
        // One 0.3 s timeout, the receiver silent: within the 0.5 s it may delay an ACK.
        let c = cols(&[(1.0, 0), (1.3, 0), (1.5, 1)]);
        let mut s = vec![stall(1.0, 0.3)];
        assert_eq!(reclassify(&mut s, &c, 0, Vantage::Receiver, true, 1.5), 0);
        // At the sender the re-sends may have been lost on the way: kept.
        let c = cols(&[(1.0, 0), (1.3, 0), (1.9, 0), (3.1, 0)]);
        let mut s = vec![stall(1.0, 0.3), stall(1.3, 0.6), stall(1.9, 1.2)];
        assert_eq!(reclassify(&mut s, &c, 0, Vantage::Sender, true, 3.1), 0);
        // A receiver-side capture with a router between it and the receiver: kept.
        assert_eq!(reclassify(&mut s, &c, 0, Vantage::Receiver, false, 3.1), 0);
        assert!(s.iter().all(|s| s.cause == StallCause::RetransmissionTimeout));
    }
}
