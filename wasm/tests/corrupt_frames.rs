//! Corrupt frames (issue 39 item 8; docs/ANALYSIS.md "Corrupt frames"): a frame
//! whose TCP checksum fails where its sender's other frames pass was damaged on the way
//! and never reached a TCP stack — counted in the `bad-tcp-checksum` warning, not
//! analysed, its options never read; an offloaded sender, whose every frame fails, is
//! not corrupt; a failing frame whose bytes the peer acknowledged, no other frame
//! carrying them, was delivered (decode/acked.rs): analysed, counted in
//! `acked-bad-checksum`. And the same datagram heard twice on 802.11 (a FIN 110 µs later under
//! another MAC sequence number) is one datagram, not a tail loss probe.

use crate::common;
use serde_json::Value;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::checksum::{fold, sum_words};
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

/// The download captured on Ethernet (no radio header), server frames `bad` given the
/// checksum 0xbeef (neither the correct sum nor the pseudo-header sum offload leaves).
fn wired(flow: &Flow, bad: impl Fn(usize, &Frame) -> bool) -> Vec<u8> {
    let mut frames: Vec<Frame> = flow.frames();
    frames.sort_by_key(|f| f.ts_ns);
    for (i, f) in frames.iter_mut().enumerate() {
        if bad(i, f) {
            set_checksum(&mut f.net, 0xbeef);
        }
    }
    write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro)
}

/// The report without its warnings.
fn without_warnings(mut r: Value) -> Value {
    r["warnings"] = Value::Array(vec![]);
    r["warningTotals"] = Value::Null;
    r
}

/// Server data frames (source port 8080, more than 1000 bytes of IP packet), every
/// second one from the first.
fn every_second_data_frame(frames: &[Frame]) -> Vec<usize> {
    let data: Vec<usize> = (0..frames.len()).filter(|&i| frames[i].net[TCP..TCP + 2] == 8080u16.to_be_bytes() && frames[i].net.len() > 1000).collect();
    data.into_iter().step_by(2).collect()
}

#[test]
fn frames_the_peer_acknowledged_were_delivered_whatever_their_checksum() {
    // A capture on the server whose NIC fills in the checksum of its large sends only
    // (arkime's smtp-subject-8859-b: 9 of 21 frames fail, on both hosts): 10 of the
    // server's 20 data segments fail with 0xbeef, its other 11 frames (the SYN/ACK and
    // 10 segments) pass — by the source's count alone, 10 corrupt frames and 10 holes of
    // 1448 bytes. But the client's cumulative ACKs (after every second segment: ACK of
    // segment 2k+1 covers 2k too) acknowledge each of them, and no other frame carries
    // their bytes: each reached the client intact. All 10 analysed: the report is the
    // one with correct checksums, with the warning `acked-bad-checksum` 10.
    let flow = download();
    let mut sorted = flow.frames();
    sorted.sort_by_key(|f| f.ts_ns);
    let bad = every_second_data_frame(&sorted);
    assert_eq!(bad.len(), 10);
    let correct = report(&wired(&flow, |_, _| false));
    let r = report(&wired(&flow, |i, _| bad.contains(&i)));
    assert_eq!((warning(&r, "acked-bad-checksum"), warning(&r, "bad-tcp-checksum")), (Some(10), None));
    assert_eq!(r["connections"][0]["directions"][1]["payloadBytes"], 20 * 1448);
    assert_eq!(r["connections"][0]["captureLoss"], correct["connections"][0]["captureLoss"]);
    assert_eq!(without_warnings(r), without_warnings(correct));
}

#[test]
fn a_failing_frame_whose_bytes_an_intact_one_carries_again_stays_corrupt() {
    // As above, and the 5th data segment (seq 5001 + 4 × 1448, at 14 ms; failing) is
    // sent again intact 300 µs later, before the client's ACK at 20 ms covers both: the
    // ACK may be the intact copy's, so nothing shows the failing one delivered. Corrupt
    // (1), not analysed: the intact copy is the segment's only one, no retransmission.
    // The other 9 failing ones are acknowledged with their bytes in no other frame.
    let mut flow = download();
    let fifth = flow.segments().iter().filter(|s| s.src.port() == 8080 && s.payload_len > 0).nth(4).unwrap().clone();
    assert_eq!(fifth.seq, 5001 + 4 * 1448);
    flow.push(S2C, 14_300).seq(fifth.seq).payload(1448).flags(ACK | PSH);
    let mut before = download().frames();
    before.sort_by_key(|f| f.ts_ns);
    let bad_at: Vec<i64> = every_second_data_frame(&before).into_iter().map(|i| before[i].ts_ns).collect();
    assert!(bad_at.contains(&fifth.ts_ns));
    let r = report(&wired(&flow, |_, f| bad_at.contains(&f.ts_ns)));
    assert_eq!((warning(&r, "acked-bad-checksum"), warning(&r, "bad-tcp-checksum")), (Some(9), Some(1)));
    let server = &r["connections"][0]["directions"][1];
    assert_eq!((server["payloadBytes"].as_u64(), server["retransmissions"].as_u64()), (Some(20 * 1448), Some(0)));
}

#[test]
fn corpus_arkime_smtp_frames_the_peer_acknowledged_are_no_capture_gaps() {
    // arkime tests/pcap/smtp-subject-8859-b.pcap: 9 of 23 frames fail their TCP checksum
    // (tshark -o tcp.check_checksum:TRUE: frames 4,5,7,8,9,11,14,15,19), on both hosts,
    // each host's other frames passing. Each was acknowledged by the peer and never sent
    // again: frame 4 (server seq 1, 71 B) by frame 5 (ack 72), 14+15 (client 117–1661) by
    // 16 (ack 1661), 19 (server 401–486) by 21 (ack 487). Before: "9 TCP segments … never
    // delivered", the server's 485 B read as 77 B captured of 163 B ("52.8 % never
    // captured, in 1 hole"), limit capture-gaps. Now all analysed: 485 B and 1666 B,
    // no capture loss, no capture-gaps headline.
    let Some(bytes) = common::corpus("arkime__arkime__tests_pcap_smtp-subject-8859-b.pcap") else { return };
    let r = report(&bytes);
    assert_eq!((warning(&r, "acked-bad-checksum"), warning(&r, "bad-tcp-checksum"), warning(&r, "capture-loss")), (Some(9), None, None));
    let c = &r["connections"][0];
    assert_eq!((c["directions"][0]["payloadBytes"].as_u64(), c["directions"][1]["payloadBytes"].as_u64()), (Some(1666), Some(485)));
    assert_ne!(c["diagnosis"]["limit"], "capture-gaps");
    assert!(!c["diagnosis"]["text"].as_str().unwrap().contains("never captured"));
}

#[test]
fn a_failing_last_frame_no_acknowledgement_could_follow_is_not_known_and_analysed() {
    // The download, then a 21st server data segment (seq 5001 + 20 × 1448 = 33,961, at
    // 41 ms) failing with 0xbeef: the capture's last frame, the server's 31 other frames
    // passing. No frame of the client follows it, so no ACK of it could be captured:
    // whether it was delivered is not known (decode/acked.rs `Fate::Unanswered`) — not
    // "corrupted on the way: never delivered". Analysed, counted in
    // `unanswered-bad-checksum`: the server sent 21 × 1448 B.
    let mut flow = download();
    flow.data(S2C, 41_000, 1448);
    let r = report(&wired(&flow, |_, f| f.ts_ns == Flow::EPOCH_NS + 41_000_000));
    assert_eq!((warning(&r, "unanswered-bad-checksum"), warning(&r, "bad-tcp-checksum")), (Some(1), None));
    assert_eq!(r["connections"][0]["directions"][1]["payloadBytes"], 21 * 1448);
    // The client answers after it (a pure ACK at 45 ms) without acknowledging it (ack
    // 33,961, below its bytes): its peer went on without it, so it is the corrupt copy
    // it looks like, as before — not analysed, `bad-tcp-checksum` 1.
    flow.push(C2S, 45_000).ack(33_961);
    let r = report(&wired(&flow, |_, f| f.ts_ns == Flow::EPOCH_NS + 41_000_000));
    assert_eq!((warning(&r, "unanswered-bad-checksum"), warning(&r, "bad-tcp-checksum")), (None, Some(1)));
    assert_eq!(r["connections"][0]["directions"][1]["payloadBytes"], 20 * 1448);
}

#[test]
fn corpus_irc_a_failing_last_frame_is_not_called_never_delivered() {
    // nfstream tests/pcaps/irc.pcap (tshark -o tcp.check_checksum:TRUE): the server's
    // frames 27 (seq 6276, 70 B, 14.4966 s) and 29 (seq 6346, 556 B, 14.5670 s) fail
    // their checksum, its other frames pass. 27 is acknowledged by the client's 28
    // (ack 6346): delivered (`acked-bad-checksum` 1). 29 is the capture's last frame,
    // 30.5 ms after 28 on a ~30-ms path: no ACK of it could be captured. Before:
    // `bad-tcp-checksum` 1, "corrupted on the way: never delivered", its 556 B dropped
    // (server payload 6,345 B). Now not known, analysed: 6,901 B.
    let Some(bytes) = common::corpus("nfstream__nfstream__tests_pcaps_irc.pcap") else { return };
    let r = report(&bytes);
    let kinds = ["acked-bad-checksum", "unanswered-bad-checksum", "bad-tcp-checksum"].map(|k| warning(&r, k));
    assert_eq!(kinds, [Some(1), Some(1), None]);
    let c = &r["connections"][0];
    let server = c["directions"].as_array().unwrap().iter().find(|d| d["from"] == "38.229.70.20:8000").unwrap();
    assert_eq!(server["payloadBytes"], 6901);
}
