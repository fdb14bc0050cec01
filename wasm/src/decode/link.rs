//! Link layers: find where the IP header starts in a captured frame.
//!
//! Link-type numbers and header layouts follow the tcpdump.org link-type list
//! (<https://www.tcpdump.org/linktypes.html>). Each function checks lengths before
//! reading; any cut is `TruncatedHeaders`, anything that is not IPv4/IPv6 is `NotIp`.
//! Headers that wrap another link type (PKTAP, PPI) say which, and the frame inside is
//! located the same way, one level deep.

use super::ethertype::{be16, ethertype, ppp_payload, ppp_protocol, raw, snap, Located, Net};
use super::radiotap::Radio;
use super::{nflog, pktap, ppi, radiotap, wifi, WarningKind};

/// Link-type numbers (LINKTYPE_* in the tcpdump list).
pub mod linktype {
    pub const NULL: u32 = 0;
    pub const ETHERNET: u32 = 1;
    /// DLT_RAW as defined on some BSDs; raw IP.
    pub const RAW_BSD_12: u32 = 12;
    /// DLT_RAW as defined on OpenBSD; raw IP.
    pub const RAW_BSD_14: u32 = 14;
    pub const RAW: u32 = 101;
    /// PPP (RFC 1661), optionally with HDLC-like address/control bytes (RFC 1662).
    pub const PPP: u32 = 9;
    /// PPP in HDLC-like framing (RFC 1662).
    pub const PPP_HDLC: u32 = 50;
    /// Cisco HDLC: routers' serial and POS interfaces (tcpdump.org link-type list).
    pub const C_HDLC: u32 = 104;
    pub const IEEE802_11: u32 = 105;
    /// OpenBSD loopback: like NULL but the family is always big-endian.
    pub const LOOP: u32 = 108;
    pub const LINUX_SLL: u32 = 113;
    pub const IEEE802_11_RADIOTAP: u32 = 127;
    /// DLT_USER2, which macOS 10.9 used for PKTAP in files.
    pub const USER2_PKTAP: u32 = 149;
    /// Per-Packet Information (CACE PPI).
    pub const PPI: u32 = 192;
    /// Apple PKTAP.
    pub const PKTAP: u32 = 258;
    pub const IPV4: u32 = 228;
    pub const IPV6: u32 = 229;
    /// Linux netfilter NFLOG (`tcpdump -i nflog:N`), see nflog.rs.
    pub const NFLOG: u32 = 239;
    pub const LINUX_SLL2: u32 = 276;
}

/// Name of a link type as shown in `CaptureInfo::link_types`.
pub fn link_type_name(lt: u32) -> String {
    use linktype::*;
    match lt {
        ETHERNET => "ethernet".into(),
        LINUX_SLL => "linux-sll".into(),
        LINUX_SLL2 => "linux-sll2".into(),
        RAW | RAW_BSD_12 | RAW_BSD_14 | IPV4 | IPV6 => "raw".into(),
        NULL | LOOP => "null".into(),
        IEEE802_11_RADIOTAP => "ieee802-11-radiotap".into(),
        IEEE802_11 => "ieee802-11".into(),
        PPP | PPP_HDLC => "ppp".into(),
        C_HDLC => "cisco-hdlc".into(),
        PPI => "ppi".into(),
        PKTAP | USER2_PKTAP => "pktap".into(),
        NFLOG => "nflog".into(),
        n => format!("linktype-{n}"),
    }
}

/// Whether the decoder understands this link type. Called once per packet, so it
/// must not allocate (it used to format `link_type_name` and test the prefix: a
/// String malloc/free per packet, ~5 % of native decode time, more under wasm).
pub fn is_supported(lt: u32) -> bool {
    use linktype::*;
    matches!(
        lt,
        ETHERNET | LINUX_SLL | LINUX_SLL2 | RAW | RAW_BSD_12 | RAW_BSD_14 | IPV4 | IPV6 | NULL | LOOP | IEEE802_11_RADIOTAP | IEEE802_11 | PPP | PPP_HDLC | C_HDLC | PPI | PKTAP | USER2_PKTAP | NFLOG
    )
}

/// Where the IP packet is in a frame, with what the link layer said about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkFrame {
    pub ip: Located,
    /// Offset of the 802.11 MAC header, on 802.11 frames.
    pub wifi_at: Option<usize>,
    /// Radio facts from a radiotap or PPI header.
    pub radio: Option<Radio>,
    /// An 802.11 A-MSDU of several subframes: how many follow the first, which is `ip`
    /// (`wifi::ieee80211`); they are not read.
    pub unread_subframes: u32,
}

impl From<Located> for LinkFrame {
    fn from(ip: Located) -> Self {
        LinkFrame { ip, wifi_at: None, radio: None, unread_subframes: 0 }
    }
}

/// Locate the IP header: the network protocol and its offset in `b`.
pub fn locate_ip(lt: u32, b: &[u8]) -> Result<(Net, usize), WarningKind> {
    locate(lt, b).map(|f| (f.ip.net, f.ip.offset))
}

/// Locate the IP packet of a frame of link type `lt`. Called once per packet: the
/// common link types take the inlined path; wrappers (PKTAP, PPI) go one level into
/// `unwrapped`, so nothing recurses (which also keeps this inlinable).
#[inline]
pub fn locate(lt: u32, b: &[u8]) -> Result<LinkFrame, WarningKind> {
    use linktype::*;
    match lt {
        ETHERNET => ethernet(b).map(LinkFrame::from),
        PKTAP | USER2_PKTAP | PPI => locate_wrapped(lt, b),
        _ => unwrapped(lt, b),
    }
}

#[inline(never)]
fn locate_wrapped(lt: u32, b: &[u8]) -> Result<LinkFrame, WarningKind> {
    use linktype::*;
    match lt {
        PKTAP | USER2_PKTAP => {
            let h = pktap::PktapHeader::parse(b)?;
            wrapped(h.dlt(), b, h.len())
        }
        PPI => {
            let p = ppi::parse(b)?;
            if p.failed_check {
                return Err(WarningKind::BadFcs);
            }
            let mut f = wrapped(p.dlt, b, p.len)?;
            f.radio = f.radio.or(p.radio);
            Ok(f)
        }
        _ => unwrapped(lt, b),
    }
}

/// Link types that do not wrap another one.
#[inline]
fn unwrapped(lt: u32, b: &[u8]) -> Result<LinkFrame, WarningKind> {
    use linktype::*;
    match lt {
        IEEE802_11_RADIOTAP => {
            let rt = radiotap::parse(b)?;
            // Flags 0x40, "frame failed FCS check" (radiotap.org, Flags): the radio
            // that received it dropped it; a driver passes it up only in monitor mode.
            if rt.flags.is_some_and(|f| f & 0x40 != 0) {
                return Err(WarningKind::BadFcs);
            }
            let pad = rt.flags.is_some_and(|f| f & 0x20 != 0);
            let (ip, unread_subframes) = wifi::ieee80211(b, rt.len, pad)?;
            Ok(LinkFrame { ip, wifi_at: Some(rt.len), radio: Some(rt.radio), unread_subframes })
        }
        IEEE802_11 => {
            let (ip, unread_subframes) = wifi::ieee80211(b, 0, false)?;
            Ok(LinkFrame { ip, wifi_at: Some(0), radio: None, unread_subframes })
        }
        _ => locate_plain(lt, b).map(LinkFrame::from),
    }
}

/// The frame of link type `dlt` that starts `at` bytes into a PKTAP or PPI record.
/// Those headers hold the capturing host's DLT_ number, which equals the LINKTYPE_
/// number except for DLT_RAW (12 on macOS, 14 on OpenBSD), both raw IP here too.
/// Wrappers do not nest (one level deep, so no recursion on hostile input).
fn wrapped(dlt: u32, b: &[u8], at: usize) -> Result<LinkFrame, WarningKind> {
    use linktype::*;
    if matches!(dlt, PKTAP | USER2_PKTAP | PPI) {
        return Err(WarningKind::MalformedPacket);
    }
    let mut f = unwrapped(dlt, b.get(at..).ok_or(WarningKind::TruncatedHeaders)?)?;
    f.ip.offset += at;
    f.wifi_at = f.wifi_at.map(|w| w + at);
    Ok(f)
}

/// Link types with no radio or wrapper header.
fn locate_plain(lt: u32, b: &[u8]) -> Result<Located, WarningKind> {
    use linktype::*;
    match lt {
        ETHERNET => ethernet(b),
        LINUX_SLL => {
            // 16-byte header; protocol (an Ethertype for ordinary devices) at 14.
            let h = b.get(..16).ok_or(WarningKind::TruncatedHeaders)?;
            ethertype(b, 16, be16(h, 14))
        }
        LINUX_SLL2 => {
            // 20-byte header; protocol type first.
            let h = b.get(..20).ok_or(WarningKind::TruncatedHeaders)?;
            ethertype(b, 20, be16(h, 0))
        }
        RAW | RAW_BSD_12 | RAW_BSD_14 | IPV4 | IPV6 => raw(b, 0),
        NULL | LOOP => null(b),
        PPP | PPP_HDLC => ppp(b),
        C_HDLC => cisco_hdlc(b),
        NFLOG => nflog::locate(b),
        _ => Err(WarningKind::UnknownLinkType),
    }
}

/// PPP (LINKTYPE_PPP 9, PPP_HDLC 50): "if the first 2 bytes are 0xff and 0x03, it's
/// PPP in HDLC-like framing, with the PPP header following those two bytes, otherwise
/// it's PPP without framing" (tcpdump.org link-type list; Address-and-Control-Field-
/// Compression, RFC 1661 §6.6). Then the protocol field, possibly compressed.
/// A file marked PPP may hold Cisco HDLC frames (a router's serial link captured as
/// "PPP"): both tcpdump (print-ppp.c `ppp_hdlc_if_print`) and Wireshark
/// (packet-ppp.c `dissect_ppp_hdlc`) read a frame whose first byte is a Cisco HDLC
/// address as Cisco HDLC. PPP could never start so: an uncompressed protocol field's
/// first octet is even (RFC 1661 §2), a compressed one names no protocol below 0x21.
fn ppp(b: &[u8]) -> Result<Located, WarningKind> {
    if matches!(b.first(), Some(&(CHDLC_UNICAST | CHDLC_BROADCAST))) {
        return cisco_hdlc(b);
    }
    let start = if b.starts_with(&[0xff, 0x03]) { 2 } else { 0 };
    let (proto, len) = ppp_protocol(b, start)?;
    ppp_payload(b, start + len, proto)
}

/// Cisco HDLC address bytes (tcpdump's chdlc.h: CHDLC_UNICAST, CHDLC_BCAST).
const CHDLC_UNICAST: u8 = 0x0f;
const CHDLC_BROADCAST: u8 = 0x8f;

/// Cisco HDLC (LINKTYPE_C_HDLC 104): address (0x0f unicast, 0x8f broadcast), control
/// (0x00) and a 2-byte Ethertype, then the packet (tcpdump.org link-type list;
/// tcpdump print-chdlc.c). The Ethertype is followed as on Ethernet (MPLS, …); SLARP
/// (0x8035) and CDP keepalives are not IP.
fn cisco_hdlc(b: &[u8]) -> Result<Located, WarningKind> {
    let h = b.get(..4).ok_or(WarningKind::TruncatedHeaders)?;
    ethertype(b, 4, be16(h, 2))
}

/// Ethernet II (IEEE 802.3 with Ethertype). Lengths ≤ 1500 in the type field mean an
/// 802.3 length followed by LLC; only LLC/SNAP can carry IP then (RFC 1042).
#[inline]
fn ethernet(b: &[u8]) -> Result<Located, WarningKind> {
    let h = b.get(..14).ok_or(WarningKind::TruncatedHeaders)?;
    let t = be16(h, 12);
    if t <= 1500 {
        return snap(b, 14);
    }
    ethertype(b, 14, t)
}

/// BSD loopback: a 4-byte address family in the byte order of the host that wrote
/// it (LOOP: always big-endian). AF_INET is 2 everywhere; AF_INET6 is 24 (NetBSD,
/// OpenBSD, BSD/OS), 28 (FreeBSD, DragonFly) or 30 (macOS), per the tcpdump list.
/// The family is small, so a value with non-zero upper 16 bits is the other order.
fn null(b: &[u8]) -> Result<Located, WarningKind> {
    let h = b.get(..4).ok_or(WarningKind::TruncatedHeaders)?;
    let le = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
    let family = if le > 0xFFFF { le.swap_bytes() } else { le };
    match family {
        2 => Ok(Located::at(Net::Ipv4, 4)),
        24 | 28 | 30 => Ok(Located::at(Net::Ipv6, 4)),
        _ => Err(WarningKind::NotIp),
    }
}

#[cfg(test)]
mod tests {
    use super::linktype::*;
    use super::*;
    use crate::decode::wifi::tests::qos_data;

    fn eth(types: &[u8]) -> Vec<u8> {
        let mut b = vec![0u8; 12];
        b.extend_from_slice(types);
        b.extend_from_slice(&[0x45, 0, 0, 20]);
        b
    }

    #[test]
    fn ethernet_plain_vlan_qinq() {
        assert_eq!(locate_ip(ETHERNET, &eth(&[0x08, 0x00])), Ok((Net::Ipv4, 14)));
        let one = eth(&[0x81, 0x00, 0x00, 0x05, 0x86, 0xdd]);
        assert_eq!(locate_ip(ETHERNET, &one), Ok((Net::Ipv6, 18)));
        let qinq = eth(&[0x88, 0xa8, 0, 1, 0x81, 0x00, 0, 2, 0x81, 0x00, 0, 3, 0x08, 0x00]);
        assert_eq!(locate_ip(ETHERNET, &qinq), Ok((Net::Ipv4, 26)));
        assert_eq!(locate_ip(ETHERNET, &eth(&[0x08, 0x06])), Err(WarningKind::NotIp));
        assert_eq!(locate_ip(ETHERNET, &qinq[..20]), Err(WarningKind::TruncatedHeaders));
        assert_eq!(locate_ip(ETHERNET, &[0u8; 13]), Err(WarningKind::TruncatedHeaders));
    }

    #[test]
    fn ethernet_llc_snap_and_pppoe() {
        let snap_frame = eth(&[0x00, 0x30, 0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00]);
        assert_eq!(locate_ip(ETHERNET, &snap_frame), Ok((Net::Ipv4, 22)));
        let stp = eth(&[0x00, 0x30, 0x42, 0x42, 0x03, 0, 0, 0, 0, 0]);
        assert_eq!(locate_ip(ETHERNET, &stp), Err(WarningKind::NotIp));
        let pppoe = eth(&[0x88, 0x64, 0x11, 0, 0, 1, 0, 20, 0x00, 0x21]);
        assert_eq!(locate_ip(ETHERNET, &pppoe), Ok((Net::Ipv4, 22)));
    }

    #[test]
    fn cisco_hdlc_alone_and_in_a_ppp_file() {
        let v4 = [0x0f, 0x00, 0x08, 0x00, 0x45];
        assert_eq!(locate_ip(C_HDLC, &v4), Ok((Net::Ipv4, 4)));
        // Broadcast address, IPv6, in files marked PPP or PPP in HDLC framing.
        let v6 = [0x8f, 0x00, 0x86, 0xdd, 0x60];
        assert_eq!(locate_ip(PPP, &v6), Ok((Net::Ipv6, 4)));
        assert_eq!(locate_ip(PPP_HDLC, &v6), Ok((Net::Ipv6, 4)));
        // SLARP (0x8035), the keepalives of a Cisco serial link, is not IP.
        assert_eq!(locate_ip(C_HDLC, &[0x8f, 0x00, 0x80, 0x35, 0, 0, 0, 2]), Err(WarningKind::NotIp));
        assert_eq!(locate_ip(C_HDLC, &[0x0f, 0x00, 0x08]), Err(WarningKind::TruncatedHeaders));
        // PPP's own framing is unchanged.
        assert_eq!(locate_ip(PPP, &[0xff, 0x03, 0x00, 0x21, 0x45]), Ok((Net::Ipv4, 4)));
    }

    #[test]
    fn linux_cooked() {
        let mut sll = vec![0, 0, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0x08, 0x00];
        sll.push(0x45);
        assert_eq!(locate_ip(LINUX_SLL, &sll), Ok((Net::Ipv4, 16)));
        let mut sll2 = vec![0x86, 0xdd, 0, 0, 0, 0, 0, 2, 0, 1, 4, 6, 1, 2, 3, 4, 5, 6, 0, 0];
        sll2.push(0x60);
        assert_eq!(locate_ip(LINUX_SLL2, &sll2), Ok((Net::Ipv6, 20)));
        assert_eq!(locate_ip(LINUX_SLL2, &sll2[..19]), Err(WarningKind::TruncatedHeaders));
    }

    #[test]
    fn raw_and_null() {
        for lt in [RAW, RAW_BSD_12, RAW_BSD_14, IPV4, IPV6] {
            assert_eq!(locate_ip(lt, &[0x45]), Ok((Net::Ipv4, 0)));
            assert_eq!(locate_ip(lt, &[0x60]), Ok((Net::Ipv6, 0)));
            assert_eq!(locate_ip(lt, &[]), Err(WarningKind::TruncatedHeaders));
        }
        assert_eq!(locate_ip(NULL, &[2, 0, 0, 0, 0x45]), Ok((Net::Ipv4, 4)));
        assert_eq!(locate_ip(NULL, &[0, 0, 0, 2, 0x45]), Ok((Net::Ipv4, 4)));
        for af in [24u32, 28, 30] {
            assert_eq!(locate_ip(NULL, &af.to_le_bytes()), Ok((Net::Ipv6, 4)));
            assert_eq!(locate_ip(LOOP, &af.to_be_bytes()), Ok((Net::Ipv6, 4)));
        }
        assert_eq!(locate_ip(NULL, &[7, 0, 0, 0]), Err(WarningKind::NotIp));
        assert_eq!(locate_ip(999, &[0; 40]), Err(WarningKind::UnknownLinkType));
    }

    #[test]
    fn radiotap_with_tsft_and_flags() {
        // present = TSFT | Flags; TSFT at 8, Flags at 16, length 18 (padded).
        let mut b = vec![0, 0, 18, 0, 0x03, 0, 0, 0];
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&[0x00, 0x00]);
        let mut plain = b.clone();
        plain.extend_from_slice(&qos_data(0x01));
        assert_eq!(locate_ip(IEEE802_11_RADIOTAP, &plain), Ok((Net::Ipv4, 18 + 34)));
        // Flags 0x20: header padded from 26 to 28 bytes.
        let mut data = qos_data(0x01);
        data.splice(26..26, [0u8, 0]);
        b[16] = 0x20;
        b.extend_from_slice(&data);
        assert_eq!(locate_ip(IEEE802_11_RADIOTAP, &b), Ok((Net::Ipv4, 18 + 36)));
        // Flags 0x40: the frame failed its FCS at the radio, never delivered.
        let mut failed = plain.clone();
        failed[16] = 0x40;
        assert_eq!(locate_ip(IEEE802_11_RADIOTAP, &failed), Err(WarningKind::BadFcs));
        assert_eq!(locate_ip(IEEE802_11_RADIOTAP, &b[..10]), Err(WarningKind::TruncatedHeaders));
        assert_eq!(locate_ip(IEEE802_11_RADIOTAP, &[1, 0, 8, 0, 0, 0, 0, 0]), Err(WarningKind::MalformedPacket));
    }

    #[test]
    fn ppp_framings_and_mpls() {
        // HDLC-like address/control, 2-byte protocol; then both compressions (ACFC + PFC).
        assert_eq!(locate_ip(PPP, &[0xff, 0x03, 0x00, 0x21, 0x45]), Ok((Net::Ipv4, 4)));
        assert_eq!(locate_ip(PPP, &[0x21, 0x45]), Ok((Net::Ipv4, 1)));
        assert_eq!(locate_ip(PPP_HDLC, &[0xff, 0x03, 0x00, 0x57, 0x60]), Ok((Net::Ipv6, 4)));
        // MPLS unicast over PPP (0x0281), one label (bottom of stack), IPv4.
        assert_eq!(locate_ip(PPP, &[0xff, 0x03, 0x02, 0x81, 0x18, 0x93, 0x0d, 0x40, 0x45]), Ok((Net::Ipv4, 8)));
        assert_eq!(locate_ip(PPP, &[0xc0, 0x21, 1]), Err(WarningKind::NotIp)); // LCP
        // MPLS over Ethernet, two labels.
        let mpls = eth(&[0x88, 0x47, 0, 1, 0, 64, 0, 2, 1, 64]);
        assert_eq!(locate_ip(ETHERNET, &mpls), Ok((Net::Ipv4, 22)));
    }

    #[test]
    fn pktap_and_ppi_wrap_other_link_types() {
        let mut pk = crate::decode::pktap::tests::header(1, 77, "curl");
        pk.extend_from_slice(&eth(&[0x08, 0x00]));
        assert_eq!(locate_ip(PKTAP, &pk), Ok((Net::Ipv4, 108 + 14)));
        assert_eq!(locate_ip(USER2_PKTAP, &pk), Ok((Net::Ipv4, 108 + 14)));
        let mut nested = crate::decode::pktap::tests::header(PKTAP, 77, "curl");
        nested.extend_from_slice(&pk);
        assert_eq!(locate_ip(PKTAP, &nested), Err(WarningKind::MalformedPacket));
        // PPI around an 802.11 QoS data frame: the radio facts come from the PPI field.
        let mut ppi = crate::decode::ppi::tests::header(105);
        ppi.extend_from_slice(&qos_data(0x01));
        let f = locate(PPI, &ppi).unwrap();
        assert_eq!((f.ip.offset, f.wifi_at, f.radio.map(|r| r.rate_kbps)), (32 + 34, Some(32), Some(54_000)));
        let mut ppi_eth = crate::decode::ppi::tests::header(1);
        ppi_eth.extend_from_slice(&eth(&[0x86, 0xdd]));
        assert_eq!(locate_ip(PPI, &ppi_eth), Ok((Net::Ipv6, 32 + 14)));
    }

    #[test]
    fn names() {
        assert_eq!(link_type_name(1), "ethernet");
        assert_eq!(link_type_name(228), "raw");
        assert_eq!(link_type_name(127), "ieee802-11-radiotap");
        assert_eq!((link_type_name(9), link_type_name(192), link_type_name(258), link_type_name(149)), ("ppp".into(), "ppi".into(), "pktap".into(), "pktap".into()));
        assert_eq!(link_type_name(239), "nflog");
        assert_eq!(link_type_name(147), "linktype-147");
        assert!(!is_supported(147));
        // The allocation-free check agrees with the names for every link type.
        for lt in 0..400 {
            assert_eq!(is_supported(lt), !link_type_name(lt).starts_with("linktype-"), "{lt}");
        }
    }
}
