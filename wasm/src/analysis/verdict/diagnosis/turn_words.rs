//! The sentences of the `turns` headline (diagnosis.rs `headline`): request/response
//! turns, each a round trip of the path with everything acknowledged
//! (diagnosis_shares.rs "turns"), took the largest share of the time.

use super::*;
use crate::analysis::format::plural;

/// "3443 times the sender, with everything acknowledged, sent more only on the peer's
/// next message": the turns counted, with the count's grammar.
pub(super) fn turns_count_phrase(f: &Facts) -> String {
    format!("{} the sender, with everything acknowledged, sent more only on the peer's next message", plural(f.sh.turns, "time"))
}

/// Headline of a flow whose largest share of time was request/response turns: the
/// path's latency paid once per turn, not its capacity, the window or the application.
/// The shares are quoted as the bar shows them, so the first sentence, the shares and
/// the label say the same.
pub(super) fn turns_text(f: &Facts) -> String {
    let s = f.shares;
    // The timers the loss cost, where it had any (the loss text's clause).
    let timeouts = timeouts_clause(f).map_or(String::new(), |c| format!(" ({c})"));
    format!(
        "Request/response turns set the pace: {}, {} of the time, each wait at least a round trip ({}); \
         the congestion window or the path took {}, the receive window {}, loss {}{timeouts} and the application {}; \
         {}. Neither the window nor the link's capacity was the limit: fewer turns (pipelining, batching \
         requests) or a shorter round trip would make it faster, a faster link would not.{}{}",
        turns_count_phrase(f),
        format_percent(s.turns),
        rtt_phrase(f),
        format_percent(s.other),
        format_percent(s.receive_window),
        format_percent(s.loss),
        format_percent(s.application),
        rate_phrase(f),
        queue_phrase(f),
        // The application's idle stalls are in its share, quoted above.
        other_stalls_phrase(f, 3)
    )
}
