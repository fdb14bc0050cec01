//! Real captures of the link layers of issue 17, written by others: tcpdump's own test
//! captures (BSD licence, github.com/the-tcpdump-group/tcpdump `tests/`). They are not
//! in this repository (only the lead commits outside material); put them in a folder
//! and point `TCPSCOPE_PUBLIC_CAPTURES` at it to run this test:
//!   LINKTYPE_PKTAP.pcap, LINKTYPE_USER2_PKTAP.pcap (a Mac's `tcpdump -k`, 2014),
//!   lspping-fec-ldp.pcap (BGP over MPLS over PPP), bgp_vpn_attrset.pcap (BGP over PPP).
//! Every number below is what tshark 4.0 shows on the same file.

use tcpscope_core::decode::{Decoded, WarningKind};

mod common;
use common::decode_every_split as decode;

fn file(name: &str) -> Option<Vec<u8>> {
    let dir = std::env::var("TCPSCOPE_PUBLIC_CAPTURES").ok()?;
    std::fs::read(format!("{dir}/{name}")).ok()
}

/// (src port, dst port, payload) of each TCP segment, and the warnings.
fn summary(bytes: &[u8]) -> (Vec<(u16, u16, u32)>, Vec<(WarningKind, u64)>, Vec<String>) {
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
