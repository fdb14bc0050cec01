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
    Some(Diagnosis { limit: "not-established".to_string(), text, shares: DiagnosisShares::default(), evidence, episodes: Vec::new(), savings: Vec::new(), far_part_unseen, transfer_end: None, transfer_start: None, peer_silent: None, said: Default::default() })
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

/// The `not-established` text of an MPTCP subflow whose MP_JOIN SYN was refused or not
/// answered (mptcp/connection.rs `JoinRefused`, `JoinUnanswered`), replacing the plain-TCP
/// reading: a reset to an MP_JOIN SYN is not a closed port, since the same server
/// accepted the MPTCP connection the SYN asked to join. RFC 8684 §3.2: a host refuses
/// a join it cannot or will not take (Linux beyond its subflow limit, MP_TCPRST reason 3)
/// with a reset, and the connection goes on over its other subflows.
pub fn join_not_established(conn: &mut ConnectionSummary, mptcp_id: u32, refused: bool, reason: Option<&str>) {
    if conn.diagnosis.limit != "not-established" {
        return;
    }
    let Some(n) = conn.ending.not_established else { return };
    let c = conn.handshake.syn.as_ref().map_or(0, |s| usize::from(s.from != conn.endpoints[0]));
    let (client, server) = (&conn.endpoints[c], &conn.endpoints[1 - c]);
    let asked = format!(
        "{client} sent {} asking to join MPTCP connection {mptcp_id} as an extra subflow (MP_JOIN, RFC 8684 §3.2)",
        syns_phrase(&n)
    );
    conn.diagnosis.text = if refused {
        let why = reason.map_or(String::new(), |r| format!(" (MP_TCPRST reason: {r})"));
        format!(
            "This subflow was never established: {asked}, and {server} refused the join with a reset{why}. \
             It is not a closed port: the MPTCP connection it asked to join was accepted. A host refuses joins \
             beyond its subflow limit so."
        )
    } else {
        format!(
            "This subflow was never established: {asked}, and the capture holds no answer from {server}."
        )
    };
}
