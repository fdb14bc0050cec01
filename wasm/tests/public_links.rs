//! Real captures of the link layers of issue 17, written by others: tcpdump's own test
//! captures (BSD licence, github.com/the-tcpdump-group/tcpdump `tests/`). They are not
//! in this repository (only the lead commits outside material); put them in a folder
//! and point `TCPSCOPE_PUBLIC_CAPTURES` at it to run this test:
//!   LINKTYPE_PKTAP.pcap, LINKTYPE_USER2_PKTAP.pcap (a Mac's `tcpdump -k`, 2014),
//!   lspping-fec-ldp.pcap (BGP over MPLS over PPP), bgp_vpn_attrset.pcap (BGP over PPP).
//! Every number below is what tshark 4.0 shows on the same file.

use tcpscope_core::decode::{Decoded, WarningKind};

use crate::common;
use common::decode_every_split as decode;

fn file(name: &str) -> Option<Vec<u8>> {
    let dir = std::env::var("TCPSCOPE_PUBLIC_CAPTURES").ok()?;
    std::fs::read(format!("{dir}/{name}")).ok()
}

/// (src port, dst port, payload) of each TCP segment, the warnings, the link types.
type Summary = (Vec<(u16, u16, u32)>, Vec<(WarningKind, u64)>, Vec<String>);

fn summary(bytes: &[u8]) -> Summary {
    let (out, info, err) = decode(bytes);
    assert_eq!(err, None);
    let segs = out.iter().filter_map(|p| if let Decoded::Tcp(s) = p { Some((s.src_port, s.dst_port, s.payload_len)) } else { None }).collect();
    (segs, info.warnings.into_iter().collect(), info.link_types)
}

#[test]
fn tcpdump_pktap_captures() {
    for name in ["LINKTYPE_PKTAP.pcap", "LINKTYPE_USER2_PKTAP.pcap"] {
        let Some(bytes) = file(name) else { return };
        // One DNS query from pid 512 on en0 (tshark: pktap.pid 512, eth:ip:udp:dns):
        // decoded through the PKTAP header down to UDP, not an unknown link type.
        let (segs, warnings, links) = summary(&bytes);
        assert_eq!((segs, warnings, links), (vec![], vec![(WarningKind::NotTcp, 1)], vec!["pktap".to_string()]), "{name}");
    }
}

#[test]
fn tcpdump_ppp_and_mpls_captures() {
    if let Some(bytes) = file("lspping-fec-ldp.pcap") {
        // tshark, 13 frames: 3 are ppp:mpls:ip:tcp (BGP, tcp.len 19, 19, 0; streams
        // 4100→179 and 2006→179); 10 are LSP pings over UDP (5 labelled, 5 not).
        let (segs, warnings, links) = summary(&bytes);
        assert_eq!(segs, vec![(4100, 179, 19), (2006, 179, 19), (2006, 179, 0)]);
        assert_eq!((warnings, links), (vec![(WarningKind::NotTcp, 10)], vec!["ppp".to_string()]));
    }
    if let Some(bytes) = file("bgp_vpn_attrset.pcap") {
        // tshark: one ppp:ip:tcp:bgp frame, 2051→179, tcp.len 121.
        assert_eq!(summary(&bytes), (vec![(2051, 179, 121)], vec![], vec!["ppp".to_string()]));
    }
}

/// Records of a little-endian microsecond pcap (the tcpdump test files are).
fn records(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut at = 24;
    while let Some(h) = bytes.get(at..at + 16) {
        let caplen = u32::from_le_bytes([h[8], h[9], h[10], h[11]]) as usize;
        let Some(data) = bytes.get(at + 16..at + 16 + caplen) else { break };
        out.push(data);
        at += 16 + caplen;
    }
    out
}

/// "rate_kbps nss signal channel" per frame, as tshark prints radiotap.datarate etc.
fn radio_lines(bytes: &[u8]) -> Vec<String> {
    records(bytes)
        .iter()
        .map(|f| match tcpscope_core::decode::radiotap::parse(f) {
            Ok(r) => format!("{} {} {} {}", r.radio.rate_kbps, r.radio.nss, r.radio.signal_dbm.map_or(String::new(), |s| s.to_string()), r.radio.channel_mhz),
            Err(e) => format!("{e:?}"),
        })
        .collect()
}

/// Real radiotap headers from tcpdump's tests (`ieee802.11_exthdr.pcap`, a 2.4 GHz
/// capture; `ieee802.11_rx-stbc.pcap`, HT 40 MHz on channel 11; `ieee802.11_htc.pcap`,
/// an 802.11ax frame). tshark 4.0 agrees frame by frame on rate, signal and channel:
/// exthdr: 24 frames at 1 Mbit/s, HT MCS 2 (20 MHz, long GI) = 19.5 and MCS 11 = 52
/// Mbit/s (2 streams); rx-stbc: MCS 7 at 40 MHz = 135 (long GI) and 150 (short GI).
/// htc: tshark 4.0 computes no HE rate; its fields say MCS 9 (data3 0x69e5), 20 MHz,
/// 2 streams, 0.8 µs GI = 229.4 Mbit/s in the 802.11ax rate table.
#[test]
fn tcpdump_radiotap_fields() {
    let count = |name: &str| -> Option<Vec<String>> {
        let mut v = radio_lines(&file(name)?);
        v.sort();
        v.dedup();
        Some(v)
    };
    if let Some(rates) = count("ieee802.11_exthdr.pcap") {
        let rates: Vec<&str> = rates.iter().map(|l| l.split(' ').next().unwrap_or("")).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        assert_eq!(rates, ["1000", "19500", "52000"]);
    }
    if let Some(lines) = count("ieee802.11_rx-stbc.pcap") {
        assert_eq!(lines, ["135000 1 -46 2462", "150000 1 -45 2462", "150000 1 -51 2462"]);
    }
    if let Some(lines) = count("ieee802.11_htc.pcap") {
        assert_eq!(lines, ["229412 2 -45 5180"]);
    }
}

/// Print the radio facts of each frame of `TCPSCOPE_RADIOTAP_FILE`, to compare with
/// `tshark -T fields -e radiotap.datarate -e radiotap.dbm_antsignal -e radiotap.channel.freq`.
#[test]
#[ignore]
fn print_radiotap_fields() {
    let Ok(path) = std::env::var("TCPSCOPE_RADIOTAP_FILE") else { return };
    for line in radio_lines(&std::fs::read(path).unwrap()) {
        println!("{line}");
    }
}
