//! The TCP checksum (RFC 9293 §3.1: the 16-bit one's complement of the one's
//! complement sum of the pseudo-header, the TCP header and the data; the sum as in
//! RFC 1071; IPv6 pseudo-header RFC 8200 §8.1), and when a failing one means the
//! frame was corrupted (docs/ANALYSIS.md "Corrupt frames").
//!
//! A received frame whose checksum fails never reached the receiver's TCP as a
//! segment (RFC 9293 §3.10.7.4 discards it): analysing it invents a retransmission
//! (the good copy that follows) and reads options from garbage. But most failing
//! checksums in captures are not corruption: a host with checksum offload hands the
//! capture its own outgoing frames before the NIC fills the field in. Linux leaves the
//! pseudo-header sum there (CHECKSUM_PARTIAL: `__tcp_v4_send_check` writes
//! `~tcp_v4_check(len, saddr, daddr, 0)`; GRO does the same to the frames it merges,
//! `tcp4_gro_complete`), GSO frames the sum without the length, other stacks 0 or
//! whatever the driver leaves. So:
//! - a checksum is verified only where the whole segment was captured and its length is
//!   in the IP header (not a TSO / BIG TCP frame whose length the NIC fills in), and
//!   its field is not 0;
//! - a failing field that holds the pseudo-header sum is [`Checksum::Offloaded`];
//! - any other failure is [`Checksum::Bad`], and is corruption only by the evidence of
//!   the rest of the capture ([`ChecksumEvidence`]): offload fails every frame a host
//!   sends, corruption a few — and not where the peer acknowledged the frame's bytes
//!   and no other frame carried them (acked.rs): then it was delivered.

use std::collections::HashMap;
use std::net::IpAddr;

use crate::fxhash::FxBuild;

/// What a frame's TCP checksum showed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Checksum {
    /// Not verified: the segment was not captured whole, its length is not in the IP
    /// header, the field is 0 (offload, or the 1 in 65,536 correct zero), or the
    /// pseudo-header's destination is not the IP header's (an IPv6 routing header).
    #[default]
    Unverified,
    Good,
    /// Fails, the field holding the pseudo-header sum the NIC completes (module doc).
    Offloaded,
    /// Fails otherwise.
    Bad,
}

/// One's complement sum of `bytes` as big-endian 16-bit words (RFC 1071 §4.1; an odd
/// last byte is padded with zero), folded to 16 bits. Summed as the two 32-bit halves
/// of 64-bit words in the machine's byte order into a 64-bit accumulator (no overflow
/// below 2^31 words, and the loop vectorises); on a little-endian machine that sum is the big-endian one with
/// its two bytes swapped (RFC 1071 §2 (B)), swapped back once at the end.
#[inline]
pub fn sum_words(bytes: &[u8]) -> u64 {
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    let halves = |w: u64| (w & 0xffff_ffff) + (w >> 32);
    let mut acc: u64 = words.map(|w| halves(u64::from_ne_bytes(w.try_into().expect("8 bytes")))).sum();
    let mut last = [0u8; 8];
    last[..tail.len()].copy_from_slice(tail);
    acc += halves(u64::from_ne_bytes(last));
    u64::from(u16::from_be(fold(acc)))
}

/// A sum folded to 16 bits (end-around carry, RFC 1071 §2 (C)).
#[inline]
pub fn fold(mut acc: u64) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// The pseudo-header's addresses and protocol, without the TCP length: RFC 9293 §3.1
/// (IPv4: source, destination, zero, PTCL 6, TCP length) and RFC 8200 §8.1 (IPv6:
/// source, destination, upper-layer length, zero, next header 6).
fn pseudo_sum(src: IpAddr, dst: IpAddr) -> u64 {
    let addr = |a: IpAddr| match a {
        IpAddr::V4(v4) => sum_words(&v4.octets()),
        IpAddr::V6(v6) => sum_words(&v6.octets()),
    };
    addr(src) + addr(dst) + 6
}

/// Verify the checksum of `segment` (TCP header and data, exactly the TCP length the
/// IP header gives) between `src` and `dst`. `whole`: the segment was captured whole
/// and its length is the IP header's (see [`Checksum::Unverified`]).
pub fn verify(segment: &[u8], src: IpAddr, dst: IpAddr, whole: bool) -> Checksum {
    let field = match segment.get(16..18) {
        Some(f) if whole => u16::from_be_bytes([f[0], f[1]]),
        _ => return Checksum::Unverified,
    };
    if field == 0 {
        return Checksum::Unverified;
    }
    let pseudo = pseudo_sum(src, dst);
    let len = segment.len() as u64;
    if fold(pseudo + len + sum_words(segment)) == 0xffff {
        return Checksum::Good;
    }
    // One's complement has two zeros: a folded sum of 0xffff is written either way.
    let is = |sum: u16| field == sum || (sum == 0xffff && field == 0);
    if is(fold(pseudo + len)) || is(fold(pseudo)) {
        Checksum::Offloaded
    } else {
        Checksum::Bad
    }
}

/// Sources tallied at most: a capture of more distinct source addresses tallies the
/// first this many (16 bytes of key and 8 of counts each, about 3 MiB with the table),
/// and a `Bad` frame from any other is analysed, as without evidence.
pub const MAX_SOURCES: usize = 65_536;

/// Per source address, how many of its frames passed and how many failed (`Bad`), over
/// the frames decoded so far — which, as the session holds packets to sort them by time
/// (analysis/capture/timeline.rs), includes the reordering window after the frame judged.
#[derive(Debug, Default)]
pub struct ChecksumEvidence {
    by_source: HashMap<IpAddr, (u32, u32), FxBuild>,
    /// Frames judged corrupt (`is_corrupt` true).
    pub corrupt: u64,
}

impl ChecksumEvidence {
    /// Count a decoded frame's checksum towards its source.
    pub fn observe(&mut self, src: IpAddr, checksum: Checksum) {
        let (good, bad) = match checksum {
            Checksum::Good => (1, 0),
            Checksum::Bad => (0, 1),
            _ => return,
        };
        let full = self.by_source.len() >= MAX_SOURCES;
        if let Some(t) = match self.by_source.get_mut(&src) {
            Some(t) => Some(t),
            None if full => None,
            None => Some(self.by_source.entry(src).or_default()),
        } {
            t.0 = t.0.saturating_add(good);
            t.1 = t.1.saturating_add(bad);
        }
    }

    /// Whether a frame from `src` whose checksum is `checksum` was corrupted on the
    /// way (and counts it): it failed with anything but the pseudo-header sum, and the
    /// same source's other frames pass at least as often as its frames fail. A host
    /// whose every frame fails (offload writing anything, LRO merging received frames
    /// without fixing the field) is never judged; corruption touches a few frames.
    pub fn is_corrupt(&mut self, src: IpAddr, checksum: Checksum) -> bool {
        let corrupt = self.suspect(src, checksum);
        self.corrupt += u64::from(corrupt);
        corrupt
    }

    /// Whether a failing frame from `src` may yet be judged corrupt: one of the source's
    /// frames passed so far. A host none of whose frames passes (offload) is never
    /// judged, so its frames need no watching for acknowledgements (acked.rs).
    pub fn may_judge(&self, src: IpAddr, checksum: Checksum) -> bool {
        checksum == Checksum::Bad && self.by_source.get(&src).is_some_and(|&(good, _)| good > 0)
    }

    /// `is_corrupt` without counting: whether the source's evidence so far makes a
    /// frame that fails a corrupt copy, unless its peer acknowledged it (acked.rs).
    pub fn suspect(&self, src: IpAddr, checksum: Checksum) -> bool {
        checksum == Checksum::Bad && self.by_source.get(&src).is_some_and(|&(good, bad)| good > 0 && bad <= good)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The TCP header of RFC-style worked example: 10.0.0.1:40000 → 10.0.0.2:80, seq
    /// 1000, SYN, window 64240, checksum field filled in by `with_checksum`.
    fn syn() -> Vec<u8> {
        vec![0x9c, 0x40, 0x00, 0x50, 0, 0, 0x03, 0xe8, 0, 0, 0, 0, 0x50, 0x02, 0xfa, 0xf0, 0, 0, 0, 0]
    }

    fn addrs() -> (IpAddr, IpAddr) {
        ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap())
    }

    fn with_checksum(mut seg: Vec<u8>, src: IpAddr, dst: IpAddr) -> Vec<u8> {
        seg[16..18].copy_from_slice(&[0, 0]);
        let c = !fold(pseudo_sum(src, dst) + seg.len() as u64 + sum_words(&seg));
        seg[16..18].copy_from_slice(&c.to_be_bytes());
        seg
    }

    #[test]
    fn sum_matches_rfc_1071_example() {
        // RFC 1071 §3: bytes 00 01 f2 03 f4 f5 f6 f7 sum to ddf2 (folded).
        assert_eq!(fold(sum_words(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7])), 0xddf2);
        // An odd length pads the last byte with zero.
        assert_eq!(fold(sum_words(&[0x01, 0x02, 0x03])), 0x0402);
    }

    #[test]
    fn good_bad_offloaded_and_unverified() {
        let (a, b) = addrs();
        let good = with_checksum(syn(), a, b);
        assert_eq!(verify(&good, a, b, true), Checksum::Good);
        // One flipped bit anywhere (here the window) fails.
        let mut bad = good.clone();
        bad[15] ^= 0x04;
        assert_eq!(verify(&bad, a, b, true), Checksum::Bad);
        // Linux CHECKSUM_PARTIAL: the field holds the pseudo-header sum, length included.
        let mut partial = syn();
        partial[16..18].copy_from_slice(&fold(pseudo_sum(a, b) + 20).to_be_bytes());
        assert_eq!(verify(&partial, a, b, true), Checksum::Offloaded);
        // GSO: the sum without the length.
        partial[16..18].copy_from_slice(&fold(pseudo_sum(a, b)).to_be_bytes());
        assert_eq!(verify(&partial, a, b, true), Checksum::Offloaded);
        // Zero, or not captured whole: not verified.
        assert_eq!(verify(&syn(), a, b, true), Checksum::Unverified);
        assert_eq!(verify(&bad, a, b, false), Checksum::Unverified);
        assert_eq!(verify(&bad[..10], a, b, true), Checksum::Unverified);
    }

    #[test]
    fn ipv6_pseudo_header() {
        let (a, b): (IpAddr, IpAddr) = ("2001:db8::1".parse().unwrap(), "2001:db8::2".parse().unwrap());
        let mut seg = with_checksum(syn(), a, b);
        seg.extend_from_slice(b"odd");
        let seg = with_checksum(seg, a, b);
        assert_eq!(verify(&seg, a, b, true), Checksum::Good);
        assert_eq!(verify(&seg, b, a, true), Checksum::Good, "the sum does not depend on the order of the addresses");
        let (c, _) = addrs();
        assert_eq!(verify(&seg, c, b, true), Checksum::Bad);
    }

    #[test]
    fn corruption_needs_the_sources_other_frames_to_pass() {
        let (a, b) = addrs();
        let mut e = ChecksumEvidence::default();
        // A host whose every frame fails (offload writing garbage): never judged.
        for _ in 0..3 {
            e.observe(a, Checksum::Bad);
        }
        assert!(!e.is_corrupt(a, Checksum::Bad));
        // One bad frame among passing ones: corrupt. An offloaded one never is.
        e.observe(b, Checksum::Good);
        e.observe(b, Checksum::Bad);
        assert!(e.is_corrupt(b, Checksum::Bad));
        assert!(!e.is_corrupt(b, Checksum::Offloaded));
        // More failing than passing frames: the host, not the path.
        e.observe(b, Checksum::Bad);
        assert!(!e.is_corrupt(b, Checksum::Bad));
        assert_eq!(e.corrupt, 1);
    }
}
