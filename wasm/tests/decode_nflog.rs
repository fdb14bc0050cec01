//! LINKTYPE_NFLOG (239), what `tcpdump -i nflog:N` writes for packets an iptables /
//! nftables NFLOG rule logged (https://www.tcpdump.org/linktypes/LINKTYPE_NFLOG.html;
//! decoder: wasm/src/decode/nflog.rs). Files are written by `synth` (links::nflog, the
//! TLVs in the kernel's order) and compared with the same traffic over Ethernet;
//! hostile records must give per-packet warnings, never a panic or a fatal error.
//! `cargo test --test all decode_nflog:: -- --ignored` writes the files to
//! $TMPDIR/tcpscope-nflog/ for tshark; the counts it gave are in the comments.

use serde_json::Value;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::tcp_flags::*;
use tcpscope_core::decode::{TcpSegment, WarningKind};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

use crate::common;
use common::decode_every_split as decode;
use common::{tcp};

/// Handshake, four 1448-byte segments, the second lost and resent after 200 ms (the
/// receiver's duplicate ACK and SACK in between), then FIN both ways: 13 packets.
fn flow(v6: bool) -> Flow {
    let mut f = if v6 { Flow::new("[2001:db8::1]:40000", "[2001:db8::2]:443") } else { Flow::new("10.0.0.1:40000", "10.0.0.2:443") };
    f.handshake(0, 10_000, Opts::new().mss(1460).sack_perm().wscale(7), Opts::new().mss(1460).sack_perm().wscale(7));
    for t in [11_000, 11_100, 11_200, 11_300] {
        f.data(C2S, t, 1448);
    }
    f.push(S2C, 21_000).ack(1001 + 1448);
    f.push(S2C, 21_200).ack(1001 + 1448).opts(Opts::new().sack(&[(1001 + 2 * 1448, 1001 + 4 * 1448)]));
    f.push(C2S, 221_000).seq(1001 + 1448).payload(1448);
    f.push(S2C, 231_000);
    f.push(C2S, 240_000).flags(FIN | ACK);
    f.push(S2C, 250_000).flags(FIN | ACK);
    f
}

fn pcap(link: &Link, endian: Endian, v6: bool) -> Vec<u8> {
    write_pcap(&flow(v6).frames(), link, endian, TsResolution::Micro)
}

/// The CLI's JSON report of a capture.
fn report(bytes: &[u8]) -> Value {
    let s = analyze_bytes(bytes, AnalysisOptions::default(), 1 << 16);
    assert!(s.error().is_none(), "{:?}", s.error());
    serde_json::from_str(&s.report().to_json()).unwrap()
}

/// Paths (a.b[0].c) where two JSON values differ.
fn diff(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                diff(v, y.get(k).unwrap_or(&Value::Null), &format!("{path}.{k}"), out);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                diff(v, w, &format!("{path}[{i}]"), out);
            }
        }
        _ if a != b => out.push(path.to_string()),
        _ => {}
    }
}

#[test]
fn nflog_gives_the_same_report_as_ethernet() {
    for v6 in [false, true] {
        let eth = report(&pcap(&Link::Ethernet, Endian::Little, v6));
        let nflog = report(&pcap(&Link::Nflog { big_endian: false }, Endian::Little, v6));
        let mut d = Vec::new();
        diff(&eth, &nflog, "", &mut d);
        // Only what is defined on frame bytes differs: the link header is 14 bytes on
        // Ethernet and 4 + 8 + 16 + 8 + 8 + 8 + 4 = 56 on NFLOG (header, packet
        // header, prefix, out device, uid, gid, payload TLV header), plus the payload
        // TLV's padding to 4 bytes.
        let wire = [".capture.bytes", ".capture.linkTypes[0]", ".connections[0].directions[0].bytes", ".connections[0].directions[1].bytes"];
        assert_eq!(d, wire, "v6 {v6}");
        let c = &nflog["connections"][0];
        assert_eq!(nflog["capture"]["linkTypes"], serde_json::json!(["nflog"]));
        assert_eq!(nflog["capture"]["packets"], 13);
        assert_eq!(nflog["connections"].as_array().unwrap().len(), 1);
        // Client → server: SYN, ACK, 4 data, the resend, FIN = 8 packets; 5 × 1448
        // payload bytes; one retransmission. Server → client: SYN/ACK, 3 ACKs, FIN.
        // tshark 4.0.17 on the written files (see the top): 13 frames, one tcp.stream,
        // one tcp.analysis.retransmission, one duplicate_ack, on Ethernet and NFLOG alike.
        let n = |d: &Value, k: &str| d[k].as_u64().unwrap();
        let up = &c["directions"][0];
        assert_eq!((n(up, "packets"), n(up, "payloadBytes"), n(up, "retransmissions")), (8, 5 * 1448, 1));
        let down = &c["directions"][1];
        assert_eq!((n(down, "packets"), n(down, "payloadBytes"), n(down, "duplicateAcks")), (5, 0, 1));
        if !v6 {
            // tshark -z conv,tcp on nflog-v4.pcap: 8 frames 8020 bytes →, 5 frames 504 ←.
            assert_eq!((n(up, "bytes"), n(down, "bytes"), n(&nflog["capture"], "bytes")), (8020, 504, 8524));
        }
        // Wire bytes: each of the 13 packets has 56 − 14 more bytes of link header,
        // plus the padding of its payload TLV (none here: IP and TCP headers with
        // options and 1448-byte payloads are all multiples of 4).
        let pad: u64 = flow(v6).frames().iter().map(|f| (4 - f.net.len() as u64 % 4) % 4).sum();
        let bytes = |r: &Value| r["capture"]["bytes"].as_u64().unwrap();
        assert_eq!((bytes(&nflog) - bytes(&eth), pad), (13 * (56 - 14), 0), "v6 {v6}");
    }
}

/// A big-endian host writes the pcap header and the TLV headers big-endian (tshark 4.0
/// reads that file like the little-endian one: 13 frames, 1 stream). The TLVs' order is
/// also detected when it differs from the file's, as Wireshark before 3.0 did (tshark
/// 4.0 assumes the file's order and shows those records as bare NFLOG).
#[test]
fn big_endian_tlv_headers() {
    let want = decode(&pcap(&Link::Ethernet, Endian::Little, false)).0;
    for endian in [Endian::Big, Endian::Little] {
        let (out, info, err) = decode(&pcap(&Link::Nflog { big_endian: true }, endian, false));
        assert_eq!(err, None);
        assert!(info.warnings.is_empty(), "{:?}", info.warnings);
        // (NFLOG carries no Ethernet addresses: `FrameId::macs` stays [0, 0].)
        let strip = |v: Vec<&TcpSegment>| v.into_iter().map(|s| TcpSegment { wire_len: 0, frame_id: tcpscope_core::decode::FrameId { macs: [0, 0], ..s.frame_id }, ..s.clone() }).collect::<Vec<_>>();
        assert_eq!(strip(tcp(&out)), strip(tcp(&want)));
    }
}

/// -s 108 (as `tcpdump -i nflog:5 -s 108`): the 56-byte NFLOG header, then 52 bytes of
/// IP + TCP with options; the payload is cut but its length comes from the IP header.
#[test]
fn snaplen_inside_the_payload_keeps_lengths() {
    let f = flow(false);
    let frames: Vec<Frame> = f.frames().into_iter().map(|x| x.snaplen(108)).collect();
    let (out, info, err) = decode(&write_pcap(&frames, &Link::Nflog { big_endian: false }, Endian::Little, TsResolution::Micro));
    assert_eq!((err, info.warnings.len()), (None, 0));
    let lens: Vec<u32> = tcp(&out).iter().map(|s| s.payload_len).collect();
    assert_eq!(lens, f.segments().iter().map(|s| s.payload_len).collect::<Vec<_>>());
}

/// An NFLOG record written as is (Link::Other(239)): family AF_INET, version 0, group 5.
fn raw_record(ts_us: i64, tlvs: &[u8]) -> Frame {
    let mut b = vec![2, 0, 0, 5];
    b.extend_from_slice(tlvs);
    Frame::new(Flow::EPOCH_NS + ts_us * 1000, 0, b)
}

/// Records a kernel never writes, one of each kind, between two good packets. Each is
/// counted as a packet and a warning; the good packets around them still decode.
#[test]
fn hostile_records_are_counted_not_fatal() {
    let good = flow(false).frames();
    let nflog = Link::Nflog { big_endian: false };
    let whole = nflog.encapsulate(&good[0]);
    let mut frames = vec![good[0].clone()];
    let mut bad = vec![
        // Cut inside the prefix TLV (the file's record is 14 bytes; TLVs run past it).
        (raw_record(1, &whole[4..14]), WarningKind::TruncatedHeaders),
        // A TLV of length 0: trusting it would loop forever on the same bytes.
        (raw_record(2, &[0, 0, 1, 0, 8, 0, 3, 0]), WarningKind::MalformedPacket),
        // A TLV claiming 256 bytes with 4 left (Zeek's nflog-bad-tlv-len.pcap).
        (raw_record(3, &[0, 1, 1, 0, 0, 0, 0, 0]), WarningKind::TruncatedHeaders),
        // Complete TLVs but no NFULA_PAYLOAD: nothing to decode, not an error.
        (raw_record(4, &whole[4..44]), WarningKind::NotIp),
        // Only the 4-byte header.
        (raw_record(5, &[]), WarningKind::NotIp),
        // Shorter than the header.
        (Frame::new(Flow::EPOCH_NS + 6_000, 0, vec![2, 0]), WarningKind::TruncatedHeaders),
    ];
    // Version 1 does not exist (tcpdump: "version 1 (unknown)").
    let mut v1 = raw_record(7, &whole[4..]);
    v1.net[1] = 1;
    bad.push((v1, WarningKind::MalformedPacket));
    frames.extend(bad.iter().map(|b| b.0.clone()));
    frames.push(good[1].clone());
    let mut file = write_pcap_header(239, Endian::Little, TsResolution::Micro, 262_144);
    for (i, f) in frames.iter().enumerate() {
        let link = if i == 0 || i + 1 == frames.len() { nflog.clone() } else { Link::Other(239) };
        file.extend_from_slice(&write_pcap_record(f, &link, Endian::Little, TsResolution::Micro));
    }
    let (out, info, err) = decode(&file);
    assert_eq!(err, None);
    assert_eq!((info.packets, tcp(&out).len()), (9, 2));
    let count = |k| info.warnings.get(&k).copied().unwrap_or(0);
    assert_eq!((count(WarningKind::TruncatedHeaders), count(WarningKind::MalformedPacket), count(WarningKind::NotIp)), (3, 2, 2));
    assert_eq!(info.warnings.values().sum::<u64>(), 7);
    // The analysis and the report take the file whole.
    assert_eq!(report(&file)["connections"].as_array().unwrap().len(), 1);
}

/// Non-IP packets of the synth helpers: ARP goes out as family NFPROTO_ARP (3), which
/// has no IP in it; a UDP datagram is IP but not TCP.
#[test]
fn arp_and_udp_are_other_packets() {
    let frames = vec![Frame::arp(Flow::EPOCH_NS), Frame::udp(Flow::EPOCH_NS + 1000)];
    let (out, info, err) = decode(&write_pcap(&frames, &Link::Nflog { big_endian: false }, Endian::Little, TsResolution::Micro));
    assert_eq!((err, tcp(&out).len(), info.packets), (None, 0, 2));
    assert_eq!(info.warnings.get(&WarningKind::NotIp), Some(&1));
    assert_eq!(info.warnings.get(&WarningKind::NotTcp), Some(&1));
}

/// Real NFLOG captures, from the shared reference set ($TCPSCOPE_SHARED/captures or
/// ../../shared/captures, as conformance.rs; skipped with a note when absent, since
/// third-party files are not committed here):
/// * zeek__nflog-http.pcap: zeek/zeek testing/btest/Traces/nflog-http.pcap (BSD);
/// * tcpdump__nflog.pcap: the-tcpdump-group/tcpdump tests/nflog.pcap (BSD);
/// * zeek__nflog-bad-tlv-len.pcap: zeek/zeek testing/btest/Traces/nflog-bad-tlv-len.pcap.
///
/// Numbers from tshark 4.0.17 (`make_oracle.py`), except where said.
#[test]
fn real_nflog_captures() {
    let base = std::env::var_os("TCPSCOPE_SHARED").map(std::path::PathBuf::from).unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let read = |name: &str| std::fs::read(base.join("captures").join(name)).ok();
    let warnings = |bytes: &[u8]| decode(bytes).1.warnings.into_iter().collect::<Vec<_>>();
    if let Some(bytes) = read("zeek__nflog-http.pcap") {
        // An HTTP GET logged on hooks 1, 3 and 4 by a little-endian host: tshark has 13
        // frames, all TCP, one tcp.stream; 5 frames and 2276 bytes from the server
        // (1603 payload bytes). tshark has 8 client frames with 2 retransmissions: the
        // SYN logged three times (frames 1-3, one IPv4 Identification 0xe8ef, one µs),
        // which tcpscope counts once, with 2 duplicate frames (analysis/capture/duplicates.rs).
        let (out, info, err) = decode(&bytes);
        assert_eq!((err, info.packets, tcp(&out).len(), info.warnings.len()), (None, 13, 13, 0));
        let r = report(&bytes);
        assert_eq!((r["connections"].as_array().unwrap().len(), &r["capture"]["duplicateFrames"]), (1, &serde_json::json!(2)));
        let n = |d: &Value, k: &str| d[k].as_u64().unwrap();
        let (up, down) = (&r["connections"][0]["directions"][0], &r["connections"][0]["directions"][1]);
        assert_eq!((n(up, "packets"), n(up, "payloadBytes"), n(up, "retransmissions")), (6, 79, 0));
        assert_eq!((n(down, "packets"), n(down, "bytes"), n(down, "payloadBytes")), (5, 2276, 1603));
    } else {
        eprintln!("note: zeek__nflog-http.pcap not in {}; skipped", base.display());
    }
    if let Some(bytes) = read("tcpdump__nflog.pcap") {
        // Four DNS answers over UDP (tshark: 4 frames, no TCP): prefix TLVs of odd
        // length and a 77-byte payload, so padding everywhere.
        assert_eq!(warnings(&bytes), [(WarningKind::NotTcp, 4)]);
    }
    if let Some(bytes) = read("zeek__nflog-bad-tlv-len.pcap") {
        // One record whose first TLV claims 256 bytes with 4 left.
        assert_eq!(warnings(&bytes), [(WarningKind::TruncatedHeaders, 1)]);
    }
}

/// Write the files for tshark (`cargo test --test all decode_nflog:: -- --ignored`).
#[test]
#[ignore]
fn write_files_for_tshark() {
    let dir = std::env::temp_dir().join("tcpscope-nflog");
    std::fs::create_dir_all(&dir).unwrap();
    let nf = |big_endian| Link::Nflog { big_endian };
    std::fs::write(dir.join("nflog-v4.pcap"), pcap(&nf(false), Endian::Little, false)).unwrap();
    std::fs::write(dir.join("nflog-v6.pcap"), pcap(&nf(false), Endian::Little, true)).unwrap();
    std::fs::write(dir.join("nflog-be-host.pcap"), pcap(&nf(true), Endian::Big, false)).unwrap();
    std::fs::write(dir.join("nflog-be-tlv-le-file.pcap"), pcap(&nf(true), Endian::Little, false)).unwrap();
    std::fs::write(dir.join("ethernet-v4.pcap"), pcap(&Link::Ethernet, Endian::Little, false)).unwrap();
}
