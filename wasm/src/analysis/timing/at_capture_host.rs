//! The vantage where the capture's own host is one end of the connection by its
//! checksums (capture/capture_host.rs; docs/ANALYSIS.md "Vantage"): that end's frames
//! were copied before its network card filled their checksum in, so the capture was
//! taken on it, whatever the timing says. The timing alone reads the smaller part of the
//! round trip as the capturing host's turnaround (vantage.rs `Parts::host_turnaround`),
//! which a peer that answers faster than the capturing host can turn over: a VirtualBox
//! NAT engine ACKs in 46 µs while the guest it serves, the capture's host, takes 219 µs to
//! answer an RPC (dcerpc_witness.pcapng: "receiver" where the capture is on the sender).
//!
//! The path RTT at a capture on a host is the part towards the far end (the host's
//! segment leaves, the far end answers, the answer arrives: what the host's TCP times,
//! RFC 6298 §2); the part through the host itself is its own stack's or application's
//! time. Where that part is host-sized (at most [`LOCAL_SHARE`] of the sum, or
//! [`HOST_TURNAROUND_S`]) the sum stays the RTT, as the timing rule gives it; a larger one is
//! not the path and is left out.

use super::vantage::{path_rtt_by_parts, resolves_part, Parts, PathRtt, Vantage, HOST_TURNAROUND_S, LOCAL_SHARE};
use crate::analysis::format::format_duration;

/// The path RTT and vantage where [`Parts::capture_host`] names exactly one end; None
/// where it names none (the timing decides, vantage.rs).
pub(crate) fn path_rtt(parts: &Parts, data_dir: u8, tick: f64) -> Option<PathRtt> {
    let d = (data_dir & 1) as usize;
    // `toward[p]` reaches the capture's host: p = 1 - d is the data sender, p = d the receiver.
    let p = (0..2).find(|&p| parts.capture_host[p] == Some(true) && parts.capture_host[1 - p] == Some(false))?;
    let (vantage, local, far) = if p == 1 - d { (Vantage::Sender, "sender", "receiver") } else { (Vantage::Receiver, "receiver", "data sender") };
    let why = format!("the capture was taken on the {local}'s host (its ACKs carry the partial checksum its network card fills in: offload)");
    // Without a measured far part the vantage alone would leave no RTT, and the rules that
    // read a receiver-side capture need one (a 28 ms pause read "unknown cause" for want of
    // it, OISF dcerpc-ctxids #9): the timing and the TTLs decide there (vantage.rs).
    let f = parts.toward[1 - p].filter(|&f| f > 0.0 && resolves_part(f, parts.below_tick_share[1 - p], tick))?;
    let mut r = path_rtt_by_parts(parts, data_dir, tick);
    r.vantage = vantage;
    let own = parts.toward[p];
    if !own.is_some_and(|l| l <= HOST_TURNAROUND_S || l <= LOCAL_SHARE * (l + f)) {
        r.rtt = Some(f);
        r.method = match own {
            Some(l) => format!(
                "{} to the {far} and back: {why}, so this is the path RTT ({} to the {local} and back is that host's own time)",
                format_duration(f),
                format_duration(l)
            ),
            None => format!("{} to the {far} and back: {why}, so this is the path RTT", format_duration(f)),
        };
    }
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::timing::vantage::path_rtt_with_ttl;

    fn at(toward: [Option<f64>; 2], capture_host: [Option<bool>; 2]) -> Parts {
        let mut p = Parts::new(toward, None);
        p.no_router = [true, true];
        p.capture_host = capture_host;
        p
    }

    #[test]
    fn the_checksum_host_decides_over_a_faster_peer() {
        // dcerpc_witness.pcapng #0: the data (dir 1, 96 B answers) comes from 10.0.2.15,
        // whose ACKs carry the partial sum. Its peer ACKs in 46 µs (toward[1]); the
        // guest's own answers took 219 µs (toward[0]). The timing alone: "receiver".
        let timing = at([Some(0.000_219), Some(0.000_046)], [None, None]);
        assert_eq!(path_rtt_with_ttl(&timing, 1, 1e-6, None).vantage, Vantage::Receiver);
        // toward[0] reaches the data sender, the capture's host.
        let p = at([Some(0.000_219), Some(0.000_046)], [Some(true), Some(false)]);
        let r = path_rtt_with_ttl(&p, 1, 1e-6, None);
        // At the sender the path RTT is the 46 µs part towards the receiver; the
        // 219 µs through the capture's own host is not path (> 50 µs and > 10 %).
        assert_eq!((r.vantage, r.rtt), (Vantage::Sender, Some(0.000_046)));
        assert!(r.method.starts_with("46 µs to the receiver and back: the capture was taken on the sender's host"), "{}", r.method);
    }

    #[test]
    fn a_host_sized_own_part_keeps_the_sum() {
        // A sender-side capture the timing already tells: 20 µs own turnaround + 10 ms.
        let timing = at([Some(0.010), Some(0.000_020)], [None, None]);
        let p = at([Some(0.010), Some(0.000_020)], [Some(false), Some(true)]);
        assert_eq!(path_rtt_with_ttl(&p, 0, 1e-6, None), path_rtt_with_ttl(&timing, 0, 1e-6, None));
        // The receiver proven, only its own part measured: no RTT to give, so the timing
        // and the TTLs decide (here: unknown, the one part taken as a lower bound).
        let p = at([Some(0.000_030), None], [Some(true), Some(false)]);
        assert!(path_rtt(&p, 0, 1e-6).is_none());
        let r = path_rtt_with_ttl(&p, 0, 1e-6, None);
        assert_eq!((r.vantage, r.rtt), (Vantage::Unknown, Some(0.000_030)));
        // The far part below two ticks of a 10 ms clock: no RTT either.
        let p = at([Some(0.010), Some(0.0)], [Some(false), Some(true)]);
        assert!(path_rtt(&p, 0, 0.010).is_none());
    }

    #[test]
    fn a_capture_host_at_neither_end_vetoes_the_host_turnaround() {
        // jasonTu mysql.pcap: 10.206.66.42 answers in 35 µs, its client in 291 µs, but the
        // capture's host is .43 (its ACKs carry the partial sum): neither part is the
        // capture host's turnaround, and 35 µs is over 10 % of the path: middle.
        let timing = at([Some(0.000_291), Some(0.000_035)], [None, None]);
        assert_eq!(path_rtt_with_ttl(&timing, 0, 1e-6, None).vantage, Vantage::Sender);
        let p = at([Some(0.000_291), Some(0.000_035)], [Some(false), Some(false)]);
        let r = path_rtt_with_ttl(&p, 0, 1e-6, None);
        assert_eq!((r.vantage, r.rtt), (Vantage::Middle, Some(0.000_326)));
        assert!(path_rtt(&p, 0, 1e-6).is_none());
    }
}
