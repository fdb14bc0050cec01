//! The SMTP PIPELINING saving (mod.rs; docs/ANALYSIS.md "Application facts").
//!
//! RFC 2920 §3.1: a client talking to a server that offered PIPELINING in its EHLO
//! reply may send MAIL, its RCPTs and DATA as one group, and wait once. A client that
//! waited for each reply paid a round trip per command it could have grouped.
//! CESNET ipfixprobe `smtp.pcap` (review X "smtp"): the server named PIPELINING in
//! frame 9, the client sent MAIL (16), RCPT (18) and DATA (20) each after the previous
//! reply (17 at +342 ms, 19 at +362 ms): 2 turns a group would have removed, ≈ 2 ×
//! 341 ms. The saving is the removable turns × the path RTT (each reply took at least
//! a round trip; the server's own time to answer would remain).
//!
//! Helper C's turns-vs-loss headline may call [`pipelining_sentence`] with the same
//! facts; here it is added after the headline's paragraph where turns took the largest
//! share of the time (mod.rs `Table::attach`).

use super::Facts;
use crate::analysis::format::{format_duration, plural};
use crate::analysis::report::ConnectionSummary;

/// Turns took the largest share of the data direction's active time.
fn turns_lead(c: &ConnectionSummary) -> bool {
    let s = &c.diagnosis.shares;
    s.turns > 0.0 && [s.receive_window, s.loss, s.application, s.other].iter().all(|&x| s.turns >= x)
}

/// A saving worth a sentence: at least this share of the transfer's time ...
pub const MIN_SHARE: f64 = 0.05;
/// ... and at least this long, s (a LAN's microsecond turns: nothing to gain).
pub const MIN_SAVING_S: f64 = 0.001;

/// "The server offered PIPELINING …, saving about 2 round trips (≈ 682 ms)"; None where
/// turns did not take the largest share, without a path RTT, or where the saving is
/// below [`MIN_SAVING_S`] or [`MIN_SHARE`] of the time from the connection's start to
/// its transfer's end (`diagnosis.transferEnd`, else its last packet).
pub fn pipelining_sentence(f: &Facts, c: &ConnectionSummary) -> Option<String> {
    let rtt = c.path_rtt_ms? / 1000.0;
    // At most the waits themselves: a reply quicker than the path RTT (a capture near
    // the server) saves only what was waited.
    let turns = f64::from(f.separate) * rtt;
    let saving = turns.min(f.waits);
    let span = c.diagnosis.transfer_end.map_or(c.end, |e| e.at) - c.start;
    if !f.smtp_unpipelined() || !turns_lead(c) || rtt <= 0.0 || saving < MIN_SAVING_S || saving < MIN_SHARE * span {
        return None;
    }
    let (command, reply) = f.first_wait?;
    Some(format!(
        "The server offered PIPELINING in its EHLO reply (frame {}; RFC 2920), yet the client sent its next RCPT or DATA only after the previous command's reply, {} ({} in all, the first frame {command} → frame {reply}): sent as one group with MAIL, they would have saved about {}, ≈ {}.",
        f.pipelining.unwrap_or(0),
        plural(u64::from(f.separate), "time"),
        format_duration(f.waits),
        plural(u64::from(f.separate), "round trip"),
        if turns <= f.waits { format!("{} at the path RTT of {}", format_duration(saving), format_duration(rtt)) } else { format!("{}, the waits themselves", format_duration(saving)) },
    ))
}
