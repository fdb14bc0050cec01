//! Link headers of `synth` for the Mac / Wi-Fi / carrier link types, written byte for
//! byte from their specs (the same references as the decoder: Apple PKTAP as in
//! Wireshark packet-pktap.c, CACE PPI 1.0.10, RFC 1661/1662 PPP, RFC 3032 MPLS,
//! RFC 2516 PPPoE, radiotap.org fields, tcpdump.org LINKTYPE_NFLOG).

use super::Frame;

/// Radio fields of a radiotap header (radiotap.org "Defined fields"), and the frame's
/// 802.11 Retry bit and sequence number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RadioFields {
    /// Field 2, 500 kbit/s units.
    pub rate: Option<u8>,
    /// Field 3, MHz (channel flags 0).
    pub channel_mhz: Option<u16>,
    /// Field 5, dBm.
    pub signal_dbm: Option<i8>,
    /// Field 19 (known, flags, index).
    pub mcs: Option<(u8, u8, u8)>,
    /// Field 21 (known, flags, bandwidth, mcs_nss of user 0).
    pub vht: Option<(u16, u8, u8, u8)>,
    /// 802.11 Frame Control Retry bit.
    pub retry: bool,
    /// 802.11 sequence number (12 bits).
    pub seq: u16,
}

/// Append `f`'s radiotap header (no fields when `f.radio` is None).
pub fn radiotap(b: &mut Vec<u8>, f: &Frame) {
    let Some(r) = &f.radio else {
        b.extend_from_slice(&[0, 0, 8, 0, 0, 0, 0, 0]);
        return;
    };
    let start = b.len();
    let mut present = 0u32;
    let mut fields: Vec<u8> = Vec::new();
    // Fields in bit order, each aligned to its size from the header start (8 bytes of
    // version, pad, length, present come first).
    let mut put = |bit: u32, align: usize, bytes: &[u8]| {
        present |= 1 << bit;
        while !(8 + fields.len()).is_multiple_of(align) {
            fields.push(0);
        }
        fields.extend_from_slice(bytes);
    };
    if let Some(rate) = r.rate {
        put(2, 1, &[rate]);
    }
    if let Some(mhz) = r.channel_mhz {
        let mut c = mhz.to_le_bytes().to_vec();
        c.extend_from_slice(&[0, 0]);
        put(3, 2, &c);
    }
    if let Some(dbm) = r.signal_dbm {
        put(5, 1, &[dbm as u8]);
    }
    if let Some((known, flags, index)) = r.mcs {
        put(19, 1, &[known, flags, index]);
    }
    if let Some((known, flags, bw, mcs_nss)) = r.vht {
        let mut v = known.to_le_bytes().to_vec();
        v.extend_from_slice(&[flags, bw, mcs_nss, 0, 0, 0, 0, 0, 0, 0]);
        put(21, 2, &v);
    }
    let len = (8 + fields.len()) as u16;
    b.extend_from_slice(&[0, 0]);
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(&present.to_le_bytes());
    b.extend_from_slice(&fields);
    debug_assert_eq!(b.len() - start, usize::from(len));
}

/// The 802.11 QoS data frame (to-DS) header + LLC/SNAP of `f`, with its Retry bit and
/// sequence number.
pub fn qos_data(b: &mut Vec<u8>, f: &Frame, ht_control: bool) {
    let (retry, seq) = f.radio.as_ref().map_or((false, 1), |r| (r.retry, r.seq));
    let fc_flags = 0x01 | if ht_control { 0x80 } else { 0 } | if retry { 0x08 } else { 0 };
    b.extend_from_slice(&[0x88, fc_flags, 0, 0]);
    b.extend_from_slice(&[0x02, 0, 0, 0, 0, 9, 0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2]);
    b.extend_from_slice(&((seq & 0x0fff) << 4).to_le_bytes()); // sequence control, fragment 0
    b.extend_from_slice(&[0x00, 0x00]); // QoS control
    if ht_control {
        b.extend_from_slice(&[0, 0, 0, 0]);
    }
    b.extend_from_slice(&[0xAA, 0xAA, 0x03, 0, 0, 0]);
    b.extend_from_slice(&f.ethertype.to_be_bytes());
}

/// Apple PKTAP header (108 bytes, little-endian) for a frame of link type `dlt`.
pub fn pktap(b: &mut Vec<u8>, f: &Frame, dlt: u32) {
    let mut h = [0u8; 108];
    h[0..4].copy_from_slice(&108u32.to_le_bytes());
    h[4..8].copy_from_slice(&1u32.to_le_bytes()); // a packet follows
    h[8..12].copy_from_slice(&dlt.to_le_bytes());
    h[12..15].copy_from_slice(b"en0");
    let (pid, name) = f.process.clone().unwrap_or((u32::MAX, String::new()));
    let name = &name.as_bytes()[..name.len().min(19)];
    h[52..56].copy_from_slice(&pid.to_le_bytes());
    h[56..56 + name.len()].copy_from_slice(name);
    h[84..88].copy_from_slice(&pid.to_le_bytes()); // effective process: the same
    h[88..88 + name.len()].copy_from_slice(name);
    b.extend_from_slice(&h);
}

/// PPI header (version 0, flags 0, length 32, DLT) with one 802.11-Common field
/// (rate, channel MHz, signal dBm from `f.radio`).
pub fn ppi(b: &mut Vec<u8>, f: &Frame, dlt: u32) {
    b.extend_from_slice(&[0, 0, 32, 0]);
    b.extend_from_slice(&dlt.to_le_bytes());
    b.extend_from_slice(&[2, 0, 20, 0]);
    let mut common = [0u8; 20];
    if let Some(r) = &f.radio {
        common[10..12].copy_from_slice(&u16::from(r.rate.unwrap_or(0)).to_le_bytes());
        common[12..14].copy_from_slice(&r.channel_mhz.unwrap_or(0).to_le_bytes());
        common[18] = r.signal_dbm.unwrap_or(0) as u8;
    }
    b.extend_from_slice(&common);
}

/// PPP protocol number of an Ethertype (IPv4 0x0021, IPv6 0x0057, MPLS 0x0281).
fn ppp_protocol(ethertype: u16) -> u16 {
    match ethertype {
        0x0800 => 0x0021,
        0x86DD => 0x0057,
        0x8847 => 0x0281,
        _ => 0xc021, // LCP: not IP
    }
}

/// PPP header: address/control unless `acfc`, the protocol, one byte when `pfc` and
/// the protocol allows it (RFC 1661 §6.5-6.6).
pub fn ppp(b: &mut Vec<u8>, ethertype: u16, acfc: bool, pfc: bool) {
    if !acfc {
        b.extend_from_slice(&[0xff, 0x03]);
    }
    let p = ppp_protocol(ethertype);
    if pfc && p < 0x100 && p & 1 == 1 {
        b.push(p as u8);
    } else {
        b.extend_from_slice(&p.to_be_bytes());
    }
}

/// An MPLS label stack (RFC 3032 §2.1), TTL 64, bottom-of-stack on the last label.
pub fn mpls(b: &mut Vec<u8>, labels: &[u32]) {
    for (i, l) in labels.iter().enumerate() {
        let bos = u32::from(i + 1 == labels.len());
        b.extend_from_slice(&((l << 12) | (bos << 8) | 64).to_be_bytes());
    }
}

/// A PPPoE session header (RFC 2516 §4: ver/type 0x11, code 0, session 1, length)
/// for a PPP payload of `ppp_len` bytes.
pub fn pppoe(b: &mut Vec<u8>, ppp_len: usize) {
    b.extend_from_slice(&[0x11, 0x00, 0x00, 0x01]);
    b.extend_from_slice(&(ppp_len as u16).to_be_bytes());
}

/// One NFLOG TLV (tcpdump.org LINKTYPE_NFLOG): length (header included, padding not)
/// and type in the capturing host's byte order, the value, zero padding to 4 bytes.
fn nflog_tlv(b: &mut Vec<u8>, kind: u16, value: &[u8], big: bool) {
    let len = u16::try_from(4 + value.len()).expect("synth: NFLOG TLV over 64 KiB");
    let (l, k) = if big { (len.to_be_bytes(), kind.to_be_bytes()) } else { (len.to_le_bytes(), kind.to_le_bytes()) };
    b.extend_from_slice(&l);
    b.extend_from_slice(&k);
    b.extend_from_slice(value);
    b.resize(b.len() + (4 - value.len() % 4) % 4, 0);
}

/// An NFLOG record as the kernel builds one for an outgoing packet on group 5
/// (net/netfilter/nfnetlink_log.c `__build_packet_message`, in its order): family
/// (AF_INET 2 / AF_INET6 10; NFPROTO_ARP 3 for anything else), version 0, group
/// big-endian; then NFULA_PACKET_HDR (1: Ethertype, hook 3 = LOCAL_OUT), NFULA_PREFIX
/// (10: "tcpscope" + NUL, 9 bytes, so 3 bytes of padding), NFULA_IFINDEX_OUTDEV (5),
/// NFULA_UID (11) and NFULA_GID (14), and NFULA_PAYLOAD (9: the packet from its
/// network header on), padded.
pub fn nflog(b: &mut Vec<u8>, f: &Frame, big: bool) {
    let family = match f.ethertype {
        0x0800 => 2,
        0x86DD => 10,
        _ => 3,
    };
    b.extend_from_slice(&[family, 0, 0, 5]);
    let mut hdr = f.ethertype.to_be_bytes().to_vec();
    hdr.extend_from_slice(&[3, 0]);
    nflog_tlv(b, 1, &hdr, big);
    nflog_tlv(b, 10, b"tcpscope\0", big);
    nflog_tlv(b, 5, &2u32.to_be_bytes(), big);
    nflog_tlv(b, 11, &1000u32.to_be_bytes(), big);
    nflog_tlv(b, 14, &1000u32.to_be_bytes(), big);
    nflog_tlv(b, 9, &f.net, big);
}

/// Ethernet + outer IPv4 + the tunnel's headers + `f.net` (see `Link::Tunnel`).
pub fn tunnel(b: &mut Vec<u8>, t: &super::file::Tunnel, f: &Frame) {
    use super::file::Tunnel::*;
    const ETH: [u8; 12] = [0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1];
    let inner_eth = || [&ETH[..], &f.ethertype.to_be_bytes()].concat();
    let udp = |port: u16, len: usize| -> Vec<u8> {
        let l = (8 + len) as u16;
        [&[0xC3, 0x50][..], &port.to_be_bytes(), &l.to_be_bytes(), &[0, 0]].concat()
    };
    let (proto, head): (u8, Vec<u8>) = match t {
        IpInIp => (if f.ethertype == 0x86DD { 41 } else { 4 }, vec![]),
        Gre => (47, [&[0x30, 0x00][..], &f.ethertype.to_be_bytes(), &[0, 0, 0, 9, 0, 0, 0, 1]].concat()),
        ErspanII => (47, [&[0x10, 0x00, 0x88, 0xBE, 0, 0, 0, 1][..], &[0x10, 0, 0, 1, 0, 0, 0, 0], &inner_eth()].concat()),
        Vxlan => {
            let h = [&[0x08, 0, 0, 0, 0, 0, 0x2A, 0][..], &inner_eth()].concat();
            (17, [udp(4789, h.len() + f.net.len()), h].concat())
        }
        Geneve => {
            let h = [&[0x02, 0, 0x65, 0x58, 0, 0, 0x2A, 0][..], &[0; 8], &inner_eth()].concat();
            (17, [udp(6081, h.len() + f.net.len()), h].concat())
        }
        GtpU => {
            // flags: version 1, PT, E and S; G-PDU; length = everything after the
            // first 8 bytes; TEID 1; sequence 0, N-PDU 0, next extension 0x85 (PDU
            // session container, 4 bytes, QFI 9, no next extension).
            let len = (4 + 4 + f.net.len()) as u16;
            let h = [&[0x36, 0xFF][..], &len.to_be_bytes(), &[0, 0, 0, 1, 0, 0, 0, 0x85, 1, 0x10, 0x09, 0x00]].concat();
            (17, [udp(2152, h.len() + f.net.len()), h].concat())
        }
    };
    b.extend_from_slice(&ETH);
    b.extend_from_slice(&[0x08, 0x00]);
    let total = (20 + head.len() + f.net.len()) as u16;
    b.extend(super::ip::ipv4_header(total, proto, [192, 0, 2, 1], [192, 0, 2, 2], None));
    b.extend(head);
    b.extend_from_slice(&f.net);
}
