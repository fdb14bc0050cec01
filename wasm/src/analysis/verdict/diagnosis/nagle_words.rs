//! Nagle's algorithm waiting for the peer's delayed ACK, said with one name wherever
//! the text counts its time (issue 39 review X, classes C-DELAYED-ACK-AS-ACK-WAIT and
//! C-SUBTHRESHOLD-TIME-AS-PATH; docs/ANALYSIS.md "diagnosis.text").
//!
//! - The stall list labels such a stall `delayed-ack` (stall rule 5b). Its time is in the
//!   `stalled` share and in the waits the `stalls` saving prices, as an `ack-wait`
//!   stall's (stalls/cause.rs `share_slot` 4: a delayed ACK is an ACK waited on), but
//!   the text names it apart from the other waits on ACKs ([`cause_parts`]): "2.6 s
//!   waiting on ACKs" beside a list of 69 `delayed-ack` stalls named the path for what
//!   the two stacks did.
//! - The same hold below the stall threshold ([`nagle_holds`]) is said with its total
//!   ([`sentence`]), not left to the congestion window or the path.
//! - The remedy names both ends: the writer's TCP_NODELAY or one write per message, or
//!   the reader acknowledging at once (RFC 1122 §4.2.3.2 allows an immediate ACK).

use super::*;
use crate::analysis::stalls::cause::StallCause;
use crate::analysis::verdict::peer_silent;
#[path = "nagle_holds.rs"]
pub(crate) mod nagle_holds;

/// The words of the `delayed-ack` stalls' time among the stall causes' (CAUSE_WORDS).
pub const DELAYED_ACK_WORDS: &str = "Nagle's algorithm waiting for the peer's delayed ACK";

/// The data direction's `delayed-ack` stalls of the transfer: (their seconds, as counted
/// in the waits on ACKs (`stall_by_cause[4]`, which holds them), how many).
pub(super) fn delayed_stalls(f: &Facts) -> (f64, usize) {
    let all = &f.conn.directions[f.conn.data_direction.min(1) as usize].stalls;
    let stalls = peer_silent::stalls_within(all, f.sh);
    let (secs, n) = stalls.iter().filter(|s| s.cause == StallCause::DelayedAck).fold((0.0, 0), |(t, n), s| (t + s.duration, n + 1));
    (secs.min(f.sh.stall_by_cause[4]), n)
}

/// The words of the `tail-loss-probe` stalls' time among the stall causes' (their slot
/// is the timers', 2: stalls/timer_label.rs).
pub const TAIL_LOSS_PROBE_WORDS: &str = "tail-loss probe";

/// The data direction's `tail-loss-probe` stalls' seconds in the transfer, as counted in
/// the timers' slot (`stall_by_cause[2]`, which holds them).
fn probe_seconds(f: &Facts) -> f64 {
    let all = &f.conn.directions[f.conn.data_direction.min(1) as usize].stalls;
    let secs: f64 = peer_silent::stalls_within(all, f.sh).iter().filter(|s| s.cause == StallCause::TailLossProbe).map(|s| s.duration).sum();
    secs.min(f.sh.stall_by_cause[2])
}

/// The stalled seconds of CAUSE_WORDS' `slots` with their words, those above zero, the
/// waits on ACKs (slot 4) split into Nagle's holds ([`DELAYED_ACK_WORDS`]) and the rest,
/// the timers (slot 2) into tail-loss probes ([`TAIL_LOSS_PROBE_WORDS`]) and timeouts.
pub(super) fn cause_parts(f: &Facts, slots: impl Iterator<Item = usize>) -> Vec<(f64, &'static str)> {
    let delayed = delayed_stalls(f).0;
    let probes = probe_seconds(f);
    let mut out = Vec::new();
    for k in slots {
        let secs = f.sh.stall_by_cause[k];
        if k == 2 && probes > 0.0 {
            // The rest to the ns, as below: no "0 ns retransmission timeout".
            if secs - probes > 1e-9 {
                out.push((secs - probes, CAUSE_WORDS[2]));
            }
            out.push((probes, TAIL_LOSS_PROBE_WORDS));
        } else if k == 4 && delayed > 0.0 {
            // The rest to the ns (stall times are whole ns): no "0 ns waiting on ACKs".
            if secs - delayed > 1e-9 {
                out.push((secs - delayed, CAUSE_WORDS[4]));
            }
            out.push((delayed, DELAYED_ACK_WORDS));
        } else if secs > 0.0 {
            out.push((secs, CAUSE_WORDS[k]));
        }
    }
    out
}

/// The data direction's Nagle holds below the stall threshold in the transfer.
fn sub_threshold(f: &Facts) -> Option<nagle_holds::NagleHolds> {
    let d = f.conn.data_direction.min(1);
    let lag = f.conn.sender_lag_ms.max(0.0) / 1000.0;
    let to_receiver = f.conn.path_rtt_ms.map_or(0.0, |ms| (ms / 1000.0 - lag).max(0.0));
    // Without a path RTT a non-zero lag was read from the ACK → new-data pairs
    // (run/summary/steps.rs `far_estimate`): not apart from the releases judged.
    let measured = f.conn.path_rtt_ms.is_some() || lag == 0.0;
    let legs = nagle_holds::Legs { to_receiver, to_sender: lag, tick: f.tick, measured };
    let stalls = &f.conn.directions[d as usize].stalls;
    nagle_holds::holds(f.rows.packets, d, stalls, segment_bytes(f) as u32, legs, f.sh.ends_at().unwrap_or(f64::INFINITY))
}

/// " Below the 316 ms stall threshold, Nagle's algorithm held …" where the data
/// direction's sender had Nagle holds below the threshold, or `delayed-ack` stalls no
/// advice names (diagnosis.rs appends delayed_ack.rs's where they dominate); else "".
pub(in crate::analysis::verdict::diagnosis) fn sentence(f: &Facts) -> String {
    let d = f.conn.data_direction.min(1) as usize;
    let (sender, peer) = (&f.conn.directions[d].from, &f.conn.directions[1 - d].from);
    let (stalled, stalls) = delayed_stalls(f);
    let advised = f.conn.directions.iter().any(|x| crate::analysis::stalls::delayed_ack::advice(&x.stalls, f.conn.end - f.conn.start).is_some());
    let remedy = if advised {
        String::new()
    } else {
        format!(": no application's time — TCP_NODELAY at {sender}, or its writing each message in one call, or {peer} acknowledging at once, removes it")
    };
    let kind = |n: usize| if n == 1 { "stall" } else { "stalls" };
    match sub_threshold(f) {
        Some(h) => {
            let more = if stalls > 0 { format!(", and {} more in {stalls} {} of that kind", format_duration(stalled), kind(stalls)) } else { String::new() };
            format!(
                " Below the {} stall threshold, Nagle's algorithm held {sender}'s next small segment until {peer}'s delayed ACK of the one before {} ({} in all; the longest: {}){more}{remedy}.",
                format_duration(f.conn.stall_threshold_ms / 1000.0),
                if h.count == 1 { "once".to_string() } else { format!("{} times", h.count) },
                format_duration(h.seconds),
                super::nagle_turns::longest_words(f.rows.packets, h.longest)
            )
        }
        None if stalls > 0 && !advised => format!(
            " In {stalls} {} ({} in all), Nagle's algorithm held {sender}'s next small segment until {peer}'s delayed ACK of the one before{remedy}.",
            kind(stalls),
            format_duration(stalled)
        ),
        None => String::new(),
    }
}
