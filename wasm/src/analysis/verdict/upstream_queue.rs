//! The sentence naming a standing queue upstream of the capture, measured by the data
//! sender's TCP timestamps against the capture's clock (timing/ts_clock.rs; docs/ANALYSIS.md
//! "Upstream queue"). A receiver-side capture sees the path's round trip only from the
//! capture on, so a queue in front of it never shows in the RTT: without this sentence a
//! flow sent into a 2-s queue reads "loss limited" with no word on the queue.

use crate::analysis::format::{format_duration, format_timestamp};
use crate::analysis::report::ConnectionSummary;

/// " By A's TCP timestamps …: a standing queue of X built up upstream of the capture
/// (bufferbloat) …", or nothing when the data sender's clock named none.
pub fn sentence(conn: &ConnectionSummary) -> String {
    let sender = &conn.directions[conn.data_direction.min(1) as usize];
    let (Some(q), Some(rtt_ms)) = (sender.upstream_queue, conn.path_rtt_ms) else { return String::new() };
    format!(
        " By {from}'s TCP timestamps (its clock ticked every {tick}, in step with the capture's over {agreed} of its \
         least-delayed segments from {base}), its segments that reached the capture from {at} on, for two round trips, \
         had each waited at least {q} longer on the way than the least-delayed ones: a standing queue of {q} built up \
         upstream of the capture (bufferbloat), {ratio:.0}× the path's {rtt} round trip.",
        from = sender.from,
        tick = format_duration(q.tick_s),
        agreed = format_duration(q.agreed_s),
        base = format_timestamp(q.base_at),
        q = format_duration(q.seconds),
        at = format_timestamp(q.at),
        ratio = q.seconds / (rtt_ms / 1000.0),
        rtt = format_duration(rtt_ms / 1000.0),
    )
}
