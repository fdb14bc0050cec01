//! A connection whose packets have no usable time (docs/ANALYSIS.md "A broken capture
//! clock"; issue 39 review AB class C-BROKEN-CLOCK-HEADLINE).
//!
//! Two rules of "Time order" and "Impossible timestamps" leave a packet without a
//! time of its own: one stamped more than 2 s before a packet already read is left out
//! (`time-order-clamped`), and one whose sub-second field is a second or more
//! (`impossible-timestamp`, draft-ietf-opsawg-pcap §5) is analysed at a carried time
//! nobody wrote. A few such packets in a connection cost a stall or an RTT sample;
//! when more than [`UNTIMED_SHARE`] of a connection's packets are such, every gap,
//! stall, rate and round trip is built from the stamps that remain, and the packets
//! left out read as holes the receiver acknowledged (capture loss) though the capture
//! holds them. ACE857's capture.pcap: 637 of 1,000 sub-second fields out of range, 632
//! packets left out; its connection 4 kept 37 of 129 packets and read "The sending
//! application limited this flow … Other stalls: 288 ms retransmission timeout" and
//! "8 holes (34 KiB)" of capture loss, while in file order every ACK follows the data
//! it covers and neither side's TSval steps back.
//!
//! Then no limit is named (verdict/broken_clock.rs, as for one direction) and the
//! diagnosis says how many of the connection's packets have no usable time; its
//! acknowledged but unseen bytes are not counted in the `capture-loss` warning.
//!
//! Counted per 4-tuple by the session's timeline (timeline.rs `Stamped::flow`):
//! several incarnations of one 4-tuple each get the 4-tuple's counts.

use crate::fxhash::FxBuild;
use std::collections::HashMap;
use std::net::IpAddr;

/// The share of a connection's packets without a usable time above which no limit is
/// named: 5 % (review AB's "small documented share"). One packet in twenty moved or
/// missing already puts a false stall or hole in most transfers' few round trips.
pub const UNTIMED_SHARE: f64 = 0.05;
/// And at least this many: one stray stamp is a lost RTT sample, not a broken clock.
pub const MIN_UNTIMED: u64 = 3;

/// A 4-tuple, its two ends in order (either direction's packets map to it).
pub type Flow = ((IpAddr, u16), (IpAddr, u16));

/// The flow of a packet from `a` to `b`.
pub fn flow(a: (IpAddr, u16), b: (IpAddr, u16)) -> Flow {
    if a <= b { (a, b) } else { (b, a) }
}

/// Per 4-tuple: packets left out (beyond the reorder window) and packets analysed at a
/// timestamp that cannot be a time.
#[derive(Clone, Debug, Default)]
pub struct Untimed {
    by_flow: HashMap<Flow, [u64; 2], FxBuild>,
}

impl Untimed {
    pub fn left_out(&mut self, f: Flow) {
        self.by_flow.entry(f).or_default()[0] += 1;
    }
    pub fn impossible(&mut self, f: Flow) {
        self.by_flow.entry(f).or_default()[1] += 1;
    }
    /// (left out, analysed with an impossible stamp) of the connection between `ends`.
    pub fn of(&self, ends: [(IpAddr, u16); 2]) -> [u64; 2] {
        self.by_flow.get(&flow(ends[0], ends[1])).copied().unwrap_or_default()
    }
}

/// Whether a connection of `analysed` packets with `untimed` = (left out, impossible)
/// has too many packets without a usable time: (without a time, of all its packets).
pub fn judge(analysed: u64, untimed: [u64; 2]) -> Option<(u64, u64)> {
    let (n, m) = (untimed[0] + untimed[1], analysed + untimed[0]);
    (n >= MIN_UNTIMED && m > 0 && n as f64 > UNTIMED_SHARE * m as f64).then_some((n, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_above_five_percent_and_three_packets_is_a_broken_clock() {
        // ACE857 capture.pcap connection 4: 37 analysed, 92 left out (129 in the file).
        assert_eq!(judge(37, [92, 0]), Some((92, 129)));
        // 3 of 60 = 5 %: not above it.
        assert_eq!(judge(57, [3, 0]), None);
        assert_eq!(judge(56, [3, 1]), Some((4, 59)));
        // Two stray stamps in a short connection are not a broken clock.
        assert_eq!(judge(10, [1, 1]), None);
        assert_eq!(judge(0, [0, 0]), None);
    }

    #[test]
    fn either_direction_maps_to_one_flow() {
        let a = ("10.0.0.1".parse().unwrap(), 443);
        let b = ("10.0.0.2".parse().unwrap(), 50000);
        let mut u = Untimed::default();
        u.left_out(flow(a, b));
        u.impossible(flow(b, a));
        assert_eq!(u.of([b, a]), [1, 1]);
    }
}
