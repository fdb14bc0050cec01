//! The sentences of the path, window and loss headlines (diagnosis.rs `headline`):
//! too short to tell, window-limited, path-limited and loss-limited flows.

use super::*;
#[path = "outage_words.rs"]
pub(super) mod outage_words;

// The residue's other reading: the sender set its own rate (sender_paced_words.rs).
#[path = "sender_paced_words.rs"]
mod sender_paced_words;
#[path = "cwnd_rounds.rs"]
mod cwnd_rounds;
#[path = "flat_window.rs"]
mod flat_window; // neither: a flat loss-free flight (the sender's own window)
pub(super) use sender_paced_words::sender_paced_text;
// The bottleneck's rate where loss was the symptom of its full queue.
#[path = "bottleneck_words.rs"]
mod bottleneck_words;
// The congestion window that ECN marks held.
#[path = "ecn_words.rs"]
mod ecn_words;
// Loss with the round trip flat: a policer or random loss, not a queue's overflow.
#[path = "policer_words.rs"]
mod policer_words;
pub(super) use ecn_words::ECN_OPENING;
// The receiver's own knob, where its SYN names its stack.
#[path = "buffer_knob.rs"]
mod buffer_knob;

// The too-short sentence counts segments on the wire, not frames (wire_segments.rs).
pub(super) use super::wire_segments::too_short_text;

pub(super) fn window_text(f: &Facts, cap: f64) -> String {
    let win = format_bytes(f.max_window);
    let mut t = if f.window_inferred {
        format!("The receiver never advertised more than {} (at least: the window scale is unknown and was inferred from bytes in flight). ", win)
    } else {
        format!("The receiver never advertised more than {}. ", win)
    };
    if cap.is_finite() {
        t += &format!("With {} that caps throughput at {}; ", rtt_phrase(f), format_rate(cap));
    } else {
        // No round trip to divide by: no cap is said (a 2 µs "RTT" below the clock's
        // tick once read "caps throughput at 262 Gbit/s", review N C-RTT-ARTEFACT).
        t += &format!("With {}, no cap follows from it; ", rtt_phrase(f));
    }
    let small = small_window_phrase(f);
    if slow_reader(f.sh) {
        // The buffer was not too small: the receiving application left data in it.
        return t + &format!(
            "{} and was window-limited {} of the time, mostly with the window below three quarters of that \
             maximum: the receiver's buffer held data its application had not yet read, so the receiving \
             application, reading slowly, set the pace; a larger buffer would not help, a faster reader would.{}",
            rate_phrase(f),
            format_percent(f.shares.receive_window),
            small
        );
    }
    let rec = recommended_window(f.max_window);
    t += &format!(
        "{} and was window-limited {} of the time. Raise the receiver's buffer ({}) to at least {}",
        rate_phrase(f),
        format_percent(f.shares.receive_window),
        buffer_knob::buffer_knob(f),
        format_bytes(rec)
    );
    if cap.is_finite() {
        t += &format!(" (enough for {} at this RTT)", format_rate(window_cap_bps(rec, f.min_rtt)));
    }
    t + "." + &small
}

/// " The window fell below one segment … N times …": the data direction's stalls that
/// waited on a window below one segment (stalls/small_window.rs), with the windows
/// (the lowest in each gap) and the waits (from that window to the data that ended the
/// gap); empty without one.
fn small_window_phrase(f: &Facts) -> String {
    use crate::analysis::stalls::{cause::StallCause, small_window::BELOW_ONE_SEGMENT};
    let p = f.rows.packets;
    let d = f.conn.data_direction.min(1);
    let (mut windows, mut updated, mut timers) = ((f64::INFINITY, 0.0f64), Vec::new(), Vec::new());
    for s in f.conn.directions[d as usize].stalls.iter().filter(|s| s.cause == StallCause::WindowLimited && s.ended_by.contains(BELOW_ONE_SEGMENT)) {
        let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        let Some(r) = (i + 1..j).filter(|&r| p.dir[r] != d && p.win[r].is_finite()).min_by(|&a, &b| p.win[a].total_cmp(&p.win[b])) else { continue };
        windows = (windows.0.min(p.win[r]), windows.1.max(p.win[r]));
        let wait = p.t[j] - p.t[r];
        if s.ended_by.starts_with("window update") { updated.push(wait) } else { timers.push((p.t[r], wait, p.len[j])) }
    }
    let n = updated.len() + timers.len();
    if n == 0 {
        return String::new();
    }
    let range = |lo: String, hi: String| if lo == hi { lo } else { format!("{lo}–{hi}") };
    let mut parts = Vec::new();
    if !updated.is_empty() {
        let (lo, hi) = updated.iter().fold((f64::INFINITY, 0.0f64), |(a, b), &w| (a.min(w), b.max(w)));
        let waits = range(format_duration(lo), format_duration(hi));
        parts.push(match (updated.len(), timers.is_empty()) {
            (1, true) => format!("the sender waited {waits} for the receiver's window update"),
            (_, true) => format!("the sender waited {waits} each time for the receiver's window update"),
            (1, false) => format!("once the sender waited {waits} for the receiver's window update"),
            (2, false) => format!("twice the sender waited {waits} for the receiver's window update"),
            (u, false) => format!("{u} times the sender waited {waits} for the receiver's window update"),
        });
    }
    for (at, wait, len) in &timers {
        parts.push(format!("at {} no update came, and the sender's override timer sent the {len} bytes that fit {} later", format_timestamp(*at), format_duration(*wait)));
    }
    format!(
        " {} the window fell below one segment ({} bytes, with everything sent acknowledged), which a sender does not fill (silly-window avoidance, RFC 9293 §3.8.6.2.1): {}.",
        match n { 1 => "Once".to_string(), 2 => "Twice".to_string(), n => format!("{n} times") },
        range(format!("{:.0}", windows.0), format!("{:.0}", windows.1)),
        parts.join("; ")
    )
}

pub(super) fn queue_phrase(f: &Facts) -> String {
    if !rtt_queueing(f) && queueing(f) {
        return format!(
            " {} of the ECN-capable data arrived marked Congestion Experienced: a queue at the bottleneck signalled congestion.",
            format_percent_fine(ce_share(f.conn))
        );
    }
    if queueing(f) {
        format!(
            " The median RTT grew to {} (minimum {}): packets queued at the bottleneck.",
            format_duration(queued_median(f)),
            format_duration(f.min_rtt)
        )
    } else {
        far_part_unseen_phrase(f)
    }
}

/// The data's round trips add a far part (`offsetFollows`) that nothing measured after
/// its minimum (`followedSamples` 0): see [`far_part_unseen_phrase`].
pub(super) fn far_part_unseen(conn: &ConnectionSummary) -> bool {
    let rtt = &conn.directions[conn.data_direction.min(1) as usize].rtt;
    rtt.offset_follows && rtt.followed_samples == 0 && rtt.samples > 0 && rtt.offset_ms > 0.0
}

/// At a receiver-side capture the data's round trip is the receiver's ACK delay plus
/// the far part, which only a timestamp echo by the sender's clocked-out data times
/// beyond its minimum (round_trips.rs). Without one (`rtt.followedSamples` 0:
/// no TCP timestamps, RFC 7323 §3, as Windows clients default to), a queue on the
/// sender's side cannot be seen from here, and "no queue" would be a guess: say so.
pub(super) fn far_part_unseen_phrase(f: &Facts) -> String {
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

pub(super) fn path_not_window_text(f: &Facts, cap: f64) -> String {
    // With the scale unseen, the window and its cap are lower bounds (window_text's "at least").
    let (win, more) = if f.window_inferred { (format!("window (at least {}: the window scale is unseen)", format_bytes(f.max_window)), " or more") } else { (format!("{} window", format_bytes(f.max_window)), "") };
    format!(
        "Bytes in flight reached the receiver's {win} {} of the time, but the window \
         was not the limit: at {} it allows {}{more}, and {}.{} The path (link capacity or \
         congestion) limited this flow; a larger window would only lengthen the queue.",
        format_percent(f.shares.receive_window),
        rtt_phrase(f),
        format_rate(cap),
        rate_phrase(f),
        queue_phrase(f)
    )
}

pub(super) fn path_text(f: &Facts) -> String {
    let s = f.shares;
    let loss_named = s.loss >= LOSS_SHARE_MIN;
    // Windows not judged: their share is no percentage (window_unjudged.rs).
    let rw = |x: &str| if f.sh.windows_trusted { x.replace('#', &format_percent(s.receive_window)) } else { String::new() };
    // A full link whose queue overflowed: its rate first, the loss as its symptom. Or,
    // without loss, a congestion window that ECN marks held: the marks first.
    let link_full = if loss_named { bottleneck_words::link_full_opening(f) } else { ecn_words::ecn_opening(f) };
    let opening = if let Some(o) = &link_full {
        o.clone()
    } else if loss_named {
        // Loss took a share worth naming but not the largest (a queue on the path
        // keeps loss_held_cwnd from blaming it): say what it cost, not that it did not limit.
        let timeouts = timeouts_clause(f).map_or(String::new(), |c| format!(" ({c})"));
        format!(
            "Loss cost {} of the time{timeouts}, but the larger share ({}) went to the congestion \
             window or the path, not to {}the application ({})",
            format_percent(s.loss),
            // Its request/response turns included: the path's round trips (review I class T).
            format_percent(s.other + s.turns),
            rw("the receive window (#) or "),
            format_percent(s.application)
        )
    } else if s.receive_window.max(s.application) >= NAMED_SHARE {
        // A share this large held the sender for real, if not the most: "neither …
        // limited" would deny it (a download window-limited 45 % of the time).
        // The parts name only shares that round to 1 % or more: "loss 0 %" beside them
        // reads as a candidate the capture shows no trace of (kDrive's download).
        let rwp = rw("the receive window held the sender # of it");
        let parts: Vec<String> = [(s.receive_window, rwp), (s.loss, format!("loss {}", format_percent(s.loss))),
            (s.application, format!("the application {}", format_percent(s.application)))]
            .into_iter().filter(|(x, t)| !t.is_empty() && format_percent(*x) != "0 %").map(|p| p.1).collect();
        // Windows not judged and the others under 1 %: loss's 0 % stays, as before.
        let parts = match parts.split_last() {
            None => format!("loss {}", format_percent(s.loss)),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        };
        format!("The congestion window or the path took the largest share of the time ({}); {parts}", format_percent(s.other))
    } else {
        format!(
            "Neither {}loss ({}) nor the application ({}) limited this flow",
            rw("the receive window (# of the time), "),
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
            // A window inferred where the scale is unseen is a lower bound, and so is its cap.
            Some(cap) if f.window_inferred => format!(", below the {cap} or more that its window of at least {} would allow (the window scale is unseen)", format_bytes(f.max_window)),
            Some(cap) => format!(", below the {cap} that the {} window would allow", format_bytes(f.max_window)),
            None => format!(", far below what the {}{} window would allow {}", if f.window_inferred { "at least " } else { "" }, format_bytes(f.max_window), window_beyond_links(f)),
        };
    }
    // Turns that took most of the time are the path's round trip paid per message, not
    // its capacity: the data of each turn went out at once and the wait was for the
    // peer's next message (RFC 2920's pipelining exists for this: SMTP's 604 RCPT turns
    // read "the path's capacity was the limit" while the 116 kB body took 10 ms).
    let turns_rule = f.sh.turns > 0 && f.sh.active > 0.0 && f.sh.turn_time >= 0.5 * f.sh.active && !loss_named;
    if turns_rule {
        t += &format!(
            ". Request/response turns set the pace: {}, {} of the time, each wait at least a round trip. \
             Neither the window nor the link's capacity was the limit: fewer turns (pipelining, batching \
             requests) would make it faster, a faster link would not.",
            turns_count_phrase(f),
            format_percent(f.sh.turn_time / f.sh.active)
        );
    } else {
        // The flights may decide which of the two it was (cwnd_rounds.rs).
        t += &if loss_named || link_full.is_some() { ".".to_string() } else { cwnd_rounds::sentence(f).or_else(|| flat_window::sentence(f)).or_else(|| super::start_up_growth::sentence(f)).unwrap_or_else(|| ". The congestion window or the path's capacity was the limit.".to_string()) };
    }
    if f.sh.turns > 0 && f.sh.active > 0.0 && !turns_rule {
        t += &format!(
            " {} (a request/response turn, or the peer's application granting more): {} of the time.",
            turns_count_phrase(f),
            format_percent(f.sh.turn_time / f.sh.active)
        );
    }
    t += &outage_words::sentence(f.rows.packets, f.rows.rtt, f.conn.vantage, f.conn.data_direction.min(1), f.conn.path_rtt_ms, f.sh.active).unwrap_or_default();
    if link_full.is_none() {
        t += &queue_phrase(f);
    } else if loss_named {
        t += &other_stalls_phrase(f, 2);
    }
    if !f.sh.windows_trusted {
        // Why, from what the capture holds, and the zero windows all the same.
        t += &crate::analysis::verdict::window_unjudged::caveat(f.conn, f.rows.packets);
    }
    t
}

/// "228 ms of it waiting on retransmission timeouts", where the data direction had
/// timeout stalls: their time is part of the loss share (diagnosis_shares.rs add_stall).
pub(super) fn timeouts_clause(f: &Facts) -> Option<String> {
    let rto = f.sh.stall_by_cause[2];
    // Which timers ended those stalls (retrans_kinds.rs): a kernel counts a tail loss
    // probe (RFC 8985 §7, TCPLossProbes) apart from a timeout (RFC 6298, TCPTimeouts).
    // Named only where a probe ended one; else the stalls' generic words. Counted over
    // the same stalls whose time is quoted: a probe or timeout that ended no stall (a
    // gap shorter than the threshold) took none of that time.
    let (probes, timeouts) = f.timer_stalls;
    let timers = timers_phrase(probes, timeouts).filter(|_| probes > 0);
    let fixed = crate::analysis::verdict::no_backoff::words(f.conn, f.conn.data_direction.min(1) as usize, timeouts).filter(|_| probes == 0);
    (rto > 0.0).then(|| match (timers, fixed) {
        (_, Some(loop_words)) => format!("{} of it waiting on {loop_words}", format_duration(rto)),
        (Some(which), None) => by_kind(f, rto).unwrap_or_else(|| format!("{} of it waiting on {which}", format_duration(rto))),
        (None, None) => format!("{} of it waiting on retransmission timeouts", format_duration(rto)),
    })
}

/// Where the named timers ended only some of the timeout stalls, each kind's own time:
/// "1.8 s of it waiting on timers: 696 ms on 1 tail loss probe, 1.1 s on 3 other timer
/// waits" (timers.rs `timer_seconds`; review AB: the whole 1.8 s was put on one probe).
fn by_kind(f: &Facts, rto: f64) -> Option<String> {
    use crate::analysis::format::plural;
    let d = f.conn.data_direction.min(1) as usize;
    let end = f.sh.peer_silent.map_or(f64::INFINITY, |p| p.at);
    let (probe_s, timeout_s, rest_s, others) = crate::analysis::verdict::diagnosis_episodes::timer_seconds(&f.conn.directions[d].stalls, f.rows.packets, f64::NEG_INFINITY, end);
    let (probes, timeouts) = f.timer_stalls;
    if others == 0 || rest_s <= 0.0 {
        return None;
    }
    let mut parts = Vec::new();
    for (n, s, what) in [(probes, probe_s, "tail loss probe"), (timeouts, timeout_s, "retransmission timeout")] {
        if n > 0 {
            parts.push(format!("{} on {}", format_duration(s), plural(n, what)));
        }
    }
    parts.push(format!("{} on {}", format_duration(rest_s), plural(others, "other timer wait")));
    Some(format!("{} of it waiting on timers: {}", format_duration(rto), parts.join(", ")))
}

/// Request/response turns took at least a quarter of the active time: replies short
/// enough that a loss costs round trips and timers, not a congestion window's growth.
pub(super) fn turn_taking(f: &Facts) -> bool {
    f.sh.turns > 0 && f.sh.active > 0.0 && f.sh.turn_time >= 0.25 * f.sh.active
}

pub(super) fn loss_text(f: &Facts) -> String {
    let retrans = retransmissions(f);
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    // No re-send captured, but the receiver's SACK blocks proved some (loss/reported.rs):
    // "0.0 % of the bytes sent were retransmissions" would deny the loss it then claims.
    let evidence = if retrans == 0 && sender.unseen_resends > 0 {
        unseen_loss_phrase(sender)
    } else {
        format!("{:.1} % of {} were retransmissions ({})", retransmitted_percent(f), retransmitted_share_of(f), retransmitted_count_phrase(f, retrans))
    };
    // The data direction re-sent nothing: the loss was its peer's, named so (peer_loss_words.rs).
    let opening = super::peer_loss_words::peer_loss_opening(f).or_else(|| super::needless_words::opening(f, &evidence, retrans));
    let mut t = opening.unwrap_or_else(|| format!("Loss limited this flow: {evidence}, and the sender spent {} of the time recovering from loss", format_percent(f.shares.loss)));
    if let Some(c) = timeouts_clause(f) {
        t += &format!(", {c}");
    }
    t += &format!("; {}", rate_phrase(f));
    if f.shares.other + f.shares.turns > f.shares.loss && turn_taking(f) {
        // Short replies: a loss costs the reply round trips (a fast retransmission one
        // round trip later) or a timer (the reply's last segments, which no later
        // segment's ACK can report: RFC 8985 §7), not a congestion window cut. The
        // CUBIC / BBR advice below would mislead: neither changes how a loss in a short
        // reply is found. rr-style takes at 5 % loss, 5,000-byte replies on a 50 ms
        // path: 41 % recovering, 2 s of it on 1 timeout and 5 tail loss probes.
        t += &format!(
            ". Each loss cost the reply extra round trips, not bandwidth: {}. Request/response turns ({}) took {} of the time",
            crate::analysis::verdict::pmtu_resends::loss_clause(f.conn, f.rows.packets),
            f.sh.turns,
            format_percent(f.sh.turn_time / f.sh.active)
        );
        // The turns' larger share beside a loss headline (review V, C-HEADLINE-VS-LARGER-
        // SHARE, agenttesla #28: loss 37 %, turns 43 %): say why the smaller one is named.
        // The recovery's price is the loss saving (savings.rs), not its whole time (review W:
        // "what a path without loss would have saved" read as all 37 %, the saving was 71 ms).
        if f.sh.turn_time / f.sh.active > f.shares.loss {
            t += ", more than the recovery, but each turn's wait is the exchange's own (fewer turns would shorten it)";
            if let Some(s) = f.savings.iter().find(|s| s.limit == "loss" && s.seconds > 0.0) {
                let about = if s.at_least { "at least" } else { "about" };
                t += &format!("; a path without loss would have saved {about} {}", format_duration(s.seconds));
            }
        }
    } else if f.shares.other + f.shares.turns > f.shares.loss && f.max_window.is_finite() && f.min_rtt > 0.0 {
        // Reached through loss_held_cwnd: say why it isn't the path.
        // A window inferred where the scale is unseen is a lower bound (window_text's
        // "at least"), and so is the rate it allows.
        let allows = match (window_allows(f), f.window_inferred) {
            (Some(cap), false) => format!("the {cap} its {} window allows", format_bytes(f.max_window)),
            (Some(cap), true) => format!("the {cap} or more that its window of at least {} allows (the window scale is unseen)", format_bytes(f.max_window)),
            (None, _) => format!("what its {}{} window allows {}", if f.window_inferred { "at least " } else { "" }, format_bytes(f.max_window), window_beyond_links(f)),
        };
        t += &format!(
            ", far below {allows}, {}. A loss-based sender (CUBIC, Reno) cuts its congestion window at \
             every loss; BBR suffers less, and with it the link itself may have been the limit",
            queue_evidence(f)
        );
    }
    t + "." + &loss_queue_phrase(f) + &policer_words::phrase(f) + &other_stalls_phrase(f, 2)
}

/// " A queue built up on the path: …": the standing queue ([`rtt_queueing`]) beside a
/// loss headline, which otherwise would not name it. A full queue is what a loss-based
/// sender fills until the bottleneck drops (RFC 7567 §1: bufferbloat), so the losses
/// and the queue are one story, and the RTT the user reads is the queue's. With the
/// 95th percentile where it is higher again, and the most the sender had in flight:
/// the queue is that data waiting (a standing queue holds in-flight − rate × min RTT).
/// realjimmy `redundant_stream1.pcapng` connection 4: median 808 ms, p95 1.7 s against a
/// 20 ms handshake, 319 KiB in flight; said only on its sibling subflow before.
fn loss_queue_phrase(f: &Facts) -> String {
    if !rtt_queueing(f) {
        return String::new();
    }
    let (p95, in_flight) = queue_extent(f);
    // Every re-send needless (D-SACK, Eifel): no loss for the queue to have caused; a
    // delay that long outlasts a retransmission timer instead (RFC 3522 §1; review AJ,
    // kannaammulu25 udp.pcapng #6 read "none repaired a loss" and "the losses may be its
    // overflow" in one text). Needless copies prove the data arrived, not that no packet was
    // dropped: its ACKs may have been (review AL, chapter09 Rox_vs_OpenFlow #49).
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    let why = if sender.retransmissions > 0 && sender.spurious_retransmissions >= sender.retransmissions {
        "every re-send was needless: the receiver had the data, so its ACKs came late or were lost on the way back (a delay that long can outlast the sender's timer, RFC 3522)"
    } else {
        "a full queue drops packets, so the losses may be its overflow"
    };
    format!(
        " A queue built up on the path: the RTT rose from {} to {} (median{p95}){in_flight}; {why}.",
        format_duration(f.min_rtt),
        format_duration(f.median_rtt)
    )
}

/// (", 1.7 s at the 95th percentile", " while up to 319 KiB were in flight"): how far the
/// standing queue went, where the 95th percentile is higher again than the median, and
/// the most the sender had in flight (the queue is that data waiting).
fn queue_extent(f: &Facts) -> (String, String) {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    let p95 = sender.rtt.p95_ms.map(|ms| ms / 1000.0).filter(|&p| p >= QUEUEING_RTT_RATIO * f.median_rtt);
    let p95 = p95.map_or(String::new(), |p| format!(", {} at the 95th percentile", format_duration(p)));
    let in_flight = sender.max_bytes_in_flight.filter(|&b| b > 0).map_or(String::new(), |b| format!(" while up to {} were in flight", format_bytes(b as f64)));
    (p95, in_flight)
}

/// The most the median round trip may exceed its minimum and still be "near" it, s:
/// HyStart++'s delay-increase threshold (RFC 9406 §4.2: max(4 ms, min(minimum / 8,
/// 16 ms))), the rise a sender itself takes for a queue building, and at least two
/// clock ticks (a coarser clock cannot tell a smaller rise).
pub(super) fn near_minimum_s(f: &Facts) -> f64 {
    (f.min_rtt / 8.0).clamp(0.004, 0.016).max(2.0 * f.tick)
}

/// What the round trips say of a queue where loss, not the path, is blamed (no
/// standing queue: [`queueing`] is false). "No standing queue" only where the median
/// of the path's round trips (`rtt.pathMedianMs`) is within [`near_minimum_s`] of the
/// minimum; a median above that (yet below [`QUEUEING_RTT_RATIO`] × the minimum) is
/// said in numbers ("near its 153 ms minimum (no standing queue)" once stood beside a
/// printed median of 183 ms and p95 of 244 ms); none at all when no round trip timed
/// the path (every ACK rode on an answer or a delayed-ACK timer).
fn queue_evidence(f: &Facts) -> String {
    let min = format_duration(f.min_rtt);
    if !f.median_rtt.is_finite() {
        return format!(
            "with a {min} minimum RTT and no later round trip that timed the path alone (every ACK \
             rode on the receiver's answer or its delayed-ACK timer), so a queue cannot be judged"
        );
    }
    let median = format_duration(f.median_rtt);
    if f.median_rtt - f.min_rtt > near_minimum_s(f) {
        return own_queue::rise_text(f, &median, &min); // "some queueing", or a rise not its own
    }
    if far_part_unseen(f.conn) {
        format!(
            "with the median RTT ({median}) near its {min} minimum as far as this capture point can see \
             (the sender's side of the round trip is known only by its minimum)"
        )
    } else {
        format!(
            "with the median RTT ({median}) within {} of its {min} minimum (no standing queue at the bottleneck)",
            format_duration(near_minimum_s(f))
        )
    }
}

#[cfg(test)]
mod queue_tests {
    use crate::analysis::stalls::testkit::{summary, Cols, Sim};
    use crate::analysis::stalls::{default_threshold_s, find_stalls};
    use crate::analysis::verdict::diagnosis::diagnose;

    #[test]
    fn a_loss_headline_names_the_queue_the_losses_overflowed() {
        // A 256 KiB window into a 10 Mbit/s bottleneck on a 20 ms path (BDP 25 KB): the
        // rest of the window waits in the bottleneck's queue, 231 KB, ~185 ms more, and
        // one segment in 15 is lost, so recovery takes most of the time: "loss". Each
        // loss drains the queue part-way, so the round trips rise from the 21.16 ms
        // minimum (20 ms + a segment's 1.2 ms at 10 Mbit/s) to a median of 79.02 ms,
        // 3.7×; before, the text said nothing of it (realjimmy
        // `redundant_stream1.pcapng` connection 4).
        const KIB: f64 = 1024.0;
        let mut c = Cols::new(256.0 * KIB);
        let mut sim = Sim::new(256.0 * KIB, 0.020, 10e6);
        sim.lose = (0..400).map(|k| 100 + 15 * k).collect();
        sim.run(&mut c, 0.1, 1.0, 3.0);
        let mut v: Vec<f64> = c.c.rtt.rtt_ms.iter().copied().filter(|x| x.is_finite()).collect();
        v.sort_by(f64::total_cmp);
        let stalls = find_stalls(&c.c.packets, 0, default_threshold_s(v.first().copied(), 0.0));
        let mut s = summary(stalls, None);
        s.path_rtt_ms = v.first().copied();
        s.directions[0].rtt.median_ms = v.get(v.len() / 2).copied();
        s.directions[0].rtt.path_median_ms = s.directions[0].rtt.median_ms;
        s.directions[0].rtt.path_samples = v.len() as u64;
        s.directions[0].max_bytes_in_flight = Some(262_144);
        let d = diagnose(&s, &c.c, 0.0);
        assert_eq!(d.limit, "loss", "{:?} {}", d.shares, d.text);
        assert!((v[0] - 21.1584).abs() < 1e-6 && (v[v.len() / 2] - 79.02048).abs() < 1e-6, "{v:?}");
        let words = " A queue built up on the path: the RTT rose from 21 ms to 79 ms (median) while up to 256 KiB were in flight; a full queue drops packets, so the losses may be its overflow.";
        assert!(d.text.contains(words), "{}", d.text);
    }
}
