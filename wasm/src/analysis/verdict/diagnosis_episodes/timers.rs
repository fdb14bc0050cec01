//! The timers an outage is named after (diagnosis_episodes.rs `outage_words`): the kinds of
//! the retransmissions that ended its timeout stalls, the sender's own and the peer's.

use crate::analysis::format::{plural, timers_phrase};
use crate::analysis::report::ConnectionSummary;
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::cause::{Stall, StallCause};
use crate::analysis::stalls::needless;

/// The timers behind an outage's `n` timeout stalls starting in [a, b), by the kind of the
/// retransmission that ended each ([`timer_counts`]): "1 tail loss probe and 2
/// retransmission timeouts", as a kernel counts them (TCPLossProbes, TCPTimeouts).
/// "n retransmission timeouts" when no kind is known.
/// A stall the peer's timer ended (stall rule 2c: the sender waited for a request the
/// peer had to re-send) is named after that timer, the peer's, not the sender's: "1 tail
/// loss probe, and 1 retransmission timeout by 10.200.1.18:2430 re-sending its lost
/// request" (gopacket `cip.pcap`, 122.5 s: the PLC's probe, then the HMI's re-sent
/// request ended the silence; once read "(1 tail loss probe)" alone).
pub(super) fn timers_words(conn: &ConnectionSummary, packets: &PacketColumns, (a, b): (f64, f64), n: usize) -> (String, bool) {
    let d = conn.data_direction.min(1);
    let stalls = &conn.directions[d as usize].stalls;
    let (probes, timeouts) = timer_counts(stalls, packets, a, b);
    let (peer_probes, peer_timeouts) = peer_timer_counts(stalls, packets, a, b);
    let own = timers_phrase(probes, timeouts);
    let peer = timers_phrase(peer_probes, peer_timeouts).map(|p| format!("{p} by {} re-sending its lost message", conn.endpoints[1 - d as usize]));
    let by_peer = peer.is_some();
    let words = match (own, peer) {
        (Some(o), Some(p)) => format!("{o}, and {p}"),
        (Some(o), None) => o,
        (None, Some(p)) => p,
        (None, None) => plural(n as u64, "retransmission timeout"),
    };
    (words, by_peer)
}

/// (tail loss probes, retransmission timeouts) of the PEER that ended the data
/// direction's timeout stalls starting in [a, b) ended by new data, not a re-send or
/// probe of the sender's own: its re-sends of a request inside the stall (retrans_kinds.rs), needless ones
/// left out (the request had arrived).
pub fn peer_timer_counts(stalls: &[Stall], packets: &PacketColumns, a: f64, b: f64) -> (u64, u64) {
    use crate::analysis::rows::columns::flag_bits as fb;
    let (mut timeouts, mut probes) = (0u64, 0u64);
    for s in timeout_stalls_in(stalls, a, b) {
        let Some((i, j)) = packets.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
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
    for s in timeout_stalls_in(stalls, a, b) {
        let flags = packets.rows_of(s.frame_before, s.frame_after, s.start, s.duration).map_or(0, |(_, j)| packets.flags[j]);
        timeouts += u64::from(flags & fb::KIND_RTO != 0);
        probes += u64::from(flags & fb::KIND_TLP != 0);
    }
    (probes, timeouts)
}

/// The retransmission-timeout stalls starting in [a, b). The stalls are in time order:
/// only those are looked at (an outage per stall would otherwise cost stalls² here).
fn timeout_stalls_in(stalls: &[Stall], a: f64, b: f64) -> impl Iterator<Item = &Stall> {
    let from = stalls.partition_point(|s| s.start < a);
    let to = stalls.partition_point(|s| s.start < b);
    stalls[from..to.max(from)].iter().filter(|s| s.cause == StallCause::RetransmissionTimeout)
}
