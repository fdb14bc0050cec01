//! The auditor (issue 39 item 9; DESIGN.md "Diagnosis principles" 5): every claim of a
//! connection's report checked against the report's own counts and the capture's rows,
//! so that the headline, each sentence, the table, the stall legend and the shares never
//! contradict one another. Each rule is general — a claim and the evidence it needs —
//! and names no capture. The tests run it over every capture available
//! (`tests/audit_captures.rs`); zero contradictions is the bar.
//!
//! Rules:
//! 1. The shares partition the active time: they sum to 1 (DESIGN.md "Limit diagnosis").
//! 2. A stall's time is in the share of its cause, so the stalls of each cause fit in
//!    that share: zero-window + window-limited ≤ receive window, retransmission timeout
//!    ≤ loss, application idle ≤ application, ack-wait + delayed-ack + unknown ≤ stalled.
//!    Where the transfer ended before an idle tail (`diagnosis.transferEnd`,
//!    diagnosis_shares/transfer_end.rs), the shares and the active time end there, and
//!    only the stalls that began before it count (rules 2, 7 and 11 read the same cut).
//!    Where it began after a head of messages (`diagnosis.transferStart`, rule 17), they
//!    start there: a stall that began before it (the pause its first segment ended) is the head's.
//! 3. A timer stall needs its timer's re-send counted, a datagram never captured or the
//!    peer's timer re-send (audit_timer.rs, per stall). A `loss-recovery`
//!    stall needs a re-send the receiver's SACK blocks proved (`unseenResends`).
//! 4. A `loss` headline needs loss: a retransmission, a datagram sent, not captured, or
//!    a re-send the receiver's SACK blocks proved.
//! 5. "N datagram(s) … never reached the capture" quotes the direction's
//!    `unseenDatagrams`.
//! 6. "The transfer stalled N times for D in total" quotes the stall list and its sum
//!    (the transfer's stalls, as rule 2).
//! 7. "X % of the time everything sent had been acknowledged" (or "X % of the time the
//!    sender had nothing to send — ", where its own cadence is part of it) quotes the
//!    application share, and "idle gaps totalling D" the application-idle stalls.
//! 8. "window-limited X % of the time" quotes the receive-window share.
//! 9. "the handshake/its SYN is not in the capture" only where the receiver's window
//!    scale is unknown.
//! 10. The headline limit is the largest share's (T-RAT's dominant factor; `turns` for
//!     `shares.turns`), or a limit a rule of diagnosis.rs names instead of it (`too-short`, `one-direction`, `path`
//!     for a window or loss that did not bind or waits on a running ACK clock, `loss`
//!     held in the congestion window), or a priced limit whose removal saves more
//!     (savings.rs, issue 39 item 4).
//! 11. A headline priced in full (`application`, `zero-window`, `stalls`) has the
//!     largest saving (a lower bound of another's included), and "would have taken
//!     about X instead of Y" quotes the active time less that saving.
//! 12. "The transfer ended at T … idled D" quotes `diagnosis.transferEnd`, whose pause
//!     is an `application-idle` stall of the data direction that begins at T and lasts
//!     D: the idle tail is one the stall list shows, with everything acknowledged.
//! 13. "… went silent after T (its last packet, frame N)" quotes `diagnosis.peerSilent`
//!     (peer_silent.rs), and the capture holds no packet of that peer after it; the
//!     shares end at its `at` as at a transfer's end (rules 2, 6, 7 and 11 read that cut).
//! 14. The sender's own rate (diagnosis_shares/sender_paced.rs: "The sending
//!     application's clock set the rate (X % …" or "The sender capped its data in flight
//!     at … (… X % of the time at it)") heads an `application` headline whose share holds
//!     X %, and "never had more than B unacknowledged" quotes the data direction's
//!     `maxBytesInFlight`.
//! 15. Capture gaps. No limit is named (the headline is
//!     `capture-gaps`, `one-direction` or `not-established`) where the capture misses
//!     more than half of the data (verdict/blind_capture.rs `judge`: the sequence
//!     space the capture proves sent, by its segments and the peer's ACKs, against the
//!     bytes it holds), and `capture-gaps` only there: the segments it holds are
//!     fragments, and no time between them is a limit's. (The tracker's
//!     `captureLoss.unseenBytes` is no evidence for this on its own: a stale ACK that
//!     answers an old SYN, RFC 9293 §3.10.7.3, once counted 300 MiB "unseen".)
//! 16. The end a `turns` text asks to be quicker ("a quicker answer from S", "a quicker
//!     next message from P") took at least as much of the turns' total time as the
//!     other: summed over the rows, each end's time from the other's last data to its
//!     own next, less its part of the path RTT (`senderLagMs` towards the sender, the
//!     rest towards the peer), up to the transfer's end (rule 2's cut) — not only the
//!     larger median.
//! 17. "The transfer began at T (frame N)" quotes `diagnosis.transferStart` (audit_transfer_start.rs).

use crate::analysis::format::{format_bytes, format_duration, format_percent};
use crate::analysis::stalls::is_data_segment;
use crate::analysis::report::Analysis;
use crate::analysis::report::ConnectionSummary;
use crate::analysis::stalls::cause::StallCause;

/// Slack for sums of seconds (f64 sums in another order) and shares.
pub(super) const EPS: f64 = 1e-6;

/// The contradictions of every connection, each "connection N: what".
pub fn audit(a: &Analysis) -> Vec<String> {
    let mut out = Vec::new();
    for (i, c) in a.connections.iter().enumerate() {
        let cols = a.columns(i);
        let active = active_seconds(c, &cols.packets);
        let mut problems = audit_connection(c, active);
        problems.extend(check_peer_silent(c, &cols.packets));
        problems.extend(check_capture_gaps(c, &cols.packets));
        problems.extend(super::audit_timer::check_timer_stalls(c, &cols.packets));
        problems.extend(super::audit_turn_blame::check_turn_blame(c, &cols.packets));
        problems.extend(super::audit_transfer_start::check_transfer_start(c));
        for problem in problems {
            out.push(format!("connection {} ({} ↔ {}): {problem}", c.id, c.endpoints[0], c.endpoints[1]));
        }
    }
    out
}

/// The data direction's active time as the shares count it: first to last data
/// segment, plus a stall still open at the end (diagnosis_shares.rs); where the transfer
/// ended before an idle tail, first data segment to its end (`diagnosis.transferEnd`).
fn active_seconds(c: &ConnectionSummary, p: &crate::analysis::rows::columns::PacketColumns) -> f64 {
    let d = c.data_direction.min(1);
    let mut first = None;
    let mut last = f64::NAN;
    for i in 0..p.t.len() {
        if is_data_segment(p, i, d) {
            first.get_or_insert(p.t[i]);
            last = p.t[i];
        }
    }
    let Some(first) = first else { return 0.0 };
    let first = c.diagnosis.transfer_start.map_or(first, |s| s.at.max(first));
    if let Some(end) = shares_end(c) {
        return end - first;
    }
    let trailing: f64 = c.directions[d as usize].stalls.iter().filter(|s| s.start + s.duration > last + EPS).map(|s| s.start + s.duration - last).sum();
    last - first + trailing
}

/// The contradictions of one connection; `active`: its data direction's active seconds.
pub fn audit_connection(c: &ConnectionSummary, active: f64) -> Vec<String> {
    let mut out = Vec::new();
    check_shares_and_counters(c, active, &mut out);
    check_quotes(c, &mut out);
    check_headline(c, active, &mut out);
    check_transfer_end(c, &mut out);
    out
}

/// Rule 12: the transfer's end against the stall list and the text.
fn check_transfer_end(c: &ConnectionSummary, out: &mut Vec<String>) {
    let text = c.diagnosis.text.as_str();
    let Some(end) = &c.diagnosis.transfer_end else {
        if text.contains("The transfer ended at ") {
            out.push("the text says where the transfer ended, but the report has no transferEnd".to_string());
        }
        return;
    };
    let sender = &c.directions[c.data_direction.min(1) as usize];
    let idle = sender.stalls.iter().any(|s| s.cause == StallCause::ApplicationIdle && (s.start - end.at).abs() <= EPS && (s.duration - end.idle_seconds).abs() <= 1e-3 * s.duration + EPS);
    if !idle {
        out.push(format!("the transfer's end at {} is not the start of an application-idle stall of {}", format_duration(end.at), format_duration(end.idle_seconds)));
    }
    let want = format!("The transfer ended at {:.3} s (frame {}", end.at, end.frame);
    let idled = format!("idled {}", format_duration(end.idle_seconds));
    if !(text.contains(&want) && text.contains(&idled)) {
        out.push(format!("the text does not quote the transfer's end ({want}, {idled})"));
    }
}

/// The sum of the shares (rule 1 wants 1, or 0 without shares).
fn shares_sum(c: &ConnectionSummary) -> f64 {
    let s = &c.diagnosis.shares;
    s.receive_window + s.loss + s.application + s.stalled + s.other + s.turns
}

/// Seconds the data direction stalled for any of `causes` during the transfer ([`in_transfer`]).
fn stalled_by(c: &ConnectionSummary, causes: &[StallCause]) -> f64 {
    let sender = &c.directions[c.data_direction.min(1) as usize];
    sender.stalls.iter().filter(|x| causes.contains(&x.cause) && in_transfer(c, x.start)).map(|x| x.duration).sum()
}

/// A stall that began at `start` is the transfer's: not in the head (rule 2), before [`shares_end`].
pub(super) fn in_transfer(c: &ConnectionSummary, start: f64) -> bool {
    start < shares_end(c).unwrap_or(f64::INFINITY) && c.diagnosis.transfer_start.is_none_or(|s| start >= s.at)
}

/// Where the shares end: the transfer's end before an idle tail or before the peer's
/// silence, whichever is first (peer_silent.rs `TimeShares::ends_at`); None: the last
/// data segment.
pub(super) fn shares_end(c: &ConnectionSummary) -> Option<f64> {
    match (c.diagnosis.transfer_end.map(|e| e.at), c.diagnosis.peer_silent.map(|p| p.at)) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Rule 13: the peer's silence against the text and the rows.
fn check_peer_silent(c: &ConnectionSummary, p: &crate::analysis::rows::columns::PacketColumns) -> Vec<String> {
    let text = c.diagnosis.text.as_str();
    let Some(ps) = &c.diagnosis.peer_silent else {
        return if text.contains(" went silent after ") { vec!["the text says the peer went silent, but the report has no peerSilent".to_string()] } else { Vec::new() };
    };
    let mut out = Vec::new();
    let d = c.data_direction.min(1);
    if (0..p.t.len()).any(|i| p.dir[i] != d && p.t[i] > ps.peer_last) {
        out.push(format!("the peer is said silent after {}, but the capture holds its packets later", format_duration(ps.peer_last)));
    }
    let want = format!("went silent after {} (its last packet, frame {})", crate::analysis::format::format_timestamp(ps.peer_last), ps.peer_last_frame);
    if !text.contains(&want) {
        out.push(format!("the text does not quote the peer's silence ({want})"));
    }
    out
}

/// Rule 15 ("capture gaps"): no limit named where most of the data is missing, and the
/// `capture-gaps` headline only there.
pub fn check_capture_gaps(c: &ConnectionSummary, p: &crate::analysis::rows::columns::PacketColumns) -> Option<String> {
    let gaps = crate::analysis::verdict::blind_capture::judge(c, p);
    let limit = c.diagnosis.limit.as_str();
    match gaps {
        Some(u) if !matches!(limit, "capture-gaps" | "one-direction" | "not-established" | "clock-broken") => Some(format!("a {limit} limit named where the capture holds only {} of the {} a side sent", format_bytes(u.captured()), format_bytes(u.sent))),
        None if limit == "capture-gaps" => Some("a capture-gaps headline where the capture holds most of the data".to_string()),
        _ => None,
    }
}

/// Rules 1–4: the shares against the stalls and the loss counters.
fn check_shares_and_counters(c: &ConnectionSummary, active: f64, out: &mut Vec<String>) {
    let dg = &c.diagnosis;
    let s = &dg.shares;
    let d = c.data_direction.min(1) as usize;
    let sender = &c.directions[d];
    let sum = shares_sum(c);
    // 1.
    if sum > 0.0 && (sum - 1.0).abs() > 1e-3 {
        out.push(format!("shares sum to {sum:.4}, not 1"));
    }
    // 2.
    if sum > 0.0 && active > 0.0 && dg.limit != "one-direction" {
        // Each cause in the share its time counts in (stalls/cause.rs `StallCause::share`),
        // so a new cause is checked without a line here.
        let checks = [("receive-window", s.receive_window), ("loss", s.loss), ("application", s.application), ("stalled", s.stalled)];
        for (name, share) in checks {
            let causes: Vec<StallCause> = StallCause::ALL.into_iter().filter(|c| c.share() == name).collect();
            let stalled = stalled_by(c, &causes);
            if stalled > share * active + 1e-3 * active + EPS {
                out.push(format!("{} of stalls of the {name} causes exceed the {name} share ({} of {})", format_duration(stalled), format_percent(share), format_duration(active)));
            }
        }
    }
    // 3.
    // The timer may be the peer's: its request was lost and its timer re-sent it
    // (stalls/gaps.rs rule 2), which its own counters show.
    let peer = &c.directions[1 - d];
    let rto_stalls = sender.stalls.iter().filter(|x| x.cause.is_timer()).count();
    let timers = sender.rto_events + sender.tail_loss_probes + sender.unseen_datagrams.unwrap_or(0) + sender.retransmissions + peer.retransmissions;
    if rto_stalls > 0 && timers == 0 {
        out.push(format!("{rto_stalls} retransmission-timeout stall(s) without a timeout, probe, re-send or unseen datagram counted"));
    }
    let recovery_stalls = sender.stalls.iter().filter(|x| x.cause == StallCause::LossRecovery).count();
    if recovery_stalls > 0 && sender.unseen_resends == 0 {
        out.push(format!("{recovery_stalls} loss-recovery stall(s) without a re-send the receiver's SACK blocks proved"));
    }
    // 4.
    if dg.limit == "loss" && sender.retransmissions == 0 && sender.unseen_datagrams.unwrap_or(0) == 0 && sender.unseen_resends == 0 && rto_stalls == 0 {
        out.push("a loss headline without a retransmission, an unseen datagram or a timeout stall".to_string());
    }
}

/// Rules 5–9: the numbers the text quotes against the report's.
fn check_quotes(c: &ConnectionSummary, out: &mut Vec<String>) {
    let dg = &c.diagnosis;
    let s = &dg.shares;
    let d = c.data_direction.min(1) as usize;
    let sender = &c.directions[d];
    let text = dg.text.as_str();
    // 5.
    if let Some(n) = number_before(text, " datagram", "never reached the capture") {
        if Some(n) != sender.unseen_datagrams {
            out.push(format!("the text says {n} datagram(s) never reached the capture, unseenDatagrams is {:?}", sender.unseen_datagrams));
        }
    }
    // 6. (the transfer's stalls: before its end, where it has one)
    if let Some(rest) = text.split("The transfer stalled ").nth(1) {
        let stalls: Vec<_> = sender.stalls.iter().filter(|x| in_transfer(c, x.start)).collect();
        let n: Option<usize> = rest.split(' ').next().and_then(|w| w.parse().ok());
        if n != Some(stalls.len()) {
            out.push(format!("the text says it stalled {n:?} times, the stall list has {}", stalls.len()));
        }
        let total: f64 = stalls.iter().map(|x| x.duration).sum();
        let want = format!(" for {} in total", format_duration(total));
        if !rest.contains(&want) {
            out.push(format!("the stall total in the text is not{want}"));
        }
    }
    // 7.
    // (and its opening where the sender's own cadence is part of that time)
    for marker in [" of the time everything sent had", " of the time the sender had nothing to send — "] {
        if !text.contains(marker) {
            continue;
        }
        let want = format!("{}{marker}", format_percent(s.application));
        // (the same check for both openings of diagnosis/wait_words.rs `application_text`)
        if !text.contains(&want) {
            out.push(format!("the application's percentage in the text is not the share ({})", format_percent(s.application)));
        }
    }
    if text.contains("idle gaps totalling ") {
        // Summed in another order the seconds may round the other way at a boundary.
        let idle = stalled_by(c, &[StallCause::ApplicationIdle]);
        let quoted = |x: f64| text.contains(&format!("idle gaps totalling {}", format_duration(x)));
        let want = format!("idle gaps totalling {}", format_duration(idle));
        if !(quoted(idle) || quoted(idle * (1.0 + 1e-9)) || quoted(idle * (1.0 - 1e-9))) {
            out.push(format!("the idle gaps in the text are not the application-idle stalls ({want})"));
        }
    }
    // 8.
    if text.contains("window-limited ") && text.contains(" of the time. Raise") {
        let want = format!("window-limited {} of the time", format_percent(s.receive_window));
        if !text.contains(&want) {
            out.push(format!("the window-limited percentage in the text is not the share ({want})"));
        }
    }
    // 14.
    check_sender_paced(c, out);
    // 9.
    let receiver = &c.directions[1 - d];
    if (text.contains("handshake is not in the capture") || text.contains("its SYN is not in the capture")) && !receiver.window_scale_unknown {
        out.push("the text says the handshake is not in the capture, yet the receiver's window scale is known".to_string());
    }
}

/// Rule 14: the sender's own rate against the application share and `maxBytesInFlight`.
fn check_sender_paced(c: &ConnectionSummary, out: &mut Vec<String>) {
    let dg = &c.diagnosis;
    // The transfer's headline, after a wait sentence that leads (first_answer.rs).
    let body = dg.text.split_once(super::diagnosis::WITHIN_THE_TRANSFER).map_or(dg.text.clone(), |(_, t)| {
        let mut chars = t.chars();
        chars.next().map_or(String::new(), |c| c.to_ascii_uppercase().to_string() + chars.as_str())
    });
    let text = body.as_str();
    let heads = ["The sending application's clock set the rate (", "The sender capped its data in flight at ", "A stop-and-wait sender set the rate (", "The sender had nothing queued ("];
    if !heads.iter().any(|h| text.starts_with(h)) {
        return;
    }
    if dg.limit != "application" {
        out.push(format!("the sender's own rate heads a {} headline", dg.limit));
    }
    let quoted: Option<f64> = text.split(" % of the time").next().and_then(|h| h.rsplit(['(', ' ']).next()).and_then(|n| n.parse().ok());
    match quoted {
        Some(x) if x <= 100.0 * dg.shares.application + 0.5 => {}
        _ => out.push(format!("the sender's own rate quotes {quoted:?} % of the time, the application share is {}", format_percent(dg.shares.application))),
    }
    let sender = &c.directions[c.data_direction.min(1) as usize];
    if let (true, Some(b)) = (text.contains("never had more than "), sender.max_bytes_in_flight) {
        if !text.contains(&format!("never had more than {} unacknowledged", format_bytes(b as f64))) {
            out.push(format!("the bytes in flight quoted are not maxBytesInFlight ({})", format_bytes(b as f64)));
        }
    }
}

/// Rules 10–11: the headline against the largest share and the savings.
fn check_headline(c: &ConnectionSummary, active: f64, out: &mut Vec<String>) {
    let dg = &c.diagnosis;
    let s = &dg.shares;
    let text = dg.text.as_str();
    let sum = shares_sum(c);
    // 10.
    let largest = [("receive-window", s.receive_window), ("loss", s.loss), ("application", s.application), ("stalls", s.stalled), ("path", s.other), ("turns", s.turns)]
        .into_iter()
        .fold(("", -1.0), |b, x| if x.1 > b.1 { x } else { b })
        .0;
    // A limit priced in full that saves the most (savings.rs) is named instead of the
    // largest share.
    // The application's saving counts the sender's own waits only (savings.rs
    // `own_waits`): a lower bound where the peer's time was left out, yet the sender's
    // whole price for its pauses.
    let priced = |l: &str| dg.savings.iter().any(|x| x.limit == l && (!x.at_least || l == "application"));
    let named_instead = (priced(dg.limit.as_str()) && dg.savings.first().is_some_and(|x| x.limit == dg.limit)) || match dg.limit.as_str() {
        "too-short" | "one-direction" | "not-established" | "capture-gaps" | "clock-broken" | "unknown" => true,
        // A window or a loss that did not bind is the path (diagnosis.rs), and loss
        // held in the congestion window is loss though its share is "other".
        // So are waits on ACKs in which the ACK clock kept running (diagnosis.rs
        // `clocked_waits`): the bottleneck's pace.
        "path" => matches!(largest, "receive-window" | "loss" | "path" | "stalls"),
        // Or a loss whose (lower-bound) saving exceeds the largest share's: DESIGN.md
        // "Limit diagnosis": "the headline follows the saving and the sentence says both"
        // — only with the sentence naming the displaced share (diagnosis/yielded.rs).
        "loss" => matches!(largest, "loss" | "path" | "turns") || (dg.savings.first().is_some_and(|x| x.limit == "loss") && text.contains(super::diagnosis::yielded::SAID)),
        "zero-window" => largest == "receive-window",
        l => l == largest,
    };
    if sum > 0.0 && !named_instead {
        out.push(format!("the headline is {} but the largest share is {largest}", dg.limit));
    }
    // 11.
    if let (Some(own), Some(top)) = (dg.savings.iter().find(|x| x.limit == dg.limit && priced(x.limit)), dg.savings.first()) {
        if top.seconds > own.seconds + EPS && !own.at_least {
            out.push(format!("the headline is {} but removing {} would have saved more", dg.limit, top.limit));
        }
        if text.contains(" would have taken about ") {
            let want = format!("would have taken about {} instead of {}", format_duration(active - own.seconds), format_duration(active));
            if !text.contains(&want) {
                out.push(format!("the saving in the text is not the {}'s ({want})", dg.limit));
            }
        }
    }
}

/// The number just before `word` in the sentence that contains `marker`, if any.
fn number_before(text: &str, word: &str, marker: &str) -> Option<u64> {
    let sentence = text.split(". ").find(|s| s.contains(marker))?;
    let at = sentence.find(word)?;
    sentence[..at].rsplit(' ').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::report::Diagnosis;
    use crate::analysis::stalls::cause::Stall;

    fn conn(limit: &str, text: &str, stalls: Vec<Stall>) -> ConnectionSummary {
        let mut c = crate::analysis::stalls::testkit::summary(stalls, None);
        c.diagnosis = Box::new(Diagnosis { limit: limit.into(), text: text.into(), ..Default::default() });
        c
    }

    fn stall(cause: StallCause, duration: f64) -> Stall {
        Stall { start: 1.0, duration, cause, frame_before: 1, frame_after: 2, ended_by: String::new() }
    }

    #[test]
    fn a_timeout_stall_without_a_timer_and_a_loss_headline_without_loss_are_contradictions() {
        // The NFS read of issue 39: 49 "retransmission timer" stalls, a loss headline,
        // and a table with 0 timeouts and 0 retransmissions.
        let mut c = conn("loss", "Loss limited this flow.", vec![stall(StallCause::RetransmissionTimeout, 0.038)]);
        c.diagnosis.shares.loss = 1.0;
        let found = audit_connection(&c, 1.0);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("without a timeout"), "{found:?}");
        // A loss headline with nothing lost at all.
        let mut c = conn("loss", "Loss limited this flow.", vec![]);
        c.diagnosis.shares.loss = 1.0;
        let found = audit_connection(&c, 1.0);
        assert!(found.len() == 1 && found[0].contains("loss headline without"), "{found:?}");
    }

    #[test]
    fn quoted_numbers_must_be_the_reports() {
        // 95 % quoted where the application share is 24 %; 3111 datagrams quoted where the
        // numbering told nothing.
        let mut c = conn(
            "application",
            "The sending application limited this flow: 95 % of the time everything sent had been acknowledged. By its IPv4 numbering 3111 datagrams of the sender never reached the capture (lost).",
            vec![],
        );
        c.diagnosis.shares.application = 0.24;
        c.diagnosis.shares.other = 0.76;
        let found = audit_connection(&c, 10.0);
        assert_eq!(found.len(), 3, "{found:?}");
    }

    #[test]
    fn the_idle_tail_after_the_transfer_is_out_of_the_shares_and_quoted() {
        // A 2.1 MB download over 0.35 s, then 869 ms idle until the client's next
        // request and a 400 B answer (review L C-TAIL): active 0.35 s, no application
        // share, and the idle stall after the transfer's end is not held against it.
        let mut tail = stall(StallCause::ApplicationIdle, 0.86944);
        tail.start = 0.373922;
        let end = crate::analysis::report::TransferEnd { at: 0.373922, frame: 2107, bytes: 2_174_291.0, idle_seconds: 0.86944, peer_spoke: true, tail_bytes: 400.0, tail_seconds: 0.86944 };
        let sentence = crate::analysis::verdict::transfer_tail::sentence(&end);
        let mut c = conn("path", &format!("The congestion window or the path's capacity was the limit. {sentence}"), vec![tail.clone()]);
        c.diagnosis.shares.other = 1.0;
        c.diagnosis.transfer_end = Some(end);
        assert_eq!(audit_connection(&c, 0.35), Vec::<String>::new());
        // Without the cut, the same idle stall exceeds an application share of 0.
        c.diagnosis.transfer_end = None;
        let found = audit_connection(&c, 0.35);
        assert!(found.iter().any(|p| p.contains("application share")), "{found:?}");
        assert!(found.iter().any(|p| p.contains("no transferEnd")), "{found:?}");
        // A cut that is no idle stall's start is a contradiction.
        c.diagnosis.transfer_end = Some(crate::analysis::report::TransferEnd { at: 0.2, ..end });
        let found = audit_connection(&c, 0.2);
        assert!(found.iter().any(|p| p.contains("not the start of an application-idle stall")), "{found:?}");
    }

    #[test]
    fn a_consistent_report_has_no_contradiction() {
        let mut c = conn(
            "application",
            "The sending application limited this flow: 60 % of the time everything sent had been acknowledged and the sender still had nothing to send (idle gaps totalling 500 ms).",
            vec![stall(StallCause::ApplicationIdle, 0.5)],
        );
        c.diagnosis.shares.application = 0.6;
        c.diagnosis.shares.other = 0.4;
        assert_eq!(audit_connection(&c, 1.0), Vec::<String>::new());
    }

    #[test]
    fn the_senders_own_rate_quotes_the_application_share_and_the_flight() {
        // Rule 14: 100 % quoted where the application share is 40 %, on a path headline,
        // and 3.5 KiB where maxBytesInFlight is 1,818 bytes.
        let text = "The sending application's clock set the rate (100 % of the time): it sent a segment about every 20 ms (51 per second, median 357 B) at a steady rate that did not follow the ACKs, 2538 of its 2546 segments below half a full segment — each record sent as it was written, nothing queued behind it — and never had more than 3.5 KiB unacknowledged.";
        let mut c = conn("path", text, vec![]);
        c.diagnosis.shares.application = 0.4;
        c.diagnosis.shares.other = 0.6;
        let d = c.data_direction.min(1) as usize;
        c.directions[d].max_bytes_in_flight = Some(1818);
        let found = audit_connection(&c, 10.0);
        assert!(found.iter().any(|p| p.contains("heads a path headline")), "{found:?}");
        assert!(found.iter().any(|p| p.contains("quotes Some(100.0) % of the time")), "{found:?}");
        assert!(found.iter().any(|p| p.contains("not maxBytesInFlight (1.8 KiB)")), "{found:?}");
        // The same claims made true: none.
        let mut c = conn("application", &text.replace("3.5 KiB", "1.8 KiB"), vec![]);
        c.diagnosis.shares.application = 1.0;
        c.directions[d].max_bytes_in_flight = Some(1818);
        assert_eq!(audit_connection(&c, 10.0), Vec::<String>::new());
    }
}
