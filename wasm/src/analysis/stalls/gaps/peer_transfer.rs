//! A gap the peer's own transfer filled (docs/ANALYSIS.md "Stall causes", rule 2c's
//! limit; issue 39 item 8: a stall's cause is its own direction's state).
//!
//! Rule 2c names a gap `retransmission-timeout` where the sender, with everything
//! acknowledged, waited for the peer's next message and the peer's timer had to re-send
//! it. The peer's timer runs on the bytes it re-sent from their first transmission at
//! the earliest (RFC 6298 (5.1), restarted by every ACK of new data, (5.3)), so what
//! came before that was no timer's: where the peer had been sending new data of its own
//! since long before those bytes first went — a download streaming to this side — the
//! gap was the peer's transfer, and this side, its data all acknowledged, had nothing to
//! send until the transfer ended (its own state: `application-idle`). The peer's loss
//! and timers are the peer's direction's stalls, not this one's.
//! lycdl (review X, lyc0930 Wireshark-Labs DNS_1.pcapng connection 16): the client's
//! 14.1-s silence (frames 416 → 3616) while the server sent 2.3 MB, the server's timer
//! re-sending its last lost segment at 19.267 s (frame 3614, first sent 0.6 s before),
//! read "the peer's request … which the peer's timer had to re-send".

use super::super::Gap;
use crate::analysis::rows::columns::{flag_bits as fb, PacketColumns};
use crate::analysis::format::{format_duration, format_timestamp};

/// The words for a gap of the sender that closed at `t1` (its time), starting at `t0`,
/// where the peer's own transfer (its new data in the gap) took more of it than the
/// timer of its last re-send, the peer's turn before its first payload, and the sender's
/// answer after the peer's last payload (module doc); None where it did not.
pub(super) fn words(g: &Gap, t0: f64, t1: f64) -> Option<String> {
    let ((tr, _), tf, ta, new_end) = (g.peer_resent?, g.peer_first_new?, g.all_acked_at?, g.peer_last_new?);
    let last = g.peer_reply?.0;
    let began = ta.max(t0);
    // The peer's transfer: its new data in the gap, from its first (or the ACK of
    // everything, if later) to its last. The timer's part: from the re-sent bytes' first
    // transmission (or the gap's start) to the last re-send, and not before the peer's
    // last new data ahead of it — a stream still flowing was being acknowledged, and every
    // ACK of new data restarts the timer (RFC 6298 (5.3)).
    let transfer = new_end - tf.max(began);
    let flowing = if new_end < tr { new_end } else { f64::NEG_INFINITY };
    let timer_from = g.peer_request_sent.unwrap_or(t0).max(t0).max(flowing);
    let (turn, timer, answer) = ((tf - began).max(0.0), tr - timer_from, t1 - last);
    // The largest part, and at least half the gap: the gap's one cause is what took the
    // most of it, and a transfer no longer than the timer and the turns around it (a
    // 30 KB answer sent in 42 ms, its tail re-sent by a 39-ms probe: rr-loss.pcap at
    // 2.001 s) leaves the timer's rule 2c standing.
    if !(transfer > timer && transfer >= turn && transfer >= answer && transfer >= 0.5 * (t1 - t0)) {
        return None;
    }
    Some(format!(
        "new data {} after the peer's last payload at {}: the peer had sent its own new data from {} to {} ({}; its timer re-sent lost bytes at {}), with all of this side's acknowledged — the peer's turn, then this side's answer",
        format_duration(answer),
        format_timestamp(last),
        format_timestamp(tf),
        format_timestamp(new_end),
        if transfer >= 1.0 { format!("{transfer:.2} s") } else { format_duration(transfer) }, // to the hundredth, as a wait
        format_timestamp(tr),
    ))
}

/// Whether the sender's own state at data segment `j`, which ends the gap, was idle: `j`
/// is no re-send of its own (else its own answer was lost and its timer re-sent it —
/// a corelight asyncrat capture, connection 0: the server's 376 bytes at 76.424 s
/// re-send bytes it had sent unseen in the gap, frame 380 acknowledging past them) and
/// it acknowledges the peer's re-sent bytes (else they never reached it).
pub(super) fn own_state_idle(cols: &PacketColumns, g: &Gap, j: usize) -> bool {
    cols.flags[j] & fb::ANY_RETRANSMISSION == 0 && cols.ack[j] >= g.peer_request_end
}
