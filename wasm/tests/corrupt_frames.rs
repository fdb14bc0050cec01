//! Corrupt frames (issue 39 item 8; docs/ANALYSIS.md "Corrupt frames"): a frame
//! whose TCP checksum fails where its sender's other frames pass was damaged on the way
//! and never reached a TCP stack — counted in the `bad-tcp-checksum` warning, not
//! analysed, its options never read; an offloaded sender, whose every frame fails, is
//! not corrupt. And the same datagram heard twice on 802.11 (a FIN 110 µs later under
//! another MAC sequence number) is one datagram, not a tail loss probe.

use serde_json::Value;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::checksum::{fold, sum_words};
use tcpscope_core::decode::tcp_flags::{ACK, FIN, SYN};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

fn report(bytes: &[u8]) -> Value {
    let s = analyze_bytes(bytes, AnalysisOptions::default(), 1 << 20);
    serde_json::from_str(&s.report().to_json()).expect("report JSON")
}

fn warning(r: &Value, kind: &str) -> Option<u64> {
    r["warnings"].as_array().unwrap().iter().find(|w| w["kind"] == kind).map(|w| w["count"].as_u64().unwrap())
}

/// A download from a Wi-Fi station's server: the handshake (MSS 1460, window scale 7,
/// timestamps), 20 segments of 1448 bytes 1 ms apart, each second one acknowledged
/// 5 ms later, and the client's FIN. Every datagram gets its sender's next IPv4
/// Identification (a Linux-like counter per host).
fn download() -> Flow {
    let mut f = Flow::new("192.168.1.20:51000", "192.168.1.10:8080");
    let mut ids = [0x1000u16, 0x5000u16];
    let mut id = |server: bool| {
        let n = &mut ids[usize::from(server)];
        *n += 1;
        *n
    };
    let opts = |ts: u32, ecr: u32| Opts::new().mss(1460).wscale(7).sack_perm().ts(ts, ecr);
    f.push(C2S, 0).flags(SYN).ack(0).opts(opts(100, 0)).ip_id(id(false));
    f.push(S2C, 3_000).flags(SYN | ACK).opts(opts(900, 100)).ip_id(id(true));
    f.push(C2S, 3_100).ip_id(id(false));
    for i in 0..20 {
        f.data(S2C, 10_000 + i * 1_000, 1448).ip_id(id(true));
        if i % 2 == 1 {
            f.push(C2S, 15_000 + i * 1_000).ip_id(id(false));
        }
    }
    f.push(C2S, 40_000).flags(FIN | ACK).ip_id(id(false));
    f
}

/// Monitor-mode frames (radiotap, 802.11 QoS data) of `frames` in time order, each
/// station numbering its own frames (802.11 sequence numbers per transmitter).
fn on_the_air(flow: &Flow) -> Vec<Frame> {
    let mut frames: Vec<(Frame, bool)> = flow.frames().into_iter().zip(flow.segments().iter().map(|s| s.src.port() == 8080)).collect();
    frames.sort_by_key(|(f, _)| f.ts_ns);
    let mut next = [100u16, 2000u16];
    frames
        .into_iter()
        .map(|(f, server)| {
            let n = &mut next[usize::from(server)];
            *n += 1;
            f.radio(RadioFields { seq: *n, ..Default::default() })
        })
        .collect()
}

fn monitor_pcap(frames: &[Frame]) -> Vec<u8> {
    write_pcap(frames, &Link::Radiotap { ht_control: false }, Endian::Little, TsResolution::Micro)
}

/// `f` heard again `after_us` later as the radio's retry (Retry bit, the same MAC
/// sequence number), with `damage` applied to its IP packet and the TCP checksum left
/// as it was.
fn retry_of(f: &Frame, after_us: i64, damage: impl Fn(&mut Vec<u8>)) -> Frame {
    let mut r = f.clone();
    r.ts_ns += after_us * 1_000;
    let seq = f.radio.as_ref().map_or(0, |x| x.seq);
    r.radio = Some(RadioFields { retry: true, seq, ..Default::default() });
    damage(&mut r.net);
    r
}

/// Offset of the TCP header in an IPv4 packet without options.
const TCP: usize = 20;

#[test]
fn a_corrupted_copy_of_a_data_segment_is_counted_not_analysed() {
    // Segment 10 of the server is heard again 150 µs later as a MAC retry, one bit of
    // its window field flipped on the air (the radio's FCS check missed or was not
    // reported). Differing from the original, it is no copy of it: analysed, it was a
    // retransmission of 1448 bytes. Its TCP checksum fails where the server's 21 other
    // frames pass: corrupt, counted once, not analysed, so no retransmission at all.
    let flow = download();
    let mut frames = on_the_air(&flow);
    let k = frames.iter().position(|f| f.net.len() > 1000).unwrap() + 10;
    let copy = retry_of(&frames[k], 150, |net| net[TCP + 14] ^= 0x10);
    frames.insert(k + 1, copy);
    let r = report(&monitor_pcap(&frames));
    assert_eq!(warning(&r, "bad-tcp-checksum"), Some(1));
    let c = &r["connections"][0];
    let data = &c["directions"][1];
    assert_eq!(data["payloadBytes"], 20 * 1448);
    assert_eq!((data["retransmissions"].as_u64(), data["fastRetransmissions"].as_u64()), (Some(0), Some(0)));
    // 35 packets in the file: the flow's 34 (3 of the handshake, 20 segments, 10 ACKs,
    // the FIN), the corrupt one not among the connection's.
    assert_eq!((r["capture"]["packets"].as_u64(), c["packets"].as_u64()), (Some(35), Some(34)));
}

#[test]
fn a_corrupted_syn_ack_is_not_read_its_retry_is() {
    // The SYN/ACK's first transmission reaches the monitor with its MSS option's kind
    // damaged (2 → 130, an unknown option: "MSS none" if read); the radio's retry 200 µs
    // later is intact. Before: the retry, identical in every field compared, was taken
    // for a copy of the damaged one and dropped. Now the damaged one fails its checksum
    // where the server's 21 other frames pass: not analysed, and the handshake's MSS is
    // the retry's 1460.
    let flow = download();
    let mut frames = on_the_air(&flow);
    let k = frames.iter().position(|f| f.net[TCP + 13] == SYN | ACK).unwrap();
    let good = retry_of(&frames[k], 200, |_| {});
    frames[k].net[TCP + 20] = 130;
    frames.insert(k + 1, good);
    let r = report(&monitor_pcap(&frames));
    assert_eq!(warning(&r, "bad-tcp-checksum"), Some(1));
    assert_eq!(r["capture"]["duplicateFrames"], 0);
    let hs = &r["connections"][0]["handshake"];
    assert_eq!((hs["synAck"]["mss"].as_u64(), hs["synAck"]["windowScale"].as_u64()), (Some(1460), Some(7)));
    assert_eq!(r["connections"][0]["directions"][1]["retransmissions"], 0);
}

#[test]
fn one_fin_heard_on_two_hops_is_no_tail_loss_probe() {
    // The client's FIN heard as it goes to the AP, and 110 µs later as the AP sends it
    // on (its own MAC sequence number, no Retry bit): the same IPv4 ID, seq, ack,
    // flags — one datagram (analysis/capture/duplicates.rs). Counted as a duplicate frame; the
    // client re-sent nothing, so no retransmission and no tail loss probe.
    let flow = download();
    let mut frames = on_the_air(&flow);
    let last = frames.last().unwrap().clone();
    assert_eq!(last.net[TCP + 13], FIN | ACK);
    let mut relayed = last.clone();
    relayed.ts_ns += 110_000;
    relayed.radio = Some(RadioFields { seq: 3001, ..Default::default() });
    frames.push(relayed);
    let r = report(&monitor_pcap(&frames));
    assert_eq!(r["capture"]["duplicateFrames"], 1);
    let client = &r["connections"][0]["directions"][0];
    assert_eq!((client["retransmissions"].as_u64(), client["tailLossProbes"].as_u64()), (Some(0), Some(0)));
    assert_eq!(warning(&r, "bad-tcp-checksum"), None);
}

/// The TCP checksum field of an IPv4 packet without options (`net`) set to `value`.
fn set_checksum(net: &mut [u8], value: u16) {
    net[TCP + 16..TCP + 18].copy_from_slice(&value.to_be_bytes());
}

/// The pseudo-header sum Linux leaves in an offloaded segment (CHECKSUM_PARTIAL):
/// addresses, protocol 6 and the TCP length, folded, not complemented.
fn partial_sum(net: &[u8]) -> u16 {
    fold(sum_words(&net[12..20]) + 6 + (net.len() - TCP) as u64)
}

#[test]
fn an_offloaded_sender_fails_every_frame_and_is_not_corrupt() {
    // A capture on the server, whose NIC computes its checksums: every frame it sends
    // is captured before that, holding the pseudo-header sum (Linux) — or, from another
    // driver, anything (here 0xbeef in all of them). Its frames all fail; the client's
    // pass. Nothing is corrupt: no warning, nothing dropped, the same report as with
    // correct checksums.
    let flow = download();
    let frames: Vec<Frame> = on_the_air(&flow).into_iter().map(|f| Frame { radio: None, ..f }).collect();
    let ethernet = |fr: &[Frame]| write_pcap(fr, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let correct = report(&ethernet(&frames));
    assert_eq!(correct["connections"][0]["packets"], 34);
    let server = |f: &Frame| f.net[TCP..TCP + 2] == 8080u16.to_be_bytes();
    for offload in [partial_sum as fn(&[u8]) -> u16, |_: &[u8]| 0xbeef] {
        let mut sent = frames.clone();
        for f in sent.iter_mut().filter(|f| server(f)) {
            let v = offload(&f.net);
            set_checksum(&mut f.net, v);
        }
        let r = report(&ethernet(&sent));
        assert_eq!(warning(&r, "bad-tcp-checksum"), None);
        assert_eq!(r, correct);
    }
}
