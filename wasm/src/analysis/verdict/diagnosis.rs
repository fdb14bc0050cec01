//! "Why was it slow?" — the headline limit of a connection and its explanation in
//! numbers (DESIGN.md "Limit diagnosis", after T-RAT, SIGCOMM 2002, and RFC 4898's
//! SndLim states). The time shares come from `diagnosis_shares`; this file picks the
//! headline and writes the text.
//!
//! Headline, in order:
//! 0. `one-direction`: the capture holds packets of one direction only (asymmetric
//!    routing, a tap or SPAN port on one direction, a capture filter on one address).
//!    Everything a limit is judged by needs the other direction: the receiver's
//!    window and ACKs (RFC 9293 §3.8.6) give bytes in flight, the round trip and the
//!    losses; without them any headline would be a guess (Wireshark's "ACKed unseen
//!    segment" / "previous segment not captured" say the same per packet).
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
//!    - loss → `loss` only if removing it would matter (`loss_matters`: the sender
//!      stayed near the Mathis et al. bound for a loss-based sender, recovery pinned
//!      its window, or it fell well short of its sustained best); otherwise `path`,
//!      with the loss's cost said ("a BBR flow at 90.6 of 100 Mbit/s with 2 % loss").
//!    - application → `application` (idle time between bursts; periods in which the
//!      bursts themselves crawled are named as episodes);
//!    - other (cwnd/path) → `path`, unless the congestion window was evidently held down
//!      by loss: segments were retransmitted, loss recovery took at least
//!      [`LOSS_SHARE_MIN`] of the time, and there was no queueing (median RTT <
//!      [`QUEUEING_RTT_RATIO`] × min). Recovery periods alone undercount loss: after
//!      each loss the sender cuts its congestion window and spends the following round
//!      trips cwnd-limited ("other"), which is still time lost to loss. And without a
//!      standing queue the bottleneck link was not full, so its capacity was not the
//!      limit; a path-limited flow (the healthy examples) fills the bottleneck buffer
//!      and its RTT grows. So: no queue + loss → `loss`, again only if it mattered.
//!    - stalled (ack-wait / unknown stalls; every other stall's time is in its cause's
//!      share, DESIGN.md) → `stalls`, listed by cause.
//!    A receive-window share made mostly of zero-window stalls is `zero-window`.

use crate::analysis::rates::bdp::{recommended_window, window_cap_bps};
use crate::analysis::format::{format_bytes, format_duration, format_percent, format_rate, format_timestamp, timers_phrase};
use crate::analysis::verdict::diagnosis_shares::{time_shares_with, TimeShares};
use crate::analysis::verdict::diagnosis_episodes as episodes;
use crate::analysis::stalls::SenderFacts;
use crate::analysis::rows::columns::{PacketColumns, RttSource, SackSource};
use crate::analysis::rates::delivered::{self, DeliveredRates};
use std::cell::OnceCell;
use crate::analysis::verdict::savings::{self, saving_of, Saving};
use crate::analysis::rows::columns::ConnectionColumns;
use crate::analysis::report::ConnectionSummary;
use crate::analysis::report::Diagnosis;
use crate::analysis::report::DiagnosisShares;
use crate::analysis::report::Episode;
use crate::analysis::report::Evidence;

/// Below this many data segments a flow is `too-short`: ten segments is Linux's
/// initial congestion window (RFC 6928), i.e. the flow fitted in its first flight.
pub const MIN_DATA_SEGMENTS: u64 = 10;
/// Below this many minimum RTTs of active time a flow is `too-short`.
pub const MIN_ROUND_TRIPS: f64 = 4.0;
/// A window-limited flow must reach this fraction of max window / min RTT (see above).
pub const WINDOW_CAP_FRACTION: f64 = 0.5;
/// A cwnd-limited flow without queueing is `loss` if recovery took this share of time.
pub const LOSS_SHARE_MIN: f64 = 0.1;
/// Median RTT / min RTT above which we speak of queueing on the path (text only).
pub const QUEUEING_RTT_RATIO: f64 = 1.5;
/// A share of the time from which the path text names a limit as holding the sender,
/// not as one that did not limit.
pub const NAMED_SHARE: f64 = 0.2;

const CAUSE_WORDS: [&str; 6] = [
    "zero window",
    "window-limited",
    "retransmission timeout",
    "application idle",
    "waiting on ACKs",
    "unknown cause",
];

/// The headline limit of a connection and its explanation; `conn.diagnosis` is a
/// placeholder when this is called. Uses `conn.directions[data].stalls`, the
/// connection's path RTT (vantage.rs) and the RTT columns (for episodes): their
/// measured parts, as `ConnStore::columns` gives them (round_trips.rs adds the rest;
/// `Analysis::columns` has added it already).
pub fn diagnose(conn: &ConnectionSummary, cols: &ConnectionColumns, tick: f64) -> Diagnosis {
    let one_direction = crate::analysis::verdict::one_direction::judge(conn, &cols.packets);
    let rows = Rows { packets: &cols.packets, rtt: &cols.rtt, sacks: &cols.sack };
    diagnose_keeping_spans(conn, rows, tick, None, None, one_direction)
}

/// What the diagnosis reads of a connection's rows: the packet columns, and the RTT
/// samples and SACK blocks from any source (summary.rs reads those two from the
/// compact store instead of materializing them).
#[derive(Clone, Copy)]
pub struct Rows<'a> {
    pub packets: &'a PacketColumns,
    pub rtt: &'a dyn RttSource,
    pub sacks: &'a dyn SackSource,
}

/// [`diagnose`] with the rows from any source ([`Rows`]); with `spans`, the data direction's window-limited spans from the
/// same pass go there as `(direction, spans, active seconds)`
/// (diagnosis_shares::window_limited_spans, which the view would otherwise redo).
/// `facts`: the data direction's, if the stall pass already found them (used when
/// they are of that direction and lag). `one_direction`: `one_direction::judge` of
/// the connection (summary.rs needs it first, for the rate's clock: one pass, not two).
pub fn diagnose_keeping_spans(
    conn: &ConnectionSummary,
    rows: Rows,
    tick: f64,
    spans: Option<&mut (u8, Vec<(f64, f64)>, f64)>,
    facts: Option<&SenderFacts>,
    one_direction: Option<crate::analysis::verdict::one_direction::OneDirection>,
) -> Diagnosis {
    let Rows { packets, rtt, .. } = rows;
    let d = conn.data_direction.min(1);
    let sender = &conn.directions[d as usize];
    let receiver = &conn.directions[1 - d as usize];
    let lag_s = conn.sender_lag_ms / 1000.0;
    let facts = match facts {
        Some(f) if f.fits(d, lag_s) => *f,
        _ => SenderFacts::of(packets, d, lag_s, !receiver.window_scale_unknown),
    };
    let mut kept = spans.is_some().then(Vec::new);
    let sh = time_shares_with(packets, &facts, &sender.stalls, kept.as_mut());
    if let (Some(out), Some(s)) = (spans, kept) {
        *out = (d, s, sh.active);
    }
    // Request/response: the peer's data is requests, each ACKed by the answer after
    // the application's think time (RFC 1122 §4.2.3.2 piggy-backing).
    let request_response = sh.turns > 0 || sh.peer_wait > 0.0;
    let (min_rtt, median_rtt) = rtts(conn, request_response);
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
        max_window = receiver.receive_window.map_or(f64::NAN, |w| w.max as f64);
    }
    // With the scale unknown the raw windows understate the window: quote the
    // inferred lower bound (raw × 2^bound, where in flight exceeded the raw window).
    let mut window_inferred = false;
    if !sh.windows_trusted || receiver.window_scale_unknown {
        max_window = match (receiver.window_scale_lower_bound, receiver.receive_window) {
            (Some(lb), Some(w)) => {
                window_inferred = true;
                (w.max as f64) * f64::from(1u32 << lb.min(14))
            }
            _ => f64::NAN,
        };
    }
    let rate = if sender.throughput.active_mean_bps > 0.0 { sender.throughput.active_mean_bps } else { f64::NAN };
    let episodes = episodes::find(conn, packets, rtt, &sh, min_rtt, tick);
    let network_periods = episodes.iter().any(|e| matches!(e.kind, "loss" | "outage"));
    let timer_stalls = episodes::timer_counts(&sender.stalls, packets, f64::NEG_INFINITY, f64::INFINITY);
    let mut f = Facts { sh: &sh, shares, min_rtt, median_rtt, max_window, window_inferred, rate, conn, tick, rows, delivered: OnceCell::new(), network_periods, timer_stalls, savings: Vec::new() };
    if let Some(od) = one_direction {
        let text = crate::analysis::verdict::one_direction::text(conn, od);
        // Nothing else is said: every episode and share needs the missing direction.
        let evidence = Evidence { rtt_ms: None, window_bytes: None, window_inferred: false, rate_bps: None, cap_bps: None, link_rate_bps: None, verdict: "unknown" };
        return Diagnosis { limit: "one-direction".to_string(), text, shares, evidence, episodes: Vec::new(), savings: Vec::new() };
    }
    // The loss's price needs the delivered rates (a pass over the rows): only where
    // there was recovery.
    let cost = if sh.loss > 0.0 { loss_cost(&f) } else { 0.0 };
    f.savings = savings::savings(&sh, &sender.stalls, min_rtt, cost);
    let (limit, mut text) = headline(&f);
    let mut named: Vec<&Episode> = episodes.iter().collect();
    named.sort_by_key(|e| episodes::priority(e.kind));
    for e in named.into_iter().take(2) {
        text += &format!(" {}", e.text);
    }
    // Nagle meeting delayed ACKs, in either direction (a request's stalls make the
    // response side look idle): the fix is in the sockets (delayed_ack.rs).
    if let Some(a) = conn.directions.iter().find_map(|d| crate::analysis::stalls::delayed_ack::advice(&d.stalls, conn.end - conn.start)) {
        text += &format!(" {a}");
    }
    if let Some(e) = ecn_text(conn) {
        text += &format!(" {e}");
    }
    if let Some(c) = capture_loss_text(conn) {
        text += &format!(" {c}");
    }
    // A reset, a refusal, an alert or data never acknowledged (ending.rs).
    if let Some(e) = ending_sentence(conn) {
        text += &format!(" {e}");
    }
    let cap = window_cap_bps(max_window, min_rtt);
    let verdict = match limit {
        "receive-window" | "zero-window" => "window",
        "path" => "link",
        "loss" => "loss",
        "application" => "application",
        "stalls" => "stalls",
        _ => "unknown",
    };
    let finite = |v: f64| v.is_finite().then_some(v);
    let evidence = Evidence {
        rtt_ms: conn.path_rtt_ms,
        window_bytes: finite(max_window),
        window_inferred,
        rate_bps: finite(rate),
        cap_bps: finite(cap),
        link_rate_bps: if verdict == "link" { link_rate(&f) } else { None },
        verdict,
    };
    Diagnosis { limit: limit.to_string(), text, shares, evidence, episodes, savings: f.savings }
}

/// The bottleneck's rate, where the capture shows it (issue 39 item 5): the rate its
/// receiver's ACKs report delivered at the flow's sustained best (delivered.rs: the p90
/// of bins of at least 100 ms or 4 path RTTs; BBR's estimate of the bottleneck is the
/// same maximum of the delivery rate, Cardwell et al. 2016), and only where a standing
/// queue shows the bottleneck was full ([`queueing`]: median RTT ≥ 1.5 × its minimum),
/// so that its delivery rate is its capacity. Never the mean rate: a flow that paused
/// or stalled averages below its link (a ~5 Mbit/s link 79 % busy once read "link rate
/// 4 Mbit/s"). None otherwise: the calculator then says its rate is a lower bound.
fn link_rate(f: &Facts) -> Option<f64> {
    let best = f.delivered().best_bps;
    (queueing(f) && best.is_finite() && best > 0.0).then_some(best)
}

/// Appends the latency-under-load sentence and episode once the path's base RTT is
/// known (summary.rs `set_base_rtts`): the RTT this connection saw (median) against
/// the smallest any connection between the same hosts saw. flent's headline number.
pub fn note_latency_under_load(conn: &mut ConnectionSummary, base_ms: f64) {
    let rtt = &conn.directions[queue_direction(conn, false)].rtt;
    // A median of a few samples is one answer's delay (a server's think time on a reply
    // carrying the ACK, a receiver's delayed ACK), not a standing queue: a queue shows
    // on a flow's every round trip. At least [`LATENCY_MIN_SAMPLES`] (issue 39: one
    // sample of a 4-packet POST read "the RTT rose from 4 ms to 29 ms").
    if rtt.samples < LATENCY_MIN_SAMPLES {
        return;
    }
    let Some(median) = rtt.median_ms else { return };
    // Only news when another connection saw a lower base than this one's own path
    // RTT (its own queueing is said by the headline's queue phrase).
    if !conn.path_rtt_ms.is_some_and(|own| base_ms < 0.9 * own) {
        return;
    }
    if !(median >= LATENCY_UNDER_LOAD_RATIO * base_ms && median - base_ms >= 0.010 * 1000.0) {
        return;
    }
    let text = format!(
        "Latency under load: the RTT rose from {} (the path's base, the smallest any connection \
         between these hosts saw) to {} (median, {:.0}×).",
        format_duration(base_ms / 1000.0),
        format_duration(median / 1000.0),
        median / base_ms
    );
    conn.diagnosis.text += &format!(" {text}");
    conn.diagnosis.episodes.push(Episode { start: conn.start, end: conn.end, kind: "latency", text });
}

/// Median RTT / base RTT from which we speak of latency under load.
pub const LATENCY_UNDER_LOAD_RATIO: f64 = 2.0;
/// Round-trip samples a median needs before latency under load is said of it.
pub const LATENCY_MIN_SAMPLES: u64 = 10;

/// Everything the text may quote.
struct Facts<'a> {
    sh: &'a TimeShares,
    shares: DiagnosisShares,
    /// Seconds; NaN when unknown.
    min_rtt: f64,
    median_rtt: f64,
    max_window: f64,
    window_inferred: bool,
    /// Mean while sending (throughput.rs `active_mean_bps`), bit/s.
    rate: f64,
    conn: &'a ConnectionSummary,
    /// Capture clock tick, s.
    tick: f64,
    /// The connection's rows, for what is computed only when a rule asks (`delivered`).
    rows: Rows<'a>,
    /// The delivered rate's sustained best and steady mean (delivered.rs), bit/s: see
    /// [`Facts::delivered`].
    delivered: OnceCell<DeliveredRates>,
    /// An episode shows the network slowing the bursts down (loss, outage).
    network_periods: bool,
    /// (tail loss probes, timeouts) that ended the data direction's timeout stalls
    /// (diagnosis_episodes.rs `timer_counts`).
    timer_stalls: (u64, u64),
    /// What removing each priced limit would have saved (savings.rs), largest first.
    savings: Vec<Saving>,
}

impl Facts<'_> {
    /// delivered.rs's rates of the data direction, computed on first use: only the
    /// loss rules read them, and most connections never reach those (a pass over
    /// every row and SACK block saved).
    fn delivered(&self) -> DeliveredRates {
        *self.delivered.get_or_init(|| delivered::delivered_rates(self.rows.packets, self.rows.sacks, self.conn.data_direction.min(1), self.min_rtt))
    }
}

/// (path RTT, median RTT) in seconds. The path RTT is vantage.rs's sum of the two
/// parts' minima. The median is `queue_direction`'s, as full round trips
/// (round_trips.rs).
fn rtts(conn: &ConnectionSummary, request_response: bool) -> (f64, f64) {
    let s = |v: Option<f64>| v.map_or(f64::NAN, |ms| ms / 1000.0);
    (s(conn.path_rtt_ms), s(conn.directions[queue_direction(conn, request_response)].rtt.median_ms))
}

/// The direction whose round trips show the queue: the data direction when its
/// samples add the far part as last measured (a receiver-side capture,
/// round_trips.rs: the RTT the chart and the statistics show), else the one whose own
/// measured part is the larger (the smaller offset, summary.rs), the part that
/// crosses the bottleneck. The data direction on a tie, and always in a
/// request/response exchange (`request_response`): there the other direction's samples
/// are its requests, each ACKed by the answer after the application's think time, not
/// by the path (an SMB session's 40–70 ms answers once read "a queue on the path"
/// beside the data's 0.35 ms median). The other direction needs
/// [`LATENCY_MIN_SAMPLES`] samples.
fn queue_direction(conn: &ConnectionSummary, request_response: bool) -> usize {
    let d = conn.data_direction.min(1) as usize;
    let (me, other) = (&conn.directions[d].rtt, &conn.directions[1 - d].rtt);
    // And never on a handful of samples: a median of two (one of them the handshake's
    // slow SYN/ACK) is no standing queue ([`LATENCY_MIN_SAMPLES`], as for latency under
    // load: a request direction's 160 ms beside the data's 0.41 ms once read "a queue").
    if request_response || me.offset_follows || me.offset_ms <= other.offset_ms || other.samples < LATENCY_MIN_SAMPLES { d } else { 1 - d }
}

fn headline(f: &Facts) -> (&'static str, String) {
    let sh = f.sh;
    // Too short to judge only when the flow moved too little over too few round
    // trips; a flow that spent most of its time stalled (a window that never
    // reopened, RTO backoff) is judged by its stalls, whatever its length.
    let short = sh.data_segments < MIN_DATA_SEGMENTS
        || sh.active <= 0.0
        || (f.min_rtt > 0.0 && sh.active < MIN_ROUND_TRIPS * f.min_rtt);
    if short && (sh.active <= 0.0 || sh.stall_total < 0.5 * sh.active) {
        return ("too-short", too_short_text(f));
    }
    let s = f.shares;
    // The largest share of the time wins (T-RAT's dominant limiting factor).
    let cands = [
        ("receive-window", s.receive_window),
        ("loss", s.loss),
        ("application", s.application),
        ("stalls", s.stalled),
        ("path", s.other),
    ];
    let mut best = cands.iter().fold(cands[0], |b, &c| if c.1 > b.1 { c } else { b }).0;
    if best == "receive-window" && sh.stall_by_cause[0] >= 0.5 * sh.receive_window {
        best = "zero-window";
    }
    // The largest saving is the headline (issue 39 item 4): a share counts time, but a
    // limit whose removal saves less than another's (recovery that still moved data,
    // waits of which a round trip was due anyway) yields to it. The receive window and
    // the path have no price (savings.rs), so they keep their place.
    if let Some(cheaper) = savings::larger_than(&f.savings, best) {
        best = cheaper;
    }
    match best {
        "zero-window" => ("zero-window", zero_window_text(f)),
        "receive-window" => {
            let cap = window_cap_bps(f.max_window, f.min_rtt);
            // A window held below its maximum while the sender filled it is a receiver
            // whose application read slowly (its buffer full of unread data), whatever
            // the RTT did: its slow ACKs and window updates stretch the round trip as a
            // queue would (a printer taking 2,920 B per 7 ms of a 5,840 B buffer on a LAN
            // read "packets queued at the bottleneck").
            if cap.is_finite() && f.rate < WINDOW_CAP_FRACTION * cap && !slow_reader(sh) {
                ("path", path_not_window_text(f, cap))
            } else {
                ("receive-window", window_text(f, cap))
            }
        }
        // Loss is not the limit when removing it would not matter.
        "loss" if loss_matters(f) => ("loss", loss_text(f)),
        "loss" => ("path", path_despite_loss_text(f)),
        "application" => ("application", application_text(f)),
        "stalls" => match clocked_waits(f) {
            Some(w) if w.seconds >= 0.5 * f.sh.stall_by_cause[4] + 0.5 * f.sh.stall_by_cause[5] => ("path", clocked_path_text(f, &w)),
            _ => ("stalls", stalls_text(f)),
        },
        _ if loss_held_cwnd(f) && loss_matters(f) => ("loss", loss_text(f)),
        _ if f.shares.loss >= LOSS_SHARE_MIN && retransmissions(f) > 0 && !loss_matters(f) => ("path", path_despite_loss_text(f)),
        _ => ("path", path_text(f)),
    }
}

/// " {lead}, the transfer would have taken about X instead of Y." for `limit`'s saving
/// (savings.rs): the data direction's active time without it. Empty when unpriced.
fn saving_sentence(f: &Facts, limit: &str, lead: &str) -> String {
    let saved = saving_of(&f.savings, limit);
    if !(saved > 0.0 && f.sh.active > 0.0) {
        return String::new();
    }
    format!(
        " {lead}, the transfer would have taken about {} instead of {}.",
        format_duration(f.sh.active - saved),
        format_duration(f.sh.active)
    )
}

/// The window the sender filled was below 3/4 of its maximum for at least half the
/// window-limited time (`TimeShares::window_shrunk`): the receiver's buffer held data
/// its application had not read — a slow reader, not a small buffer or a queue.
fn slow_reader(sh: &TimeShares) -> bool {
    sh.receive_window > 0.0 && sh.window_shrunk >= 0.5 * sh.receive_window
}

/// Share of the bytes sent that were retransmissions (`retransmitted_percent`): by
/// bytes, so TSO/GRO frames of many segments do not inflate it.
fn loss_rate(f: &Facts) -> f64 {
    retransmitted_percent(f) / 100.0
}

/// A full segment's payload, bytes: from the peer's MSS option when the handshake was
/// captured (delayed_ack.rs `full_segment`), else the largest data segment — which
/// at a host with TSO/GRO is a frame of many segments.
fn segment_bytes(f: &Facts) -> f64 {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize].from;
    crate::analysis::stalls::delayed_ack::full_segment(&f.conn.handshake, sender, f.sh.mss as u32) as f64
}

/// The rate a loss-based sender (Reno/CUBIC in its TCP-friendly region) reaches at
/// loss rate p: MSS/RTT × √(3/2) / √p (Mathis, Semke, Mahdavi & Ott, "The
/// macroscopic behavior of the TCP congestion avoidance algorithm", CCR 1997), bit/s.
fn mathis_rate(f: &Facts) -> f64 {
    let p = loss_rate(f);
    let mss = segment_bytes(f);
    if p <= 0.0 || !(f.min_rtt > 0.0) || mss <= 0.0 {
        return f64::NAN;
    }
    mss * 8.0 / f.min_rtt * (1.5f64).sqrt() / p.sqrt()
}

/// A sender that beat the loss-based bound this many times did not back off on loss.
pub const BEATS_MATHIS: f64 = 3.0;

/// Loss is headlined only if removing it would matter (issue 13): a sender held down
/// by loss runs near the Mathis rate; one that runs far above it (BBR paces at the
/// bottleneck rate and barely reacts to random loss) lost only the retransmitted
/// bytes and the timeouts, which `loss_cheap_text` quantifies. RTO stalls always
/// matter (nothing moved).
fn loss_matters(f: &Facts) -> bool {
    let bound = mathis_rate(f);
    let rto = f.sh.stall_by_cause[2];
    let beat_the_bound = bound.is_finite() && f.rate > BEATS_MATHIS * bound;
    // Recovery pinned the window (the hole holds snd_una, RFC 6675): time lost to loss.
    let blocked = f.sh.loss_window_blocked >= 0.5 * f.sh.loss;
    !beat_the_bound || blocked || loss_cost(f) >= LOSS_COST_MATTERS || rto >= 0.5 * f.sh.loss
}

/// Loss is headlined when it cost at least this share of the rate.
pub const LOSS_COST_MATTERS: f64 = 0.1;

/// What loss cost a sender that did not back off: how far the rate its receiver's
/// ACKs report delivered stayed below its sustained best once the start-up ramp was
/// over (delivered.rs: the steady mean against the p90, over bins of at least 100 ms
/// or 4 path RTTs), and never less than the retransmitted share. A sender at the
/// link's rate throughout (BBR pacing through random loss) loses only what it sent
/// twice; the ramp before it first reached its best is slow start or BBR's startup,
/// not loss (a BBR download of 2 s over an 80 ms path: 15 Mbit/s on average, 19 once
/// started, on a 20 Mbit/s link).
fn loss_cost(f: &Facts) -> f64 {
    let DeliveredRates { best_bps: best, steady_mean_bps: steady } = f.delivered();
    let shortfall = if best.is_finite() && best > 0.0 && steady.is_finite() { (1.0 - steady / best).max(0.0) } else { 0.0 };
    shortfall.max(loss_rate(f))
}

/// The steady rate is quoted beside the mean while active when it is this much higher.
pub const STEADY_ABOVE_MEAN: f64 = 1.1;

/// Headline of a flow with much loss that loss did not slow down (issue 13: "a BBR
/// flow at 90.6 of 100 Mbit/s with 2 % random loss" is not "limited by loss").
fn path_despite_loss_text(f: &Facts) -> String {
    // A transfer shorter than 7 rate bins has no sustained best to quote (NaN):
    // say nothing rather than "its best of –" (rx-ipv6-loss.pcap, 0.5 s).
    let DeliveredRates { best_bps: best, steady_mean_bps: steady } = f.delivered();
    let mut best = if best.is_finite() { format!(", steadily near its best of {}", format_rate(best)) } else { String::new() };
    // A mean dragged down by the start-up ramp (slow start, BBR's startup) is not
    // "near its best": say what it ran at once started (delivered.rs).
    if steady.is_finite() && steady > STEADY_ABOVE_MEAN * f.rate {
        best = format!(", {} once its start-up was over{best}", format_rate(steady));
    }
    format!(
        "The path's capacity limited this flow, not its loss: {}{}.{}",
        rate_phrase(f).replacen("the flow averaged", "it averaged", 1),
        best,
        loss_cheap_text(f)
    )
}

/// "2.0 % of segments were retransmitted, yet …": the cost of loss for a sender that
/// did not back off: retransmitted bytes plus time in retransmission timeouts.
fn loss_cheap_text(f: &Facts) -> String {
    let p = loss_rate(f);
    let cost = loss_cost(f);
    format!(
        " {} of the bytes sent were retransmissions, yet the flow ran at {}, {:.0}× what a \
         loss-based sender reaches at that loss rate and RTT ({}, Mathis et al.): the sender did \
         not back off on loss (BBR does not), so removing the loss would gain only about {}.",
        format_percent_fine(p),
        format_rate(f.rate),
        f.rate / mathis_rate(f),
        format_rate(mathis_rate(f)),
        format_percent_fine(cost)
    )
}

/// "28 of 1070 data segments"; where the capture's frames hold several segments each
/// (TSO at the sender, GRO at the receiver: `retransmittedSegments` > the frames), the
/// kernel's count of segments first, then the frames, so that neither is called the other.
fn retransmitted_count_phrase(f: &Facts, frames: u64) -> String {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    let count = if sender.retransmitted_segments > frames {
        format!(
            "{} segments, re-sent in {} of {} data frames: the capture holds TSO/GRO frames of several segments each",
            sender.retransmitted_segments, frames, f.sh.data_segments
        )
    } else {
        format!("{} of {} data segments", frames, f.sh.data_segments)
    };
    // Re-sends the report shows needless (D-SACK, Eifel) repaired nothing: said, so the
    // percentage is not read as that much loss.
    let needless = match sender.spurious_retransmissions {
        0 => String::new(),
        n => format!(", {n} of them needless: the receiver already had those bytes"),
    };
    count + &needless + &unseen_datagrams_phrase(sender, frames.max(sender.retransmitted_segments))
}

/// "; 1 datagram of the sender lost before the capture point …" past the sender
/// (sender lag > 0), where its IPv4 numbering tells (`direction.unseenDatagrams`) and
/// the count differs from the re-sent frames seen: a segment lost at the tail of a
/// flight is re-sent as what the capture takes for new data, so the count of re-sends
/// alone would say less loss (or none) than there was.
fn unseen_datagrams_phrase(sender: &crate::analysis::report::DirectionSummary, resent_frames: u64) -> String {
    match sender.unseen_datagrams {
        Some(n) if n > 0 && n != resent_frames && sender.sender_lag_ms > 0.0 => format!(
            "; by its IPv4 numbering {n} datagram{} of the sender never reached the capture (lost on the way, \
             dropped in the sender's own queue, or by the capture itself)",
            if n == 1 { "" } else { "s" }
        ),
        _ => String::new(),
    }
}

fn format_percent_fine(share: f64) -> String {
    if share < 0.095 { format!("{:.1} %", share * 100.0) } else { format_percent(share) }
}

/// A standing queue at the bottleneck: the median RTT grew to [`QUEUEING_RTT_RATIO`] × its
/// minimum, or the queue said so itself — at least [`CE_QUEUE_SHARE`] of the data's
/// ECN-capable segments arrived marked Congestion Experienced (RFC 3168 §5: a router
/// marks instead of dropping once its queue passes a threshold; under L4S, RFC 9331,
/// marks come before any queue a round trip would show). Issue 46: CE marks are evidence
/// of a queue, before and apart from loss.
fn queueing(f: &Facts) -> bool {
    rtt_queueing(f) || ce_share(f.conn) >= CE_QUEUE_SHARE
}

/// The median round trip at least [`QUEUEING_RTT_RATIO`] × the path's, and at least
/// [`QUEUE_MIN_DELAY_S`] above it: below a millisecond the spread is the hosts' own
/// (scheduling, interrupt moderation, a VM's virtual NIC), not a queue one can act on
/// (a loopback connection at 5 → 8 µs once read "a queue on the path").
fn rtt_queueing(f: &Facts) -> bool {
    f.median_rtt.is_finite()
        && f.min_rtt > 0.0
        && f.median_rtt >= QUEUEING_RTT_RATIO * f.min_rtt
        && f.median_rtt - f.min_rtt >= QUEUE_MIN_DELAY_S.max(2.0 * f.tick)
}

/// Smallest median − minimum round trip said to be a queue, s.
pub const QUEUE_MIN_DELAY_S: f64 = 0.001;

/// Share of the data direction's ECN-capable data segments that arrived CE-marked.
fn ce_share(conn: &ConnectionSummary) -> f64 {
    let d = conn.data_direction.min(1) as usize;
    conn.directions[d].ecn.map_or(0.0, |e| e.ce_share())
}

/// CE-marked share of the ECN-capable data from which a queue is taken as shown.
pub const CE_QUEUE_SHARE: f64 = 0.01;

/// Retransmitted segments of the data direction: the analyzer's count (Wireshark's
/// rules) or ours (segments starting below the highest sequence sent), the larger.
fn retransmissions(f: &Facts) -> u64 {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    sender.retransmissions.max(f.sh.retransmitted_segments)
}

/// Retransmitted payload bytes per 100 payload bytes of the data segments (docs/ANALYSIS.md
/// "diagnosis.text"): by bytes, since a capture with TSO/GRO holds data frames of many
/// segments beside single-segment re-sends.
fn retransmitted_percent(f: &Facts) -> f64 {
    if f.sh.data_bytes > 0.0 {
        f.sh.retransmitted_bytes * 100.0 / f.sh.data_bytes
    } else {
        retransmissions(f) as f64 * 100.0 / f.sh.data_segments.max(1) as f64
    }
}

/// The cwnd was held down by loss: see the module comment.
fn loss_held_cwnd(f: &Facts) -> bool {
    let bound = mathis_rate(f);
    // Or little time in recovery but a rate at the loss-based bound itself: SACK
    // recovery is quick, the cost is the window it halves (Mathis et al.).
    // Not where the round trip beyond a receiver-side capture is known only by its
    // minimum: a queue there would make the bound far lower (rx-bufferbloat-nots.pcap:
    // at the bound with the 10 ms minimum, 9× above it with the 90 ms the sender saw).
    let at_the_bound = bound.is_finite() && f.rate <= AT_MATHIS * bound && f.rate * AT_MATHIS >= bound && !far_part_unseen(f.conn);
    retransmissions(f) > 0 && (f.shares.loss >= LOSS_SHARE_MIN || at_the_bound) && !queueing(f)
}

/// A rate this close to the Mathis bound (within this factor either way) is that
/// bound's; far below it, something else held the flow down.
pub const AT_MATHIS: f64 = 1.5;

fn rate_phrase(f: &Facts) -> String {
    format!("the flow averaged {} while active", format_rate(f.rate))
}

fn rtt_phrase(f: &Facts) -> String {
    if f.min_rtt.is_finite() {
        format!("a path RTT of {}", format_duration(f.min_rtt))
    } else if f.tick > 0.001 {
        format!("an unknown RTT (every round trip was below the capture clock's {} tick)", format_duration(f.tick))
    } else {
        "an unknown RTT (no round trip could be measured)".to_string()
    }
}

/// The congestion the network signalled by ECN instead of drops (RFC 3168 §5–6), which
/// no loss or retransmission count shows: CE marks on the data (seen where the capture
/// is past the marking router, e.g. at the receiver), the receiver's echoes (ECE, on
/// its ACKs until the sender answers) and the sender's window reductions (CWR). None
/// when there was none. Under Accurate ECN only the CE marks are quoted (ecn.rs).
fn ecn_text(conn: &ConnectionSummary) -> Option<String> {
    let d = conn.data_direction.min(1) as usize;
    let data = conn.directions[d].ecn?;
    let echoes = conn.directions[1 - d].ecn.and_then(|e| e.ece).unwrap_or(0);
    let reductions = data.cwr.unwrap_or(0);
    if data.ce == 0 && echoes == 0 {
        return None;
    }
    let mut parts = Vec::new();
    if data.ce > 0 {
        parts.push(format!(
            "{} of {} ECN-capable data segments arrived marked Congestion Experienced ({})",
            data.ce,
            data.capable(),
            format_percent_fine(data.ce_share())
        ));
    }
    if echoes > 0 {
        parts.push(format!("the receiver echoed congestion on {echoes} ACK{} (ECE)", if echoes == 1 { "" } else { "s" }));
    }
    if reductions > 0 {
        parts.push(format!("the sender reduced its window {reductions} time{} (CWR)", if reductions == 1 { "" } else { "s" }));
    }
    Some(format!(
        "The network signalled congestion by ECN instead of dropping packets: {}. Loss and retransmission counts do not show this congestion (RFC 3168).",
        parts.join("; ")
    ))
}

/// Where the capture itself missed much of what the receivers acknowledged
/// (capture_loss.rs), every rate and time above covers only what it holds (issue 39:
/// a capture holding 0.27 % of a 6.5 Mbit/s upload read "17 kbit/s while active").
/// Said from [`CAPTURE_LOSS_SAID`] of the acknowledged bytes on.
fn capture_loss_text(conn: &ConnectionSummary) -> Option<String> {
    let loss = conn.capture_loss;
    let captured: u64 = conn.directions.iter().map(|d| d.payload_bytes).sum();
    let acknowledged = captured + loss.unseen_bytes;
    if acknowledged == 0 || (loss.unseen_bytes as f64) < CAPTURE_LOSS_SAID * acknowledged as f64 {
        return None;
    }
    // A sender never has more than a window outstanding (RFC 9293 §3.8.6.2.1), so a hole
    // larger than every window the receivers advertised is no hole of this connection's
    // data: sequence numbers rewritten by a middlebox, or two flows mixed. Not said.
    let largest_window = conn.directions.iter().filter_map(|d| d.receive_window.map(|w| w.max)).max().unwrap_or(0);
    if loss.unseen_bytes > loss.holes.max(1) * largest_window.max(1) {
        return None;
    }
    Some(format!(
        "The capture missed {} of the data ({} of what the receivers acknowledged, in {} hole{}): the rates and times here cover only the {} it holds.",
        format_bytes(loss.unseen_bytes as f64),
        format_percent_fine(loss.unseen_bytes as f64 / acknowledged as f64),
        loss.holes,
        if loss.holes == 1 { "" } else { "s" },
        format_bytes(captured as f64)
    ))
}

/// Share of the acknowledged bytes missing from the capture from which the diagnosis says so.
pub const CAPTURE_LOSS_SAID: f64 = 0.1;

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
    let mut t = if f.window_inferred {
        format!("The receiver never advertised more than {} (at least: the window scale is unknown and was inferred from bytes in flight). ", win)
    } else {
        format!("The receiver never advertised more than {}. ", win)
    };
    if cap.is_finite() {
        t += &format!("With {} that caps throughput at {}; ", rtt_phrase(f), format_rate(cap));
    }
    if slow_reader(f.sh) {
        // The buffer was not too small: the receiving application left data in it.
        return t + &format!(
            "{} and was window-limited {} of the time, mostly with the window below three quarters of that \
             maximum: the receiver's buffer held data its application had not yet read, so the receiving \
             application, reading slowly, set the pace; a larger buffer would not help, a faster reader would.",
            rate_phrase(f),
            format_percent(f.shares.receive_window)
        );
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
    if !rtt_queueing(f) && queueing(f) {
        return format!(
            " {} of the ECN-capable data arrived marked Congestion Experienced: a queue at the bottleneck signalled congestion.",
            format_percent_fine(ce_share(f.conn))
        );
    }
    if queueing(f) {
        format!(
            " The median RTT grew to {} (minimum {}): packets queued at the bottleneck.",
            format_duration(f.median_rtt),
            format_duration(f.min_rtt)
        )
    } else {
        far_part_unseen_phrase(f)
    }
}

/// The data's round trips add a far part (`offsetFollows`) that nothing measured after
/// its minimum (`followedSamples` 0): see [`far_part_unseen_phrase`].
fn far_part_unseen(conn: &ConnectionSummary) -> bool {
    let rtt = &conn.directions[conn.data_direction.min(1) as usize].rtt;
    rtt.offset_follows && rtt.followed_samples == 0 && rtt.samples > 0 && rtt.offset_ms > 0.0
}

/// At a receiver-side capture the data's round trip is the receiver's ACK delay plus
/// the far part, which only a timestamp echo by the sender's clocked-out data times
/// beyond its minimum (round_trips.rs). Without one (`rtt.followedSamples` 0:
/// no TCP timestamps, RFC 7323 §3, as Windows clients default to), a queue on the
/// sender's side cannot be seen from here, and "no queue" would be a guess: say so.
fn far_part_unseen_phrase(f: &Facts) -> String {
    if !far_part_unseen(f.conn) {
        return String::new();
    }
    let rtt = &f.conn.directions[f.conn.data_direction.min(1) as usize].rtt;
    let h = &f.conn.handshake;
    let why = match (&h.syn, &h.syn_ack) {
        (Some(syn), Some(ack)) if !(syn.timestamps && ack.timestamps) => "no TCP timestamps were negotiated",
        _ => "no timestamp echo clocked by its segments timed the sender's side",
    };
    format!(
        " This capture is at the receiver and {why}, so the round trip beyond it is known \
         only by its minimum ({}): a queue on the sender's side would not show in these \
         RTTs.",
        format_duration(rtt.offset_ms / 1000.0)
    )
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
    let loss_named = s.loss >= LOSS_SHARE_MIN;
    let opening = if loss_named {
        // Loss took a share worth naming but not the largest (a queue on the path
        // keeps loss_held_cwnd from blaming it): say what it cost, not that it did not limit.
        let timeouts = timeouts_clause(f).map_or(String::new(), |c| format!(" ({c})"));
        format!(
            "Loss cost {} of the time{timeouts}, but the larger share ({}) went to the congestion \
             window or the path, not to the receive window ({}) or the application ({})",
            format_percent(s.loss),
            format_percent(s.other),
            format_percent(s.receive_window),
            format_percent(s.application)
        )
    } else if s.receive_window.max(s.application) >= NAMED_SHARE {
        // A share this large held the sender for real, if not the most: "neither …
        // limited" would deny it (a download window-limited 45 % of the time).
        format!(
            "The congestion window or the path took the largest share of the time ({}); the \
             receive window held the sender {} of it, loss {} and the application {}",
            format_percent(s.other),
            format_percent(s.receive_window),
            format_percent(s.loss),
            format_percent(s.application)
        )
    } else {
        format!(
            "Neither the receive window ({} of the time), loss ({}) nor the application ({}) \
             limited this flow",
            format_percent(s.receive_window),
            format_percent(s.loss),
            format_percent(s.application)
        )
    };
    let mut t = format!("{opening}; {} with {}", rate_phrase(f), rtt_phrase(f));
    // What the largest window would allow says "not the window" only where the window
    // did not hold the sender: one that did for a fifth of the time or more was smaller
    // then than its largest (a download held at 64 KiB for most of its time read "below
    // the 9.3 Mbit/s that the 785 KiB window would allow").
    if f.max_window.is_finite() && f.min_rtt > 0.0 && s.receive_window < NAMED_SHARE {
        t += &match window_allows(f) {
            Some(cap) => format!(", below the {cap} that the {} window would allow", format_bytes(f.max_window)),
            None => format!(", far below what the {} window would allow {}", format_bytes(f.max_window), window_beyond_links(f)),
        };
    }
    // Turns that took most of the time are the path's round trip paid per message, not
    // its capacity: the data of each turn went out at once and the wait was for the
    // peer's next message (RFC 2920's pipelining exists for this: SMTP's 604 RCPT turns
    // read "the path's capacity was the limit" while the 116 kB body took 10 ms).
    let turns_rule = f.sh.turns > 0 && f.sh.active > 0.0 && f.sh.turn_time >= 0.5 * f.sh.active && !loss_named;
    if turns_rule {
        t += &format!(
            ". Request/response turns set the pace: {} times the sender, with everything acknowledged, \
             sent more only on the peer's next message, {} of the time, each wait at least a round trip. \
             Neither the window nor the link's capacity was the limit: fewer turns (pipelining, batching \
             requests) would make it faster, a faster link would not.",
            f.sh.turns,
            format_percent(f.sh.turn_time / f.sh.active)
        );
    } else {
        t += if loss_named { "." } else { ". The congestion window or the path's capacity was the limit." };
    }
    if f.sh.turns > 0 && f.sh.active > 0.0 && !turns_rule {
        t += &format!(
            " {} times the sender, with everything acknowledged, sent more only on the peer's next message \
             (a request/response turn, or the peer's application granting more): {} of the time.",
            f.sh.turns,
            format_percent(f.sh.turn_time / f.sh.active)
        );
    }
    t += &queue_phrase(f);
    if !f.sh.windows_trusted {
        // Say why from what the capture holds: the handshake may be there, with windows
        // the sender evidently did not obey.
        t += if f.conn.directions[1 - f.conn.data_direction.min(1) as usize].window_scale_unknown {
            " (The receiver's window scale is unknown — its SYN is not in the capture — so \
             receive-window limits cannot be judged.)"
        } else {
            " (Bytes in flight exceeded twice the receiver's advertised window, though its \
             window scale is in the capture: the windows seen are not the ones the sender \
             obeyed — a middlebox may have rewritten them or the scale option — so \
             receive-window limits cannot be judged.)"
        };
    }
    t
}

/// "228 ms of it waiting on retransmission timeouts", where the data direction had
/// timeout stalls: their time is part of the loss share (diagnosis_shares.rs add_stall).
fn timeouts_clause(f: &Facts) -> Option<String> {
    let rto = f.sh.stall_by_cause[2];
    // Which timers ended those stalls (retrans_kinds.rs): a kernel counts a tail loss
    // probe (RFC 8985 §7, TCPLossProbes) apart from a timeout (RFC 6298, TCPTimeouts).
    // Named only where a probe ended one; else the stalls' generic words. Counted over
    // the same stalls whose time is quoted: a probe or timeout that ended no stall (a
    // gap shorter than the threshold) took none of that time.
    let (probes, timeouts) = f.timer_stalls;
    let timers = timers_phrase(probes, timeouts).filter(|_| probes > 0);
    (rto > 0.0).then(|| match timers {
        Some(which) => format!("{} of it waiting on {which}", format_duration(rto)),
        None => format!("{} of it waiting on retransmission timeouts", format_duration(rto)),
    })
}

/// Request/response turns took at least a quarter of the active time: replies short
/// enough that a loss costs round trips and timers, not a congestion window's growth.
fn turn_taking(f: &Facts) -> bool {
    f.sh.turns > 0 && f.sh.active > 0.0 && f.sh.turn_time >= 0.25 * f.sh.active
}

fn loss_text(f: &Facts) -> String {
    let retrans = retransmissions(f);
    let mut t = format!(
        "Loss limited this flow: {:.1} % of the bytes sent were retransmissions ({}), \
         and the sender spent {} of the time recovering from loss",
        retransmitted_percent(f),
        retransmitted_count_phrase(f, retrans),
        format_percent(f.shares.loss)
    );
    if let Some(c) = timeouts_clause(f) {
        t += &format!(", {c}");
    }
    t += &format!("; {}", rate_phrase(f));
    if f.shares.other > f.shares.loss && turn_taking(f) {
        // Short replies: a loss costs the reply round trips (a fast retransmission one
        // round trip later) or a timer (the reply's last segments, which no later
        // segment's ACK can report: RFC 8985 §7), not a congestion window cut. The
        // CUBIC / BBR advice below would mislead: neither changes how a loss in a short
        // reply is found. rr-style takes at 5 % loss, 5,000-byte replies on a 50 ms
        // path: 41 % recovering, 2 s of it on 1 timeout and 5 tail loss probes.
        t += &format!(
            ". Each loss cost the reply extra round trips, not bandwidth: a lost segment is \
             re-sent a round trip later at best, and one at the end of a reply, which no later \
             segment's ACK can report, only when the sender's probe timer or retransmission \
             timeout fires. Request/response turns ({}) took {} of the time",
            f.sh.turns,
            format_percent(f.sh.turn_time / f.sh.active)
        );
    } else if f.shares.other > f.shares.loss && f.max_window.is_finite() && f.min_rtt > 0.0 {
        // Reached through loss_held_cwnd: say why it isn't the path.
        let no_queue = if far_part_unseen(f.conn) {
            "as far as this capture point can see (the sender's side of the round trip is \
             known only by its minimum)"
        } else {
            "(no standing queue at the bottleneck)"
        };
        let allows = match window_allows(f) {
            Some(cap) => format!("the {cap} its {} window allows", format_bytes(f.max_window)),
            None => format!("what its {} window allows {}", format_bytes(f.max_window), window_beyond_links(f)),
        };
        t += &format!(
            ", far below {allows}, with the RTT near its {} minimum \
             {no_queue}. A loss-based sender (CUBIC, Reno) cuts its congestion window at \
             every loss; BBR suffers less, and with it the link itself may have been the limit",
            format_duration(f.min_rtt)
        );
    }
    t + "." + &other_stalls_phrase(f, 2)
}

/// The rate the largest window allows at the path RTT (`window_cap_bps`), formatted;
/// None above [`WINDOW_CAP_QUOTED_MAX_BPS`]: on a path of a few µs (a host's own
/// loopback, a LAN switch) any window allows more than links carry, a number that says
/// only "not the window" (an 824 KiB window at 7 µs: "964 Gbit/s", for a flow at 81
/// Mbit/s).
fn window_allows(f: &Facts) -> Option<String> {
    let cap = window_cap_bps(f.max_window, f.min_rtt);
    (cap <= WINDOW_CAP_QUOTED_MAX_BPS).then(|| format_rate(cap))
}

/// Where [`window_allows`] quotes no rate: "at a 7 µs round trip (over 100 Gbit/s)".
fn window_beyond_links(f: &Facts) -> String {
    format!("at a {} round trip (over {})", format_duration(f.min_rtt), format_rate(WINDOW_CAP_QUOTED_MAX_BPS))
}

/// The largest window cap quoted as a rate, bit/s: 100 Gbit/s, a fast server NIC.
pub const WINDOW_CAP_QUOTED_MAX_BPS: f64 = 100e9;

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
    let app = f.shares.application * f.sh.active;
    // Mostly waiting for the peer's next message (request/response): the peer's
    // application's time, not the sender's pause (issue 39: SMTP commands answered
    // ~100 ms later read "the sending application limited this flow").
    let peer_turns = app > 0.0 && f.sh.peer_wait >= 0.5 * app;
    let mut t = if peer_turns {
        format!(
            "The applications limited this flow: {} of the time everything sent had been acknowledged \
             and the sender had nothing to send, {} of it waiting for the peer's next message (the \
             peer's application taking its time to answer) before it sent again",
            format_percent(f.shares.application),
            format_percent(f.sh.peer_wait / app)
        )
    } else {
        format!(
            "The sending application limited this flow: {} of the time everything sent had \
             been acknowledged and the sender still had nothing to send",
            format_percent(f.shares.application)
        )
    };
    if idle > 0.0 {
        // The share counts every such moment, the stalls only the gaps over the stall
        // threshold: say which the duration is, so that 54 % of 93 s and 23 s do not
        // read as a contradiction.
        if idle < 0.9 * app {
            t += &format!(" ({} in all; idle gaps totalling {} of it were longer than the stall threshold)", format_duration(app), format_duration(idle));
        } else {
            t += &format!(" (idle gaps totalling {})", format_duration(idle));
        }
    }
    // Period by period (issue 13): idle time between bursts is the application's,
    // but a period in which the bursts themselves crawled is the network's.
    let queue_verdict;
    let verdict = if f.network_periods {
        "The idle time between bursts is the application's; while it was sending, the network limited the periods named here."
    } else if queueing(f) {
        // A queue on the path (CE marks, a standing RTT) is the network's signal too:
        // the pauses were the application's, but the network is not cleared.
        queue_verdict = if ce_share(f.conn) >= CE_QUEUE_SHARE {
            format!(
                "The pauses were the application's, but the network is not cleared: {} of the ECN-capable data arrived CE-marked, a queue on the path signalling congestion while it sent.",
                format_percent(ce_share(f.conn))
            )
        } else {
            format!(
                "The pauses were the application's, but the network is not cleared: the median RTT was {} against a {} minimum, a queue on the path while it sent.",
                format_duration(f.median_rtt),
                format_duration(f.min_rtt)
            )
        };
        queue_verdict.as_str()
    } else if peer_turns {
        "The applications' turns, not the network, set the pace."
    } else {
        "Mostly the application, not the network, was the bottleneck."
    };
    t + &format!("; {}. {}", rate_phrase(f), verdict)
        + &application_saving_phrase(f, peer_turns)
        + &other_stalls_phrase(f, 3)
}

/// What removing the application's pauses would have saved (savings.rs `application`).
fn application_saving_phrase(f: &Facts, peer_turns: bool) -> String {
    let had = if peer_turns { "Had every answer been ready at once" } else { "Had the application always had data ready" };
    saving_sentence(f, "application", had)
}

fn zero_window_text(f: &Facts) -> String {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    let dead = sender.stalls.last().filter(|s| s.cause == crate::analysis::stalls::cause::StallCause::ZeroWindow && s.ended_by.starts_with("not ended"));
    if let Some(st) = dead {
        return format!(
            "The receiver's window closed at {} and never reopened: the sender sat at a zero \
             window for {} ({} of the connection), probing it, until the capture ended. The \
             receiving application stopped reading; {}.{}",
            format_timestamp(st.start),
            format_duration(st.duration),
            format_percent(f.sh.stall_by_cause[0] / f.sh.active),
            rate_phrase(f),
            other_stalls_phrase(f, 0)
        );
    }
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

/// Waits on ACKs during which the receiver's ACKs kept coming (`clocked_waits`).
struct ClockedWaits {
    stalls: usize,
    seconds: f64,
    /// ACKs that advanced the cumulative ACK during them, all told.
    acks: usize,
}

/// The `ack-wait` stalls of the data direction in which the receiver's cumulative ACK
/// advanced at least [`MIN_CLOCKED_ACKS`] times: the sender was waiting, but the
/// bottleneck was still delivering what it had sent — the ACK clock running (Jacobson
/// 1988) — so the time is the path's pace, not a fault or a pause (issue 39: a
/// 256 kbit/s uplink draining each 8 KiB write, ACKs every ~45 ms, read "stalled").
/// None when there is none.
fn clocked_waits(f: &Facts) -> Option<ClockedWaits> {
    let p = f.rows.packets;
    let d = f.conn.data_direction.min(1);
    let mut w = ClockedWaits { stalls: 0, seconds: 0.0, acks: 0 };
    for s in f.conn.directions[d as usize].stalls.iter().filter(|s| s.cause == crate::analysis::stalls::cause::StallCause::AckWait) {
        let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        let (mut last, mut advances) = (f64::NEG_INFINITY, 0usize);
        // A running clock ticks throughout: no ACK-free stretch of half the wait (the
        // ACKs of a wait that all came in its last instant are the wait's end, not a
        // clock: 4 ACKs in the last 84 µs of a 93 ms wait once read "kept coming").
        let (mut tick_at, mut longest_silence) = (s.start, 0.0f64);
        for r in i + 1..j {
            if p.dir[r] != d && p.ack[r] > last {
                advances += usize::from(last.is_finite());
                last = p.ack[r];
                longest_silence = longest_silence.max(p.t[r] - tick_at);
                tick_at = p.t[r];
            }
        }
        longest_silence = longest_silence.max(s.start + s.duration - tick_at);
        if advances + 1 >= MIN_CLOCKED_ACKS && longest_silence < 0.5 * s.duration {
            w.stalls += 1;
            w.seconds += s.duration;
            w.acks += advances + 1;
        }
    }
    (w.stalls > 0).then_some(w)
}

/// ACKs advancing within a wait that show the bottleneck still delivering.
pub const MIN_CLOCKED_ACKS: usize = 2;

/// The headline where most of the stalled time was the ACK clock running (`clocked_waits`).
fn clocked_path_text(f: &Facts, w: &ClockedWaits) -> String {
    let link = link_rate(f).map_or(String::new(), |b| format!(" Its receiver's ACKs put the bottleneck at about {}.", format_rate(b)));
    format!(
        "The path limited this flow: in {} stall{} ({}, {} of the time) the sender waited on ACKs while the \
         receiver's ACKs kept coming ({:.1} per stall on average) — the bottleneck still delivering what had \
         been sent, so the link's rate, not a fault or a pause, set the pace; {}.{}{}",
        w.stalls,
        if w.stalls == 1 { "" } else { "s" },
        format_duration(w.seconds),
        format_percent(w.seconds / f.sh.active.max(f64::MIN_POSITIVE)),
        w.acks as f64 / w.stalls as f64,
        rate_phrase(f),
        link,
        queue_phrase(f)
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
        "The transfer stalled {} time{} for {} in total ({} of the time waiting on the peer or the path): {}; {}.",
        sender.stalls.len(),
        if sender.stalls.len() == 1 { "" } else { "s" },
        format_duration(f.sh.stall_total),
        format_percent(f.shares.stalled),
        parts.join(", "),
        rate_phrase(f)
    ) + &saving_sentence(f, "stalls", "Had each wait on ACKs lasted no more than a round trip")
        // A queue on the path is why ACKs kept the sender waiting (the RTT it grew to).
        + &if queueing(f) { queue_phrase(f) } else { String::new() }
}

/// The diagnosis's sentence about the ending: `text` when it is abnormal.
fn ending_sentence(conn: &ConnectionSummary) -> Option<&str> {
    conn.ending.abnormal.then_some(conn.ending.text.as_str())
}

#[cfg(test)]
#[path = "diagnosis_tests.rs"]
mod tests;
