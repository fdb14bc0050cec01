//! Connection tracking: the 4-tuple key, a fast hasher, endpoint naming and
//! Wireshark's rule for when a reused 4-tuple starts a new connection (tcp.stream).
//!
//! Design for scale (1M connections): the key is 40 bytes of plain integers (no
//! `String`, no heap), the map holds only `key -> u32 index` of the *current*
//! connection for that 4-tuple, and the hasher is a multiply-rotate (FxHash-style)
//! hasher instead of SipHash, because keys come from a capture file, not from an
//! adversary that could exploit collisions against a long-lived service.

use std::collections::HashMap;
use std::net::IpAddr;

use crate::decode::{tcp_flags, TcpSegment};

pub use crate::fxhash::{FxBuild, FxHasher};

/// An address as 128 bits; IPv4 is kept in the IPv4-mapped form and `v6`
/// distinguishes a real IPv6 `::ffff:a.b.c.d` from IPv4.
fn addr_bits(a: IpAddr) -> (u128, bool) {
    match a {
        IpAddr::V4(v4) => (u32::from(v4) as u128, false),
        IpAddr::V6(v6) => (u128::from(v6), true),
    }
}

/// Direction-independent 4-tuple: both orders of (src, dst) give the same key,
/// like Wireshark's conversation table (address/port pairs match either way).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowKey {
    lo_addr: u128,
    hi_addr: u128,
    lo_port: u16,
    hi_port: u16,
    v6: bool,
}

impl FlowKey {
    pub fn of(seg: &TcpSegment) -> Self {
        let (s, v6s) = addr_bits(seg.src);
        let (d, v6d) = addr_bits(seg.dst);
        let (lo, hi) = if (s, seg.src_port) <= (d, seg.dst_port) {
            ((s, seg.src_port), (d, seg.dst_port))
        } else {
            ((d, seg.dst_port), (s, seg.src_port))
        };
        FlowKey { lo_addr: lo.0, hi_addr: hi.0, lo_port: lo.1, hi_port: hi.1, v6: v6s || v6d }
    }
}

/// "ip:port", IPv6 as "[addr]:port" (RFC 5952 §6 notation).
pub fn endpoint_name(addr: IpAddr, port: u16) -> String {
    match addr {
        IpAddr::V4(a) => format!("{a}:{port}"),
        IpAddr::V6(a) => format!("[{a}]:{port}"),
    }
}

/// The address and the port of an endpoint named by [`endpoint_name`]: "1.2.3.4:80" →
/// ("1.2.3.4", "80"), "[::1]:80" → ("::1", "80"); a name without a port is all address.
/// The one place that reads the names back (FTP's data connections, relay chains,
/// same-path bases, shards' host pairs).
pub fn split_endpoint(endpoint: &str) -> (&str, &str) {
    let (address, port) = endpoint.rsplit_once(':').unwrap_or((endpoint, ""));
    (address.trim_start_matches('[').trim_end_matches(']'), port)
}

/// Maps each 4-tuple to the index of its current connection.
#[derive(Default)]
pub struct ConnTable {
    map: HashMap<FlowKey, u32, FxBuild>,
    /// The last key looked up or inserted and its connection: consecutive packets
    /// mostly belong to one connection (a bulk transfer's data and ACKs share a key),
    /// and comparing 40 bytes is cheaper than hashing and probing for every packet.
    last: Option<(FlowKey, u32)>,
}

/// What the table says about a segment.
pub enum Lookup {
    /// Existing connection `index`.
    Existing(u32),
    /// No connection for this 4-tuple yet, or Wireshark would start a new one:
    /// the caller creates connection number `next_index` and calls `insert`.
    New,
}

impl ConnTable {
    pub fn lookup(&mut self, key: &FlowKey) -> Lookup {
        if let Some((last, i)) = &self.last {
            if last == key {
                return Lookup::Existing(*i);
            }
        }
        match self.map.get(key) {
            Some(&i) => {
                self.last = Some((*key, i));
                Lookup::Existing(i)
            }
            None => Lookup::New,
        }
    }
    /// `key` now names connection `index` (a new one, or the next connection on a
    /// reused port pair).
    pub fn insert(&mut self, key: FlowKey, index: u32) {
        self.map.insert(key, index);
        self.last = Some((key, index));
    }
    pub fn len(&self) -> usize {
        self.map.len()
    }
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// Wireshark 4.0 `dissect_tcp`: "If this is a SYN packet, then check if its seq-nr
/// is different from the base_seq of the retrieved conversation. If this is the
/// case, create a new conversation with the same addresses and ports and set the
/// TA_PORTS_REUSED flag." Only a SYN *without* ACK starts a new conversation (a
/// SYN/ACK with a new ISN is looked up in the existing one), and only when the
/// sender's base sequence number is already known and differs from this ISN.
/// A retransmitted SYN (same ISN) stays in the same connection.
pub fn starts_new_connection(seg: &TcpSegment, sender_base: Option<u32>) -> bool {
    seg.flags & (tcp_flags::SYN | tcp_flags::ACK) == tcp_flags::SYN
        && matches!(sender_base, Some(base) if base != seg.seq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::track::testseg::Seg;

    #[test]
    fn key_is_direction_independent() {
        // Both directions of one 4-tuple must land in one connection (tcp.stream).
        let a = Seg::a_to_b(0.0).build();
        let b = Seg::b_to_a(0.0).build();
        assert_eq!(FlowKey::of(&a), FlowKey::of(&b));
        let mut other = Seg::a_to_b(0.0).build();
        other.src_port += 1;
        assert_ne!(FlowKey::of(&a), FlowKey::of(&other));
    }

    #[test]
    fn ipv6_endpoints_are_bracketed() {
        let v6: IpAddr = "2001:db8::1".parse().unwrap();
        assert_eq!(endpoint_name(v6, 443), "[2001:db8::1]:443");
        let v4: IpAddr = "10.0.0.1".parse().unwrap();
        assert_eq!(endpoint_name(v4, 80), "10.0.0.1:80");
        // Read back: the address without brackets, the port as written.
        assert_eq!(split_endpoint("[2001:db8::1]:443"), ("2001:db8::1", "443"));
        assert_eq!(split_endpoint("10.0.0.1:80"), ("10.0.0.1", "80"));
        assert_eq!(split_endpoint("10.0.0.1"), ("10.0.0.1", ""));
    }

    #[test]
    fn port_reuse_rule() {
        let syn = Seg::a_to_b(0.0).seq(1000).flags(tcp_flags::SYN).build();
        // Same ISN as the known base: a retransmitted SYN, same connection.
        assert!(!starts_new_connection(&syn, Some(1000)));
        // Different ISN: Wireshark opens a new conversation (new tcp.stream).
        assert!(starts_new_connection(&syn, Some(5)));
        // Base unknown (first packet of this side): nothing to compare against.
        assert!(!starts_new_connection(&syn, None));
        // A SYN/ACK never starts one.
        let synack = Seg::a_to_b(0.0).seq(7).flags(tcp_flags::SYN | tcp_flags::ACK).build();
        assert!(!starts_new_connection(&synack, Some(5)));
    }
}
