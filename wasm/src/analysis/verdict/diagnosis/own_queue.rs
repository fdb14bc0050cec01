//! Whether a grown RTT was a queue the flow built itself: the evidence behind "packets
//! queued at the bottleneck" (issue 39 review AJ, classes C-LATENCY-UNDER-LOAD-UNFOUNDED,
//! C-RWND-BELOW-ONE-MSS-HEADROOM-MISSED and C-DELAY-TOLD-AS-LOSS, their queue halves;
//! docs/ANALYSIS.md "diagnosis.text", *A queue the flow built*).
//!
//! A queue at the bottleneck delays a segment by the bytes ahead of it over the
//! bottleneck's rate: RTT ≈ base + (flight − rate·base)/rate (Jacobson 1988; RFC 6349
//! §3.3.2's buffer delay is the loaded RTT against the unloaded one). A queue of the
//! flow's own packets therefore shows as round trips that grow WITH its flight. A median
//! RTT far above the minimum while the flight stayed a flat few segments is something
//! else — the receiver's delayed ACKs, a busy far end, a Wi-Fi link waking, other flows'
//! packets — and the capture does not say which (a Windows client's 2.5–9 KB window kept
//! 1–5 segments in flight while the RTT went 84 → 134 ms: Vishnugrandhi20 tcp.pcapng
//! conns 0 and 1). So:
//! - the samples: the queue direction's round trips that time the path (round_trips.rs
//!   `times_path`, those of the `rtt.pathMedianMs` the text quotes), each with the data
//!   sender's flight at the data it timed: at a sender-side capture that of the last
//!   segment the ACK ending the sample covers (the k-th segment of a flight sent at once
//!   left with k in flight); at the receiver's, the end of the data that ended the sample
//!   less the highest ACK the receiver had sent one round trip before (what the sender had
//!   heard when it sent that data);
//! - a sample that spans a **two-way silence** — no packet of the receiver and no new data
//!   of the sender for more than [`OUTAGE_BASE_RTTS`] path round trips, and the sender's
//!   timer re-sending into it — timed an outage, not a queue: while a queue drains, ACKs
//!   keep coming at its rate (the ACK clock); after an outage the ACKs of everything
//!   arrive at once (saikowshik07 arp.pcapng conn 0: both sides silent 3.005 → 4.503 s,
//!   then ACKs of all 65 kB within 10 ms). Those samples are left out;
//! - of the others (at least [`LATENCY_MIN_SAMPLES`]), the median must still be
//!   [`QUEUEING_RTT_RATIO`] × the minimum, and the RTTs must rise with the flight: a
//!   Spearman rank correlation of at least [`MIN_RANK_CORRELATION`] between flight and
//!   round trip (a flat flight has none).

use super::*;
use crate::analysis::timing::round_trips::{times_path, RoundTripRule};

/// Path round trips a two-way silence must exceed to be an outage: one round trip of
/// silence is any lone flight's wait for its ACK; two mean the path delivered nothing for
/// a round trip while data was outstanding (RFC 6298's timer fires after about that).
pub const OUTAGE_BASE_RTTS: f64 = 2.0;

/// Rank correlation of round trip with flight from which the RTT grew with the flight.
pub const MIN_RANK_CORRELATION: f64 = 0.3;

/// The queue direction's path round trips (s) that did not span an outage, each with its
/// flight (bytes), in time order; the minimum round trip `base` (s) sets the outage's length.
/// And how many samples were left out as timing an outage.
fn samples(f: &Facts, base: f64) -> (Vec<(f64, f64)>, usize) {
    let c = f.conn;
    let p = f.rows.packets;
    // The direction whose median the text quotes (diagnosis.rs `rtts`); the flight is the data's.
    let q = queue_direction(c, f.sh.turns > 0 || f.sh.peer_wait > 0.0) as u8;
    let d = c.data_direction.min(1);
    let rule = RoundTripRule::of(c, f.tick);
    // At the sender's capture the data it timed left at the sample's start, with the
    // flight the capture counts at it (`in_flight`). At the receiver's, `in_flight` is what
    // the receiver has not yet ACKed (a segment or two); the sender's flight when it sent
    // the data ending the sample is that data's end less the highest ACK the receiver had
    // sent a round trip before (the ACKs the sender had heard by then).
    let at_receiver = c.vantage == crate::analysis::timing::vantage::Vantage::Receiver;
    let acked: Vec<(f64, f64)> = if at_receiver {
        let mut high = f64::NEG_INFINITY;
        (0..p.t.len()).filter(|&i| p.dir[i] != d && p.ack[i].is_finite()).map(|i| { high = high.max(p.ack[i]); (p.t[i], high) }).collect()
    } else {
        Vec::new()
    };
    let flight_at = |t: f64, r: f64| {
        if !at_receiver {
            // The segment the sample timed: the last one the ACK completing it covers
            // (a flight sent within one clock tick has one time for all its segments, and
            // the k-th of them left with k segments in flight: the Kurose lab's 8 KB flights).
            let k = p.t.partition_point(|&x| x <= t + 1e-9);
            if q == d {
                if let Some(a) = (k.saturating_sub(8)..k).rev().find(|&i| p.dir[i] != d && p.ack[i].is_finite()).map(|i| p.ack[i]) {
                    let sent = (k.saturating_sub(4096)..k).rev().find(|&i| p.dir[i] == d && p.len[i] > 0 && p.in_flight[i].is_finite() && p.seq[i] + f64::from(p.len[i]) <= a);
                    if let Some(i) = sent {
                        return Some(p.in_flight[i]);
                    }
                }
            }
            let k = p.t.partition_point(|&x| x <= t - r);
            return (k.saturating_sub(64)..k).rev().find(|&i| p.dir[i] == d && p.len[i] > 0 && p.in_flight[i].is_finite()).map(|i| p.in_flight[i]);
        }
        let k = p.t.partition_point(|&x| x <= t);
        let end = (k.saturating_sub(64)..k).rev().find(|&i| p.dir[i] == d && p.len[i] > 0).map(|i| p.seq[i] + f64::from(p.len[i]))?;
        let a = acked.partition_point(|x| x.0 <= t - r).checked_sub(1).map(|j| acked[j].1)?;
        Some((end - a).max(0.0))
    };
    let silences = silences(p, d, OUTAGE_BASE_RTTS * base);
    let mut out = Vec::new();
    let mut outages = 0;
    rule.for_each(f.rows.rtt, &mut |t, dir, measured_ms, round_trip_ms, kind| {
        if dir & 1 != q || !times_path(kind, measured_ms, rule.offset_ms[1 - q as usize]) || !(round_trip_ms.is_finite() && round_trip_ms > 0.0) {
            return;
        }
        let r = round_trip_ms / 1000.0;
        // A silence inside [sent, acknowledged]: the sample timed the outage.
        let k = silences.partition_point(|s| s.0 < t - r - 1e-9);
        if silences.get(k).is_some_and(|s| s.1 <= t + 1e-9) {
            outages += 1;
            return;
        }
        if let Some(w) = flight_at(t, r) {
            out.push((w, r));
        }
    });
    (out, outages)
}

/// The two-way silences of a connection whose data flows in direction `q`: spans
/// longer than `min_s` with no packet of the receiver and no new data of the sender, in
/// which the sender's timer re-sent (its re-sends are no sign of life of the path, and
/// show the ACK clock had stopped for longer than the sender's RTO — a slow bottleneck's
/// ACKs, spaced wider than the path RTT, keep it running: the Kurose lab trace's 95 ms
/// between ACKs on a 23 ms path), as (start, end) s.
pub(crate) fn silences(p: &crate::analysis::rows::columns::PacketColumns, q: u8, min_s: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    if !(min_s > 0.0) {
        return out;
    }
    let (mut last, mut high, mut resent) = (f64::NAN, f64::NEG_INFINITY, false);
    for i in 0..p.t.len() {
        let new_data = p.dir[i] == q && p.len[i] > 0 && p.seq[i] + f64::from(p.len[i]) > high;
        if p.dir[i] == q && p.len[i] > 0 {
            high = high.max(p.seq[i] + f64::from(p.len[i]));
            resent |= !new_data;
        }
        if p.dir[i] != q || new_data {
            if p.t[i] - last > min_s && resent {
                out.push((last, p.t[i]));
            }
            last = p.t[i];
            resent = false;
        }
    }
    out
}

/// Spearman's rank correlation of the pairs (average ranks for ties); NaN where either
/// side is constant.
pub fn rank_correlation(pairs: &[(f64, f64)]) -> f64 {
    let ranks = |pick: &dyn Fn(&(f64, f64)) -> f64| {
        let mut idx: Vec<usize> = (0..pairs.len()).collect();
        idx.sort_by(|&a, &b| pick(&pairs[a]).total_cmp(&pick(&pairs[b])));
        let mut r = vec![0.0; pairs.len()];
        let mut i = 0;
        while i < idx.len() {
            let mut j = i;
            while j + 1 < idx.len() && pick(&pairs[idx[j + 1]]) == pick(&pairs[idx[i]]) {
                j += 1;
            }
            for &k in &idx[i..=j] {
                r[k] = (i + j) as f64 / 2.0;
            }
            i = j + 1;
        }
        r
    };
    let (a, b) = (ranks(&|x| x.0), ranks(&|x| x.1));
    let n = pairs.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(&b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma) * (x - ma)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb) * (y - mb)).sum();
    if va > 0.0 && vb > 0.0 { cov / (va * vb).sqrt() } else { f64::NAN }
}

/// The median round trip (s) of a queue the flow built itself (module comment), None
/// where the capture does not show one.
pub(crate) fn median(f: &Facts) -> Option<f64> {
    shown(f).map(|m| m.0)
}

/// [`median`], where samples that timed an outage were left out (else the connection's
/// median stands: the pairing with a flight may leave out samples it counts).
pub(crate) fn outage_median(f: &Facts) -> Option<f64> {
    shown(f).filter(|m| m.1).map(|m| m.0)
}

/// (the median, whether outage samples were left out) of [`median`].
fn shown(f: &Facts) -> Option<(f64, bool)> {
    let base = f.min_rtt;
    if !(base > 0.0) {
        return None;
    }
    let (pairs, outages) = samples(f, base);
    if (pairs.len() as u64) < LATENCY_MIN_SAMPLES {
        return None;
    }
    let mut rtts: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    rtts.sort_by(f64::total_cmp);
    let median = rtts[rtts.len() / 2];
    // At the receiver's capture, segments that arrive back to back are spaced by the
    // bottleneck's rate (the packet pair, Keshav 1991; Jacobson's ACK clock): a median
    // round trip `median − base` above the path's needs at least half the samples to have
    // had that long's worth of data at that rate in flight; where the median flight
    // crosses it in less, the flow did not queue that long. A quarter of their median
    // rate, for links that deliver in batches (Wi-Fi aggregation, GRO).
    if f.conn.vantage == crate::analysis::timing::vantage::Vantage::Receiver {
        let mut flights: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        flights.sort_by(f64::total_cmp);
        let typical = flights[flights.len() / 2];
        let rate = pair_rate(f.rows.packets, f.conn.data_direction.min(1), base);
        if rate > 0.0 && typical * 8.0 / (rate / PAIR_RATE_SLACK) < median - base {
            return None;
        }
    }
    (median >= QUEUEING_RTT_RATIO * base && rank_correlation(&pairs) >= MIN_RANK_CORRELATION).then_some((median, outages > 0))
}

/// How much slower than its pairs' median rate the bottleneck is still taken to be.
pub const PAIR_RATE_SLACK: f64 = 4.0;

/// The median rate (bit/s) of consecutive new data segments of direction `d` that
/// arrived less than an eighth of the path RTT `base` apart (one flight's, back to
/// back): the second's payload over their spacing; 0 without such a pair.
pub fn pair_rate(p: &crate::analysis::rows::columns::PacketColumns, d: u8, base: f64) -> f64 {
    let (mut last, mut high) = (f64::NAN, f64::NEG_INFINITY);
    let mut rates = Vec::new();
    for i in 0..p.t.len() {
        if p.dir[i] != d || p.len[i] == 0 || p.seq[i] + f64::from(p.len[i]) <= high {
            continue;
        }
        high = p.seq[i] + f64::from(p.len[i]);
        let gap = p.t[i] - last;
        if gap > 0.0 && gap < base / 8.0 {
            rates.push(f64::from(p.len[i]) * 8.0 / gap);
        }
        last = p.t[i];
    }
    rates.sort_by(f64::total_cmp);
    rates.get(rates.len() / 2).copied().unwrap_or(0.0)
}

/// The loss headline's words for a median RTT above its minimum but short of the queue
/// [`median`] shows (path_words.rs `queue_evidence`): where the median alone would have
/// read a standing queue (1.5 × and 1 ms more), that the rise did not follow the flow's
/// own flight; else "some queueing, short of a standing queue".
pub(crate) fn rise_text(f: &Facts, median: &str, min: &str) -> String {
    if f.median_rtt >= QUEUEING_RTT_RATIO * f.min_rtt && f.median_rtt - f.min_rtt >= QUEUE_MIN_DELAY_S.max(2.0 * f.tick) {
        return format!(
            "with a median RTT of {median} against its {min} minimum, a rise that did not follow its own data in flight \
             (round trips spanning an outage left out): no queue of its own shown at the bottleneck"
        );
    }
    format!("with a median RTT of {median} against its {min} minimum: some queueing, short of a standing queue (a median of {QUEUEING_RTT_RATIO} × the minimum)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_that_rise_with_the_flight_correlate_and_a_flat_flight_does_not() {
        // RTT = 20 ms + flight / 1 MB/s: ranks identical, ρ = 1.
        let grow: Vec<(f64, f64)> = (1..=12).map(|k| (k as f64 * 1448.0, 0.020 + k as f64 * 1448.0 / 1e6)).collect();
        assert!((rank_correlation(&grow) - 1.0).abs() < 1e-12);
        // One flight size throughout: no ranks to compare, NaN (never ≥ the threshold).
        let flat: Vec<(f64, f64)> = (1..=12).map(|k| (5792.0, 0.084 + 0.005 * k as f64)).collect();
        assert!(rank_correlation(&flat).is_nan());
        // Delays that fall as the flight grows: ρ = −1.
        let fall: Vec<(f64, f64)> = (1..=12).map(|k| (k as f64, 1.0 / k as f64)).collect();
        assert!((rank_correlation(&fall) + 1.0).abs() < 1e-12);
    }

    #[test]
    fn back_to_back_segments_give_the_pair_rate() {
        use crate::analysis::stalls::testkit::Cols;
        // 1,000 B every 0.1 ms within flights 50 ms apart (path 80 ms: pairs below 10 ms
        // count): 1,000 × 8 / 0.0001 = 80 Mbit/s; the 50 ms gaps between flights do not count.
        let mut c = Cols::new(65535.0);
        let mut seq = 1.0;
        for r in 0..3 {
            for k in 0..4 {
                c.data(0.05 * r as f64 + 0.0001 * k as f64, 0, seq, 1000);
                seq += 1000.0;
            }
        }
        assert!((pair_rate(&c.c.packets, 0, 0.080) - 80e6).abs() < 1e3);
    }

    #[test]
    fn a_span_without_the_receiver_or_new_data_is_a_silence() {
        use crate::analysis::stalls::testkit::Cols;
        // Data 0.0, 0.1 s; nothing back until the re-send at 1.0 s (old data, no sign of
        // life) and the ACK at 1.5 s: one silence 0.1 → 1.5 s (1.4 s > 2 × 0.3 s).
        let mut c = Cols::new(65535.0);
        c.data(0.0, 0, 1.0, 1000);
        c.data(0.1, 0, 1001.0, 1000);
        c.data(1.0, 0, 1.0, 1000);
        c.ack(1.5, 1, 2001.0, 65535.0);
        assert_eq!(silences(&c.c.packets, 0, 0.6), vec![(0.1, 1.5)]);
        assert_eq!(silences(&c.c.packets, 0, 1.5), vec![]);
        // The same gap without the re-send: a slow ACK clock, no outage.
        let mut c = Cols::new(65535.0);
        c.data(0.0, 0, 1.0, 1000);
        c.data(0.1, 0, 1001.0, 1000);
        c.ack(1.5, 1, 2001.0, 65535.0);
        assert_eq!(silences(&c.c.packets, 0, 0.6), vec![]);
    }
}
