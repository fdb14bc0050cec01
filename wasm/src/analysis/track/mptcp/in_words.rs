//! The sentences of one MPTCP connection (docs/ANALYSIS.md `mptcp[].text`).

use super::connection::{MptcpConnection, SubflowStatus, SubflowSummary};
use crate::analysis::format::{format_bytes, format_rate};

/// The text of a connection whose MP_CAPABLE SYN was answered without MP_CAPABLE: both
/// ends use plain TCP from the SYN/ACK on (RFC 8684 §3.1, §3.7), so there is no data
/// level to describe; the connection's own TCP analysis says the rest.
pub(super) fn offer_not_accepted_text(c: &MptcpConnection) -> String {
    let id = c.subflows.first().map_or(0, |s| s.connection);
    let d = &c.directions[0];
    format!("Connection {id} ({} to {}) offered MPTCP (MP_CAPABLE on its SYN) and it was not accepted (the SYN/ACK carried none): plain TCP was used.", d.from, d.to)
}

/// The reasons of RFC 8684 §3.6.
pub fn reset_reason(code: u8) -> &'static str {
    match code {
        0 => "unspecified",
        1 => "MPTCP-specific error",
        2 => "lack of resources",
        3 => "administratively prohibited",
        4 => "too much outstanding data",
        5 => "unacceptable performance",
        6 => "middlebox interference",
        _ => "unknown reason",
    }
}

/// "a half", "a third", "a quarter", else "1/k".
pub(super) fn fraction(k: usize) -> String {
    match k {
        2 => "half".into(),
        3 => "a third".into(),
        4 => "a quarter".into(),
        k => format!("1/{k}"),
    }
}

/// The sentences of one MPTCP connection (docs/ANALYSIS.md `mptcp[].text`).
pub(super) fn text(c: &MptcpConnection) -> String {
    let mut out = Vec::new();
    let d = &c.directions[c.data_direction as usize];
    let carrying: Vec<&SubflowSummary> = c.subflows.iter().filter(|s| s.data_bytes[c.data_direction as usize] > 0).collect();
    let ids: Vec<String> = c.subflows.iter().map(|s| s.connection.to_string()).collect();
    out.push(format!(
        "MPTCP connection of {} subflow{} (connection{} {}): {} of data from {} to {} at {}, on {} of them.",
        c.subflows.len(),
        if c.subflows.len() == 1 { "" } else { "s" },
        if ids.len() == 1 { "" } else { "s" },
        ids.join(", "),
        format_bytes(d.data_bytes as f64),
        d.from,
        d.to,
        format_rate(d.data_mean_bps),
        carrying.len()
    ));
    if d.redundant_bytes > 0 {
        let k = d.sent_on_subflows.len();
        let everything_k_times = d.sent_on_subflows[..k - 1].iter().all(|&b| b == 0);
        let goodput_share = if d.payload_bytes > 0 { d.data_bytes as f64 / d.payload_bytes as f64 } else { 0.0 };
        if everything_k_times {
            out.push(format!("The same {} was sent on {k} subflows: goodput is {} of what the subflows carried.", format_bytes(d.data_bytes as f64), fraction(k)));
        } else {
            let several = d.data_bytes - d.sent_on_subflows[0];
            out.push(format!(
                "{} of the data was sent on more than one subflow (up to {k}): {} sent again, goodput {:.0} % of what the subflows carried.",
                format_bytes(several as f64),
                format_bytes(d.redundant_bytes as f64),
                goodput_share * 100.0
            ));
        }
    }
    for s in &c.subflows {
        let reason = s.reset_reason.map(|r| format!(" (MP_TCPRST reason {r}: {})", reset_reason(r))).unwrap_or_default();
        let why = match s.status {
            SubflowStatus::JoinUnanswered => "its MP_JOIN SYN got no answer in the capture".to_string(),
            SubflowStatus::JoinRefused if s.reset_reason.is_some() => format!("it was reset before the join completed{reason}"),
            SubflowStatus::JoinRefused => "the join was refused (a reset before it completed, or an answer without MP_JOIN)".to_string(),
            SubflowStatus::JoinAbandoned => format!("its initiator reset it before the join completed{reason}"),
            SubflowStatus::JoinIncomplete => "its MP_JOIN handshake did not complete in the capture (no third ACK, or none acknowledged)".to_string(),
            SubflowStatus::Fallback => "it fell back to plain TCP (an answer without MP_CAPABLE, an infinite mapping or MP_FAIL)".to_string(),
            _ => continue,
        };
        let verb = if s.status.failed_join() { "did not join" } else { "is not multipath" };
        out.push(format!("Subflow {} {verb}: {why}.", s.connection));
    }
    if c.fast_close {
        out.push("An MP_FASTCLOSE closed the whole connection at once.".into());
    }
    out.join(" ")
}
