//! Two vantage points (issue 44): the same transfer captured near each of its two hosts,
//! merged into one story (docs/ANALYSIS.md "Two vantage points").
//!
//! Pure, like the rest of the core: two captures in (their bytes, or their decoded
//! segments), a [`TwinReport`] out. Each capture's own analysis stays what it is (the
//! normal pipeline, `session::analyze_bytes`); the merge reads its stalls and bytes in
//! flight, and walks both captures twice more:
//! 1. `collect.rs` `fingerprint`: per connection, its 4-tuple, the ISNs of its SYN and
//!    SYN/ACK, and a sketch of its datagrams (sequence, ACK, length, TCP timestamps);
//!    `pairing.rs` finds each connection in both captures from them, through a NAT too;
//! 2. `collect.rs` `collect`: the paired connections' datagrams, at most
//!    [`MAX_DATAGRAMS`] per capture per connection (a larger pair is refused with its
//!    size; slice it first), so memory is bounded by that cap, not by the file;
//! then per pair (`pair.rs`): the same datagram at both points (`matching.rs`), which
//! capture is near which host and the two clocks (`clock.rs`), what happened to each
//! datagram between the points (`fate.rs`), the one-way delays (`delay.rs`), where each
//! stall happened (`placement.rs`), the round trip cut in four and the sender's bytes in
//! flight (`split.rs`), and the data direction's time-sequence series as each capture
//! saw it (`sequence.rs`).
//!
//! Nothing depends on the order of the two inputs: which capture is near which host is
//! read from the datagrams (one-way transit is never negative), and the report names
//! sides by role. Clocks are never assumed synchronised.

mod clock;
mod collect;
mod delay;
mod fate;
mod interface_split;
pub mod interfaces;
mod matching;
mod pair;
mod pairing;
mod pcapng_blocks;
mod placement;
pub mod report;
mod sequence;
mod split;
mod stream;

pub use report::*;
pub use sequence::{TwinAckPoint, TwinSequence, TwinSequenceBin, TwinSequenceSide};
pub use stream::{TwinStream, MAX_TWIN_CAPTURE_BYTES};
pub use interfaces::{merge_interfaces, InterfaceProbe, InterfaceSplit, InterfaceTwin, SplitFiles, VantageInterfaces};

use crate::analysis::{Analysis, AnalysisOptions, Analyzer};
use crate::decode::{CaptureDecoder, Decoded, TcpSegment};
use crate::error::DecodeError;
use crate::session::analyze_bytes;

/// Datagrams the merge keeps of one connection in one capture (48 bytes each, so
/// about 48 MB per capture at the cap). A pair with more in either capture is
/// refused, with its size in the message.
pub const MAX_DATAGRAMS: u64 = 1_000_000;
/// Connections of a capture whose datagram sketches are kept for pairing (about 600
/// bytes each); beyond, a connection pairs by its 4-tuple and ISNs only. A note says so.
pub const MAX_FINGERPRINTED: usize = 50_000;
/// Connections of a capture that can pair at all (about 100 bytes each beyond the
/// sketched ones); later ones are not merged. A note says so.
pub const MAX_CONNECTIONS: usize = 200_000;
/// Pairs merged at most; further pairs are listed as refused.
pub const MAX_PAIRS: usize = 64;
/// Connection ids listed in `TwinReport::unpaired`, per capture.
pub const MAX_LISTED: usize = 1000;
/// Datagrams of note listed per pair (`TwinPair::events`); the counts count them all.
pub const MAX_EVENTS: usize = 10_000;
/// Bins of each one-way delay series.
pub const MAX_DELAY_BINS: usize = 2000;
/// Bins of each side's time-sequence series (`TwinPair::sequence`): about a chart's
/// width in pixels, so a bin is a pixel column at most.
pub const MAX_SEQUENCE_BINS: usize = 1000;
/// A capture shorter than this gives no drift: at 50 ppm, 5 s moves the clock by
/// 0.25 ms, about the accuracy asked of the offset.
pub const DRIFT_MIN_SPAN_S: f64 = 5.0;

/// One packet of a capture as the merge walks it: a TCP segment, or any other packet
/// (whose time still counts for the capture's span).
pub enum Walked<'a> {
    Tcp(&'a TcpSegment),
    Other(i64),
}

/// A capture the merge can walk, in file order, as often as it needs.
pub trait Recording {
    /// Hands every packet to `f`; a fatal decode error ends the walk and is returned
    /// (everything before it was handed over, as the analysis keeps it).
    fn walk(&self, f: &mut dyn FnMut(Walked<'_>)) -> Option<DecodeError>;
}

/// A whole capture file in memory (pcap, pcapng), decoded by the one decoder.
pub struct CaptureBytes<'a>(pub &'a [u8]);

impl Recording for CaptureBytes<'_> {
    fn walk(&self, f: &mut dyn FnMut(Walked<'_>)) -> Option<DecodeError> {
        let mut decoder = CaptureDecoder::new();
        let mut each = |p: Decoded| match &p {
            Decoded::Tcp(s) => f(Walked::Tcp(s)),
            Decoded::Other { ts_ns, .. } => f(Walked::Other(*ts_ns)),
        };
        for chunk in self.0.chunks(1 << 20) {
            if let Err(e) = decoder.push(chunk, &mut each) {
                return Some(e);
            }
        }
        decoder.finish().err()
    }
}

/// Decoded segments (from any decoder), in file order; `packet_index` numbers frames.
pub struct Segments<'a>(pub &'a [TcpSegment]);

impl Recording for Segments<'_> {
    fn walk(&self, f: &mut dyn FnMut(Walked<'_>)) -> Option<DecodeError> {
        self.0.iter().for_each(|s| f(Walked::Tcp(s)));
        None
    }
}

/// Merges two capture files held in memory: each is analysed by the normal pipeline
/// (`session::analyze_bytes`), then merged ([`merge`]).
pub fn merge_captures(a: &[u8], b: &[u8], options: AnalysisOptions) -> TwinReport {
    if a == b {
        return same_file();
    }
    let sessions = [analyze_bytes(a, options, 1 << 20), analyze_bytes(b, options, 1 << 20)];
    match (sessions[0].analysis(), sessions[1].analysis()) {
        (Some(x), Some(y)) => merge([&CaptureBytes(a), &CaptureBytes(b)], [x, y]),
        _ => refused("unreadable", "A capture could not be analysed.".into()),
    }
}

/// Merges two decoded segment streams: each is analysed as the session would (time
/// order, times from its first segment), then merged ([`merge`]).
pub fn merge_segments(a: &[TcpSegment], b: &[TcpSegment], options: AnalysisOptions) -> TwinReport {
    let analyses = [analyse_segments(a, options), analyse_segments(b, options)];
    merge([&Segments(a), &Segments(b)], [&analyses[0], &analyses[1]])
}

/// The normal analysis of decoded segments, in time order (the session's timeline
/// sorts the same way), times since the earliest.
pub fn analyse_segments(segments: &[TcpSegment], options: AnalysisOptions) -> Analysis {
    let mut order: Vec<&TcpSegment> = segments.iter().collect();
    order.sort_by_key(|s| (s.ts_ns, s.packet_index));
    let mut analyzer = Analyzer::new(options);
    let t0 = order.first().map_or(0, |s| s.ts_ns);
    for s in order {
        analyzer.push(s, t0);
    }
    analyzer.finish()
}

/// Merges two captures given their normal analyses (`analyses[k]` of `recordings[k]`,
/// as the page and the CLI already hold them).
pub fn merge(recordings: [&dyn Recording; 2], analyses: [&Analysis; 2]) -> TwinReport {
    let prints = [collect::fingerprint(recordings[0]), collect::fingerprint(recordings[1])];
    let mut notes = Vec::new();
    for (k, p) in prints.iter().enumerate() {
        if let Some(e) = &p.error {
            notes.push(format!("Capture {} ends with an error (merged up to it): {}", k + 1, e.message));
        }
        if p.total > MAX_FINGERPRINTED as u64 {
            let beyond = if p.total > MAX_CONNECTIONS as u64 { format!(", up to the {MAX_CONNECTIONS}th by their 4-tuple and ISNs, and later ones not at all") } else { ", later ones by their 4-tuple and ISNs only".into() };
            notes.push(format!("Capture {} holds {} connections: the first {MAX_FINGERPRINTED} pair by their datagrams too{beyond}.", k + 1, p.total));
        }
    }
    if prints.iter().any(|p| p.conns.is_empty()) {
        let which = if prints[0].conns.is_empty() { 1 } else { 2 };
        return TwinReport { notes, ..refused("unreadable", format!("Capture {which} holds no TCP connection.")) };
    }
    let found = pairing::pair(&prints);
    if found.pairs.is_empty() {
        return TwinReport { notes, ..refused("no-match", found.reason) };
    }
    let mut report = pair::merge_pairs(recordings, analyses, &prints, &found.pairs);
    report.unpaired = found.unpaired;
    report.notes.splice(0..0, notes);
    // Nothing merged: the report says why at the top, as for no pair at all, so that a
    // reader of `refusal` alone (the CLI's exit status) is not told of a merge.
    let reasons: Vec<&str> = report.pairs.iter().filter_map(|p| p.refused.as_deref()).collect();
    if reasons.len() == report.pairs.len() {
        report.refusal = Some(if reasons.iter().all(|r| r.starts_with(pair::SAME_POINT)) {
            Refusal { kind: "same-capture", message: format!("{} Give the capture taken at the other end.", pair::SAME_POINT) }
        } else {
            let n = reasons.len();
            let first = if n == 1 { String::new() } else { format!("None of the {n} connections found in both captures could be merged; the first: ") };
            Refusal { kind: "not-merged", message: format!("{first}{}", reasons[0]) }
        });
    }
    report
}

/// Two inputs with identical bytes: one vantage point given twice.
fn same_file() -> TwinReport {
    refused("same-capture", "The two captures are the same file (identical bytes): one vantage point, not two. Give the capture taken at the other end.".into())
}

fn refused(kind: &'static str, message: String) -> TwinReport {
    TwinReport { refusal: Some(Refusal { kind, message }), ..TwinReport::default() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ts_rs::{Config, TS};

    /// The report crosses the boundary as JSON with generated TypeScript types, like
    /// the capture report (view/ts_types.rs): the declarations exist and are camelCase.
    #[test]
    fn the_report_has_typescript_declarations() {
        let cfg = Config::default().with_large_int("number");
        let report = TwinReport::decl(&cfg);
        assert!(report.contains("pairs: Array<TwinPair>"), "{report}");
        let pair = TwinPair::decl(&cfg);
        for field in ["matchedBy: MatchedBy", "senderSide: SideRef", "clock: TwinClock | null", "rttSplit: RttSplit | null", "inFlight: InFlightCheck | null", "sequence: TwinSequence | null"] {
            assert!(pair.contains(field), "{field} in {pair}");
        }
        assert!(MatchedBy::decl(&cfg).contains(r#""four-tuple" | "isn" | "timestamps" | "segments""#));
        assert!(Place::decl(&cfg).contains(r#""sender-host" | "network" | "receiver-host" | "unknown""#));
        for d in [TwinClock::decl(&cfg), TwinDirection::decl(&cfg), PlacedStall::decl(&cfg), DistinctStall::decl(&cfg), TwinEvent::decl(&cfg), DelayBin::decl(&cfg), DelayStats::decl(&cfg), Refusal::decl(&cfg), TwinSequence::decl(&cfg), TwinSequenceSide::decl(&cfg), TwinSequenceBin::decl(&cfg), TwinAckPoint::decl(&cfg)] {
            let fields = d.lines().filter_map(|l| l.split_once(':').map(|(name, _)| name.trim())).filter(|n| !n.contains(' ') && !n.starts_with('*'));
            assert!(fields.clone().all(|n| !n.contains('_')), "snake_case field in {d}");
        }
    }

    #[test]
    fn queued_direction_needs_a_millisecond_and_twice_the_other() {
        assert_eq!(delay::queued_direction([Some(45.8), Some(4.5)]), "forward");
        assert_eq!(delay::queued_direction([Some(0.7), Some(0.2)]), "neither");
        assert_eq!(delay::queued_direction([Some(3.0), Some(2.0)]), "both");
        assert_eq!(delay::queued_direction([Some(0.0), Some(2.0)]), "return");
        assert_eq!(delay::queued_direction([None, Some(2.0)]), "too-few-samples");
    }

    /// A few late datagrams set a p95, not a sustained queue: 400 datagrams on a 10 ms
    /// floor, every 20th 3 ms late, read 0 ms sustained; the same with a 5 ms standing
    /// queue all along, 5 ms; 99 datagrams (fewer than 20 windows × 5) cannot tell.
    #[test]
    fn a_sustained_queue_rises_in_most_windows() {
        let late: Vec<(f64, f64)> = (0..400).map(|k| (k as f64 * 1e6, if k % 20 == 7 { 13e6 } else { 10e6 })).collect();
        assert_eq!(delay::sustained_queue(&late), Some(0.0));
        let standing: Vec<(f64, f64)> = (0..400).map(|k| (k as f64 * 1e6, if k == 0 { 10e6 } else { 15e6 })).collect();
        assert_eq!(delay::sustained_queue(&standing), Some(5.0));
        assert_eq!(delay::sustained_queue(&late[..99]), None);
    }

    /// Sides are told from transit alone: capture 0 sees host X's datagrams at u = θ + τ
    /// ≥ θ and its peer's at u ≤ θ; with capture 0 near X, every window votes for it.
    #[test]
    fn sides_follow_the_sign_of_transit_whatever_the_offset() {
        let at = |dir: u8, t: i64, u: i64| clock::Anchor { dir, t: [t, t + u] };
        for theta in [-40_000_000, 0, 40_000_000] {
            let anchors: Vec<_> = (0..100).flat_map(|k| [at(0, k * 20_000_000, theta + 10_000_000), at(1, k * 20_000_000 + 1, theta - 8_000_000)]).collect();
            assert!(matches!(clock::orient(&anchors, [None, None]), clock::Sides::Told(0, _)));
            let swapped: Vec<_> = anchors.iter().map(|a| clock::Anchor { dir: a.dir, t: [a.t[1], a.t[0]] }).collect();
            assert!(matches!(clock::orient(&swapped, [None, None]), clock::Sides::Told(1, _)));
            let c = clock::estimate(&anchors, 0, 0);
            // (10 − (−8)) ... θ + (10 − 8) / 2 ± 9 ms.
            assert_eq!((c.theta0, c.uncertainty), (theta as f64 + 1e6, 9e6));
        }
        let same: Vec<_> = (0..10).map(|k| at((k % 2) as u8, k * 1000, 5_000_000)).collect();
        assert_eq!(clock::orient(&same, [None, None]), clock::Sides::SamePoint);
    }
}
