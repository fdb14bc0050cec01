//! Re-sends by a timer that never backs off (docs/ANALYSIS.md "Timer without back-off"):
//! what the text calls them instead of retransmission timeouts.
//!
//! TCP's retransmission timer doubles after each expiry (RFC 6298 §5.5: "The host MUST
//! set RTO <- RTO * 2"), up to a maximum of at least 60 s (§2.5); Linux lets a thin
//! stream skip the doubling for its first 6 expiries only (tcp_thin_linear_timeouts,
//! TCP_THIN_LINEAR_RETRIES). A sender whose timer re-sends the same bytes again and
//! again at one fixed interval below 60 s is running some other loop (an application
//! or middlebox re-sending, a stack that resets its back-off on every ACK it refuses),
//! not RFC 6298's timer: the counters keep its re-sends as timer-driven (retrans_kinds.rs
//! counts them in `rtoEvents`, no other kind fits), the text names them as they are.
//! fox-it bro.org-harlemshake-inject.pcap conn 13: the server re-sent its 485 B + FIN
//! 444 times 99–106 ms apart (median 102.6 ms) for 46 s, each answered within 0.4 ms by an ACK it
//! refused; read "446 retransmission timeouts".

use crate::analysis::format::format_duration;
use crate::analysis::report::ConnectionSummary;

/// Chains of at least this many expiries: past Linux's 6 linear thin-stream timeouts
/// and the first, whose interval runs from the last feedback, not from a timer.
const MIN_EXPIRIES: u32 = 8;
/// RFC 6298 §2.5: a maximum RTO, if any, is at least 60 s; a chain at its cap repeats it.
const RTO_CAP_MIN_MS: f64 = 60_000.0;

/// The re-sends of direction `d`'s backoff chains that kept one interval (every
/// interval after the first within a quarter of their median, which is below 60 s) and
/// that median interval, s; None when no chain did.
pub fn fixed_interval(conn: &ConnectionSummary, d: usize) -> Option<(u64, f64)> {
    let mut n = 0u64;
    let (mut longest, mut interval_ms) = (0u64, 0.0f64);
    for ch in &conn.directions[d.min(1)].rto_chains {
        let timed = ch.intervals_ms.get(1..).unwrap_or(&[]);
        if ch.timeouts < MIN_EXPIRIES || timed.len() + 1 < MIN_EXPIRIES as usize {
            continue;
        }
        let mut sorted = timed.to_vec();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        if median <= 0.0 || median >= RTO_CAP_MIN_MS || timed.iter().any(|&i| (i - median).abs() > 0.25 * median) {
            continue;
        }
        // The interval of the longest such chain.
        if u64::from(ch.timeouts) > longest {
            (longest, interval_ms) = (u64::from(ch.timeouts), median);
        }
        n += u64::from(ch.timeouts);
    }
    (n > 0).then_some((n, interval_ms / 1e3))
}

/// Where most of `timeouts` timer re-sends (stalls' or counters' count) kept one
/// interval (`fixed_interval` of direction `d`): "446 timer re-sends, 444 of them about
/// 103 ms apart without backing off (TCP's retransmission timeout doubles after each expiry,
/// RFC 6298 §5.5: these were not it)". None otherwise (then "retransmission timeouts").
pub fn words(conn: &ConnectionSummary, d: usize, timeouts: u64) -> Option<String> {
    let (n, interval_s) = fixed_interval(conn, d)?;
    if timeouts == 0 || 2 * n < timeouts {
        return None;
    }
    let n = n.min(timeouts);
    let of = if n == timeouts { "all".to_string() } else { format!("{n} of them") };
    Some(format!(
        "{timeouts} timer re-sends, {of} about {} apart without backing off (TCP's retransmission timeout doubles after each expiry, RFC 6298 §5.5: these were not it)",
        format_duration(interval_s)
    ))
}
