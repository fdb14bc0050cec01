//! Protocol chains shared by every link layer: Ethertypes (through VLAN and other
//! fixed-length tags, MPLS label stacks and PPPoE sessions), LLC/SNAP, and the PPP
//! protocol field. Link headers (link.rs, wifi.rs, ppi.rs, pktap.rs) find where their
//! payload starts and call in here; nothing in here calls back out, so data flows
//! one way.

use super::WarningKind;

/// The network layer a frame carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Net {
    Ipv4,
    Ipv6,
}

/// Where the IP header is, and how long the link layer says the IP packet may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Located {
    pub net: Net,
    /// Offset of the IP header in the frame.
    pub offset: usize,
    /// Bytes the link layer gives the IP packet (PPPoE's length field, RFC 2516 §4);
    /// None when the link layer does not say.
    pub max_len: Option<u32>,
}

impl Located {
    pub fn at(net: Net, offset: usize) -> Located {
        Located { net, offset, max_len: None }
    }
}

pub(crate) fn be16(b: &[u8], at: usize) -> u16 {
    match b.get(at..at + 2) {
        Some(x) => u16::from_be_bytes([x[0], x[1]]),
        None => 0,
    }
}

/// Raw IP: the version nibble says which (RFC 791 §3.1, RFC 8200 §3).
pub(crate) fn raw(b: &[u8], off: usize) -> Result<Located, WarningKind> {
    match b.get(off).map(|v| v >> 4) {
        Some(4) => Ok(Located::at(Net::Ipv4, off)),
        Some(6) => Ok(Located::at(Net::Ipv6, off)),
        Some(_) => Err(WarningKind::NotIp),
        None => Err(WarningKind::TruncatedHeaders),
    }
}

/// LLC/SNAP header (AA AA 03, 3-byte OUI, Ethertype; RFC 1042) at `off`.
pub(crate) fn snap(b: &[u8], off: usize) -> Result<Located, WarningKind> {
    let h = b.get(off..off + 8).ok_or(WarningKind::TruncatedHeaders)?;
    if h[..3] != [0xAA, 0xAA, 0x03] {
        return Err(WarningKind::NotIp);
    }
    ethertype(b, off + 8, be16(h, 6))
}

/// Ethertypes (IEEE "EtherType" registry) this decoder follows.
pub mod ethertypes {
    pub const IPV4: u16 = 0x0800;
    pub const IPV6: u16 = 0x86DD;
    pub const MPLS_UNICAST: u16 = 0x8847;
    pub const MPLS_MULTICAST: u16 = 0x8848;
    pub const PPPOE_SESSION: u16 = 0x8864;
}

/// Tags of a fixed length that sit between an Ethertype and the next one, as
/// (Ethertype, bytes from the end of that Ethertype to the end of the next). Each is
/// skipped the way Wireshark's dissector hands the rest to its Ethertype table:
/// - VLAN tags: 802.1Q 0x8100, 802.1ad 0x88A8, pre-standard QinQ 0x9100/0x9200 —
///   2 bytes TCI (IEEE 802.1Q §9.6);
/// - Cisco MetaData 0x8909 (Security Group Tag on TrustSec links): version, length,
///   option type/length and the 2-byte SGT — 6 bytes (Wireshark
///   packet-cisco-metadata.c: the inner Ethertype at offset 6, payload at 8);
/// - Cisco VN-Tag 0x8926 (a fabric extender's port tag): 4 bytes of direction,
///   pointer, destination and source VIFs (Wireshark packet-vntag.c, payload at 6);
/// - 802.1BR E-Tag 0x893F (a port extender's tag): 6 bytes of E-PCP/DEI, ingress and
///   E-CID fields (IEEE 802.1BR-2012 §7.5; Wireshark packet-etag.c IEEE8021BR_LEN 8
///   with the Ethertype);
/// - 802.1ah Provider Backbone Bridging 0x88E7: the 4-byte I-TAG (PCP, DEI, UCA,
///   24-bit I-SID) and the customer frame's destination and source addresses, then
///   its Ethertype (IEEE 802.1ah-2008's I-TAG; Wireshark packet-ieee8021ah.c
///   IEEE8021AH_LEN 18).
///
/// Not here: 802.1AE MACsec (0x88E5) encrypts or at least authenticates with a
/// variable SecTAG and an ICV trailer, so what follows is no Ethertype to trust.
const FIXED_TAGS: [(u16, usize); 8] =
    [(0x8100, 2), (0x88A8, 2), (0x9100, 2), (0x9200, 2), (0x8909, 6), (0x8926, 4), (0x893F, 6), (0x88E7, 16)];

/// Follow an Ethertype through fixed-length tags (`FIXED_TAGS`: VLAN tags at any
/// depth, Cisco MetaData, VN-Tag, E-Tag, PBB), MPLS label stacks (RFC 3032) and PPPoE
/// sessions (RFC 2516) to IP. Tags nest in any order; each step moves forward at
/// least 4 bytes, so the loop ends at the frame's end.
#[inline]
pub(crate) fn ethertype(b: &[u8], mut off: usize, mut t: u16) -> Result<Located, WarningKind> {
    use ethertypes::*;
    loop {
        match t {
            IPV4 => return Ok(Located::at(Net::Ipv4, off)),
            IPV6 => return Ok(Located::at(Net::Ipv6, off)),
            MPLS_UNICAST | MPLS_MULTICAST => return mpls(b, off),
            PPPOE_SESSION => return pppoe_session(b, off),
            _ => {
                let Some(&(_, skip)) = FIXED_TAGS.iter().find(|&&(tag, _)| tag == t) else {
                    return Err(WarningKind::NotIp);
                };
                // The tag's fields, then the next Ethertype.
                let tag = b.get(off..off + skip + 2).ok_or(WarningKind::TruncatedHeaders)?;
                t = be16(tag, skip);
                off += skip + 2;
            }
        }
    }
}

/// PPPoE session stage (RFC 2516 §4): ver/type, code, session id, LENGTH, then a PPP
/// payload of LENGTH bytes (protocol field included). Whatever follows is Ethernet
/// padding, so the IP packet may be no longer than LENGTH minus the protocol field:
/// a larger IP total length is cut there, as Wireshark does (its PPPoE dissector
/// hands PPP a buffer of LENGTH bytes).
fn pppoe_session(b: &[u8], off: usize) -> Result<Located, WarningKind> {
    let h = b.get(off..off + 6).ok_or(WarningKind::TruncatedHeaders)?;
    let end = off + 6 + usize::from(be16(h, 4));
    let (proto, proto_len) = ppp_protocol(b, off + 6)?;
    let mut inner = ppp_payload(b, off + 6 + proto_len, proto)?;
    let room = end.saturating_sub(inner.offset) as u32;
    inner.max_len = Some(inner.max_len.map_or(room, |m| m.min(room)));
    Ok(inner)
}

/// The PPP Protocol field at `off` (RFC 1661 §2): two bytes, or one when Protocol-
/// Field-Compression is in use (RFC 1661 §6.5: a protocol whose first byte is odd was
/// sent as that one byte, e.g. 0x21 for IPv4). Returns (protocol, bytes it took).
pub(crate) fn ppp_protocol(b: &[u8], off: usize) -> Result<(u16, usize), WarningKind> {
    let first = *b.get(off).ok_or(WarningKind::TruncatedHeaders)?;
    if first & 1 == 1 {
        return Ok((u16::from(first), 1));
    }
    let second = *b.get(off + 1).ok_or(WarningKind::TruncatedHeaders)?;
    Ok((u16::from_be_bytes([first, second]), 2))
}

/// What a PPP protocol number carries (IANA "PPP DLL Protocol Numbers"): IPv4 0x0021,
/// IPv6 0x0057, MPLS unicast 0x0281 and multicast 0x0283 (RFC 3032 §4.3).
pub(crate) fn ppp_payload(b: &[u8], off: usize, proto: u16) -> Result<Located, WarningKind> {
    match proto {
        0x0021 => Ok(Located::at(Net::Ipv4, off)),
        0x0057 => Ok(Located::at(Net::Ipv6, off)),
        0x0281 | 0x0283 => mpls(b, off),
        _ => Err(WarningKind::NotIp),
    }
}

/// An MPLS label stack (RFC 3032 §2.1): 4-byte entries until the one with the
/// bottom-of-stack bit. The stack does not say what it carries; like Wireshark
/// (packet-mpls.c), take the first nibble after it: 4 = IPv4, 6 = IPv6. Anything else
/// (pseudowire control words, Ethernet over MPLS) is not IP to this decoder.
pub(crate) fn mpls(b: &[u8], mut off: usize) -> Result<Located, WarningKind> {
    loop {
        let entry = b.get(off..off + 4).ok_or(WarningKind::TruncatedHeaders)?;
        off += 4;
        if entry[2] & 0x01 != 0 {
            return raw(b, off);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpls_stack_to_ip() {
        // Two labels (16, 17; S bit on the second), then IPv4; then IPv6.
        let b = [0, 1, 0, 64, 0, 1, 17 << 4 | 1, 64, 0x45];
        assert_eq!(mpls(&b, 0), Ok(Located::at(Net::Ipv4, 8)));
        assert_eq!(mpls(&[0, 0, 0x21, 64, 0x60], 0), Ok(Located::at(Net::Ipv6, 4)));
        // A pseudowire control word (first nibble 0) is not IP.
        assert_eq!(mpls(&[0, 0, 0x21, 64, 0x00, 0, 0, 0], 0), Err(WarningKind::NotIp));
        // Cut inside the stack.
        assert_eq!(mpls(&[0, 1, 0, 64, 0, 1], 0), Err(WarningKind::TruncatedHeaders));
    }

    #[test]
    fn fixed_tags_are_skipped_to_the_ethertype_after_them() {
        // Each tag's bytes (fields zero but for the SGT and I-SID), then IPv4's 0x0800:
        // the IP header starts right after, at the tag's length + 2.
        let cmd = [0x01, 0x01, 0x00, 0x01, 0x00, 0x02, 0x08, 0x00, 0x45];
        assert_eq!(ethertype(&cmd, 0, 0x8909), Ok(Located::at(Net::Ipv4, 8)));
        let vntag = [0x80, 0x01, 0x00, 0x02, 0x86, 0xDD, 0x60];
        assert_eq!(ethertype(&vntag, 0, 0x8926), Ok(Located::at(Net::Ipv6, 6)));
        let etag = [0, 0, 0, 5, 0, 0, 0x08, 0x00, 0x45];
        assert_eq!(ethertype(&etag, 0, 0x893F), Ok(Located::at(Net::Ipv4, 8)));
        let mut pbb = vec![0, 0, 0, 100]; // I-SID 100
        pbb.extend_from_slice(&[2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]); // C-DA, C-SA
        pbb.extend_from_slice(&[0x81, 0x00, 0, 5, 0x08, 0x00, 0x45]); // a C-tag, IPv4
        assert_eq!(ethertype(&pbb, 0, 0x88E7), Ok(Located::at(Net::Ipv4, 22)));
        // Cut inside a tag, or before the Ethertype after it.
        assert_eq!(ethertype(&cmd[..5], 0, 0x8909), Err(WarningKind::TruncatedHeaders));
        assert_eq!(ethertype(&cmd[..7], 0, 0x8909), Err(WarningKind::TruncatedHeaders));
        // MACsec is not followed.
        assert_eq!(ethertype(&[0x2c, 0, 0, 0, 0, 1, 0x08, 0x00, 0x45], 0, 0x88E5), Err(WarningKind::NotIp));
    }

    #[test]
    fn ppp_protocol_compression() {
        assert_eq!(ppp_protocol(&[0x00, 0x21], 0), Ok((0x21, 2)));
        assert_eq!(ppp_protocol(&[0x21, 0x45], 0), Ok((0x21, 1)));
        assert_eq!(ppp_protocol(&[0x02, 0x81], 0), Ok((0x0281, 2)));
        assert_eq!(ppp_protocol(&[0x00], 0), Err(WarningKind::TruncatedHeaders));
    }

    #[test]
    fn pppoe_length_bounds_the_ip_packet() {
        // ver/type 0x11, code 0, session 1, length 42 (2 protocol + 40 IP), IPv4.
        let b = [0x11, 0, 0, 1, 0, 42, 0x00, 0x21, 0x45];
        assert_eq!(pppoe_session(&b, 0), Ok(Located { net: Net::Ipv4, offset: 8, max_len: Some(40) }));
        // MPLS inside PPPoE: the bound is what is left after the label (46 - 2 - 4).
        let m = [0x11, 0, 0, 1, 0, 46, 0x02, 0x81, 0, 0, 0x21, 64, 0x60];
        assert_eq!(pppoe_session(&m, 0), Ok(Located { net: Net::Ipv6, offset: 12, max_len: Some(40) }));
    }
}
