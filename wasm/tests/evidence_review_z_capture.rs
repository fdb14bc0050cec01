//! Issue 39, review Z:
//! - class 1, C-CAPTURE-COPY-AS-RETRANSMISSION (forwarded.rs): a host that bridges logs
//!   every frame on its way in (the peer's MAC → its own) and again on its way out (its
//!   own MAC → the next hop), TTL unchanged. The receiver's copies were merged by their
//!   IPv4 Identification, but an iPhone sender writes ID 0 in every datagram (RFC 6864
//!   §4), so its copies passed as "fast" re-sends (jungvely97 photobee_file
//!   `pcapng_animalpicture.pcapng` connection 16: "Loss limited … 51.4 %", 11 Mbit/s
//!   for a 5.3 Mbit/s upload).
//! - class 6, C-KEEPALIVE-AS-CAPTURE-HOLE (capture_loss.rs `sent_before_capture`): a
//!   connection picked up mid-stream on a keep-alive (SEG.SEQ = SND.NXT − 1, RFC 9293
//!   §3.8.4) answered with an ACK one above it, then the side's next segment at SND.NXT:
//!   the byte between was sent before the capture, not a hole it dropped (TaliaSeada
//!   Ex3_Networking `http.pcapng`: "7 holes in the captured data (7 B …)").

use crate::common;

use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary};
use tcpscope_core::decode::tcp_flags::{ACK, FIN};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

const PHOTO: &str = "jungvely97__photobee_file__pcapng_animalpicture.pcapng";
const HTTP: &str = "TaliaSeada__Ex3_Networking__http.pcapng";
const ANON: &str = "omrajput03__wireshark-network-traffic-analysis__capture.pcapng";

/// The iPhone, the bridging host that captures, the receiver.
const PHONE: [u8; 6] = [0x8c, 0x8e, 0xf2, 0xce, 0xc8, 0x76];
const BRIDGE: [u8; 6] = [0x88, 0x36, 0x6c, 0xf3, 0x98, 0x80];
const CAMERA: [u8; 6] = [0xac, 0x3f, 0xa4, 0x96, 0x29, 0xbf];

/// `frames` (segment, destination MAC, source MAC), written in time order on Ethernet
/// with those addresses; the connections, duplicate-frame count and warnings.
fn analyze_macs(mut frames: Vec<(Segment, [u8; 6], [u8; 6])>) -> (Vec<ConnectionSummary>, u64, Vec<String>) {
    frames.sort_by_key(|f| f.0.ts_ns);
    let mut bytes = write_pcap_header(1, Endian::Little, TsResolution::Nano, 262_144);
    for (s, dst, src) in &frames {
        let mut record = write_pcap_record(&s.frame(), &Link::Ethernet, Endian::Little, TsResolution::Nano);
        record[16..22].copy_from_slice(dst);
        record[22..28].copy_from_slice(src);
        bytes.extend_from_slice(&record);
    }
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    (a.connections.clone(), a.capture.duplicate_frames, a.warnings.iter().map(|w| w.message.clone()).collect())
}

/// An upload through a bridge that captures: the phone (IP ID 0, TTL 64) sends 20
/// segments of 1,460 B 2 ms apart, the receiver (IDs counting from 0x030f, TTL 60)
/// ACKs every second one 3 ms later. Every frame is logged as it arrives and again,
/// `copy_ms(k)` ms later, as the bridge sends it on (when `forwarded`; otherwise the
/// second frame keeps the first one's addresses, as a re-send from its sender would).
fn bridged_upload(forwarded: bool) -> Vec<(Segment, [u8; 6], [u8; 6])> {
    let mut f = Flow::new("192.168.10.102:53445", "192.168.10.1:9900");
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for k in 0..20u32 {
        f.data(C2S, 20_000 + 2_000 * i64::from(k), 1460);
        if k % 2 == 1 {
            f.push(S2C, 23_000 + 2_000 * i64::from(k));
        }
    }
    let mut id = 0x030f;
    let mut out = Vec::new();
    for (k, s) in f.segments().iter().enumerate() {
        let mut s = s.clone();
        let from_phone = s.src.port() == 53445;
        if from_phone {
            s.ip_id(0).ttl(64);
        } else {
            s.ip_id(id).ttl(60);
            id += 1;
        }
        // The bridge's delay: 1 to 19 ms (photo: < 1 ms to 20 ms).
        let copy_ms = 1 + (k as i64 * 7) % 19;
        let mut copy = s.clone();
        copy.at_ns(s.ts_ns + copy_ms * 1_000_000);
        let (peer, next) = if from_phone { (PHONE, CAMERA) } else { (CAMERA, PHONE) };
        out.push((s, BRIDGE, peer));
        out.push(if forwarded { (copy, next, BRIDGE) } else { (copy, BRIDGE, peer) });
    }
    out
}

#[test]
fn a_bridge_logging_each_frame_in_and_out_sends_nothing_twice() {
    let (conns, duplicates, warnings) = analyze_macs(bridged_upload(true));
    let up = &conns[0].directions[0];
    // 3 handshake + 20 data + 10 ACK frames, each logged twice: 33 copies. (Before, main
    // eccb89f: the receiver's 10 ACK copies merged by ID and the SYN's and SYN/ACK's as
    // their direction's first; the phone's 20 data copies and its handshake ACK's were
    // not, ID 0: 12 duplicates, 20 "retransmissions", 58,400 B — as the next test.) The data is 20 × 1,460 = 29,200 B,
    // each sent once: the receiver sent no duplicate ACK, nothing was lost.
    assert_eq!(duplicates, 33);
    assert_eq!((up.retransmissions, up.payload_bytes), (0, 29_200));
    // Delays k·7 mod 19 + 1 ms over k = 0..32: every value from 1 to 19 ms occurs.
    assert!(warnings.iter().any(|w| w.contains("33 of them logged by a host that forwards them") && w.contains("1 ms to 19 ms later")), "{warnings:?}");
}

#[test]
fn the_same_frame_twice_from_its_sender_stays_a_re_send() {
    // The second frame from the sender's own MAC, as its re-send would be: the
    // addresses show no forwarding, and ID 0 tells nothing, so within the 200 µs of
    // the ID-less window only (duplicates.rs) — none here: 20 re-sends stay, as before.
    let (conns, duplicates, _) = analyze_macs(bridged_upload(false));
    let up = &conns[0].directions[0];
    assert_eq!((up.retransmissions, up.payload_bytes), (20, 58_400));
    // The receiver's 10 ACK copies (telling ID) and the SYN's and SYN/ACK's (each its
    // direction's first: duplicates.rs); not the phone's handshake ACK (ID 0).
    assert_eq!(duplicates, 12);
}

#[test]
fn photo_upload_counts_each_segment_once() {
    let Some(c) = common::corpus_connection(PHOTO, 16) else { return };
    let up = &c.directions[0];
    // tshark (eth.src 8c:8e:f2:ce:c8:76, the phone's own frames, the bridge's copies
    // left out): 1,125 data frames, 1,641,844 B, 1,093 sequence numbers of which 32 sent
    // twice (1,595,124 unique bytes). Before: 1,154 retransmissions, 3,283,688 B,
    // "Loss limited … 51.4 %", 11 Mbit/s.
    assert_eq!((up.retransmissions, up.payload_bytes), (32, 1_641_844));
    assert!(!c.diagnosis.text.contains("Loss limited"), "{}", c.diagnosis.text);
}

/// A connection picked up mid-stream: the client's keep-alive at SND.NXT − 1 (seq 1,
/// no data), the server's ACK of 2, then `after` from the client at seq 2.
fn keep_alive_then(after: u8, data: u32) -> ConnectionSummary {
    let mut f = Flow::new("10.0.0.15:40236", "142.251.37.193:443");
    f.push(C2S, 0).seq(1).ack(1);
    f.push(S2C, 47_000).seq(1).ack(2);
    f.push(S2C, 31_000_000).seq(1).ack(2).payload(39);
    f.push(C2S, 31_000_300).seq(2).ack(40).flags(ACK | after).payload(data);
    let end = 2 + data + u32::from(after & FIN != 0);
    f.push(S2C, 31_050_000).seq(40).ack(end).flags(ACK | FIN);
    f.push(C2S, 31_050_100).seq(end).ack(41);
    common::analyze_flow(&f)
}

#[test]
fn a_keep_alive_at_the_capture_start_opens_no_hole() {
    // (Before, main eccb89f: the client's FIN at seq 2 followed the keep-alive at seq 1,
    // a "hole" [1, 2) the server's ACK of 3 passed: 1 hole, 1 B.) RFC 9293 §3.8.4: the
    // probe is sent at SND.NXT − 1, so the byte below 2 was sent and acknowledged before
    // the capture began.
    for (after, data) in [(FIN, 0), (0, 24)] {
        let c = keep_alive_then(after, data);
        assert_eq!((c.capture_loss.holes, c.capture_loss.unseen_bytes), (0, 0), "{after} {data}");
    }
}

#[test]
fn keep_alives_at_the_capture_start_are_no_capture_loss() {
    // tshark: every "ACKed segment that wasn't captured" of these files answers a
    // zero-length keep-alive at seq 1 with ACK 2 (http.pcapng port 40824 frames 63/66,
    // anon stream 3 frames 1684/1685); before, 7 connections and 1 kept a 1-B hole.
    for name in [HTTP, ANON] {
        let Some(conns) = common::corpus_connections(name) else { return };
        let holes: u64 = conns.iter().map(|c| c.capture_loss.holes).sum();
        assert_eq!(holes, 0, "{name}");
    }
}
