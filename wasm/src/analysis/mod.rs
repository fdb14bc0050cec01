//! TCP analysis: connection tracking, sequence/ACK bookkeeping, Wireshark's analysis
//! flags, window scaling, bytes in flight, RTT, throughput, stalls and the limit
//! diagnosis. Definitions follow DESIGN.md (which follows Wireshark's TCP analysis).

pub mod capture;
pub mod format;
pub mod loss;
pub mod rates;
pub mod rows;
pub mod run;
pub mod stalls;
pub mod timing;
pub mod track;
pub mod verdict;

// The modules under their paths before the rooms (crate::analysis::NAME).
pub use capture::{clock, duplicates, limits, radio, timeline};
pub use format as diagnosis_format;
pub use loss::{capture_loss, retrans_kinds};
pub(crate) use loss::datagram_ids;
pub use rates::{bdp, delivered, throughput};
pub use rows::{columns, store};
use rows::store_log;
pub use run::{analyzer, opening_view};
use run::summary;
pub use stalls::{delayed_ack, far_part, receiver_silent, unseen_timeout};
pub use timing::{round_trips, rtt, sender_flight, sender_view, vantage};
pub(crate) use timing::sender_clock;
pub use track::{connections, ecn, ending, flags, handshake, mptcp, sequence, window};
#[cfg(test)]
pub(crate) use track::testseg;
pub use verdict::{audit, diagnosis, diagnosis_episodes, diagnosis_shares, one_direction, savings};

pub use analyzer::Analyzer;
pub use columns::ConnectionColumns;
pub use limits::AnalysisWarning;
pub use store::ConnStore;

use serde::Serialize;
pub use radio::RadioLog;

/// Knobs of the analysis. Defaults follow DESIGN.md.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnalysisOptions {
    /// Stall threshold in ms; None = max(10 ms, 4 × the connection's minimum RTT).
    pub stall_threshold_ms: Option<f64>,
    /// Throughput bin for the summary's mean/peak, seconds (default 0.1).
    pub bin_seconds: f64,
    /// Connections tracked at most; later ones are counted, not analysed (limits.rs).
    pub max_connections: usize,
    /// Packet rows kept for the charts at most; later ones are analysed, not kept (limits.rs).
    pub max_stored_packets: u64,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            stall_threshold_ms: None,
            bin_seconds: 0.1,
            max_connections: limits::DEFAULT_MAX_CONNECTIONS,
            max_stored_packets: limits::DEFAULT_MAX_STORED_PACKETS,
        }
    }
}

/// `{min, max}` of the window a side advertises (SYN and RST segments excluded).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MinMax {
    pub min: u64,
    pub max: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ThroughputSummary {
    /// Payload bits over the connection's duration ("mean over the connection's duration").
    pub mean_bps: f64,
    /// Payload bits over the direction's active time: first to last data segment,
    /// stalls excluded ("mean while sending"; throughput.rs).
    pub active_mean_bps: f64,
    /// Fullest bin; never below `mean_bps` (throughput.rs).
    pub peak_bps: f64,
    pub bin_seconds: f64,
}

/// Round-trip statistics of one direction's segments, ms (docs/ANALYSIS.md "RTT").
/// Each sample is a full round trip: the measured part (capture point → this
/// direction's receiver → capture point) plus the other part (capture point → this
/// direction's sender → capture point): its latest trusted sample where this
/// direction's own part is local (`offset_follows`), else its minimum `offsetMs`
/// (round_trips.rs), so that a receiver-side capture does not report its local ACK
/// delay as the RTT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RttSummary {
    pub min_ms: Option<f64>,
    pub median_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    pub max_ms: Option<f64>,
    /// Samples in the statistics.
    pub samples: u64,
    /// Samples left out: timestamp echoes spanning an idle period or a loss recovery
    /// (RFC 7323 §4.3), zero-window probes, samples below the clock's resolution.
    pub excluded_samples: u64,
    /// The other part's minimum, added to each measured part to make a round trip
    /// (see above; with `offset_follows` only before the other part's first sample), ms.
    pub offset_ms: f64,
    /// Each sample adds the other part's latest trusted sample instead (this
    /// direction's own part is the capturing host's: round_trips.rs); `offsetMs` only
    /// before the first. Absent in reports made before it.
    pub offset_follows: bool,
    /// Samples in the statistics whose other part was such a measured sample (0
    /// without `offset_follows`). 0 with it: the far part is known only by its
    /// minimum (the handshake's, or an ACK of the receiver's own data; a receiver-side
    /// capture without TCP timestamps), and a queue there cannot be seen. Absent in
    /// reports made before it.
    pub followed_samples: u64,
}

/// Where the capture was taken, relative to the data sender (vantage.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Vantage {
    Sender,
    Receiver,
    Middle,
    Unknown,
}

/// Segments a capture holds before the absence of any without payload is told
/// (`CaptureFacts::payload_only`).
pub const PAYLOAD_ONLY_MIN: u64 = 100;

/// File-level facts the analysis found (report `capture`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CaptureFacts {
    /// Frames recognised as copies of an earlier frame and ignored (duplicates.rs).
    pub duplicate_frames: u64,
    /// Of those, 802.11 MAC-layer retries.
    pub wifi_retries: u64,
    /// Tick of the capture clock (clock.rs); None when it cannot be told.
    pub timestamp_resolution_ns: Option<i64>,
    /// TCP segments analysed (copies left out), and of them those without payload
    /// (pure ACKs, SYN, FIN, RST): `payload_only`.
    pub tcp_segments: u64,
    pub empty_segments: u64,
}

impl CaptureFacts {
    pub fn timestamp_resolution_s(&self) -> f64 {
        self.timestamp_resolution_ns.map_or(0.0, |ns| ns as f64 / 1e9)
    }

    /// The clock is coarser than 1 ms: RTTs and stalls below a tick can't be measured.
    pub fn coarse_clock(&self) -> bool {
        self.timestamp_resolution_ns.is_some_and(|ns| ns > 1_000_000)
    }

    /// Not one segment without payload among at least [`PAYLOAD_ONLY_MIN`]: no
    /// handshake, no FIN, no pure ACK — a capture filtered on payload (`tcp.len > 0`,
    /// `greater 60`) or written by a tool that kept only data. Every TCP stack sends
    /// pure ACKs when it has nothing to send (RFC 9293 §3.8.6.3: within 0.5 s), so
    /// their absence over this many segments is the capture's, not the hosts'. The ACKs
    /// it shows all rode on data: round trips, stalls and waits on ACKs read from them
    /// are the peers' replies, not the path (an exchange whose replies came seconds
    /// apart once read "RTT 27 s" and "waiting on ACKs").
    pub fn payload_only(&self) -> bool {
        self.tcp_segments >= PAYLOAD_ONLY_MIN && self.empty_segments == 0
    }

    pub fn warnings(&self) -> Vec<AnalysisWarning> {
        let mut w = Vec::new();
        if self.payload_only() {
            w.push(AnalysisWarning {
                kind: "payload-only",
                count: self.tcp_segments,
                message: format!(
                    "Every one of the {} TCP segments carries data: no pure ACK, handshake or FIN is in this capture (a capture filter on payload, or a tool that kept only data). Its ACKs all rode on data, so the round trips, stalls and waits on ACKs below measure the peers' replies, not the path",
                    self.tcp_segments
                ),
            });
        }
        if self.duplicate_frames > 0 {
            let wifi = if self.wifi_retries > 0 { format!(" ({} of them 802.11 retries)", self.wifi_retries) } else { String::new() };
            w.push(AnalysisWarning {
                kind: "duplicate-frames",
                count: self.duplicate_frames,
                message: format!("{} duplicate frames from the capture set-up were ignored{}", self.duplicate_frames, wifi),
            });
        }
        if self.coarse_clock() {
            w.push(AnalysisWarning {
                kind: "coarse-clock",
                count: 1,
                message: format!(
                    "Timestamps tick in {} steps: RTTs and stalls shorter than that cannot be measured",
                    diagnosis_format::format_duration(self.timestamp_resolution_s())
                ),
            });
        }
        w
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum StallCause {
    ZeroWindow,
    WindowLimited,
    RetransmissionTimeout,
    ApplicationIdle,
    AckWait,
    /// Nagle's algorithm waiting for the peer's delayed ACK (delayed_ack.rs).
    DelayedAck,
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Stall {
    /// Seconds since the first packet of the file (time of the packet before the gap).
    pub start: f64,
    pub duration: f64,
    pub cause: StallCause,
    /// 1-based frame numbers of the packets either side of the gap.
    pub frame_before: u32,
    pub frame_after: u32,
    /// What ended it, in words ("retransmission of 1448 bytes", "window update to 64 KiB", ...).
    pub ended_by: String,
}

/// One direction of a connection, field names as in the CLI JSON (schema 1).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DirectionSummary {
    pub from: String,
    pub to: String,
    pub packets: u64,
    pub payload_bytes: u64,
    /// Wire (frame) bytes.
    pub bytes: u64,
    /// Shift this side announced in its SYN; None when unknown (no handshake) or not negotiated.
    pub window_scale: Option<u8>,
    /// True when the handshake was not seen, so the scale is unknown.
    pub window_scale_unknown: bool,
    /// Lower bound on the unknown scale, inferred where bytes in flight exceeded the raw window.
    pub window_scale_lower_bound: Option<u8>,
    pub receive_window: Option<MinMax>,
    pub max_bytes_in_flight: Option<u64>,
    pub retransmissions: u64,
    /// The kind of each retransmission (retrans_kinds.rs; docs/ANALYSIS.md
    /// "Retransmission kinds"): timeouts + probes + fast + slow start = retransmissions
    /// (less any beyond the per-direction record cap).
    pub rto_events: u64,
    /// Timeouts with no feedback between them, with their backoff intervals.
    pub rto_chains: Vec<retrans_kinds::RtoChain>,
    pub tail_loss_probes: u64,
    /// Fast retransmit and SACK / NewReno loss recovery (Linux's TCPFastRetrans).
    pub fast_retransmissions: u64,
    /// Retransmissions clocked by ACKs after a timeout (Linux's TCPSlowStartRetrans).
    pub slow_start_retransmissions: u64,
    /// Retransmissions shown needless by a D-SACK (RFC 2883) or Eifel (RFC 3522).
    pub spurious_retransmissions: u64,
    /// `retransmissions` in segments, as the sender's kernel counts them
    /// (TcpRetransSegs): a frame of a TSO / GRO capture larger than the sender's SMSS
    /// (handshake.rs `send_mss`) counts ⌈len / SMSS⌉; equal to `retransmissions` where
    /// every frame is one segment or the handshake's MSS is not in the capture.
    pub retransmitted_segments: u64,
    /// `fastRetransmissions` in segments (Linux's TCPFastRetrans counts these).
    pub fast_retransmitted_segments: u64,
    /// `slowStartRetransmissions` in segments (Linux's TCPSlowStartRetrans).
    pub slow_start_retransmitted_segments: u64,
    pub duplicate_acks: u64,
    pub zero_windows: u64,
    pub zero_window_probes: u64,
    pub window_full: u64,
    pub keep_alives: u64,
    pub lost_segments: u64,
    /// Datagrams this direction's sender sent that never reached the capture point,
    /// told by its IPv4 Identification (datagram_ids.rs): lost before it. None where
    /// the sender does not number one per segment (Windows, macOS, IPv6, ...) or
    /// sent no data.
    pub unseen_datagrams: Option<u64>,
    pub out_of_order: u64,
    pub throughput: ThroughputSummary,
    pub rtt: RttSummary,
    /// How much later than the capture this direction's sender learns of its peer's
    /// ACKs and windows, ms (sender_view.rs): its stalls are judged with it.
    pub sender_lag_ms: f64,
    pub stalls: Vec<Stall>,
    /// ECN marks and echoes this direction sent (ecn.rs); None when the connection
    /// showed no ECN at all.
    pub ecn: Option<ecn::EcnSummary>,
}

/// Every value `Diagnosis::limit` takes (docs/ANALYSIS.md `diagnosis.limit`); the
/// page's TypeScript `Limit` is this closed set (view/ts_types.rs).
/// Every stall cause's JSON name. Share links store a cause as its index here, so
/// new causes are appended, never inserted (wasm/src/share/answers.rs).
pub const STALL_CAUSES: [&str; 7] =
    ["zero-window", "window-limited", "retransmission-timeout", "application-idle", "ack-wait", "unknown", "delayed-ack"];

pub const LIMITS: [&str; 8] = ["receive-window", "zero-window", "loss", "application", "stalls", "path", "too-short", "one-direction"];
/// Every value `Evidence::verdict` takes (docs/ANALYSIS.md `diagnosis.evidence.verdict`).
pub const VERDICTS: [&str; 6] = ["window", "link", "loss", "application", "stalls", "unknown"];
/// Every value `Episode::kind` takes (docs/ANALYSIS.md `diagnosis.episodes`).
pub const EPISODE_KINDS: [&str; 5] = ["loss", "delay-spike", "outage", "zero-window", "latency"];

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// One of [`LIMITS`].
    #[cfg_attr(test, ts(type = "Limit"))]
    pub limit: String,
    pub text: String,
    /// Shares of the data direction's active time, 0..1.
    pub shares: DiagnosisShares,
    /// The numbers the headline used; the calculator is seeded from exactly these.
    pub evidence: Evidence,
    /// Changes of regime (loss, delay spikes, outages), each with its span and cost.
    pub episodes: Vec<Episode>,
    /// What removing each priced limit would have saved, largest first (savings.rs).
    pub savings: Vec<savings::Saving>,
}

/// The numbers behind the headline (diagnosis.rs), so the page cannot contradict it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// The path RTT (`ConnectionSummary::path_rtt_ms`).
    pub rtt_ms: Option<f64>,
    /// Largest advertised receive window, scaled; with an unknown scale, the inferred
    /// lower bound (`window_inferred`).
    pub window_bytes: Option<f64>,
    pub window_inferred: bool,
    /// Sustained rate: mean while sending (never a single bin), bit/s.
    pub rate_bps: Option<f64>,
    /// window × 8 / RTT.
    pub cap_bps: Option<f64>,
    /// The bottleneck's rate where the diagnosis knows it (a path-limited flow ran at
    /// it); None when the window hides it.
    pub link_rate_bps: Option<f64>,
    /// One of [`VERDICTS`].
    #[cfg_attr(test, ts(type = "Verdict"))]
    pub verdict: &'static str,
}

/// A period the diagnosis names: "during 100–220 s each burst took 0.6–1.7 s ...".
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Episode {
    pub start: f64,
    pub end: f64,
    /// One of [`EPISODE_KINDS`].
    #[cfg_attr(test, ts(type = "EpisodeKind"))]
    pub kind: &'static str,
    pub text: String,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DiagnosisShares {
    pub receive_window: f64,
    pub loss: f64,
    pub application: f64,
    pub stalled: f64,
    pub other: f64,
}

/// Everything the analysis knows about one connection.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ConnectionSummary {
    pub id: u32,
    pub endpoints: [String; 2],
    /// Both the SYN and the SYN/ACK are in the capture (handshake.rs).
    pub handshake_seen: bool,
    /// Some SYN is in the capture (Wireshark's test; not in the report).
    #[serde(skip)]
    pub any_syn: bool,
    /// The options each side offered (handshake.rs).
    pub handshake: handshake::Handshake,
    /// Bytes the receivers acknowledged that the capture never saw, both directions
    /// (capture_loss.rs).
    pub capture_loss: capture_loss::CaptureLoss,
    pub packets: u64,
    pub start: f64,
    pub end: f64,
    /// The range the charts open on, s: the data segments' span with a margin, when the
    /// connection idled for a good part of its time (opening_view.rs); None = the whole
    /// connection.
    pub data_view: Option<[f64; 2]>,
    pub data_direction: u8,
    /// Where the capture was taken relative to the data sender (vantage.rs).
    pub vantage: Vantage,
    /// The round trip every derived number uses (vantage.rs), ms.
    pub path_rtt_ms: Option<f64>,
    /// How `path_rtt_ms` was measured, in words.
    pub path_rtt_method: String,
    /// The part of the round trip between the capture point and the data sender, ms
    /// (vantage.rs): how much later than the capture the sender learns of the
    /// receiver's ACKs and windows. Stalls and shares are judged with it
    /// (sender_view.rs); ~0 at a sender-side capture, the path RTT at the receiver.
    pub sender_lag_ms: f64,
    /// Smallest path RTT of any connection between the same two hosts, ms: the
    /// path's base, against which latency under load is measured.
    pub base_rtt_ms: Option<f64>,
    /// The stall threshold the stalls were found with (options, or DESIGN.md's
    /// max(10 ms, 4 × min RTT) with min RTT = sum of both directions' minima).
    pub stall_threshold_ms: f64,
    // Boxed, as is `diagnosis`: a summary is ~1 KB inline otherwise, and `finish`
    // reserves one per connection in a single block that cannot reuse the memory
    // the connections' state frees as they are summarised (issue 16: 100 k
    // connections); the boxes can. Serialized as if inline. (Not a doc comment:
    // it would land in the generated TypeScript.)
    pub directions: Box<[DirectionSummary; 2]>,
    pub diagnosis: Box<Diagnosis>,
    /// How the connection ended (ending.rs; docs/ANALYSIS.md "How the connection ended").
    pub ending: Box<ending::Ending>,
    /// The process behind the connection: the first process a packet of it names
    /// (PKTAP header or Darwin process block; docs/ANALYSIS.md "Process"). Filled by
    /// `Session::finish` from `process_index` and the decoder's process table.
    pub process: Option<crate::decode::Process>,
    #[serde(skip)]
    pub process_index: Option<u32>,
    /// The MPTCP connection this connection is a subflow of: its `id` in the report's
    /// `mptcp` list (mptcp.rs). Absent for plain TCP.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub mptcp: Option<u32>,
}

/// Result of the analysis of one capture.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    pub connections: Vec<ConnectionSummary>,
    /// Chart rows, compact (store.rs); same order and length as `connections`.
    /// The public columns are materialized from them on demand: [`Analysis::columns`].
    pub stores: Vec<ConnStore>,
    /// Limits that were hit (limits.rs) and capture facts worth a word, merged into
    /// the report's warnings.
    pub warnings: Vec<AnalysisWarning>,
    pub capture: CaptureFacts,
    /// 802.11 radio samples per connection (radio.rs); same order as `connections`.
    pub radio: Vec<RadioLog>,
    /// The large connections' window-limited spans, from the diagnosis's pass
    /// (diagnosis_shares::KeptSpans), by ascending connection position.
    pub window_limited: Vec<diagnosis_shares::KeptSpans>,
    /// MPTCP connections, their subflows grouped (mptcp.rs); empty without MPTCP.
    pub mptcp: Vec<mptcp::MptcpConnection>,
}

impl Analysis {
    /// The chart columns of connection `index` (position in `connections`),
    /// materialized from the compact store; empty for an unknown index.
    ///
    /// RTT samples come out as full round trips: each direction's measured part plus
    /// the other part by the connection's rule (round_trips.rs), as its statistics
    /// count them, so that the chart, the CSV and the summary show the same numbers.
    pub fn columns(&self, index: usize) -> ConnectionColumns {
        let mut cols = self.stores.get(index).map(ConnStore::columns).unwrap_or_default();
        if let Some(c) = self.connections.get(index) {
            let mut full = Vec::with_capacity(cols.rtt.rtt_ms.len());
            round_trips::RoundTripRule::of(c, self.capture.timestamp_resolution_s()).for_each(&cols.rtt, &mut |_, _, _, round_trip_ms, _| full.push(round_trip_ms));
            cols.rtt.rtt_ms = full;
        }
        cols
    }

    /// The window-limited spans and active time of connection `index` (position) and
    /// sender `dir`, when the end of the capture kept them.
    pub fn kept_window_limited(&self, index: usize, dir: u8) -> Option<&diagnosis_shares::KeptSpans> {
        let i = self.window_limited.binary_search_by_key(&index, |k| k.connection).ok()?;
        Some(&self.window_limited[i]).filter(|k| k.dir == dir)
    }
}

#[cfg(test)]
mod stall_cause_names {
    use super::{StallCause, STALL_CAUSES};

    #[test]
    fn every_stall_cause_has_its_json_name_in_the_list() {
        use StallCause::*;
        for cause in [ZeroWindow, WindowLimited, RetransmissionTimeout, ApplicationIdle, AckWait, DelayedAck, Unknown] {
            let name = serde_json::to_value(cause).unwrap();
            assert!(STALL_CAUSES.contains(&name.as_str().unwrap()), "{name} is not in STALL_CAUSES");
        }
    }
}
