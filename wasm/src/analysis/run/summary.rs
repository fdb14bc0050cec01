//! End of capture: per-connection summaries computed from the columns (so the
//! numbers in the JSON and the charts cannot disagree), then stalls and the limit
//! diagnosis from their own modules.

use crate::analysis::track::conn::{Conn, Side};
use crate::analysis::track::totals::Totals;
use crate::analysis::rows::columns::{flag_bits as fb, ConnectionColumns, PacketColumns};
use crate::analysis::track::connections::endpoint_name;
use crate::analysis::rows::store::ConnStore;
use crate::analysis::track::window::{self, Effective, NOT_USED};
use crate::analysis::timing::round_trips::{times_path, RoundTripRule, EXCLUDED, FOLLOWED};
use crate::analysis::verdict::diagnosis_shares::KeptSpans;
use crate::analysis::stalls::delayed_ack;
use crate::analysis::verdict::diagnosis;
use crate::analysis::run::opening_view;
use crate::analysis::loss::retrans_kinds;
use crate::analysis::stalls;
use crate::analysis::rates::throughput;
use crate::analysis::timing::vantage;
use crate::analysis::capture::options::AnalysisOptions;
use crate::analysis::capture::facts::CaptureFacts;
use crate::analysis::report::ConnectionSummary;
use crate::analysis::report::DirectionSummary;
use crate::analysis::report::RttSummary;

mod steps;
use crate::analysis::stalls::later_rules::{LaterInputs, LaterRules};
use steps::{active_mean_bps, apply_ecn, bound_unknown_scales, finish_trackers, lags_and_threshold, judge_ending, judge_stalls, path_rtt, round_trip_summaries};

/// Summary of one connection, its finished compact store and, for a connection of at
/// least [`KEEP_SPANS_ROWS`] stored packets, the data direction's window-limited spans
/// (diagnosis_shares::KeptSpans). Totals were counted as the packets came (`Totals`);
/// only the stall and diagnosis passes (whose API is the public `PacketColumns`) get a
/// materialized copy, dropped before the next connection. `own_tick_ns`: the tick of
/// the connection's own clock when coarser than the capture's (clock.rs `own_tick_ns`).
pub(crate) fn summarize(id: u32, conn: Conn, options: &AnalysisOptions, (capture, hosts): (&CaptureFacts, &crate::analysis::capture::capture_host::CaptureHosts), own_tick_ns: Option<i64>, scratch: &mut Scratch, icmp: Vec<(f64, crate::decode::icmp::IcmpQuote)>) -> (ConnectionSummary, ConnStore, Option<KeptSpans>) {
    let Conn { endpoints, mut sides, handshake, offers, first_t, last_t, rows, totals, unstored, process, ecn, closing, senders, .. } = conn;
    let mut store = rows.finish();
    let names = [endpoint_name(endpoints[0].0, endpoints[0].1), endpoint_name(endpoints[1].0, endpoints[1].1)];
    let summary_handshake = offers.report(&names);
    let duration = if last_t > first_t { last_t - first_t } else { 0.0 };
    // The tick of the clock that stamped this connection (clock.rs `own_tick_ns`), for every rule that reads one.
    let tick = own_tick_ns.map_or(0.0, |ns| ns as f64 / 1e9).max(capture.timestamp_resolution_s());
    let minima = RttMinima::collect(&store, tick);
    let packets = totals[0].packets + totals[1].packets;
    let data_direction = if totals[1].payload > totals[0].payload { 1 } else { 0 };
    let at_host = hosts.of_connection([endpoints[0].0, endpoints[1].0]);
    let (parts, local, mut path) = path_rtt(&handshake, &minima, &sides, data_direction, tick, at_host);
    let bin = throughput::auto_bin(duration, tick, options.bin_seconds);
    let [t0, t1] = totals;
    let rtts = round_trip_summaries(&store, &parts, path.vantage, data_direction, tick, scratch);
    let dir = |d: usize, t: Totals| {
        let (me, peer) = (&sides[d], &sides[1 - d]);
        direction_summary(t, d as u8, me, peer, &names, duration, rtts[d])
    };
    let mut directions = [dir(0, t0), dir(1, t1)];
    // The CE-marked data segments' frame numbers (ecn.rs), put on their rows below.
    let ce_frames = ecn.map(|counts| apply_ecn(counts, &mut directions, &offers)).unwrap_or_default();
    // Each direction's sender's lag (sender_view.rs), used for the retransmission
    // kinds, the scale bound and the stalls, and the stall threshold.
    let (lags, threshold_s) = lags_and_threshold(&mut path, &parts, &store, data_direction, options.stall_threshold_ms, tick);
    // Flags known only now, put on the rows before the passes below read them (retrans_kinds.rs, pmtu_kind.rs, capture_loss.rs).
    let silences = [1, 0].map(|s: usize| sides[s].clock.as_mut().and_then(|c| std::mem::take(&mut c.peer_silences).finish())); // host h's, seen by side 1 - h
    let (capture_loss, recoveries, far_bounds, sacked) = finish_trackers(&mut sides, &mut directions, &mut store, &path, &parts, lags, data_direction, tick, &offers, (&icmp, &endpoints));
    // What the later stall rules read beyond the rows (stalls/later_rules.rs), kept for the view.
    let later_inputs = LaterInputs { recoveries, far_bounds, local, payload_only: capture.payload_only(), silences };
    let later = LaterRules { inputs: Some(&later_inputs), vantage: path.vantage, path_rtt_known: path.rtt.is_some(), path_rtt: path.rtt, capture_end: last_t, data_direction };
    // Transient columns for the stall, throughput and diagnosis passes: only the packet rows (into
    // the scratch columns); the diagnosis reads the RTT samples from the store (columns::RttSource).
    let mut cols = ConnectionColumns { packets: std::mem::take(&mut scratch.packets), ..Default::default() };
    store.fill_packet_columns(&mut cols.packets, false); steps::mark_needless_at_sender(&mut cols.packets, path.vantage, data_direction, path.rtt); // re-sends the ACKs show needless at the sender (needless_resends.rs): these rows only, the counters stay the kernel's
    // Rows by frame number (rows are in capture order: frames ascend); a frame beyond
    // the store's cap has no row.
    store.mark_ce_rows(ce_frames.iter().filter_map(|f| cols.packets.frame.binary_search(f).ok().map(|r| r as u32)));
    // Each sender's MSS estimate, found once (a pass over every row) for the scale
    // bound and the stall and share passes below.
    let mut mss: [Option<f64>; 2] = [None; 2];
    bound_unknown_scales(&mut directions, &cols.packets, lags, &mut mss);
    window::apply_inferred_scale(&mut cols.packets, [directions[0].inferred_scale(), directions[1].inferred_scale()]);
    // The senders' facts the share pass judges by (stalls::SenderFacts), found by the
    // stall pass in the windows as now scaled; only for a direction that carried payload.
    let mut facts: [Option<stalls::SenderFacts>; 2] = [None; 2];
    let full_segment = [0, 1].map(|d| delayed_ack::full_segment(&summary_handshake, &names[d], &cols.packets, d as u8, sides[d].max_len));
    // Whether both directions were captured (one_direction.rs): the rate's clock below
    // and the diagnosis need it.
    let one_direction = crate::analysis::verdict::one_direction::judge_counts([directions[0].packets, directions[1].packets], &cols.packets);
    // Whether each sender's receiver announced (or had no) window scale (stalls::SenderFacts::of).
    let scale_known = [0, 1].map(|d| !directions[1 - d].window_scale_unknown);
    for (d, ds) in directions.iter_mut().enumerate() {
        // Judged in this direction's sender's time (sender_view.rs).
        let lag = lags[d];
        ds.sender_lag_ms = lag * 1000.0;
        // A stall is a gap between two of the sender's payload-carrying segments
        // (stalls/gaps.rs): a direction that carried no payload (a download's ACKs) has
        // none, and its two passes over every row were a tenth of the finish.
        if ds.payload_bytes > 0 {
            let m = mss[d].unwrap_or_else(|| stalls::mss_estimate(&cols.packets, d as u8));
            facts[d] = Some(judge_stalls(ds, d, &cols.packets, m, lag, threshold_s, &path, full_segment[d], scale_known[d], &later, tick));
        }
        // Every packet is in the columns: bins of the connection's own size. The
        // totals' bins (`Totals::throughput`) were fed the same times and lengths, so
        // at the same bin size they are already this summary: no pass needed.
        if unstored == 0 && ds.throughput.bin_seconds != bin {
            ds.throughput = throughput::summarize(&cols.packets, d as u8, bin, duration);
        }
        // Without payload there is no data segment and the active mean is the mean.
        if ds.payload_bytes > 0 {
            ds.throughput.active_mean_bps = active_mean_bps(ds, d, &cols.packets, lag, &path, one_direction.is_none());
        }
    }
    // How it ended (ending.rs), before the diagnosis, which may say it; a second sender (two_senders.rs).
    let (ending, two_senders) = judge_ending(&handshake, (closing, senders, id), &sides, sacked, &names, &directions, data_direction, (unstored == 0).then_some(&cols.packets), (threshold_s, later_inputs.payload_only));
    let (start, end) = (if first_t.is_nan() { 0.0 } else { first_t }, if last_t.is_nan() { 0.0 } else { last_t });
    // The range the charts open on (opening_view.rs), from every stored row and the stalls.
    let stall_spans = directions.iter().flat_map(|d| d.stalls.iter().map(|s| (s.start, s.start + s.duration)));
    let data_view = opening_view::of(&cols.packets, unstored > 0, start, end, stall_spans);
    directions.iter_mut().for_each(|d| d.stall_seconds = crate::analysis::stalls::cause::total_seconds(&d.stalls));
    let mut summary = ConnectionSummary {
        id,
        endpoints: names,
        handshake_seen: offers.seen(),
        any_syn: offers.any_syn(),
        handshake: summary_handshake,
        capture_loss,
        packets,
        start,
        end,
        data_view,
        data_direction,
        vantage: path.vantage,
        path_rtt_ms: path.rtt.map(|s| s * 1000.0),
        path_rtt_method: path.method,
        sender_lag_ms: directions[data_direction as usize].sender_lag_ms,
        base_rtt_ms: None, flight_rtt_ms: [None; 2], ttl: [sides[0].ttl, sides[1].ttl], // ttl: the same-path test (latency_under_load.rs)
        stall_threshold_ms: threshold_s * 1000.0,
        clock_tick_ms: own_tick_ns.map(|ns| ns as f64 / 1e6),
        directions: Box::new(directions),
        diagnosis: Box::default(),
        ending,
        process_index: process,
        stall_inputs: later_inputs.boxed(),
        process: None,
        mptcp: None,
        icmp: None,
        two_senders,
    };
    let mut kept = (store.packet_count() >= KEEP_SPANS_ROWS).then(|| (0, Vec::new(), 0.0));
    let data_facts = facts[data_direction as usize].as_ref();
    crate::analysis::verdict::icmp_errors::attach(&mut summary, &icmp, [sides[0].seq, sides[1].seq], &endpoints, &cols.packets);
    *summary.diagnosis = diagnosis::diagnose_keeping_spans(&summary, diagnosis::Rows { packets: &cols.packets, rtt: &store, sacks: &store }, tick, kept.as_mut(), data_facts, one_direction);
    crate::analysis::verdict::icmp_errors::tell(&mut summary); summary.flight_rtt_ms = diagnosis::flight_rtts(&summary, &cols.packets, &store, tick); // then latency under load's control
    scratch.keep_packets(cols.packets);
    let kept = kept.map(|(dir, spans, active)| KeptSpans { connection: id as usize, dir, spans, active });
    (summary, store, kept)
}

/// Stored packets from which a connection keeps its window-limited spans: below, the
/// view rebuilds them in a few milliseconds, and 10^5 small connections keep nothing.
pub const KEEP_SPANS_ROWS: usize = 1 << 13;

/// Buffers `summarize` reuses from one connection to the next: at 100 k short
/// connections, allocating and freeing a dozen vectors each was a good part of the
/// finish (issue 16). Kept only while small, so that one large connection's columns
/// are not held through the rest of the capture.
#[derive(Default)]
pub(crate) struct Scratch {
    packets: PacketColumns,
    trusted: [Vec<f64>; 2],
}

/// Rows whose columns a `Scratch` keeps for the next connection (≈ 3 MB).
const SCRATCH_KEEP_ROWS: usize = 1 << 16;

impl Scratch {
    fn keep_packets(&mut self, packets: PacketColumns) {
        if packets.t.capacity() <= SCRATCH_KEEP_ROWS {
            self.packets = packets;
        }
    }

    fn keep_samples(&mut self, trusted: [Vec<f64>; 2]) {
        if trusted.iter().all(|v| v.capacity() <= SCRATCH_KEEP_ROWS) {
            self.trusted = trusted;
        }
    }
}

/// How late direction `d`'s sender learns of what the capture sees (sender_view.rs):
/// the part of the round trip towards that sender, or 0 when that part is local
/// (at most vantage.rs's LOCAL_SHARE of the path, or a host's turnaround by `Parts::host_turnaround`:
/// a capture at the sender).
fn sender_lag(parts: &vantage::Parts, d: usize, path_rtt: Option<f64>) -> f64 {
    match (parts.toward[1 - d], path_rtt) {
        (Some(lag), Some(rtt)) if lag > vantage::LOCAL_SHARE * rtt && !parts.host_turnaround(1 - d) => lag,
        _ => 0.0,
    }
}

/// The path's base RTT (docs/ANALYSIS.md "Base RTT"): for every connection, the
/// smallest path RTT of the connections on its path (verdict/diagnosis/
/// latency_under_load.rs: same hosts at the same hop counts). A small flow that only ran while bulk
/// flows filled the queue sees 265 ms where the path's own round trip, seen by
/// another flow of the same capture, is 20 ms: latency under load is measured
/// against the base.
pub(crate) fn set_base_rtts(conns: &mut [ConnectionSummary]) {
    diagnosis::set_base_rtts(conns);
}

/// The smallest trusted sample of each direction, raw (one part of the round trip),
/// for the path RTT's parts (vantage.rs): one walk of the store's RTT rows.
struct RttMinima {
    /// Trusted samples, those of them below one tick, the smallest of all and the
    /// smallest of at least one tick (s).
    trusted: [u64; 2],
    below_tick: [u64; 2],
    min: [f64; 2],
    min_from_tick: [f64; 2],
}

impl RttMinima {
    fn collect(store: &ConnStore, tick: f64) -> RttMinima {
        let mut m = RttMinima { trusted: [0; 2], below_tick: [0; 2], min: [f64::INFINITY; 2], min_from_tick: [f64::INFINITY; 2] };
        store.for_each_rtt(|_, dir, ns, kind| {
            let s = ns as f64 / 1e9;
            let d = dir as usize & 1;
            if kind & EXCLUDED != 0 {
                return;
            }
            m.trusted[d] += 1;
            m.min[d] = m.min[d].min(s);
            if s < tick {
                m.below_tick[d] += 1;
            } else {
                m.min_from_tick[d] = m.min_from_tick[d].min(s);
            }
        });
        m
    }

    /// Share of each direction's trusted samples below one tick (1 without any).
    fn below_tick_share(&self) -> [f64; 2] {
        [0, 1].map(|d| if self.trusted[d] == 0 { 1.0 } else { self.below_tick[d] as f64 / self.trusted[d] as f64 })
    }

    /// Smallest trusted sample of each direction. With a clock coarser than 1 ms a
    /// sample of 0 only says "less than a tick" and a 10 ms round trip reads 0, 10 or
    /// 20 ms: the part is 0 (the capturing host's own) when most samples are below a
    /// tick, else the smallest sample of at least one tick.
    fn min_s(&self, tick: f64) -> [Option<f64>; 2] {
        [0, 1].map(|d| {
            if self.trusted[d] == 0 {
                return None;
            }
            if tick <= 0.001 {
                return Some(self.min[d]);
            }
            if 2 * self.below_tick[d] >= self.trusted[d] {
                Some(0.0)
            } else {
                Some(self.min_from_tick[d])
            }
        })
    }
}

/// Each direction's RTT statistics over its round trips (round_trips.rs: the one rule
/// the chart and the diagnosis use too, samples below a tick included), ms.
/// `reuse`: empty or previously used vectors, handed back with the round trips.
fn rtt_summaries(store: &ConnStore, rule: &RoundTripRule, reuse: &mut [Vec<f64>; 2]) -> [RttSummary; 2] {
    reuse.iter_mut().for_each(Vec::clear);
    let (mut excluded, mut followed) = ([0u64; 2], [0u64; 2]);
    // The round trips that time the path (round_trips.rs `times_path`), for the queue.
    let mut path: [Vec<f64>; 2] = Default::default();
    rule.for_each(store, &mut |_, dir, measured_ms, round_trip_ms, kind| {
        let d = dir as usize & 1;
        if kind & EXCLUDED != 0 {
            excluded[d] += 1;
        } else {
            reuse[d].push(round_trip_ms);
            followed[d] += u64::from(kind & FOLLOWED != 0);
            // The measured part's minimum: the part towards this direction's receiver.
            if times_path(kind, measured_ms, rule.offset_ms[1 - d]) {
                path[d].push(round_trip_ms);
            }
        }
    });
    [0, 1].map(|d| {
        let p = &mut path[d];
        p.sort_by(|a, b| a.total_cmp(b));
        let path_median_ms = percentile(p, 0.5);
        let v = &mut reuse[d];
        v.sort_by(|a, b| a.total_cmp(b));
        let q = |p: f64| percentile(v, p);
        RttSummary {
            path_samples: p.len() as u64,
            path_median_ms,
            min_ms: v.first().copied(),
            median_ms: q(0.5),
            p95_ms: q(0.95),
            max_ms: v.last().copied(),
            samples: v.len() as u64,
            excluded_samples: excluded[d],
            offset_ms: rule.offset_ms[d],
            offset_follows: rule.follows[d],
            followed_samples: followed[d],
        }
    })
}

/// Percentile of sorted values, linear between closest ranks (the median of an
/// even count is the mean of the middle two).
fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let pos = p * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64))
}

fn direction_summary(t: Totals, d: u8, me: &Side, peer: &Side, names: &[String; 2], duration: f64, rtt: RttSummary) -> DirectionSummary {
    let n = |flag: u32| t.count[flag.trailing_zeros() as usize - 8] as u64;
    let eff = window::effective(&me.scale, &peer.scale);
    let negotiated = me.scale.state >= 0 && peer.scale.state != NOT_USED;
    let (window_scale, unknown) = match eff {
        Effective::Known(s) if negotiated => (Some(s), false),
        Effective::Known(_) => (None, false),
        Effective::Unknown => (None, true),
    };
    // Like tshark's tcp.analysis.retransmission, which is also set on fast and
    // spurious retransmissions: all retransmissions; the next two are subsets.
    let retransmissions = n(fb::RETRANSMISSION) + n(fb::FAST_RETRANSMISSION) + n(fb::SPURIOUS_RETRANSMISSION);
    DirectionSummary {
        missed: Default::default(),
        from: names[d as usize].clone(),
        to: names[1 - d as usize].clone(),
        packets: t.packets,
        payload_bytes: t.payload,
        bytes: t.bytes,
        window_scale,
        window_scale_unknown: unknown,
        window_scale_lower_bound: if unknown { me.scale_lb } else { None },
        receive_window: t.rwnd(),
        max_bytes_in_flight: t.max_bif(),
        retransmissions,
        // Set by `summarize` (retrans_kinds.rs).
        rto_events: 0,
        rto_chains: Vec::new(),
        tail_loss_probes: 0,
        fast_retransmissions: 0,
        slow_start_retransmissions: 0,
        pmtu_retransmissions: 0,
        back_to_back_duplicates: 0,
        spurious_retransmissions: 0,
        // One segment per frame until the kinds know the sender's SMSS.
        retransmitted_segments: retransmissions,
        fast_retransmitted_segments: 0,
        slow_start_retransmitted_segments: 0,
        duplicate_acks: n(fb::DUPLICATE_ACK),
        zero_windows: n(fb::ZERO_WINDOW),
        zero_window_probes: n(fb::ZERO_WINDOW_PROBE),
        window_full: n(fb::WINDOW_FULL),
        keep_alives: n(fb::KEEP_ALIVE),
        lost_segments: n(fb::LOST_SEGMENT),
        unseen_datagrams: None,
        lost_after_capture: 0, // set by `summarize` (reported.rs)
        unseen_resends: 0,
        out_of_order: n(fb::OUT_OF_ORDER),
        throughput: t.throughput.finish(t.payload, duration),
        rtt,
        sender_lag_ms: 0.0,     // set by `summarize`
        stalls: Vec::new(), // filled by `summarize` from the materialized columns
        stall_seconds: 0.0, // and their sum
        ecn: None,          // set by `summarize` (ecn.rs)
        upstream_queue: None, // set by finish_trackers (ts_clock.rs)
    }
}

/// Puts the counts into the direction's summary.
fn apply_kinds(d: &mut DirectionSummary, c: retrans_kinds::KindCounts) {
    d.rto_events = c.rto_events;
    d.rto_chains = c.rto_chains;
    d.tail_loss_probes = c.tail_loss_probes;
    d.fast_retransmissions = c.fast_retransmissions;
    d.slow_start_retransmissions = c.slow_start_retransmissions;
    d.pmtu_retransmissions = c.pmtu_retransmissions;
    d.back_to_back_duplicates = c.back_to_back_duplicates;
    d.spurious_retransmissions = c.spurious_retransmissions;
    d.retransmitted_segments = c.retransmitted_segments;
    d.fast_retransmitted_segments = c.fast_retransmitted_segments;
    d.slow_start_retransmitted_segments = c.slow_start_retransmitted_segments;
}
