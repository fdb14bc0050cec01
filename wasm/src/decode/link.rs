//! Link layers: find where the IP header starts in a captured frame.
//!
//! Link-type numbers and header layouts follow the tcpdump.org link-type list
//! (<https://www.tcpdump.org/linktypes.html>). Each function checks lengths before
//! reading; any cut is `TruncatedHeaders`, anything that is not IPv4/IPv6 is `NotIp`.

use super::wifi;
use super::WarningKind;

/// Link-type numbers (LINKTYPE_* in the tcpdump list).
pub mod linktype {
    pub const NULL: u32 = 0;
    pub const ETHERNET: u32 = 1;
    /// DLT_RAW as defined on some BSDs; raw IP.
    pub const RAW_BSD_12: u32 = 12;
    /// DLT_RAW as defined on OpenBSD; raw IP.
    pub const RAW_BSD_14: u32 = 14;
    pub const RAW: u32 = 101;
    pub const IEEE802_11: u32 = 105;
    /// OpenBSD loopback: like NULL but the family is always big-endian.
    pub const LOOP: u32 = 108;
    pub const LINUX_SLL: u32 = 113;
    pub const IEEE802_11_RADIOTAP: u32 = 127;
    pub const IPV4: u32 = 228;
    pub const IPV6: u32 = 229;
    pub const LINUX_SLL2: u32 = 276;
}

/// The network layer a frame carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Net {
    Ipv4,
    Ipv6,
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
        ETHERNET | LINUX_SLL | LINUX_SLL2 | RAW | RAW_BSD_12 | RAW_BSD_14 | IPV4 | IPV6 | NULL | LOOP | IEEE802_11_RADIOTAP | IEEE802_11
    )
}

/// Locate the IP header: returns the network protocol and its offset in `b`.
pub fn locate_ip(lt: u32, b: &[u8]) -> Result<(Net, usize), WarningKind> {
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
        IEEE802_11_RADIOTAP => wifi::radiotap(b),
        IEEE802_11 => wifi::ieee80211(b, 0),
        _ => Err(WarningKind::UnknownLinkType),
    }
}

pub(crate) fn be16(b: &[u8], at: usize) -> u16 {
    match b.get(at..at + 2) {
        Some(x) => u16::from_be_bytes([x[0], x[1]]),
        None => 0,
    }
}

/// Raw IP: the version nibble says which (RFC 791 §3.1, RFC 8200 §3).
fn raw(b: &[u8], off: usize) -> Result<(Net, usize), WarningKind> {
    match b.get(off).map(|v| v >> 4) {
        Some(4) => Ok((Net::Ipv4, off)),
        Some(6) => Ok((Net::Ipv6, off)),
        Some(_) => Err(WarningKind::NotIp),
        None => Err(WarningKind::TruncatedHeaders),
    }
}

/// Ethernet II (IEEE 802.3 with Ethertype). Lengths ≤ 1500 in the type field mean an
/// 802.3 length followed by LLC; only LLC/SNAP can carry IP then (RFC 1042).
fn ethernet(b: &[u8]) -> Result<(Net, usize), WarningKind> {
    let h = b.get(..14).ok_or(WarningKind::TruncatedHeaders)?;
    let t = be16(h, 12);
    if t <= 1500 {
        return snap(b, 14);
    }
    ethertype(b, 14, t)
}

/// LLC/SNAP header (AA AA 03, 3-byte OUI, Ethertype; RFC 1042) at `off`.
pub(crate) fn snap(b: &[u8], off: usize) -> Result<(Net, usize), WarningKind> {
    let h = b.get(off..off + 8).ok_or(WarningKind::TruncatedHeaders)?;
    if h[..3] != [0xAA, 0xAA, 0x03] {
        return Err(WarningKind::NotIp);
    }
    ethertype(b, off + 8, be16(h, 6))
}

/// Follow an Ethertype through VLAN tags (802.1Q 0x8100, 802.1ad 0x88A8, and the
/// pre-standard QinQ 0x9100/0x9200, any depth) and PPPoE sessions (RFC 2516) to IP.
pub(crate) fn ethertype(b: &[u8], mut off: usize, mut t: u16) -> Result<(Net, usize), WarningKind> {
    loop {
        match t {
            0x0800 => return Ok((Net::Ipv4, off)),
            0x86DD => return Ok((Net::Ipv6, off)),
            0x8100 | 0x88A8 | 0x9100 | 0x9200 => {
                // Tag: 2 bytes TCI, then the next Ethertype.
                let tag = b.get(off..off + 4).ok_or(WarningKind::TruncatedHeaders)?;
                t = be16(tag, 2);
                off += 4;
            }
            0x8864 => {
                // PPPoE session header (6 bytes) then the PPP protocol (RFC 1661).
                let h = b.get(off..off + 8).ok_or(WarningKind::TruncatedHeaders)?;
                return match be16(h, 6) {
                    0x0021 => Ok((Net::Ipv4, off + 8)),
                    0x0057 => Ok((Net::Ipv6, off + 8)),
                    _ => Err(WarningKind::NotIp),
                };
            }
            _ => return Err(WarningKind::NotIp),
        }
    }
}

/// BSD loopback: a 4-byte address family in the byte order of the host that wrote
/// it (LOOP: always big-endian). AF_INET is 2 everywhere; AF_INET6 is 24 (NetBSD,
/// OpenBSD, BSD/OS), 28 (FreeBSD, DragonFly) or 30 (macOS), per the tcpdump list.
/// The family is small, so a value with non-zero upper 16 bits is the other order.
fn null(b: &[u8]) -> Result<(Net, usize), WarningKind> {
    let h = b.get(..4).ok_or(WarningKind::TruncatedHeaders)?;
    let le = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
    let family = if le > 0xFFFF { le.swap_bytes() } else { le };
    match family {
        2 => Ok((Net::Ipv4, 4)),
        24 | 28 | 30 => Ok((Net::Ipv6, 4)),
        _ => Err(WarningKind::NotIp),
    }
}

#[cfg(test)]
mod tests {
    use super::linktype::*;
    use super::*;

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
    fn names() {
        assert_eq!(link_type_name(1), "ethernet");
        assert_eq!(link_type_name(228), "raw");
        assert_eq!(link_type_name(127), "ieee802-11-radiotap");
        assert_eq!(link_type_name(147), "linktype-147");
        assert!(!is_supported(147));
        // The allocation-free check agrees with the names for every link type.
        for lt in 0..400 {
            assert_eq!(is_supported(lt), !link_type_name(lt).starts_with("linktype-"), "{lt}");
        }
    }
}
