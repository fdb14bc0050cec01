//! The receive window and the bottleneck full together (issue 39 review AD class
//! C-WIN-QUEUE-LONG-RTT; docs/ANALYSIS.md "Window and queue full together").
//!
//! A window W caps a flow at W / RTT, and a link of rate R needs R × base RTT in flight
//! to stay busy (its bandwidth-delay product, RFC 6349 §3.3.1). Bytes in flight beyond
//! that product cannot cross the link faster: they wait in the bottleneck's queue, and
//! the round trip grows by the time the queue takes to drain (RFC 6349 §3.3.2's
//! "buffer delay": (loaded RTT − base RTT) / base RTT). So in the rounds where bytes in
//! flight sat at the receive window, the round trip then (the loaded RTT L) against the
//! path's base RTT B splits the window: W × B / L crossed the link per base round trip,
//! Q = W × (1 − B / L) waited in the queue. A standing queue means the link never ran
//! dry: it delivered W / L, its rate. A larger window would only add queue (Linux's
//! receive-buffer auto-tuning, tcp_rmem, grows the window towards what the sender fills,
//! which behind a full link is queue, Gettys and Nichols 2011 "Bufferbloat").
//!
//! The whole flow's median against its minimum (phrases.rs `rtt_queueing`, 1.5×) misses
//! this on long paths: a 70 ms queue on a 232 ms path is 1.3×. So the test here is
//! absolute, in bytes, and only over the window-full rounds: Q at least
//! [`QUEUED_SHARE_MIN`] of the window and at least [`QUEUED_SEGMENTS_MIN`] full segments
//! (below that, a round trip's own jitter: a delayed ACK, one segment's serialization).
//! The round trips are the data direction's trusted full ones (round_trips.rs: not an
//! ACK held by a delayed-ACK timer or riding on an answer, the far part added at a
//! receiver-side capture), each assigned to the round it timed: the data it acknowledged
//! left one round trip before the ACK, and that moment lies in a window-full span
//! (diagnosis_shares.rs `window_limited_spans`, the spans the chart shades). At least
//! [`LATENCY_MIN_SAMPLES`] of them: a median of a few is one ACK's delay, not a queue.

use super::drain_saving::loaded_round::path_round_trips;
use super::*;

/// Queued bytes (W × (1 − B / L)) as a share of the window from which the window and
/// the bottleneck were full together: a tenth of the window is a round trip 11 % above
/// its base, the least rise RFC 9406 §4.2 (HyStart++: minimum / 8, at least 4 ms)
/// takes for a queue building, and well above the clock's jitter on any path.
pub const QUEUED_SHARE_MIN: f64 = 0.1;
/// And at least this many full segments queued: fewer is one burst's serialization or
/// one delayed ACK (RFC 1122 §4.2.3.2: every second segment), not a standing queue.
pub const QUEUED_SEGMENTS_MIN: f64 = 4.0;

/// What the window-full rounds show, where the queue in them passed the test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct FullTogether {
    /// The window as the sender filled it: the median bytes in flight of its data
    /// segments within the window-full spans, bytes.
    pub window: f64,
    /// The median round trip timed in those rounds (L), s.
    pub loaded_rtt: f64,
    /// The round trip it is measured against: the small-flight rounds' median, or the path RTT, s.
    pub base_rtt: f64,
    /// Its samples.
    pub samples: usize,
    /// Bytes waiting in the queue: window × (1 − base / loaded).
    pub queued: f64,
    /// The bottleneck's rate: window / loaded RTT, bit/s.
    pub rate_bps: f64,
}

/// The window-full rounds' queue, if it shows the bottleneck full ([`QUEUED_SHARE_MIN`],
/// [`QUEUED_SEGMENTS_MIN`]). None for a slow reader (its late ACKs and window updates
/// stretch the round trip as a queue would: phrases.rs `slow_reader`), for windows not
/// judged (window_unjudged.rs), and without a base RTT.
pub(super) fn full_together(f: &Facts) -> Option<FullTogether> {
    let base = f.min_rtt;
    if !(base > 0.0) || !f.sh.windows_trusted || slow_reader(f.sh) || f.sh.receive_window <= 0.0 {
        return None;
    }
    let d = f.conn.data_direction.min(1);
    let sender = &f.conn.directions[d as usize];
    let scale_known = !f.conn.directions[1 - d as usize].window_scale_unknown;
    let p = f.rows.packets;
    let (spans, _) = crate::analysis::verdict::diagnosis_shares::window_limited_spans(p, d, &sender.stalls, f.conn.sender_lag_ms / 1000.0, scale_known);
    let inside = |t: f64| {
        let k = spans.partition_point(|s| s.1 < t);
        spans.get(k).is_some_and(|s| s.0 <= t)
    };
    let samples = path_round_trips(f);
    let mut loaded: Vec<f64> = samples.iter().filter(|&&(t, r)| inside(t - r)).map(|&(_, r)| r).collect();
    if (loaded.len() as u64) < LATENCY_MIN_SAMPLES {
        return None;
    }
    loaded.sort_by(f64::total_cmp);
    let loaded_rtt = loaded[loaded.len() / 2];
    let mut flights: Vec<f64> = (0..p.t.len()).filter(|&i| p.dir[i] == d && p.len[i] > 0 && p.in_flight[i].is_finite() && inside(p.t[i])).map(|i| p.in_flight[i]).collect();
    if flights.is_empty() {
        return None;
    }
    flights.sort_by(f64::total_cmp);
    let window = flights[flights.len() / 2];
    // The base the queue is measured against: the connection's own round trips with
    // little in flight, where they exist, not its single smallest sample (a path's
    // spread — a phone hotspot's 232 ms minimum under a steady 268 ms — is no queue this
    // window built: review AG W5, kavinjaveriya `client.pcap` #1, 269 ms median at
    // 0–20 kB in flight against 268 ms at the window).
    let unloaded = small_flight_median(f, &samples, d, window).map_or(base, |m| m.max(base));
    let queued = window * (1.0 - unloaded / loaded_rtt);
    let full = queued >= QUEUED_SHARE_MIN * window && queued >= QUEUED_SEGMENTS_MIN * real_segment_bytes(f);
    full.then(|| FullTogether { window, loaded_rtt, base_rtt: unloaded, samples: loaded.len(), queued, rate_bps: window * 8.0 / loaded_rtt })
}

/// Round trips whose data left with at most this share of the window in flight are the
/// path's own (RFC 6349 §3.3.2 measures buffer delay against the RTT with the pipe
/// unloaded): a quarter leaves the queue a window can build out of them.
pub const SMALL_FLIGHT_SHARE: f64 = 0.25;
/// And at least this many of them, else the path RTT (its smallest sample) is the base.
pub const SMALL_FLIGHT_MIN_SAMPLES: usize = 5;

/// The median round trip of data that left with at most [`SMALL_FLIGHT_SHARE`] of
/// `window` in flight (the last data segment of direction `d` sent by then), where at
/// least [`SMALL_FLIGHT_MIN_SAMPLES`] exist.
fn small_flight_median(f: &Facts, samples: &[(f64, f64)], d: u8, window: f64) -> Option<f64> {
    let p = f.rows.packets;
    let flight_at = |sent: f64| {
        let k = p.t.partition_point(|&t| t <= sent);
        (k.saturating_sub(64)..k).rev().find(|&i| p.dir[i] == d && p.len[i] > 0 && p.in_flight[i].is_finite()).map(|i| p.in_flight[i])
    };
    let mut small: Vec<f64> = samples.iter().filter(|&&(t, r)| flight_at(t - r).is_some_and(|w| w <= SMALL_FLIGHT_SHARE * window)).map(|&(_, r)| r).collect();
    if small.len() < SMALL_FLIGHT_MIN_SAMPLES {
        return None;
    }
    small.sort_by(f64::total_cmp);
    Some(small[small.len() / 2])
}

/// The receive-window headline where the window-full rounds carried a standing queue:
/// ("path", the sentence) — the link set the pace and a larger window would lengthen
/// its queue. None otherwise: the caller keeps its window advice.
pub(super) fn headline(f: &Facts) -> Option<(&'static str, String)> {
    let w = full_together(f)?;
    let sent = f.conn.directions[f.conn.data_direction.min(1) as usize].payload_bytes as f64;
    // What no window could beat: every byte at the bottleneck's rate (slow start and
    // pauses included, so an upper bound on any saving), against the time it was active.
    let at_link = sent * 8.0 / w.rate_bps;
    let bound = if f.sh.active > at_link && sent > 0.0 {
        format!(
            "; at that rate its {} would still have taken at least {} of the {} it was active, the most any window could save",
            format_bytes(sent),
            format_duration(at_link),
            format_duration(f.sh.active)
        )
    } else {
        String::new()
    };
    Some((
        "path",
        format!(
            "{OPENING}: in the rounds where bytes in flight sat at the window ({}, {} of the time) the round \
             trip was {} (median of {}) against {}, so about {} ({} of the window) waited in the \
             bottleneck's queue and the bottleneck delivered about {} (the window per loaded round trip); {}. \
             A larger window would lengthen that queue, not raise the rate: about {} (that rate × the {} base \
             RTT) kept the link busy{bound}.",
            format_bytes(w.window),
            format_percent(f.shares.receive_window),
            format_duration(w.loaded_rtt),
            w.samples,
            if w.base_rtt > f.min_rtt { format!("{} with little in flight", format_duration(w.base_rtt)) } else { format!("the path's {}", format_duration(w.base_rtt)) },
            format_bytes(w.queued),
            format_percent(w.queued / w.window),
            format_rate(w.rate_bps),
            rate_phrase(f),
            format_bytes(w.window - w.queued),
            format_duration(w.base_rtt),
        ),
    ))
}

/// The headline's first words, by which the evidence knows it was said (`link_rate`).
pub(super) const OPENING: &str = "The receive window and the path's bottleneck were full together";

/// The bottleneck's rate for `Evidence::link_rate_bps` where this headline was said.
pub(super) fn link_rate(f: &Facts, text: &str) -> Option<f64> {
    text.contains(OPENING).then(|| full_together(f)).flatten().map(|w| w.rate_bps)
}
