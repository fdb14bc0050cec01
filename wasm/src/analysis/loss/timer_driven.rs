//! The one test of "was this re-send sent by a timer?" (docs/ANALYSIS.md "Timer-driven
//! re-sends"), used by the retransmission counters (retrans_kinds/classify.rs) and by the
//! stall rules (stalls/gaps/resends.rs `ack_clocked`), so that a stall is never called a
//! retransmission timeout while the counters count its re-send as clocked by ACKs, or
//! the reverse (issue 39; h34d: the stall rule used 0.2 s, the counters 1 s, when the
//! path RTT was unknown).
//!
//! A re-send clocked by the receiver's feedback (the third duplicate ACK, RFC 5681 §3.2;
//! the SACKs that show a hole, RFC 6675 §5) leaves as that feedback reaches the sender,
//! so its *quiet* — how long the sender had heard nothing new when it sent it — is at
//! most the part of one round trip the capture does not see. A timer fires later: a
//! tail loss probe no earlier than 2·SRTT after the last ACK (RFC 8985 §7.2), a
//! retransmission timeout no earlier than SRTT + 4·RTTVAR (RFC 6298 §2.3), at least
//! 1 s by RFC 6298 §2.4 (Linux 200 ms, FreeBSD 30 ms), and RACK's reordering timer at
//! most RACK.reo_wnd ≤ SRTT after the SACK that armed it (RFC 8985 §6.2, §6.3) — so for
//! a hole below SACKed data half a round trip more. Hence: quiet ≥ one path RTT (plus
//! that half round trip below a SACK), never less than [`TIMER_FLOOR_NS`].
//!
//! Where the path RTT is unknown (a mid-stream capture at the receiver without
//! timestamps), [`unknown_rtt_ns`] stands in for it. With a sender lag measured (the
//! smallest capture → sender → capture time, sender_view.rs: at a receiver-side capture
//! nearly the whole round trip), the lag, at least 200 ms (Linux's minimum RTO; RFC 6298
//! §2.4 recommends 1 s) and at most 1 s: quiet is already net of the lag, so a re-send
//! clocked by feedback has only the sender's turnaround jitter as quiet, while no timer
//! fires sooner than a round trip (≥ the lag) after the last feedback. Without one,
//! [`UNKNOWN_RTT_TIMER_NS`], 1 s, RFC 6298's timeout before any RTT sample (§2.1) and
//! its recommended minimum (§2.4). Why not Linux's 200 ms minimum there: the bound
//! stands in for the unknown round trip, not for the timer, and a clocked re-send on a
//! 300 ms path would then read as a timer's; quiet of 1 s with nothing acknowledged or
//! SACKed meanwhile needs a round trip above any path's base RTT (a geostationary hop is
//! about 600 ms). What it misses (a timer re-send 0.2–1 s after the last feedback on a
//! path of unknown RTT and lag) the text says as it is: the re-send's wait and its
//! counted kind (verdict/diagnosis_episodes/timers.rs `untimed_words`). mercury
//! http_request.capture2.pcap #122: the server's ACK-clocked responses came 386–416 ms
//! after the client's ACKs (lag 386 ms), the hole 61601 re-sent 1.29 s after the ACK that
//! reported it (quiet 906 ms): a timer's, once counted as recovery under the 1-s bound.

/// No retransmission timer fires sooner than this after the last feedback, however
/// short the path: Linux's probe timeout adds TCP_TIMEOUT_MIN (2 jiffies, ≥ 2 ms) to
/// its 2·SRTT and its RTO is at least 200 ms (a route's rto_min can lower that to
/// a few ms in data centres); FreeBSD's RTO floor is 30 ms, Windows' 300 ms. On a
/// host-local or LAN path (a 2 µs veth, a 100 µs LAN) the scheduling jitter between
/// an ACK and the re-send it clocks is longer than the round trip: Linux over a veth
/// with TSO, 4 re-sends of 135 segments 4–192 µs after the SACKs that clocked them
/// (kernel: 135 TCPFastRetrans, no timeout) were read as 3 timeouts.
pub(crate) const TIMER_FLOOR_NS: i64 = 1_000_000;

/// How late a kernel timer can fire after the time it was armed for: Linux arms its
/// RACK reordering timer in jiffies, rounded up (`usecs_to_jiffies`), and the timer
/// wheel adds up to one more: 2 jiffies of 4 ms at HZ=250 (Debian's), one of 10 ms at
/// HZ=100. A request/response at 8 % loss on a 4.3 ms path: RACK re-sent a hole
/// 7.5 ms after the SACK above it (kernel: TCPFastRetrans, no timeout), beyond 1.5
/// round trips. A timeout needs at least 200 ms there (Linux's RTO floor; FreeBSD 30 ms).
pub(crate) const TIMER_SLACK_NS: i64 = 10_000_000;

/// The round trip a re-send's quiet is weighed against where the path RTT is unknown
/// (see the module doc). Without it every re-send with feedback before it counted as
/// fast: a re-send 18.7 s after the last SACK, with only a keep-alive between
/// (gmail.pcapng.cap's connection 3), was no timeout while its stall was called one.
pub(crate) const UNKNOWN_RTT_TIMER_NS: i64 = 1_000_000_000;
/// Linux's minimum retransmission timeout (TCP_RTO_MIN): the least stand-in round trip
/// where the sender lag is known (`unknown_rtt_ns`).
const LINUX_MIN_RTO_NS: i64 = 200_000_000;

/// The round trip a re-send's quiet is weighed against where the path RTT is unknown,
/// given the sender lag `lag_ns` (0: none measured): see the module doc.
pub(crate) fn unknown_rtt_ns(lag_ns: i64) -> i64 {
    if lag_ns > 0 {
        lag_ns.clamp(LINUX_MIN_RTO_NS, UNKNOWN_RTT_TIMER_NS)
    } else {
        UNKNOWN_RTT_TIMER_NS
    }
}

/// Whether a re-send sent `quiet_ns` after the receiver's last feedback (as the sender
/// heard it; None: no feedback ever, so nothing but a timer can have sent it) was sent
/// by a timer, on a path of round trip `rtt_ns` (None: unknown, then [`unknown_rtt_ns`]
/// of the sender lag `lag_ns`). `below_sack`: the receiver had SACKed data above it (a
/// hole RACK's reordering timer may re-send).
pub(crate) fn timer_driven(quiet_ns: Option<i64>, rtt_ns: Option<i64>, lag_ns: i64, below_sack: bool) -> bool {
    let Some(q) = quiet_ns else { return true };
    let rtt = rtt_ns.unwrap_or_else(|| unknown_rtt_ns(lag_ns));
    let after = if below_sack { rtt + (rtt / 2).max(TIMER_SLACK_NS) } else { rtt };
    q >= after.max(TIMER_FLOOR_NS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bound_for_both_users() {
        const MS: i64 = 1_000_000;
        // No feedback ever: only a timer re-sends.
        assert!(timer_driven(None, Some(20 * MS), 0, false));
        // Known 20 ms path: 19 ms of quiet is a clocked re-send, 20 ms a timer's.
        assert!(!timer_driven(Some(19 * MS), Some(20 * MS), 0, false));
        assert!(timer_driven(Some(20 * MS), Some(20 * MS), 0, false));
        // Below a SACK: 20 ms + max(10 ms, 10 ms) = 30 ms (RACK's reordering window).
        assert!(!timer_driven(Some(29 * MS), Some(20 * MS), 0, true));
        assert!(timer_driven(Some(30 * MS), Some(20 * MS), 0, true));
        // A 100 µs LAN: the 1 ms floor.
        assert!(!timer_driven(Some(MS / 2), Some(MS / 10), 0, false));
        // Unknown RTT, no lag: 1 s, the stall rule's old 0.2 s no longer differs (gmail
        // 3: re-sends 363 ms after the SACK that showed the hole are clocked).
        assert!(!timer_driven(Some(363 * MS), None, 0, false));
        assert!(!timer_driven(Some(999 * MS), None, 0, false));
        assert!(timer_driven(Some(1000 * MS), None, 0, false));
        // Unknown RTT, lag 386 ms (mercury #122): a hole re-sent with 906 ms of quiet
        // passes 386 + 193 = 579 ms; a lag of 50 ms stands in as 200 ms, of 3 s as 1 s.
        assert!(timer_driven(Some(906 * MS), None, 386 * MS, true));
        assert!(!timer_driven(Some(578 * MS), None, 386 * MS, true));
        assert_eq!((unknown_rtt_ns(50 * MS), unknown_rtt_ns(3000 * MS)), (200 * MS, 1000 * MS));
    }
}
