//! TCP inside tunnels (decode/tunnel.rs): IP in IP (6in4, 4in4), GRE, ERSPAN II, VXLAN,
//! Geneve and GTP-U, each written by `synth` around the same short transfer and read
//! back whole and in chunks. Before tunnels were followed, such captures (a mobile
//! core's GTP-U, an AWS traffic mirror's VXLAN, an ERSPAN port mirror; ntop/nDPI's
//! `vxlan.pcap`, `6in4tunnel.pcap`, arkime's `gtp-iphone.pcap`, `tcpdump-geneve.pcap`)
//! gave no connection at all and the warning "N IP packets that are not TCP". The
//! numbers below were checked against tshark 4.0.17 on the written files
//! (`cargo test --test all decode_tunnels:: -- --ignored` writes them to
//! $TMPDIR/tcpscope-tunnels/): tshark decodes each down to the same TCP segments.

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::WarningKind;
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

use crate::common;
use common::decode_every_split as decode;
use common::{tcp, short_transfer as flow, script};

fn tunnels() -> Vec<(&'static str, Tunnel, &'static str)> {
    vec![
        ("4in4", Tunnel::IpInIp, "v4"),
        ("6in4", Tunnel::IpInIp, "v6"),
        ("gre", Tunnel::Gre, "v4"),
        ("gre-ipv6", Tunnel::Gre, "v6"),
        ("erspan2", Tunnel::ErspanII, "v4"),
        ("vxlan", Tunnel::Vxlan, "v4"),
        ("geneve", Tunnel::Geneve, "v6"),
        ("gtpu", Tunnel::GtpU, "v4"),
    ]
}

fn inner(v: &str) -> Flow {
    if v == "v6" {
        flow("[2001:db8::1]:50000", "[2001:db8::2]:443")
    } else {
        flow("10.0.0.1:50000", "93.184.216.34:443")
    }
}

fn pcap(t: &Tunnel, v: &str) -> Vec<u8> {
    write_pcap(&inner(v).frames(), &Link::Tunnel(t.clone()), Endian::Little, TsResolution::Micro)
}

#[test]
fn tcp_inside_every_tunnel_is_the_inner_segment() {
    for (name, t, v) in tunnels() {
        let (out, info, err) = decode(&pcap(&t, v));
        assert_eq!(err, None, "{name}");
        let got: Vec<_> = tcp(&out).iter().map(|s| (s.src_port, s.dst_port, s.seq, s.payload_len)).collect();
        // The inner ports, sequence numbers and payload lengths, never the outer
        // headers' (the payloads 1448/1448/1000 would grow by the tunnel's bytes).
        assert_eq!(got, script(&inner(v)), "{name}");
        // The inner addresses name the connection (10.0.0.1, not the outer 192.0.2.1).
        let src = tcp(&out)[0].src.to_string();
        assert_eq!(src, if v == "v6" { "2001:db8::1" } else { "10.0.0.1" }, "{name}");
        assert!(info.warnings.is_empty(), "{name}: {:?}", info.warnings);
        assert_eq!(info.link_types, vec!["ethernet".to_string()], "{name}");
    }
}

#[test]
fn a_tunnelled_transfer_is_analysed_as_one_connection() {
    for (name, t, v) in tunnels() {
        let s = analyze_bytes(&pcap(&t, v), AnalysisOptions::default(), 1 << 20);
        assert!(s.error().is_none(), "{name}");
        let a = s.analysis().unwrap();
        // One connection of 8 segments; the server sent 1448 + 1448 + 1000 = 3896 bytes.
        assert_eq!(a.connections.len(), 1, "{name}");
        let json = s.report().to_json();
        assert!(json.contains(r#""payloadBytes":3896"#), "{name}: {json}");
        assert!(json.contains(r#""handshakeSeen":true"#), "{name}");
    }
}

/// A GTP-U echo request (message type 1) and a VXLAN frame carrying ARP are IP packets
/// that are not TCP: counted as `not-tcp`, never as a connection.
#[test]
fn tunnel_packets_without_tcp_are_not_tcp() {
    let echo = {
        let mut b = vec![0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00];
        let udp = [0x08, 0x68, 0x08, 0x68, 0, 16, 0, 0, 0x32, 0x01, 0, 4, 0, 0, 0, 0];
        b.extend_from_slice(&[0x45, 0, 0, 36, 0, 1, 0x40, 0, 64, 17, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2]);
        b.extend_from_slice(&udp);
        Frame::new(0, 0, b)
    };
    let arp = Frame::arp(1_000);
    let mut bytes = write_pcap(&[echo], &Link::Other(1), Endian::Little, TsResolution::Micro);
    bytes.extend(write_pcap_record(&arp, &Link::Tunnel(Tunnel::Vxlan), Endian::Little, TsResolution::Micro));
    let (out, info, err) = decode(&bytes);
    assert_eq!((err, tcp(&out).len()), (None, 0));
    assert_eq!(info.warnings.get(&WarningKind::NotTcp), Some(&2));
    assert_eq!(info.warnings.get(&WarningKind::NotIp), None);
}

/// Write every capture for the tshark comparison.
#[test]
#[ignore]
fn write_fixtures_for_tshark() {
    let dir = std::env::temp_dir().join("tcpscope-tunnels");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, t, v) in tunnels() {
        std::fs::write(dir.join(format!("{name}.pcap")), pcap(&t, v)).unwrap();
    }
}
