//! The `not-established` headline (diagnosis.rs, docs/ANALYSIS.md "The order of the
//! limit headline" 0b): the connection never got past its SYNs (ending.rs
//! `NotEstablished`), so no data moved and no limit of a transfer applies. What the
//! capture shows is how the peer answered: nothing, a reset (refused), or only
//! segments that ended nothing (the ending's sentence says which).

use crate::analysis::format::plural;
use crate::analysis::report::{ConnectionSummary, Diagnosis, DiagnosisShares, Evidence};
use crate::analysis::track::ending::syns_phrase;

/// The `not-established` diagnosis, where the handshake stopped at the client's SYNs:
/// no shares, no episodes, no saving (nothing was sent to weigh).
pub(super) fn not_established(conn: &ConnectionSummary) -> Option<Diagnosis> {
    let text = not_established_text(conn)?;
    let evidence = Evidence { rtt_ms: conn.path_rtt_ms, window_bytes: None, window_inferred: false, rate_bps: None, cap_bps: None, link_rate_bps: None, verdict: "unknown" };
    let far_part_unseen = super::path_words::far_part_unseen(conn);
    Some(Diagnosis { limit: "not-established".to_string(), text, shares: DiagnosisShares::default(), evidence, episodes: Vec::new(), savings: Vec::new(), far_part_unseen })
}

/// The headline's text, where the handshake stopped at the client's SYNs.
fn not_established_text(conn: &ConnectionSummary) -> Option<String> {
    let e = &conn.ending;
    let n = e.not_established?;
    // The client: the SYN's sender (the only side that sent a SYN without ACK).
    let c = conn.handshake.syn.as_ref().map_or(0, |s| usize::from(s.from != conn.endpoints[0]));
    let (client, server) = (&conn.endpoints[c], &conn.endpoints[1 - c]);
    let syns = syns_phrase(&n);
    let mut s = match e.kind {
        // The ending's sentence says what the resets answered and when.
        "refused" => {
            let port = server.rsplit(':').next().unwrap_or("");
            format!(
                "The connection was never established. {} No socket listened on port {port}, or a firewall answered in its name.",
                e.text
            )
        }
        "unanswered" if n.syns >= 2 => format!(
            "The connection was never established: {client} sent {syns} and none was answered: no SYN/ACK and no \
             reset from {server} in the capture. The re-sends show that {client} got no answer either (its \
             retransmission timer fired {}, RFC 9293 §3.8.1, RFC 6298 §5): {server} was down or unreachable, or \
             something on the way dropped the SYNs or their answers.",
            plural(u64::from(n.syns - 1), "time")
        ),
        "unanswered" => format!(
            "The connection was never established: {client} sent {syns}; the capture holds no answer from {server} \
             (no SYN/ACK, no reset) and no re-send of it."
        ),
        // The peer sent only segments that ended nothing (the ending says which).
        // ("Not established when the capture ended: …").
        _ => e.text.clone(),
    };
    s += " No data moved, so there was no transfer to judge.";
    Some(s)
}
