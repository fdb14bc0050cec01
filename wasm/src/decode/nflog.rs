//! Linux netfilter NFLOG (LINKTYPE_NFLOG 239): what `tcpdump -i nflog:N` writes for
//! packets an iptables / nftables `NFLOG` rule logged to group N.
//!
//! Layout (<https://www.tcpdump.org/linktypes/LINKTYPE_NFLOG.html>):
//!
//! | off | size | field                                              |
//! |-----|------|----------------------------------------------------|
//! | 0   | 1    | nflog_family: AF_INET = 2, AF_INET6 = 10 (Linux)   |
//! | 1   | 1    | nflog_version: 0                                   |
//! | 2   | 2    | resource_id (the NFLOG group), big-endian          |
//! | 4   | …    | TLVs                                               |
//!
//! Each TLV is tlv_length (u16), tlv_type (u16), value; both u16 are in the byte order
//! of the host that captured, tlv_length counts the 4-byte TLV header but not the
//! padding that brings each TLV to a multiple of 4 bytes. Type 9 (NFULA_PAYLOAD)
//! holds the packet from its IP header on; the other types (packet header, prefix,
//! timestamp, hardware address, uid/gid, …) are skipped. Timestamps come from the
//! pcap record as for every link type.

use super::ethertype::{Located, Net};
use super::WarningKind;

/// nflog_family values of the spec (Linux numbering, whatever host reads the file).
const AF_INET: u8 = 2;
const AF_INET6: u8 = 10;
/// nfulnl_attr_type (linux/netfilter/nfnetlink_log.h): the packet payload.
const NFULA_PAYLOAD: u16 = 9;
/// The type's top bit is a netlink flag (NLA_F_NESTED), masked off as Wireshark's
/// packet-nflog.c does (`& 0x7fff`).
const TYPE_MASK: u16 = 0x7fff;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    Little,
    Big,
}

fn u16_at(b: &[u8], at: usize, order: Order) -> Option<u16> {
    let x = b.get(at..at + 2)?;
    Some(match order {
        Order::Little => u16::from_le_bytes([x[0], x[1]]),
        Order::Big => u16::from_be_bytes([x[0], x[1]]),
    })
}

/// Round a TLV length up to the next multiple of 4 (the spec's padding).
fn padded(len: u16) -> usize {
    (usize::from(len) + 3) & !3
}

/// Whether the TLVs read sensibly in `order`: the first TLV with a non-zero type has
/// a length of at least 4 and a type below 0x100. This is the test Wireshark's
/// packet-nflog.c made before it relied on the reader swapping the TLV headers
/// (`nflog_tvb_test_order`): the real types are 1–17, which read as 0x100–0x1100 in
/// the wrong order, so on any real record one order passes and the other fails.
fn reads_in(b: &[u8], order: Order) -> bool {
    let mut at = 4;
    while b.len().saturating_sub(at) > 4 {
        let (Some(len), Some(kind)) = (u16_at(b, at, order), u16_at(b, at + 2, order)) else { return false };
        let kind = kind & TYPE_MASK;
        if len < 4 || kind >= 0x100 {
            return false;
        }
        if kind != 0 {
            return true;
        }
        at += padded(len);
    }
    false
}

/// The byte order of the TLV headers. Today's libpcap and Wireshark take the pcap
/// file's byte order (the capturing host wrote both); this layer sees only the record,
/// so it detects the order as Wireshark used to. Neither order reads sensibly only on
/// records with no usable TLV: little-endian then, the order of every Linux host
/// that runs NFLOG in practice (x86-64, arm64).
fn order(b: &[u8]) -> Order {
    if !reads_in(b, Order::Little) && reads_in(b, Order::Big) {
        Order::Big
    } else {
        Order::Little
    }
}

/// Where the IP packet of an NFLOG record starts, bounded by the payload TLV's length.
/// A record cut inside the header or inside a TLV before the payload is
/// `TruncatedHeaders`; a TLV length below 4 or a version other than 0 is
/// `MalformedPacket`; a record with no payload TLV, or a family other than IPv4/IPv6,
/// is `NotIp` (counted, never analysed).
pub fn locate(b: &[u8]) -> Result<Located, WarningKind> {
    let h = b.get(..4).ok_or(WarningKind::TruncatedHeaders)?;
    if h[1] != 0 {
        return Err(WarningKind::MalformedPacket); // tcpdump print-nflog.c: "version N (unknown)"
    }
    let net = match h[0] {
        AF_INET => Net::Ipv4,
        AF_INET6 => Net::Ipv6,
        _ => return Err(WarningKind::NotIp),
    };
    let order = order(b);
    let mut at = 4;
    // Every step moves at least 4 bytes, so this ends within len / 4 steps.
    while at < b.len() {
        let (Some(len), Some(kind)) = (u16_at(b, at, order), u16_at(b, at + 2, order)) else {
            return Err(WarningKind::TruncatedHeaders);
        };
        if len < 4 {
            return Err(WarningKind::MalformedPacket);
        }
        if kind & TYPE_MASK == NFULA_PAYLOAD {
            // The value may run past the captured bytes (snaplen): the IP decoder reads
            // what is there and takes lengths from the IP header, as for other links.
            return Ok(Located { net, offset: at + 4, max_len: Some(u32::from(len) - 4) });
        }
        if at + usize::from(len) > b.len() {
            return Err(WarningKind::TruncatedHeaders);
        }
        at += padded(len);
    }
    Err(WarningKind::NotIp)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TLV with its padding, in little- or big-endian header order.
    fn tlv(kind: u16, value: &[u8], big: bool) -> Vec<u8> {
        let len = 4 + value.len() as u16;
        let mut t = if big { [len.to_be_bytes(), kind.to_be_bytes()].concat() } else { [len.to_le_bytes(), kind.to_le_bytes()].concat() };
        t.extend_from_slice(value);
        t.resize(padded(len), 0);
        t
    }

    /// Header (family, version 0, group 5) + packet header, prefix "x", payload.
    fn record(family: u8, payload: &[u8], big: bool) -> Vec<u8> {
        let mut b = vec![family, 0, 0, 5];
        b.extend(tlv(1, &[0x08, 0x00, 3, 0], big));
        b.extend(tlv(10, b"x\0", big));
        b.extend(tlv(9, payload, big));
        b
    }

    #[test]
    fn payload_after_padded_tlvs_in_both_orders() {
        let ip = [0x45, 0, 0, 20];
        for big in [false, true] {
            // 4 header + 8 packet header + 8 prefix (6 padded) + 4 TLV header = 24.
            let want = Located { net: Net::Ipv4, offset: 24, max_len: Some(4) };
            assert_eq!(locate(&record(AF_INET, &ip, big)), Ok(want), "big-endian TLVs: {big}");
        }
        assert_eq!(locate(&record(AF_INET6, &[0x60], false)).map(|l| (l.net, l.offset)), Ok((Net::Ipv6, 24)));
    }

    #[test]
    fn byte_order_detection_skips_unspec_tlvs() {
        // An NFULA_UNSPEC (0) TLV first says nothing; the next one decides.
        let mut b = vec![AF_INET, 0, 0, 5];
        b.extend(tlv(0, &[], true));
        b.extend(tlv(9, &[0x45], true));
        assert_eq!(order(&b), Order::Big);
        assert_eq!(locate(&b).map(|l| l.offset), Ok(12));
    }

    #[test]
    fn hostile_records_are_warnings() {
        use WarningKind::*;
        let ok = record(AF_INET, &[0x45, 0, 0, 20], false);
        assert_eq!(locate(&ok[..3]), Err(TruncatedHeaders));
        assert_eq!(locate(&ok[..14]), Err(TruncatedHeaders)); // inside the prefix TLV
        assert_eq!(locate(&ok[..22]), Err(TruncatedHeaders)); // inside the payload's TLV header
        let mut v1 = ok.clone();
        v1[1] = 1;
        assert_eq!(locate(&v1), Err(MalformedPacket));
        let mut zero = ok.clone();
        zero[4] = 0; // packet header TLV length 0: would loop forever if trusted
        assert_eq!(locate(&zero), Err(MalformedPacket));
        let mut three = ok.clone();
        three[4] = 3;
        assert_eq!(locate(&three), Err(MalformedPacket));
        let mut long = ok.clone();
        long[12..14].copy_from_slice(&0xfff0u16.to_le_bytes()); // prefix runs past the record
        assert_eq!(locate(&long), Err(TruncatedHeaders));
        // No payload TLV: nothing to decode, not an error. (A record cut exactly between
        // two TLVs looks the same: the record alone cannot tell them apart.)
        assert_eq!(locate(&ok[..12]), Err(NotIp));
        assert_eq!(locate(&ok[..20]), Err(NotIp));
        let mut bridge = ok;
        bridge[0] = 7; // NFPROTO_BRIDGE
        assert_eq!(locate(&bridge), Err(NotIp));
        assert_eq!(locate(&[AF_INET, 0, 0, 5]), Err(NotIp));
    }

    /// Every value of every header byte, and every cut: no panic, and an IP offset
    /// is always inside the record.
    #[test]
    fn every_byte_every_cut() {
        for big in [false, true] {
            let ok = record(AF_INET, &[0x45, 0, 0, 20, 0, 0], big);
            for cut in 0..=ok.len() {
                let _ = locate(&ok[..cut]);
            }
            for i in 0..ok.len() {
                for v in 0..=255u8 {
                    let mut b = ok.clone();
                    b[i] = v;
                    if let Ok(l) = locate(&b) {
                        assert!(l.offset <= b.len(), "byte {i} = {v}");
                    }
                }
            }
        }
    }
}
