//! Auditor rule 3, per stall (audit.rs lists every rule): a timer stall names a timer,
//! so the capture must hold that timer's re-send as the counters count it
//! (loss/retrans_kinds.rs, checked against the kernel's nstat), not any retransmission
//! (review AD/AH, C-RTO-STALL-WITHOUT-TIMEOUT: "41 ms retransmission timeout" over a
//! tail-loss probe, "566 ms for retransmission timers" beside "no retransmission
//! timeout counted"). Where the stall rules found their evidence (stalls/gaps/classify.rs,
//! hole_resend.rs, unseen_timeout.rs, acked_resend.rs, timer_label.rs):
//! - a `retransmission-timeout` stall whose first re-send (stalls/timer_label.rs
//!   `first_resend`) the counters call a tail-loss probe, after no longer a silence than
//!   a probe timer waits (`probe_wait_max_s`), and that answered no timer re-send of the
//!   peer's, contradicts them: that re-send was the probe timer's (RFC 8985 §7). (One
//!   counted fast is not checked: where it came long after the receiver's last packet the
//!   stall keeps its timer and says both, timer_label.rs.)
//! - a `retransmission-timeout` stall needs a timer's evidence at all: a timeout, probe
//!   or slow-start re-send (counted only in a counted timeout's loss state, RFC 5681
//!   §3.1) of the sender from the flight before the gap through the flight that ended
//!   it, the peer's timer re-send in the gap (its request, or its SYN/ACK, lost), or a
//!   datagram the sender's numbering proves was sent and never captured right before
//!   the segment that ended it (`UNSEEN_BEFORE`), or its ending re-send counted fast
//!   (kept a timer's only where it came long after the receiver's last packet);
//! - a `tail-loss-probe` stall needs its first re-send counted a probe, or (the wait for
//!   the probe's ACK, timer_label.rs `probe_ack_wait`) its first packet a probe.

use crate::analysis::format::format_duration;
use crate::analysis::report::ConnectionSummary;
use crate::analysis::rows::columns::{flag_bits as fb, PacketColumns};
use crate::analysis::stalls::cause::{Stall, StallCause};
use crate::analysis::stalls::timer_label::{answered, first_resend, peer_timer, probe_wait_max_s};

/// Rows of a flight looked at, at most (as hole_resend.rs).
const FLIGHT_ROWS: usize = 64;

/// Rule 3, per stall, of the data direction's timer stalls.
pub(super) fn check_timer_stalls(c: &ConnectionSummary, p: &PacketColumns) -> Vec<String> {
    let d = c.data_direction.min(1);
    let sender = &c.directions[d as usize];
    let lag_s = (sender.sender_lag_ms / 1000.0).max(0.0);
    let unseen = sender.unseen_datagrams.unwrap_or(0) > 0;
    let mut out = Vec::new();
    for s in sender.stalls.iter().filter(|s| s.cause.is_timer()) {
        let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        let first = first_resend(p, d, (i, j), lag_s);
        let peers_timer = (i + 1..j).any(|r| p.dir[r] != d && peer_timer(p.flags[r]));
        let kind = first.map_or(0, |k| p.flags[k] & fb::ANY_KIND);
        if s.cause == StallCause::TailLossProbe {
            let began_with_probe = p.dir[i] == d && p.flags[i] & fb::KIND_TLP != 0;
            if kind & fb::KIND_TLP == 0 && !began_with_probe {
                out.push(said(s, "a tail-loss probe", "no probe is counted for the re-send that ended it"));
            }
            continue;
        }
        let answered_timer = first.and_then(|k| answered(p, d, (i, k), lag_s)).is_some_and(|r| peer_timer(p.flags[r]));
        let timer_kind = fb::KIND_RTO | fb::KIND_SLOW_START;
        // A probe counted after no longer a silence than a probe timer waits (the
        // shorter bound: the path RTT or none) ended it: not a timeout.
        let probe_wait = probe_wait_max_s(Some(c.path_rtt_ms.unwrap_or(0.0) / 1000.0));
        if !answered_timer && kind & timer_kind == 0 && kind & fb::KIND_TLP != 0 && s.duration <= probe_wait {
            out.push(said(s, "a retransmission timeout", "the re-send that ended it is counted a tail-loss probe"));
            continue;
        }
        let timer = |r: usize| p.dir[r] == d && p.flags[r] & (fb::KIND_RTO | fb::KIND_TLP | fb::KIND_SLOW_START) != 0;
        // Or the re-send that ended it counted fast, long after the receiver's last
        // packet: the stall keeps the timer and says both (timer_label.rs rule c).
        let own = (i..=j).any(timer) || flight_after(p, d, j, lag_s).any(timer) || flight_before(p, d, i, lag_s).any(timer) || kind & fb::KIND_FAST != 0;
        let unseen_resend = unseen && p.flags[j] & fb::UNSEEN_BEFORE != 0;
        if !(own || peers_timer || unseen_resend) {
            out.push(said(s, "a retransmission timeout", "no timeout or probe is counted for it"));
        }
    }
    out
}

/// "the 41 ms stall of frames 1689–1690 is called …, but …".
fn said(s: &Stall, called: &str, but: &str) -> String {
    format!("the {} stall of frames {}–{} is called {called}, but {but} ({})", format_duration(s.duration), s.frame_before, s.frame_after, s.ended_by)
}

/// The rows of `dir`'s flight that ends at row `i`, newest first: as `flight_after`,
/// backwards.
fn flight_before(p: &PacketColumns, dir: u8, i: usize, lag_s: f64) -> impl Iterator<Item = usize> + '_ {
    let from = i.saturating_sub(FLIGHT_ROWS);
    (from..=i).rev().take_while(move |&k| (lag_s > 0.0 || p.dir[k] == dir) && p.t[i] - p.t[k] <= 0.5 * lag_s)
}

/// The rows of `dir`'s flight that starts at row `j`: its segments captured before any
/// later ACK could have reached the sender and clocked them (within half the sender
/// lag of `j`; at the sender, before the peer's next packet).
fn flight_after(p: &PacketColumns, dir: u8, j: usize, lag_s: f64) -> impl Iterator<Item = usize> + '_ {
    let end = (j + FLIGHT_ROWS).min(p.t.len());
    (j..end).take_while(move |&k| (lag_s > 0.0 || p.dir[k] == dir) && p.t[k] - p.t[j] <= 0.5 * lag_s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::rows::columns::flag_bits::RETRANSMISSION;

    /// A 200 ms stall of direction 0 from frame 10 (1.0 s) to its re-send, frame 12
    /// (1.2 s), the peer's ACK between (frame 11, 1.0001 s), captured at the sender;
    /// `cause` its label and `kind` the counted kind of the re-send.
    fn case(cause: StallCause, kind: u32) -> (ConnectionSummary, PacketColumns) {
        let s = Stall { start: 1.0, duration: 0.2, cause, frame_before: 10, frame_after: 12, ended_by: String::new() };
        let c = crate::analysis::stalls::testkit::summary(vec![s], Some((41.0, 41.0)));
        let p = PacketColumns {
            t: vec![1.0, 1.0001, 1.2],
            dir: vec![0, 1, 0],
            frame: vec![10, 11, 12],
            seq: vec![1000.0, f64::NAN, 1000.0],
            ack: vec![f64::NAN, 1000.0, f64::NAN],
            len: vec![1000, 0, 1000],
            flags: vec![0, 0, RETRANSMISSION | kind],
            ..Default::default()
        };
        (c, p)
    }

    #[test]
    fn a_timer_stall_follows_the_counted_kind_of_its_re_send() {
        // Review AH (brianlochanan android-runner conn 1): a probe called a timeout.
        let (c, p) = case(StallCause::RetransmissionTimeout, fb::KIND_TLP);
        let found = check_timer_stalls(&c, &p);
        assert!(found.len() == 1 && found[0].contains("counted a tail-loss probe"), "{found:?}");
        // Counted fast after 200 ms of silence (zeek tcp/reassembly.pcap frame 35): the
        // stall keeps its timer, its words say both (stalls/timer_label.rs), no contradiction.
        let (c, p) = case(StallCause::RetransmissionTimeout, fb::KIND_FAST);
        assert_eq!(check_timer_stalls(&c, &p), Vec::<String>::new());
        // The probe's own label, and a timeout's: no contradiction.
        for (cause, kind) in [(StallCause::TailLossProbe, fb::KIND_TLP), (StallCause::RetransmissionTimeout, fb::KIND_RTO), (StallCause::RetransmissionTimeout, fb::KIND_SLOW_START)] {
            let (c, p) = case(cause, kind);
            assert_eq!(check_timer_stalls(&c, &p), Vec::<String>::new(), "{cause:?}");
        }
        // A probe label over a timeout: no probe counted.
        let (c, p) = case(StallCause::TailLossProbe, fb::KIND_RTO);
        assert!(check_timer_stalls(&c, &p)[0].contains("no probe is counted"));
        // No kind at all (an unclassified re-send) and no other evidence: no timer shown.
        let (c, p) = case(StallCause::RetransmissionTimeout, 0);
        assert!(check_timer_stalls(&c, &p)[0].contains("no timeout or probe is counted"));
    }
}
