//! Writes the seed corpora: `seed <repo root> <corpus dir>` fills
//! <corpus dir>/decode_analyze with the example captures (first 64 KiB each) and
//! synth-generated files (every link type, pcap and pcapng, both byte orders,
//! damaged variants), and <corpus dir>/synth_roundtrip with a few scripts.

use std::fs;
use std::path::Path;
use tcpscope_core::decode::tcp_flags::*;
use tcpscope_core::synth::*;

fn flow(v6: bool) -> Vec<Frame> {
    let (c, s) = if v6 { ("[2001:db8::1]:40000", "[2001:db8::2]:443") } else { ("10.0.0.1:40000", "10.0.0.2:443") };
    let mut f = Flow::new(c, s);
    f.handshake(0, 2_000, Opts::new().mss(1460).wscale(7).sack_perm().ts(1, 0), Opts::new().mss(1460).wscale(9).sack_perm().ts(7, 1));
    for i in 0..6 {
        f.data(S2C, 3_000 + i * 100, 1448);
    }
    f.push(C2S, 3_700).opts(Opts::new().sack(&[(5001 + 1448 * 2, 5001 + 1448 * 4)]));
    f.data(S2C, 250_000, 1448).seq(5001 + 1448); // retransmission after a stall
    f.push(C2S, 252_000).window(0);
    f.push(C2S, 400_000).flags(FIN | ACK);
    f.push(S2C, 402_000).flags(FIN | ACK);
    let mut frames = f.frames();
    frames.insert(3, Frame::arp(Flow::EPOCH_NS + 2_500_000));
    frames.insert(5, Frame::udp(Flow::EPOCH_NS + 2_600_000));
    frames
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (root, corpus) = (Path::new(&args[1]), Path::new(&args[2]));
    let da = corpus.join("decode_analyze");
    let sr = corpus.join("synth_roundtrip");
    fs::create_dir_all(&da).unwrap();
    fs::create_dir_all(&sr).unwrap();
    let mut n = 0;
    let mut put = |name: String, bytes: &[u8]| {
        fs::write(da.join(name), bytes).unwrap();
        n += 1;
    };

    for entry in fs::read_dir(root.join("public/examples")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with(".pcap") || name.ends_with(".pcapng") {
            let bytes = fs::read(&path).unwrap();
            put(format!("example-{name}"), &bytes[..bytes.len().min(64 << 10)]);
        }
    }

    let links = [
        Link::Ethernet,
        Link::EthernetVlan(vec![(0x88A8, 100), (0x8100, 5)]),
        Link::LinuxSll,
        Link::LinuxSll2,
        Link::Raw(101),
        Link::Null { big_endian: true, af_inet6: 30 },
        Link::Radiotap { ht_control: true },
    ];
    for (li, link) in links.iter().enumerate() {
        for v6 in [false, true] {
            let frames = flow(v6);
            for (ei, endian) in [Endian::Little, Endian::Big].into_iter().enumerate() {
                let pcap = write_pcap(&frames, link, endian, if ei == 0 { TsResolution::Micro } else { TsResolution::Nano });
                let mut section = Section::new(endian, vec![Interface::new(link.clone()).tsresol(if ei == 0 { 6 } else { 9 })], frames.clone());
                section.unknown_blocks = li % 2 == 1;
                let ng = write_pcapng(&[section]);
                let tag = format!("synth-l{li}-{}-{}", if v6 { "v6" } else { "v4" }, if ei == 0 { "le" } else { "be" });
                put(format!("{tag}.pcap"), &pcap);
                put(format!("{tag}.pcapng"), &ng);
                if li == 0 {
                    // damaged variants: cut mid-record, lying lengths
                    put(format!("{tag}-cut.pcap"), &pcap[..pcap.len() - 37]);
                    put(format!("{tag}-cut.pcapng"), &ng[..ng.len() - 37]);
                    let mut bad = pcap.clone();
                    bad[24 + 8] ^= 0x40;
                    put(format!("{tag}-caplen.pcap"), &bad);
                    let mut bad = ng.clone();
                    bad[28 + 32 + 4] ^= 0x10;
                    put(format!("{tag}-blocklen.pcapng"), &bad);
                }
            }
        }
    }
    // SPB and obsolete packet blocks, two sections, two interfaces
    let frames = flow(false);
    let mut mixed = frames.clone();
    for (i, f) in mixed.iter_mut().enumerate() {
        f.block = [BlockKind::Enhanced, BlockKind::Simple, BlockKind::ObsoletePacket][i % 3];
        f.interface = if f.block == BlockKind::Simple { 0 } else { (i % 2) as u32 };
    }
    let two = write_pcapng(&[
        Section::new(Endian::Little, vec![Interface::new(Link::Ethernet), Interface::new(Link::LinuxSll2).tsresol(0x80 | 20)], mixed),
        Section::new(Endian::Big, vec![Interface::new(Link::Raw(101))], frames),
    ]);
    put("synth-two-sections.pcapng".into(), &two);
    put("empty".into(), b"");
    put("html".into(), b"<!DOCTYPE html><html><body>no</body></html>");
    put("gzip".into(), &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);

    // synth_roundtrip scripts: a few byte patterns (the fuzzer does the rest)
    for i in 0u8..16 {
        let script: Vec<u8> = (0..200u32).map(|j| (j as u8).wrapping_mul(31).wrapping_add(i.wrapping_mul(17))).collect();
        fs::write(sr.join(format!("script-{i}")), script).unwrap();
    }
    println!("decode_analyze: {n} seeds; synth_roundtrip: 16 seeds");
}
