//! The sentences of the headlines about waiting (diagnosis.rs `headline`): the
//! application, a zero window, and stalls (waits on ACKs the path clocked).

use super::*;
use crate::analysis::verdict::diagnosis_episodes::chunk_turns;
#[path = "answer_waits.rs"]
mod answer_waits;
#[path = "answer_far_leg.rs"]
pub(super) mod answer_far_leg;
#[path = "bulk_limit_words.rs"]
mod bulk_limit_words;
#[path = "nagle_turns.rs"]
pub(crate) mod nagle_turns;
#[path = "nagle_words.rs"]
pub(crate) mod nagle_words;

/// The rate the largest window allows at the path RTT (`window_cap_bps`), formatted;
/// None above [`WINDOW_CAP_QUOTED_MAX_BPS`]: on a path of a few µs (a host's own
/// loopback, a LAN switch) any window allows more than links carry, a number that says
/// only "not the window" (an 824 KiB window at 7 µs: "964 Gbit/s", for a flow at 81
/// Mbit/s).
pub(super) fn window_allows(f: &Facts) -> Option<String> {
    let cap = window_cap_bps(f.max_window, f.min_rtt);
    (cap <= WINDOW_CAP_QUOTED_MAX_BPS).then(|| format_rate(cap))
}

/// Where [`window_allows`] quotes no rate: "at a 7 µs round trip (over 100 Gbit/s)".
pub(super) fn window_beyond_links(f: &Facts) -> String {
    format!("at a {} round trip (over {})", format_duration(f.min_rtt), format_rate(WINDOW_CAP_QUOTED_MAX_BPS))
}

/// The largest window cap quoted as a rate, bit/s: 100 Gbit/s, a fast server NIC.
pub const WINDOW_CAP_QUOTED_MAX_BPS: f64 = 100e9;

/// " Other stalls: 300 ms retransmission timeout, …" for the causes but `skip`.
pub(super) fn other_stalls_phrase(f: &Facts, skip: usize) -> String {
    // Nagle's holds behind a delayed ACK by their own name (nagle_words.rs).
    let mut rest = nagle_words::cause_parts(f, (0..6).filter(|&k| k != skip));
    if rest.is_empty() {
        return String::new();
    }
    rest.sort_by(|a, b| b.0.total_cmp(&a.0));
    let parts: Vec<String> = rest.iter().map(|(s, w)| format!("{} {}", format_duration(*s), w)).collect();
    format!(" Other stalls: {}.", parts.join(", "))
}

pub(super) fn application_text(f: &Facts) -> String {
    let idle = f.sh.stall_by_cause[3];
    let app = f.shares.application * f.sh.active;
    // Mostly waiting for the peer's next message (request/response): the peer's
    // application's time, not the sender's pause (issue 39: SMTP commands answered
    // ~100 ms later read "the sending application limited this flow"). Only the pauses'
    // part until the peer's message is the peer's (`TimeShares::peer_time`); the data
    // flowed from the sender, so the sender waited and the peer took its time to send —
    // not "to answer": the peer was the one asking (review P: a PostgreSQL client's next
    // query, an NNTP reader's next ARTICLE).
    let peer_turns = app > 0.0 && f.sh.peer_time >= 0.5 * app;
    // Of that wait, the peer's stack holding its message for the sender's delayed ACK.
    let nagle = if peer_turns { nagle_turns::nagle_in_turns(f.conn, f.rows.packets, f.tick) } else { None };
    let mut t = if peer_turns {
        let (_, peer) = ends(f);
        format!(
            "The applications limited this flow: {} of the time everything sent had been acknowledged \
             and the sender had nothing to send, {} of it waiting for {peer}'s next message ({peer}'s \
             time to send it and the path's to bring it) before it sent again",
            format_percent(f.shares.application),
            format_percent(f.sh.peer_time / app)
        )
    } else if f.sh.own_cadence >= OWN_CADENCE_SAID * app {
        // Intervals of the sender's own cadence (diagnosis_shares.rs "application"):
        // data outstanding, so "everything sent had been acknowledged" would be false.
        format!(
            "The sending application limited this flow: {} of the time the sender had nothing to send — \
             everything sent had been acknowledged, or ({} of the time) its one small segment was still \
             unacknowledged and it sent the next at its own pace, with no ACK or window update in between \
             that could have held it",
            format_percent(f.shares.application),
            format_percent(f.sh.own_cadence / f.sh.active)
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
    if let Some(n) = &nagle {
        t += &nagle_turns::clause(f, n);
    }
    // Period by period (issue 13): idle time between bursts is the application's,
    // but a period in which the bursts themselves crawled is the network's.
    let (queue_verdict, nagle_verdict, loss_verdict);
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
    } else if let Some(n) = nagle.as_ref() {
        nagle_verdict = nagle_turns::verdict(f, n);
        nagle_verdict.as_str()
    } else if let Some(l) = loss_over_pauses::sentence(f) {
        // The loss's saving above the pauses' (loss_over_pauses.rs): not "not the network".
        loss_verdict = l;
        loss_verdict.as_str()
    } else if peer_turns {
        "The applications' turns, not the network, set the pace."
    } else {
        "Mostly the application, not the network, was the bottleneck."
    };
    let saving = application_saving_phrase(f, peer_turns);
    // Its one bulk burst paced by the network (bulk_limit_words.rs): the headline says
    // the application limited the connection, not that transfer.
    if saving.contains(bulk_limit_words::MARK) {
        let pacer = if saving.contains(&format!("{}, not the application", bulk_limit_words::WINDOW)) { bulk_limit_words::WINDOW } else { "the network" };
        t = t.replacen("limited this flow: ", &format!("limited this connection, but not its one bulk transfer, which {pacer} paced (below): "), 1);
    }
    t + &format!("; {}. {}", rate_phrase(f), verdict) + &saving + &other_stalls_phrase(f, 3)
}

/// Share of the application's time in the sender's own cadence from which the
/// application headline says so (below it, the rest is said by "everything sent had
/// been acknowledged" within rounding).
pub const OWN_CADENCE_SAID: f64 = 0.01;

/// What removing the application's pauses would have saved (savings.rs `application`),
/// only where the pauses are shown avoidable (savings.rs `pauses_avoidable`); else why
/// they are not: a counterfactual that removes a person's typing or a source's clock
/// is literally true and says nothing (issue 39 review I class I).
pub(super) fn application_saving_phrase(f: &Facts, peer_turns: bool) -> String {
    // A pause is at least a round trip (and a millisecond, or a clock tick): shorter
    // ones are the ACK clock of a transfer, not its source pausing.
    let min_pause_s = [f.min_rtt, f.tick, 1e-3].into_iter().filter(|v| v.is_finite()).fold(0.0, f64::max);
    // The message test keeps the largest frame where the handshake is missing (at a
    // host with segmentation offload a frame is one write of the application); the
    // words count real segments (`real_segment_bytes`), as does the bulk.
    let segment = real_segment_bytes(f);
    match savings::pauses_avoidable(&f.sh.bursts, (segment_bytes(f), segment), f.tick, min_pause_s, data_span(f)) {
        // Behind a split proxy, the far path's part of the waits said apart (answer_far_leg.rs).
        Ok(()) => own_waits_too_small(f).unwrap_or_else(|| saving_sentence(f, "application", &own_waits_lead(f, peer_turns))) + &answer_far_leg::sentence(f),
        Err(savings::Unavoidable::Messages(median)) => format!(
            " Each burst between the pauses was a message (median {}, {}): {}",
            format_bytes(median),
            if median < savings::MESSAGE_SEGMENTS * segment {
                "under two full segments".to_string()
            } else {
                format!("{:.1} full segments of {}, under two of the largest frames its host handed the network", median / segment, format_bytes(segment))
            },
            // The answering end's own time is no source's pace (answer_waits.rs).
            match answer_waits::answer_waits_sentence(f) {
                Some(a) => format!("an exchange of messages, but not one paced by its source alone.{} {a}", answer_waits::push_sentence(f)),
                None => format!("an exchange of messages paced by its source, not a transfer waiting for data, so no readier application would shorten it.{}", answer_waits::push_sentence(f)),
            }
        ),
        Err(savings::Unavoidable::Bulk(mut b)) => {
            let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
            // The largest burst's bulk, where smaller turns began it (chunk_turns.rs).
            if let Some((from, to, bytes)) = chunk_turns::main_chunk(p, d, (b.from, b.to), segment) {
                (b.from, b.to, b.largest) = (from, to, bytes);
            }
            let said = bulk_sentence(&b, segment, chunk_turns::said(p, d, &b.spans, segment, f.min_rtt), answer_waits::pushes_and_answer_waits(f));
            // One burst that held most of the bytes, paced by the network (bulk_limit_words.rs).
            match bulk_limit_words::said(f, &b) {
                Some(limit) => said.replace(ONLY_PACE, &limit),
                None => said,
            }
        }
        Err(savings::Unavoidable::Clock(period)) => format!(
            " The pauses ended on a clock, every {}: a fixed-period source, whose pauses are its period, not a delay.",
            format_duration(period)
        ),
    }
}

/// The bulk sentence's close where nothing else is said of the pauses: replaced by the
/// one burst's limit where the network paced it (bulk_limit_words.rs).
const ONLY_PACE: &str = "The application's pauses came between these bursts, not inside them: the exchange's own pace, which no \
                         readier application would shorten.";

/// The data direction's sender and its peer, as the report names them.
fn ends<'a>(f: &'a Facts) -> (&'a str, &'a str) {
    let d = f.conn.data_direction.min(1) as usize;
    (&f.conn.directions[d].from, &f.conn.directions[1 - d].from)
}

/// The lead of the application's saving (savings.rs `own_waits`): whose waits it
/// counts. Where the peer sent data in the pauses, their part until its message was
/// the peer's, left out, and the sentence says so with both times: "Had every answer
/// been ready" once priced a browser's 424 ms before its next GET as the server's.
fn own_waits_lead(f: &Facts, peer_turns: bool) -> String {
    if f.sh.peer_time <= 0.0 {
        return "Had the application always had data ready".to_string();
    }
    let (sender, peer) = ends(f);
    let own = format_duration(saving_of(&f.savings, "application"));
    let theirs = format_duration(f.sh.peer_time);
    // Behind a split proxy, less each wait's far round trip (answer_far_leg.rs).
    let waits = if answer_far_leg::far_leg(f).is_some() { "its own waits beyond the far round trips" } else { "its own waits" };
    if peer_turns {
        format!("Had {sender} had every answer ready at once ({waits}, {own}; the other {theirs} was the wait for {peer}'s next message)")
    } else {
        format!("Had {sender} always had data ready ({waits}, {own}; the other {theirs} of the pauses was the wait for {peer}'s next message)")
    }
}

/// The sentences of `text` that rules run after every connection's diagnosis say again
/// (report.rs `Said`), where `text` holds them: the answering end's waits, and the
/// application saving's lead that names the sender's own waits.
pub(super) fn said(f: &Facts, text: &str) -> crate::analysis::report::Said {
    // The waits are read again (a pass over the pauses) only where a sentence of theirs
    // can be in the text; the fact is the sentence itself, found whole.
    let answer_waits = if text.contains(" itself took ") { answer_waits::answer_waits_said(f).filter(|a| text.contains(a.0.as_str())) } else { None };
    let leads = if f.sh.peer_time > 0.0 { vec![(own_waits_lead(f, true), true), (own_waits_lead(f, false), false)] } else { Vec::new() };
    let own = saving_of(&f.savings, "application");
    let own_waits = leads.into_iter().find(|(l, _)| text.contains(l.as_str())).map(|(l, turns)| (l, own, f.sh.peer_time, turns));
    crate::analysis::report::Said { answer_waits, own_waits }
}

/// Where the sender's own waits are too small to show in "about X instead of Y" (both
/// round to one number: "about 1.9 s instead of 1.9 s", the peer having taken the
/// pauses), the sentence that says so: how little they were and whose the rest was.
fn own_waits_too_small(f: &Facts) -> Option<String> {
    let own = saving_of(&f.savings, "application");
    if !(f.sh.peer_time > 0.0 && own > 0.0 && format_duration(f.sh.active - own) == format_duration(f.sh.active)) {
        return None;
    }
    let (sender, peer) = ends(f);
    Some(format!(
        " Had {sender} had every answer ready at once, the transfer would have been only {} shorter: the other {} of the pauses was the wait for {peer}'s next message.",
        format_duration(own),
        format_duration(f.sh.peer_time)
    ))
}

/// The first and last data segment of the data direction, capture time (NaN, NaN
/// without data).
fn data_span(f: &Facts) -> (f64, f64) {
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let mut data = (0..p.t.len()).filter(|&i| crate::analysis::stalls::is_data_segment(p, i, d));
    let first = data.next().map_or(f64::NAN, |i| p.t[i]);
    let last = data.last().map_or(first, |i| p.t[i]);
    // Up to the transfer's end where an idle tail followed it (transfer_tail.rs): the
    // tail's few bytes are no part of the last burst; from its start after a head of
    // messages (transfer_head.rs), as the shares.
    (f.sh.starts_at().map_or(first, |s| s.max(first)), f.sh.ends_at().map_or(last, |e| e.min(last)))
}

/// Where the bytes of an exchange of messages went when bulk bursts held most of them
/// (savings.rs [`savings::Unavoidable::Bulk`]): the bulk's share, its largest burst
/// with its times, and the messages around it — whose pauses, not the bulk, took the
/// time (issue 39 review L class C-MSG: an SMB copy's one 741 KB write among small
/// requests once read "each burst was a message (median 228 B)").
/// `turns`: the request/response turns inside the bursts, said (chunk_turns.rs).
/// `answers`: the answering end's own waits, said (answer_waits.rs): then the pauses are
/// not called the exchange's own pace.
fn bulk_sentence(b: &savings::BulkBursts, segment: f64, turns: Option<String>, answers: Option<String>) -> String {
    let when = if b.to > b.from { format!("from {} to {}", format_timestamp(b.from), format_timestamp(b.to)) } else { format!("at {}", format_timestamp(b.from)) };
    let others = if b.others_median > 0.0 {
        format!(
            "; the other bursts had a median of {}{}",
            format_bytes(b.others_median),
            if b.answered { ", and at least half the pauses held the peer's own" } else { "" }
        )
    } else {
        String::new()
    };
    let pace = match (turns, answers) {
        (Some(t), Some(a)) => format!("The application's pauses came between these bursts. {t} {a}"),
        (Some(t), None) => format!("The application's pauses came between these bursts: the exchange's own pace. {t}"),
        (None, Some(a)) => format!("The application's pauses came between these bursts, not inside them. {a}"),
        (None, None) => ONLY_PACE.to_string(),
    };
    // Not "100 %" for 99.6 %: the messages carried some.
    let share = if b.share < 1.0 && b.share >= 0.995 { "Over 99 %".to_string() } else { format_percent(b.share) };
    let (bursts, largest) = (crate::analysis::format::plural(b.count as u64, "burst"), if b.count == 1 { "" } else { "the largest " });
    // The bulk line (savings.rs `bulk_line`): 10 full segments, or RFC 6928's byte cap
    // for larger segments (then no count of segments, which their size distorts).
    let line = savings::bulk_line(segment);
    if line < savings::BULK_SEGMENTS * segment {
        return format!(
            " {share} of the bytes moved in {bursts} of at least an initial window ({largest}{}, {when}; RFC 6928 caps an initial \
             window at {} for {} segments){others}. {pace}",
            format_bytes(b.largest),
            format_bytes(line),
            format_bytes(segment)
        );
    }
    format!(
        " {share} of the bytes moved in {bursts} of at least {} full segments ({largest}{}, {} segments of {}, {when}){others}. {pace}",
        savings::BULK_SEGMENTS,
        format_bytes(b.largest),
        (b.largest / segment).round(),
        format_bytes(segment)
    )
}

pub(super) fn zero_window_text(f: &Facts) -> String {
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
pub(super) struct ClockedWaits {
    pub(super) stalls: usize,
    pub(super) seconds: f64,
    /// ACKs that advanced the cumulative ACK during them, all told.
    pub(super) acks: usize,
}

/// The `ack-wait` stalls of the data direction in which the receiver's cumulative ACK
/// advanced at least [`MIN_CLOCKED_ACKS`] times: the sender was waiting, but the
/// bottleneck was still delivering what it had sent — the ACK clock running (Jacobson
/// 1988) — so the time is the path's pace, not a fault or a pause (issue 39: a
/// 256 kbit/s uplink draining each 8 KiB write, ACKs every ~45 ms, read "stalled").
/// None when there is none.
pub(super) fn clocked_waits(f: &Facts) -> Option<ClockedWaits> {
    let p = f.rows.packets;
    let d = f.conn.data_direction.min(1);
    let mut w = ClockedWaits { stalls: 0, seconds: 0.0, acks: 0 };
    // A running clock ticks throughout (drain_saving.rs `ticking`): no ACK-free stretch
    // of half the wait (4 ACKs in the last 84 µs of a 93 ms wait once read "kept coming").
    for s in &f.conn.directions[d as usize].stalls {
        if let Some((acks, _)) = super::drain_saving::ticking(p, d, s) {
            w.stalls += 1;
            w.seconds += s.duration;
            w.acks += acks;
        }
    }
    (w.stalls > 0).then_some(w)
}

/// ACKs advancing within a wait that show the bottleneck still delivering.
pub const MIN_CLOCKED_ACKS: usize = 2;

/// The headline where most of the stalled time was the ACK clock running (`clocked_waits`).
pub(super) fn clocked_path_text(f: &Facts, w: &ClockedWaits) -> String {
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

/// The `stalls` saving's opening (savings.rs: each wait on ACKs or of unknown cause),
/// naming the causes the stall list holds (`by_cause`: CAUSE_WORDS' slots, 4 waiting on
/// ACKs, 5 unknown): a page whose stalls are all of unknown cause — a capture without
/// the peer's pure ACKs — once read "Had each wait on ACKs lasted …" beside a list with
/// no wait on ACKs (review O, bitcoin.pcap #2).
/// `delayed`: of slot 4, the `delayed-ack` stalls' time (nagle_words.rs), named as such.
fn stalls_saving_lead(by_cause: &[f64], delayed: f64) -> &'static str {
    let only_delayed = delayed > 0.0 && by_cause.get(4).is_some_and(|&s| s - delayed <= 1e-9);
    match (by_cause.get(4).is_some_and(|&s| s > 0.0), by_cause.get(5).is_some_and(|&s| s > 0.0), delayed > 0.0) {
        (false, true, _) => "Had each stall of unknown cause lasted no more than a round trip",
        (true, true, false) => "Had each wait on ACKs or of unknown cause lasted no more than a round trip",
        (true, true, true) => "Had each wait on ACKs (delayed ones included) or of unknown cause lasted no more than a round trip",
        _ if only_delayed => "Had each wait for a delayed ACK lasted no more than a round trip",
        (_, _, true) => "Had each wait on ACKs (delayed ones included) lasted no more than a round trip",
        _ => "Had each wait on ACKs lasted no more than a round trip",
    }
}

pub(super) fn stalls_text(f: &Facts) -> String {
    // The transfer's stalls: not the idle tail after its end (transfer_tail.rs).
    let all = &f.conn.directions[f.conn.data_direction.min(1) as usize].stalls;
    let stalls = crate::analysis::verdict::peer_silent::stalls_within(all, f.sh);
    let mut by_time = nagle_words::cause_parts(f, 0..CAUSE_WORDS.len());
    by_time.sort_by(|a, b| b.0.total_cmp(&a.0)); // the biggest cause first
    let parts: Vec<String> =
        by_time.iter().map(|(secs, words)| format!("{} {}", format_duration(*secs), words)).collect();
    format!(
        "The transfer stalled {} time{} for {} in total ({} of the time waiting on the peer or the path): {}; {}.",
        stalls.len(),
        if stalls.len() == 1 { "" } else { "s" },
        // The list's own sum, as its count: the share pass's total is of the stalls as
        // clipped to the active time in the sender's clock, and may round apart (182 ms
        // beside a list of 182.5 ms once read "stalled 5 times for 182 ms").
        format_duration(stalls.iter().map(|x| x.duration).sum::<f64>()),
        format_percent(f.shares.stalled),
        parts.join(", "),
        rate_phrase(f)
    ) + &stalls_saving_or_unknown(f)
        // A queue on the path is why ACKs kept the sender waiting (the RTT it grew to).
        + &if queueing(f) { queue_phrase(f) } else { String::new() }
}

/// The `stalls` saving's sentence, or, where no round trip is known (savings.rs
/// `round_trip_s`: no path RTT and no estimate of it), what is known instead: the saving
/// then takes no round trip off any wait, and "would have taken about 103 ms instead of
/// 6.6 s" rested on a round trip the capture never measured (review AJ,
/// C-PACED-GAPS-AS-STALLS, edalakaveri `csa0711-COMPUTER-NETWORKS1/tcp.pcapng` #1).
/// Only where a figure would have been said (a saving that leaves some time).
fn stalls_saving_or_unknown(f: &Facts) -> String {
    let said = saving_sentence(f, "stalls", stalls_saving_lead(&f.sh.stall_by_cause, nagle_words::delayed_stalls(f).0));
    if said.is_empty() || crate::analysis::verdict::savings::round_trip_s(f.conn).is_finite() {
        return said;
    }
    UNKNOWN_ROUND_TRIP.to_string()
}

/// Said in place of the saving where the round trip is unknown (`stalls_saving_or_unknown`).
pub const UNKNOWN_ROUND_TRIP: &str = " The capture never measured the round trip, so how much of each wait one round trip would have taken, and what the transfer would have taken without the rest, cannot be told.";

