//! End of capture: per-connection summaries computed from the columns (so the
//! numbers in the JSON and the charts cannot disagree), then stalls and the limit
//! diagnosis from their own modules.

use super::analyzer::{Conn, Side};
use super::columns::{flag_bits as fb, ConnectionColumns};
use super::connections::endpoint_name;
use super::store::ConnStore;
use super::throughput::Bins;
use super::window::{self, Effective, NOT_USED};
use super::{diagnosis, stalls};
use super::{AnalysisOptions, ConnectionSummary, Diagnosis, DiagnosisShares, DirectionSummary, MinMax, RttSummary};
use crate::decode::tcp_flags::{RST, SYN};

/// Summary of one connection, and its finished compact store. Totals were counted
/// as the packets came (`Totals`); only the stall and diagnosis passes (whose API is
/// the public `PacketColumns`) get a materialized copy, dropped before the next
/// connection.
pub(crate) fn summarize(id: u32, conn: Conn, options: &AnalysisOptions) -> (ConnectionSummary, ConnStore) {
    let Conn { endpoints, sides, handshake_seen, first_t, last_t, rows, totals, .. } = conn;
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
    let packets = totals[0].packets + totals[1].packets;
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
        packets,
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

/// Per-direction totals, accumulated by the analyzer as packets arrive (while they
/// are in cache, and for every packet, including those beyond the storage limit).
#[derive(Debug)]
pub(crate) struct Totals {
    packets: u64,
    payload: u64,
    bytes: u64,
    /// Advertised window min/max (min > max: none seen). Plain integers instead of
    /// Options: this is per direction of up to `max_connections` connections.
    rwnd_min: u64,
    rwnd_max: u64,
    /// Largest bytes in flight + 1 (0: none).
    max_bif_1: u64,
    /// Count of each analysis flag bit the summary reports (bits 8..=17: RETRANSMISSION
    /// to OUT_OF_ORDER; the ACK-side bits above are not counted).
    count: [u32; 10],
    throughput: Bins,
}

impl Totals {
    pub fn new(bin_seconds: f64) -> Totals {
        Totals { packets: 0, payload: 0, bytes: 0, rwnd_min: u64::MAX, rwnd_max: 0, max_bif_1: 0, count: [0; 10], throughput: Bins::new(bin_seconds) }
    }

    #[inline]
    pub fn add(&mut self, t: f64, len: u32, wire_len: u32, flags: u32, win: Option<u64>, in_flight: Option<u64>) {
        self.packets += 1;
        self.payload += len as u64;
        self.bytes += wire_len as u64;
        // receiveWindow: the window this side advertises, SYN and RST excluded
        // (a SYN's window is unscaled, a RST's meaningless).
        if let (0, Some(w)) = (flags & (SYN | RST) as u32, win) {
            self.rwnd_min = self.rwnd_min.min(w);
            self.rwnd_max = self.rwnd_max.max(w);
        }
        if let Some(b) = in_flight {
            self.max_bif_1 = self.max_bif_1.max(b.saturating_add(1));
        }
        let mut bits = (flags >> 8) & 0x3ff;
        while bits != 0 {
            self.count[bits.trailing_zeros() as usize] += 1;
            bits &= bits - 1;
        }
        self.throughput.add(t, len);
    }

    fn rwnd(&self) -> Option<MinMax> {
        (self.rwnd_min <= self.rwnd_max).then_some(MinMax { min: self.rwnd_min, max: self.rwnd_max })
    }
    fn max_bif(&self) -> Option<u64> {
        self.max_bif_1.checked_sub(1)
    }
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
    DirectionSummary {
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
        throughput: t.throughput.finish(t.payload, duration),
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
