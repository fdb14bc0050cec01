//! The headline of a flow whose congestion window ECN marks held (issue 39 class
//! C-ECN-CWND, docs/ANALYSIS.md "ECN"): the marks, the echoes and the sender's window
//! reductions in numbers, the flight it kept against the receiver's window, and the
//! pauses after the echoes that diagnosis_shares/ecn_held.rs moved from the application
//! to the congestion window (RFC 3168 §6.1.2).

use super::*;
use crate::analysis::verdict::diagnosis_shares::ecn_held::classic_feedback;

/// How the ECN headline begins: diagnosis.rs leaves out the closing ECN sentence
/// (`ecn_text`) after it, which would repeat its numbers.
pub const ECN_OPENING: &str = "ECN congestion marks held this flow's congestion window";

/// The ECN opening of `path_text`, where classic ECN feedback ran (the receiver echoed
/// ECE, the sender answered with CWR: `classic_feedback`) and either pauses after the
/// echoes were moved to the congestion window (`ecn_held`) or at least
/// [`CE_QUEUE_SHARE`] of the ECN-capable data arrived CE-marked. None otherwise.
pub(in crate::analysis::verdict::diagnosis) fn ecn_opening(f: &Facts) -> Option<String> {
    if !classic_feedback(f.conn) || !(f.sh.ecn_held > 0.0 || ce_share(f.conn) >= CE_QUEUE_SHARE) {
        return None;
    }
    f.conn.directions[f.conn.data_direction.min(1) as usize].ecn?; // no ECN counts: nothing to say
    let parts = super::phrases::ecn_parts(f.conn);
    let mut t = format!("{ECN_OPENING}: {}", parts.join(", "));
    t += &flight_phrase(f).map_or(String::new(), |p| format!("; {p}"));
    let s = f.shares;
    t += &format!(". The congestion window or the path took {} of the time", format_percent(s.other));
    if f.sh.ecn_held > 0.0 && f.sh.active > 0.0 {
        t += &format!(
            " ({} of the time, {}, in pauses after the receiver's ECE echoes with everything sent acknowledged: \
             a sender at a one-segment window may send again only when its retransmission timer fires, RFC 3168 \
             §6.1.2; {})",
            format_percent(f.sh.ecn_held / f.sh.active),
            format_duration(f.sh.ecn_held),
            pause_evidence(f)
        );
    }
    t += &format!(
        "; the application {}, the receive window {} and loss {}",
        format_percent(s.application),
        crate::analysis::verdict::window_unjudged::share(f.sh.windows_trusted, s.receive_window),
        format_percent(s.loss)
    );
    Some(t)
}

/// "it had up to 1 KiB (2 segments of 536 B) in flight, where the receiver's 4 KiB window
/// had room for 7": the most the capture saw in flight (`maxBytesInFlight`) in the
/// sender's largest segments, and the largest window in them where it is trusted.
fn flight_phrase(f: &Facts) -> Option<String> {
    let b = f.conn.directions[f.conn.data_direction.min(1) as usize].max_bytes_in_flight.filter(|&b| b > 0)? as f64;
    let mss = f.sh.mss;
    if !(mss > 0.0) {
        return None;
    }
    let segs = (b / mss - 1e-9).ceil().max(1.0);
    let mut t = format!(
        "it had up to {} ({segs:.0} segment{} of {}) in flight",
        format_bytes(b),
        if segs == 1.0 { "" } else { "s" },
        format_bytes(mss)
    );
    if f.sh.windows_trusted && !f.window_inferred && f.max_window.is_finite() && f.max_window >= 2.0 * b {
        t += &format!(", where the receiver's {} window had room for {:.0}", format_bytes(f.max_window), (f.max_window / mss).floor());
    }
    Some(t)
}

/// The evidence ecn_held.rs moved the pauses on (`echoes_lengthened_pauses`), in numbers.
fn pause_evidence(f: &Facts) -> String {
    let Some((after_echo, plain)) = crate::analysis::verdict::diagnosis_shares::ecn_held::pause_means(f.sh) else {
        return "it paused only after echoes, so whether its application paused there too, this capture cannot tell".to_string();
    };
    format!(
        "those {} pauses lasted {} on average, against {} for its {} pauses after ACKs without an echo",
        f.sh.pauses_after_ece,
        format_duration(after_echo),
        format_duration(plain),
        f.sh.pauses_after_plain.1
    )
}
