//! What kind of re-send a data segment is, as the stall rules need it (gaps.rs): an
//! original overtaken on the way, a needless re-send, one the peer's ACKs sent, and the
//! peer's own timer re-send.

use crate::analysis::loss::timer_driven::timer_driven;
use crate::analysis::rows::columns::flag_bits;

/// A segment below the highest sequence sent that is an original overtaken on the way
/// (Wireshark's "out-of-order", track/conn.rs), not a re-send: no timer sent it.
pub fn reordered(flags: u32) -> bool {
    flags & flag_bits::OUT_OF_ORDER != 0 && flags & flag_bits::ANY_RETRANSMISSION == 0
}

/// A re-send the peer's ACKs sent, not a timer: a fast retransmission, on the third
/// duplicate ACK or the SACKs that show a hole (RFC 5681 §3.2, RFC 6675 §5), or a
/// recovery re-send that follows it (retrans_kinds.rs `KIND_FAST`; the kernel's
/// TCPFastRetrans) — sent sooner after the peer's last packet (in the sender's time,
/// `since_peer_s` before it) than a timer could have fired: the one shared test,
/// loss/timer_driven.rs `timer_driven` (a path round trip, half a round trip more for a
/// hole below SACKed data — a recovery re-send repairs one —; where the path RTT is
/// unknown, the sender lag `lag_s` within 0.2–1 s, or 1 s without one; before session 35 this rule alone used 0.2 s there, so a stall was called a
/// retransmission timeout while the counters counted its re-send as recovery: mercury
/// http_request.capture2 #150). A stack answers an ACK at once; a burst of
/// re-sends long after the last ACK was sent by a timer whatever its kind (4 segments
/// 450 ms after the last feedback on a 20 ms path). A gap it ends, or begins, was the
/// sender waiting on ACKs (the round trip that brought the duplicates, or the one that
/// brings the re-send's ACK), not a retransmission timer: no timeout or probe is
/// counted for it (issue 39 item 8).
pub(in crate::analysis::stalls) fn ack_clocked(flags: u32, since_peer_s: f64, path_rtt_s: Option<f64>, lag_s: f64) -> bool {
    let since_ns = (since_peer_s * 1e9).min(i64::MAX as f64) as i64;
    let rtt_ns = path_rtt_s.map(|r| (r * 1e9) as i64);
    flags & flag_bits::KIND_FAST != 0 && since_peer_s >= 0.0 && !timer_driven(Some(since_ns), rtt_ns, (lag_s.max(0.0) * 1e9) as i64, true)
}

/// A re-send the capture shows needless (retrans_kinds.rs: D-SACK or Eifel evidence;
/// Wireshark's spurious retransmission): the original had arrived, so it repaired no loss.
pub fn needless(flags: u32) -> bool {
    flags & (flag_bits::KIND_SPURIOUS | flag_bits::SPURIOUS_RETRANSMISSION) != 0
}


/// A retransmission of the peer that its retransmission timer sent (a timeout or a
/// tail loss probe, retrans_kinds.rs). One with no kind bit is a PMTU re-send (an ICMP
/// "fragmentation needed" set it off at once, loss/pmtu_kind.rs: smtp.pcap's client
/// body, once "the peer's timer had to re-send") or one past the per-direction record
/// cap (unclassified, 2^20 re-sends): neither is a timer's. A peer's re-send in
/// fast recovery (a lost segment inside a longer reply, repaired within a round trip
/// of SACKs) does not make the wait for that reply a round trip lost to a timer.
/// A needless one (the sender already had the request: D-SACK, Eifel) lost nothing:
/// the original had arrived, and the wait was the sender's own (a re-send the client
/// D-SACKed at once, 8 s before its answer, once read "retransmission-timeout").
pub fn peer_timer_resend(flags: u32) -> bool {
    use flag_bits as fb;
    flags & fb::ANY_RETRANSMISSION != 0 && flags & (fb::KIND_RTO | fb::KIND_TLP) != 0 && !needless(flags)
}
