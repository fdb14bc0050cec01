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
//! 0b. `not-established`: the handshake stopped at the client's SYNs (ending.rs
//!    `NotEstablished`: no SYN/ACK, no data, every client packet a SYN). No data
//!    moved; the text says how the peer answered (nothing, a reset: refused).
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
//!      by loss: segments were retransmitted (not all of them needless), loss recovery took at least
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
use crate::analysis::verdict::diagnosis_shares::{time_shares_full, TimeShares};
use crate::analysis::verdict::diagnosis_episodes as episodes;
use crate::analysis::stalls::SenderFacts;
use crate::analysis::rows::columns::{PacketColumns, RttSource, SackSource};
use crate::analysis::rates::delivered::{self, DeliveredRates};
use std::cell::OnceCell;
use crate::analysis::verdict::savings::{self, saving_of, Saving};
use crate::analysis::verdict::{peer_silent, transfer_tail};
use crate::analysis::rows::columns::ConnectionColumns;
use crate::analysis::report::ConnectionSummary;
use crate::analysis::report::{Diagnosis, DiagnosisShares};
use crate::analysis::report::{Episode, Evidence};

// The sentences, by headline (diagnosis/*.rs).
mod drain_saving;
mod first_answer;
mod handshake_words;
mod latency_under_load;
pub use latency_under_load::{flight_rtts, set_base_rtts};
mod long_message;
mod midstream_flight; // a capture that opens with a flight already in progress
mod loss_over_pauses;
mod needless_words;
pub use first_answer::WITHIN_THE_TRANSFER;
pub use handshake_words::join_not_established;
mod path_words;
mod peer_loss_words;
mod phrases;
mod recovery;
mod slow_start_words;
mod start_up_growth; // a flow still in start-up when the capture ends
mod turn_words;
mod wait_words;
mod window_and_queue;
mod wire_segments; // frames of several segments (TSO/GRO) counted as the segments they held
pub(super) mod yielded;
use path_words::*;
pub use phrases::*;
pub use recovery::*;
use slow_start_words::*;
use turn_words::*;
pub use wait_words::*;

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

const CAUSE_WORDS: [&str; 7] = [
    "zero window",
    "window-limited",
    "retransmission timeout",
    "application idle",
    "waiting on ACKs",
    "unknown cause",
    "recovering from loss whose re-sends this capture did not see",
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
    if let Some(never) = handshake_words::not_established(conn) { return never; } // never past its SYNs: nothing to weigh
    if let Some(blind) = one_direction.is_none().then(|| crate::analysis::verdict::blind_capture::diagnosis(conn, packets)).flatten() { return blind; } // most data not captured
    let receiver = &conn.directions[1 - d as usize];
    let lag_s = conn.sender_lag_ms / 1000.0;
    let facts = match facts {
        Some(f) if f.fits(d, lag_s) => *f,
        _ => SenderFacts::of(packets, d, lag_s, !receiver.window_scale_unknown),
    };
    let mut kept = spans.is_some().then(Vec::new);
    let full_segment = crate::analysis::stalls::delayed_ack::full_segment(&conn.handshake, &sender.from, packets, d, facts.mss as u32) as f64;
    let mut sh = time_shares_full(packets, &facts, &sender.stalls, kept.as_mut(), Some(full_segment), Some(conn.stall_threshold_ms / 1000.0));
    crate::analysis::verdict::diagnosis_shares::ecn_held::rebook(&mut sh, conn); // pauses after ECE: the window's
    if let (Some(out), Some(s)) = (spans, kept) { *out = (d, s, sh.active); }
    // Request/response: the peer's data is requests, each ACKed by the answer after
    // the application's think time (RFC 1122 §4.2.3.2 piggy-backing).
    let request_response = sh.turns > 0 || sh.peer_wait > 0.0;
    let (min_rtt, median_rtt) = rtts(conn, request_response);
    crate::analysis::verdict::diagnosis_shares::sender_paced::rebook(&mut sh, packets, &facts, full_segment, min_rtt, median_rtt); // its own clock or cap
    let delivered_cell = OnceCell::new();
    let recovery_at_full_rate = rebook_recovery(&mut sh, &delivered_cell, rows, d, (min_rtt, median_rtt, sender.upstream_queue.is_some()), lag_s);
    let shares = sh.fractions();
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
    // "While active": the active mean (throughput.rs), also after a head cut — the cut's span
    // holds the application's idle pauses (review AI W2: 94 kbit/s said of a 69 KiB burst of 4.2 ms).
    let rate = if sender.throughput.active_mean_bps > 0.0 { sender.throughput.active_mean_bps } else { f64::NAN };
    let episodes = episodes::find(conn, packets, rtt, &sh, min_rtt, tick);
    let network_periods = episodes.iter().any(|e| matches!(e.kind, "loss" | "outage" | "transfer"));
    let timer_stalls = episodes::timer_counts(&sender.stalls, packets, f64::NEG_INFINITY, sh.peer_silent.map_or(f64::INFINITY, |p| p.at));
    let mut f = Facts { sh: &sh, shares, min_rtt, median_rtt, max_window, window_inferred, rate, conn, tick, rows, delivered: delivered_cell, network_periods, timer_stalls, savings: Vec::new(), recovery_at_full_rate };
    if let Some(od) = one_direction {
        let text = crate::analysis::verdict::one_direction::text(conn, od);
        // Nothing else is said: every episode and share needs the missing direction.
        let evidence = Evidence { rtt_ms: None, window_bytes: None, window_inferred: false, rate_bps: None, cap_bps: None, link_rate_bps: None, verdict: "unknown" };
        return Diagnosis { limit: "one-direction".to_string(), text, shares, evidence, episodes: Vec::new(), savings: Vec::new(), far_part_unseen: path_words::far_part_unseen(conn), transfer_end: sh.transfer_end, transfer_start: sh.transfer_start, peer_silent: None, said: Default::default() };
    }
    // The loss's price needs the delivered rates (a pass over the rows): only where
    // there was recovery.
    let cost = if sh.loss > 0.0 { loss_cost(&f) } else { 0.0 };
    f.savings = savings::savings(&sh, &peer_silent::stalls_within(&sender.stalls, &sh), savings::round_trip_s(conn), cost);
    drain_saving::cap(&mut f); wait_words::answer_far_leg::cap(&mut f); // a clocked wait saves nothing the bottleneck was busy with; nor a far round trip
    let (limit, mut text) = headline_and_tail(&f);
    // Not after "… not its loss …" (path_despite_loss_text): it already says so.
    if let (Some(r), "path" | "turns", false) = (f.recovery_at_full_rate, limit, limit == "path" && text == path_despite_loss_text(&f)) {
        text += &format!(" {}", recovery_at_full_rate_sentence(&f, &r));
    }
    text += &crate::analysis::verdict::upstream_queue::sentence(conn); // a standing queue before the capture, by the sender's TSvals
    if let Some(s) = crate::analysis::verdict::split_proxy::sentence(conn, packets, rtt) { text += &format!(" {s}"); } // a proxy answered the SYN
    let mut named: Vec<&Episode> = episodes.iter().collect();
    named.sort_by_key(|e| episodes::priority(e.kind));
    for e in named.into_iter().filter(|e| peer_silent::before_silence(&sh, e.start)).take(2) {
        text += &format!(" {}", e.text);
    }
    // Nagle meeting delayed ACKs, in either direction (a request's stalls make the
    // response side look idle): the fix is in the sockets (delayed_ack.rs).
    if let Some(a) = conn.directions.iter().find_map(|d| crate::analysis::stalls::delayed_ack::advice(&d.stalls, conn.end - conn.start)) {
        text += &format!(" {a}");
    }
    text += &wait_words::nagle_words::sentence(&f); // Nagle's holds below the threshold, and the remedy at both ends
    if let Some(e) = ecn_text(conn).filter(|_| !text.contains(ECN_OPENING)) {
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
        "turns" => "turns",
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
        link_rate_bps: if verdict == "link" { link_rate(&f).or_else(|| window_and_queue::link_rate(&f, &text)) } else { None },
        verdict,
    };
    Diagnosis { said: wait_words::said(&f, &text), limit: limit.to_string(), text, shares, evidence, episodes, savings: f.savings, far_part_unseen: path_words::far_part_unseen(conn), transfer_end: sh.transfer_end, transfer_start: sh.transfer_start, peer_silent: sh.peer_silent }
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
    /// Loss recovery that delivered at the flow's sustained best ([`recovery_at_full_rate`]).
    recovery_at_full_rate: Option<RecoveryAtFullRate>,
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
/// (round_trips.rs), over the samples that time the path (`rtt.pathMedianMs`): one
/// whose ACK rode on the peer's answer or waited on its delayed-ACK timer times the
/// receiver, and a median of those is no queue (an SSH session's keystrokes, a 50 Hz
/// telemetry stream's 20 ms delayed ACKs on a 0.8 ms path once read "a queue").
/// And only over at least [`LATENCY_MIN_SAMPLES`] of them: a median of a few is one
/// answer's delay, not a queue, which shows on a flow's every round trip (four samples
/// of a loopback OpenFlow session, two of them 40 ms delayed ACKs, read "the median RTT
/// was 20 ms against a 273 µs minimum, a queue on the path").
fn rtts(conn: &ConnectionSummary, request_response: bool) -> (f64, f64) {
    let s = |v: Option<f64>| v.map_or(f64::NAN, |ms| ms / 1000.0);
    let rtt = &conn.directions[queue_direction(conn, request_response)].rtt;
    (s(conn.path_rtt_ms), s(rtt.path_median_ms.filter(|_| rtt.path_samples >= LATENCY_MIN_SAMPLES)))
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
    if request_response || me.offset_follows || me.offset_ms <= other.offset_ms || other.path_samples < LATENCY_MIN_SAMPLES { d } else { 1 - d }
}

/// [`headline`], then the connection's idle after its transfer (transfer_tail.rs).
fn headline_and_tail(f: &Facts) -> (&'static str, String) {
    // The first answer's wait goes with the headline; the idle after the transfer last.
    let (limit, text) = first_answer::after_headline(f, yielded::said(f, headline(f)));
    (limit, text + &super::transfer_head::said(f.sh.transfer_start.as_ref()) + &transfer_tail::said(f.sh.transfer_end.as_ref(), f.conn, f.rows.packets) + &peer_silent::said(f.conn, f.rows.packets, f.sh))
}

fn headline(f: &Facts) -> (&'static str, String) {
    let sh = f.sh;
    // Too short to judge only when the flow moved too little over too few round
    // trips; a flow that spent most of its time stalled (a window that never
    // reopened, RTO backoff) is judged by its stalls, whatever its length.
    let short = wire_segments::wire_segment_count(f) < MIN_DATA_SEGMENTS
        || sh.active <= 0.0
        || (f.min_rtt > 0.0 && sh.active < MIN_ROUND_TRIPS * f.min_rtt);
    if short && (sh.active <= 0.0 || sh.stall_total < 0.5 * sh.active) {
        return midstream_flight::headline(f).unwrap_or_else(|| ("too-short", too_short_text(f))); // a transfer already under way: its start is not here
    }
    let s = f.shares;
    // The largest share of the time wins (T-RAT's dominant limiting factor).
    let cands = [
        ("receive-window", s.receive_window),
        ("loss", s.loss),
        ("application", s.application),
        ("stalls", s.stalled),
        ("path", s.other),
        ("turns", s.turns),
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
                window_and_queue::headline(f).unwrap_or_else(|| ("receive-window", window_text(f, cap))) // the link full too: its queue, not the window
            }
        }
        // Loss is not the limit when removing it would not matter, nor where nothing
        // shows a loss (no re-send, no datagram the numbering misses, no re-send the
        // SACK blocks prove, no timer stall: the auditor's rule 4): a recovery opened by
        // a hole alone, once the turns left the path's share, made a 17-segment flow
        // with 0 re-sends "Loss limited".
        "loss" if loss_matters(f) && loss_shown(f) => ("loss", loss_text(f)),
        "loss" if !loss_shown(f) => ("path", path_text(f)),
        "loss" => ("path", path_despite_loss_text(f)),
        "application" => ("application", sender_paced_text(f).unwrap_or_else(|| application_text(f))),
        "stalls" if drain_saving::loaded_round::most(f).is_some() => ("path", drain_saving::loaded_round::text(f)), // loaded round trips
        "stalls" => match clocked_waits(f) {
            Some(w) if w.seconds >= 0.5 * f.sh.stall_by_cause[4] + 0.5 * f.sh.stall_by_cause[5] => ("path", clocked_path_text(f, &w)),
            _ => ("stalls", stalls_text(f)),
        },
        // Turns whose replies lost segments: loss held in the window, as for the path
        // (the turns were the path's time until issue 39 review I class T).
        "turns" if loss_held_cwnd(f) && loss_matters(f) => ("loss", loss_text(f)),
        "turns" => ("turns", turns_text(f)),
        _ if loss_held_cwnd(f) && loss_matters(f) => ("loss", loss_text(f)),
        // Recovery that kept the bottleneck busy (`recovery_at_full_rate`) by a sender
        // that did not back off: what the loss cost, as before its time was re-booked.
        _ if f.recovery_at_full_rate.is_some() && retransmissions(f) > 0 && mathis_rate(f) * BEATS_MATHIS < f.rate => ("path", path_despite_loss_text(f)),
        _ if f.shares.loss >= LOSS_SHARE_MIN && retransmissions(f) > 0 && !loss_matters(f) => ("path", path_despite_loss_text(f)),
        // A flow whose data ran out while slow start still grew its window: round trips.
        _ => slow_start_rounds(f).map_or_else(|| ("path", path_text(f)), |r| ("path", slow_start_text(f, &r))),
    }
}

/// " {lead}, the transfer would have taken about X instead of Y." for `limit`'s saving
/// (savings.rs): the data direction's active time without it. Empty when unpriced.
fn saving_sentence(f: &Facts, limit: &str, lead: &str) -> String {
    let saved = saving_of(&f.savings, limit);
    // Never a zero counterfactual ("about 0 s instead of 121 ms", issue 39 review K2):
    // where the saving is all of the active time (one wait between two lone segments),
    // to within a clock tick, what would remain is no transfer to compare with.
    if !(saved > 0.0 && f.sh.active > 0.0 && f.sh.active - saved > f.tick.max(SAVING_LEFT_MIN_S)) {
        return String::new();
    }
    format!(
        " {lead}, the transfer would have taken about {} instead of {}.",
        format_duration(f.sh.active - saved),
        format_duration(f.sh.active)
    )
}

/// Seconds a saving must leave (and more than a tick of the capture clock) for "would
/// have taken about X instead of Y" to be said: below it X is nothing measured.
pub const SAVING_LEFT_MIN_S: f64 = 1e-6;

/// The steady rate is quoted beside the mean while active when it is this much higher.
pub const STEADY_ABOVE_MEAN: f64 = 1.1;

/// The diagnosis's sentence about the ending: `text` when abnormal or `after_data`.
fn ending_sentence(conn: &ConnectionSummary) -> Option<&str> {
    (conn.ending.abnormal || conn.ending.after_data.is_some()).then_some(conn.ending.text.as_str())
}

#[cfg(test)]
#[path = "diagnosis_tests.rs"]
mod tests;
