//! End of capture: per-connection summaries computed from the columns (so the
//! numbers in the JSON and the charts cannot disagree), then stalls and the limit
//! diagnosis from their own modules.

use super::analyzer::{Conn, Side};
use super::columns::{flag_bits as fb, ConnectionColumns};
use super::connections::endpoint_name;
use super::store::{secs, ConnStore};
use super::throughput::Bins;
use super::window::{self, Effective, NOT_USED};
use super::{diagnosis, stalls};
use super::{AnalysisOptions, ConnectionSummary, Diagnosis, DiagnosisShares, DirectionSummary, MinMax, RttSummary};
use crate::decode::tcp_flags::{RST, SYN};

/// Summary of one connection, and its finished compact store. Totals come from one
/// streaming pass over the compact rows; only the stall and diagnosis passes (whose
/// API is the public `PacketColumns`) get a materialized copy, dropped before the
/// next connection.
pub(crate) fn summarize(id: u32, conn: Conn, options: &AnalysisOptions) -> (ConnectionSummary, ConnStore) {
    let Conn { endpoints, sides, handshake_seen, first_t, last_t, rows, .. } = conn;
    let store = rows.finish();
    let names = [endpoint_name(endpoints[0].0, endpoints[0].1), endpoint_name(endpoints[1].0, endpoints[1].1)];
    let duration = if last_t > first_t { last_t - first_t } else { 0.0 };
    let rtts = rtt_summaries(&store);
    // ACK-based samples of each direction measure capture point → that direction's
    // receiver → capture point, so the connection's round trip is the sum of the two
    // minima wherever the capture was taken (at the sender the reverse half is ~0; in
    // the middle each half is part of the path). The smaller one alone would be µs on
    // a sender-side capture and make DESIGN.md's 4 × min RTT threshold meaningless.
    let min_rtt = match (rtts[0].min_ms, rtts[1].min_ms) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    };
    let threshold_s = match options.stall_threshold_ms {
        Some(ms) if ms.is_finite() && ms > 0.0 => ms / 1000.0,
        _ => stalls::default_threshold_s(min_rtt),
    };
    let totals = totals(&store, options.bin_seconds);
    let [t0, t1] = totals;
    let dir = |d: usize, t: Totals| {
        let (me, peer) = (&sides[d], &sides[1 - d]);
        direction_summary(t, d as u8, me, peer, &names, duration, rtts[d])
    };
    let mut directions = [dir(0, t0), dir(1, t1)];
    let data_direction = if directions[1].payload_bytes > directions[0].payload_bytes { 1 } else { 0 };
    // Transient public columns for the stall and diagnosis passes (wire_len unused).
    let cols = ConnectionColumns { packets: store.packet_columns(false), rtt: store.rtt_columns(), ..Default::default() };
    for (d, ds) in directions.iter_mut().enumerate() {
        ds.stalls = stalls::find_stalls(&cols.packets, d as u8, threshold_s);
    }
    let mut summary = ConnectionSummary {
        id,
        endpoints: names,
        handshake_seen,
        packets: store.packet_count() as u64,
        start: if first_t.is_nan() { 0.0 } else { first_t },
        end: if last_t.is_nan() { 0.0 } else { last_t },
        data_direction,
        stall_threshold_ms: threshold_s * 1000.0,
        directions,
        diagnosis: Diagnosis { limit: "too-short".into(), text: String::new(), shares: DiagnosisShares::default() },
    };
    summary.diagnosis = diagnosis::diagnose(&summary, &cols);
    drop(cols);
    (summary, store)
}

/// Per-direction totals gathered in one pass over the rows.
struct Totals {
    packets: u64,
    payload: u64,
    bytes: u64,
    rwnd: Option<MinMax>,
    max_bif: Option<u64>,
    /// Count of each flag bit (analysis bits from 8 up).
    count: [u64; 32],
    throughput: Bins,
}

fn totals(store: &ConnStore, bin_seconds: f64) -> [Totals; 2] {
    let new = || Totals { packets: 0, payload: 0, bytes: 0, rwnd: None, max_bif: None, count: [0; 32], throughput: Bins::new(bin_seconds) };
    let mut t = [new(), new()];
    store.for_each_packet(|r| {
        let x = &mut t[r.dir as usize & 1];
        x.packets += 1;
        x.payload += r.len as u64;
        x.bytes += r.wire_len as u64;
        let f = r.flags;
        // receiveWindow: the window this side advertises, SYN and RST excluded
        // (a SYN's window is unscaled, a RST's meaningless).
        if let (0, Some(w)) = (f & (SYN | RST) as u32, r.win) {
            x.rwnd = Some(x.rwnd.map_or(MinMax { min: w, max: w }, |m| MinMax { min: m.min.min(w), max: m.max.max(w) }));
        }
        if let Some(b) = r.in_flight {
            x.max_bif = Some(x.max_bif.map_or(b, |m| m.max(b)));
        }
        let mut bits = f >> 8;
        while bits != 0 {
            let bit = bits.trailing_zeros() as usize;
            x.count[bit + 8] += 1;
            bits &= bits - 1;
        }
        x.throughput.add(secs(r.t_ns), r.len);
    });
    t
}

fn direction_summary(t: Totals, d: u8, me: &Side, peer: &Side, names: &[String; 2], duration: f64, rtt: RttSummary) -> DirectionSummary {
    let n = |flag: u32| t.count[flag.trailing_zeros() as usize];
    let eff = window::effective(&me.scale, &peer.scale);
    let negotiated = me.scale.state >= 0 && peer.scale.state != NOT_USED;
    let (window_scale, unknown) = match eff {
        Effective::Known(s) if negotiated => (Some(s), false),
        Effective::Known(_) => (None, false),
        Effective::Unknown => (None, true),
    };
    DirectionSummary {
        from: names[d as usize].clone(),
        to: names[1 - d as usize].clone(),
        packets: t.packets,
        payload_bytes: t.payload,
        bytes: t.bytes,
        window_scale,
        window_scale_unknown: unknown,
        window_scale_lower_bound: if unknown { me.scale_lb } else { None },
        receive_window: t.rwnd,
        max_bytes_in_flight: t.max_bif,
        // Like tshark's tcp.analysis.retransmission, which is also set on fast and
        // spurious retransmissions: all retransmissions; the next two are subsets.
        retransmissions: n(fb::RETRANSMISSION) + n(fb::FAST_RETRANSMISSION) + n(fb::SPURIOUS_RETRANSMISSION),
        fast_retransmissions: n(fb::FAST_RETRANSMISSION),
        spurious_retransmissions: n(fb::SPURIOUS_RETRANSMISSION),
        duplicate_acks: n(fb::DUPLICATE_ACK),
        zero_windows: n(fb::ZERO_WINDOW),
        zero_window_probes: n(fb::ZERO_WINDOW_PROBE),
        window_full: n(fb::WINDOW_FULL),
        keep_alives: n(fb::KEEP_ALIVE),
        lost_segments: n(fb::LOST_SEGMENT),
        out_of_order: n(fb::OUT_OF_ORDER),
        throughput: t.throughput.finish(duration),
        rtt,
        stalls: Vec::new(), // filled by `summarize` from the materialized columns
    }
}

/// Minimum and median of all RTT samples (both kinds) of the data sent in each
/// direction, ms.
fn rtt_summaries(store: &ConnStore) -> [RttSummary; 2] {
    let mut v: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    store.for_each_rtt(|_, dir, ns, _| {
        let ms = ns as f64 / 1e6;
        if ms.is_finite() {
            v[dir as usize & 1].push(ms);
        }
    });
    v.map(|mut v| {
        if v.is_empty() {
            return RttSummary { min_ms: None, median_ms: None };
        }
        v.sort_by(|a, b| a.total_cmp(b));
        let m = v.len() / 2;
        let median = if v.len() % 2 == 1 { v[m] } else { (v[m - 1] + v[m]) / 2.0 };
        RttSummary { min_ms: Some(v[0]), median_ms: Some(median) }
    })
}
