//! The cause of one gap (the order of the tests is in the parent module's doc, gaps.rs),
//! read from the state `find_stalls` carried to the moment the gap closed, and the
//! words saying what ended it.

use super::gap::not_held_words;
#[path = "peer_transfer.rs"]
mod peer_transfer;
use crate::analysis::stalls::delayed_ack::MIN_HOLD_S;
use super::resends::ack_clocked;
use super::{needless, reordered, Gap, IDLE_MIN_S, MAX_ACK_DELAY_S, UNSEEN_RESEND_MAX_S};
use crate::analysis::format::{format_bytes, format_duration, format_timestamp};
use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::cause::{whole_ns, Stall, StallCause};

/// A stall still open when the connection's packets end (see `find_stalls`).
pub(super) fn classify_trailing(cols: &PacketColumns, g: &Gap, last: usize, peer_win: f64) -> Stall {
    let t0 = cols.t[g.index];
    let (cause, ended_by) = if peer_win == 0.0 {
        let probes = match g.probes {
            0 => String::new(),
            1 => ", after 1 zero-window probe".to_string(),
            n => format!(", after {n} zero-window probes"),
        };
        (StallCause::ZeroWindow, format!("not ended: the window was still closed when the capture ended{probes}"))
    } else if g.unacked_at_start {
        // No re-send came in the gap, so no timer is seen to have fired: the sender may
        // have given up, been reset, or the capture ended first. A timeout is claimed
        // only where a re-send shows it (DESIGN.md "Diagnosis principles" 1).
        (StallCause::Unknown, "not ended: data still unacknowledged when the capture ended, and nothing re-sent".to_string())
    } else {
        (StallCause::Unknown, "not ended when the capture ended".to_string())
    };
    Stall { start: t0, duration: whole_ns(cols.t[last] - t0), cause, frame_before: cols.frame[g.index], frame_after: cols.frame[last], ended_by }
}

/// The retransmission that ended a stall, named by its kind (retrans_kinds.rs), so the
/// stall list and the retransmission counts tell one story: the cause
/// `retransmission-timeout` means "waited on a loss-recovery timer", and this says
/// which one fired (RFC 6298 timeout, RFC 8985 §7 probe, or §6.3 reordering timer).
fn retransmission_kind_words(flags: u32) -> &'static str {
    use flag_bits as fb;
    if flags & fb::KIND_RTO != 0 {
        "timeout retransmission"
    } else if flags & fb::KIND_TLP != 0 {
        "tail loss probe"
    } else if flags & fb::KIND_FAST != 0 {
        "recovery retransmission"
    } else if flags & fb::KIND_SLOW_START != 0 {
        "slow-start retransmission"
    } else {
        "retransmission"
    }
}

/// The cause of the gap that data segment `j` closed (the rules of gaps.rs's doc, first
/// match wins), and what ended it.
pub(super) fn classify(cols: &PacketColumns, g: &Gap, j: usize, peer_win: f64, resent: bool, peer_pure_acks: bool, (path_rtt_s, lag_s): (Option<f64>, f64)) -> Stall {
    let (t0, t1) = (cols.t[g.index], cols.t[j]);
    // The application is idle only while the sender has nothing outstanding (issue 39:
    // DESIGN.md "Diagnosis principles" 1): before the ACK of everything, the data sent
    // was still on its way — a slow path draining the last write, or Nagle's algorithm
    // holding a small segment while any data is unacknowledged (RFC 896; RFC 1122
    // §4.2.3.4) — and a sender that writes again as that ACK comes was waiting on it.
    let duration = t1 - t0;
    // The segment that ends the gap was sent on the peer's ACKs (a fast retransmission).
    let on_acks = ack_clocked(cols.flags[j], g.last_peer_at.map_or(f64::INFINITY, |tp| t1 - tp), path_rtt_s, lag_s);
    // Rule 5's `unknown` of a payload-only capture, or rule 5a's sender free because the
    // last ACK came long before: what no ACK in the capture shows (`rule_5`).
    let mut no_ack_shown = false;
    let (cause, ended_by) = if g.zero_window {
        let how = if peer_win > 0.0 {
            format!("window update to {}", format_bytes(peer_win))
        } else {
            "data sent while the window was still 0".to_string()
        };
        (StallCause::ZeroWindow, how)
    } else if resent && g.unacked_at_start && !on_acks {
        let how = format!("{} of {} bytes at {}", retransmission_kind_words(cols.flags[j]), cols.len[j], format_timestamp(t1));
        (StallCause::RetransmissionTimeout, how)
    } else if g.resent_before && g.unacked_at_start && !g.acked_by_request && g.all_acked_at.map_or(true, |ta| ta - t0 >= 0.5 * duration) {
        // The gap began with a retransmission still unacknowledged: the sender waited
        // for loss recovery (its retransmission timer, or the ACK that ends recovery).
        // Not when that ACK rode on the peer's next request, the peer silent until
        // then: a request/response peer holds its ACK of a response's last segment
        // (delayed ACK) for its next request whether or not that segment was a
        // re-send, and the wait is the turn-taking below, as in every other round.
        // Linux request/response at 8 % loss, captured at the server: 5 gaps of
        // 25 ms (20 ms think time) after a tail loss probe read as loss recovery,
        // each after the probe's own 210 ms stall (kernel: 5 TCPLossProbes). The
        // request must echo the retransmission's TSval: in `reqresp-blackhole.pcap`
        // the request that ends the gap after the server's timeout is the client's
        // own timeout re-send of a request from before the blackhole (its echo is
        // older), and the gap was the outage.
        let how = match g.all_acked_at {
            Some(ta) => format!("new data after the retransmitted data was acknowledged at {}", format_timestamp(ta)),
            None => "new data while retransmitted data was still unacknowledged".to_string(),
        };
        (StallCause::RetransmissionTimeout, how)
    } else if !resent
        && cols.flags[j] & flag_bits::ANY_RETRANSMISSION != 0
        && !on_acks
        && (cols.flags[j] & flag_bits::UNSEEN_BEFORE == 0 || g.peer_reply.is_some())
        && !needless(cols.flags[j])
        && !reordered(cols.flags[j])
        && duration <= UNSEEN_RESEND_MAX_S + path_rtt_s.unwrap_or(0.0)
    {
        // A re-send of bytes the capture never saw before the gap: the sender's own
        // packets showed it had sent them (a pure ACK of its with a higher sequence
        // number, Wireshark's "previous segment not captured"), they never reached the
        // capture point, and nothing but its timer re-sent them after the silence (a
        // response lost on the way, re-sent 0.5 s later, once read "application idle"
        // when the peer's own re-sent request was shown needless). A segment after a
        // skipped datagram number in a gap without the peer's payload is rule 3b's,
        // which names the numbering (unseen_timeout.rs).
        let how = format!("re-send of {} bytes at {}, sent during the gap and lost before the capture point", cols.len[j], format_timestamp(t1));
        (StallCause::RetransmissionTimeout, how)
    } else if let Some(how) = peer_transfer::words(g, t0, t1).filter(|_| peer_transfer::own_state_idle(cols, g, j) && g.peer_resent.is_some_and(|(tr, _)| peer_timer_longest(cols, g, j, tr))) {
        (StallCause::ApplicationIdle, how) // rule 2c's gap, but the peer's own transfer, not its timer, filled it
    } else if let Some((tr, bytes)) = g.peer_resent.filter(|&(tr, _)| peer_timer_longest(cols, g, j, tr)) {
        // Request/response: the sender waited for the peer's next request, which was
        // lost and re-sent by the peer's retransmission timer — a round trip lost to
        // the network, not an idle application (issue 13). Only where that timer took
        // the largest part of the gap (`peer_timer_longest`): else the peer deciding
        // to ask, or the sender to answer, took more of it (issue 39 item 8).
        let how = format!(
            "new data after the peer's request of {} bytes, which the peer's timer had to re-send (at {})",
            bytes,
            format_timestamp(tr)
        );
        (StallCause::RetransmissionTimeout, how)
    } else if let Some((tf, ts, resent)) = peer_sat_on_request(cols, g, j) {
        // The peer began to answer late: its application's turn took more of the gap
        // than the loss of its request (re-sent by its timer) and the sender's answer.
        (StallCause::ApplicationIdle, peer_turn_words(g, t0, (tf, ts), resent))
    } else if g.all_acked_at.is_some_and(|ta| {
        // Silent since everything was acknowledged and the peer's last message came.
        let since = g.peer_reply.map_or(ta, |(tr, _)| tr.max(ta));
        t1 - ta >= ta - t0 || path_rtt_s.is_some_and(|r| t1 - since >= r.max(IDLE_MIN_S))
    }) {
        (StallCause::ApplicationIdle, idle_words(g, t0, t1))
    } else if g.window_limited {
        let how = match g.last_peer_update {
            Some(tu) => format!(
                "ACK opening the window ({}) at {}",
                format_bytes(peer_win),
                format_timestamp(tu)
            ),
            None => "new data without a window update in the capture".to_string(),
        };
        (StallCause::WindowLimited, how)
    } else if let (Some(ta), Some((tr, bytes))) = (g.all_acked_at, g.peer_reply) {
        // Turn-taking (request/response, interactive sessions): everything was
        // acknowledged and the sender waited for the peer's next request. If the
        // request came promptly after the peer had all the data, the wait was the
        // round trip itself (issue 13: "a stall that ends with the peer's request is a
        // round trip, not application idle"); if the peer sat on it, the peer's
        // application was idle.
        turn_taking(g, t0, duration, (ta, tr, bytes), peer_pure_acks, path_rtt_s)
    } else {
        // Rule 5: data in flight below the window, no timer (`rule_5`).
        let (cause, how, unshown) = rule_5(cols, g, j, peer_win, peer_pure_acks);
        no_ack_shown = unshown;
        (cause, how)
    };
    let (cause, ended_by) = unless_capture_missed(cols, g, j, (cause, ended_by), no_ack_shown);
    // A fast retransmission that ended a wait judged by the later rules is no new data.
    let ended_by = if resent && on_acks && cause != StallCause::ZeroWindow { on_acks_words(cols, j) } else { ended_by };
    Stall {
        start: t0,
        duration: whole_ns(duration),
        cause,
        frame_before: cols.frame[g.index],
        frame_after: cols.frame[j],
        ended_by,
    }
}

/// What ended an idle gap (everything acknowledged, the sender silent, rule 3). Where the
/// peer's last message came after everything was acknowledged and in the gap's second
/// half, and the sender's data followed it, most of the gap was the peer's turn: its
/// application took that long to speak, and the sender answered it. The words split the
/// gap there, as the peer's and the sender's parts: an idle gap in which the peer spoke
/// first at once (a 39-byte record 4 ms after the response) and asked again 7.1 s later,
/// the sender answering 0.9 s after that, read only "new data after all was
/// acknowledged" (corelight zeek-asyncrat-detector 30a385ed…pcap connection 6, frames
/// 407 → 465).
fn idle_words(g: &Gap, t0: f64, t1: f64) -> String {
    match (g.all_acked_at, g.peer_reply) {
        (Some(ta), Some((tr, bytes))) if tr > ta && t1 - tr <= 0.5 * (t1 - t0) => format!(
            "new data {} after the peer's next message of {} bytes at {}, which came {} after all was acknowledged: the peer's turn, then the sender's answer",
            format_duration(t1 - tr),
            bytes,
            format_timestamp(tr),
            format_duration(tr - ta.max(t0))
        ),
        _ => "new data after all was acknowledged".to_string(),
    }
}

/// When the peer's timer began to run on the request it re-sent in the gap (rule 2c): the
/// request's first transmission, or the gap's start `t0` where that came before it or
/// the capture holds none (the timer may have run since).
fn peer_asked(g: &Gap, t0: f64) -> f64 {
    g.peer_request_sent.map_or(t0, |ts| ts.max(t0))
}

/// The three parts of a rule-2c gap that data segment `j` closed, the peer having
/// re-sent its request at `tr` by its timer, s: the peer's own turn before it began to
/// answer (from everything acknowledged, or the gap's start if later, to the request's
/// first transmission or the peer's first payload in the gap that re-sends nothing,
/// whichever came first — the time a long answer takes to send before its lost segment
/// is the peer's transfer, no part here: `rr-loss.pcap` at 2.001 s, 42 ms of a 30 KB
/// answer before its tail was lost; 0 where the capture holds no first transmission of
/// the request: when it went is unknown), the timers (from that first
/// transmission, or the gap's start, to the last re-send), and the sender's answer after
/// it (the re-send's way to the sender, which the sender's time has already counted, and
/// its application's time). The answer is the timers' too where segment `j` is itself a
/// re-send (not a needless one: the sender's answer was lost and its own timer re-sent
/// it), and where `j` does not acknowledge the request (it never reached the sender, and
/// the whole wait was the peer's timer re-sending it in vain).
fn request_parts(cols: &PacketColumns, g: &Gap, j: usize, tr: f64) -> (f64, f64, f64) {
    let (t0, t1) = (cols.t[g.index], cols.t[j]);
    let asked = peer_asked(g, t0);
    let turn = match (g.peer_request_sent, g.all_acked_at) {
        (Some(ts), Some(ta)) => (g.peer_first_new.map_or(ts, |tf| tf.min(ts)) - ta.max(t0)).max(0.0),
        _ => 0.0,
    };
    let f = cols.flags[j];
    let own_resend = f & flag_bits::ANY_RETRANSMISSION != 0 && !needless(f) && !reordered(f);
    let unanswered = !(cols.ack[j] >= g.peer_request_end);
    if own_resend || unanswered {
        (turn, t1 - asked, 0.0)
    } else {
        (turn, tr - asked, t1 - tr)
    }
}

/// Rule 2c holds: everything was acknowledged and the peer's timer took at least as much
/// of the gap as the peer's own turn before the request and the sender's answer after
/// its re-send (the gap's one cause is the part that took the most of it).
fn peer_timer_longest(cols: &PacketColumns, g: &Gap, j: usize, tr: f64) -> bool {
    let (turn, timer, answer) = request_parts(cols, g, j, tr);
    g.all_acked_at.is_some() && timer >= turn && timer >= answer
}

/// A rule-2c gap whose largest part was the peer's own turn before it began to answer
/// (`request_parts`): (the peer's first payload in the gap, the request's first
/// transmission, the last re-send's (time, bytes)).
fn peer_sat_on_request(cols: &PacketColumns, g: &Gap, j: usize) -> Option<(f64, f64, (f64, u32))> {
    let (resent, ts) = (g.peer_resent?, g.peer_request_sent?);
    let tf = g.peer_first_new.map_or(ts, |tf| tf.min(ts));
    let (turn, timer, answer) = request_parts(cols, g, j, resent.0);
    (g.all_acked_at.is_some() && turn > timer && turn >= answer).then_some((tf, ts, resent))
}

/// What ended a rule-2c gap whose largest part was the peer's own turn
/// ([`peer_sat_on_request`]): its first payload at `tf`, its request first sent at `ts`
/// and last re-sent at `tr`.
fn peer_turn_words(g: &Gap, t0: f64, (tf, ts): (f64, f64), (tr, bytes): (f64, u32)) -> String {
    let turn = format!("{} after everything was acknowledged: the peer's application", format_duration(tf - g.all_acked_at.map_or(t0, |ta| ta.max(t0))));
    if tf < ts {
        return format!(
            "new data after the peer's request of {bytes} bytes: the peer sent nothing until {} ({turn}); the request, first sent at {}, was lost and re-sent by its timer at {}",
            format_timestamp(tf),
            format_timestamp(ts),
            format_timestamp(tr)
        );
    }
    format!("new data after the peer's request of {bytes} bytes, first sent at {} ({turn}), then lost and re-sent by its timer at {}", format_timestamp(ts), format_timestamp(tr))
}

/// Rule 5 of gaps.rs's doc: data in flight below the window, no timer. The cause, what
/// ended it, and whether no ACK in the capture showed what released the sender (for
/// `unless_capture_missed`).
fn rule_5(cols: &PacketColumns, g: &Gap, j: usize, peer_win: f64, peer_pure_acks: bool) -> (StallCause, String, bool) {
    let t1 = cols.t[j];
    if g.not_held && peer_win.is_finite() {
        // Data in flight, but nothing held the sender (gap.rs `not_held`): rule 5 needs
        // a window, a congestion window or Nagle's algorithm to have waited on an ACK.
        // Where an ACK long before, or no ACK in the gap with one segment in flight, is
        // what shows it, an ACK the capture missed may be what released it.
        (StallCause::ApplicationIdle, not_held_words(g, cols.len[j], t1), g.freed_long_before || g.lone)
    } else if g.last_peer_update.is_none() && !peer_pure_acks && peer_win.is_finite() {
        // No ACK in the gap, in a capture that holds none of the peer's pure ACKs (filtered
        // to payload): its ACKs ride on its messages, and one sent alone is not in the
        // capture whether or not it was sent. Nothing shows the sender was held — not the
        // window, and no ACK released it — so a wait on ACKs is not shown either (an SSH
        // key exchange's 443 ms pause between two of the server's messages once read
        // "waiting on ACKs").
        let how = "new data with no ACK of the peer's in the gap; the capture holds none of the peer's pure ACKs, so whether an ACK released it or its application wrote it cannot be told".to_string();
        (StallCause::Unknown, how, true)
    } else if peer_win.is_finite() {
        let how = match g.last_peer_update {
            Some(tu) => format!("new data after an ACK at {}", format_timestamp(tu)),
            None => "new data without an ACK in the capture".to_string(),
        };
        (StallCause::AckWait, how, false)
    } else {
        // Never a window from the peer: a one-sided capture, nothing can be told.
        (StallCause::Unknown, "new data (the peer's ACKs are not in the capture)".to_string(), false)
    }
}

/// A wait on ACKs (or a sender no ACK in the capture showed free or held: `unshown`)
/// becomes `unknown` where the capture missed packets of this connection in the gap:
/// the ACK or the request that ended it may be among them (`capture_missed_in`).
fn unless_capture_missed(cols: &PacketColumns, g: &Gap, j: usize, (cause, ended_by): (StallCause, String), unshown: bool) -> (StallCause, String) {
    match capture_missed_in(cols, g.index, j) {
        Some((k, what)) if cause == StallCause::AckWait || unshown => (
            StallCause::Unknown,
            format!(
                "new data at {} after a gap in which the capture missed packets of this connection (frame {}: {}): what the sender waited on may be among them",
                format_timestamp(cols.t[j]),
                cols.frame[k],
                what
            ),
        ),
        _ => (cause, ended_by),
    }
}

/// Rows looked back from a gap's last segment for the peer's latest data segment.
const PEER_DATA_LOOK_BACK: usize = 256;

/// The first row after `i` up to `j` (the packets in the gap and the one ending it, either
/// direction) that shows the capture missed packets of this connection, and how:
/// a segment after a hole of its sender's that the receiver acknowledged though the
/// capture never saw it (`CAPTURE_LOSS`, capture_loss.rs: the capture dropped it — a hole
/// alone, Wireshark's "previous segment not captured", may be a loss before the capture
/// point, sent before the gap), or an ACK of data the capture never saw
/// (`ACK_LOST_SEGMENT`; and the segment `j` itself when it acknowledges more of the
/// peer's data than the capture holds before it). The gap's end
/// may then have been one of the missed packets — the peer's next request of a polling
/// exchange, the ACK the sender waited on, or the sender's own segments — and the capture
/// cannot show which (a PLC's cyclic answers once read "waiting on ACKs" for 133 gaps,
/// each inside a run of frames the capture dropped).
fn capture_missed_in(cols: &PacketColumns, i: usize, j: usize) -> Option<(usize, &'static str)> {
    use flag_bits as fb;
    let flagged = (i + 1..=j).find_map(|k| {
        let f = cols.flags[k];
        if f & fb::CAPTURE_LOSS != 0 {
            Some((k, "segments before it were acknowledged but never captured"))
        } else if f & fb::ACK_LOST_SEGMENT != 0 {
            Some((k, "it acknowledges data the capture never saw"))
        } else {
            None
        }
    });
    flagged.or_else(|| {
        // The end of the peer's data the capture holds in the rows before `j`: `j`
        // acknowledging past it (and past a FIN's one sequence number) had received peer
        // data the capture never saw.
        let (lo, dir) = (j.saturating_sub(PEER_DATA_LOOK_BACK), cols.dir[j]);
        let peer_end = (lo..j).filter(|&k| cols.dir[k] != dir && cols.len[k] > 0).map(|k| cols.seq[k] + f64::from(cols.len[k])).reduce(f64::max)?;
        (cols.ack[j] > peer_end + 1.0).then_some((j, "it acknowledges data of the peer's the capture never saw"))
    })
}

/// What ended a gap with a fast retransmission: what it was, and that the peer's ACKs
/// sent it (RFC 5681 §3.2, RFC 6675), not a timer.
fn on_acks_words(cols: &PacketColumns, j: usize) -> String {
    let (kind, bytes, at) = (retransmission_kind_words(cols.flags[j]), cols.len[j], format_timestamp(cols.t[j]));
    format!("{kind} of {bytes} bytes at {at}, sent on the peer's duplicate ACKs or SACKs, not by a timer")
}

/// The cause of a gap in turn-taking (rule 4's second part: everything acknowledged,
/// the peer's request during the gap): `ta` when the peer's ACK said it had all,
/// `tr` and `bytes` its last payload in the gap.
fn turn_taking(g: &Gap, t0: f64, duration: f64, (ta, tr, bytes): (f64, f64, u32), peer_pure_acks: bool, path_rtt_s: Option<f64>) -> (StallCause, String) {
    let payload_only = g.acked_by_payload && !peer_pure_acks;
    if let (true, Some(rtt)) = (payload_only, path_rtt_s) {
        // The capture holds none of the peer's pure ACKs (filtered to payload): its ACK
        // rides on its next message whenever that comes, and says nothing of when it had
        // the data. What released the sender's answer was that message. The path's part
        // of the wait is a round trip (data → peer → sender, the path RTT in the
        // sender's time); the rest was the peer deciding to speak — its application, a
        // user typing (an SSH session captured with "len > 0": every keystroke's wait
        // once read "waiting on ACKs: a request/response round trip").
        let waited = tr - (t0 + rtt);
        if waited < 0.5 * duration {
            let how = format!("the peer's next message of {} bytes at {}: a request/response round trip", bytes, format_timestamp(tr));
            return (StallCause::AckWait, how);
        }
        let how = format!(
            "new data after the peer's next message of {} bytes at {}, {} after its data: one path round trip is {}, the rest was the peer's application (the message carried the peer's first ACK, and the capture holds none of its pure ACKs)",
            bytes,
            format_timestamp(tr),
            format_duration(tr - t0),
            format_duration(rtt)
        );
        return (StallCause::ApplicationIdle, how);
    }
    if payload_only && ta - t0 > MAX_ACK_DELAY_S {
        // The request carried the peer's first ACK of the data, > 0.5 s after it:
        // a peer holding the data that long would have ACKed it alone (RFC 9293
        // §3.8.6.3), unless the path is that long. The capture holds no pure ACK of
        // the peer at all, so round trip and idle peer cannot be told apart
        // (PcapPlusPlus's http-packets.pcap: 4.7 s between a response and the next
        // GET, once called "a request/response round trip").
        let how = format!(
            "the peer's next message of {} bytes at {} (the first ACK of the data; the capture holds none of the peer's pure ACKs, so whether it waited on the path or on its application cannot be told)",
            bytes,
            format_timestamp(tr)
        );
        (StallCause::Unknown, how)
    } else {
        // When did the peer have everything? When its ACK says so (ta), unless that
        // ACK rode on its request later than the path RTT (data → peer → sender, in
        // the sender's time) + 0.5 s after the data: a receiver MUST acknowledge
        // within 0.5 s of arrival (RFC 9293 §3.8.6.3), so this capture, which does
        // hold the peer's pure ACKs, lacks that one (or the peer's stack broke the
        // rule): either way the peer had the data by path RTT + 0.5 s at the latest.
        // Only a path whose delay rose 0.5 s above its measured minimum would make
        // this a round trip after all.
        let late = path_rtt_s.filter(|&rtt| g.acked_by_payload && ta - t0 > rtt + MAX_ACK_DELAY_S);
        // A pure ACK of a small last segment held past the path's round trip by the
        // delayed-ACK timer (rule 5b's test, RFC 1122 §4.2.3.2) is no prompt one: the
        // peer had the data when the timer started, a round trip after it was sent,
        // and its request came when its application wrote it (an SMB server's answers
        // once read "a request/response round trip" for 230 ms on a path answered
        // within one 10 ms tick, the client's 170 ms delayed ACK just before).
        let round = path_rtt_s.unwrap_or(0.0);
        let timer_ack = !g.acked_by_payload && g.small_last && ta - t0 - round >= MIN_HOLD_S;
        // The peer's first ACK of the data rode on its next message, on a path whose
        // round trip is known: a receiver holds its ACK for data to ride on (delayed ACK,
        // RFC 1122 §4.2.3.2, up to 0.5 s, RFC 9293 §3.8.6.3), so that ACK tells only that
        // the peer had the data by then. The path's part of the wait is a round trip (data
        // → peer → sender), as where the capture holds no pure ACK of the peer at all;
        // the rest was the peer deciding to speak.
        let piggybacked = g.acked_by_payload && path_rtt_s.is_some();
        let had_all = if timer_ack || piggybacked { ta.min(t0 + round) } else { late.map_or(ta, |rtt| t0 + rtt + MAX_ACK_DELAY_S) };
        if tr - had_all < 0.5 * duration {
            let how = format!("the peer's next message of {} bytes at {}: a request/response round trip", bytes, format_timestamp(tr));
            (StallCause::AckWait, how)
        } else if let (true, None) = (piggybacked, late) {
            let how = format!(
                "new data after the peer's next message of {} bytes at {}, {} after its data: one path round trip is at most {}, the rest was the peer's application (the message carried the peer's first ACK of the data, which a receiver may hold for its next message)",
                bytes,
                format_timestamp(tr),
                format_duration(tr - t0),
                format_duration(round)
            );
            (StallCause::ApplicationIdle, how)
        } else if let Some(rtt) = late {
            let how = format!(
                "new data after the peer's reply of {} bytes at {} (the peer's application was idle: its first ACK of the data came {} after it, on a request, past the path RTT of {} + the 0.5 s in which a receiver must ACK alone, so the peer had held the data)",
                bytes,
                format_timestamp(tr),
                format_duration(ta - t0),
                format_duration(rtt)
            );
            (StallCause::ApplicationIdle, how)
        } else {
            let how = format!("new data after the peer's reply of {} bytes at {} (the peer's application was idle)", bytes, format_timestamp(tr));
            (StallCause::ApplicationIdle, how)
        }
    }
}
