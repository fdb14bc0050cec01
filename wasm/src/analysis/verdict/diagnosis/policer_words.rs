//! Loss without a queue (review X, lycdl: "policer signature untold"; docs/ANALYSIS.md
//! "diagnosis.text", *loss without a queue*). A bottleneck queue that overflows first
//! fills: the round trip rises before the drops (RFC 7567 §1), which the loss text says
//! ([`super::loss_queue_phrase`]). A token-bucket policer drops at a rate limit with no
//! queue to fill first, and random loss (a corrupting link) needs none either: the round
//! trip stays at its minimum while many segments are lost. Flach et al., "An
//! Internet-Wide Analysis of Traffic Policing" (SIGCOMM 2016) tell policing by exactly
//! that: loss with no rise in the RTT before it.
//!
//! The rule: at least [`MIN_LOSS_PERCENT`] of the data re-sent, the round trips measured
//! through the path (not a receiver-side capture's minimum far part alone:
//! [`super::far_part_unseen`]) at least `LATENCY_MIN_SAMPLES` (the median RTT's own
//! floor), and both their median and the data direction's 95th percentile within
//! [`FLAT_RATIO`] of the path's minimum round trip.

use super::*;

/// Share of the data re-sent, %, from which loss is said to be too much for chance.
pub const MIN_LOSS_PERCENT: f64 = 5.0;
/// Median and 95th-percentile round trip at most this times the minimum: flat.
pub const FLAT_RATIO: f64 = 1.05;

/// " The round trip stayed flat while 29 % was re-sent: …", or empty.
pub(super) fn phrase(f: &Facts) -> String {
    let pct = retransmitted_percent(f);
    let rtt = &f.conn.directions[f.conn.data_direction.min(1) as usize].rtt;
    let Some(p95) = rtt.p95_ms.map(|ms| ms / 1000.0) else { return String::new() };
    let flat = f.median_rtt.is_finite() && f.min_rtt > 0.0 && f.median_rtt <= FLAT_RATIO * f.min_rtt && p95 <= FLAT_RATIO * f.min_rtt;
    if !(pct >= MIN_LOSS_PERCENT && flat && !far_part_unseen(f.conn) && rtt.samples >= LATENCY_MIN_SAMPLES) {
        return String::new();
    }
    format!(
        " The round trip stayed within {:.1} % of its minimum ({}; median {}, {} at the 95th percentile, {} samples) while \
         {:.1} % was re-sent: loss with no queue building before it, the signature of a rate policer (a token bucket \
         drops at its limit without delaying packets first) or of random loss on a link, not of a bottleneck queue overflowing.",
        ((p95.max(f.median_rtt) / f.min_rtt) - 1.0) * 100.0,
        format_duration(f.min_rtt),
        format_duration(f.median_rtt),
        format_duration(p95),
        rtt.samples,
        pct,
    )
}
