//! What kind of re-send a data segment is, as the stall rules need it (gaps.rs): an
//! original overtaken on the way, a needless re-send, one the peer's ACKs sent, and the
//! peer's own timer re-send.

use crate::analysis::rows::columns::flag_bits;

/// A segment below the highest sequence sent that is an original overtaken on the way
/// (Wireshark's "out-of-order", track/conn.rs), not a re-send: no timer sent it.
pub fn reordered(flags: u32) -> bool {
    flags & flag_bits::OUT_OF_ORDER != 0 && flags & flag_bits::ANY_RETRANSMISSION == 0
}

/// A re-send the peer's ACKs sent, not a timer: a fast retransmission, on the third
/// duplicate ACK or the SACKs that show a hole (RFC 5681 §3.2, RFC 6675 §5), or a
/// recovery re-send that follows it (retrans_kinds.rs `KIND_FAST`; the kernel's
/// TCPFastRetrans) — sent within a path round trip of the peer's last packet (in the
/// sender's time, `since_peer_s` before it; without a path RTT, 0.2 s: Linux's minimum
/// timeout, RFC 6298 §2.4's 1 s lowered). A stack answers an ACK at once; a burst of
/// re-sends long after the last ACK was sent by a timer whatever its kind (4 segments
/// 450 ms after the last feedback on a 20 ms path). A gap it ends, or begins, was the
/// sender waiting on ACKs (the round trip that brought the duplicates, or the one that
/// brings the re-send's ACK), not a retransmission timer: no timeout or probe is
/// counted for it (issue 39 item 8).
pub(super) fn ack_clocked(flags: u32, since_peer_s: f64, path_rtt_s: Option<f64>) -> bool {
    flags & flag_bits::KIND_FAST != 0 && since_peer_s >= 0.0 && since_peer_s <= path_rtt_s.unwrap_or(LINUX_MIN_RTO_S)
}

/// Linux's minimum retransmission timeout (TCP_RTO_MIN), s.
const LINUX_MIN_RTO_S: f64 = 0.2;

/// A re-send the capture shows needless (retrans_kinds.rs: D-SACK or Eifel evidence;
/// Wireshark's spurious retransmission): the original had arrived, so it repaired no loss.
pub fn needless(flags: u32) -> bool {
    flags & (flag_bits::KIND_SPURIOUS | flag_bits::SPURIOUS_RETRANSMISSION) != 0
}


/// A retransmission of the peer that its retransmission timer sent (a timeout or a
/// tail loss probe, retrans_kinds.rs), or whose kind is unknown. A peer's re-send in
/// fast recovery (a lost segment inside a longer reply, repaired within a round trip
/// of SACKs) does not make the wait for that reply a round trip lost to a timer.
/// A needless one (the sender already had the request: D-SACK, Eifel) lost nothing:
/// the original had arrived, and the wait was the sender's own (a re-send the client
/// D-SACKed at once, 8 s before its answer, once read "retransmission-timeout").
pub fn peer_timer_resend(flags: u32) -> bool {
    use flag_bits as fb;
    let kinds = fb::KIND_RTO | fb::KIND_TLP | fb::KIND_FAST | fb::KIND_SLOW_START;
    flags & fb::ANY_RETRANSMISSION != 0 && (flags & kinds == 0 || flags & (fb::KIND_RTO | fb::KIND_TLP) != 0) && !needless(flags)
}
