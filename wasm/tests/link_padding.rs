//! Link padding counted in the IP length is not data (review N, C-PHANTOM;
//! analysis/track/padding.rs, docs/ANALYSIS.md "Link padding inside the IP length").

use crate::common;

use serde_json::Value;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::tcp_flags::{ACK, FIN, PSH, SYN};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

fn report(bytes: &[u8]) -> Value {
    let s = analyze_bytes(bytes, AnalysisOptions::default(), 1 << 20);
    serde_json::from_str(&s.report().to_json()).expect("report JSON")
}

fn warning(r: &Value, kind: &str) -> Option<u64> {
    r["warnings"].as_array().unwrap().iter().find(|w| w["kind"] == kind).map(|w| w["count"].as_u64().unwrap())
}

const RECORD: [u8; 5] = [0x17, 3, 3, 0, 0x29]; // a TLS application-data record header

/// An idle TLS connection as nDPI's heuristic_tcp_ack_payload.pcap holds it: every
/// ACK carries zero bytes inside its IP length (the client's 2, the server's 6: a
/// 60-byte frame's padding), and the next segment of its sender starts at the same
/// sequence number. Four 46-byte exchanges 55 s apart, answered 25 ms later.
fn idle_tls() -> Vec<Frame> {
    let mut f = Flow::new("10.7.0.1:27453", "10.7.0.2:443");
    let opts = Opts::new().mss(1460).wscale(8).sack_perm();
    let (mut c, mut s) = (1001u32, 5001u32);
    f.push(C2S, 0).flags(SYN).seq(1000).ack(0).opts(opts);
    f.push(S2C, 24_000).flags(SYN | ACK).seq(5000).ack(c).opts(opts);
    f.push(C2S, 24_300).seq(c).ack(s).payload_bytes(&[0, 0]); // padded handshake ACK
    for k in 0..4 {
        let t = 25_000 + k * 55_000_000;
        f.push(C2S, t).flags(ACK | PSH).seq(c).ack(s).payload_bytes(&RECORD).payload(46);
        c += 46;
        f.push(S2C, t + 24_000).seq(s).ack(c).payload_bytes(&[0; 6]);
        f.push(S2C, t + 25_000).flags(ACK | PSH).seq(s).ack(c).payload_bytes(&RECORD).payload(46);
        s += 46;
        f.push(C2S, t + 49_000).seq(c).ack(s).payload_bytes(&[0, 0]);
    }
    let t = 25_000 + 4 * 55_000_000;
    f.push(C2S, t).flags(ACK | FIN).seq(c).ack(s).payload_bytes(&[0, 0]);
    f.push(S2C, t + 24_000).flags(ACK | FIN).seq(s).ack(c + 1).payload_bytes(&[0; 6]);
    f.push(C2S, t + 48_000).seq(c + 1).ack(s + 1).payload_bytes(&[0, 0]);
    f.frames()
}

#[test]
fn zero_bytes_the_sender_re_uses_are_padding_not_lost_data() {
    // Read as payload (as Wireshark does), each padded ACK moves its sender's sequence
    // 2 or 6 bytes on and the next record, which starts where the ACK did, is a
    // retransmission 55 s later: a "tail loss probe", a timeout, "FIN never
    // acknowledged". The rule: the client's handshake ACK (2 zeros) is followed 0.7 ms
    // later by the request at the same sequence number starting 0x17 — padding; so is
    // the server's first ACK (6 zeros) before its answer. From then on each side's zero
    // tails are padding: the client's 4 ACKs, its FIN's 2 zeros and its last ACK, the
    // server's 3 later ACKs and its FIN's 6 zeros. 2 confirmed + 10 taken out = 12
    // segments, in the `link-padding` warning. Nothing was re-sent and both FINs were
    // acknowledged (the client's last ACK, 5001 + 4 × 46 + 1).
    let r = report(&write_pcap(&idle_tls(), &Link::Ethernet, Endian::Little, TsResolution::Micro));
    assert_eq!(warning(&r, "link-padding"), Some(12));
    let c = &r["connections"][0];
    for d in 0..2 {
        let dir = &c["directions"][d];
        let counts = ["retransmissions", "tailLossProbes", "rtoEvents", "spuriousRetransmissions"].map(|k| dir[k].as_u64().unwrap());
        assert_eq!(counts, [0; 4], "direction {d}");
    }
    // 4 × 46 bytes each way, and each side's first zero tail (the client's 2, the
    // server's 6), counted before the next segment showed it to be padding (padding.rs:
    // what stays).
    assert_eq!((c["directions"][0]["payloadBytes"].as_u64(), c["directions"][1]["payloadBytes"].as_u64()), (Some(186), Some(190)));
    assert_eq!(c["ending"]["finsUnacknowledged"], serde_json::json!([0, 0]));
    assert_eq!(c["ending"]["unacknowledgedBytes"], serde_json::json!([0, 0]));
    let text = c["diagnosis"]["text"].as_str().unwrap();
    assert!(!text.contains("tail loss probe") && !text.contains("never acknowledged"), "{text}");
}

#[test]
fn zero_bytes_that_are_data_stay_data() {
    // A VNC server's SecurityResult "OK" is 4 zero bytes in a 44-byte datagram, and the
    // client's next message starts after them: no re-use, no padding, nothing counted.
    let mut f = Flow::new("10.7.0.1:40000", "10.7.0.2:5900");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(S2C, 2_000, 12).payload_bytes(b"RFB 003.008\n");
    f.data(C2S, 3_000, 12).payload_bytes(b"RFB 003.008\n");
    f.data(S2C, 4_000, 4).payload_bytes(&[0, 0, 0, 0]);
    f.data(C2S, 5_000, 1).payload_bytes(&[1]);
    f.data(S2C, 6_000, 24).payload_bytes(&[4, 0]);
    f.push(C2S, 7_000);
    let r = report(&write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro));
    assert_eq!(warning(&r, "link-padding"), None);
    assert_eq!(r["connections"][0]["directions"][1]["payloadBytes"], 40);
}

#[test]
fn corpus_ndpi_heuristic_tcp_ack_payload_is_an_idle_tls_connection() {
    // nDPI tests/cfgs/default/pcap/heuristic_tcp_ack_payload.pcap, connection 2: every
    // ACK carries 2 (client, frame 149: 56 B frame, ip.len 42, payload 0000) or 6
    // (server, 145/147: ip.len 46, six zeros) zero bytes, and the next data re-uses
    // the sequence number (149 seq 1357 len 2 → 150 seq 1357 len 46, tshark). Before
    // session 30: 20 + 12 retransmissions, "1 tail loss probe … re-sending its lost
    // message" 57.8 s after frame 149 at a 24 ms RTT, "FIN was sent 2 times and never
    // acknowledged" (frame 160 acknowledges 34,977, the FIN at 34,976). Now: the client
    // re-sent nothing; the server re-sent only its FIN (frame 159, 351 ms after 157,
    // before the client's ACK 160: tshark's one retransmission there too), both FINs
    // acknowledged, the padding counted in `link-padding`.
    let Some(bytes) = common::corpus("ntop__nDPI__tests_cfgs_default_pcap_heuristic_tcp_ack_payload.pcap") else { return };
    let r = report(&bytes);
    assert!(warning(&r, "link-padding").unwrap() > 0);
    let c = &r["connections"][2];
    let resent = |d: usize| (c["directions"][d]["retransmissions"].as_u64(), c["directions"][d]["tailLossProbes"].as_u64());
    assert_eq!((resent(0), resent(1)), ((Some(0), Some(0)), (Some(1), Some(1))));
    assert_eq!(c["ending"]["finsUnacknowledged"], serde_json::json!([0, 0]));
    let text = c["diagnosis"]["text"].as_str().unwrap();
    assert!(!text.contains("tail loss probe") && !text.contains("never acknowledged"), "{text}");
}
