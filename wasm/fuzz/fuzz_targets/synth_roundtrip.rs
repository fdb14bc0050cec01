//! Round trip: the input scripts TCP segments (addresses, seq/ack, flags, window,
//! payload, options, snaplen, time), `synth` writes them as pcap or pcapng on one of
//! the supported link types, and the decoder must give back exactly those segments
//! (no error, no warning but time order, every field equal); the analysis and JSON
//! report then run over the file with a chunk size from the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::{CaptureDecoder, Decoded, TcpOptions, WarningKind};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

/// Reads the fuzzer's bytes as a script; zeros once they run out.
struct Script<'a>(&'a [u8]);
impl Script<'_> {
    fn u8(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.0 = rest;
        b
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn bit(&mut self) -> bool {
        self.u8() & 1 == 1
    }
}

/// Bytes of options the synth writer lays out (Linux layout, see synth/ip.rs).
fn option_bytes(o: &TcpOptions) -> usize {
    let mut n = if o.mss.is_some() { 4 } else { 0 };
    n += match (o.sack_permitted, o.timestamp.is_some()) {
        (true, true) => 2,
        (true, false) => 4,
        (false, true) => 2,
        (false, false) => 0,
    };
    n += if o.timestamp.is_some() { 10 } else { 0 };
    n += if o.window_scale.is_some() { 4 } else { 0 };
    if o.sack_count > 0 {
        n += 4 + 8 * usize::from(o.sack_count);
    }
    n.div_ceil(4) * 4
}

fn options(s: &mut Script) -> TcpOptions {
    let which = s.u8();
    let mut o = TcpOptions::default();
    if which & 1 != 0 {
        o.mss = Some(s.u16());
    }
    if which & 2 != 0 {
        o.window_scale = Some(s.u8());
    }
    o.sack_permitted = which & 4 != 0;
    if which & 8 != 0 {
        o.timestamp = Some((s.u32(), s.u32()));
    }
    let blocks = (which >> 4) % 5;
    for i in 0..blocks {
        o.sack_blocks[usize::from(i)] = (s.u32(), s.u32());
    }
    o.sack_count = blocks;
    while option_bytes(&o) > 40 {
        o.sack_count -= 1;
        o.sack_blocks[usize::from(o.sack_count)] = (0, 0);
    }
    o
}

fn link(s: &mut Script, v6: bool) -> Link {
    match s.u8() % 9 {
        0 => Link::Ethernet,
        1 => Link::EthernetVlan(vec![(0x88A8, u16::from(s.u8())), (0x8100, s.u16() & 0x0fff)]),
        2 => Link::LinuxSll,
        3 => Link::LinuxSll2,
        4 => Link::Raw(101),
        5 => Link::Raw(if v6 { 229 } else { 228 }),
        6 => Link::Null { big_endian: s.bit(), af_inet6: [24, 28, 30][usize::from(s.u8() % 3)] },
        7 => Link::Radiotap { ht_control: s.bit() },
        _ => Link::EthernetVlan(vec![(0x8100, 7)]),
    }
}

fn endpoint(s: &mut Script, v6: bool) -> SocketAddr {
    let ip = if v6 {
        let mut o = [0u8; 16];
        o[0] = 0x20;
        o[1] = 0x01;
        o[15] = s.u8();
        IpAddr::V6(Ipv6Addr::from(o))
    } else {
        IpAddr::V4(Ipv4Addr::from(s.u32()))
    };
    SocketAddr::new(ip, s.u16())
}

fuzz_target!(|data: &[u8]| {
    let mut s = Script(data);
    let head = s.u8();
    let v6 = head & 1 != 0;
    let link = link(&mut s, v6);
    let format = (head >> 1) % 6; // 0-3 pcap (LE/BE × µs/ns), 4-5 pcapng (LE/BE)
    let endian = if format % 2 == 0 { Endian::Little } else { Endian::Big };
    let res = if format & 2 == 0 { TsResolution::Micro } else { TsResolution::Nano };
    let tsresol = if head & 0x80 != 0 { 9 } else { 6 };
    let (a, b) = (endpoint(&mut s, v6), endpoint(&mut s, v6));
    let mut t_ns: i64 = i64::from(s.u32()) * 1_000_000_000; // up to 2106 (u32 seconds)
    let n = 1 + usize::from(s.u8() % 16);

    let mut frames = Vec::new();
    let mut expected: Vec<Option<(Segment, u32)>> = Vec::new(); // None: not TCP
    let mut prev_ts: Option<i64> = None;
    let mut backwards = 0u64;
    for _ in 0..n {
        let ctl = s.u8();
        // time: forwards by up to ~4 s, sometimes backwards; in whole µs (every format holds it)
        let step = i64::from(s.u16()) * i64::from(1 + (ctl >> 5)) * 1000;
        t_ns = if ctl & 0x10 != 0 { (t_ns - step).max(0) } else { (t_ns + step).min(i64::from(u32::MAX) * 1_000_000_000) };
        let block = if format >= 4 && ctl & 0x08 != 0 { BlockKind::ObsoletePacket } else { BlockKind::Enhanced };
        if ctl & 0x07 == 7 {
            // a non-TCP frame in between
            // (an IPv4 UDP datagram or an ARP request; on an IPv6-only raw link the
            // decoder may call it malformed rather than not-TCP: any one warning will do)
            let f = if ctl & 0x08 != 0 { Frame::udp(t_ns) } else { Frame::arp(t_ns) }.block(block);
            frames.push(f);
            expected.push(None);
        } else {
            let (src, dst) = if ctl & 1 == 0 { (a, b) } else { (b, a) };
            let mut seg = Segment::new(&src.to_string(), &dst.to_string());
            seg.at_ns(t_ns).seq(s.u32()).ack(s.u32()).flags(s.u8()).window(s.u16()).payload(u32::from(s.u16() % 1600));
            seg.options = options(&mut s);
            if v6 && ctl & 2 != 0 {
                let kinds = [0u8, 60, 43, 44];
                let first = s.u8();
                let mut ext = vec![kinds[usize::from(first % 4)]];
                if first & 4 != 0 {
                    ext.push(kinds[1 + usize::from((first >> 3) % 3)]);
                }
                seg.ipv6_ext(&ext);
            }
            let mut f = seg.frame().block(block);
            let full = link.encapsulate(&f).len() as u32;
            if ctl & 4 != 0 {
                // a snaplen that cuts only the payload
                let headers = full - seg.payload_len;
                f = f.snaplen(headers + u32::from(s.u16()) % (seg.payload_len + 1));
            }
            frames.push(f);
            expected.push(Some((seg, full)));
        }
        if matches!(prev_ts, Some(p) if t_ns < p) {
            backwards += 1;
        }
        prev_ts = Some(t_ns);
    }
    let bytes = if format < 4 {
        write_pcap(&frames, &link, endian, res)
    } else {
        write_pcapng(&[Section::new(endian, vec![Interface::new(link.clone()).tsresol(tsresol)], frames.clone())])
    };

    let mut d = CaptureDecoder::new();
    let mut out = Vec::new();
    d.push(&bytes, &mut |p| out.push(p)).expect("synth output decodes");
    d.finish().expect("synth output is complete");
    assert_eq!(out.len(), n, "one decoded packet per frame");
    for (i, (got, want)) in out.iter().zip(&expected).enumerate() {
        match (got, want) {
            (Decoded::Tcp(g), Some((w, full))) => {
                assert_eq!(g.packet_index, i as u64);
                assert_eq!(g.ts_ns, w.ts_ns, "packet {i} time");
                assert_eq!(g.wire_len, *full, "packet {i} wire length");
                assert_eq!((g.src, g.src_port, g.dst, g.dst_port), (w.src.ip(), w.src.port(), w.dst.ip(), w.dst.port()));
                assert_eq!((g.seq, g.ack, g.flags, g.window), (w.seq, w.ack, w.flags, w.window), "packet {i} header");
                assert_eq!(g.payload_len, w.payload_len, "packet {i} payload length");
                assert_eq!(g.options, w.options, "packet {i} options");
            }
            (Decoded::Other { packet_index, ts_ns, .. }, None) => {
                assert_eq!((*packet_index, *ts_ns), (i as u64, frames[i].ts_ns));
            }
            (g, w) => panic!("packet {i}: decoded {g:?}, expected {w:?}"),
        }
    }
    let info = d.info();
    assert_eq!(info.packets, n as u64);
    assert_eq!(info.warnings.get(&WarningKind::TimeWentBackwards).copied().unwrap_or(0), backwards);
    let tcp = expected.iter().filter(|e| e.is_some()).count() as u64;
    let other: u64 = info.warnings.iter().filter(|(k, _)| **k != WarningKind::TimeWentBackwards).map(|(_, c)| c).sum();
    assert_eq!(other, n as u64 - tcp, "warnings only for the non-TCP frames: {:?}", info.warnings);

    // The whole pipeline over the same file, chunked, for every other input (the
    // analysis of arbitrary bytes is decode_analyze's job; this halves the cost).
    // (chunks of at least 64 bytes: byte-sized chunks are decode_analyze's job too)
    if head & 0x40 != 0 {
        return;
    }
    let chunk = 64 + usize::from(s.u16());
    let session = analyze_bytes(&bytes, AnalysisOptions::default(), chunk);
    assert!(session.error().is_none());
    assert_eq!(session.packets(), n as u64);
    let json = session.report().to_json();
    assert!(json.contains(&format!("\"packets\":{n},")), "{json}");
});
