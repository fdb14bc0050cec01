//! The schema-versioned JSON summary shared by `tcpscope analyze --json` and the web
//! app (issue 3's shape: times in seconds relative to the first packet of the file;
//! fields may be added, never renamed without bumping `SCHEMA_VERSION`).

use crate::analysis::mptcp::MptcpConnection;
use crate::analysis::{Analysis, ConnectionSummary};
use crate::decode::{CaptureInfo, WarningKind};
use crate::error::DecodeError;
use serde::Serialize;

#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Report<'a> {
    pub schema_version: u32,
    pub capture: CaptureSummary,
    pub error: Option<ErrorSummary>,
    pub warnings: Vec<Warning>,
    /// The warnings' packets, summed by where the page tells them ([`WarningTotals`]).
    pub warning_totals: WarningTotals,
    /// MPTCP connections with their subflows (analysis/mptcp.rs); absent without MPTCP.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<MptcpConnection>>", optional))]
    pub mptcp: &'a [MptcpConnection],
    pub connections: &'a [ConnectionSummary],
}

/// The warnings' packets summed by where the page tells them ([`WarningPlace`];
/// docs/ANALYSIS.md "Warnings"): the warnings list's summary line and the sentence of
/// a capture with no readable TCP say these numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WarningTotals {
    /// Packets not analysed: the warnings of the list (`Unreadable` and `Skipped` kinds).
    pub not_analysed: u64,
    /// Of those, packets that may hold TCP the decoder could not reach (`Unreadable`).
    pub unreadable: u64,
    /// Packets analysed all the same, each kind with its own note: a repaired timestamp,
    /// link padding, a bad checksum the peer acknowledged (`Analysed` kinds).
    pub repaired: u64,
}

impl WarningTotals {
    /// Sums `warnings` by the place of their kind; kinds told in a banner count nowhere
    /// (their count is connections or frames, not packets left out).
    pub fn of(warnings: &[Warning]) -> WarningTotals {
        let mut t = WarningTotals::default();
        for w in warnings {
            match WARNING_KINDS.iter().find(|k| k.0 == w.kind).map(|k| k.1) {
                Some(WarningPlace::Unreadable) => (t.not_analysed, t.unreadable) = (t.not_analysed + w.count, t.unreadable + w.count),
                Some(WarningPlace::Skipped) => t.not_analysed += w.count,
                Some(WarningPlace::Analysed) => t.repaired += w.count,
                Some(WarningPlace::Banner) | None => {}
            }
        }
        t
    }
}

#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CaptureSummary {
    /// The container: "pcap" or "pcapng" (None before a header was read).
    #[cfg_attr(test, ts(type = "\"pcap\" | \"pcapng\" | null"))]
    pub format: Option<&'static str>,
    pub link_types: Vec<String>,
    pub packets: u64,
    pub bytes: u64,
    pub duration: f64,
    /// Frames ignored as copies of an earlier frame (analysis/duplicates.rs).
    pub duplicate_frames: u64,
    /// Of those, 802.11 MAC-layer retries.
    pub wifi_retries: u64,
    /// The capture clock's tick, ms (analysis/clock.rs); null when it can't be told.
    pub timestamp_resolution_ms: Option<f64>,
}

#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ErrorSummary {
    pub message: String,
    pub packet_index: Option<u64>,
    pub byte_offset: Option<u64>,
    pub layer: crate::error::Layer,
    pub kind: crate::error::ErrorKind,
}

#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Warning {
    // One of `boundary::words::WARNING_KINDS` (a closed union in TypeScript).
    #[cfg_attr(test, ts(type = "WarningKind"))]
    pub kind: &'static str,
    pub count: u64,
    pub message: String,
}

impl<'a> Report<'a> {
    pub fn new(info: &CaptureInfo, error: Option<&DecodeError>, analysis: Option<&'a Analysis>) -> Self {
        let duration = match (info.first_ts_ns, info.last_ts_ns) {
            (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9,
            _ => 0.0,
        };
        let facts = analysis.map(|a| a.capture).unwrap_or_default();
        let mut warnings: Vec<Warning> = info
            .warnings
            .iter()
            .map(|(kind, &count)| {
                let mut message = warning_text(kind.name(), count);
                if *kind == WarningKind::UnknownLinkType {
                    message.push_str(&unknown_link_types(&info.link_types));
                }
                if let (WarningKind::TimeJumpedForward, Some((frame, jump_ns))) = (kind, info.largest_time_jump) {
                    message.push_str(&time_jump(count, frame, jump_ns));
                }
                Warning { kind: kind.name(), count, message }
            })
            .collect();
        // Limits the analysis hit (analysis/capture/limits.rs): same shape, after the decoder's.
        if let Some(a) = analysis {
            warnings.extend(a.warnings.iter().map(|w| Warning { kind: w.kind, count: w.count, message: w.message.clone() }));
        }
        Report {
            schema_version: crate::SCHEMA_VERSION,
            capture: CaptureSummary {
                format: info.format,
                link_types: info.link_types.clone(),
                packets: info.packets,
                bytes: info.bytes,
                duration,
                duplicate_frames: facts.duplicate_frames,
                wifi_retries: facts.wifi_retries,
                timestamp_resolution_ms: facts.timestamp_resolution_ns.map(|ns| ns as f64 / 1e6),
            },
            error: error.map(|e| ErrorSummary {
                message: e.message.clone(),
                packet_index: e.packet_index,
                byte_offset: e.byte_offset,
                layer: e.layer,
                kind: e.kind,
            }),
            warning_totals: WarningTotals::of(&warnings),
            warnings,
            mptcp: analysis.map(|a| a.mptcp.as_slice()).unwrap_or(&[]),
            connections: analysis.map(|a| a.connections.as_slice()).unwrap_or(&[]),
        }
    }

    /// Everything but the connections, plus their count: the first line of the CLI's
    /// `--ndjson` (one line per connection follows, from `connection_json`), so a
    /// capture of a million connections is never one JSON string.
    pub fn header_json(&self) -> String {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Header<'r> {
            schema_version: u32,
            capture: &'r CaptureSummary,
            error: &'r Option<ErrorSummary>,
            warnings: &'r [Warning],
            warning_totals: WarningTotals,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            mptcp: &'r [MptcpConnection],
            connection_count: usize,
        }
        let header = Header {
            schema_version: self.schema_version,
            capture: &self.capture,
            error: &self.error,
            warnings: &self.warnings,
            warning_totals: self.warning_totals,
            mptcp: self.mptcp,
            connection_count: self.connections.len(),
        };
        serde_json::to_string(&header).unwrap_or_else(|e| error_json(&e.to_string()))
    }

    /// Connection `index` (a position in `connections`) as the JSON object `to_json`
    /// would write for it; None past the end.
    pub fn connection_json(connections: &[ConnectionSummary], index: usize) -> Option<String> {
        connections.get(index).map(|c| serde_json::to_string(c).unwrap_or_else(|e| error_json(&e.to_string())))
    }

    pub fn to_json(&self) -> String {
        // Measure first, then write into a buffer of the exact size: the JSON of 100k
        // connections is ~150 MB, and growing it by doubling held up to twice that at
        // the peak (wasm memory never shrinks). Costs a second serialization pass.
        let mut size = ByteCounter(0);
        let written = serde_json::to_writer(&mut size, self).and_then(|_| {
            let mut out = Vec::with_capacity(size.0);
            serde_json::to_writer(&mut out, self).map(|_| out)
        });
        match written.map(String::from_utf8) {
            Ok(Ok(json)) => json,
            Ok(Err(e)) => error_json(&e.to_string()),
            Err(e) => error_json(&e.to_string()),
        }
    }
}

fn error_json(e: &str) -> String {
    format!("{{\"schemaVersion\":1,\"error\":{{\"message\":{}}}}}", serde_json::Value::from(e))
}

/// An `io::Write` that only counts.
struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Which link types the decoder could not read, so the message names what
/// (" (LINKTYPE 129, 147)"): numbers of the tcpdump.org LINKTYPE_ list.
/// Every unsupported type is named "linktype-N" (decode/link.rs `link_type_name`).
fn unknown_link_types(names: &[String]) -> String {
    let numbers: Vec<&str> = names.iter().filter_map(|n| n.strip_prefix("linktype-")).collect();
    if numbers.is_empty() {
        return String::new();
    }
    format!(" (LINKTYPE {})", numbers.join(", "))
}

/// Where the clock jumped and by how much: ": frame 701, 1,202.8 days past every
/// packet before it" (the largest when several: "the largest: …").
fn time_jump(count: u64, frame: Option<u64>, jump_ns: i64) -> String {
    let s = jump_ns as f64 / 1e9;
    let amount = if s >= 86_400.0 {
        format!("{} days", thousands(s / 86_400.0))
    } else {
        format!("{} hours", thousands(s / 3_600.0))
    };
    let at = frame.map_or(String::new(), |f| format!("frame {f}, "));
    let which = if count > 1 { "the largest: " } else { "" };
    format!(": {which}{at}{amount} past every packet before it")
}

/// One decimal, thousands grouped: 1202.84 → "1,202.8".
fn thousands(x: f64) -> String {
    let text = format!("{x:.1}");
    let (int, frac) = text.split_once('.').unwrap_or((&text, "0"));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{grouped}.{frac}")
}

fn warning_text(kind: &str, count: u64) -> String {
    let what = match kind {
        "unknown-link-type" => "packets with a link-layer type tcpscope cannot decode",
        "not-ip" => "non-IP packets (ARP, LLDP, 802.11 management and control frames, ...), skipped",
        "not-tcp" => "IP packets other than TCP (UDP, ICMP, ...), skipped",
        "ip-fragment" => "IP fragments, not reassembled",
        "tcp-fragment" => "IP fragments of TCP segments, not reassembled: the TCP bytes in them are not analysed",
        "truncated-headers" => "packets cut by the snapshot length before the TCP header ended",
        "malformed-packet" => "packets with impossible header values, skipped",
        "time-went-backwards" => "packets whose timestamp is earlier than the one before in the file (analysed in time order, as Wireshark plots them, docs/ANALYSIS.md \"Time order\")",
        "time-jumped-forward" => "packets whose timestamp jumps more than an hour past every earlier one, with the packets after following on (two captures joined, or the clock set forward: analysed as stamped, so the capture's duration and the gap at the jump include it, docs/ANALYSIS.md \"Time order\")",
        "time-order-clamped" => "packets stamped more than 2 s before one already read, or beyond the 65,536 held to sort them: not analysed, since no time but their own is theirs (their bytes count as not captured, docs/ANALYSIS.md \"Time order\")",
        "bad-tcp-checksum" => "TCP segments with a bad checksum where the sender's other frames pass (corrupted on the way: never delivered, not analysed, docs/ANALYSIS.md \"Corrupt frames\")",
        "acked-bad-checksum" => "TCP segments with a bad checksum in the capture that the peer acknowledged, their bytes in no other frame (delivered intact: checksum offload on the capturing host, or a capture edited since; analysed, docs/ANALYSIS.md \"Corrupt frames\")",
        "unanswered-bad-checksum" => "TCP segments with a bad checksum that the capture ends on, the peer silent since (delivered or not is not known: no acknowledgement could be captured; checksum offload on the capturing host, or a capture edited since, is the usual cause; analysed, docs/ANALYSIS.md \"Corrupt frames\")",
        "encrypted-frame" => "encrypted 802.11 data frames (WEP/WPA), unreadable, TCP included: capture on an end host, or decrypt first (Wireshark's 802.11 keys, airdecap-ng)",
        "amsdu-subframe" => "802.11 A-MSDU subframes after a frame's first, not analysed: the segments they hold count as lost or not captured (Wireshark shows them as \"A-MSDU Subframe\")",
        "bad-fcs" => "802.11 frames that failed the radio's checksum (FCS: dropped there, never delivered), skipped",
        "impossible-timestamp" => "packets whose timestamp field cannot be a time (a sub-second part of a second or more, carried into the seconds; or past the year 2262, held there; docs/ANALYSIS.md \"Impossible timestamps\")",
        _ => "packets with problems",
    };
    // "1 packet …", never "1 packets …": every text above starts with a plural noun,
    // perhaps after a qualifier ("IP", "non-IP"): the first word ending in "s" is it.
    if count == 1 {
        let words: Vec<String> = what.split(' ').map(str::to_string).collect();
        let mut done = false;
        let words: Vec<String> = words
            .into_iter()
            .map(|w| {
                let (stem, comma) = w.strip_suffix(',').map_or((w.as_str(), ""), |s| (s, ","));
                match stem.strip_suffix('s') {
                    Some(noun) if !done => {
                        done = true;
                        format!("{noun}{comma}")
                    }
                    _ => w.clone(),
                }
            })
            .collect();
        return format!("1 {}", words.join(" "));
    }
    format!("{count} {what}")
}

#[cfg(test)]
mod tests {
    use super::warning_text;

    #[test]
    fn a_time_jump_names_its_frame_and_size() {
        // 103,924,429.45 s = 1,202.8 days (two captures joined 3.3 years apart).
        assert_eq!(super::time_jump(1, Some(701), 103_924_429_446_946_000), ": frame 701, 1,202.8 days past every packet before it");
        assert_eq!(super::time_jump(2, None, 7_200_000_000_000), ": the largest: 2.0 hours past every packet before it");
        assert_eq!(
            warning_text("time-jumped-forward", 1),
            "1 packet whose timestamp jumps more than an hour past every earlier one, with the packets after following on (two captures joined, or the clock set forward: analysed as stamped, so the capture's duration and the gap at the jump include it, docs/ANALYSIS.md \"Time order\")"
        );
    }

    #[test]
    fn one_packet_is_singular_after_the_ip_qualifier() {
        // Before: "1 IP fragments, not reassembled" (the singular rule took "IP" for the noun).
        assert_eq!(warning_text("ip-fragment", 1), "1 IP fragment, not reassembled");
        assert_eq!(warning_text("ip-fragment", 2), "2 IP fragments, not reassembled");
        assert_eq!(warning_text("tcp-fragment", 1), "1 IP fragment of TCP segments, not reassembled: the TCP bytes in them are not analysed");
        assert_eq!(warning_text("not-tcp", 1), "1 IP packet other than TCP (UDP, ICMP, ...), skipped");
        assert_eq!(warning_text("not-ip", 1), "1 non-IP packet (ARP, LLDP, 802.11 management and control frames, ...), skipped");
        assert_eq!(warning_text("encrypted-frame", 1), "1 encrypted 802.11 data frame (WEP/WPA), unreadable, TCP included: capture on an end host, or decrypt first (Wireshark's 802.11 keys, airdecap-ng)");
        assert_eq!(warning_text("bad-fcs", 1), "1 802.11 frame that failed the radio's checksum (FCS: dropped there, never delivered), skipped");
        assert_eq!(warning_text("malformed-packet", 1), "1 packet with impossible header values, skipped");
    }
}

/// Where the page tells a warning (`report.warnings[].kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarningPlace {
    /// Its own banner, from `report.capture` (web/components/CaptureBanner.tsx).
    Banner,
    /// The list of packets not analysed: packets that may hold TCP the decoder could
    /// not reach ("No TCP connection could be read").
    Unreadable,
    /// The list of packets not analysed: packets that hold no TCP, or that were not
    /// analysed for another reason.
    Skipped,
    /// The list, counted apart: packets analysed all the same — with a repaired time
    /// (docs/ANALYSIS.md "Impossible timestamps", "Time order"), link padding, or a bad
    /// checksum the peer acknowledged ("Corrupt frames").
    Analysed,
}

/// Every warning kind a report may carry, and where the page tells it: the decoder's (`decode::WarningKind`) and the
/// analysis's (`AnalysisWarning::kind`, checked by a test that reads the source).
pub const WARNING_KINDS: [(&str, WarningPlace); 28] = {
    use WarningPlace::*;
    [
        (WarningKind::UnknownLinkType.name(), Unreadable),
        (WarningKind::NotIp.name(), Skipped),
        (WarningKind::NotTcp.name(), Skipped),
        (WarningKind::IpFragment.name(), Skipped),
        (WarningKind::TcpFragment.name(), Unreadable),
        (WarningKind::TruncatedHeaders.name(), Unreadable),
        (WarningKind::MalformedPacket.name(), Unreadable),
        (WarningKind::TimeWentBackwards.name(), Banner),
        (WarningKind::TimeOrderClamped.name(), Skipped),
        (WarningKind::TimeJumpedForward.name(), Banner),
        (WarningKind::ImpossibleTimestamp.name(), Analysed),
        (WarningKind::EncryptedFrame.name(), Unreadable),
        (WarningKind::BadFcs.name(), Skipped),
        (WarningKind::BadTcpChecksum.name(), Skipped),
        (WarningKind::AckedBadChecksum.name(), Analysed),
        (WarningKind::UnansweredBadChecksum.name(), Analysed),
        (WarningKind::AmsduSubframe.name(), Skipped),
        ("payload-only", Banner),
        ("duplicate-frames", Banner),
        ("coarse-clock", Banner),
        ("capture-loss", Banner),
        ("one-direction", Banner),
        ("link-padding", Analysed),
        ("two-senders", Analysed),
        ("batched-clock", Analysed),
        ("other-incarnation", Skipped),
        ("connection-limit", Skipped),
        ("packet-limit", Skipped),
    ]
};

#[cfg(test)]
mod warning_totals_tests {
    use super::*;

    fn w(kind: &'static str, count: u64) -> Warning {
        Warning { kind, count, message: String::new() }
    }

    /// The page's summary line and its "no TCP could be read" sentence say these sums.
    #[test]
    fn warnings_are_summed_by_where_the_page_tells_them() {
        // tcpdump's timestamp_invalid_nano.pcap: 2 packets analysed with a repaired time,
        // beside 3 IP packets that are not TCP (not analysed).
        assert_eq!(WarningTotals::of(&[w("impossible-timestamp", 2), w("not-tcp", 3)]), WarningTotals { not_analysed: 3, unreadable: 0, repaired: 2 });
        // A monitor-mode capture of a WPA network: 528 frames that are not IP and 59
        // encrypted data frames, which may hold TCP (unreadable, and not analysed).
        assert_eq!(WarningTotals::of(&[w("not-ip", 528), w("encrypted-frame", 59)]), WarningTotals { not_analysed: 587, unreadable: 59, repaired: 0 });
        // Banner kinds count connections or frames, not packets left out: nowhere.
        assert_eq!(WarningTotals::of(&[w("duplicate-frames", 81), w("one-direction", 2), w("capture-loss", 1)]), WarningTotals::default());
    }
}
