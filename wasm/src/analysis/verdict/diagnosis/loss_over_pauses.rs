//! Loss that cost more than the pauses of an application headline (issue 39 §4, review
//! AH class C-LOSS-UNSAID-UNDER-APPLICATION; docs/ANALYSIS.md "Loss that cost more than
//! the pauses"). The headline answers what would have made the transfer faster; the
//! savings (savings.rs) price each limit's removal. Where the application's headline
//! stays (its saving is a lower bound, `at_least`, so it does not yield: diagnosis.rs
//! `headline`) but the loss's saving is the larger, "The applications' turns, not the
//! network, set the pace" denies the limit whose removal would have saved the most. The
//! sentence then names the loss with its counts and its saving beside the pauses'.
//! nada-laaziz `test.pcapng` connection 3 (1.18 MB of TLS from Google, RTT 71 ms): the
//! largest burst (815 KiB, 14.818–17.257 s) held 122 re-sends each filling a hole open
//! 67–343 ms (longer than the 71 ms round trip, so repairs, not reordering: tshark marks
//! 77 of them out-of-order by its 3 ms rule), 21 % of the time in recovery; loss saving
//! at least 0.72 s against the applications' 0.19 s.

use super::*;

/// The smallest loss saving said against an application headline, s.
pub(super) const MIN_SAVING_S: f64 = 0.05;

/// The sentence, where the loss's saving is the largest and above the application's
/// (`savings` are largest first), and the capture shows a re-send.
pub(super) fn sentence(f: &Facts) -> Option<String> {
    let first = f.savings.first().filter(|s| s.limit == "loss" && s.seconds > 0.0)?;
    let retrans = retransmissions(f);
    // Re-sends all shown needless (D-SACK, Eifel: RFC 2883, RFC 3522) repaired no loss:
    // their "saving" is a timer's guess, not a loss (as `loss_held_cwnd`).
    let needless = f.conn.directions[f.conn.data_direction.min(1) as usize].spurious_retransmissions;
    if retrans <= needless {
        return None;
    }
    let app = f.savings.iter().find(|s| s.limit == "application" && s.seconds > 0.0);
    // A saving worth a sentence against the headline: at least two round trips and
    // 50 ms (a few ms of recovery beside a few ms of pauses says nothing), and half again
    // the applications' (savings' estimates are not that exact).
    let floor = (2.0 * f.conn.path_rtt_ms.unwrap_or(0.0) / 1000.0).max(MIN_SAVING_S);
    if first.seconds < floor || app.is_some_and(|a| first.seconds < 1.5 * a.seconds) {
        return None;
    }
    let about = if first.at_least { "at least" } else { "about" };
    Some(format!(
        "The pauses were the applications', but loss cost more than they did: {:.1} % of {} were retransmissions ({}), \
         and the sender spent {} of the time recovering; a path without loss would have saved {about} {}, \
         readier applications {}.",
        retransmitted_percent(f),
        retransmitted_share_of(f),
        retransmitted_count_phrase(f, retrans),
        format_percent(f.shares.loss),
        format_duration(first.seconds),
        app.map_or("nothing".to_string(), |a| format!("{} {}", if a.at_least { "at least" } else { "about" }, format_duration(a.seconds)))
    ))
}
