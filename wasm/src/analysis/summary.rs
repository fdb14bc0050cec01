//! End of capture: per-connection summaries computed from the columns (so the
//! numbers in the JSON and the charts cannot disagree), then stalls and the limit
//! diagnosis from their own modules.

use super::analyzer::{Conn, Side};
use super::columns::{flag_bits as fb, ConnectionColumns};
use super::connections::endpoint_name;
use super::window::{self, Effective, NOT_USED};
use super::{diagnosis, stalls, throughput};
use super::{AnalysisOptions, ConnectionSummary, Diagnosis, DiagnosisShares, DirectionSummary, MinMax, RttSummary};
use crate::decode::tcp_flags::{RST, SYN};

pub(crate) fn summarize(id: u32, conn: Conn, options: &AnalysisOptions) -> (ConnectionSummary, ConnectionColumns) {
    let Conn { endpoints, sides, handshake_seen, first_t, last_t, cols, .. } = conn;
    let names = [endpoint_name(endpoints[0].0, endpoints[0].1), endpoint_name(endpoints[1].0, endpoints[1].1)];
    let duration = if last_t > first_t { last_t - first_t } else { 0.0 };
    let rtts = [rtt_summary(&cols, 0), rtt_summary(&cols, 1)];
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
    let dir = |d: usize| {
        let (me, peer) = (&sides[d], &sides[1 - d]);
        direction_summary(&cols, d as u8, me, peer, &names, options, duration, rtts[d], threshold_s)
    };
    let directions = [dir(0), dir(1)];
    let data_direction = if directions[1].payload_bytes > directions[0].payload_bytes { 1 } else { 0 };
    let mut summary = ConnectionSummary {
        id,
        endpoints: names,
        handshake_seen,
        packets: cols.packets.t.len() as u64,
        start: if first_t.is_nan() { 0.0 } else { first_t },
        end: if last_t.is_nan() { 0.0 } else { last_t },
        data_direction,
        stall_threshold_ms: threshold_s * 1000.0,
        directions,
        diagnosis: Diagnosis { limit: "too-short".into(), text: String::new(), shares: DiagnosisShares::default() },
    };
    summary.diagnosis = diagnosis::diagnose(&summary, &cols);
    (summary, cols)
}

#[allow(clippy::too_many_arguments)]
fn direction_summary(
    cols: &ConnectionColumns,
    d: u8,
    me: &Side,
    peer: &Side,
    names: &[String; 2],
    options: &AnalysisOptions,
    duration: f64,
    rtt: RttSummary,
    threshold_s: f64,
) -> DirectionSummary {
    let p = &cols.packets;
    let (mut packets, mut payload, mut bytes) = (0u64, 0u64, 0u64);
    let mut rwnd: Option<MinMax> = None;
    let mut max_bif: Option<u64> = None;
    let mut count = [0u64; 32];
    for i in 0..p.t.len() {
        if p.dir[i] != d {
            continue;
        }
        packets += 1;
        payload += p.len[i] as u64;
        bytes += p.wire_len[i] as u64;
        let f = p.flags[i];
        // receiveWindow: the window this side advertises, SYN and RST excluded
        // (a SYN's window is unscaled, a RST's meaningless).
        if f & (SYN | RST) as u32 == 0 && !p.win[i].is_nan() {
            let w = p.win[i] as u64;
            rwnd = Some(rwnd.map_or(MinMax { min: w, max: w }, |m| MinMax { min: m.min.min(w), max: m.max.max(w) }));
        }
        if !p.in_flight[i].is_nan() {
            let b = p.in_flight[i] as u64;
            max_bif = Some(max_bif.map_or(b, |m| m.max(b)));
        }
        for (bit, c) in count.iter_mut().enumerate().skip(8) {
            if f & (1 << bit) != 0 {
                *c += 1;
            }
        }
    }
    let n = |flag: u32| count[flag.trailing_zeros() as usize];
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
        packets,
        payload_bytes: payload,
        bytes,
        window_scale,
        window_scale_unknown: unknown,
        window_scale_lower_bound: if unknown { me.scale_lb } else { None },
        receive_window: rwnd,
        max_bytes_in_flight: max_bif,
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
        throughput: throughput::summarize(p, d, options.bin_seconds, duration),
        rtt,
        stalls: stalls::find_stalls(p, d, threshold_s),
    }
}

/// Minimum and median of all RTT samples (both kinds) of the data sent in `dir`, ms.
fn rtt_summary(cols: &ConnectionColumns, dir: u8) -> RttSummary {
    let r = &cols.rtt;
    let mut v: Vec<f64> = (0..r.t.len()).filter(|&i| r.dir[i] == dir && r.rtt_ms[i].is_finite()).map(|i| r.rtt_ms[i]).collect();
    if v.is_empty() {
        return RttSummary { min_ms: None, median_ms: None };
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let m = v.len() / 2;
    let median = if v.len() % 2 == 1 { v[m] } else { (v[m - 1] + v[m]) / 2.0 };
    RttSummary { min_ms: Some(v[0]), median_ms: Some(median) }
}
