//! The report of one capture: each connection's summary (`ConnectionSummary`), its two
//! directions (`DirectionSummary`) and its diagnosis, and the whole capture's result
//! (`Analysis`), serialized as the CLI JSON and generated into TypeScript (ts-rs). The
//! rooms before it fill these shapes; the verdict reads them.

use crate::analysis::capture::facts::CaptureFacts;
use crate::analysis::capture::limits::AnalysisWarning;
use crate::analysis::capture::radio::RadioLog;
use crate::analysis::loss::{capture_loss, retrans_kinds};
use crate::analysis::rates::throughput::ThroughputSummary;
use crate::analysis::rows::columns::ConnectionColumns;
use crate::analysis::rows::store::ConnStore;
use crate::analysis::stalls::cause::Stall;
use crate::analysis::timing::round_trips;
use crate::analysis::timing::vantage::Vantage;
use crate::analysis::track::window::MinMax;
use crate::analysis::track::{ecn, ending, handshake, mptcp};
use serde::Serialize;

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
    /// Samples in the statistics that time the path, not the receiver
    /// (round_trips.rs `times_path`): their ACK did not ride on the receiver's new data,
    /// and if it acknowledged less than two full-sized segments it came later than any
    /// delayed-ACK timer holds one (0.5 s, RFC 1122 §4.2.3.2). Absent in reports made before it.
    pub path_samples: u64,
    /// The median round trip of those samples, ms: what a queue on the path is judged
    /// by (docs/ANALYSIS.md "Queueing"); None without one.
    pub path_median_ms: Option<f64>,
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

/// One direction of a connection, field names as in the CLI JSON (schema 1).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DirectionSummary {
    /// What the capture missed of this side's data (capture_loss.rs `Missed`: the one definition the capture-loss count and the capture-gaps sentence read); not in the JSON.
    #[serde(skip)]
    pub missed: capture_loss::Missed,
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
    /// The kind of each retransmission (retrans_kinds.rs; docs/ANALYSIS.md "Retransmission kinds"): timeouts + probes + fast +
    /// slow start + PMTU + back-to-back duplicates = retransmissions (less any beyond the per-direction record cap).
    pub rto_events: u64,
    /// Timeouts with no feedback between them, with their backoff intervals.
    pub rto_chains: Vec<retrans_kinds::RtoChain>,
    pub tail_loss_probes: u64,
    /// Fast retransmit and SACK / NewReno loss recovery (Linux's TCPFastRetrans).
    pub fast_retransmissions: u64,
    /// Retransmissions clocked by ACKs after a timeout (Linux's TCPSlowStartRetrans).
    pub slow_start_retransmissions: u64,
    /// Re-sends an ICMP "fragmentation needed" / "packet too big" set off, at the smaller size (pmtu_kind.rs). Absent when 0: links made before it lack it.
    #[serde(skip_serializing_if = "is_zero_count")]
    #[cfg_attr(test, ts(as = "Option<u64>", optional))]
    pub pmtu_retransmissions: u64,
    /// Segments sent twice back to back, before feedback or a timer could ask (loss/back_to_back.rs). Absent when 0.
    #[serde(skip_serializing_if = "is_zero_count")]
    #[cfg_attr(test, ts(as = "Option<u64>", optional))]
    pub back_to_back_duplicates: u64,
    /// Retransmissions shown needless by a D-SACK (RFC 2883) or Eifel (RFC 3522).
    pub spurious_retransmissions: u64,
    /// `retransmissions` in segments, as the sender's kernel counts them (TcpRetransSegs): a frame of a TSO / GRO capture larger
    /// than the sender's SMSS (handshake.rs `send_mss`) counts ⌈len / SMSS⌉; equal to `retransmissions` where every frame is one
    /// segment or the handshake's MSS is not in the capture.
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
    /// Segments of this direction the capture saw pass that the receiver's SACK blocks
    /// then reported missing (RFC 2018; lost by RFC 6675's rule): lost after the capture
    /// point (loss/reported.rs).
    pub lost_after_capture: u64,
    /// Segments the receiver reported missing and later acknowledged with no re-send of
    /// them captured: re-sent where the capture did not see it (loss/reported.rs).
    pub unseen_resends: u64,
    pub out_of_order: u64,
    pub throughput: ThroughputSummary,
    pub rtt: RttSummary,
    /// How much later than the capture this direction's sender learns of its peer's
    /// ACKs and windows, ms (sender_view.rs): its stalls are judged with it.
    pub sender_lag_ms: f64,
    pub stalls: Vec<Stall>,
    /// The time this direction stood still: the sum of its stalls' durations, s
    /// (stalls/cause.rs `total_seconds`; the diagnosis panel's "in total").
    pub stall_seconds: f64,
    /// ECN marks and echoes this direction sent (ecn.rs); None when the connection
    /// showed no ECN at all.
    pub ecn: Option<ecn::EcnSummary>,
    /// A standing queue upstream of the capture by this sender's TCP timestamps
    /// (timing/ts_clock.rs); only when named (≥ 3 × the path's round trip).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub upstream_queue: Option<crate::analysis::timing::ts_clock::UpstreamQueue>,
}

/// Every value `Diagnosis::limit` takes (docs/ANALYSIS.md `diagnosis.limit`); the
/// page's TypeScript `Limit` is this closed set (view/ts_types.rs).
pub const LIMITS: [&str; 12] = ["receive-window", "zero-window", "loss", "application", "stalls", "path", "turns", "too-short", "one-direction", "not-established", "capture-gaps", "clock-broken"];
/// Every value `Evidence::verdict` takes (docs/ANALYSIS.md `diagnosis.evidence.verdict`).
pub const VERDICTS: [&str; 7] = ["window", "link", "loss", "application", "stalls", "turns", "unknown"];
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
    pub savings: Vec<Saving>,
    /// The data's round trips add a far part that no sample timed beyond its minimum
    /// (verdict/diagnosis/path_words.rs `far_part_unseen`): the panel and the RTT chart
    /// say a queue beyond the capture point does not show. Absent when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub far_part_unseen: bool,
    /// Where the transfer ended, when the connection idled after its bulk data before a last small exchange
    /// (verdict/diagnosis_shares/transfer_end.rs): the shares, the savings and the text's times end there.
    /// Absent when the transfer ran to the direction's last data segment.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub transfer_end: Option<TransferEnd>,
    /// Where the transfer began, after a head of small messages both ways (verdict/diagnosis_shares/
    /// transfer_head.rs): the shares, the savings, the stall sums and the turns the text says start there.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub transfer_start: Option<TransferStart>,
    /// Where the peer stopped answering for good (verdict/peer_silent.rs): the data direction re-sent into a
    /// silence that lasted to the connection's end. The shares, the savings and the text's times end at its `at`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub peer_silent: Option<PeerSilent>,
    /// Sentences of `text` that rules run after every connection's diagnosis say again (verdict/relay_chain.rs,
    /// verdict/app_facts/proxy.rs), as typed facts; not in the JSON.
    #[serde(skip)]
    pub said: Said,
}

/// The answering end's waits as `text` says them, for relay_chain.rs and proxy.rs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Said {
    /// answer_waits.rs "X itself took …": the sentence, its longest wait's request and
    /// answer frames, and its words from the sum to the close of the longest's parenthesis.
    pub answer_waits: Option<(String, u32, u32, String)>,
    /// wait_words.rs "Had X always had data ready (its own waits, …)": the lead, the
    /// sender's own waits (s), the peer's part (s), and whether the pauses were turns.
    pub own_waits: Option<(String, f64, f64, bool)>,
}

pub use crate::analysis::stalls::{receiver_silent::PeerSilent, transfer_start::TransferStart}; // defined with what they describe

/// The end of a connection's transfer before its idle tail (`diagnosis.transferEnd`; diagnosis_shares/transfer_end.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TransferEnd {
    /// Capture time of the transfer's last data segment, s (the clock of `stalls[].start`).
    pub at: f64,
    /// Its frame number.
    pub frame: u32,
    /// New payload bytes the data direction sent up to it.
    pub bytes: f64,
    /// The idle pause that followed it (the `application-idle` stall), s.
    pub idle_seconds: f64,
    /// The pause ended with the peer's next message: its data came in the pause's second half and the sender's next
    /// data followed it (the tail answered it).
    pub peer_spoke: bool,
    /// New payload bytes the data direction sent after it.
    pub tail_bytes: f64,
    /// From `at` to the direction's last data segment, s.
    pub tail_seconds: f64,
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
    /// Request/response turns: waits of a round trip for the peer's next message with
    /// everything acknowledged (diagnosis_shares.rs "turns"). Absent when 0: links
    /// made before it lack it.
    #[serde(skip_serializing_if = "is_zero")]
    #[cfg_attr(test, ts(as = "Option<f64>", optional))]
    pub turns: f64,
}

fn is_zero(v: &f64) -> bool { *v == 0.0 }

fn is_zero_count(v: &u64) -> bool { *v == 0 }

/// One limit's price.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Saving {
    /// The limit removed: `application`, `zero-window`, `stalls` or `loss`.
    #[cfg_attr(test, ts(type = "Limit"))]
    pub limit: &'static str,
    /// Seconds of the data direction's active time its removal would have saved.
    pub seconds: f64,
    /// `seconds` is a lower bound (`loss`), not the whole price.
    pub at_least: bool,
}

/// The window-limited spans of a connection's data direction and its active time, as
/// `diagnosis_shares::window_limited_spans` gives them, kept from the diagnosis's own pass at the end
/// of the capture (summary.rs) for large connections: the view's first window-limited
/// query then needs no second copy of the packet columns (issue 14: on 2.5 M packets
/// that copy was 0.3 s on the way to the first chart and 53 B per packet of wasm
/// memory on top of the view's series).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeptSpans {
    /// The connection's position in `Analysis::connections`.
    pub connection: usize,
    pub dir: u8,
    pub spans: Vec<(f64, f64)>,
    pub active: f64,
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
    /// 0: `endpoints[0]` sends the data; 1: `endpoints[1]`.
    #[cfg_attr(test, ts(type = "0 | 1"))]
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
    /// Smallest path RTT of this connection and of those on the same path (same two
    /// hosts at the same hop counts, within 10 minutes: latency_under_load.rs), ms: the
    /// path's base, against which latency under load is measured.
    pub base_rtt_ms: Option<f64>,
    /// Each endpoint's IP TTL range as captured (`Side::ttl`): its hop count (not in JSON).
    #[serde(skip)]
    pub ttl: [Option<(u8, u8)>; 2],
    #[serde(skip)] // Medians of the queue direction's path round trips sent with [little, more] in flight, ms (latency_under_load.rs `flight_rtts`).
    pub flight_rtt_ms: [Option<f64>; 2],
    /// The stall threshold the stalls were found with (options, or DESIGN.md's
    /// max(10 ms, 4 × min RTT) with min RTT = sum of both directions' minima).
    pub stall_threshold_ms: f64,
    /// The tick of the clock that stamped this connection's packets, ms, when it is
    /// coarse (> 1 ms) and coarser than the capture's (`capture.timestampResolutionMs`):
    /// a capture merged from several clocks (clock.rs `own_tick_ns`). Its RTT samples,
    /// stall threshold and throughput bins follow this tick. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub clock_tick_ms: Option<f64>,
    // Boxed, as is `diagnosis`: a summary is ~1 KB inline otherwise, and `finish` reserves one per connection in a
    // single block that cannot reuse the memory the connections' state frees (issue 16: 100 k connections); the
    // boxes can. Serialized as if inline. (Not a doc comment: it would land in the generated TypeScript.)
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
    /// What the later stall rules read beyond the rows (stalls/later_rules.rs), where
    /// there is any: the view re-judges stalls at other thresholds with it.
    #[serde(skip)]
    pub stall_inputs: Option<Box<crate::analysis::stalls::later_rules::LaterInputs>>,
    /// The MPTCP connection this connection is a subflow of: its `id` in the report's
    /// `mptcp` list (mptcp.rs). Absent for plain TCP.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub mptcp: Option<u32>,
    /// ICMP errors quoting this connection's packets (icmp_errors.rs); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub icmp: Option<Box<crate::analysis::track::icmp::IcmpErrors>>,
    /// Two senders on one side: bytes that differ for the same sequence numbers
    /// (two_senders.rs; docs/ANALYSIS.md "Two senders on one side"); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub two_senders: Option<Box<crate::analysis::track::two_senders::TwoSenders>>,
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
    /// (KeptSpans), by ascending connection position.
    pub window_limited: Vec<KeptSpans>,
    /// MPTCP connections, their subflows grouped (mptcp.rs); empty without MPTCP.
    pub mptcp: Vec<mptcp::MptcpConnection>,
    /// A diagnosis names or denies other connections of the capture (verdict/app_facts:
    /// an FTP control connection's data connections): a sharded analysis cannot merge it.
    pub linked_text: bool,
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
    pub fn kept_window_limited(&self, index: usize, dir: u8) -> Option<&KeptSpans> {
        let i = self.window_limited.binary_search_by_key(&index, |k| k.connection).ok()?;
        Some(&self.window_limited[i]).filter(|k| k.dir == dir)
    }
}

// The rule is timing's (timing/round_trips.rs); reading it back from a summary is the
// report's, so that timing/ need not know the report's shapes.
impl round_trips::RoundTripRule {
    /// The rule a connection's summary was computed with; `tick_s`: the capture's
    /// (`CaptureFacts::timestamp_resolution_s`), raised to the connection's own
    /// (`clock_tick_ms`) as its summary was.
    pub fn of(conn: &ConnectionSummary, tick_s: f64) -> round_trips::RoundTripRule {
        let tick_s = conn.tick_s(tick_s);
        let r = &conn.directions;
        round_trips::RoundTripRule::recorded(
            conn.vantage,
            conn.data_direction,
            [r[0].rtt.offset_ms, r[1].rtt.offset_ms],
            [r[0].rtt.offset_follows, r[1].rtt.offset_follows],
            tick_s,
        )
    }
}

impl ConnectionSummary {
    /// The tick of the clock that stamped this connection, s: `capture_tick_s` (the
    /// capture's, `CaptureFacts::timestamp_resolution_s`) or its own when coarser
    /// (`clock_tick_ms`).
    pub fn tick_s(&self, capture_tick_s: f64) -> f64 {
        self.clock_tick_ms.map_or(capture_tick_s, |ms| capture_tick_s.max(ms / 1000.0))
    }
}

impl DirectionSummary {
    /// The inferred lower bound of this side's window scale where the scale is unknown
    /// (no handshake): what `window::apply_inferred_scale` multiplies its windows by.
    pub fn inferred_scale(&self) -> Option<u8> {
        self.window_scale_lower_bound.filter(|_| self.window_scale_unknown)
    }
}
