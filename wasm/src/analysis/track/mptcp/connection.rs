//! One MPTCP connection as the report has it (`mptcp[]`): its shapes, and `connection`,
//! which fills one from the subflows the tracker grouped, with each subflow's `status`.

use super::data_level::{coverage, fin_at, shift_of, DataArrivals};
use super::in_words::{offer_not_accepted_text, text};
use super::{extend32, Group, Subflow};
use serde::Serialize;

/// How a subflow took part (docs/ANALYSIS.md `mptcp[].subflows[].status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum SubflowStatus {
    /// The first subflow, opened with MP_CAPABLE, both ends agreeing.
    Initial,
    /// Joined with MP_JOIN: SYN, SYN/ACK, the initiator's third ACK, and the
    /// responder's next segment (not a reset) that acknowledged it (RFC 8684 §3.2).
    Joined,
    /// The capture holds the subflow's data but not its opening (started mid-way).
    Unknown,
    /// An MP_JOIN SYN that got no answer in the capture.
    JoinUnanswered,
    /// An MP_JOIN answered by a SYN/ACK without MP_JOIN (which the initiator must
    /// reset, RFC 8684 §3.2), or reset by the responder (the end that got the MP_JOIN
    /// SYN) before it acknowledged the third ACK (Linux refuses a join beyond its
    /// subflow limit so, MP_TCPRST reason 3).
    JoinRefused,
    /// MP_JOIN SYN and SYN/ACK, but the third ACK, or the responder's acknowledgment
    /// of it, is not in the capture; also when the responder re-sent its SYN/ACK after
    /// the third ACK (it never got it) and a reset came later.
    JoinIncomplete,
    /// The initiator reset the subflow before the join completed: it gave up (an
    /// unanswered or unacknowledged handshake), nothing the responder refused.
    JoinAbandoned,
    /// Fell back to plain TCP (§3.7): an MP_CAPABLE SYN answered without it, an
    /// infinite mapping, or MP_FAIL.
    Fallback,
}

impl SubflowStatus {
    /// An MP_JOIN SYN refused or never answered: the subflow never got past its SYNs.
    pub fn join_not_established(self) -> bool {
        matches!(self, SubflowStatus::JoinUnanswered | SubflowStatus::JoinRefused)
    }

    pub(super) fn failed_join(self) -> bool {
        matches!(self, SubflowStatus::JoinUnanswered | SubflowStatus::JoinRefused | SubflowStatus::JoinIncomplete | SubflowStatus::JoinAbandoned)
    }
}

/// One subflow of an MPTCP connection (report `mptcp[].subflows[]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SubflowSummary {
    /// `connection.id` of the subflow: its own TCP analysis.
    pub connection: u32,
    pub status: SubflowStatus,
    /// The MP_JOIN's address id (0 for the initial subflow).
    pub address_id: u8,
    /// Joined as a backup path (MP_JOIN flag B, or MP_PRIO).
    pub backup: bool,
    /// The MP_TCPRST reason code of the reset that ended or refused it (RFC 8684 §3.6).
    pub reset_reason: Option<u8>,
    /// Data-level bytes this subflow carried, per MPTCP direction [client → server,
    /// server → client] (each byte once however often the subflow resent it).
    pub data_bytes: [u64; 2],
}

/// One direction of an MPTCP connection at the data level.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MptcpDirection {
    pub from: String,
    pub to: String,
    /// Distinct data-level bytes the subflows carried: the data the application wrote,
    /// as far as the capture saw it.
    pub data_bytes: u64,
    /// Payload bytes of this direction on all subflows together, retransmissions
    /// included (the sum of the subflows' `direction.payloadBytes`).
    pub payload_bytes: u64,
    /// Data-level bytes sent on more than one subflow, counted once per extra subflow:
    /// Σ over subflows of their `dataBytes` − `dataBytes`.
    pub redundant_bytes: u64,
    /// `sentOnSubflows[k-1]`: data-level bytes sent on exactly k subflows.
    pub sent_on_subflows: Vec<u64>,
    /// `dataBytes` × 8 over the MPTCP connection's duration, bit/s.
    pub data_mean_bps: f64,
    /// Data-level bytes the peer's DATA_ACK covered, from the first byte (IDSN + 1); null
    /// when the key, and so the IDSN, is not in the capture.
    pub data_acked: Option<u64>,
    /// A DATA_FIN was sent: the application closed this direction.
    pub data_fin: bool,
    /// The range store hit `MAX_RANGES`: the byte counts are lower bounds.
    pub ranges_capped: bool,
}

/// An MPTCP connection (report `mptcp[]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MptcpConnection {
    /// Position in the report's `mptcp` list; each subflow's `connection.mptcp`.
    pub id: u32,
    /// MPTCP version of the MP_CAPABLE exchange (0: RFC 6824, 1: RFC 8684); null when
    /// the initial subflow's opening is not in the capture.
    pub version: Option<u8>,
    /// [client's, server's] key as 16 hex digits (64-bit numbers do not fit a JSON
    /// number exactly); null where not seen.
    pub keys: [Option<String>; 2],
    /// [client's, server's] token, 8 hex digits (Wireshark's `mptcp.token`).
    pub tokens: [Option<String>; 2],
    pub subflows: Vec<SubflowSummary>,
    pub start: f64,
    pub end: f64,
    /// [client → server, server → client].
    pub directions: [MptcpDirection; 2],
    /// The direction with more data-level bytes.
    pub data_direction: u8,
    /// ADD_ADDR announcements (echoes not counted) and REMOVE_ADDR options seen.
    pub add_addr: u32,
    pub remove_addr: u32,
    /// An MP_FASTCLOSE closed the connection at once (§3.5).
    pub fast_close: bool,
    /// An MP_FAIL was sent: a checksum failed and a subflow fell back or was reset (§3.7).
    pub mp_fail: bool,
    /// What the grouping found, in sentences.
    pub text: String,
    /// Per MPTCP direction, when the data first appeared on any subflow (`data_arrivals`):
    /// the view series `mptcpData`. Not in the report.
    #[serde(skip)]
    #[cfg_attr(test, ts(skip))]
    pub arrivals: [DataArrivals; 2],
}

#[allow(clippy::too_many_arguments)]
pub(super) fn connection(
    id: u32,
    group: Option<&Group>,
    members: &[(usize, u8)],
    subflows: &[Subflow],
    idsn: [Option<u64>; 2],
    keys: [Option<u64>; 2],
    tokens: [Option<u32>; 2],
    ranges_capped: bool,
    payload: &dyn Fn(u32) -> [u64; 2],
    span: &dyn Fn(u32) -> (f64, f64),
    names: &dyn Fn(u32) -> [String; 2],
) -> MptcpConnection {
    let (mut start, mut end) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut subs = Vec::with_capacity(members.len());
    // Per MPTCP direction, each subflow's ranges in the connection's data space.
    let mut lists: [Vec<Vec<(u64, u64)>>; 2] = [Vec::new(), Vec::new()];
    let mut payload_bytes = [0u64; 2];
    let mut data_fin = [false; 2];
    let mut data_ack: [Option<u64>; 2] = [None; 2];

    for &(p, client_dir) in members {
        let sf = &subflows[p];
        let (s, e) = span(sf.connection);
        start = start.min(s);
        end = end.max(e);
        let tcp_payload = payload(sf.connection);
        let mut data_bytes = [0u64; 2];
        for (tcp_d, dir) in sf.dirs.iter().enumerate() {
            let md = usize::from(tcp_d as u8 != client_dir);
            payload_bytes[md] += tcp_payload[tcp_d];
            data_fin[md] |= dir.data_fin;
            let shift = shift_of(dir, idsn[md]);
            let ranges: Vec<(u64, u64)> = dir.ranges.iter().map(|&(a, b)| (a.wrapping_add(shift), b.wrapping_add(shift))).collect();
            data_bytes[md] = coverage(std::slice::from_ref(&ranges)).first().copied().unwrap_or(0);
            lists[md].push(ranges);
            // A data ACK sent in direction md acknowledges the other direction's data.
            if let (Some((ack, ack64)), Some(base)) = (dir.data_ack, idsn[1 - md]) {
                let ack = if ack64 { ack } else { extend32(ack as u32, base) };
                // The DATA_FIN's own sequence number is not data (§3.3.3).
                let past_fin = fin_at(subflows, members, 1 - md, idsn[1 - md]).is_some_and(|f| ack > f);
                let acked = ack.wrapping_sub(base.wrapping_add(1)).wrapping_sub(u64::from(past_fin));
                if acked < 1 << 62 {
                    data_ack[1 - md] = Some(data_ack[1 - md].map_or(acked, |a: u64| a.max(acked)));
                }
            }
        }
        let status = status(sf, group.is_some_and(|g| g.initial as usize == p));
        subs.push(SubflowSummary { connection: sf.connection, status, address_id: sf.address_id, backup: sf.backup, reset_reason: sf.reset_reason, data_bytes });
    }
    if !start.is_finite() {
        (start, end) = (0.0, 0.0);
    }
    let duration = end - start;
    let first = members.first().map(|&(p, c)| (subflows[p].connection, c));
    let endpoint_names = first.map(|(conn, c)| {
        let n = names(conn);
        if c == 0 {
            n
        } else {
            [n[1].clone(), n[0].clone()]
        }
    });
    let directions: [MptcpDirection; 2] = [0, 1].map(|md| {
        let cov = coverage(&lists[md]);
        let data_bytes: u64 = cov.iter().sum();
        let carried: u64 = cov.iter().enumerate().map(|(k, b)| (k as u64 + 1) * b).sum();
        let (from, to) = endpoint_names.as_ref().map_or((String::new(), String::new()), |n| (n[md].clone(), n[1 - md].clone()));
        MptcpDirection {
            from,
            to,
            data_bytes,
            payload_bytes: payload_bytes[md],
            redundant_bytes: carried - data_bytes,
            sent_on_subflows: cov,
            data_mean_bps: if duration > 0.0 { data_bytes as f64 * 8.0 / duration } else { 0.0 },
            data_acked: data_ack[md],
            data_fin: data_fin[md],
            ranges_capped,
        }
    });
    let data_direction = u8::from(directions[1].data_bytes > directions[0].data_bytes);
    let hex64 = |k: Option<u64>| k.map(|k| format!("{k:016x}"));
    let hex32 = |t: Option<u32>| t.map(|t| format!("{t:08x}"));
    let mut c = MptcpConnection {
        id,
        version: group.and_then(|g| g.version),
        keys: keys.map(hex64),
        tokens: tokens.map(hex32),
        subflows: subs,
        start,
        end,
        directions,
        data_direction,
        add_addr: members.iter().map(|&(p, _)| subflows[p].add_addr).sum(),
        remove_addr: members.iter().map(|&(p, _)| subflows[p].remove_addr).sum(),
        fast_close: members.iter().any(|&(p, _)| subflows[p].fast_close),
        mp_fail: members.iter().any(|&(p, _)| subflows[p].mp_fail),
        text: String::new(),
        arrivals: Default::default(),
    };
    // The initial subflow's MP_CAPABLE SYN answered without it (§3.1): MPTCP was
    // offered and not accepted, and nothing of the connection is multipath.
    let refused_offer = members.len() == 1 && members.iter().all(|&(p, _)| subflows[p].capable_syn && subflows[p].answered == Some(false));
    c.text = if refused_offer { offer_not_accepted_text(&c) } else { text(&c) };
    c
}

/// How a subflow took part (see `SubflowStatus`); `initial`: it is its connection's first.
pub(super) fn status(sf: &Subflow, initial: bool) -> SubflowStatus {
    if sf.join_token.is_some() {
        // Who reset before completion: the initiator gave up; the responder refused,
        // unless it had re-sent its SYN/ACK after the third ACK (it never saw that ACK,
        // so its later reset refuses nothing: the handshake stayed incomplete).
        let reset_by_initiator = sf.reset_before_join.is_some() && sf.reset_before_join == sf.syn_dir;
        return match (sf.answered, sf.third_ack, sf.confirmed) {
            (Some(false), _, _) => SubflowStatus::JoinRefused,
            (_, _, false) if reset_by_initiator => SubflowStatus::JoinAbandoned,
            (Some(true), _, false) if sf.reset_before_join.is_some() && sf.synack_after_third => SubflowStatus::JoinIncomplete,
            (_, _, false) if sf.reset_before_join.is_some() => SubflowStatus::JoinRefused,
            (None, _, _) => SubflowStatus::JoinUnanswered,
            (Some(true), true, true) => SubflowStatus::Joined,
            (Some(true), _, _) => SubflowStatus::JoinIncomplete,
        };
    }
    if sf.capable_syn && sf.answered == Some(false) || sf.fallback {
        return SubflowStatus::Fallback;
    }
    if initial && (sf.capable_syn || sf.third_ack) {
        SubflowStatus::Initial
    } else {
        SubflowStatus::Unknown
    }
}
