//! The timers an outage is named after (diagnosis_episodes.rs `outage_words`): the kinds of
//! the retransmissions that ended its timeout stalls, the sender's own and the peer's.

use crate::analysis::format::{plural, timers_phrase};
use crate::analysis::report::ConnectionSummary;
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::cause::Stall;
use crate::analysis::stalls::needless;

/// The timers behind an outage's timeout stalls starting in [a, b), by the kind of the
/// retransmission that ended each ([`timer_counts`], the function the loss text's count
/// uses too): "1 tail loss probe and 2 retransmission timeouts", as a kernel counts them
/// (TCPLossProbes, TCPTimeouts). Where no timer's re-send ended any, [`untimed_words`].
/// With it: Some(whether the peer's timer ended one), None where no timer is counted.
/// A stall the peer's timer ended (stall rule 2c: the sender waited for a request the
/// peer had to re-send) is named after that timer, the peer's, not the sender's: "1 tail
/// loss probe, and 1 retransmission timeout by 10.200.1.18:2430 re-sending its lost
/// request" (gopacket `cip.pcap`, 122.5 s: the PLC's probe, then the HMI's re-sent
/// request ended the silence; once read "(1 tail loss probe)" alone).
pub(super) fn timers_words(conn: &ConnectionSummary, packets: &PacketColumns, (a, b): (f64, f64)) -> (String, Option<bool>) {
    let d = conn.data_direction.min(1);
    let stalls = &conn.directions[d as usize].stalls;
    let (probes, timeouts) = timer_counts(stalls, packets, a, b);
    let lag_s = conn.directions[d as usize].sender_lag_ms / 1000.0;
    let (peer_probes, peer_timeouts) = peer_timer_counts(stalls, packets, (a, b), lag_s);
    // A timer that never backed off is named so, not "retransmission timeouts" (no_backoff.rs).
    let own = match crate::analysis::verdict::no_backoff::words(conn, d as usize, timeouts) {
        Some(w) if probes == 0 => Some(w),
        _ => timers_phrase(probes, timeouts),
    };
    let peer = timers_phrase(peer_probes, peer_timeouts).map(|p| format!("{p} by {} re-sending its lost message", conn.endpoints[1 - d as usize]));
    let by_peer = peer.is_some();
    let words = match (own, peer) {
        (Some(o), Some(p)) => format!("{o}, and {p}"),
        (Some(o), None) => o,
        (None, Some(p)) => p,
        (None, None) => {
            return (untimed_words(stalls, packets, (d, lag_s), (a, b)), None);
        }
    };
    (words, Some(by_peer))
}

/// What an outage's timeout stalls in [a, b) were when no timer's re-send that the
/// retransmission kinds count (retrans_kinds.rs: `rtoEvents`, `tailLossProbes`) ended
/// any: the text never names more timeouts than those counters hold (issue 39 review U,
/// C-TEXT-VS-COUNTERS: epiecs gmail.pcapng.cap connection 3 read "Nothing got through
/// for 908 ms …: 2 retransmission timeouts" over a stall ended by 3 re-sends the kinds
/// call recovery retransmissions (frames 34–36) and one ended by new data after the ACK
/// of everything (frame 41 → 44), while the connection's counters held 1 timeout, 18.7 s
/// later). Said instead: the stalls ended by a timer's re-send the capture never saw
/// (unseen_timeout.rs: the sender's IPv4 Identification skipped it; no kind counts it),
/// and the re-sends in the span by their counted kinds. A stall whose ending flight
/// carried a re-send the capture saw (stall rule 2e, stalls/hole_resend.rs) is not counted
/// unseen: that re-send is listed by its kind with the span's (`lag_s`: the data sender's
/// lag, which bounds the flight). mptcp_redundant_stream1.pcapng connection 5: the IPv4
/// Identification skipped two datagrams before frame 1953 (new data at 10.358 s), and
/// frame 1959, 30 ms later in the same flight, re-sent the hole at 87159; once read
/// "1 timer re-send the capture did not see".
fn untimed_words(stalls: &[Stall], packets: &PacketColumns, (d, lag_s): (u8, f64), (a, b): (f64, f64)) -> String {
    use crate::analysis::rows::columns::flag_bits as fb;
    let mut seen_to = 0;
    let unseen = timeout_stalls_in(stalls, a, b)
        .filter_map(|s| packets.rows_of(s.frame_before, s.frame_after, s.start, s.duration))
        .filter(|&(_, j)| packets.flags[j] & (fb::ANY_RETRANSMISSION | fb::UNSEEN_BEFORE) == fb::UNSEEN_BEFORE)
        .filter(|&(_, j)| match crate::analysis::stalls::hole_resend::resend_in_flight(packets, d, j, lag_s) {
            Some(k) => {
                seen_to = seen_to.max(k + 1);
                false
            }
            None => true,
        })
        .count() as u64;
    // The span's rows, to the stall's own times' rounding (`rows_of`), and the seen
    // re-sends of its stalls' ending flights.
    use crate::analysis::rows::columns::ROW_TIME_SLACK_S as SLACK;
    let from = packets.t.partition_point(|&t| t < a - SLACK);
    let to = packets.t.partition_point(|&t| t <= b + SLACK).max(seen_to);
    let mut parts = Vec::new();
    if unseen > 0 {
        parts.push(format!("{} the capture did not see", plural(unseen, "timer re-send")));
    }
    // The re-sends by their counted kind, with the wait before the first: how long after
    // the receiver's last packet (at the capture point) it came, which the reader can weigh
    // against the round trip whether or not the kinds could (with none known they call
    // a re-send a timer's only after 1 s of quiet: retrans_kinds/classify.rs).
    for (k, one, many) in [(fb::KIND_FAST, "a recovery retransmission", "recovery retransmissions"), (fb::KIND_SLOW_START, "a slow-start retransmission", "slow-start retransmissions")] {
        let rows: Vec<usize> = (from..to).filter(|&i| packets.dir[i] == d && packets.flags[i] & k != 0).collect();
        let Some(&first) = rows.first() else { continue };
        let after = (0..first).rev().find(|&i| packets.dir[i] != d).map_or(String::new(), |i| {
            let lead = if rows.len() == 1 { "" } else { "the first " };
            format!(", {lead}{} after the receiver's last packet", crate::analysis::format::format_duration(packets.t[first] - packets.t[i]))
        });
        let counted = if rows.len() == 1 { format!("counted as {one}") } else { format!("counted as {many}") };
        parts.push(format!("{}{after}, {counted}", plural(rows.len() as u64, "re-send")));
    }
    parts.push("no retransmission timeout counted".to_string());
    parts.join("; ")
}

/// (tail loss probes, retransmission timeouts) of the PEER that ended the data
/// direction's timeout stalls starting in [a, b) ended by new data, not a re-send or
/// probe of the sender's own: its re-sends of a request inside the stall (retrans_kinds.rs), needless ones
/// left out (the request had arrived); and those whose first re-send of the sender's
/// answered the peer's own timer re-send at once (its SYN/ACK re-sent: the peer had not
/// received the sender's packets, stalls/timer_label.rs rule 1), that re-send counted
/// (a SYN/ACK's by its timeout). `lag_s`: the data sender's lag.
pub fn peer_timer_counts(stalls: &[Stall], packets: &PacketColumns, (a, b): (f64, f64), lag_s: f64) -> (u64, u64) {
    use crate::analysis::rows::columns::flag_bits as fb;
    use crate::analysis::stalls::timer_label;
    let (mut timeouts, mut probes) = (0u64, 0u64);
    for s in timeout_stalls_in(stalls, a, b) {
        let Some((i, j)) = packets.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        let dir = packets.dir[j];
        let answered = timer_label::first_resend(packets, dir, (i, j), lag_s).and_then(|k| timer_label::answered(packets, dir, (i, k), lag_s));
        if let Some(r) = answered.filter(|&r| timer_label::peer_timer(packets.flags[r])) {
            let probe = packets.flags[r] & fb::KIND_TLP != 0;
            probes += u64::from(probe);
            timeouts += u64::from(!probe);
            continue;
        }
        // Ended by the sender's own re-send or probe: its own timer or ACKs, not the peer's.
        if packets.flags[j] & (fb::KIND_RTO | fb::KIND_TLP | fb::ANY_RETRANSMISSION) != 0 {
            continue;
        }
        let dir = packets.dir[j];
        for k in (i + 1..j).filter(|&k| packets.dir[k] != dir && packets.len[k] > 0 && packets.flags[k] & fb::ANY_RETRANSMISSION != 0 && !needless(packets.flags[k])) {
            timeouts += u64::from(packets.flags[k] & fb::KIND_RTO != 0);
            probes += u64::from(packets.flags[k] & fb::KIND_TLP != 0);
        }
    }
    (probes, timeouts)
}

/// (tail loss probes, retransmission timeouts) that ended the timeout stalls starting
/// in [a, b): the kind of the retransmission after each (retrans_kinds.rs). A stall
/// ended otherwise (by the ACK of the re-sent data, or by data whose kind the capture
/// cannot tell) counts as neither. The loss text quotes these with the stalls' time,
/// so count and time are of the same stalls.
pub fn timer_counts(stalls: &[Stall], packets: &PacketColumns, a: f64, b: f64) -> (u64, u64) {
    use crate::analysis::rows::columns::flag_bits as fb;
    let (mut timeouts, mut probes) = (0u64, 0u64);
    for (_, flags) in ended_by(stalls, packets, a, b) {
        timeouts += u64::from(flags & fb::KIND_RTO != 0);
        probes += u64::from(flags & fb::KIND_TLP != 0);
    }
    (probes, timeouts)
}

/// The seconds of the timeout stalls starting in [a, b) that a tail loss probe ended, that
/// a retransmission timeout ended (the kinds [`timer_counts`] counts), and of the rest,
/// with how many the rest are: where the loss text names the timers, each kind's wait is
/// its own stalls' time (review AB: "1.8 s of it waiting on 1 tail loss probe" summed a
/// 696 ms probe wait with 1.1 s of 3 waits that no counted probe or timeout ended).
pub fn timer_seconds(stalls: &[Stall], packets: &PacketColumns, a: f64, b: f64) -> (f64, f64, f64, u64) {
    use crate::analysis::rows::columns::flag_bits as fb;
    let (mut probes, mut timeouts, mut rest, mut others) = (0.0, 0.0, 0.0, 0u64);
    for (s, flags) in ended_by(stalls, packets, a, b) {
        if flags & fb::KIND_RTO != 0 {
            timeouts += s.duration;
        } else if flags & fb::KIND_TLP != 0 {
            probes += s.duration;
        } else {
            rest += s.duration;
            others += 1;
        }
    }
    (probes, timeouts, rest, others)
}

/// The retransmission-timeout stalls starting in [a, b), each with the flags of the row
/// that ended it (its kind, retrans_kinds.rs; 0 where the row is not found).
fn ended_by<'a>(stalls: &'a [Stall], packets: &'a PacketColumns, a: f64, b: f64) -> impl Iterator<Item = (&'a Stall, u32)> {
    timeout_stalls_in(stalls, a, b).map(|s| (s, packets.rows_of(s.frame_before, s.frame_after, s.start, s.duration).map_or(0, |(_, j)| packets.flags[j])))
}

/// The retransmission-timeout stalls starting in [a, b). The stalls are in time order:
/// only those are looked at (an outage per stall would otherwise cost stalls² here).
fn timeout_stalls_in(stalls: &[Stall], a: f64, b: f64) -> impl Iterator<Item = &Stall> {
    let from = stalls.partition_point(|s| s.start < a);
    let to = stalls.partition_point(|s| s.start < b);
    // A tail-loss probe's stall is a timer's too (stalls/timer_label.rs).
    stalls[from..to.max(from)].iter().filter(|s| s.cause.is_timer())
}
