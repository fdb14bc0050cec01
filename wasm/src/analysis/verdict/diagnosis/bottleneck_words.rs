//! The bottleneck's rate as the headline where the losses were its full queue
//! overflowing (issue 39 class C-LINK-VS-LOSS): a sender that kept a standing queue in
//! front of the bottleneck keeps the link busy while it repairs the holes (SACK recovery
//! with proportional rate reduction sends a segment for each one delivered, RFC 6675,
//! RFC 6937), so the link's rate set the transfer's pace and the losses took only the
//! link time of the bytes sent twice. Dropping what a full queue cannot hold is what a
//! queue does (RFC 7567 §1): the loss is the symptom, the link's rate the limit; a larger
//! window would only lengthen the queue, and no loss avoided would beat the link's rate.

use super::*;

/// "The path's bottleneck set the rate: …" where loss took a share worth naming
/// ([`LOSS_SHARE_MIN`]) yet recovery delivered at the flow's sustained best
/// ([`recovery_at_full_rate`]: as fast as outside recovery and near the best), behind a
/// standing queue ([`rtt_queueing`]: median RTT at least 1.5 × its minimum) that shows
/// the bottleneck full, so that the delivered best is its rate (diagnosis.rs
/// `link_rate`). None otherwise: `path_text` then weighs loss against the path.
pub(super) fn link_full_opening(f: &Facts) -> Option<String> {
    f.recovery_at_full_rate?;
    if !rtt_queueing(f) {
        return None;
    }
    let link = link_rate(f)?;
    let s = f.shares;
    let (p95, in_flight) = queue_extent(f);
    let timeouts = timeouts_clause(f).map_or(String::new(), |c| format!(" ({c})"));
    // Named below by cause (`other_stalls_phrase`).
    let stalls = if s.stalled > 0.0 { format!(" stalls {},", format_percent(s.stalled)) } else { String::new() };
    Some(format!(
        "The path's bottleneck set the rate: its receiver reported at most about {} delivered (its \
         sustained best), behind a queue that held the RTT at {} (median{p95}) against a {} minimum{in_flight}. \
         The losses were that queue overflowing, a symptom of the full link, not its limit: they took {} of \
         the time{timeouts}, the congestion window or the path {},{stalls} the receive window {} and the application {}",
        format_rate(link),
        format_duration(f.median_rtt),
        format_duration(f.min_rtt),
        format_percent(s.loss),
        format_percent(s.other + s.turns),
        crate::analysis::verdict::window_unjudged::share(f.sh.windows_trusted, s.receive_window),
        format_percent(s.application)
    ))
}
