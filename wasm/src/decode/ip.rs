//! IPv4 (RFC 791) and IPv6 (RFC 8200) headers, down to the transport payload.
//!
//! Lengths come from the IP length fields, not from the captured length, so that a
//! packet cut by the snaplen still reports its true payload size. Two exceptions where
//! the length field is 0 on purpose: TSO/GSO super-packets captured on the sending host
//! (IPv4 total length 0) and Linux "BIG TCP" (IPv6 payload length 0 without a Jumbo
//! Payload option, beyond RFC 2675); then the length is taken from the frame's original
//! length on the wire (`wire_ip_len`, computed by the caller).

use super::WarningKind;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// IP protocol number of TCP (IANA "Assigned Internet Protocol Numbers").
pub const PROTO_TCP: u8 = 6;

/// What the transport layer needs from the IP layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpPacket {
    pub src: IpAddr,
    pub dst: IpAddr,
    /// Upper-layer protocol after all extension headers.
    pub protocol: u8,
    /// Offset of the transport header from the start of the IP header.
    pub payload_offset: usize,
    /// Length of the transport header + data on the wire, from the IP length fields.
    pub payload_len: u32,
    /// IPv4 Identification (RFC 791 §3.1); None for IPv6.
    pub ident: Option<u16>,
    /// IPv4 Time to Live (RFC 791 §3.1); None for IPv6.
    pub ttl: Option<u8>,
    /// `payload_len` is the IP header's, not taken from the frame (a TSO or BIG TCP
    /// frame's length field is 0): the TCP checksum can be verified (checksum.rs).
    pub length_in_header: bool,
    /// An IPv6 routing header with segments left: the pseudo-header's destination is
    /// its last address, not the header's (RFC 8200 §8.1), so the checksum is not verified.
    pub routed: bool,
    /// The ECN field (RFC 3168 §5): the low 2 bits of the IPv4 TOS byte or of the
    /// IPv6 Traffic Class. 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE.
    pub ecn: u8,
}

/// A validated IPv4 header: at least 20 bytes, version 4, IHL ≥ 5 and the whole
/// header (with options) captured.
#[derive(Clone, Copy, Debug)]
pub struct Ipv4Header<'a>(&'a [u8]);

impl<'a> Ipv4Header<'a> {
    pub fn parse(b: &'a [u8]) -> Result<Self, WarningKind> {
        if b.len() < 20 {
            return Err(WarningKind::TruncatedHeaders);
        }
        let h = Ipv4Header(b);
        // RFC 791 §3.1: IHL counts 32-bit words, minimum 5.
        if b[0] >> 4 != 4 || h.header_len() < 20 {
            return Err(WarningKind::MalformedPacket);
        }
        if b.len() < h.header_len() {
            return Err(WarningKind::TruncatedHeaders);
        }
        Ok(h)
    }
    pub fn header_len(&self) -> usize {
        usize::from(self.0[0] & 0x0f) * 4
    }
    pub fn total_len(&self) -> u16 {
        u16::from_be_bytes([self.0[2], self.0[3]])
    }
    /// MF flag (RFC 791 §3.1, flags bit 2).
    pub fn more_fragments(&self) -> bool {
        self.0[6] & 0x20 != 0
    }
    /// Fragment offset in 8-byte units.
    pub fn fragment_offset(&self) -> u16 {
        u16::from_be_bytes([self.0[6] & 0x1f, self.0[7]])
    }
    pub fn protocol(&self) -> u8 {
        self.0[9]
    }
    pub fn src(&self) -> Ipv4Addr {
        Ipv4Addr::new(self.0[12], self.0[13], self.0[14], self.0[15])
    }
    pub fn dst(&self) -> Ipv4Addr {
        Ipv4Addr::new(self.0[16], self.0[17], self.0[18], self.0[19])
    }
}

/// A validated IPv6 fixed header (40 bytes, version 6).
#[derive(Clone, Copy, Debug)]
pub struct Ipv6Header<'a>(&'a [u8]);

impl<'a> Ipv6Header<'a> {
    pub fn parse(b: &'a [u8]) -> Result<Self, WarningKind> {
        if b.len() < 40 {
            return Err(WarningKind::TruncatedHeaders);
        }
        if b[0] >> 4 != 6 {
            return Err(WarningKind::MalformedPacket);
        }
        Ok(Ipv6Header(b))
    }
    pub fn payload_len(&self) -> u16 {
        u16::from_be_bytes([self.0[4], self.0[5]])
    }
    pub fn next_header(&self) -> u8 {
        self.0[6]
    }
    fn addr(&self, at: usize) -> Ipv6Addr {
        let mut a = [0u8; 16];
        a.copy_from_slice(&self.0[at..at + 16]);
        Ipv6Addr::from(a)
    }
    pub fn src(&self) -> Ipv6Addr {
        self.addr(8)
    }
    pub fn dst(&self) -> Ipv6Addr {
        self.addr(24)
    }
}

/// Parse an IPv4 packet. Fragments (MF set or offset ≠ 0) are `TcpFragment` when they
/// carry TCP (every fragment repeats the protocol field, RFC 791 §3.2), else
/// `IpFragment`: a first fragment carries a TCP header but not the whole segment, so
/// it is not analysed.
pub fn parse_ipv4(b: &[u8], wire_ip_len: u32) -> Result<IpPacket, WarningKind> {
    let h = Ipv4Header::parse(b)?;
    if h.more_fragments() || h.fragment_offset() != 0 {
        return Err(fragment_of(h.protocol()));
    }
    let hl = h.header_len() as u32;
    let length_in_header = h.total_len() != 0;
    let total = match u32::from(h.total_len()) {
        0 => wire_ip_len, // TSO: the NIC fills in the length later
        t if t < hl => return Err(WarningKind::MalformedPacket),
        t => t,
    };
    Ok(IpPacket {
        src: IpAddr::V4(h.src()),
        dst: IpAddr::V4(h.dst()),
        protocol: h.protocol(),
        payload_offset: h.header_len(),
        payload_len: total.saturating_sub(hl),
        ident: Some(u16::from_be_bytes([b[4], b[5]])),
        ttl: Some(b[8]),
        length_in_header,
        routed: false,
        ecn: b[1] & 3,
    })
}

/// The warning for a fragment whose upper-layer protocol is `protocol`.
fn fragment_of(protocol: u8) -> WarningKind {
    if protocol == 6 {
        WarningKind::TcpFragment
    } else {
        WarningKind::IpFragment
    }
}

/// Extension headers that share the generic layout "next header, length in 8-octet
/// units not counting the first 8" (RFC 8200 §4.3–4.6, §4.8; Mobility RFC 6275,
/// HIP RFC 7401, Shim6 RFC 5533).
const EXT_HOP_BY_HOP: u8 = 0;
const EXT_ROUTING: u8 = 43;
const EXT_FRAGMENT: u8 = 44;
const EXT_AH: u8 = 51;
const EXT_DEST_OPTS: u8 = 60;
const GENERIC_EXT: [u8; 6] = [EXT_HOP_BY_HOP, EXT_ROUTING, EXT_DEST_OPTS, 135, 139, 140];

/// Parse an IPv6 packet, walking the extension header chain until a header that is
/// not an extension header (RFC 8200 §4.1). A fragment header with offset ≠ 0 or M
/// set is `IpFragment`; an "atomic" fragment (offset 0, M clear, RFC 6946) is skipped.
pub fn parse_ipv6(b: &[u8], wire_ip_len: u32) -> Result<IpPacket, WarningKind> {
    let h = Ipv6Header::parse(b)?;
    let mut next = h.next_header();
    let mut off = 40usize;
    let mut jumbo: Option<u32> = None;
    let mut routed = false;
    // Each extension header is at least 8 bytes, so the loop ends with the data.
    loop {
        if GENERIC_EXT.contains(&next) {
            let hdr = b.get(off..off + 2).ok_or(WarningKind::TruncatedHeaders)?;
            let len = (usize::from(hdr[1]) + 1) * 8;
            let body = b.get(off..off + len).ok_or(WarningKind::TruncatedHeaders)?;
            if next == EXT_HOP_BY_HOP {
                jumbo = jumbo_payload(&body[2..]);
            }
            // Routing header: byte 3 is Segments Left (RFC 8200 §4.4).
            routed |= next == EXT_ROUTING && body[3] != 0;
            next = hdr[0];
            off += len;
        } else if next == EXT_FRAGMENT {
            let f = b.get(off..off + 8).ok_or(WarningKind::TruncatedHeaders)?;
            let frag_off = u16::from_be_bytes([f[2], f[3]]) >> 3;
            if frag_off != 0 || f[3] & 1 != 0 {
                // The fragment header's next header is the fragmentable part's first
                // header (RFC 8200 §4.5): TCP unless more extension headers follow.
                return Err(fragment_of(f[0]));
            }
            next = f[0];
            off += 8;
        } else if next == EXT_AH {
            // RFC 4302 §2.2: AH length is in 32-bit words minus 2.
            let hdr = b.get(off..off + 2).ok_or(WarningKind::TruncatedHeaders)?;
            let len = (usize::from(hdr[1]) + 2) * 4;
            next = hdr[0];
            off += len;
            if b.len() < off {
                return Err(WarningKind::TruncatedHeaders);
            }
        } else {
            break;
        }
    }
    let total = match (h.payload_len(), jumbo) {
        (0, Some(j)) => j,
        (0, None) => wire_ip_len.saturating_sub(40), // BIG TCP
        (p, _) => u32::from(p),
    };
    let ext_len = (off - 40) as u32;
    if total < ext_len {
        return Err(WarningKind::MalformedPacket);
    }
    Ok(IpPacket {
        src: IpAddr::V6(h.src()),
        dst: IpAddr::V6(h.dst()),
        protocol: next,
        payload_offset: off,
        payload_len: total - ext_len,
        ident: None,
        ttl: None,
        length_in_header: h.payload_len() != 0 || jumbo.is_some(),
        routed,
        // Traffic Class = the low nibble of byte 0 and the high nibble of byte 1.
        ecn: (b[1] >> 4) & 3,
    })
}

/// Find the Jumbo Payload option (type 0xC2, RFC 2675 §2) among hop-by-hop options.
fn jumbo_payload(mut opts: &[u8]) -> Option<u32> {
    while let Some(&t) = opts.first() {
        if t == 0 {
            opts = &opts[1..]; // Pad1
            continue;
        }
        let len = usize::from(*opts.get(1)?);
        let body = opts.get(2..2 + len)?;
        if t == 0xC2 && len == 4 {
            return Some(u32::from_be_bytes([body[0], body[1], body[2], body[3]]));
        }
        opts = &opts[2 + len..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const V4: [u8; 24] = [
        0x46, 0x00, 0x00, 0x3c, // v4, IHL 6 (one option word), total 60
        0x12, 0x34, 0x40, 0x00, // id, DF
        0x40, 0x06, 0x00, 0x00, // TTL 64, TCP, checksum
        10, 0, 0, 1, // src
        10, 0, 0, 2, // dst
        0x01, 0x01, 0x01, 0x00, // options: NOP NOP NOP EOL
    ];

    #[test]
    fn ipv4_with_options() {
        let p = parse_ipv4(&V4, 999).unwrap();
        assert_eq!(p.src, "10.0.0.1".parse::<IpAddr>().unwrap());
        assert_eq!(p.dst, "10.0.0.2".parse::<IpAddr>().unwrap());
        assert_eq!((p.protocol, p.payload_offset, p.payload_len), (6, 24, 36));
    }

    #[test]
    fn ipv4_tso_zero_length_uses_wire_length() {
        let mut b = V4;
        b[2] = 0;
        b[3] = 0;
        assert_eq!(parse_ipv4(&b, 1524).unwrap().payload_len, 1500);
    }

    #[test]
    fn ipv4_fragments_and_bad_headers() {
        let mut mf = V4;
        mf[6] = 0x20; // MF
        assert_eq!(parse_ipv4(&mf, 60), Err(WarningKind::TcpFragment));
        let mut later = V4;
        later[7] = 0x10; // offset 16 × 8
        assert_eq!(parse_ipv4(&later, 60), Err(WarningKind::TcpFragment));
        // A UDP fragment (protocol 17): not TCP's.
        later[9] = 17;
        assert_eq!(parse_ipv4(&later, 60), Err(WarningKind::IpFragment));
        let mut ihl = V4;
        ihl[0] = 0x44;
        assert_eq!(parse_ipv4(&ihl, 60), Err(WarningKind::MalformedPacket));
        let mut short_total = V4;
        short_total[3] = 10;
        assert_eq!(parse_ipv4(&short_total, 60), Err(WarningKind::MalformedPacket));
        assert_eq!(parse_ipv4(&V4[..22], 60), Err(WarningKind::TruncatedHeaders));
        assert_eq!(parse_ipv4(&V4[..5], 60), Err(WarningKind::TruncatedHeaders));
    }

    fn v6(next: u8, payload_len: u16, ext: &[u8]) -> Vec<u8> {
        let mut b = vec![0x60, 0, 0, 0];
        b.extend_from_slice(&payload_len.to_be_bytes());
        b.extend_from_slice(&[next, 64]);
        b.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
        b.extend_from_slice(&[0; 11]);
        b.push(1); // src 2001:db8::1
        b.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
        b.extend_from_slice(&[0; 11]);
        b.push(2);
        b.extend_from_slice(ext);
        b
    }

    #[test]
    fn ipv6_extension_chain() {
        // hop-by-hop (→ dest opts) 8 bytes, dest opts (→ atomic fragment) 8 bytes,
        // fragment (→ AH) 8 bytes, AH (→ TCP) 12 bytes.
        let ext = [
            60, 0, 1, 4, 0, 0, 0, 0, // HBH: PadN
            44, 0, 1, 4, 0, 0, 0, 0, // dest opts
            51, 0, 0, 0, 0, 0, 0, 1, // atomic fragment
            6, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, // AH, 3 words
        ];
        let b = v6(0, 36 + 20, &ext);
        let p = parse_ipv6(&b, 0).unwrap();
        assert_eq!(p.src, "2001:db8::1".parse::<IpAddr>().unwrap());
        assert_eq!((p.protocol, p.payload_offset, p.payload_len), (6, 76, 20));
    }

    #[test]
    fn ipv6_fragment_bigtcp_jumbo_truncation() {
        let frag = v6(44, 28, &[6, 0, 0, 1, 0, 0, 0, 9]); // M set, next header TCP
        assert_eq!(parse_ipv6(&frag, 0), Err(WarningKind::TcpFragment));
        let udp = v6(44, 28, &[17, 0, 0, 1, 0, 0, 0, 9]); // M set, next header UDP
        assert_eq!(parse_ipv6(&udp, 0), Err(WarningKind::IpFragment));
        let big = v6(6, 0, &[]);
        assert_eq!(parse_ipv6(&big, 80040).unwrap().payload_len, 80000);
        let jumbo = v6(0, 0, &[6, 0, 0xC2, 4, 0x00, 0x01, 0x86, 0xa8]);
        assert_eq!(parse_ipv6(&jumbo, 0).unwrap().payload_len, 100_008 - 8); // RFC 2675: includes the HBH header
        let cut = v6(0, 8, &[6, 0, 0xC2]);
        assert_eq!(parse_ipv6(&cut, 0), Err(WarningKind::TruncatedHeaders));
        assert_eq!(parse_ipv6(&big[..39], 0), Err(WarningKind::TruncatedHeaders));
        let udp = v6(17, 8, &[]);
        assert_eq!(parse_ipv6(&udp, 0).unwrap().protocol, 17);
        let lying = v6(0, 4, &[6, 0, 1, 4, 0, 0, 0, 0]);
        assert_eq!(parse_ipv6(&lying, 0), Err(WarningKind::MalformedPacket));
    }
}
