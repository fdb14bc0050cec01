//! ICMP errors that quote a TCP segment (issue 39 class C-ICMP-UNREAD): a router or
//! host that drops a packet may say why, and the message carries the dropped packet's
//! IP header and the first 8 bytes of its TCP header (ports and sequence number), so
//! the connection and the very segment are known.
//!
//! - ICMPv4 (RFC 792): type 3 "destination unreachable" (code 4 "fragmentation
//!   needed and DF set" carries the next-hop MTU in bytes 6–7, RFC 1191 §4) and type
//!   11 "time exceeded". The quote is the original IP header and at least 8 bytes of
//!   its data (RFC 792 p. 5; RFC 1812 §4.3.2.3 asks routers for as much as fits).
//! - ICMPv6 (RFC 4443): type 1 "destination unreachable", type 2 "packet too big"
//!   (the MTU in bytes 4–7, RFC 8201 §4) and type 3 "time exceeded"; the quote is as
//!   much of the invoking packet as fits in the minimum MTU.
//!
//! Only the outer packet is read (no tunnels); called only for frames that are not
//! TCP, so a capture without ICMP pays nothing.

use super::ethertype::Net;
use super::ip::{parse_ipv4, parse_ipv6, PROTO_TCP};
use super::link::locate;
use serde::Serialize;
use std::net::IpAddr;

/// IP protocol numbers of ICMP (RFC 792) and ICMPv6 (RFC 4443).
const PROTO_ICMP: u8 = 1;
const PROTO_ICMPV6: u8 = 58;

/// ICMP errors a decoder keeps (the first of the file): enough for any connection's
/// story, and a flood of them (a scan's port unreachables) costs at most ~0.5 MB.
pub const MAX_KEPT: usize = 10_000;

/// What the ICMP error says happened to the quoted packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum IcmpKind {
    /// ICMPv4 type 3 code 4: too big for the next hop, and DF set (RFC 1191).
    FragNeeded,
    /// ICMPv6 type 2 (RFC 4443 §3.2, RFC 8201).
    PacketTooBig,
    /// ICMPv4 type 3 code 0; ICMPv6 type 1 code 0 (no route).
    NetUnreachable,
    /// ICMPv4 type 3 code 1; ICMPv6 type 1 code 3 (address unreachable).
    HostUnreachable,
    /// ICMPv4 type 3 code 2.
    ProtocolUnreachable,
    /// ICMPv4 type 3 code 3; ICMPv6 type 1 code 4.
    PortUnreachable,
    /// ICMPv4 type 3 codes 9, 10, 13 (RFC 1812 §5.2.7.1); ICMPv6 type 1 codes 1, 5, 6.
    AdminProhibited,
    /// Any other "destination unreachable" code.
    Unreachable,
    /// ICMPv4 type 11; ICMPv6 type 3.
    TimeExceeded,
}

impl IcmpKind {
    /// The message's name as Wireshark prints it.
    pub fn words(self) -> &'static str {
        match self {
            IcmpKind::FragNeeded => "fragmentation needed",
            IcmpKind::PacketTooBig => "packet too big",
            IcmpKind::NetUnreachable => "network unreachable",
            IcmpKind::HostUnreachable => "host unreachable",
            IcmpKind::ProtocolUnreachable => "protocol unreachable",
            IcmpKind::PortUnreachable => "port unreachable",
            IcmpKind::AdminProhibited => "communication administratively prohibited",
            IcmpKind::Unreachable => "destination unreachable",
            IcmpKind::TimeExceeded => "time exceeded",
        }
    }

    /// A message about the packet's size (path MTU discovery, RFC 1191 / RFC 8201).
    pub fn too_big(self) -> bool {
        matches!(self, IcmpKind::FragNeeded | IcmpKind::PacketTooBig)
    }
}

/// One ICMP error quoting a TCP segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IcmpQuote {
    /// 0-based index of the ICMP packet in the file.
    pub packet_index: u64,
    /// Capture timestamp, ns since the Unix epoch.
    pub ts_ns: i64,
    pub kind: IcmpKind,
    /// The MTU the message reports (frag-needed's next-hop MTU, packet-too-big's MTU);
    /// None when absent or 0 (routers before RFC 1191 left it 0).
    pub mtu: Option<u32>,
    /// Who sent the message (the outer IP source).
    pub reporter: IpAddr,
    /// The quoted packet's addresses, ports and sequence number.
    pub src: IpAddr,
    pub dst: IpAddr,
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    /// The quoted packet's length from its own IP header (IPv4 total length, IPv6
    /// payload length + 40): the size the router was handed.
    pub quoted_len: u32,
}

/// The ICMP error in frame `data` of link type `lt`, if it is one quoting TCP.
pub fn read(lt: u32, data: &[u8], packet_index: u64, ts_ns: i64) -> Option<IcmpQuote> {
    let at = locate(lt, data).ok()?.ip;
    let ip_bytes = data.get(at.offset..)?;
    let outer = match at.net {
        Net::Ipv4 => parse_ipv4(ip_bytes, 0).ok()?,
        Net::Ipv6 => parse_ipv6(ip_bytes, 0).ok()?,
    };
    let v6 = match (at.net, outer.protocol) {
        (Net::Ipv4, PROTO_ICMP) => false,
        (Net::Ipv6, PROTO_ICMPV6) => true,
        _ => return None,
    };
    let icmp = ip_bytes.get(outer.payload_offset..)?;
    let (kind, mtu) = if v6 { kind_v6(icmp)? } else { kind_v4(icmp)? };
    let quoted = icmp.get(8..)?;
    let (src, dst, hl, quoted_len) = quoted_ip(quoted)?;
    let tcp = quoted.get(hl..hl + 8)?;
    Some(IcmpQuote {
        packet_index,
        ts_ns,
        kind,
        mtu: mtu.filter(|&m| m > 0),
        reporter: outer.src,
        src,
        dst,
        src_port: u16::from_be_bytes([tcp[0], tcp[1]]),
        dst_port: u16::from_be_bytes([tcp[2], tcp[3]]),
        seq: u32::from_be_bytes([tcp[4], tcp[5], tcp[6], tcp[7]]),
        quoted_len,
    })
}

/// (kind, MTU) of an ICMPv4 message (RFC 792), if an error this module reads.
fn kind_v4(icmp: &[u8]) -> Option<(IcmpKind, Option<u32>)> {
    let (&t, &code) = (icmp.first()?, icmp.get(1)?);
    match (t, code) {
        (3, 4) => Some((IcmpKind::FragNeeded, Some(u32::from(u16::from_be_bytes([*icmp.get(6)?, *icmp.get(7)?]))))),
        (3, 0) => Some((IcmpKind::NetUnreachable, None)),
        (3, 1) => Some((IcmpKind::HostUnreachable, None)),
        (3, 2) => Some((IcmpKind::ProtocolUnreachable, None)),
        (3, 3) => Some((IcmpKind::PortUnreachable, None)),
        (3, 9 | 10 | 13) => Some((IcmpKind::AdminProhibited, None)),
        (3, _) => Some((IcmpKind::Unreachable, None)),
        (11, _) => Some((IcmpKind::TimeExceeded, None)),
        _ => None,
    }
}

/// (kind, MTU) of an ICMPv6 message (RFC 4443 §3), if an error this module reads.
fn kind_v6(icmp: &[u8]) -> Option<(IcmpKind, Option<u32>)> {
    let (&t, &code) = (icmp.first()?, icmp.get(1)?);
    match (t, code) {
        (2, _) => Some((IcmpKind::PacketTooBig, Some(u32::from_be_bytes(icmp.get(4..8)?.try_into().ok()?)))),
        (1, 0) => Some((IcmpKind::NetUnreachable, None)),
        (1, 1 | 5 | 6) => Some((IcmpKind::AdminProhibited, None)),
        (1, 3) => Some((IcmpKind::HostUnreachable, None)),
        (1, 4) => Some((IcmpKind::PortUnreachable, None)),
        (1, _) => Some((IcmpKind::Unreachable, None)),
        (3, _) => Some((IcmpKind::TimeExceeded, None)),
        _ => None,
    }
}

/// (source, destination, offset of the TCP header, IP length) of a quoted packet that
/// carries TCP and is not a later fragment (only a first one holds the TCP header).
fn quoted_ip(q: &[u8]) -> Option<(IpAddr, IpAddr, usize, u32)> {
    match q.first()? >> 4 {
        4 => {
            let h = super::ip::Ipv4Header::parse(q).ok()?;
            (h.protocol() == PROTO_TCP && h.fragment_offset() == 0).then_some(())?;
            Some((IpAddr::V4(h.src()), IpAddr::V4(h.dst()), h.header_len(), u32::from(h.total_len())))
        }
        6 => {
            // The quote is cut, so the payload length is the original's, not the quote's.
            let h = super::ip::Ipv6Header::parse(q).ok()?;
            let p = parse_ipv6(q, 0).ok()?;
            (p.protocol == PROTO_TCP).then_some(())?;
            Some((IpAddr::V6(h.src()), IpAddr::V6(h.dst()), p.payload_offset, u32::from(h.payload_len()) + 40))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An Ethernet frame: IPv4 from 10.0.0.254 to 10.0.0.1, ICMP `icmp_head` (8 bytes)
    /// quoting a 1,645-byte IPv4 TCP packet 10.0.0.1:40000 → 10.0.0.2:80, seq 0x01020304.
    fn frame_v4(icmp_head: [u8; 8]) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x08, 0x00]);
        let inner_ip = [0x45, 0, 0x06, 0x6d, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2];
        let inner_tcp = [0x9c, 0x40, 0, 80, 1, 2, 3, 4];
        let total = (20 + 8 + inner_ip.len() + inner_tcp.len()) as u16;
        f.extend_from_slice(&[0x45, 0, (total >> 8) as u8, total as u8, 0, 0, 0, 0, 255, 1, 0, 0, 10, 0, 0, 254, 10, 0, 0, 1]);
        f.extend_from_slice(&icmp_head);
        f.extend_from_slice(&inner_ip);
        f.extend_from_slice(&inner_tcp);
        f
    }

    /// RFC 1191 §4: next-hop MTU 1500 in the second half of the "unused" word.
    #[test]
    fn frag_needed_names_mtu_segment_and_size() {
        let q = read(1, &frame_v4([3, 4, 0, 0, 0, 0, 0x05, 0xdc]), 8, 99).unwrap();
        assert_eq!((q.kind, q.mtu, q.quoted_len, q.seq), (IcmpKind::FragNeeded, Some(1500), 1645, 0x0102_0304));
        assert_eq!((q.src.to_string(), q.src_port, q.dst.to_string(), q.dst_port), ("10.0.0.1".into(), 40000, "10.0.0.2".into(), 80));
        assert_eq!((q.reporter.to_string(), q.packet_index, q.ts_ns), ("10.0.0.254".into(), 8, 99));
        // A pre-RFC 1191 router leaves the MTU 0: unknown, not 0.
        assert_eq!(read(1, &frame_v4([3, 4, 0, 0, 0, 0, 0, 0]), 0, 0).unwrap().mtu, None);
        assert_eq!(read(1, &frame_v4([3, 3, 0, 0, 0, 0, 0, 0]), 0, 0).unwrap().kind, IcmpKind::PortUnreachable);
        assert_eq!(read(1, &frame_v4([11, 0, 0, 0, 0, 0, 0, 0]), 0, 0).unwrap().kind, IcmpKind::TimeExceeded);
        // An echo reply (type 0) quotes nothing; a quote cut inside the TCP ports is not read.
        assert_eq!(read(1, &frame_v4([0, 0, 0, 0, 0, 0, 0, 0]), 0, 0), None);
        let f = frame_v4([3, 4, 0, 0, 0, 0, 0x05, 0xdc]);
        assert_eq!(read(1, &f[..f.len() - 5], 0, 0), None);
    }

    /// RFC 4443 §3.2: packet too big, MTU 1280 in bytes 4–7, quoting 2001:db8::1 → ::2.
    #[test]
    fn packet_too_big_v6() {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x86, 0xdd]);
        let addr = |last: u8| {
            let mut a = vec![0x20, 0x01, 0x0d, 0xb8];
            a.extend_from_slice(&[0; 11]);
            a.push(last);
            a
        };
        let mut inner = vec![0x60, 0, 0, 0, 0x05, 0xa0, 6, 64]; // payload 1440, TCP
        inner.extend(addr(1));
        inner.extend(addr(2));
        inner.extend_from_slice(&[0x9c, 0x40, 0, 80, 0, 0, 0, 9]);
        let icmp_len = 8 + inner.len() as u16;
        f.extend_from_slice(&[0x60, 0, 0, 0, (icmp_len >> 8) as u8, icmp_len as u8, 58, 64]);
        f.extend(addr(0xfe));
        f.extend(addr(1));
        f.extend_from_slice(&[2, 0, 0, 0, 0, 0, 0x05, 0x00]);
        f.extend(inner);
        let q = read(1, &f, 0, 0).unwrap();
        assert_eq!((q.kind, q.mtu, q.quoted_len, q.seq, q.src_port), (IcmpKind::PacketTooBig, Some(1280), 1480, 9, 40000));
        assert_eq!(q.reporter.to_string(), "2001:db8::fe");
    }
}
