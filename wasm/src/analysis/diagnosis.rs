//! "Why was it slow?" — the headline limit of a connection and its explanation in
//! numbers (DESIGN.md "Limit diagnosis", after T-RAT, SIGCOMM 2002, and RFC 4898's
//! SndLim states). The time shares come from `diagnosis_shares`; this file picks the
//! headline and writes the text.
//!
//! Headline, in order:
//! 1. `too-short`: fewer than [`MIN_DATA_SEGMENTS`] data segments, or an active time
//!    shorter than [`MIN_ROUND_TRIPS`] minimum RTTs. Such a flow never left slow start
//!    (initial window 10 segments, RFC 6928; slow start doubles per round trip), so no
//!    steady-state limit can be seen: every flow that short "looks" cwnd-limited.
//!    Unless stalls fill at least half of the active time: then the stalls are the
//!    story (e.g. a connection retrying with RTO backoff), see 2.
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
//!      by loss: segments were retransmitted, loss recovery took at least
//!      [`LOSS_SHARE_MIN`] of the time, and there was no queueing (median RTT <
//!      [`QUEUEING_RTT_RATIO`] × min). Recovery periods alone undercount loss: after
//!      each loss the sender cuts its congestion window and spends the following round
//!      trips cwnd-limited ("other"), which is still time lost to loss. And without a
//!      standing queue the bottleneck link was not full, so its capacity was not the
//!      limit; a path-limited flow (the healthy examples) fills the bottleneck buffer
//!      and its RTT grows. So: no queue + loss → `loss`. Caveat, said in the text: BBR
//!      paces at the bottleneck rate without a standing queue and cuts little on loss,
//!      so a BBR flow can be link-limited with loss and no queue. (We tried the Mathis
//!      et al. formula, rate ≈ MSS/RTT × 1.22/√p, as the test instead: Linux (BBR, SACK)
//!      beat it 4-5× on the 1 % loss example, so it can't tell loss-limited from not.)
//!    - stalled → `zero-window` if zero-window stalls are at least
//!      [`DOMINANT_CAUSE_SHARE`] of the stalled time, `application` if application-idle
//!      stalls are, else `stalls` (a mix of causes is the story: the stalls example,
//!      with application pauses, a delay burst and an RTO, reads best as a list).

use super::bdp::{recommended_window, window_cap_bps};
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
/// Share of the stalled time one stall cause must explain to name the headline.
pub const DOMINANT_CAUSE_SHARE: f64 = 0.75;
/// A cwnd-limited flow without queueing is `loss` if recovery took this share of time.
pub const LOSS_SHARE_MIN: f64 = 0.1;
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

/// (min, median) RTT of the direction's data in ms: the summary's, else the columns'.
fn direction_rtt(conn: &ConnectionSummary, cols: &ConnectionColumns, d: u8) -> (Option<f64>, Option<f64>) {
    let mut samples: Vec<f64> = (0..cols.rtt.rtt_ms.len())
        .filter(|&i| cols.rtt.dir[i] == d && cols.rtt.rtt_ms[i].is_finite())
        .map(|i| cols.rtt.rtt_ms[i])
        .collect();
    samples.sort_by(|a, b| a.total_cmp(b));
    let col_min = samples.first().copied();
    let col_med = if samples.is_empty() { None } else { Some(samples[samples.len() / 2]) };
    let s = &conn.directions[d as usize].rtt;
    (s.min_ms.or(col_min), s.median_ms.or(col_med))
}

/// (min, median) round-trip time of the connection in seconds. An RTT sample measured
/// in a capture covers only capture point → far end → capture point: at the sender
/// it is the whole round trip, at the receiver almost nothing, in the middle of the
/// path a part. The two directions' samples cover the two parts, so the round trip
/// is the data direction's plus the reverse direction's minimum (like Wireshark's
/// iRTT, SYN→SYN/ACK plus SYN/ACK→ACK). The reverse part is added at its minimum to
/// the median too: queueing shows on the data's path.
fn rtts(conn: &ConnectionSummary, cols: &ConnectionColumns, d: u8) -> (f64, f64) {
    let (min, med) = direction_rtt(conn, cols, d);
    let back = direction_rtt(conn, cols, 1 - d).0.unwrap_or(0.0);
    let s = |v: Option<f64>| v.map_or(f64::NAN, |ms| (ms + back) / 1000.0);
    (s(min), s(med))
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
            if zw >= DOMINANT_CAUSE_SHARE * sh.stalled {
                ("zero-window", zero_window_text(f))
            } else if idle >= DOMINANT_CAUSE_SHARE * sh.stalled {
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

/// Retransmitted segments of the data direction: the analyzer's count (Wireshark's
/// rules) or ours (segments starting below the highest sequence sent), the larger.
fn retransmissions(f: &Facts) -> u64 {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    sender.retransmissions.max(f.sh.retransmitted_segments)
}

/// The cwnd was held down by loss: see the module comment.
fn loss_held_cwnd(f: &Facts) -> bool {
    retransmissions(f) > 0 && f.shares.loss >= LOSS_SHARE_MIN && !queueing(f)
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
    let retrans = retransmissions(f);
    let rto = f.sh.stall_by_cause[2];
    let mut t = format!(
        "Loss limited this flow: {} of {} data segments were retransmissions ({:.1} %), \
         and the sender spent {} of the time recovering from loss",
        retrans,
        f.sh.data_segments,
        retrans as f64 * 100.0 / f.sh.data_segments.max(1) as f64,
        format_percent(f.shares.loss)
    );
    if rto > 0.0 {
        t += &format!(" plus {} waiting on retransmission timeouts", format_duration(rto));
    }
    t += &format!("; {}", rate_phrase(f));
    if f.shares.other > f.shares.loss && f.max_window.is_finite() && f.min_rtt > 0.0 {
        // Reached through loss_held_cwnd: say why it isn't the path.
        t += &format!(
            ", far below the {} its {} window allows, with the RTT near its {} minimum \
             (no standing queue at the bottleneck). A loss-based sender (CUBIC, Reno) \
             cuts its congestion window at every loss; BBR suffers less, and with it the \
             link itself may have been the limit",
            format_rate(window_cap_bps(f.max_window, f.min_rtt)),
            format_bytes(f.max_window),
            format_duration(f.min_rtt)
        );
    }
    t + "."
}

/// " Other stalls: 300 ms retransmission timeout, …" for the causes but `skip`.
fn other_stalls_phrase(f: &Facts, skip: usize) -> String {
    let mut rest: Vec<(f64, &str)> = (0..6)
        .filter(|&k| k != skip && f.sh.stall_by_cause[k] > 0.0)
        .map(|k| (f.sh.stall_by_cause[k], CAUSE_WORDS[k]))
        .collect();
    if rest.is_empty() {
        return String::new();
    }
    rest.sort_by(|a, b| b.0.total_cmp(&a.0));
    let parts: Vec<String> = rest.iter().map(|(s, w)| format!("{} {}", format_duration(*s), w)).collect();
    format!(" Other stalls: {}.", parts.join(", "))
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
    t + &format!("; {}. Mostly the application, not the network, was the bottleneck.", rate_phrase(f))
        + &other_stalls_phrase(f, 3)
}

fn zero_window_text(f: &Facts) -> String {
    format!(
        "The receiver's window fell to zero: the sender was stalled for {} ({} of the \
         transfer) until the receiving application read its data and the window reopened. \
         The receiving application (or its buffer) is too slow; {}.{}",
        format_duration(f.sh.stall_by_cause[0]),
        format_percent(f.sh.stall_by_cause[0] / f.sh.active),
        rate_phrase(f),
        other_stalls_phrase(f, 0)
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
