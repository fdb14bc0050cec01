//! Multipath TCP options (TCP option kind 30): RFC 8684 §3 (MPTCP v1) and RFC 6824 §3
//! (v0, which Linux before 5.6 and Apple's stacks spoke).
//!
//! Every MPTCP option starts with the subtype in the high nibble of its third byte
//! (RFC 8684 §3, Figure 3). Each subtype's length says which of its forms it is (a
//! SYN's MP_CAPABLE carries no key in v1, the third ACK's carries two); a length that
//! is none of the forms is counted as malformed and skipped, never misread. `read`
//! validates each option once and keeps the fields the analysis uses
//! (analysis/track/mptcp.rs) in a small owned value; segments without kind 30 pay one `None`.

use super::tcp::OptionIter;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// TCP option kind of every MPTCP option (IANA "TCP Option Kind Numbers").
pub const OPT_MPTCP: u8 = 30;

/// MPTCP option subtypes (RFC 8684 §7.2, IANA "MPTCP Option Subtypes").
pub const MP_CAPABLE: u8 = 0;
pub const MP_JOIN: u8 = 1;
pub const DSS: u8 = 2;
pub const ADD_ADDR: u8 = 3;
pub const REMOVE_ADDR: u8 = 4;
pub const MP_PRIO: u8 = 5;
pub const MP_FAIL: u8 = 6;
pub const MP_FASTCLOSE: u8 = 7;
pub const MP_TCPRST: u8 = 8;

/// The MPTCP options one segment carried.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mptcp {
    pub capable: Option<Capable>,
    pub join: Option<Join>,
    pub dss: Option<Dss>,
    pub add_addr: Option<AddAddr>,
    /// REMOVE_ADDR (RFC 8684 §3.4.2): how many address ids it withdraws.
    pub remove_addr: u8,
    /// MP_PRIO (§3.3.8) is present: its backup flag.
    pub prio: Option<bool>,
    /// MP_FAIL (§3.7): the data sequence number where the checksum failed; the subflow
    /// falls back to plain TCP or is reset.
    pub fail: Option<u64>,
    /// MP_FASTCLOSE (§3.5): the key of the receiver; the whole connection is closed.
    pub fastclose: Option<u64>,
    /// MP_TCPRST (§3.6): the reason code of a subflow reset (RFC 8684 §3.6 table).
    pub tcprst: Option<u8>,
    /// Kind-30 options whose length fits none of their subtype's forms, or of an
    /// unknown subtype: skipped.
    pub malformed: u8,
}

/// MP_CAPABLE (RFC 8684 §3.1; v0 RFC 6824 §3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Capable {
    /// 0 (RFC 6824) or 1 (RFC 8684).
    pub version: u8,
    /// The flags byte: A (0x80) checksums required, H (0x01) HMAC-SHA256 in v1
    /// (HMAC-SHA1 in v0), C (0x40 in v1) no joins to the source address.
    pub flags: u8,
    /// The sender's key (v1: SYN/ACK, third ACK, first data; v0: also the SYN).
    pub sender_key: Option<u64>,
    /// The receiver's key (the third ACK and the first data, both versions).
    pub receiver_key: Option<u64>,
    /// v1 MP_CAPABLE on the first data: the data-level length it maps (§3.1).
    pub data_len: Option<u16>,
}

/// MP_JOIN (RFC 8684 §3.2): which of the three handshake forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Join {
    /// On the SYN: the receiver's token names the connection joined.
    Syn { token: u32, nonce: u32, address_id: u8, backup: bool },
    /// On the SYN/ACK: a truncated HMAC and the responder's nonce.
    SynAck { address_id: u8, backup: bool },
    /// On the third ACK: the full HMAC (the join completes when it is acknowledged).
    Ack,
}

/// DSS: a data ACK and/or a mapping (RFC 8684 §3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dss {
    /// Flag F: DATA_FIN, the end of the sender's data stream; it occupies one data
    /// sequence number, inside the mapping's data-level length (§3.3.3).
    pub data_fin: bool,
    /// The data ACK (flag A) and whether it was 8 octets (flag a); a 4-octet one is
    /// the low 32 bits of the 64-bit number.
    pub data_ack: Option<(u64, bool)>,
    pub mapping: Option<Mapping>,
}

/// A DSS mapping (flag M): `len` bytes of data sequence space from `dsn` ride on the
/// subflow from relative subflow sequence number `ssn` (§3.3.1: relative to the
/// subflow's initial sequence number, so the first data byte is 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mapping {
    pub dsn: u64,
    /// Flag m: the DSN was 8 octets; a 4-octet DSN is its low 32 bits.
    pub dsn_64: bool,
    pub ssn: u32,
    /// Data-level length; 0 is the "infinite mapping" of a fallback to TCP (§3.7).
    pub len: u16,
    pub checksum: bool,
}

/// ADD_ADDR (RFC 8684 §3.4.1; v0 RFC 6824 §3.4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AddAddr {
    pub address_id: u8,
    pub addr: IpAddr,
    pub port: Option<u16>,
    /// Flag E (v1): the echo of a received ADD_ADDR, not an announcement.
    pub echo: bool,
}

fn be_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn be_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn be_u64(b: &[u8], at: usize) -> u64 {
    (u64::from(be_u32(b, at)) << 32) | u64::from(be_u32(b, at + 4))
}

/// The MPTCP options of the captured option area `options` (kind-30 TLVs; the walk is
/// the one `tcp::parse_options` does). None when there is none.
pub fn read(options: &[u8]) -> Option<Mptcp> {
    let mut m: Option<Mptcp> = None;
    for (kind, body) in OptionIter::new(options).map_while(Result::ok) {
        if kind == OPT_MPTCP {
            let m = m.get_or_insert_with(Mptcp::default);
            if !read_option(m, body) {
                m.malformed = m.malformed.saturating_add(1);
            }
        }
    }
    m
}

/// Read one option's body (the bytes after kind and length, so the option's length is
/// `body.len() + 2`); false when its length is not one of its subtype's forms.
fn read_option(m: &mut Mptcp, body: &[u8]) -> bool {
    let Some(&first) = body.first() else { return false };
    let len = body.len() + 2;
    // Byte offsets below are the RFC's, counted from the option's kind byte.
    let at = |i: usize| i - 2;
    match first >> 4 {
        MP_CAPABLE => {
            let Some(&flags) = body.get(1) else { return false };
            let version = first & 0x0f;
            let mut c = Capable { version, flags, ..Capable::default() };
            match len {
                4 => {}
                12 => c.sender_key = Some(be_u64(body, at(4))),
                20 | 22 | 24 => {
                    c.sender_key = Some(be_u64(body, at(4)));
                    c.receiver_key = Some(be_u64(body, at(12)));
                    if len >= 22 {
                        c.data_len = Some(be_u16(body, at(20)));
                    }
                }
                _ => return false,
            }
            m.capable = Some(c);
        }
        MP_JOIN => {
            let backup = first & 0x01 != 0;
            let address_id = body.get(1).copied().unwrap_or(0);
            m.join = Some(match len {
                12 => Join::Syn { token: be_u32(body, at(4)), nonce: be_u32(body, at(8)), address_id, backup },
                16 => Join::SynAck { address_id, backup },
                24 => Join::Ack,
                _ => return false,
            });
        }
        DSS => {
            let Some(&flags) = body.get(1) else { return false };
            let (ack_present, ack_64, map_present, dsn_64, fin) = (flags & 0x01 != 0, flags & 0x02 != 0, flags & 0x04 != 0, flags & 0x08 != 0, flags & 0x10 != 0);
            let ack_len = if ack_present { if ack_64 { 8 } else { 4 } } else { 0 };
            let map_len = if map_present { (if dsn_64 { 8 } else { 4 }) + 4 + 2 } else { 0 };
            let base = 4 + ack_len + map_len;
            // The checksum (2 octets) follows a mapping only where it was negotiated.
            let checksum = match len {
                l if l == base => false,
                l if map_present && l == base + 2 => true,
                _ => return false,
            };
            let mut d = Dss { data_fin: fin, ..Dss::default() };
            let mut i = at(4);
            if ack_present {
                d.data_ack = Some(if ack_64 { (be_u64(body, i), true) } else { (u64::from(be_u32(body, i)), false) });
                i += ack_len;
            }
            if map_present {
                let dsn = if dsn_64 { be_u64(body, i) } else { u64::from(be_u32(body, i)) };
                i += if dsn_64 { 8 } else { 4 };
                d.mapping = Some(Mapping { dsn, dsn_64, ssn: be_u32(body, i), len: be_u16(body, i + 4), checksum });
            }
            m.dss = Some(d);
        }
        ADD_ADDR => {
            let address_id = body.get(1).copied().unwrap_or(0);
            let low = first & 0x0f;
            // v0 (RFC 6824 §3.4.1) writes the IP version in the low nibble; v1 only the
            // echo flag, so 4 and 6 tell v0 apart.
            let (v6, port, echo) = match (low, len) {
                (4, 8) => (false, false, false),
                (4, 10) => (false, true, false),
                (6, 20) => (true, false, false),
                (6, 22) => (true, true, false),
                (0 | 1, 8 | 16) => (false, false, low == 1),
                (0 | 1, 10 | 18) => (false, true, low == 1),
                (0 | 1, 20 | 28) => (true, false, low == 1),
                (0 | 1, 22 | 30) => (true, true, low == 1),
                _ => return false,
            };
            let (addr, after) = if v6 {
                let mut o = [0u8; 16];
                o.copy_from_slice(&body[at(4)..at(20)]);
                (IpAddr::V6(Ipv6Addr::from(o)), at(20))
            } else {
                (IpAddr::V4(Ipv4Addr::new(body[at(4)], body[at(5)], body[at(6)], body[at(7)])), at(8))
            };
            let port = port.then(|| be_u16(body, after));
            m.add_addr = Some(AddAddr { address_id, addr, port, echo });
        }
        REMOVE_ADDR => {
            if len < 4 {
                return false;
            }
            m.remove_addr = (len - 3) as u8;
        }
        MP_PRIO => {
            if !(3..=4).contains(&len) {
                return false;
            }
            m.prio = Some(first & 0x01 != 0);
        }
        MP_FAIL => {
            if len != 12 {
                return false;
            }
            m.fail = Some(be_u64(body, at(4)));
        }
        MP_FASTCLOSE => {
            if len != 12 {
                return false;
            }
            m.fastclose = Some(be_u64(body, at(4)));
        }
        MP_TCPRST => {
            if len != 4 {
                return false;
            }
            m.tcprst = Some(body[1]);
        }
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(bytes: &[u8]) -> Vec<u8> {
        let mut v = vec![OPT_MPTCP, bytes.len() as u8 + 2];
        v.extend_from_slice(bytes);
        v
    }

    #[test]
    fn mp_capable_forms_of_v1_and_v0() {
        // v1 SYN: no key (RFC 8684 §3.1, length 4); flags 0x81 = checksum required + HMAC-SHA256.
        let m = read(&opt(&[0x01, 0x81])).unwrap();
        assert_eq!(m.capable, Some(Capable { version: 1, flags: 0x81, ..Default::default() }));
        // SYN/ACK: the sender's key.
        let key = [1, 2, 3, 4, 5, 6, 7, 8];
        let m = read(&opt(&[&[0x01, 0x01][..], &key].concat())).unwrap();
        assert_eq!(m.capable.unwrap().sender_key, Some(0x0102030405060708));
        // Third ACK: both keys; first data: both keys and the data-level length.
        let both = [&[0x01, 0x01][..], &key, &[9, 9, 9, 9, 9, 9, 9, 9]].concat();
        let c = read(&opt(&both)).unwrap().capable.unwrap();
        assert_eq!((c.sender_key, c.receiver_key, c.data_len), (Some(0x0102030405060708), Some(0x0909090909090909), None));
        let c = read(&opt(&[&both[..], &[0x05, 0xa8]].concat())).unwrap().capable.unwrap();
        assert_eq!(c.data_len, Some(1448));
        // v0 SYN carries its key (RFC 6824 §3.1).
        let c = read(&opt(&[&[0x00, 0x81][..], &key].concat())).unwrap().capable.unwrap();
        assert_eq!((c.version, c.sender_key), (0, Some(0x0102030405060708)));
        // A length that is no form: malformed, nothing read.
        let m = read(&opt(&[0x01, 0x01, 0])).unwrap();
        assert_eq!((m.capable, m.malformed), (None, 1));
    }

    #[test]
    fn mp_join_forms() {
        let m = read(&opt(&[0x11, 0x02, 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 7])).unwrap();
        assert_eq!(m.join, Some(Join::Syn { token: 0xdeadbeef, nonce: 7, address_id: 2, backup: true }));
        let m = read(&opt(&[&[0x10, 0x03][..], &[0; 12]].concat())).unwrap();
        assert_eq!(m.join, Some(Join::SynAck { address_id: 3, backup: false }));
        let m = read(&opt(&[&[0x10, 0x00][..], &[0; 20]].concat())).unwrap();
        assert_eq!(m.join, Some(Join::Ack));
    }

    #[test]
    fn dss_with_ack_mapping_and_checksum() {
        // Flags A a M m: 8-octet data ACK and DSN, SSN 1, length 1448, no checksum (28 bytes).
        let mut b = vec![0x20, 0x0f];
        b.extend(100u64.to_be_bytes());
        b.extend(200u64.to_be_bytes());
        b.extend(1u32.to_be_bytes());
        b.extend(1448u16.to_be_bytes());
        let d = read(&opt(&b)).unwrap().dss.unwrap();
        assert_eq!(d.data_ack, Some((100, true)));
        assert_eq!(d.mapping, Some(Mapping { dsn: 200, dsn_64: true, ssn: 1, len: 1448, checksum: false }));
        // The same with the checksum: 30 bytes.
        b.extend([0xab, 0xcd]);
        assert!(read(&opt(&b)).unwrap().dss.unwrap().mapping.unwrap().checksum);
        // A 4-octet data ACK only, and DATA_FIN with a 4-octet mapping.
        let d = read(&opt(&[0x20, 0x01, 0, 0, 1, 0])).unwrap().dss.unwrap();
        assert_eq!((d.data_ack, d.mapping), (Some((256, false)), None));
        let d = read(&opt(&[0x20, 0x14, 0, 0, 0, 9, 0, 0, 0, 0, 0, 1])).unwrap().dss.unwrap();
        assert!(d.data_fin);
        assert_eq!(d.mapping.unwrap().dsn, 9);
        // Flags that promise more than the length holds: malformed, not misread.
        let m = read(&opt(&[0x20, 0x0f, 0, 0, 0, 1])).unwrap();
        assert_eq!((m.dss, m.malformed), (None, 1));
    }

    #[test]
    fn add_addr_v1_and_v0_and_the_rest() {
        // v1 IPv4 with port and truncated HMAC (18 bytes).
        let mut b = vec![0x30, 5, 10, 0, 0, 2, 0x1f, 0x90];
        b.extend([0u8; 8]);
        let a = read(&opt(&b)).unwrap().add_addr.unwrap();
        assert_eq!((a.address_id, a.addr, a.port, a.echo), (5, "10.0.0.2".parse().unwrap(), Some(8080), false));
        // v1 echo (8 bytes) and v0 IPv4 (IPVer 4 in the low nibble).
        assert!(read(&opt(&[0x31, 1, 10, 0, 0, 3])).unwrap().add_addr.unwrap().echo);
        let a = read(&opt(&[0x34, 1, 10, 0, 0, 3])).unwrap().add_addr.unwrap();
        assert_eq!((a.addr, a.echo), ("10.0.0.3".parse().unwrap(), false));
        let m = read(&opt(&[0x40, 1, 2])).unwrap();
        assert_eq!(m.remove_addr, 2);
        assert_eq!(read(&opt(&[0x51])).unwrap().prio, Some(true));
        assert_eq!(read(&opt(&[0x60, 0, 0, 0, 0, 0, 0, 0, 0, 42])).unwrap().fail, Some(42));
        assert_eq!(read(&opt(&[0x70, 0, 0, 0, 0, 0, 0, 0, 0, 1])).unwrap().fastclose, Some(1));
        assert_eq!(read(&opt(&[0x80, 3])).unwrap().tcprst, Some(3));
    }

    #[test]
    fn beside_other_options_and_never_panicking() {
        // NOP NOP timestamps, then DSS with a 4-octet data ACK.
        let mut b = vec![1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2];
        b.extend(opt(&[0x20, 0x01, 0, 0, 0, 5]));
        assert_eq!(read(&b).unwrap().dss.unwrap().data_ack, Some((5, false)));
        assert_eq!(read(&b[..12]), None);
        // Every cut of every form, and every subtype with every length up to 40: no panic.
        for len in 0..=38usize {
            for first in 0..=255u8 {
                let mut body = vec![first];
                body.extend((0..len).map(|i| i as u8));
                let mut v = vec![OPT_MPTCP, (body.len() + 2) as u8];
                v.extend(&body);
                let _ = read(&v);
                for cut in 0..v.len() {
                    let _ = read(&v[..cut]);
                }
            }
        }
        assert_eq!(read(&[OPT_MPTCP, 2]).unwrap().malformed, 1);
    }
}
