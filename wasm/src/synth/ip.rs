//! IPv4 / IPv6 / TCP serialisation for synthetic frames, with valid checksums so that
//! Wireshark opens the files without complaint.

use super::Segment;
use crate::decode::TcpOptions;
use std::net::IpAddr;

/// One's-complement sum (RFC 1071): 16-bit words, an odd last byte padded with zero.
/// Whole words in a loop of their own, which the compiler vectorises: the warm-up
/// (warm_up.rs) sums 9 MB of payload when the worker starts.
fn sum16(acc: u32, b: &[u8]) -> u32 {
    let words = b.chunks_exact(2);
    let odd = words.remainder().first().map_or(0, |&x| u32::from(x) << 8);
    // u64: a jumbo payload's words could carry a u32 past its top.
    let sum = words.fold(u64::from(acc) + u64::from(odd), |a, w| a + u64::from(u16::from_be_bytes([w[0], w[1]])));
    ((sum & 0xffff_ffff) + (sum >> 32)) as u32
}
fn fold(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// A 20-byte IPv4 header (DF unless a fragment is requested), Identification 1, TTL 64.
pub fn ipv4_header(total_len: u16, proto: u8, src: [u8; 4], dst: [u8; 4], frag: Option<(u16, bool)>) -> Vec<u8> {
    ipv4_header_with(total_len, proto, src, dst, frag, 1, 64)
}

/// `ipv4_header` with the Identification and TTL given.
pub fn ipv4_header_with(total_len: u16, proto: u8, src: [u8; 4], dst: [u8; 4], frag: Option<(u16, bool)>, id: u16, ttl: u8) -> Vec<u8> {
    let ff = match frag {
        Some((off, more)) => (off & 0x1fff) | if more { 0x2000 } else { 0 },
        None => 0x4000,
    };
    let mut h = vec![0x45, 0];
    h.extend_from_slice(&total_len.to_be_bytes());
    h.extend_from_slice(&id.to_be_bytes());
    h.extend_from_slice(&ff.to_be_bytes());
    h.extend_from_slice(&[ttl, proto, 0, 0]);
    h.extend_from_slice(&src);
    h.extend_from_slice(&dst);
    let c = fold(sum16(0, &h));
    h[10..12].copy_from_slice(&c.to_be_bytes());
    h
}

/// TCP options in Linux's layout: MSS, SACK-permitted + timestamps, NOP + wscale,
/// NOP NOP + SACK blocks, then `extra` (whole option TLVs, e.g. MPTCP's); padded with
/// EOL to a multiple of 4.
pub fn tcp_options_with(o: &TcpOptions, extra: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    if let Some(m) = o.mss {
        b.extend_from_slice(&[2, 4]);
        b.extend_from_slice(&m.to_be_bytes());
    }
    match (o.sack_permitted, o.timestamp) {
        (true, Some(_)) => b.extend_from_slice(&[4, 2]),
        (true, None) => b.extend_from_slice(&[1, 1, 4, 2]),
        (false, Some(_)) => b.extend_from_slice(&[1, 1]),
        (false, None) => {}
    }
    if let Some((val, ecr)) = o.timestamp {
        b.extend_from_slice(&[8, 10]);
        b.extend_from_slice(&val.to_be_bytes());
        b.extend_from_slice(&ecr.to_be_bytes());
    }
    if let Some(ws) = o.window_scale {
        b.extend_from_slice(&[1, 3, 3, ws]);
    }
    let n = usize::from(o.sack_count.min(4));
    if n > 0 {
        b.extend_from_slice(&[1, 1, 5, 2 + 8 * n as u8]);
        for (l, r) in &o.sack_blocks[..n] {
            b.extend_from_slice(&l.to_be_bytes());
            b.extend_from_slice(&r.to_be_bytes());
        }
    }
    b.extend_from_slice(extra);
    while b.len() % 4 != 0 {
        b.push(0);
    }
    assert!(b.len() <= 40, "synth: TCP options need {} bytes, more than 40", b.len());
    b
}

/// Appends `len` deterministic payload bytes: 0, 1, … 250, 0, 1, … (copied from a
/// table: a byte-at-a-time iterator was most of the warm-up's capture, warm_up.rs).
fn extend_payload(v: &mut Vec<u8>, len: u32) {
    const PATTERN: [u8; 251] = {
        let mut p = [0u8; 251];
        let mut i = 0;
        while i < p.len() {
            p[i] = i as u8;
            i += 1;
        }
        p
    };
    let mut left = len as usize;
    while left > 0 {
        let n = left.min(PATTERN.len());
        v.extend_from_slice(&PATTERN[..n]);
        left -= n;
    }
}

/// IPv6 extension header of the given kind, 8 bytes, pointing to `next`.
fn ipv6_ext(kind: u8, next: u8) -> [u8; 8] {
    match kind {
        44 => [next, 0, 0, 0, 0, 0, 0, 1], // atomic fragment (offset 0, M clear)
        43 => [next, 0, 0, 0, 0, 0, 0, 0], // routing type 0, segments left 0
        _ => [next, 0, 1, 4, 0, 0, 0, 0],  // hop-by-hop / destination options: PadN
    }
}

/// The IP packet of a segment: (ethertype, bytes).
pub fn segment_packet(s: &Segment) -> (u16, Vec<u8>) {
    let opts = tcp_options_with(&s.options, &s.extra_options);
    let mut tcp = Vec::with_capacity(20 + opts.len() + s.payload_len as usize);
    tcp.extend_from_slice(&s.src.port().to_be_bytes());
    tcp.extend_from_slice(&s.dst.port().to_be_bytes());
    tcp.extend_from_slice(&s.seq.to_be_bytes());
    tcp.extend_from_slice(&s.ack.to_be_bytes());
    tcp.push((((20 + opts.len()) / 4) << 4) as u8 | (s.ecn >> 2) & 1);
    tcp.push(s.flags);
    tcp.extend_from_slice(&s.window.to_be_bytes());
    tcp.extend_from_slice(&[0, 0, 0, 0]);
    tcp.extend_from_slice(&opts);
    let payload_at = tcp.len();
    extend_payload(&mut tcp, s.payload_len);
    let start = s.payload_start.len().min(s.payload_len as usize);
    tcp[payload_at..payload_at + start].copy_from_slice(&s.payload_start[..start]);
    let tcp_len = tcp.len() as u32;
    // TCP checksum over the pseudo-header (RFC 9293 §3.1, RFC 8200 §8.1).
    let pseudo = match (s.src.ip(), s.dst.ip()) {
        (IpAddr::V4(a), IpAddr::V4(b)) => sum16(sum16(0, &a.octets()), &b.octets()),
        (IpAddr::V6(a), IpAddr::V6(b)) => sum16(sum16(0, &a.octets()), &b.octets()),
        _ => panic!("synth: mixed IPv4/IPv6 endpoints"),
    };
    let c = fold(sum16(pseudo + 6 + (tcp_len >> 16) + (tcp_len & 0xffff), &tcp));
    tcp[16..18].copy_from_slice(&c.to_be_bytes());
    match (s.src.ip(), s.dst.ip()) {
        (IpAddr::V4(a), IpAddr::V4(b)) => {
            let total = if s.ip_len_zero { 0 } else { u16::try_from(20 + tcp_len).expect("synth: IPv4 packet over 65535 bytes: use ip_len_zero") };
            let mut p = ipv4_header_with(total, 6, a.octets(), b.octets(), s.ipv4_fragment, s.ip_id, s.ttl);
            if s.ecn & 3 != 0 {
                // The ECN field is the TOS byte's low 2 bits (RFC 3168 §5); re-sum the header.
                p[1] = s.ecn & 3;
                p[10..12].copy_from_slice(&[0, 0]);
                let c = fold(sum16(0, &p[..20]));
                p[10..12].copy_from_slice(&c.to_be_bytes());
            }
            p.extend_from_slice(&tcp);
            (0x0800, p)
        }
        (IpAddr::V6(a), IpAddr::V6(b)) => {
            let ext_len = 8 * s.ipv6_ext.len() as u32;
            let plen = if s.ip_len_zero { 0 } else { u16::try_from(ext_len + tcp_len).expect("synth: IPv6 payload over 65535 bytes: use ip_len_zero") };
            let first = s.ipv6_ext.first().copied().unwrap_or(6);
            // Traffic Class in bits 4–11; its ECN field is bits 4–5 of byte 1.
            let mut p = vec![0x60, (s.ecn & 3) << 4, 0, 0];
            p.extend_from_slice(&plen.to_be_bytes());
            p.extend_from_slice(&[first, 64]);
            p.extend_from_slice(&a.octets());
            p.extend_from_slice(&b.octets());
            for (i, &kind) in s.ipv6_ext.iter().enumerate() {
                let next = s.ipv6_ext.get(i + 1).copied().unwrap_or(6);
                p.extend_from_slice(&ipv6_ext(kind, next));
            }
            p.extend_from_slice(&tcp);
            (0x86DD, p)
        }
        _ => unreachable!("checked above"),
    }
}
