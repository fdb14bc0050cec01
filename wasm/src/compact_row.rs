//! The compact connection row of `tcpscope analyze --ndjson` (issue 43, item 3): the
//! fields an SRE filters and groups a fleet by, in a few hundred bytes instead of the
//! full connection object's ~3 kB (docs/FLEET.md "The compact row").
//!
//! Every value is a report field defined in docs/ANALYSIS.md, copied and rounded to a
//! stated precision, never recomputed; the two sums are of the data direction's
//! `stalls` (docs/ANALYSIS.md "The compact row"). The CLI only puts `record` and
//! `file` in front, so no number of the row is made in JavaScript.

use crate::analysis::{ConnectionSummary, Stall, Vantage, STALL_CAUSES};
use serde::Serialize;

/// Longest process name kept, in characters (the full row has it whole): PKTAP names
/// are at most 19 bytes, a pcapng process block's name has no limit.
pub const PROCESS_NAME_CHARS: usize = 60;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactRow<'a> {
    pub id: u32,
    /// The data direction's sender and receiver (`direction.from`, `direction.to`).
    pub from: &'a str,
    pub to: &'a str,
    pub vantage: Vantage,
    /// `connection.start`, s since the capture's first packet (µs).
    pub start: f64,
    /// `connection.end − connection.start`, s (µs).
    pub duration: f64,
    /// The data direction's `payloadBytes` (from → to).
    pub data_bytes: u64,
    /// The other direction's `payloadBytes` (to → from).
    pub reverse_bytes: u64,
    /// The data direction's `throughput.meanBps`, `activeMeanBps`, `peakBps` (whole bit/s).
    pub mean_bps: u64,
    pub active_bps: u64,
    pub peak_bps: u64,
    /// `connection.pathRttMs`, the path's round trip (µs); null when unknown.
    pub rtt_ms: Option<f64>,
    pub retrans: Retransmissions,
    /// Zero windows the receiver advertised: the other direction's `zeroWindows`.
    pub zero_windows: u64,
    /// The data direction's `stalls`, counted and summed per cause: one entry per cause
    /// that occurred, in the order of `STALL_CAUSES`; empty without stalls.
    pub stalls: Vec<CauseTotal>,
    /// `diagnosis.limit`.
    pub limit: &'a str,
    /// `connection.process` (name cut to PROCESS_NAME_CHARS), or null.
    pub process: Option<CompactProcess<'a>>,
}

/// The data direction's retransmissions by kind (docs/ANALYSIS.md "Retransmission kinds").
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Retransmissions {
    /// `retransmissions`.
    pub total: u64,
    /// `rtoEvents`: retransmission timeouts (RFC 6298).
    pub rto: u64,
    /// `tailLossProbes` (RFC 8985).
    pub tlp: u64,
    /// `fastRetransmissions`.
    pub fast: u64,
    /// `slowStartRetransmissions`.
    pub slow_start: u64,
    /// `spuriousRetransmissions`.
    pub spurious: u64,
}

#[derive(Serialize)]
pub struct CauseTotal {
    /// A `stall.cause` name.
    pub cause: &'static str,
    /// How many stalls had this cause.
    pub count: u64,
    /// The sum of their `duration`, s, to the ms (a stall lasts at least the stall
    /// threshold, 10 ms by default).
    pub seconds: f64,
}

#[derive(Serialize)]
pub struct CompactProcess<'a> {
    pub name: &'a str,
    pub pid: u32,
}

/// Rounded to 1 µs: the finest tick of a pcap without nanosecond resolution, and what a
/// fleet query needs; the full row keeps every digit.
fn micro(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// A rate to whole bits per second (a rate is never negative; `as` saturates).
fn whole(x: f64) -> u64 {
    x.round() as u64
}

/// The first `max` characters of `s` (a char boundary, never inside a UTF-8 sequence).
fn cut(s: &str, max: usize) -> &str {
    s.char_indices().nth(max).map_or(s, |(i, _)| &s[..i])
}

impl<'a> CompactRow<'a> {
    pub fn of(c: &'a ConnectionSummary) -> Self {
        let data = c.data_direction as usize;
        let d = &c.directions[data];
        let peer = &c.directions[1 - data];
        CompactRow {
            id: c.id,
            from: &d.from,
            to: &d.to,
            vantage: c.vantage,
            start: micro(c.start),
            duration: micro(c.end - c.start),
            data_bytes: d.payload_bytes,
            reverse_bytes: peer.payload_bytes,
            mean_bps: whole(d.throughput.mean_bps),
            active_bps: whole(d.throughput.active_mean_bps),
            peak_bps: whole(d.throughput.peak_bps),
            rtt_ms: c.path_rtt_ms.map(|ms| (ms * 1e3).round() / 1e3),
            retrans: Retransmissions {
                total: d.retransmissions,
                rto: d.rto_events,
                tlp: d.tail_loss_probes,
                fast: d.fast_retransmissions,
                slow_start: d.slow_start_retransmissions,
                spurious: d.spurious_retransmissions,
            },
            zero_windows: peer.zero_windows,
            stalls: stalls(&d.stalls),
            limit: &c.diagnosis.limit,
            process: c.process.as_ref().map(|p| CompactProcess { name: cut(&p.name, PROCESS_NAME_CHARS), pid: p.pid }),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":{}}}", serde_json::Value::from(e.to_string())))
    }
}

fn cause_name(s: &Stall) -> &'static str {
    // The serde name of the cause (kebab-case), found in the list every name is in.
    let name = serde_json::to_value(s.cause).ok();
    STALL_CAUSES.iter().copied().find(|c| name.as_ref().and_then(|v| v.as_str()) == Some(*c)).unwrap_or("unknown")
}

fn stalls(list: &[Stall]) -> Vec<CauseTotal> {
    let mut by_cause: Vec<CauseTotal> = Vec::new();
    for s in list {
        let cause = cause_name(s);
        match by_cause.iter_mut().find(|t| t.cause == cause) {
            Some(t) => {
                t.count += 1;
                t.seconds += s.duration;
            }
            None => by_cause.push(CauseTotal { cause, count: 1, seconds: s.duration }),
        }
    }
    by_cause.sort_by_key(|t| STALL_CAUSES.iter().position(|c| *c == t.cause));
    for t in &mut by_cause {
        t.seconds = (t.seconds * 1e3).round() / 1e3;
    }
    by_cause
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_whole_characters() {
        assert_eq!(cut("Safari", 60), "Safari");
        assert_eq!(cut("ééé", 2), "éé");
        assert_eq!(cut("", 3), "");
    }

    #[test]
    fn micro_rounds_to_a_microsecond() {
        // 0.1 + 0.2 = 0.30000000000000004 in binary; the row prints 0.3.
        assert_eq!(micro(0.1 + 0.2), 0.3);
        assert_eq!(micro(24.879_310_4), 24.87931);
    }
}
