//! Stalls at any threshold (DESIGN.md "Stall"), found by the analysis's own
//! `stalls::find_stalls` so the view and the summary cannot disagree: with the
//! summary's threshold the answer IS the summary's list.
//!
//! Bounded: a tiny threshold makes every gap a stall (issue 14: `#stall=0.001` on a
//! 1.5 GB capture took 46 s and 5.6 GB). So before running `find_stalls` the gaps
//! between the direction's data segments are counted in a fixed log-scale histogram
//! (one pass over the store, cached), and the threshold is raised until at most
//! [`MAX_STALLS`] gaps can exceed it; `clamped` says so.

use super::request::fmt_s;
use super::response::Interval;
use crate::analysis::ConnectionSummary;
use crate::analysis::columns::flag_bits;
use crate::analysis::store::secs;
use crate::analysis::stalls::later_rules::LaterRules;
use crate::analysis::{delayed_ack, stalls, ConnStore, Stall};

/// Most stalls found per direction and threshold.
pub const MAX_STALLS: u64 = 100_000;
/// Histogram buckets per decade; the lowest edge is 1 µs, the highest 1e10 s.
const PER_DECADE: usize = 16;
const BUCKETS: usize = 16 * PER_DECADE;
const LOWEST: f64 = 1e-6;

/// Counts of the gaps between consecutive data segments of one direction, by size.
#[derive(Clone, Debug, PartialEq)]
pub struct GapHistogram {
    /// counts[b]: gaps in [edge(b), edge(b+1)); counts[0] also holds smaller ones.
    counts: Vec<u64>,
}

fn edge(b: usize) -> f64 {
    LOWEST * 10f64.powf(b as f64 / PER_DECADE as f64)
}

/// The bucket of a gap: the b with edge(b) ≤ gap < edge(b + 1), decided by
/// comparing with `edge` itself so counting and the thresholds tried agree exactly.
fn bucket(gap: f64) -> usize {
    let guess = ((gap / LOWEST).log10() * PER_DECADE as f64).floor();
    let mut b = if guess.is_finite() { guess.clamp(0.0, (BUCKETS - 1) as f64) as usize } else { 0 };
    while b + 1 < BUCKETS && gap >= edge(b + 1) {
        b += 1;
    }
    while b > 0 && gap < edge(b) {
        b -= 1;
    }
    b
}

impl GapHistogram {
    /// Same segments as `stalls::is_data_segment` (payload, not a zero-window probe
    /// or keep-alive), same gaps (capture order, time of one to the next).
    pub fn new(store: &ConnStore, dir: u8) -> GapHistogram {
        let mut counts = vec![0u64; BUCKETS];
        let mut prev: Option<f64> = None;
        store.for_each_packet(|r| {
            if r.dir != dir || r.len == 0 || r.flags & (flag_bits::ZERO_WINDOW_PROBE | flag_bits::KEEP_ALIVE) != 0 {
                return;
            }
            let t = secs(r.t_ns);
            if let Some(p) = prev {
                let gap = t - p;
                if gap > 0.0 {
                    counts[bucket(gap)] += 1;
                }
            }
            prev = Some(t);
        });
        GapHistogram { counts }
    }

    /// At most this many gaps exceed `threshold_s` (a gap > threshold is in the
    /// threshold's bucket or above).
    fn at_most_above(&self, threshold_s: f64) -> u64 {
        self.counts[bucket(threshold_s)..].iter().sum()
    }

    /// The threshold, raised to a bucket edge if more than [`MAX_STALLS`] gaps could
    /// exceed it.
    pub fn bounded(&self, threshold_ms: f64, clamped: &mut Vec<String>) -> f64 {
        let s = threshold_ms / 1e3;
        if self.at_most_above(s) <= MAX_STALLS {
            return threshold_ms;
        }
        let raised = (0..BUCKETS).map(edge).find(|&e| e > s && self.at_most_above(e) <= MAX_STALLS).unwrap_or(edge(BUCKETS - 1));
        clamped.push(format!(
            "stall threshold raised from {} to {}: at most {MAX_STALLS} stalls per direction",
            fmt_s(s),
            fmt_s(raised)
        ));
        raised * 1e3
    }
}

/// The stalls of `dir` at `threshold_ms` (already bounded), judged by the summary's
/// own `stalls::judge_stalls` with the summary's sender lag, path RTT and full
/// segment, and the same later rules (stalls/later_rules.rs), so a gap gets the same
/// cause at every threshold (delayed ACK, loss recovery, far part included).
/// For now through the public columns, a transient of ~45 B per packet of the
/// connection; a `find_stalls` over the store's rows would avoid it.
/// `tick_s`: the connection's clock tick (`ConnectionSummary::tick_s`).
pub fn find(store: &ConnStore, conn: &ConnectionSummary, dir: u8, threshold_ms: f64, tick_s: f64) -> Vec<Stall> {
    let cols = super::sender_columns(store, conn);
    let lag_s = conn.directions[dir as usize].sender_lag_ms / 1e3;
    let path_rtt_s = stalls::round_trip_bound_s(conn.path_rtt_ms.map(|ms| ms / 1e3), &conn.path_rtt_method, tick_s);
    let largest_payload = (0..cols.t.len()).filter(|&i| cols.dir[i] == dir).map(|i| cols.len[i]).max().unwrap_or(0);
    let full = delayed_ack::full_segment(&conn.handshake, &conn.endpoints[dir as usize], &cols, dir, largest_payload);
    let numbered = conn.directions[dir as usize].unseen_datagrams.is_some();
    let scale_known = !conn.directions[1 - dir as usize].window_scale_unknown;
    let mut found = stalls::judge_stalls(&cols, dir, threshold_ms / 1e3, lag_s, path_rtt_s, full, numbered, scale_known);
    // The summary's later rules too, with what it kept (stalls/later_rules.rs).
    let later = LaterRules { inputs: conn.stall_inputs.as_deref(), vantage: conn.vantage, path_rtt_known: conn.path_rtt_ms.is_some(), path_rtt: conn.path_rtt_ms.map(|ms| ms / 1000.0), capture_end: conn.end, data_direction: conn.data_direction };
    later.apply(&mut found, &cols, dir, threshold_ms / 1e3);
    stalls::timer_label::relabel(&mut found, &cols, dir, lag_s, path_rtt_s); // a timer stall's label follows the counters
    found
}

/// A stall as a view interval.
pub fn interval(s: &Stall) -> Interval {
    let cause = serde_json::to_value(s.cause).ok().and_then(|v| v.as_str().map(str::to_string));
    Interval {
        start: s.start,
        end: s.start + s.duration,
        cause,
        frame_before: Some(s.frame_before),
        frame_after: Some(s.frame_after),
        ended_by: Some(s.ended_by.clone()),
    }
}
