//! Auditor rule 16 (audit.rs lists every rule): the end a `turns` text asks to be
//! quicker leads by the sum of its times over the turns, not only by the median.

use super::audit::{shares_end, EPS};
use crate::analysis::format::format_duration;
use crate::analysis::stalls::is_data_segment;
use crate::analysis::report::ConnectionSummary;

/// Rule 16: the end named to speed up the turns leads by the sum of its times.
pub(super) fn check_turn_blame(c: &ConnectionSummary, p: &crate::analysis::rows::columns::PacketColumns) -> Option<String> {
    let text = c.diagnosis.text.as_str();
    let d = c.data_direction.min(1) as usize;
    let named_sender = text.contains(&format!("a quicker answer from {} or fewer turns", c.directions[d].from));
    if !named_sender && !text.contains(&format!("a quicker next message from {} or fewer turns", c.directions[1 - d].from)) {
        return None;
    }
    let rtt = c.path_rtt_ms? / 1000.0;
    let part = (c.sender_lag_ms / 1000.0).clamp(0.0, rtt);
    // (the sender's time after the peer's message, the peer's after the sender's data)
    let (mut sums, mut message_at, mut data_at) = ((0.0, 0.0), None::<(f64, f64)>, None::<f64>);
    // (from the transfer's start up to its end, as the shares: rule 2)
    let end = shares_end(c).unwrap_or(f64::INFINITY);
    let start = c.diagnosis.transfer_start.map_or(f64::NEG_INFINITY, |s| s.at);
    for i in (0..p.t.len()).skip_while(|&i| p.t[i] < start).take_while(|&i| p.t[i] <= end) {
        if is_data_segment(p, i, d as u8) {
            // (a turn: the peer's message and the sender's answer to it)
            if let Some((m, prompt)) = message_at.take() {
                sums.0 += (p.t[i] - m - part).max(0.0);
                sums.1 += (prompt - (rtt - part)).max(0.0);
            }
            data_at = Some(p.t[i]);
        } else if p.dir[i] != d as u8 && p.len[i] > 0 && message_at.is_none() {
            if let Some(a) = data_at.take() {
                message_at = Some((p.t[i], p.t[i] - a));
            }
        }
    }
    let (named, other) = if named_sender { sums } else { (sums.1, sums.0) };
    (named + EPS < other).then(|| format!("the turns text names {} to be quicker, but its times sum to {} against the other end's {}", if named_sender { &c.directions[d].from } else { &c.directions[1 - d].from }, format_duration(named), format_duration(other)))
}
