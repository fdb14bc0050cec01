//! Files written with `synth` for every link type, both pcap byte orders, µs and ns
//! magic, and multi-interface / multi-section pcapng; each fed whole and in chunks of
//! 1, 7 and 4096 bytes, which must give identical output.

use tcpscope_core::decode::tcp_flags::*;
use tcpscope_core::decode::{Decoded, TcpSegment, WarningKind};
use tcpscope_core::synth::*;

use crate::common;
use common::decode_every_split as decode;
use common::{tcp};

/// Check decoded segments against the script (everything but packet index and wire length).
fn assert_matches(got: &[&TcpSegment], want: &[Segment]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.src, g.dst, g.src_port, g.dst_port), (w.src.ip(), w.dst.ip(), w.src.port(), w.dst.port()));
        assert_eq!((g.seq, g.ack, g.flags, g.window, g.payload_len), (w.seq, w.ack, w.flags, w.window, w.payload_len));
        // The decoder also reads a SYN's option order (syn_layout.rs), which a script
        // does not set: compared apart from it.
        let mut options = g.options;
        options.syn_layout = Default::default();
        assert_eq!(options, w.options);
        assert_eq!(g.ts_ns, w.ts_ns);
    }
}

fn flow(v6: bool) -> Flow {
    let mut f = if v6 { Flow::new("[2001:db8::1]:40000", "[2001:db8::2]:443") } else { Flow::new("10.0.0.1:40000", "10.0.0.2:80") };
    f.handshake(0, 2_800, Opts::new().mss(1460).sack_perm().ts(100, 0).wscale(7), Opts::new().mss(1400).sack_perm().wscale(9));
    f.data(C2S, 5_000, 1448).opts(Opts::new().ts(101, 7));
    f.data(C2S, 5_100, 1448);
    f.push(S2C, 7_900).window(300).opts(Opts::new().sack(&[(1, 2), (3, 4), (5, 6)]).ts(8, 101));
    f.push(C2S, 250_000).seq(1001).payload(1448); // retransmission
    f.push(C2S, 300_000).flags(FIN | ACK);
    f.push(S2C, 302_800).flags(FIN | ACK);
    f
}

/// The flow's frames with an ARP and a UDP frame inserted.
fn frames(f: &Flow) -> Vec<Frame> {
    let mut v = f.frames();
    v.insert(1, Frame::arp(Flow::EPOCH_NS + 1_000));
    v.insert(5, Frame::udp(Flow::EPOCH_NS + 5_050_000));
    v
}

fn check(link: &Link, v6: bool, name: &str) {
    let f = flow(v6);
    let bytes = write_pcap(&frames(&f), link, Endian::Little, TsResolution::Micro);
    let (out, info, err) = decode(&bytes);
    assert_eq!(err, None, "{link:?}");
    assert_matches(&tcp(&out), f.segments());
    assert_eq!(info.packets, f.segments().len() as u64 + 2);
    assert_eq!(info.warnings.get(&WarningKind::NotIp), Some(&1), "{link:?}");
    assert_eq!(info.warnings.get(&WarningKind::NotTcp), Some(&1), "{link:?}");
    assert_eq!(info.link_types, vec![name.to_string()]);
    assert_eq!(info.bytes_consumed, bytes.len() as u64);
    assert_eq!(info.format, Some("pcap"));
    // packet indices are file order, including the non-TCP frames
    let idx: Vec<u64> = out.iter().map(|p| match p {
        Decoded::Tcp(s) => s.packet_index,
        Decoded::Other { packet_index, .. } => *packet_index,
    }).collect();
    assert_eq!(idx, (0..info.packets).collect::<Vec<_>>());
}

#[test]
fn every_link_type_ipv4_and_ipv6() {
    for v6 in [false, true] {
        check(&Link::Ethernet, v6, "ethernet");
        check(&Link::EthernetVlan(vec![(0x8100, 5)]), v6, "ethernet");
        check(&Link::EthernetVlan(vec![(0x88A8, 100), (0x8100, 5), (0x8100, 6)]), v6, "ethernet");
        check(&Link::LinuxSll, v6, "linux-sll");
        check(&Link::LinuxSll2, v6, "linux-sll2");
        for dlt in [101, 12, 14] {
            check(&Link::Raw(dlt), v6, "raw");
        }
        check(&Link::Raw(if v6 { 229 } else { 228 }), v6, "raw");
        for af in [24, 28, 30] {
            check(&Link::Null { big_endian: false, af_inet6: af }, v6, "null");
            check(&Link::Null { big_endian: true, af_inet6: af }, v6, "null");
        }
        check(&Link::Radiotap { ht_control: false }, v6, "ieee802-11-radiotap");
        check(&Link::Radiotap { ht_control: true }, v6, "ieee802-11-radiotap");
    }
}

#[test]
fn pcap_byte_orders_and_nanoseconds() {
    let mut f = flow(false);
    f.push(C2S, 400_000).at_ns(Flow::EPOCH_NS + 400_000_123);
    let fr = f.frames();
    let le = decode(&write_pcap(&fr, &Link::Ethernet, Endian::Little, TsResolution::Nano));
    let be = decode(&write_pcap(&fr, &Link::Ethernet, Endian::Big, TsResolution::Nano));
    assert_eq!(le, be);
    assert_matches(&tcp(&le.0), f.segments());
    assert_eq!(le.1.last_ts_ns, Some(Flow::EPOCH_NS + 400_000_123));
    // microsecond files lose the nanoseconds, in both byte orders
    let us = decode(&write_pcap(&fr, &Link::Ethernet, Endian::Big, TsResolution::Micro));
    assert_eq!(us.1.last_ts_ns, Some(Flow::EPOCH_NS + 400_000_000));
    assert_eq!(us.1.first_ts_ns, Some(Flow::EPOCH_NS));
}

#[test]
fn pcapng_sections_interfaces_and_block_kinds() {
    let a = flow(false);
    let b = flow(true);
    // Section 1 (little-endian): Ethernet µs + Linux SLL ns, interleaved, unknown blocks.
    let mut s1: Vec<Frame> = Vec::new();
    for (x, y) in a.frames().into_iter().zip(b.frames()) {
        s1.push(x);
        s1.push(y.interface(1));
    }
    let mut sec1 = Section::new(Endian::Little, vec![Interface::new(Link::Ethernet), Interface::new(Link::LinuxSll).tsresol(9)], s1);
    sec1.unknown_blocks = true;
    // Section 2 (big-endian): raw IP with 2^-20 s units; an obsolete Packet Block and a
    // Simple Packet Block (no timestamp: it takes the previous packet's).
    let c = flow(false);
    let mut s2: Vec<Frame> = c.frames().into_iter().map(|f| f.interface(1)).collect();
    s2[1].block = BlockKind::ObsoletePacket;
    let spb_ts = s2[1].ts_ns;
    s2.insert(2, Frame::udp(0).block(BlockKind::Simple));
    let sec2 = Section::new(Endian::Big, vec![Interface::new(Link::Ethernet).tsresol(3), Interface::new(Link::Raw(101)).tsresol(0x80 | 20)], s2);
    let bytes = write_pcapng(&[sec1, sec2]);
    let (out, info, err) = decode(&bytes);
    assert_eq!(err, None);
    assert_eq!(info.format, Some("pcapng"));
    assert_eq!(info.link_types, vec!["ethernet", "linux-sll", "raw"]);
    let n = a.segments().len();
    assert_eq!(info.packets as usize, 3 * n + 1);
    let segs = tcp(&out);
    let first: Vec<&TcpSegment> = segs[..2 * n].iter().step_by(2).copied().collect();
    let second: Vec<&TcpSegment> = segs[..2 * n].iter().skip(1).step_by(2).copied().collect();
    assert_matches(&first, a.segments());
    assert_matches(&second, b.segments());
    // 2^-20 s units are exact for these µs times only to within 1 µs.
    for (g, w) in segs[2 * n..].iter().zip(c.segments()) {
        assert!((g.ts_ns - w.ts_ns).abs() < 1_000, "{} vs {}", g.ts_ns, w.ts_ns);
        assert_eq!((g.seq, g.ack, g.flags, g.payload_len), (w.seq, w.ack, w.flags, w.payload_len));
    }
    match out[2 * n + 2] {
        Decoded::Other { ts_ns, .. } => assert!((ts_ns - spb_ts).abs() < 1_000),
        ref o => panic!("SPB should be the UDP frame, got {o:?}"),
    }
    assert_eq!(info.warnings.get(&WarningKind::NotTcp), Some(&1));
    assert_eq!(info.bytes_consumed, bytes.len() as u64);
}

#[test]
fn snaplen_tso_bigtcp_extension_headers_fragments() {
    let mut f = Flow::new("10.0.0.1:1", "10.0.0.2:2");
    f.data(C2S, 0, 1448).snaplen(14 + 20 + 20 + 10); // payload cut
    f.data(C2S, 1, 1448).opts(Opts::new().mss(1).ts(5, 6)).snaplen(14 + 20 + 20 + 6); // options cut
    f.data(C2S, 2, 60_000).ip_len_zero(); // TSO super-packet
    f.data(C2S, 3, 1000).fragment(0, true);
    f.data(C2S, 4, 10).snaplen(14 + 20 + 10); // TCP header cut
    let mut g = Flow::new("[::1]:1", "[::2]:2");
    g.data(C2S, 5, 80_000).ip_len_zero(); // BIG TCP
    g.data(C2S, 6, 100).ipv6_ext(&[0, 60, 43, 44]);
    let mut frames = f.frames();
    frames.extend(g.frames());
    let (out, info, err) = decode(&write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro));
    assert_eq!(err, None);
    let s = tcp(&out);
    assert_eq!(s.iter().map(|s| s.payload_len).collect::<Vec<_>>(), vec![1448, 1448, 60_000, 80_000, 100]);
    assert_eq!(s[1].options.mss, Some(1)); // the timestamp option was cut off
    assert_eq!(s[1].options.timestamp, None);
    assert_eq!(s[3].wire_len, 14 + 40 + 20 + 80_000);
    assert_eq!(info.warnings.get(&WarningKind::TcpFragment), Some(&1));
    assert_eq!(info.warnings.get(&WarningKind::IpFragment), None);
    assert_eq!(info.warnings.get(&WarningKind::TruncatedHeaders), Some(&1));
}

#[test]
fn unknown_link_type_and_time_going_backwards() {
    let mut f = Flow::new("10.0.0.1:1", "10.0.0.2:2");
    f.data(C2S, 100, 10);
    f.data(C2S, 50, 10);
    let (out, info, err) = decode(&write_pcap(&f.frames(), &Link::Other(147), Endian::Little, TsResolution::Micro));
    assert_eq!(err, None);
    assert_eq!(out.len(), 2);
    assert_eq!(info.link_types, vec!["linktype-147"]);
    assert_eq!(info.warnings.get(&WarningKind::UnknownLinkType), Some(&2));
    assert_eq!(info.warnings.get(&WarningKind::TimeWentBackwards), Some(&1));
    assert_eq!((info.first_ts_ns, info.last_ts_ns), (Some(Flow::EPOCH_NS + 100_000), Some(Flow::EPOCH_NS + 100_000)));
    assert_eq!(info.bytes, 2 * (20 + 20 + 10));
}

/// Patch the sub-second field (bytes 4..8 of each 16-byte record header, little-endian)
/// of every pcap record in `bytes`, in order.
fn with_subsecond_fields(mut bytes: Vec<u8>, fields: &[u32]) -> Vec<u8> {
    let mut at = 24;
    for &v in fields {
        bytes[at + 4..at + 8].copy_from_slice(&v.to_le_bytes());
        let caplen = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 16 + caplen;
    }
    bytes
}

#[test]
fn impossible_timestamps_are_carried_and_reported() {
    // tcpdump's tests/timestamp_invalid_{micro,nano}.pcap: sub-second fields of 1 s and
    // of 2^31 units. draft-ietf-opsawg-pcap §5: the field counts units "elapsed since the
    // start of that second", so only the first packet's is valid; the others are carried
    // into the seconds (libpcap's and Wireshark's arithmetic) and reported.
    let mut f = Flow::new("10.0.0.1:1", "10.0.0.2:2");
    for _ in 0..3 {
        f.data(C2S, 0, 10); // all at EPOCH_NS (a whole second); the fields are patched below
    }
    for (res, unit_ns, valid_max) in [(TsResolution::Micro, 1_000i64, 999_999u32), (TsResolution::Nano, 1, 999_999_999)] {
        let bytes = with_subsecond_fields(write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, res), &[valid_max, valid_max + 1, 1 << 31]);
        let (out, info, err) = decode(&bytes);
        assert_eq!(err, None);
        assert_eq!(out.len(), 3);
        assert_eq!(info.warnings.get(&WarningKind::ImpossibleTimestamp), Some(&2), "{res:?}");
        let ts: Vec<i64> = tcp(&out).iter().map(|s| s.ts_ns - Flow::EPOCH_NS).collect();
        assert_eq!(ts, vec![i64::from(valid_max) * unit_ns, 1_000_000_000, (1i64 << 31) * unit_ns], "{res:?}");
    }
}

#[test]
fn a_pcapng_time_past_2262_is_held_and_reported() {
    // draft-ietf-opsawg-pcapng §4.3: an Enhanced Packet Block's timestamp is an unsigned
    // 64-bit count of if_tsresol units (µs here). PcapPlusPlus's pcapng-example.pcapng has
    // counts near 2^64 µs (year 586 524 in Wireshark); past 2262-04-11 the time cannot be
    // held in i64 nanoseconds, so it is held at i64::MAX and the packet reported.
    let mut f = Flow::new("10.0.0.1:1", "10.0.0.2:2");
    f.data(C2S, 0, 10);
    f.data(C2S, 100, 10);
    let mut bytes = write_pcapng(&[Section::new(Endian::Little, vec![Interface::new(Link::Ethernet)], f.frames())]);
    // Walk the blocks (type, total length) to the second EPB (type 6); its timestamp's
    // high word is at +12.
    let (mut at, mut epbs) = (0, 0);
    while epbs < 2 {
        let word = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let len = word(&bytes, at + 4) as usize;
        if word(&bytes, at) == 6 {
            epbs += 1;
            if epbs == 2 {
                bytes[at + 12..at + 16].copy_from_slice(&u32::MAX.to_le_bytes());
            }
        }
        at += len;
    }
    let (out, info, err) = decode(&bytes);
    assert_eq!(err, None);
    assert_eq!(info.warnings.get(&WarningKind::ImpossibleTimestamp), Some(&1));
    assert_eq!(tcp(&out).iter().map(|s| s.ts_ns).collect::<Vec<_>>(), vec![Flow::EPOCH_NS, i64::MAX]);
}
