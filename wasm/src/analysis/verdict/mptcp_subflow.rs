//! The words of one subflow of a Multipath TCP connection (review AL class
//! C-MPTCP-SUBFLOW-JUDGED-ALONE; docs/ANALYSIS.md "MPTCP subflow words").
//!
//! Each subflow is a TCP connection of its own, with its own sequence space, and its
//! own TCP analysis (RFC 8684 §3.3: the data sequence mapping is above TCP), so its
//! counters stay as they are. But the application's exchange is the MPTCP connection's:
//! the scheduler may send a request on one subflow and its answer may come on another,
//! and the data-level transfer is split between them. So a subflow's "first data came
//! 19.56 s after the handshake, with no data from the peer in between" is no server's
//! delay (TheInverseKey/Multipath `speedtest.pcap` connection 36, an MP_JOIN subflow
//! whose 1 MiB answers GETs sent on connection 28), and its "averaged 3.2 Mbit/s"
//! describes half of a transfer the two subflows carried together at about twice that.
//!
//! Two rules: (1) where a subflow (MP_CAPABLE or MP_JOIN in both SYN and SYN/ACK) has
//! no data from the peer before its first data, the first-answer sentence says that the
//! peer's requests may have travelled on another subflow ([`no_peer_data_words`]), and
//! [`attach`] names the other subflows there once the grouping is known; (2) a subflow
//! of an MPTCP connection on which at least two subflows carried data of the data
//! direction gets one more sentence: one of N subflows (named), and the MPTCP
//! connection's combined data-level bytes and rate over this subflow's span.

use crate::analysis::format::{format_bytes, format_duration, format_rate, format_timestamp};
use crate::analysis::report::ConnectionSummary;
use crate::analysis::track::mptcp::{MptcpConnection, SubflowStatus};

/// The first-answer sentence's words for the other subflows, replaced by [`attach`]
/// with their names (the grouping comes after every connection's diagnosis).
pub const OTHER_SUBFLOW: &str = "another subflow of the same MPTCP connection";

/// Default bin of the combined rate where the subflow's own bin is unknown (DESIGN.md's
/// 100 ms, the throughput bins').
const DEFAULT_BIN_S: f64 = 0.1;

/// A rate is said for at least this many full segments of combined data (the
/// too-short-to-judge floor's 10 data segments).
const MIN_SEGMENTS: f64 = 10.0;
/// RFC 9293 §3.7.1's default MSS where the handshake names none.
const DEFAULT_MSS: f64 = 536.0;

/// Both ends put option 30 on the opening (MP_CAPABLE or MP_JOIN, RFC 8684 §3.1–3.2):
/// a multipath subflow, not a connection that fell back to plain TCP.
pub fn is_subflow(conn: &ConnectionSummary) -> bool {
    let h = &conn.handshake;
    h.syn.as_ref().is_some_and(|o| o.mptcp) && h.syn_ack.as_ref().is_some_and(|o| o.mptcp)
}

/// ", with no data from the peer in between" — on a subflow, "on this subflow", and the
/// other subflows as the place the request may have gone (rule 1).
pub fn no_peer_data_words(conn: &ConnectionSummary) -> String {
    if is_subflow(conn) {
        format!(", with no data from the peer on this subflow in between (an MPTCP subflow: the requests it answers may have travelled on {OTHER_SUBFLOW})")
    } else {
        ", with no data from the peer in between".to_string()
    }
}

/// A subflow that got past its handshake (or was seen mid-way) and so carries part of
/// the exchange.
fn established(s: SubflowStatus) -> bool {
    matches!(s, SubflowStatus::Initial | SubflowStatus::Joined | SubflowStatus::Unknown)
}

/// "connection 28", "connections 28, 40".
fn names(ids: &[u32]) -> String {
    let list: Vec<String> = ids.iter().map(u32::to_string).collect();
    format!("connection{} {}", if ids.len() == 1 { "" } else { "s" }, list.join(", "))
}

/// The MPTCP connection's data-level bytes that first arrived in [a, b] (any subflow),
/// the first and last such arrival, and the time in which data arrived: the number of
/// `bin`-wide bins (aligned on the file's origin, like the throughput bins) holding
/// any, times `bin`.
pub fn combined_in(g: &MptcpConnection, a: f64, b: f64, bin: f64) -> Option<(u64, f64, f64, f64)> {
    let arr = &g.arrivals[usize::from(g.data_direction.min(1))];
    let (mut bytes, mut first, mut last, mut bins, mut prev) = (0u64, f64::INFINITY, f64::NEG_INFINITY, 0u64, None);
    for (&t, &n) in arr.t.iter().zip(&arr.bytes) {
        if !(t >= a && t <= b) || n == 0 {
            continue;
        }
        bytes += n;
        first = first.min(t);
        last = last.max(t);
        let k = (t / bin).floor() as i64;
        if prev != Some(k) {
            bins += 1;
            prev = Some(k);
        }
    }
    (bytes > 0).then(|| (bytes, first, last, bins as f64 * bin))
}

/// Rule 1's names and rule 2's sentence on every subflow of `groups` (module comment).
pub fn attach(conns: &mut [ConnectionSummary], groups: &[MptcpConnection]) {
    for g in groups {
        let dd = usize::from(g.data_direction.min(1));
        let live: Vec<u32> = g.subflows.iter().filter(|s| established(s.status)).map(|s| s.connection).collect();
        if live.len() < 2 {
            continue;
        }
        let carrying = g.subflows.iter().filter(|s| established(s.status) && s.data_bytes[dd] > 0).count();
        for s in g.subflows.iter().filter(|s| established(s.status)) {
            let Some(c) = conns.get_mut(s.connection as usize) else { continue };
            let others: Vec<u32> = live.iter().copied().filter(|&i| i != s.connection).collect();
            let other_words = format!("the other subflow{}, {}, of MPTCP connection {}", if others.len() == 1 { "" } else { "s" }, names(&others), g.id);
            if c.diagnosis.text.contains(OTHER_SUBFLOW) {
                c.diagnosis.text = c.diagnosis.text.replace(OTHER_SUBFLOW, &other_words);
            }
            if carrying < 2 || s.data_bytes[dd] == 0 || c.diagnosis.text.is_empty() {
                continue;
            }
            let how = match s.status {
                SubflowStatus::Joined => "joined with MP_JOIN",
                SubflowStatus::Initial => "its first subflow, opened with MP_CAPABLE",
                _ => "its opening not in the capture",
            };
            let mut sentence = format!(
                "This connection is one of the {} subflows of MPTCP connection {} ({how}; the other{}: {}), so its rate and limit describe only what it carried, and a request sent on one subflow may be answered on another.",
                live.len(),
                g.id,
                if others.len() == 1 { "" } else { "s" },
                names(&others)
            );
            let (a, b) = c.data_view.map_or((c.start, c.end), |v| (v[0], v[1]));
            let d = c.data_direction.min(1) as usize;
            let bin = Some(c.directions[d].throughput.bin_seconds).filter(|b| b.is_finite() && *b > 0.0).unwrap_or(DEFAULT_BIN_S);
            // A rate only for a transfer: at least MIN_SEGMENTS full segments over at
            // least two bins (a message or two has none, as on a plain connection).
            let mss = c.handshake.syn_ack.iter().chain(c.handshake.syn.iter()).filter_map(|o| o.mss).map(f64::from).fold(f64::INFINITY, f64::min);
            let mss = if mss.is_finite() { mss } else { DEFAULT_MSS };
            let transfer = |bytes: u64, active: f64| bytes as f64 >= MIN_SEGMENTS * mss && active >= 2.0 * bin;
            if let Some((bytes, first, last, active)) = combined_in(g, a, b, bin).filter(|&(n, _, _, t)| transfer(n, t)) {
                let md = &g.directions[dd];
                sentence.push_str(&format!(
                    " From {} to {} the subflows together carried {} of data from {} to {} (this subflow {} of the connection's {} in all): {} over the {} in which data arrived ({} bins).",
                    format_timestamp(first),
                    format_timestamp(last),
                    format_bytes(bytes as f64),
                    md.from,
                    md.to,
                    format_bytes(s.data_bytes[dd] as f64),
                    format_bytes(md.data_bytes as f64),
                    format_rate(bytes as f64 * 8.0 / active),
                    format_duration(active),
                    format_duration(bin)
                ));
            }
            c.diagnosis.text.push(' ');
            c.diagnosis.text.push_str(&sentence);
        }
    }
}
