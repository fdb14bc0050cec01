//! The shapes of the two-vantage-point report (docs/ANALYSIS.md "Two vantage points"):
//! serialized as JSON (camelCase) and generated into TypeScript (ts-rs) like the
//! capture report. Every field names its host or capture by role (the data sender's
//! side, the data receiver's side), never by argument order, so that swapping the two
//! inputs changes only the `input` fields.

use serde::{Deserialize, Deserializer, Serialize};

/// Everything the merge of two captures found.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TwinReport {
    /// The connections found in both captures, each merged (or refused, with why).
    pub pairs: Vec<TwinPair>,
    /// Connection ids (as each capture's report numbers them) found in one capture only:
    /// `[input 0's, input 1's]`, at most `twin::MAX_LISTED` each.
    pub unpaired: [Vec<u32>; 2],
    /// Set when nothing could be merged: why, in words.
    pub refusal: Option<Refusal>,
    /// Limits met and facts worth a word (a capture that ended with a decode error, a
    /// connection cap), in words.
    pub notes: Vec<String>,
}

/// Why two captures were not merged at all.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Refusal {
    /// `same-capture` (one vantage point given twice), `no-match` (no connection in
    /// both), `unreadable` (a capture that decodes to nothing), `too-large` (a capture
    /// over twin/stream.rs `MAX_TWIN_CAPTURE_BYTES`, streamed input only), `not-merged`
    /// (connections found in both, every one refused: its `refused` reason).
    pub kind: &'static str,
    pub message: String,
}

/// How a connection was found in both captures (docs/ANALYSIS.md `twin.matchedBy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum MatchedBy {
    /// The same addresses and ports, confirmed by the ISNs or by shared datagrams.
    FourTuple,
    /// Addresses or ports differ (a NAT, a load balancer): the SYN and SYN/ACK carry the
    /// same initial sequence numbers.
    Isn,
    /// Addresses or ports differ and no handshake in both: datagrams with the same
    /// sequence, acknowledgment, length and TCP timestamps (TSval, TSecr).
    Timestamps,
    /// As `Timestamps`, without TCP timestamps: sequence, acknowledgment, length.
    Segments,
}

/// One capture's side of a pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SideRef {
    /// 0 for the first capture given, 1 for the second.
    pub input: u8,
    /// The connection's id in that capture's own report.
    pub connection: u32,
    /// The endpoints as that capture saw them: `[data sender, data receiver]`.
    pub endpoints: [String; 2],
}

/// One connection seen at both points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TwinPair {
    pub matched_by: MatchedBy,
    /// Every signal that tied the two together, strongest first.
    pub evidence: Vec<MatchedBy>,
    /// The addresses or ports differ between the two captures (a NAT between them).
    pub rewritten: bool,
    /// The capture near the data sender (the host that sent more payload).
    pub sender_side: SideRef,
    /// The capture near the data receiver.
    pub receiver_side: SideRef,
    /// How the sides were told (twin/clock.rs `orient`), in words.
    pub sides_told_by: String,
    /// Set when this pair could not be merged (too large, no datagram in both, one
    /// vantage point twice): why. The fields below are then empty.
    pub refused: Option<String>,
    pub clock: Option<TwinClock>,
    /// `[forward (data sender → receiver), return]`.
    pub directions: Vec<TwinDirection>,
    /// Each stall of either capture's report, placed.
    pub stalls: Vec<PlacedStall>,
    /// The connection's stalls counted once each: a gap both captures listed is one
    /// (twin/placement/distinct.rs `Ctx::distinct_stalls`), time order. Empty in a share
    /// link made before it was added (read back, the rows above still hold the stalls).
    #[serde(default)]
    pub distinct_stalls: Vec<DistinctStall>,
    /// The stall threshold each capture's report found its stalls with, ms:
    /// `[sender side, receiver side]` (a gap shorter than it is no stall, so it is not
    /// placed; None where that capture's analysis does not hold the connection).
    pub stall_threshold_ms: [Option<f64>; 2],
    pub rtt_split: Option<RttSplit>,
    pub in_flight: Option<InFlightCheck>,
    /// Which direction queued: `forward`, `return`, `both`, `neither`, or
    /// `too-few-samples` (twin/delay.rs `queued_direction`).
    #[serde(deserialize_with = "queued_word")]
    pub queued: Word,
    /// Datagrams of note (lost between, reordered, duplicated, not seen at one side),
    /// time order, at most `twin::MAX_EVENTS`.
    pub events: Vec<TwinEvent>,
    /// The data direction's time-sequence series as each capture saw it, on the merged
    /// axis (twin/sequence.rs); the events are its marks.
    pub sequence: Option<super::sequence::TwinSequence>,
}

/// The two clocks (twin/clock.rs). Times of the merged view are seconds since the
/// first packet of the sender-side capture, on its clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TwinClock {
    /// Receiver-side clock minus sender-side clock at the merged view's time 0, ms.
    pub offset_ms: f64,
    /// The offset is known to ± this, ms: half the smallest round trip the two
    /// captures' shared datagrams allow (NTP's bound).
    pub uncertainty_ms: f64,
    /// How fast the receiver-side clock gains on the sender-side one, parts per
    /// million; None when the capture is too short to tell (`twin::DRIFT_MIN_SPAN_S`).
    pub drift_ppm: Option<f64>,
    pub drift_uncertainty_ppm: Option<f64>,
    /// Datagrams seen at both points in each direction `[forward, return]`.
    pub samples: [u64; 2],
    /// Datagrams that, by the raw clocks, arrived before they were sent: the clocks are
    /// obviously not synchronised when non-zero.
    pub arrived_before_sent: u64,
    /// Even the best offset leaves a datagram arriving before it was sent (a clock that
    /// jumped): the delays below are then not trustworthy.
    pub inconsistent: bool,
    pub text: String,
}

/// What happened between the two points to one direction's datagrams
/// (twin/fate.rs). "Sending side" is the capture near this direction's sender (for the
/// return direction, the receiver-side capture of the pair). Counts are wire segments:
/// a datagram larger than the sender's segment size (TSO/GSO) counts as the segments it
/// is cut into.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TwinDirection {
    pub from: String,
    pub to: String,
    /// Segments the sending side's capture saw leave, inside the other capture's span.
    pub sent: u64,
    pub delivered: u64,
    /// Seen leaving, never arriving, and the hosts agree it was lost: a resend
    /// followed, or the receiver acknowledged around it (SACK, duplicate ACKs); for a
    /// datagram without data (never resent), its absence with the capture complete.
    pub lost_between: u64,
    /// Of `lost_between`, datagrams without data (ACKs, window updates).
    pub lost_between_without_data: u64,
    /// Delivered after a datagram sent later had arrived (RFC 4737).
    pub reordered: u64,
    /// Copies at the receiving side beyond those at the sending side (made on the way,
    /// or by the receiving side's capture set-up: the two look alike).
    pub duplicated: u64,
    /// Seen arriving, never leaving: a capture drop at the sending side, or a resend
    /// made below that capture (TSO, the NIC).
    pub not_seen_at_sender_side: u64,
    /// Seen leaving, not arriving, yet the receiver acknowledged it: a capture drop at
    /// the receiving side.
    pub not_seen_at_receiver_side: u64,
    /// Seen leaving, not arriving, and nothing tells whether it arrived.
    pub undecided: u64,
    /// Sent before the other capture started or after it ended: not judged.
    pub outside_other_capture: u64,
    /// One-way delay after the offset, ms (min, median, p95, max); None without samples.
    pub delay: Option<DelayStats>,
    /// Delay above its floor (the queue on the way), ms: median and p95.
    pub queue_p50_ms: Option<f64>,
    pub queue_p95_ms: Option<f64>,
    /// The queue held across the span, ms: the median of the windows' fastest delays
    /// above the floor (twin/delay.rs `sustained_queue`); None with too few samples.
    pub queue_sustained_ms: Option<f64>,
    /// The one-way delay over time, at most `twin::MAX_DELAY_BINS` bins.
    pub delay_series: Vec<DelayBin>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DelayStats {
    pub min_ms: f64,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
}

/// The one-way delays of the datagrams sent in [t, t + width), merged view seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DelayBin {
    pub t: f64,
    pub width: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub count: u32,
}

/// Where a stall happened (twin/placement.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Place {
    /// The sender did not send: its own capture shows the gap, and nothing it waited
    /// for came late.
    SenderHost,
    /// Sent on time, arrived late or was lost; or the answer that released the sender
    /// spent the time on the way.
    Network,
    /// Arrived on time, answered late (a delayed ACK, a slow application, a closed
    /// window).
    ReceiverHost,
    /// The other capture does not cover it, or the datagrams that would tell are in
    /// one capture only.
    Unknown,
}

/// One stall of either capture's report, placed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PlacedStall {
    /// Which capture's report listed it, by the pair's roles: `sender-side` (near the
    /// data sender) or `receiver-side`. For a return-direction stall the sender-side
    /// capture is near that direction's receiver: label it per direction.
    #[serde(deserialize_with = "capture_word")]
    pub capture: Word,
    /// The stall's direction in the pair: 0 forward (data), 1 return.
    pub direction: u8,
    /// As in that capture's report: start (s since its first packet), duration (s),
    /// cause, frames either side.
    pub start: f64,
    pub duration: f64,
    pub cause: crate::analysis::StallCause,
    pub frame_before: u32,
    pub frame_after: u32,
    /// Start on the merged view's axis (sender-side clock), s.
    pub at: f64,
    pub place: Place,
    /// The gap's time by where it went, ms: the stalled direction's sender, the two
    /// paths above their floors, its receiver.
    pub sender_host_ms: Option<f64>,
    pub network_ms: Option<f64>,
    pub receiver_host_ms: Option<f64>,
    pub why: String,
}

/// One gap of the connection, counted once (docs/ANALYSIS.md `twin.distinctStalls`):
/// a stall of either capture's report and, when the other capture listed the same gap,
/// that one too.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DistinctStall {
    /// 0 forward (data), 1 return.
    pub direction: u8,
    /// Start on the merged axis (s) and duration (s) of the row at the capture near the
    /// stalled direction's sender when it listed the gap, else of the other row.
    pub at: f64,
    pub duration: f64,
    /// Where the gap happened: the rows' place when they agree, else that same row's.
    pub place: Place,
    /// The rows of `stalls` it stands for, `[frameBefore, frameAfter]` by capture:
    /// `[sender-side, receiver-side]` (None: that capture did not list it).
    pub frames: [Option<[u32; 2]>; 2],
    /// How two rows were tied into one: `same-datagram`, `same-sequence`, `overlap`, or
    /// `one-capture` (one row).
    #[serde(deserialize_with = "tied_word")]
    pub tied_by: Word,
    /// The rows were placed alike (always true for one row).
    pub places_agree: bool,
    /// The other direction's rows this same stall made, `[sender-side, receiver-side]`
    /// like `frames` (None: none): a host that took its time before answering a
    /// message (turn-taking) stalled its answer (this stall, in its sending host) and
    /// the peer's next message, which waited on that answer (placed in its receiving
    /// host, the same host): one pause, counted once (twin/placement/distinct.rs).
    /// Left out when None: a link carries it only where it says something.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub peer_wait_frames: Option<[Option<[u32; 2]>; 2]>,
}

/// The round trip cut at the two points (twin/split.rs), medians, ms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RttSplit {
    /// The data sender's turnaround: a datagram of the receiver reaches the sender-side
    /// capture → the sender's first datagram echoing its TSval leaves (None without
    /// TCP timestamps).
    pub sender_host_ms: Option<f64>,
    pub forward_path_ms: Option<f64>,
    /// A data segment reaches the receiver-side capture → the first ACK covering it
    /// leaves (first transmissions only, Karn).
    pub receiver_host_ms: Option<f64>,
    pub return_path_ms: Option<f64>,
    /// The two paths' split is known to ± this (the clock's uncertainty); their sum is
    /// exact.
    pub path_uncertainty_ms: f64,
}

/// The data sender's bytes sent, not yet acknowledged (SND.NXT − SND.UNA) from its own
/// capture, beside what the receiver-side capture alone estimated
/// (analysis/timing/sender_flight.rs). Not what is in the network: during SACK
/// recovery the sender knows part of it arrived or was lost (RFC 6675's pipe is less).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct InFlightCheck {
    /// Data segments found in both captures and compared.
    pub compared: u64,
    pub sender_median_bytes: Option<f64>,
    pub sender_max_bytes: Option<f64>,
    pub receiver_estimate_median_bytes: Option<f64>,
    pub receiver_estimate_max_bytes: Option<f64>,
    /// Segments where the estimate is within 10 % of the sender's value.
    pub within_ten_percent: u64,
}

/// One datagram of note.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TwinEvent {
    /// Merged view seconds.
    pub t: f64,
    pub direction: u8,
    /// `lost-between`, `reordered`, `duplicated`, `not-seen-at-sender-side`,
    /// `not-seen-at-receiver-side`, `undecided`.
    #[serde(deserialize_with = "event_word")]
    pub kind: Word,
    /// Frame numbers in the sender-side and receiver-side captures (None: not there).
    pub sender_side_frame: Option<u32>,
    pub receiver_side_frame: Option<u32>,
    /// Sequence number relative to the direction's first byte, and payload bytes.
    pub seq: i64,
    pub len: u32,
    /// The capture whose time `t` is, by role: `sender-side` or `receiver-side`.
    #[serde(deserialize_with = "capture_word")]
    pub capture: Word,
    /// A return-direction datagram's acknowledgment number, relative to the data
    /// direction's first byte (where it sits on the time-sequence chart); None forward.
    pub ack: Option<i64>,
    /// Seen at one capture only: when it was due at the other, merged view seconds
    /// (twin/sequence.rs `due_times`); None when seen at both.
    pub due: Option<f64>,
}

// Read back (a share link's merged view, share/twin.rs): the words above are a closed
// set, so a link's word is one of them or the link is refused; the engine writes no other
// (wasm/tests/share_twin.rs reads back every recording's pairs).

/// A word of a closed set. Named, not written `&'static str`, because serde's derive
/// would borrow a `&str` field from the input (`'de: 'static`), which no link can give.
pub type Word = &'static str;

/// `TwinPair::queued`'s words.
pub const QUEUED_WORDS: [&str; 5] = ["forward", "return", "both", "neither", "too-few-samples"];
/// `PlacedStall::capture`'s words.
pub const CAPTURE_WORDS: [&str; 2] = ["sender-side", "receiver-side"];
/// `TwinEvent::kind`'s words.
pub const EVENT_WORDS: [&str; 6] = ["lost-between", "reordered", "duplicated", "not-seen-at-sender-side", "not-seen-at-receiver-side", "undecided"];

fn word<'de, D: Deserializer<'de>>(d: D, words: &'static [&'static str]) -> Result<&'static str, D::Error> {
    let text = String::deserialize(d)?;
    words.iter().copied().find(|w| *w == text).ok_or_else(|| serde::de::Error::unknown_variant(&text, words))
}

fn queued_word<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    word(d, &QUEUED_WORDS)
}

fn capture_word<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    word(d, &CAPTURE_WORDS)
}

fn tied_word<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    word(d, &super::placement::TIED_WORDS)
}

fn event_word<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    word(d, &EVENT_WORDS)
}
