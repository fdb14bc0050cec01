//! "Why was it slow?" — the headline limit of a connection and its explanation in
//! numbers (DESIGN.md "Limit diagnosis", after T-RAT, SIGCOMM 2002, and RFC 4898's
//! SndLim states). The time shares come from `diagnosis_shares`; this file picks the
//! headline and writes the text.
//!
//! Headline, in order:
//! 1. `too-short`: fewer than [`MIN_DATA_SEGMENTS`] data segments, or an active time
//!    shorter than [`MIN_ROUND_TRIPS`] minimum RTTs — unless stalls fill at least half
//!    of the active time (then the stalls are the story, see 2). Such a flow never left slow start
//!    (initial window 10 segments, RFC 6928; slow start doubles per round trip), so no
//!    steady-state limit can be seen: every flow that short "looks" cwnd-limited.
//! 2. The largest share of the active time wins (T-RAT's "dominant limiting factor"):
//!    - receive-window → `receive-window`, BUT only if the flow's rate reached at least
//!      [`WINDOW_CAP_FRACTION`] of the window cap (max window / min RTT). Bytes in flight
//!      = rate × RTT. A truly window-limited flow runs at ≈ window / RTT with the RTT
//!      near its minimum (no queue). When the *link* is the bottleneck, its queue
//!      fills, the RTT grows, and in flight (= link rate × inflated RTT) grows until it
//!      touches the window — the Wi-Fi uplink story: in flight kept touching a 3 MB
//!      window, yet with 6 MB throughput hardly changed. Then the rate is far below
//!      window / min RTT and the median RTT ≫ min RTT; that flow is `path`-limited and
//!      a bigger window would only lengthen the queue.
//!    - loss → `loss`; application → `application`;
//!    - other (cwnd/path) → `path`, unless the congestion window was evidently held down
//!      by loss: segments were retransmitted (rate p = retransmitted / data segments),
//!      the flow's rate is at most [`MATHIS_FACTOR`] × the Mathis et al. loss-limited
//!      rate MSS/RTT × 1.22/√p (median RTT), and there was no queueing (median RTT <
//!      [`QUEUEING_RTT_RATIO`] × min). Recovery periods alone undercount loss: after
//!      each loss the sender halves its window and spends the following round trips
//!      cwnd-limited ("other"), which is still time lost to loss. Without a queue the
//!      link wasn't full, so the loss was random (not the flow overflowing its own
//!      bottleneck buffer, which is a path limit) → `loss`;
//!    - stalled → `zero-window` if zero-window stalls are at least half of the stalled
//!      time, `application` if application-idle stalls are, else `stalls`.

use super::bdp::{mathis_rate_bps, recommended_window, window_cap_bps};
use super::diagnosis_format::{format_bytes, format_duration, format_percent, format_rate};
use super::diagnosis_shares::{time_shares, TimeShares};
use super::{ConnectionColumns, ConnectionSummary, Diagnosis, DiagnosisShares};

/// Below this many data segments a flow is `too-short`: ten segments is Linux's
/// initial congestion window (RFC 6928), i.e. the flow fitted in its first flight.
pub const MIN_DATA_SEGMENTS: u64 = 10;
/// Below this many minimum RTTs of active time a flow is `too-short`.
pub const MIN_ROUND_TRIPS: f64 = 4.0;
/// A window-limited flow must reach this fraction of max window / min RTT (see above).
pub const WINDOW_CAP_FRACTION: f64 = 0.5;
/// A cwnd-limited flow whose rate is within this factor of the Mathis rate is `loss`.
/// Mathis' constant is for Reno; CUBIC recovers faster and can beat it by ~2× at
/// short RTTs, hence the slack.
pub const MATHIS_FACTOR: f64 = 2.0;
/// Median RTT / min RTT above which we speak of queueing on the path (text only).
pub const QUEUEING_RTT_RATIO: f64 = 1.5;

const CAUSE_WORDS: [&str; 6] = [
    "zero window",
    "window-limited",
    "retransmission timeout",
    "application idle",
    "waiting on ACKs",
    "unknown cause",
];

/// The headline limit of a connection and its explanation; `conn.diagnosis` is a
/// placeholder when this is called. Uses `conn.directions[data].stalls`.
pub fn diagnose(conn: &ConnectionSummary, cols: &ConnectionColumns) -> Diagnosis {
    let d = conn.data_direction.min(1);
    let sender = &conn.directions[d as usize];
    let sh = time_shares(&cols.packets, d, &sender.stalls);
    let (min_rtt, median_rtt) = rtts(conn, cols, d);
    let shares = if sh.active > 0.0 {
        DiagnosisShares {
            receive_window: sh.receive_window / sh.active,
            loss: sh.loss / sh.active,
            application: sh.application / sh.active,
            stalled: sh.stalled / sh.active,
            other: sh.other / sh.active,
        }
    } else {
        DiagnosisShares::default()
    };
    let mut max_window = sh.max_window;
    if !max_window.is_finite() {
        max_window = conn.directions[1 - d as usize].receive_window.map_or(f64::NAN, |w| w.max as f64);
    }
    if !sh.windows_trusted {
        max_window = f64::NAN; // raw windows of an unknown scale: no cap to quote
    }
    let f = Facts { sh: &sh, shares, min_rtt, median_rtt, max_window, rate: rate(&sh), conn };
    let (limit, text) = headline(&f);
    Diagnosis { limit: limit.to_string(), text, shares }
}

/// Everything the text may quote.
struct Facts<'a> {
    sh: &'a TimeShares,
    shares: DiagnosisShares,
    /// Seconds; NaN when unknown.
    min_rtt: f64,
    median_rtt: f64,
    max_window: f64,
    rate: f64,
    conn: &'a ConnectionSummary,
}

/// Average rate of new data from the first data segment until all was acknowledged, bit/s.
fn rate(sh: &TimeShares) -> f64 {
    if sh.transfer_time > 0.0 {
        sh.new_bytes * 8.0 / sh.transfer_time
    } else {
        f64::NAN
    }
}

/// (min, median) RTT of the data direction in seconds: the summary's, else the columns'.
fn rtts(conn: &ConnectionSummary, cols: &ConnectionColumns, d: u8) -> (f64, f64) {
    let mut samples: Vec<f64> = (0..cols.rtt.rtt_ms.len())
        .filter(|&i| cols.rtt.dir[i] == d && cols.rtt.rtt_ms[i].is_finite())
        .map(|i| cols.rtt.rtt_ms[i])
        .collect();
    samples.sort_by(|a, b| a.total_cmp(b));
    let col_min = samples.first().copied();
    let col_med = if samples.is_empty() { None } else { Some(samples[samples.len() / 2]) };
    let s = &conn.directions[d as usize].rtt;
    let min = s.min_ms.or(col_min).map_or(f64::NAN, |v| v / 1000.0);
    let med = s.median_ms.or(col_med).map_or(f64::NAN, |v| v / 1000.0);
    (min, med)
}

fn headline(f: &Facts) -> (&'static str, String) {
    let sh = f.sh;
    // A short flow that spent most of its time stalled is not "too short": its stalls
    // (e.g. a connection retrying with exponential RTO backoff) are the story.
    let short = sh.data_segments < MIN_DATA_SEGMENTS
        || sh.active <= 0.0
        || (f.min_rtt > 0.0 && sh.active < MIN_ROUND_TRIPS * f.min_rtt);
    if short && f.shares.stalled < 0.5 {
        return ("too-short", too_short_text(f));
    }
    let s = f.shares;
    let mut best = ("receive-window", s.receive_window);
    for cand in [("loss", s.loss), ("application", s.application), ("stalls", s.stalled), ("path", s.other)] {
        if cand.1 > best.1 {
            best = cand;
        }
    }
    match best.0 {
        "receive-window" => {
            let cap = window_cap_bps(f.max_window, f.min_rtt);
            if cap.is_finite() && f.rate < WINDOW_CAP_FRACTION * cap {
                ("path", path_not_window_text(f, cap))
            } else {
                ("receive-window", window_text(f, cap))
            }
        }
        "loss" => ("loss", loss_text(f)),
        "application" => ("application", application_text(f)),
        "stalls" => {
            let zw = sh.stall_by_cause[0];
            let idle = sh.stall_by_cause[3];
            if zw >= sh.stalled / 2.0 {
                ("zero-window", zero_window_text(f))
            } else if idle >= sh.stalled / 2.0 {
                ("application", application_text(f))
            } else {
                ("stalls", stalls_text(f))
            }
        }
        _ if loss_held_cwnd(f) => ("loss", loss_text(f)),
        _ => ("path", path_text(f)),
    }
}

fn queueing(f: &Facts) -> bool {
    f.median_rtt.is_finite() && f.min_rtt > 0.0 && f.median_rtt >= QUEUEING_RTT_RATIO * f.min_rtt
}

/// Loss rate p of the data direction (retransmitted / data segments).
fn loss_rate(f: &Facts) -> f64 {
    f.sh.retransmitted_segments as f64 / f.sh.data_segments.max(1) as f64
}

/// The cwnd was held down by (random) loss: see the module comment.
fn loss_held_cwnd(f: &Facts) -> bool {
    let p = loss_rate(f);
    let rtt = if f.median_rtt.is_finite() { f.median_rtt } else { f.min_rtt };
    p > 0.0
        && rtt > 0.0
        && !queueing(f)
        && f.rate <= MATHIS_FACTOR * mathis_rate_bps(f.sh.mss, rtt, p)
}

fn rate_phrase(f: &Facts) -> String {
    format!("the flow averaged {}", format_rate(f.rate))
}

fn rtt_phrase(f: &Facts) -> String {
    if f.min_rtt.is_finite() {
        format!("a minimum RTT of {}", format_duration(f.min_rtt))
    } else {
        "an unknown RTT (no RTT samples)".to_string()
    }
}

fn too_short_text(f: &Facts) -> String {
    format!(
        "Too short to judge: {} data segment{} ({}) in {}{}. A flow needs at least {} data \
         segments over {} round trips to leave slow start before any limit shows.",
        f.sh.data_segments,
        if f.sh.data_segments == 1 { "" } else { "s" },
        format_bytes(f.sh.new_bytes.max(0.0)),
        format_duration(f.sh.active.max(0.0)),
        if f.min_rtt.is_finite() { format!(" with {}", rtt_phrase(f)) } else { String::new() },
        MIN_DATA_SEGMENTS,
        MIN_ROUND_TRIPS,
    )
}

fn window_text(f: &Facts, cap: f64) -> String {
    let win = format_bytes(f.max_window);
    let mut t = format!("The receiver never advertised more than {}. ", win);
    if cap.is_finite() {
        t += &format!("With {} that caps throughput at {}; ", rtt_phrase(f), format_rate(cap));
    }
    let rec = recommended_window(f.max_window);
    t += &format!(
        "{} and was window-limited {} of the time. Raise the receiver's buffer (e.g. \
         net.ipv4.tcp_rmem) to at least {}",
        rate_phrase(f),
        format_percent(f.shares.receive_window),
        format_bytes(rec)
    );
    if cap.is_finite() {
        t += &format!(" (enough for {} at this RTT)", format_rate(window_cap_bps(rec, f.min_rtt)));
    }
    t + "."
}

fn queue_phrase(f: &Facts) -> String {
    if queueing(f) {
        format!(
            " The median RTT grew to {} (minimum {}): packets queued at the bottleneck.",
            format_duration(f.median_rtt),
            format_duration(f.min_rtt)
        )
    } else {
        String::new()
    }
}

fn path_not_window_text(f: &Facts, cap: f64) -> String {
    format!(
        "Bytes in flight reached the receiver's {} window {} of the time, but the window \
         was not the limit: at {} it allows {}, and {}.{} The path (link capacity or \
         congestion) limited this flow; a larger window would only lengthen the queue.",
        format_bytes(f.max_window),
        format_percent(f.shares.receive_window),
        rtt_phrase(f),
        format_rate(cap),
        rate_phrase(f),
        queue_phrase(f)
    )
}

fn path_text(f: &Facts) -> String {
    let s = f.shares;
    let mut t = format!(
        "Neither the receive window ({} of the time), loss ({}) nor the application ({}) \
         limited this flow; {} with {}",
        format_percent(s.receive_window),
        format_percent(s.loss),
        format_percent(s.application),
        rate_phrase(f),
        rtt_phrase(f)
    );
    if f.max_window.is_finite() && f.min_rtt > 0.0 {
        t += &format!(
            ", below the {} that the {} window would allow",
            format_rate(window_cap_bps(f.max_window, f.min_rtt)),
            format_bytes(f.max_window)
        );
    }
    t += ". The congestion window or the path's capacity was the limit.";
    t += &queue_phrase(f);
    if !f.sh.windows_trusted {
        t += " (The receiver's window scale is unknown — the handshake is not in the \
              capture — so receive-window limits cannot be judged.)";
    }
    t
}

fn loss_text(f: &Facts) -> String {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    let retrans = sender.retransmissions.max(f.sh.retransmitted_segments);
    let rto = f.sh.stall_by_cause[2];
    let mut t = format!(
        "Loss limited this flow: {} of {} data segments were retransmissions ({:.1} %), \
         and the sender spent {} of the time recovering from loss",
        retrans,
        f.sh.data_segments,
        loss_rate(f) * 100.0,
        format_percent(f.shares.loss)
    );
    if rto > 0.0 {
        t += &format!(" plus {} waiting on retransmission timeouts", format_duration(rto));
    }
    t += &format!("; {}", rate_phrase(f));
    let rtt = if f.median_rtt.is_finite() { f.median_rtt } else { f.min_rtt };
    if loss_held_cwnd(f) {
        t += &format!(
            " (TCP sustains about {} at this loss rate and a {} RTT, Mathis et al.)",
            format_rate(mathis_rate_bps(f.sh.mss, rtt, loss_rate(f))),
            format_duration(rtt)
        );
    }
    t + "."
}

fn application_text(f: &Facts) -> String {
    let idle = f.sh.stall_by_cause[3];
    let mut t = format!(
        "The sending application limited this flow: {} of the time everything sent had \
         been acknowledged and the sender still had nothing to send",
        format_percent(f.shares.application + idle / f.sh.active)
    );
    if idle > 0.0 {
        t += &format!(" (idle gaps totalling {})", format_duration(idle));
    }
    t + &format!("; {}. The network was not the bottleneck.", rate_phrase(f))
}

fn zero_window_text(f: &Facts) -> String {
    format!(
        "The receiver's window fell to zero: the sender was stalled for {} ({} of the \
         transfer) until the receiving application read its data and the window reopened. \
         The receiving application (or its buffer) is too slow; {}.",
        format_duration(f.sh.stall_by_cause[0]),
        format_percent(f.sh.stall_by_cause[0] / f.sh.active),
        rate_phrase(f)
    )
}

fn stalls_text(f: &Facts) -> String {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    let mut by_time: Vec<(f64, &str)> =
        f.sh.stall_by_cause.iter().copied().zip(CAUSE_WORDS).filter(|p| p.0 > 0.0).collect();
    by_time.sort_by(|a, b| b.0.total_cmp(&a.0)); // the biggest cause first
    let parts: Vec<String> =
        by_time.iter().map(|(secs, words)| format!("{} {}", format_duration(*secs), words)).collect();
    format!(
        "The transfer stalled {} time{} for {} in total ({} of the time): {}; {}.",
        sender.stalls.len(),
        if sender.stalls.len() == 1 { "" } else { "s" },
        format_duration(f.sh.stalled),
        format_percent(f.shares.stalled),
        parts.join(", "),
        rate_phrase(f)
    )
}

#[cfg(test)]
#[path = "diagnosis_tests.rs"]
mod tests;
