//! Pauses after an ECN congestion echo are the congestion window's, not the
//! application's (issue 39 class C-ECN-CWND, docs/ANALYSIS.md "ECN").
//!
//! The shares call an interval the application's when the peer had acknowledged
//! everything and the sender still did not send (RFC 4898's SndLimTimeSnd): with a
//! window open, it had nothing to send. An ACK carrying ECE does not open the window: it
//! tells the sender a router marked its data Congestion Experienced, and the sender must
//! cut its congestion window as for a loss, once per window of data (RFC 3168 §6.1.2);
//! "when the congestion window is one … the sending TCP MUST reset the retransmit timer
//! on receiving the ECN-Echo packet … [and] would then be able to send a new packet only
//! when the retransmit timer expired". So a sender that had everything acknowledged by
//! ECE ACKs and paused may have had data its window did not let out: the capture cannot
//! call that pause an idle application. Those intervals (and idle stalls) move to the
//! congestion window's share (`other`), where the sender's window, cut by the marks, is
//! what the capture shows holding it.
//!
//! Only where the connection ran classic ECN feedback: the receiver echoed ECE (counted:
//! under Accurate ECN, RFC 9768, ECE is a counter bit and is not counted, ecn.rs) and the
//! sender answered with CWR at least once (RFC 3168 §6.1.2: its window reduction): a
//! stray flag (a fuzzed capture's ECE on a reset) moves nothing. Pauses after no echo stay
//! the application's; and the echoes are the cause only where the pauses after them were
//! longer than the sender's other pauses ([`echoes_lengthened_pauses`]): a sender that
//! paused as long after plain ACKs (review S: ecn, 453 ms after echoes against 478 ms
//! after none) shows its own pacing, which the marks did not change.

use super::TimeShares;
use crate::analysis::report::ConnectionSummary;

/// Classic ECN congestion feedback ran on `conn`'s data direction: the receiver echoed
/// ECE at least once and the sender reduced its window (CWR) at least once.
pub fn classic_feedback(conn: &ConnectionSummary) -> bool {
    let d = conn.data_direction.min(1) as usize;
    let echoes = conn.directions[1 - d].ecn.and_then(|e| e.ece).unwrap_or(0);
    let reductions = conn.directions[d].ecn.and_then(|e| e.cwr).unwrap_or(0);
    echoes > 0 && reductions > 0
}

/// Moves the application's time after ECE echoes (`application_after_ece`) to the
/// congestion window's (`other`), keeping it in `ecn_held`, where [`classic_feedback`].
pub fn rebook(sh: &mut TimeShares, conn: &ConnectionSummary) {
    if !classic_feedback(conn) || !echoes_lengthened_pauses(sh) {
        return;
    }
    let moved = sh.application_after_ece.clamp(0.0, sh.application.max(0.0));
    if moved <= 0.0 {
        return;
    }
    sh.application -= moved;
    sh.other += moved;
    sh.ecn_held = moved;
    // Parts of the application's time stay within it.
    sh.peer_wait = sh.peer_wait.min(sh.application);
    sh.own_cadence = sh.own_cadence.min(sh.application);
}

/// The evidence that the echoes held the sender: its pauses after ECE echoes lasted on
/// average at least 1.5× its pauses after ACKs without one, or it paused only after
/// echoes.
pub fn echoes_lengthened_pauses(sh: &TimeShares) -> bool {
    pause_means(sh).is_none_or(|(after_echo, plain)| after_echo >= 1.5 * plain)
}

/// The mean pause after an ECE echo and the mean after ACKs without one (the seconds
/// [`echoes_lengthened_pauses`] compares and ecn_words.rs quotes); None where every pause
/// followed an echo.
pub fn pause_means(sh: &TimeShares) -> Option<(f64, f64)> {
    let (plain, n_plain) = sh.pauses_after_plain;
    (n_plain > 0).then(|| (sh.application_after_ece / f64::from(sh.pauses_after_ece.max(1)), plain / f64::from(n_plain)))
}
