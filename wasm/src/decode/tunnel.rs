//! Tunnels: an IP packet that carries another IP packet. Captures taken on a tunnel's
//! underlay hold the TCP connections only inside it — a mobile core (GTP-U), a cloud
//! traffic mirror (VXLAN: AWS VPC Traffic Mirroring; Geneve: AWS Gateway Load
//! Balancer), a port mirror sent over GRE (ERSPAN), 6in4 / 4in6 transition tunnels.
//! Without these the whole capture read as "IP packets that are not TCP".
//!
//! `inner` looks at one IP packet's payload and says where the packet inside starts;
//! `packet.rs` `decode_frame` follows tunnels up to [`MAX_DEPTH`] deep and analyses the
//! innermost TCP segment: its addresses and ports name the connection, as Wireshark's
//! `tcp.stream` does (it too dissects the inner packet and keys on its addresses).
//! `capture.bytes` and `direction.bytes` still count whole frames, outer headers
//! included.

use super::ethertype::{be16, ethertype, raw, Located};
use super::WarningKind;

/// Tunnels inside tunnels followed at most this deep (GTP-U inside VXLAN is two).
pub const MAX_DEPTH: usize = 4;

/// IANA protocol numbers of the IP-in-IP tunnels.
const PROTO_IPV4: u8 = 4; // RFC 2003
const PROTO_IPV6: u8 = 41; // RFC 4213 §3.5 (6in4), RFC 2473 (IPv6 in IPv6)
const PROTO_GRE: u8 = 47; // RFC 2784, RFC 2890
const PROTO_UDP: u8 = 17;

/// UDP ports of the tunnels below (IANA service names: vxlan, geneve, gtp-user).
const PORT_VXLAN: u16 = 4789;
const PORT_GENEVE: u16 = 6081;
const PORT_GTP_U: u16 = 2152;

/// GRE protocol types beyond the Ethertypes `ethertype()` follows.
const GRE_TEB: u16 = 0x6558; // Transparent Ethernet Bridging (RFC 1701; NVGRE, RFC 7637)
const GRE_ERSPAN_II: u16 = 0x88BE; // ERSPAN type I / II (draft-foschiano-erspan §4.1–4.2)
const GRE_ERSPAN_III: u16 = 0x22EB; // ERSPAN type III (draft-foschiano-erspan §4.3)

/// Where the packet inside the IP payload `p` starts (offset into `p`), or `None` when
/// `p` is not a tunnel this decoder follows. `payload_len` is the IP payload's length
/// on the wire (`p` may be shorter: snaplen); the inner packet's `max_len` is bounded by
/// what is left of it, so an outer trailer is never read as TCP data.
pub fn inner(protocol: u8, p: &[u8], payload_len: u32) -> Option<Result<Located, WarningKind>> {
    let located = match protocol {
        PROTO_IPV4 | PROTO_IPV6 => raw(p, 0),
        PROTO_GRE => gre(p)?,
        PROTO_UDP => udp(p)?,
        _ => return None,
    };
    Some(located.map(|mut l| {
        let room = payload_len.saturating_sub(l.offset as u32);
        l.max_len = Some(l.max_len.map_or(room, |m| m.min(room)));
        l
    }))
}

/// An Ethernet frame at `off` (dst, src, Ethertype; VLAN tags and the rest through
/// `ethertype()`).
fn ethernet(p: &[u8], off: usize) -> Result<Located, WarningKind> {
    if p.len() < off + 14 {
        return Err(WarningKind::TruncatedHeaders);
    }
    ethertype(p, off + 14, be16(p, off + 12))
}

/// GRE (RFC 2784 §2, with RFC 2890's key and sequence number): 4 bytes, then 4 more for
/// each of the C, K and S bits. Version 1 (PPTP's enhanced GRE, RFC 2637) carries PPP,
/// usually compressed or encrypted: not followed.
fn gre(p: &[u8]) -> Option<Result<Located, WarningKind>> {
    let h = match p.get(..4) {
        Some(h) => h,
        None => return Some(Err(WarningKind::TruncatedHeaders)),
    };
    if h[1] & 0x07 != 0 {
        return None;
    }
    let seq = h[0] & 0x10 != 0;
    let off = 4 + 4 * [0x80u8, 0x20, 0x10].iter().filter(|&&bit| h[0] & bit != 0).count();
    Some(match be16(h, 2) {
        GRE_TEB => ethernet(p, off),
        // Type I has no sequence number and no ERSPAN header; type II's is 8 bytes.
        GRE_ERSPAN_II => ethernet(p, off + if seq { 8 } else { 0 }),
        GRE_ERSPAN_III => erspan_iii(p, off),
        t => ethertype(p, off, t),
    })
}

/// ERSPAN type III header (12 bytes; its O bit adds an 8-byte platform-specific
/// subheader). Frame type (FT) 0 is Ethernet; others are not followed.
fn erspan_iii(p: &[u8], off: usize) -> Result<Located, WarningKind> {
    let h = p.get(off..off + 12).ok_or(WarningKind::TruncatedHeaders)?;
    if (h[10] >> 2) & 0x1F != 0 {
        return Err(WarningKind::NotIp);
    }
    let sub = if h[11] & 0x01 != 0 { 8 } else { 0 };
    ethernet(p, off + 12 + sub)
}

/// UDP (RFC 768): VXLAN, Geneve or GTP-U by either port.
fn udp(p: &[u8]) -> Option<Result<Located, WarningKind>> {
    let h = p.get(..8)?;
    let (src, dst) = (be16(h, 0), be16(h, 2));
    let is = |port| src == port || dst == port;
    let body = &p[8..];
    let at = |r: Result<Located, WarningKind>| r.map(|l| Located { offset: l.offset + 8, ..l });
    if is(PORT_VXLAN) {
        // RFC 7348 §5: 8-byte header whose I flag (0x08) says the VNI is valid.
        let h = match body.get(..8) {
            Some(h) => h,
            None => return Some(Err(WarningKind::TruncatedHeaders)),
        };
        if h[0] & 0x08 == 0 {
            return None;
        }
        return Some(at(ethernet(body, 8)));
    }
    if is(PORT_GENEVE) {
        // RFC 8926 §3.4: version 0, options length in 4-byte words, protocol type
        // (0x6558 Ethernet, or an Ethertype).
        let h = match body.get(..8) {
            Some(h) => h,
            None => return Some(Err(WarningKind::TruncatedHeaders)),
        };
        if h[0] >> 6 != 0 {
            return None;
        }
        let off = 8 + 4 * usize::from(h[0] & 0x3F);
        return Some(at(match be16(h, 2) {
            GRE_TEB => ethernet(body, off),
            t => ethertype(body, off, t),
        }));
    }
    if is(PORT_GTP_U) {
        return gtp_u(body).map(at);
    }
    None
}

/// GTP-U (3GPP TS 29.281 §5.1): version 1, PT 1, message type 255 (G-PDU) carries a
/// user packet (IPv4 or IPv6, by its version nibble). 8 bytes; 4 more when any of the
/// E, S, PN flags is set; then, with E, extension headers, each `4 × its length byte`
/// long and ending with the next one's type (0 = none).
fn gtp_u(p: &[u8]) -> Option<Result<Located, WarningKind>> {
    let h = p.get(..8)?;
    if h[0] >> 5 != 1 || h[0] & 0x10 == 0 || h[1] != 0xFF {
        return None; // GTP' or a signalling message (echo, error indication, ...)
    }
    if h[0] & 0x07 == 0 {
        return Some(raw(p, 8));
    }
    let mut off = 12;
    let mut next = match p.get(11) {
        Some(&n) if h[0] & 0x04 != 0 => n,
        Some(_) => 0,
        None => return Some(Err(WarningKind::TruncatedHeaders)),
    };
    while next != 0 {
        let len = match p.get(off) {
            Some(&0) => return Some(Err(WarningKind::MalformedPacket)),
            Some(&l) => 4 * usize::from(l),
            None => return Some(Err(WarningKind::TruncatedHeaders)),
        };
        next = match p.get(off + len - 1) {
            Some(&n) => n,
            None => return Some(Err(WarningKind::TruncatedHeaders)),
        };
        off += len;
    }
    Some(raw(p, off))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::ethertype::Net;

    const ETH_V4: [u8; 14] = [0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x08, 0x00];

    #[test]
    fn ip_in_ip() {
        // 6in4: an IPv6 header right after the IPv4 one; bounded by the outer payload.
        assert_eq!(inner(41, &[0x60, 0, 0, 0], 60), Some(Ok(Located { net: Net::Ipv6, offset: 0, max_len: Some(60) })));
        assert_eq!(inner(4, &[0x45], 40), Some(Ok(Located { net: Net::Ipv4, offset: 0, max_len: Some(40) })));
        assert_eq!(inner(6, &[0x45], 40), None);
    }

    #[test]
    fn gre_flags_and_payloads() {
        // Key and sequence present (K|S): 12 bytes of GRE, then IPv4.
        let mut b = vec![0x30, 0, 0x08, 0x00, 0, 0, 0, 1, 0, 0, 0, 2, 0x45];
        assert_eq!(inner(47, &b, 100), Some(Ok(Located { net: Net::Ipv4, offset: 12, max_len: Some(88) })));
        // Transparent Ethernet Bridging: an Ethernet frame after the 4-byte header.
        b = [&[0x00, 0, 0x65, 0x58][..], &ETH_V4, &[0x45]].concat();
        assert_eq!(inner(47, &b, 100).unwrap().unwrap().offset, 18);
        // ERSPAN type II: sequence number, 8-byte ERSPAN header, Ethernet.
        b = [&[0x10, 0, 0x88, 0xBE, 0, 0, 0, 7][..], &[0x10, 0, 0, 1, 0, 0, 0, 0], &ETH_V4, &[0x45]].concat();
        assert_eq!(inner(47, &b, 100).unwrap().unwrap().offset, 30);
        // PPTP's enhanced GRE (version 1) is not followed.
        assert_eq!(inner(47, &[0x30, 0x81, 0x88, 0x0B], 100), None);
        assert_eq!(inner(47, &[0x00, 0], 100), Some(Err(WarningKind::TruncatedHeaders)));
    }

    #[test]
    fn udp_tunnels() {
        let udp = |port: u16| vec![0xC0, 0x00, (port >> 8) as u8, port as u8, 0, 0, 0, 0];
        // VXLAN: UDP 8 + VXLAN 8 + Ethernet 14.
        let b = [udp(4789), vec![0x08, 0, 0, 0, 0, 0, 1, 0], ETH_V4.to_vec(), vec![0x45]].concat();
        assert_eq!(inner(17, &b, 200), Some(Ok(Located { net: Net::Ipv4, offset: 30, max_len: Some(170) })));
        // Geneve with one 4-byte word of options carrying IPv6 directly.
        let b = [udp(6081), vec![0x01, 0, 0x86, 0xDD, 0, 0, 1, 0, 1, 2, 3, 4, 0x60]].concat();
        assert_eq!(inner(17, &b, 200).unwrap().unwrap().offset, 20);
        // GTP-U G-PDU with S set and one extension header (PDU session container).
        let b = [udp(2152), vec![0x36, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x85, 1, 0x10, 0x01, 0x00, 0x45]].concat();
        assert_eq!(inner(17, &b, 200).unwrap().unwrap().offset, 24);
        // GTP-U echo request: not a user packet.
        assert_eq!(inner(17, &[udp(2152), vec![0x32, 0x01, 0, 4, 0, 0, 0, 0]].concat(), 200), None);
        // DNS is not a tunnel.
        assert_eq!(inner(17, &udp(53), 200), None);
    }
}
