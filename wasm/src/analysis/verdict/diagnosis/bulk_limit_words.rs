//! What limited a keep-alive connection's one bulk burst (issue 39 review T class
//! C-IDLE-DILUTES-BULK; docs/ANALYSIS.md "The one bulk burst's limit"). A connection
//! kept open between requests spends most of its time idle, and the application
//! headline says so; but where one burst carried most of the bytes, the user's question
//! is what limited that burst, and "the exchange's own pace, which no readier
//! application would shorten" said nothing of it. ctfs asis-quals `sample_traffic.pcap`
//! connection 38: 114 s of 127 s idle between requests, and the 209 KiB answer took 5.7 s
//! at 291 kbit/s, the sender waiting on ACKs for 2.5 s of it and re-sending 6 segments
//! through a queue that took the RTT from 42 ms to 194 ms.
//!
//! The rule: where one bulk burst carried at least [`ONE_BURST_SHARE`] of the bytes and
//! the data direction's stalls of the network's causes (a retransmission timeout,
//! waiting on ACKs, of unknown cause, a window that limited it) inside that burst's
//! span took at least [`NETWORK_SHARE_OF_BURST`] of it, the burst's own time and rate,
//! those stalls and its re-sends are said, as the path's (or the receiver's window's),
//! in place of "no readier application would shorten it".

use super::*;
use crate::analysis::rows::columns::flag_bits;
use crate::analysis::stalls::cause::StallCause;

/// One burst carried at least this share of the bytes: the transfer that mattered.
pub const ONE_BURST_SHARE: f64 = 0.8;
/// The network's stalls took at least this share of the burst's span: it did not move
/// at the sender's pace.
pub const NETWORK_SHARE_OF_BURST: f64 = 0.25;

/// The sentence for the bulk bursts `b` (savings.rs `BulkBursts`), where the rule holds.
pub(super) fn said(f: &Facts, b: &savings::BulkBursts) -> Option<String> {
    let span = b.to - b.from;
    if b.count != 1 || b.share < ONE_BURST_SHARE || span <= 0.0 {
        return None;
    }
    let d = f.conn.data_direction.min(1);
    let stalls = &f.conn.directions[usize::from(d)].stalls;
    let inside = |s: &&crate::analysis::stalls::cause::Stall| s.start >= b.from - 1e-9 && s.start < b.to;
    let mut by: Vec<(f64, &str)> = WORDS
        .iter()
        .map(|(_, w)| *w)
        .chain([HOLD])
        .map(|w| (stalls.iter().filter(inside).filter(|s| word(s) == Some(w)).map(|s| s.duration).sum::<f64>(), w))
        .filter(|(s, _)| *s > 0.0)
        .collect();
    let network: f64 = by.iter().map(|(s, _)| s).sum();
    if network < NETWORK_SHARE_OF_BURST * span {
        return None;
    }
    by.sort_by(|a, b| b.0.total_cmp(&a.0));
    let p = f.rows.packets;
    let resent = (0..p.t.len()).filter(|&i| p.dir[i] == d && p.t[i] >= b.from && p.t[i] <= b.to && p.len[i] > 0 && p.flags[i] & flag_bits::ANY_RETRANSMISSION != 0).count();
    let count = |w: &str| stalls.iter().filter(inside).filter(|s| word(s) == Some(w)).count() as u64;
    let parts: Vec<String> = by.iter().map(|(s, w)| format!("{} {}", format_duration(*s), with_count(w, count(w)))).collect();
    let resends = if resent > 0 { format!(", and it re-sent {}", crate::analysis::format::plural(resent as u64, "segment")) } else { String::new() };
    let window_only = by.iter().all(|(_, w)| w.starts_with("held"));
    // The receiving host's holds (stalls/receiver_hold.rs) are its own, not the network's.
    let host = by.iter().filter(|(_, w)| *w == HOLD).map(|(s, _)| *s).sum::<f64>();
    Some(format!(
        "{MARK}: it took {} at {}, and for {} of that time the sender had data and waited — {}{resends}: {}, not the application, \
         set its pace; the pauses between the bursts were the exchange's own.",
        format_duration(span),
        format_rate(b.largest * 8.0 / span),
        format_duration(network),
        parts.join(", "),
        if window_only { WINDOW } else if host >= network { "the receiving host" } else if host > 0.0 { "the network and the receiving host" } else { "the network" },
    ))
}

/// The opening of [`said`]'s sentence, by which application_text knows it was said.
pub(super) const MARK: &str = "That burst is the transfer that mattered, and the application did not pace it";
/// The pacer [`said`] names where only the receiver's window held the burst.
pub(super) const WINDOW: &str = "the receiver's window";

/// The words of a stall's cause, as [`said`] lists them: a receiving host's hold of
/// its ACKs by its own name ([`HOLD`]), the network's causes by theirs.
fn word(s: &crate::analysis::stalls::cause::Stall) -> Option<&'static str> {
    if crate::analysis::stalls::receiver_hold::is_hold(s) {
        return Some(HOLD);
    }
    WORDS.iter().find(|(k, _)| *k == s.cause).map(|(_, w)| *w)
}

/// The words of the waits a receiving host made by holding its ACKs.
const HOLD: &str = "the receiving host holding its ACKs";

/// "waiting on ACKs (3 stalls)": how many stalls of the cause made the time.
fn with_count(w: &str, n: u64) -> String {
    match n {
        0 | 1 if w == TIMERS => "for a retransmission timer".to_string(),
        0 | 1 if w == PROBES => "for a tail-loss probe".to_string(),
        0 | 1 => w.to_string(),
        _ => format!("{w} ({n} stalls)"),
    }
}

/// The words of the retransmission timeout, plural.
const TIMERS: &str = "for retransmission timers";

/// The words of the tail-loss probe (RFC 8985 §7; stalls/timer_label.rs), plural.
const PROBES: &str = "for tail-loss probes";

/// The network's stall causes and their words.
const WORDS: [(StallCause, &str); 6] = [
    (StallCause::AckWait, "waiting on ACKs"),
    (StallCause::RetransmissionTimeout, TIMERS),
    (StallCause::TailLossProbe, PROBES),
    (StallCause::WindowLimited, "held by the receiver's window"),
    (StallCause::LossRecovery, "recovering from loss"),
    (StallCause::Unknown, "stalled for a cause the capture does not show"),
];
