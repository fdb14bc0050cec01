//! Which host the capture was taken on, by that host's own frames (docs/ANALYSIS.md
//! "Vantage"): a frame whose TCP checksum field holds only the pseudo-header sum
//! (decode/checksum.rs [`Checksum::Offloaded`]) left its stack for a NIC that fills the
//! checksum in (RFC 9293 §3.1 defines the field; Linux's CHECKSUM_PARTIAL, Windows'
//! NDIS and the BSDs' offload all leave that sum for the NIC). The capture copied it
//! before the NIC did, so it was taken on that host (or on the virtual switch inside the
//! same machine, before any wire): no receiver would have accepted the frame as sent.
//!
//! Only frames without payload are counted: Linux GRO rewrites the checksum of the
//! *received* data segments it merges to the same pseudo-header sum (`tcp4_gro_complete`),
//! which would point at the far end; an ACK, a SYN or a FIN carries no payload and is
//! never merged, so its partial sum was written by its sender's own stack. A host is the
//! capture's when at least [`MIN_FRAMES`] of its payload-free frames carry the partial
//! sum and no more of them pass (a correct checksum on most would be a host that fills
//! them in, the few partial ones chance or another stack behind the same address), each
//! with an initial TTL (a router passed the others). A connection takes the fact only
//! where that host's packets in it all left with one initial TTL too (run/summary/steps.rs):
//! nDPI `conncheck.pcap` holds partial sums from a local stack answering as
//! 92.123.101.121, whose real packets in connection 6 arrive with TTL 54.
//!
//! The fact is the capture's, not a connection's: the vantage of every connection
//! follows from it (timing/vantage.rs `Parts::capture_host`). dcerpc_witness.pcapng:
//! 10.0.2.15 (a VirtualBox guest, TTL 128) sends all 236 segments with the partial sum,
//! while its NAT peer ACKs in 46 µs, which the timing alone took for the receiver's own
//! turnaround; jasonTu mysql.pcap: only 10.206.66.43's segments carry it, so the other
//! hosts' connections seen on the same vSwitch were captured at neither end.

use std::collections::HashMap;
use std::net::IpAddr;

use crate::decode::checksum::Checksum;
use crate::fxhash::FxBuild;

/// Payload-free frames with the partial sum a host needs to be the capture's.
pub const MIN_FRAMES: u32 = 2;

/// Sources tallied at most (a capture of more addresses tallies the first this many).
pub const MAX_SOURCES: usize = 65_536;

/// Per source address, its payload-free frames with a partial sum and with a good one.
#[derive(Debug, Default)]
pub struct OffloadTally {
    by_source: HashMap<IpAddr, (u32, u32), FxBuild>,
}

impl OffloadTally {
    /// Counts one frame from `src` (every frame of the capture, whichever connection or
    /// shard analyses it, so each shard holds the same facts: shard.rs).
    /// `initial`: the frame's TTL is an initial one, or not told (IPv6; timing/vantage.rs
    /// `INITIAL_TTLS`, judged by the caller): a partial sum counts only there, as a stack at
    /// the capture point sends it; a frame a router passed was not copied on its sender.
    pub fn observe(&mut self, src: IpAddr, checksum: Checksum, payload_len: u32, initial: bool) {
        let (partial, good) = match checksum {
            Checksum::Offloaded if initial => (1, 0),
            Checksum::Good => (0, 1),
            _ => return,
        };
        if payload_len > 0 {
            return;
        }
        if !self.by_source.contains_key(&src) && (self.by_source.len() >= MAX_SOURCES || partial == 0) {
            return;
        }
        let t = self.by_source.entry(src).or_default();
        t.0 = t.0.saturating_add(partial);
        t.1 = t.1.saturating_add(good);
    }

    /// The hosts proven to be the capture's.
    pub fn finish(&self) -> CaptureHosts {
        let mut hosts: Vec<IpAddr> = self.by_source.iter().filter(|(_, &(partial, good))| partial >= MIN_FRAMES && partial >= good).map(|(a, _)| *a).collect();
        hosts.sort();
        CaptureHosts { hosts }
    }
}

/// The addresses of the host(s) the capture was taken on, by [`OffloadTally`]; empty
/// when the capture does not tell.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureHosts {
    pub hosts: Vec<IpAddr>,
}

impl CaptureHosts {
    /// For a connection between `ends` (side 0's and side 1's address): whether each
    /// side's host is the capture's, where the capture tells — `Some([a, b])` with
    /// exactly one true, or both false where the capture's host is neither end (it saw
    /// the connection pass, as a bridge or a router does). None where no host is known,
    /// or both ends are (a loopback, two guests of the capturing machine): the timing
    /// decides then.
    pub fn of_connection(&self, ends: [IpAddr; 2]) -> Option<[bool; 2]> {
        if self.hosts.is_empty() {
            return None;
        }
        let is = ends.map(|a| self.hosts.binary_search(&a).is_ok());
        (!(is[0] && is[1]) && ends[0] != ends[1]).then_some(is)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_host_whose_acks_carry_the_partial_sum_is_the_captures() {
        let mut t = OffloadTally::default();
        let (me, peer, other) = (ip("10.0.2.15"), ip("192.168.122.201"), ip("10.0.0.9"));
        // Two ACKs with the partial sum: proven. The peer's good ACKs and its data
        // with a partial sum (GRO's merged frames at the receiver) prove nothing.
        t.observe(me, Checksum::Offloaded, 0, true);
        t.observe(me, Checksum::Offloaded, 0, true);
        t.observe(peer, Checksum::Good, 0, true);
        t.observe(peer, Checksum::Offloaded, 2896, true);
        t.observe(peer, Checksum::Offloaded, 2896, true);
        // Partial sums on frames a router passed (TTL 54): not copied on their sender.
        t.observe(peer, Checksum::Offloaded, 0, false);
        t.observe(peer, Checksum::Offloaded, 0, false);
        // Two ACKs with the partial sum against three good ones: not proven.
        t.observe(other, Checksum::Offloaded, 0, true);
        t.observe(other, Checksum::Offloaded, 0, true);
        for _ in 0..3 {
            t.observe(other, Checksum::Good, 0, true);
        }
        let hosts = t.finish();
        assert_eq!(hosts.hosts, vec![me]);
        assert_eq!(hosts.of_connection([peer, me]), Some([false, true]));
        // A connection of two other hosts: the capture is at neither end.
        assert_eq!(hosts.of_connection([peer, other]), Some([false, false]));
        // Both ends the capture's (a loopback): not told.
        assert_eq!(hosts.of_connection([me, me]), None);
        assert_eq!(CaptureHosts::default().of_connection([me, peer]), None);
    }

    #[test]
    fn one_partial_frame_is_not_enough() {
        let mut t = OffloadTally::default();
        t.observe(ip("10.0.0.1"), Checksum::Offloaded, 0, true);
        t.observe(ip("10.0.0.1"), Checksum::Unverified, 0, true);
        t.observe(ip("10.0.0.1"), Checksum::Bad, 0, true);
        assert!(t.finish().hosts.is_empty());
    }
}
