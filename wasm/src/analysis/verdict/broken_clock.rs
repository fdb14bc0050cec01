//! The verdict of a connection whose clock is broken (capture/broken_clock.rs counts
//! its packets without a usable time; docs/ANALYSIS.md "A broken capture clock"), or whose
//! capture clock a host's own TCP timestamp clock contradicts (timing/ts_clock_check.rs).

use crate::analysis::capture::broken_clock::judge;
use crate::analysis::format::format_duration;
use crate::analysis::report::{ConnectionSummary, Diagnosis};
use crate::analysis::capture::limits::AnalysisWarning;
use crate::analysis::timing::ts_clock_check::Contradiction;

/// Replace the diagnosis of a connection whose clock is broken ([`judge`]); true if so.
pub fn apply(c: &mut ConnectionSummary, untimed: [u64; 2]) -> bool {
    let Some((n, m)) = judge(c.packets, untimed) else { return false };
    let [out, bad] = untimed;
    let mut why = Vec::new();
    if out > 0 {
        why.push(format!("{out} stamped more than 2 s before a packet already read, so left out"));
    }
    if bad > 0 {
        why.push(format!("{bad} analysed at a timestamp whose field cannot be a time"));
    }
    let text = format!(
        "This capture's clock is broken: {n} of this connection's {m} packets have no usable time ({}). \
         Its gaps, stalls, rate and round trip would be built from the stamps that remain, and the packets left out would read as data \
         the capture missed, so no limit is named. Wireshark's frame order and the TCP timestamps, where negotiated, still show the sequence of events.",
        why.join("; ")
    );
    *c.diagnosis = Diagnosis { limit: "clock-broken".to_string(), text, ..Diagnosis::default() };
    true
}

pub fn is_clock_broken(c: &ConnectionSummary) -> bool {
    c.diagnosis.limit == "clock-broken"
}

/// Replace the diagnosis of a connection whose capture clock a host's own TCP timestamp
/// clock contradicts both ways (timing/ts_clock_check.rs `TsClockCheck::verdict`;
/// docs/ANALYSIS.md "A capture clock the hosts' clocks contradict"); true if so.
pub fn apply_ts_check(c: &mut ConnectionSummary, proof: Option<&Contradiction>) -> bool {
    if is_clock_broken(c) {
        return false;
    }
    let Some(k) = proof else { return false };
    let text = format!(
        "This capture's clock does not follow the packets: {} No clock rate gives both: the capture stamped its packets in batches, not as they passed \
         (a relay or remote-virtual-interface capture). Its gaps, stalls, rates and round trips are not judged, so no limit is named; \
         Wireshark's frame order and the TCP timestamps still show the sequence of events.",
        evidence(&c.endpoints[k.host], k),
    );
    *c.diagnosis = Diagnosis { limit: "clock-broken".to_string(), text, ..Diagnosis::default() };
    true
}

/// The frames that prove a host's TCP timestamp clock contradicts the capture's both
/// ways, as one sentence (`host`: its address and port).
fn evidence(host: &str, k: &Contradiction) -> String {
    // The host's clock in time, where the connection lasted long enough to measure it.
    let at_rate = |ticks: u32| k.ticks_per_s.filter(|r| *r > 0.0).map_or(String::new(), |r| format!(", about {}", format_duration(f64::from(ticks) / r)));
    let (l, s) = (k.too_long, k.too_short);
    format!(
        "{host}'s own TCP timestamp clock (RFC 7323) moved {} tick{}{} from frame {} to frame {}, \
         which answers frame {} — yet the capture stamps frame {} {} after frame {}; and it moved {} ticks{} from frame {} (answering frame {}) to frame {}, \
         which the capture stamps only {} after frame {}.",
        l.moved, if l.moved == 1 { "" } else { "s" }, at_rate(l.moved), l.frames[0], l.frames[2], l.frames[1], l.frames[1],
        format_duration(l.gap_ns as f64 / 1e9), l.frames[0],
        s.moved, at_rate(s.moved), s.frames[0], s.frames[1], s.frames[2], format_duration(s.gap_ns as f64 / 1e9), s.frames[1],
    )
}

/// A capture interface whose clock is proven to stamp in batches: the connection whose
/// proof is shown, its host (address and port), the proof, and every proven connection.
#[derive(Clone, Debug)]
pub struct BatchedInterface {
    pub conn: u32,
    pub host: String,
    pub proof: Contradiction,
    pub proven: Vec<u32>,
}

/// The capture's clock, judged once for the interface rather than per connection: a
/// capture stamps every packet of an interface with one clock (a pcapng Interface
/// Description Block's `if_tsresol`/`if_tsoffset` apply to all its packets,
/// draft-ietf-opsawg-pcapng §4.2; a pcap file has one), so a clock proven to stamp in
/// batches on one connection stamps every connection of the interface so (Carperis
/// WebRTC_Testbench "messenger case 7 caller", rvi0: connections 10, 11 and 39 proven;
/// connection 37, whose own timestamps contradict it one way only, read "1 s waiting
/// on ACKs … about 15 ms instead of 1 s" over a gap its sender's clock moved 37 ms).
/// `proofs`: each connection's own verdict, with its host's name; `interfaces`: how many
/// the file describes (0: unknown, one clock assumed). A file of several interfaces
/// keeps the per-connection verdicts: which interface a packet came from is not kept.
pub fn batched_interface(proofs: &[Option<(Contradiction, String)>], interfaces: u32) -> Option<BatchedInterface> {
    if interfaces > 1 {
        return None;
    }
    let proven: Vec<u32> = proofs.iter().enumerate().filter(|(_, p)| p.is_some()).map(|(i, _)| i as u32).collect();
    let (conn, (proof, host)) = proofs.iter().enumerate().filter_map(|(i, p)| Some((i, p.as_ref()?))).max_by(|a, b| a.1 .0.ratio.total_cmp(&b.1 .0.ratio))?;
    Some(BatchedInterface { conn: conn as u32, host: host.clone(), proof: *proof, proven })
}

/// Replace the diagnosis of a connection captured on an interface whose clock another
/// connection proved batched ([`batched_interface`]); true if so. Its own timestamps
/// need not contradict the clock both ways (a short or one-way exchange gives no pair
/// of each kind): the capture's times are not its packets' times all the same. A
/// verdict read from which packets exist, not when, stands: a connection never
/// established (SYNs unanswered) or captured in one direction only (the same file's
/// connections 24–35 and 0).
pub fn apply_same_clock(c: &mut ConnectionSummary, b: &BatchedInterface) -> bool {
    if is_clock_broken(c) || matches!(c.diagnosis.limit.as_str(), "not-established" | "one-direction") {
        return false;
    }
    let text = format!(
        "This capture's clock does not follow the packets: on connection {} of the same capture interface, \
         the capture stamped its packets in batches, which the hosts' own TCP timestamp clocks (RFC 7323) prove (the capture's warning names the frames), \
         and one interface has one clock. This connection's gaps, stalls, rates and round trips are not judged, so no limit is named; \
         Wireshark's frame order and, where negotiated, the TCP timestamps still show the sequence of events.",
        b.conn
    );
    *c.diagnosis = Diagnosis { limit: "clock-broken".to_string(), text, ..Diagnosis::default() };
    true
}

/// The capture-level warning of a batched interface: the proof once, and how many
/// connections it leaves unjudged (`told`: connections whose diagnosis says so; `packets`:
/// their packets, analysed at the capture's times all the same).
pub fn batched_warning(b: &BatchedInterface, told: usize, packets: u64) -> AnalysisWarning {
    let others = b.proven.iter().filter(|&&i| i != b.conn).map(|i| i.to_string()).collect::<Vec<_>>();
    let also = if others.is_empty() { String::new() } else { format!(" (the same on connection{} {})", if others.len() == 1 { "" } else { "s" }, others.join(", ")) };
    let message = format!(
        "This capture's clock does not follow the packets: on connection {}{also}, {} No clock rate gives both: the capture stamped its packets in batches, \
         not as they passed (a relay or remote-virtual-interface capture), and one interface has one clock. The gaps, stalls, rates and round trips of the \
         {told} connection{} captured on it are not judged.",
        b.conn,
        evidence(&b.host, &b.proof),
        if told == 1 { "" } else { "s" },
    );
    AnalysisWarning { kind: "batched-clock", count: packets, message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::timing::ts_clock_check::Pair;

    fn proof(ratio: f64) -> Option<(Contradiction, String)> {
        let p = Pair { gap_ns: 1_000_000_000, moved: 10, frames: [1, 2, 3] };
        Some((Contradiction { host: 0, too_long: p, too_short: p, ratio, ticks_per_s: None }, "10.0.0.1:1".to_string()))
    }

    #[test]
    fn one_interface_one_clock_several_keep_their_own() {
        // Connections 1 and 3 proven, 3 the more strongly: shown; both listed.
        let proofs = [None, proof(20.0), None, proof(50.0)];
        let b = batched_interface(&proofs, 1).expect("one interface");
        assert_eq!((b.conn, b.proven.clone()), (3, vec![1, 3]));
        // A pcap (or an analysis without a file: 0) has one clock; two IDBs: unknown which.
        assert!(batched_interface(&proofs, 0).is_some());
        assert!(batched_interface(&proofs, 2).is_none());
        // Nothing proven: nothing said.
        assert!(batched_interface(&[None, None], 1).is_none());
    }
}
