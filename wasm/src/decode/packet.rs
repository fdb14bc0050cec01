//! One captured frame → a `TcpSegment`, or the warning that says why not.

use super::ip::{parse_ipv4, parse_ipv6, PROTO_TCP};
use super::ethertype::Net;
use super::link::{locate, LinkFrame};
use super::checksum;
use super::tcp::TcpHeader;
use super::{tls, tunnel};
use super::wifi::mac_identity;
use super::{FrameId, FrameMeta, Radio, TcpSegment, WarningKind};

/// Decode the frame `data` (captured bytes) of link type `lt`, whose original length
/// on the wire was `wire_len`.
pub fn decode_frame(lt: u32, data: &[u8], wire_len: u32, packet_index: u64, ts_ns: i64) -> Result<TcpSegment, WarningKind> {
    decode_record(lt, data, wire_len, packet_index, ts_ns, &mut 0)
}

/// [`decode_frame`], and in `unread` how many subframes of an 802.11 A-MSDU after its
/// first were not read (`WarningKind::AmsduSubframe`): an 802.11n/ac sender packs
/// several TCP segments into one frame (Wireshark's "A-MSDU Subframe"), and only the
/// first is analysed. The analysis keys rows by frame number (stall ends, bursts, wire
/// bytes, the radio strip), so further segments of one frame would need a number of
/// their own; until then they are counted, not dropped silently. (`unread` is an
/// out-parameter: returning a (segment, count) pair measured ≈ 7 % slower for the
/// native decoder on 2.5 M Ethernet packets.)
pub fn decode_record(lt: u32, data: &[u8], wire_len: u32, packet_index: u64, ts_ns: i64, unread: &mut u32) -> Result<TcpSegment, WarningKind> {
    let link = locate(lt, data)?;
    *unread = link.unread_subframes;
    let mut seg = decode_located(&link, data, wire_len, packet_index, ts_ns)?;
    if lt == super::link::linktype::ETHERNET {
        if let (Some(dst), Some(src)) = (data.get(..6), data.get(6..12)) {
            seg.frame_id.macs = [mac_hash(dst), mac_hash(src)];
        }
    }
    Ok(seg)
}

/// A 48-bit MAC address as a non-zero 32-bit value (`FrameId::macs`): the high half of
/// its product with an odd 64-bit constant (a bijection on 64 bits), so two addresses
/// share a value 1 time in 2³².
fn mac_hash(b: &[u8]) -> u32 {
    let v = b.iter().fold(0u64, |v, &x| v << 8 | u64::from(x));
    ((v.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as u32) | 1
}

/// The packet at `link.ip` in `data`: IP (through tunnels), then TCP.
#[inline(always)]
fn decode_located(link: &LinkFrame, data: &[u8], wire_len: u32, packet_index: u64, ts_ns: i64) -> Result<TcpSegment, WarningKind> {
    let (mut net, mut off, mut max_len) = (link.ip.net, link.ip.offset, link.ip.max_len);
    // Length of the IP packet on the wire, for TSO / BIG TCP packets whose IP length
    // field is 0 (see ip.rs). Assumes no link trailer, which holds for those captures
    // (they are taken on the host, before the NIC adds anything).
    let mut wire_ip_len = wire_len.max(data.len() as u32).saturating_sub(off as u32);
    let mut depth = 0;
    let (ip, ip_bytes) = loop {
        let ip_bytes = data.get(off..).ok_or(WarningKind::TruncatedHeaders)?;
        let mut ip = match net {
            Net::Ipv4 => parse_ipv4(ip_bytes, wire_ip_len)?,
            Net::Ipv6 => parse_ipv6(ip_bytes, wire_ip_len)?,
        };
        // The link layer's own length bounds the IP packet (PPPoE, RFC 2516 §4): bytes
        // beyond it are padding, never TCP data (Wireshark hands IP a buffer that long).
        // So does the outer packet's payload for a packet inside a tunnel.
        if let Some(max) = max_len {
            let room = max.saturating_sub(ip.payload_offset as u32);
            // An IP length past the link's own is not one a checksum can be verified over.
            ip.length_in_header &= ip.payload_len <= room;
            ip.payload_len = ip.payload_len.min(room);
        }
        if ip.protocol == PROTO_TCP {
            break (ip, ip_bytes);
        }
        // A tunnel (tunnel.rs): analyse the packet inside it.
        let payload = ip_bytes.get(ip.payload_offset..).unwrap_or(&[]);
        let inside = match tunnel::inner(ip.protocol, payload, ip.payload_len) {
            Some(_) if depth == tunnel::MAX_DEPTH => return Err(WarningKind::NotTcp),
            Some(Ok(inside)) => inside,
            // Inside the tunnel but not IP (ARP over VXLAN, ...): still an IP packet
            // that is not TCP, as far as the capture's warnings go.
            Some(Err(WarningKind::NotIp)) | None => return Err(WarningKind::NotTcp),
            Some(Err(e)) => return Err(e),
        };
        depth += 1;
        off += ip.payload_offset + inside.offset;
        net = inside.net;
        max_len = inside.max_len;
        wire_ip_len = max_len.unwrap_or(0);
    };
    let tcp_bytes = ip_bytes.get(ip.payload_offset..).ok_or(WarningKind::TruncatedHeaders)?;
    let tcp = TcpHeader::parse(tcp_bytes)?;
    let hl = tcp.header_len() as u32;
    // The IP length must at least cover the TCP header it announces.
    let payload_len = ip.payload_len.checked_sub(hl).ok_or(WarningKind::MalformedPacket)?;
    let wifi = link.wifi_at.and_then(|at| mac_identity(data, at));
    let radio = link.radio.map(|r| Radio { retry: wifi.is_some_and(|(retry, _)| retry), ..r });
    // The checksum covers exactly the IP header's TCP length (bytes past it are link
    // padding), so only a frame captured that far can be verified.
    let segment = tcp_bytes.get(..ip.payload_len as usize);
    let whole = ip.length_in_header && !ip.routed && segment.is_some();
    let checksum = checksum::verify(segment.unwrap_or(&[]), ip.src, ip.dst, whole);
    // One byte compared per segment; the rest of the test only where it is 21 (tls.rs).
    let tls_alert = match tcp_bytes.get(hl as usize..) {
        Some(payload) if payload.first() == Some(&tls::ALERT) => tls::alert_at_start(payload, payload_len),
        _ => None,
    };
    let (zero_tail, lead_nonzero) = padding_evidence(ip.ident.is_some() && ip.payload_offset as u32 + ip.payload_len <= ETHERNET_MIN_PAYLOAD, tcp_bytes.get(hl as usize..ip.payload_len as usize));
    let head = payload_head(tcp_bytes.get(hl as usize..(ip.payload_len as usize).min(tcp_bytes.len())));
    let app = tcp_bytes.get(hl as usize..(ip.payload_len as usize).min(tcp_bytes.len())).map_or_else(Default::default, super::app_line::AppLine::of);
    let mut options = tcp.options();
    if tcp.flags() & super::tcp_flags::SYN != 0 {
        options.syn_layout = super::syn_layout::of(tcp.option_bytes());
    }
    let mptcp = if options.mptcp { super::mptcp::read(tcp.option_bytes()).map(Box::new) } else { None };
    Ok(TcpSegment {
        packet_index,
        ts_ns,
        wire_len,
        src: ip.src,
        dst: ip.dst,
        src_port: tcp.src_port(),
        dst_port: tcp.dst_port(),
        seq: tcp.seq(),
        ack: tcp.ack(),
        flags: tcp.flags(),
        window: tcp.window(),
        ecn: ip.ecn | (u8::from(tcp.ae()) << 2),
        payload_len,
        options,
        tls_alert,
        mptcp,
        frame_id: FrameId { ip_id: ip.ident, ip_ttl: ip.ttl, wifi, macs: [0, 0] },
        meta: FrameMeta { process: None, radio, checksum, zero_tail, head, app, bits: super::FrameBits::new(lead_nonzero, false) },
    })
}

/// Payload bytes hashed for `FrameMeta::head`: enough to reach past a shared prefix
/// ("HTTP/1.1 " of two different status lines).
pub const HEAD_BYTES: usize = 64;

/// `FrameMeta::head`: FNV-1a, folded to 8 bits, of the payload's first [`HEAD_BYTES`] bytes (bytes past the
/// IP length, link padding, are not payload); 0 where the frame holds fewer (the snaplen,
/// a short segment: two heads compare only over the same bytes) or they are all zero (a
/// capture that blanked payloads).
fn payload_head(payload: Option<&[u8]>) -> u8 {
    let Some(p) = payload.and_then(|p| p.get(..HEAD_BYTES)) else { return 0 };
    if p.iter().all(|&b| b == 0) {
        return 0;
    }
    let h = p.iter().fold(0x811c_9dc5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    (h.to_le_bytes().iter().fold(0u8, |x, &b| x ^ b)).max(1)
}

/// Ethernet's minimum payload (IEEE 802.3 §3.2.7: a 64-byte frame less 14 bytes of
/// header and 4 of FCS): a shorter datagram is padded to it on the wire.
const ETHERNET_MIN_PAYLOAD: u32 = 46;

/// (`FrameMeta::zero_tail`, `FrameBits::lead_nonzero`) of a payload (None: not
/// captured in full). `small`: an IPv4 datagram no longer than Ethernet's minimum
/// payload, so at most 6 bytes of TCP payload (46 − 20 − 20), which link padding may
/// fill when a box wrote the padded length into the IP header
/// (analysis/track/padding.rs).
fn padding_evidence(small: bool, payload: Option<&[u8]>) -> (u8, bool) {
    let Some(payload) = payload else { return (0, false) };
    let lead = payload.first().is_some_and(|&b| b != 0);
    if !small || payload.len() > 6 {
        return (0, lead);
    }
    (payload.iter().rev().take_while(|&&b| b == 0).count() as u8, lead)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_needs_64_captured_bytes_not_all_zero() {
        let mut a = b"HTTP/1.1 200 OK\r\n".to_vec();
        a.resize(64, b'x');
        let mut b = a.clone();
        b[9..12].copy_from_slice(b"301");
        assert_ne!(payload_head(Some(&a)), payload_head(Some(&b)));
        assert_ne!(payload_head(Some(&a)), 0);
        assert_eq!(payload_head(Some(&a[..63])), 0, "cut by the snaplen, or a short segment");
        assert_eq!(payload_head(Some(&[0; 100])), 0, "a blanked payload");
    }

    #[test]
    fn ethernet_ipv4_tcp_cut_by_snaplen() {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x08, 0x00]);
        // IPv4, total length 1500
        f.extend_from_slice(&[0x45, 0, 0x05, 0xdc, 0, 0, 0x40, 0, 64, 6, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
        // TCP 20 bytes, ACK, window 512
        f.extend_from_slice(&[0, 80, 0x9c, 0x40, 0, 0, 0, 1, 0, 0, 0, 2, 0x50, 0x10, 2, 0, 0, 0, 0, 0]);
        f.extend_from_slice(&[0xEE; 10]); // 10 bytes of payload captured of 1460
        let s = decode_frame(1, &f, 1514, 7, 42).unwrap();
        assert_eq!((s.src_port, s.dst_port, s.seq, s.ack), (80, 40000, 1, 2));
        assert_eq!((s.flags, s.window, s.payload_len, s.wire_len), (0x10, 512, 1460, 1514));
        assert_eq!((s.packet_index, s.ts_ns), (7, 42));
        // Cut inside the TCP header.
        assert_eq!(decode_frame(1, &f[..40], 1514, 0, 0), Err(WarningKind::TruncatedHeaders));
        // IP total length shorter than the TCP header.
        let mut bad = f.clone();
        bad[17] = 30;
        bad[16] = 0;
        assert_eq!(decode_frame(1, &bad, 1514, 0, 0), Err(WarningKind::MalformedPacket));
        // UDP
        let mut udp = f.clone();
        udp[23] = 17;
        assert_eq!(decode_frame(1, &udp, 1514, 0, 0), Err(WarningKind::NotTcp));
    }

    /// Tunnels are followed MAX_DEPTH (4) deep: 4 IPv4-in-IPv4 headers around a TCP
    /// segment decode; a 5th makes it a packet that is not TCP (no unbounded work).
    #[test]
    fn tunnel_depth_is_bounded() {
        let tcp = [0, 80, 0x9c, 0x40, 0, 0, 0, 1, 0, 0, 0, 2, 0x50, 0x10, 2, 0, 0, 0, 0, 0];
        let nest = |outer: usize| {
            let mut f = vec![0u8; 12];
            f.extend_from_slice(&[0x08, 0x00]);
            for i in 0..=outer {
                let total = (20 * (outer + 1 - i) + tcp.len()) as u16;
                let proto = if i == outer { 6 } else { 4 };
                f.extend_from_slice(&[0x45, 0, (total >> 8) as u8, total as u8, 0, 0, 0x40, 0, 64, proto, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
            }
            f.extend_from_slice(&tcp);
            f
        };
        let f = nest(4);
        assert_eq!(decode_frame(1, &f, f.len() as u32, 0, 0).map(|s| (s.dst_port, s.payload_len)), Ok((40000, 0)));
        let f = nest(5);
        assert_eq!(decode_frame(1, &f, f.len() as u32, 0, 0), Err(WarningKind::NotTcp));
    }
}
