//! The Mac, Wi-Fi and carrier link layers (issue 17 items 1-2): Apple PKTAP (258 and
//! DLT_USER2 149), Darwin process blocks in pcapng, PPP (with and without address/
//! control and protocol-field compression), Cisco HDLC (104, and inside files marked
//! PPP), PPI around 802.11 and Ethernet, MPLS label
//! stacks over Ethernet and PPP, PPPoE padding. Each capture is written by `synth`
//! from the specs and read back whole and in chunks; the numbers below were checked
//! against tshark 4.0 on the written files (`cargo test --test all decode_links:: -- --ignored`
//! writes them to $TMPDIR/tcpscope-links/).

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::{Decoded, Process, Radio};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

use crate::common;
use common::decode_every_split as decode;
use common::{tcp, short_transfer as flow, script};

fn got(out: &[Decoded]) -> Vec<(u16, u16, u32, u32)> {
    tcp(out).iter().map(|s| (s.src_port, s.dst_port, s.seq, s.payload_len)).collect()
}

/// Every link layer of this file, one pcap each, as (name, link, frames).
fn pcaps() -> Vec<(&'static str, Link, Vec<Frame>)> {
    let f = flow("10.0.0.1:50000", "93.184.216.34:443").frames();
    let v6 = flow("[2001:db8::1]:50000", "[2001:db8::2]:443").frames();
    let ppp = |acfc, pfc| Link::Ppp { acfc, pfc };
    vec![
        ("ppp-hdlc", ppp(false, false), f.clone()),
        ("ppp-acfc-pfc", ppp(true, true), f.clone()),
        ("ppp-ipv6-pfc", ppp(false, true), v6.clone()),
        ("mpls-ethernet", Link::Mpls { over_ppp: false, labels: vec![16, 17] }, f.clone()),
        ("mpls-ppp", Link::Mpls { over_ppp: true, labels: vec![1000] }, v6.clone()),
        ("ppi-80211", Link::Ppi { inner: Box::new(Link::Ieee80211) }, f.iter().cloned().map(|x| x.radio(RadioFields { rate: Some(108), channel_mhz: Some(5180), signal_dbm: Some(-52), ..Default::default() })).collect()),
        ("ppi-ethernet", Link::Ppi { inner: Box::new(Link::Ethernet) }, f.clone()),
        ("cisco-hdlc", Link::CiscoHdlc { marked_ppp: false }, f.clone()),
        ("cisco-hdlc-ipv6-in-ppp-file", Link::CiscoHdlc { marked_ppp: true }, v6.clone()),
    ]
}

#[test]
fn every_link_layer_gives_back_the_script() {
    let want = script(&flow("10.0.0.1:50000", "93.184.216.34:443"));
    for (name, link, frames) in pcaps() {
        let bytes = write_pcap(&frames, &link, Endian::Little, TsResolution::Micro);
        let (out, info, err) = decode(&bytes);
        assert_eq!(err, None, "{name}");
        assert_eq!(got(&out), want, "{name}");
        assert!(info.warnings.is_empty(), "{name}: {:?}", info.warnings);
    }
}

#[test]
fn link_type_names() {
    let names: Vec<String> = pcaps().into_iter().map(|(_, link, frames)| decode(&write_pcap(&frames, &link, Endian::Little, TsResolution::Micro)).1.link_types.join(",")).collect();
    assert_eq!(names, ["ppp", "ppp", "ppp", "ethernet", "ppp", "ppi", "ppi", "cisco-hdlc", "ppp"]);
}

#[test]
fn ppi_radio_fields_reach_the_segment() {
    let (_, link, frames) = pcaps().into_iter().find(|p| p.0 == "ppi-80211").unwrap();
    let (out, _, _) = decode(&write_pcap(&frames, &link, Endian::Little, TsResolution::Micro));
    // 802.11-Common: rate 108 × 500 kbit/s = 54 Mbit/s, 5180 MHz (channel 36), -52 dBm.
    let want = Radio { rate_kbps: 54_000, nss: 0, signal_dbm: Some(-52), channel_mhz: 5180, retry: false };
    assert!(tcp(&out).iter().all(|s| s.meta.radio == Some(want)));
}

/// PPPoE: a TCP segment whose IPv4 total length claims 6 bytes more than the PPPoE
/// length carries, with 6 bytes of padding after it. tshark (PPPoE hands PPP a buffer
/// of the PPPoE length) gives tcp.len 1448/1448/1000 and 0 for the others; counting
/// the padding would give 1454/1454/1006 and 6 for every bare ACK.
#[test]
fn pppoe_padding_is_never_data() {
    let f = flow("10.0.0.1:50000", "93.184.216.34:443");
    let bytes = write_pcap(&f.frames(), &Link::Pppoe { excess: 6 }, Endian::Little, TsResolution::Micro);
    let (out, info, err) = decode(&bytes);
    assert_eq!(err, None);
    assert_eq!(got(&out), script(&f));
    assert!(info.warnings.is_empty());
}

/// Apple PKTAP in both numberings; client segments name Safari (pid 512), the
/// server's packets name no process (pid -1), as inbound packets before the socket
/// lookup do. A second connection on cellular (pdp_ip0: raw IP, DLT 12) from curl.
fn pktap_capture(user2: bool) -> Vec<u8> {
    let wifi = flow("10.0.0.1:50000", "93.184.216.34:443");
    let cell = flow("10.64.0.7:50001", "93.184.216.34:443");
    let name = |f: &Flow, pid, cmd: &str| -> Vec<Frame> {
        f.segments().iter().map(|s| if s.src.port() >= 50000 { s.frame().process(pid, cmd) } else { s.frame() }).collect()
    };
    let mut frames = name(&wifi, 512, "Safari");
    frames.extend(name(&cell, 77, "curl").into_iter().map(|mut f| {
        f.ts_ns += 60_000_000;
        f
    }));
    // One file, one link type: the cellular frames are wrapped as raw IP inside PKTAP
    // by writing them with their own inner link and concatenating the records.
    let eth = Link::Pktap { user2, inner: Box::new(Link::Ethernet) };
    let raw = Link::Pktap { user2, inner: Box::new(Link::Raw(12)) };
    let mut out = write_pcap_header(eth.dlt(), Endian::Little, TsResolution::Micro, 262_144);
    for (i, f) in frames.iter().enumerate() {
        let link = if i < wifi.segments().len() { &eth } else { &raw };
        out.extend_from_slice(&write_pcap_record(f, link, Endian::Little, TsResolution::Micro));
    }
    out
}

fn processes(bytes: &[u8]) -> Vec<Option<Process>> {
    let s = analyze_bytes(bytes, AnalysisOptions::default(), 1 << 20);
    assert!(s.error().is_none());
    s.analysis().unwrap().connections.iter().map(|c| c.process.clone()).collect()
}

fn p(name: &str, pid: u32) -> Option<Process> {
    Some(Process { name: name.into(), pid })
}

#[test]
fn pktap_names_the_process_of_each_connection() {
    for user2 in [false, true] {
        let bytes = pktap_capture(user2);
        let (out, info, err) = decode(&bytes);
        assert_eq!(err, None);
        assert_eq!(tcp(&out).len(), 16, "8 segments per connection");
        assert_eq!(info.link_types, vec!["pktap".to_string()]);
        assert!(info.warnings.is_empty());
        assert_eq!(processes(&bytes), vec![p("Safari", 512), p("curl", 77)]);
    }
}

/// Apple pcapng (`tcpdump -P -i pktap,en0,pdp_ip0`): interfaces en0 (Ethernet) and
/// pdp_ip0 (raw IP), three Darwin process blocks, packets naming DPIB 1 and 2; a
/// second section restarts the DPIB numbering (draft §4.2: ids are per section).
#[test]
fn darwin_process_blocks_name_connections() {
    let wifi = flow("10.0.0.1:50000", "93.184.216.34:443");
    let cell = flow("10.64.0.7:50001", "93.184.216.34:443");
    let mut frames: Vec<Frame> = wifi.frames().into_iter().map(|f| f.dpib(1)).collect();
    frames.extend(cell.frames().into_iter().map(|f| f.interface(1).dpib(2)));
    let procs = [(1, "launchd"), (512, "Safari"), (77, "nsurlsessiond")];
    let first = Section::new(Endian::Little, vec![Interface::new(Link::Ethernet), Interface::new(Link::Raw(12))], frames).processes(&procs);
    let again = flow("10.0.0.1:50002", "93.184.216.34:443").frames().into_iter().map(|f| f.dpib(0)).collect();
    let second = Section::new(Endian::Big, vec![Interface::new(Link::Ethernet)], again).processes(&[(9, "Mail")]);
    let bytes = write_pcapng(&[first, second]);
    let (out, _, err) = decode(&bytes);
    assert_eq!((err, tcp(&out).len()), (None, 24));
    assert_eq!(processes(&bytes), vec![p("Safari", 512), p("nsurlsessiond", 77), p("Mail", 9)]);
    // The report says it in camelCase JSON.
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    assert!(s.report().to_json().contains(r#""process":{"name":"Safari","pid":512}"#));
}

#[test]
fn packets_naming_a_missing_dpib_have_no_process() {
    let frames = flow("10.0.0.1:50000", "93.184.216.34:443").frames().into_iter().map(|f| f.dpib(5)).collect();
    let bytes = write_pcapng(&[Section::new(Endian::Little, vec![Interface::new(Link::Ethernet)], frames).processes(&[(1, "launchd")])]);
    assert_eq!(processes(&bytes), vec![None]);
}

/// e2e/fixtures/pktap-processes.pcap is `pktap_capture(false)` (the Playwright test of
/// the process name); regenerate with `UPDATE_FIXTURES=1 cargo test --test all decode_links::`.
#[test]
fn e2e_fixture_is_up_to_date() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../e2e/fixtures/pktap-processes.pcap");
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(path, pktap_capture(false)).expect("write the fixture");
    }
    assert!(std::fs::read(path).ok() == Some(pktap_capture(false)), "{path} is stale: UPDATE_FIXTURES=1 cargo test --test all decode_links::");
}

/// Write every fixture for the tshark comparison.
#[test]
#[ignore]
fn write_fixtures_for_tshark() {
    let dir = std::env::temp_dir().join("tcpscope-links");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, link, frames) in pcaps() {
        std::fs::write(dir.join(format!("{name}.pcap")), write_pcap(&frames, &link, Endian::Little, TsResolution::Micro)).unwrap();
    }
    let f = flow("10.0.0.1:50000", "93.184.216.34:443");
    std::fs::write(dir.join("pppoe-padding.pcap"), write_pcap(&f.frames(), &Link::Pppoe { excess: 6 }, Endian::Little, TsResolution::Micro)).unwrap();
    std::fs::write(dir.join("pktap.pcap"), pktap_capture(false)).unwrap();
    std::fs::write(dir.join("pktap-user2.pcap"), pktap_capture(true)).unwrap();
    std::fs::write(dir.join("radiotap-fields.pcap"), radio_capture()).unwrap();
}

/// Radiotap on TCP data frames: legacy rate, HT MCS and VHT, signal, channel and
/// the MAC Retry bit reach each segment (exact values from the rate tables in
/// decode/phy_rate.rs).
fn radio_capture() -> Vec<u8> {
    let f = flow("10.0.0.1:50000", "93.184.216.34:443");
    let fields = [
        RadioFields { rate: Some(12), channel_mhz: Some(2412), signal_dbm: Some(-40), ..Default::default() },
        RadioFields { mcs: Some((0x07, 0x05, 15)), channel_mhz: Some(5180), signal_dbm: Some(-61), seq: 2, ..Default::default() },
        RadioFields { vht: Some((0x0044, 0x04, 4, 0x92)), channel_mhz: Some(5500), signal_dbm: Some(-70), retry: true, seq: 3, ..Default::default() },
    ];
    let frames: Vec<Frame> = f.frames().into_iter().enumerate().map(|(i, fr)| fr.radio(RadioFields { seq: i as u16, ..fields[i % 3].clone() })).collect();
    write_pcap(&frames, &Link::Radiotap { ht_control: false }, Endian::Little, TsResolution::Micro)
}

#[test]
fn radiotap_radio_fields_on_tcp_frames() {
    let (out, _, err) = decode(&radio_capture());
    assert_eq!(err, None);
    let radio: Vec<Radio> = tcp(&out).iter().filter_map(|s| s.meta.radio).collect();
    assert_eq!(radio.len(), 8);
    // 6 Mbit/s (12 × 500 kbit/s); HT MCS 15 40 MHz short GI = 2 × 150; VHT 80 MHz MCS 9 2 SS short GI = 866.7.
    assert_eq!(radio[0], Radio { rate_kbps: 6_000, nss: 0, signal_dbm: Some(-40), channel_mhz: 2412, retry: false });
    assert_eq!(radio[1], Radio { rate_kbps: 300_000, nss: 2, signal_dbm: Some(-61), channel_mhz: 5180, retry: false });
    assert_eq!(radio[2], Radio { rate_kbps: 866_667, nss: 2, signal_dbm: Some(-70), channel_mhz: 5500, retry: true });
}

/// Hostile frames for every new link type: random bytes, and valid frames cut at
/// every length, give a warning, never a panic (decode::link, pktap, ppi, radiotap).
#[test]
fn hostile_frames_never_panic() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut frames: Vec<(u32, Vec<u8>)> = Vec::new();
    for lt in [9u32, 50, 105, 127, 149, 192, 258] {
        for _ in 0..2000 {
            let len = (next() % 200) as usize;
            let mut b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            // Plausible headers more often than chance: a PKTAP or PPI length and DLT.
            if len > 12 && next() % 2 == 0 {
                b[0..4].copy_from_slice(&(108u32).to_le_bytes());
                b[4..8].copy_from_slice(&1u32.to_le_bytes());
                b[8..12].copy_from_slice(&[1u32, 12, 105, 127, 192, 258][(next() % 6) as usize].to_le_bytes());
            }
            frames.push((lt, b));
        }
    }
    for (_, link, fr) in pcaps() {
        let bytes = write_pcap(&fr, &link, Endian::Little, TsResolution::Micro);
        let rec = &bytes[24 + 16..];
        let caplen = u32::from_le_bytes([bytes[32], bytes[33], bytes[34], bytes[35]]) as usize;
        for cut in 0..caplen {
            frames.push((link.dlt(), rec[..cut].to_vec()));
        }
    }
    for (lt, b) in &frames {
        let _ = tcpscope_core::decode::link::locate(*lt, b);
        let _ = tcpscope_core::decode::packet::decode_frame(*lt, b, b.len() as u32, 0, 0);
    }
}

/// The radiotap capture of `radio_capture`, with `edit` applied to each record's
/// bytes (the record header is 16 bytes; its frame starts with the radiotap header).
fn edited_radio_capture(edit: impl Fn(&mut [u8])) -> Vec<u8> {
    let mut b = radio_capture();
    let mut at = 24;
    while at + 16 <= b.len() {
        let caplen = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
        edit(&mut b[at + 16..at + 16 + caplen]);
        at += 16 + caplen;
    }
    b
}

#[test]
fn encrypted_and_failed_80211_frames_are_said_apart_from_non_ip() {
    // Every data frame Protected (Frame Control flags 0x40, IEEE 802.11-2020
    // §9.2.4.1.9): its body cannot be read. aircrack-ng's wpa-psk-linksys.cap said
    // "587 non-IP packets (ARP, LLDP, ...)" though 59 were encrypted data frames
    // holding TCP; now they have a warning of their own, which the page counts among
    // packets that may hold TCP.
    let protected = edited_radio_capture(|f| {
        let rt_len = usize::from(u16::from_le_bytes([f[2], f[3]]));
        f[rt_len + 1] |= 0x40;
    });
    let s = analyze_bytes(&protected, AnalysisOptions::default(), 1 << 20);
    let r = s.report();
    assert!(r.connections.is_empty());
    let w: Vec<(&str, u64)> = r.warnings.iter().map(|w| (w.kind, w.count)).collect();
    assert_eq!(w, [("encrypted-frame", 8)]);
    assert!(r.warnings[0].message.starts_with("8 encrypted 802.11 data frames (WEP/WPA), unreadable, TCP included"), "{}", r.warnings[0].message);
    // The radio says the frame failed its FCS (radiotap Flags 0x40): never delivered,
    // so not a segment. The synthetic radiotap header has no Flags field: give it one
    // by turning the first present field (Rate, 1 byte at offset 8) into Flags.
    let failed = edited_radio_capture(|f| {
        let present = u32::from_le_bytes(f[4..8].try_into().unwrap());
        if present & 0b100 != 0 && present & 0b11 == 0 {
            f[4..8].copy_from_slice(&((present & !0b100) | 0b10).to_le_bytes());
            f[8] = 0x40;
        }
    });
    let s = analyze_bytes(&failed, AnalysisOptions::default(), 1 << 20);
    let r = s.report();
    // The frames with a Rate field (every third, from `radio_capture`'s fields) failed.
    let bad = r.warnings.iter().find(|w| w.kind == "bad-fcs").expect("a bad-fcs warning");
    assert_eq!(bad.count, 3);
    assert!(bad.message.contains("failed the radio's checksum"), "{}", bad.message);
    assert_eq!(r.connections[0].packets, 5);
}

/// One radiotap 802.11 QoS data frame (to-DS) whose A-MSDU holds `packets`, each an IP
/// packet in its own subframe (IEEE 802.11-2020 §9.3.2.2.2: DA, SA, length, LLC/SNAP +
/// IP, padded to 4 bytes but the last).
fn amsdu_frame(ts_ns: i64, packets: &[Vec<u8>]) -> Frame {
    let mut b = vec![0, 0, 8, 0, 0, 0, 0, 0]; // radiotap, no fields
    b.extend_from_slice(&[0x88, 0x01, 0, 0]); // QoS data, to-DS; duration
    b.extend_from_slice(&[0u8; 18]); // 3 addresses
    b.extend_from_slice(&[0x10, 0x00]); // sequence control
    b.extend_from_slice(&[0x80, 0x00]); // QoS control: A-MSDU present
    for (i, ip) in packets.iter().enumerate() {
        let start = b.len();
        b.extend_from_slice(&[0u8; 12]); // DA, SA
        b.extend_from_slice(&((8 + ip.len()) as u16).to_be_bytes());
        b.extend_from_slice(&[0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00]);
        b.extend_from_slice(ip);
        if i + 1 < packets.len() {
            while !(b.len() - start).is_multiple_of(4) {
                b.push(0);
            }
        }
    }
    Frame::new(ts_ns, 0x0800, b)
}

#[test]
fn amsdu_subframes_after_the_first_are_counted_not_lost_silently() {
    // An 802.11n/ac sender packs several TCP segments into one A-MSDU frame. The first
    // subframe is analysed; the others are counted in a warning of their own, so the
    // segments missing from the analysis are explained (the analysis keys rows by frame
    // number, which the segments of one frame would share: a review found stall ends,
    // bursts, wire bytes and the radio strip going wrong when all were decoded). Here
    // the transfer's 3 data segments (1448 + 1448 + 1000 B: the odd lengths pad the
    // first two subframes) travel in one frame, the handshake in frames of their own.
    let f = flow("10.0.0.1:50000", "93.184.216.34:443");
    let frames = f.frames();
    let mut records: Vec<Frame> = frames[..3].iter().map(|fr| amsdu_frame(fr.ts_ns, std::slice::from_ref(&fr.net))).collect();
    records.push(amsdu_frame(frames[3].ts_ns, &[frames[3].net.clone(), frames[4].net.clone(), frames[5].net.clone()]));
    records.extend(frames[6..].iter().map(|fr| amsdu_frame(fr.ts_ns, std::slice::from_ref(&fr.net))));
    let bytes = write_pcap(&records, &Link::Other(127), Endian::Little, TsResolution::Micro);
    let (out, _, err) = decode(&bytes);
    assert_eq!(err, None);
    // The first subframe of the A-MSDU (record 3) is its first data segment.
    let idx: Vec<u64> = tcp(&out).iter().map(|s| s.packet_index).collect();
    assert_eq!(idx, [0, 1, 2, 3, 4, 5]);
    assert_eq!(tcp(&out)[3].payload_len, 1448);
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let r = s.report();
    assert_eq!((r.capture.packets, r.connections[0].packets), (6, 6));
    let w: Vec<(&str, u64)> = r.warnings.iter().map(|w| (w.kind, w.count)).collect();
    // The client's ACK covers the 2 segments not analysed: they read as capture loss
    // too (one hole of 2 segments), and the A-MSDU warning says why.
    assert_eq!(w, [("amsdu-subframe", 2), ("capture-loss", 1)]);
    assert!(r.warnings[0].message.starts_with("2 802.11 A-MSDU subframes after a frame's first, not analysed"), "{}", r.warnings[0].message);
}

/// Tags of a fixed length between Ethernet's Ethertype and IP's (decode/ethertype.rs
/// `FIXED_TAGS`), laid out as Wireshark's dissectors read them: Cisco MetaData
/// (0x8909: version 1, length 1, option 0x0001, SGT 2 — the bytes a TrustSec switch
/// writes), Cisco VN-Tag (0x8926, 4 bytes), 802.1BR E-Tag (0x893F, 6 bytes), 802.1ah
/// PBB (0x88E7: I-TAG with I-SID 100, then the customer frame's addresses), alone and
/// nested with 802.1Q. Each gives back the script, on the "ethernet" link type, with
/// no warning: before, each frame was a `not-ip` packet and the connection vanished.
#[test]
fn fixed_length_ethernet_tags_reach_the_segment() {
    let f = flow("10.0.0.1:50000", "93.184.216.34:443");
    let want = script(&f);
    let cmd = (0x8909, vec![0x01, 0x01, 0x00, 0x01, 0x00, 0x02]);
    let vntag = (0x8926, vec![0x80, 0x01, 0x00, 0x02]);
    let etag = (0x893F, vec![0x00, 0x00, 0x00, 0x05, 0x00, 0x00]);
    let pbb = (0x88E7, vec![0, 0, 0, 100, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]);
    let vlan = (0x8100, vec![0x00, 0x05]);
    let cases = [
        vec![cmd.clone()],
        vec![vntag.clone()],
        vec![etag],
        vec![pbb.clone()],
        vec![vlan.clone(), cmd],
        vec![pbb, vlan.clone()],
        vec![vntag, vlan],
    ];
    for tags in cases {
        let bytes = write_pcap(&f.frames(), &Link::EthernetTagged(tags.clone()), Endian::Little, TsResolution::Micro);
        let (out, info, err) = decode(&bytes);
        assert_eq!(err, None, "{tags:?}");
        assert_eq!(got(&out), want, "{tags:?}");
        assert!(info.warnings.is_empty(), "{tags:?}: {:?}", info.warnings);
        assert_eq!(info.link_types, ["ethernet"], "{tags:?}");
    }
}

/// A TrustSec switch tags the frames it forwards from one port with Cisco MetaData and
/// not the other direction's: the capture holds the client's segments in CMD, the
/// server's plain. Both directions are one connection seen both ways: the client's 3
/// segments (SYN, the handshake's ACK, the ACK of the data: `short_transfer`) and the
/// server's 5 (SYN/ACK, 3 data, FIN), and no `one-direction` or `not-ip` warning.
/// Before, the client's 3 frames were `not-ip` and the connection "only one direction".
#[test]
fn a_connection_tagged_with_cisco_metadata_one_way_is_seen_both_ways() {
    let f = flow("10.0.0.1:50000", "93.184.216.34:443");
    let cmd = Link::EthernetTagged(vec![(0x8909, vec![0x01, 0x01, 0x00, 0x01, 0x00, 0x02])]);
    let mut bytes = write_pcap_header(1, Endian::Little, TsResolution::Micro, 262_144);
    for (s, frame) in f.segments().iter().zip(f.frames()) {
        let link = if s.src.port() == 50000 { &cmd } else { &Link::Ethernet };
        bytes.extend_from_slice(&write_pcap_record(&frame, link, Endian::Little, TsResolution::Micro));
    }
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let r = s.report();
    assert_eq!(r.warnings.iter().map(|w| w.kind).collect::<Vec<_>>(), Vec::<&str>::new());
    assert_eq!(r.connections.len(), 1);
    let packets: Vec<u64> = r.connections[0].directions.iter().map(|d| d.packets).collect();
    assert_eq!(packets, [3, 5]);
}
