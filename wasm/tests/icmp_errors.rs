//! ICMP errors that quote a connection's own packets (issue 39 class C-ICMP-UNREAD,
//! review R: suricata-verify filestore-5408's requests were dropped for their size,
//! and the capture holds the router's "fragmentation needed" for each; the report
//! never said so). decode/icmp.rs reads them, analysis/verdict/icmp_errors.rs puts
//! them on the connection and in its diagnosis.
use crate::common;
use tcpscope_core::analysis::ConnectionSummary;
use tcpscope_core::decode::icmp::IcmpKind;
use tcpscope_core::synth::*;

/// An ICMPv4 "fragmentation needed" (type 3 code 4, RFC 1191 §4: next-hop MTU in
/// bytes 6–7) from 10.0.0.254 to the client at `ts_ns`, quoting `quoted`'s IP header
/// and first 8 TCP bytes, as RFC 792 asks.
fn frag_needed(ts_ns: i64, mtu: u16, quoted: &Frame) -> Frame {
    let mut icmp = vec![3, 4, 0, 0, 0, 0, (mtu >> 8) as u8, mtu as u8];
    icmp.extend_from_slice(&quoted.net[..28]);
    let total = (20 + icmp.len()) as u16;
    let mut ip = vec![0x45, 0, (total >> 8) as u8, total as u8, 0, 0, 0, 0, 64, 1, 0, 0, 10, 0, 0, 254, 10, 0, 0, 1];
    ip.extend(icmp);
    Frame::new(ts_ns, 0x0800, ip)
}

/// The first connection of `frames`, written in time order.
fn analyze(mut frames: Vec<Frame>) -> ConnectionSummary {
    frames.sort_by_key(|f| f.ts_ns);
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = tcpscope_core::session::analyze_bytes(&bytes, tcpscope_core::analysis::AnalysisOptions::default(), 1 << 20);
    s.analysis().expect("analysed").connections[0].clone()
}

/// A client-side capture: handshake (20 ms), a 1460-byte request at 21 ms (frame 4,
/// an IP packet of 1500 bytes, seq 1), the router's "fragmentation needed, MTU 1400"
/// at 30 ms (frame 5), the client's re-send in two segments of 1360 and 100 bytes at
/// 30.1 ms (RFC 1191 §6.5: the sender lowers its segment size and sends again), the
/// server's ACK at 50.1 ms and a 10-segment answer. Quoted seq 1 = the request's first
/// byte, which the capture saw sent (frame 4, before the message) and sent again
/// (frame 6, after it): the message explains the re-send.
fn pmtu_flow() -> (Flow, Vec<Frame>) {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 20_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 21_000, 1460);
    let request = f.segments().last().unwrap().frame();
    f.push(C2S, 30_100).seq(1001).payload(1360);
    f.data(C2S, 30_110, 100);
    f.push(S2C, 50_100);
    for k in 0..10 {
        f.data(S2C, 52_000 + 100 * k, 1360);
    }
    f.push(C2S, 53_000);
    let mut frames = f.frames();
    frames.push(frag_needed(Flow::EPOCH_NS + 30_000_000, 1400, &request));
    (f, frames)
}

#[test]
fn frag_needed_names_the_mtu_and_the_dropped_request() {
    let (_, frames) = pmtu_flow();
    let c = analyze(frames);
    let icmp = c.icmp.as_deref().expect("icmp on the connection");
    assert_eq!(icmp.count, 1);
    let m = &icmp.messages[0];
    assert_eq!((m.frame, m.kind, m.mtu, m.quoted_len, m.quoted_seq, m.direction), (5, IcmpKind::FragNeeded, Some(1400), 1500, 1.0, 0));
    assert!((m.t - 0.030).abs() < 1e-9 && m.seen && m.resent, "{m:?}");
    assert!(
        c.diagnosis.text.contains(
            "The path reported an MTU of 1400 bytes (ICMP \"fragmentation needed\" from 10.0.0.254, frame 5) \
             for a packet of 1500 bytes from 10.0.0.1:40000 (RFC 1191): the path dropped it, and it was sent again after the message."
        ),
        "{}",
        c.diagnosis.text
    );
}

/// A message whose quoted sequence number the capture never saw sent (10,000 bytes
/// past anything the client sent: forged, or about bytes before the capture) is
/// listed and counted but not told (RFC 5927 §4.1: a TCP checks the quoted number
/// against its send window before believing it).
#[test]
fn a_quote_of_bytes_never_sent_is_listed_not_told() {
    let (_, mut frames) = pmtu_flow();
    let mut forged = frames.pop().unwrap();
    // The quoted TCP sequence number: ICMP at 20, quote's TCP header at 28 + 20.
    forged.net[20 + 8 + 20 + 4..20 + 8 + 20 + 8].copy_from_slice(&11_001u32.to_be_bytes());
    frames.push(forged);
    let c = analyze(frames);
    let icmp = c.icmp.as_deref().expect("icmp on the connection");
    assert_eq!((icmp.count, icmp.messages[0].seen, icmp.messages[0].quoted_seq), (1, false, 10_001.0));
    assert!(!c.diagnosis.text.contains("ICMP"), "{}", c.diagnosis.text);
}

/// Public capture (suricata-verify filestore-5408, captured at the client
/// 172.16.133.54): connection 0's two requests, each sent as 1460 + 145/165 B (frames
/// 5–6, 18–19), reached a hop as IP packets of 1645 and 1665 bytes; frames 9 (0.0816 s)
/// and 20 (1.2984 s) are ICMP "fragmentation needed, next-hop MTU 1500" quoting them
/// (`tshark -Y icmp -e icmp.mtu -e ip.len -e tcp.seq`: seq 2699427331 and 2699428936,
/// relative 1 and 1606); both were re-sent (frames 10 and 29).
#[test]
fn filestore_5408_names_the_frag_needed() {
    let Some(c) = common::corpus_connection("OISF__suricata-verify__tests_filestore-5408_input.pcap", 0) else { return };
    let icmp = c.icmp.as_deref().expect("icmp");
    let got: Vec<_> = icmp.messages.iter().map(|m| (m.frame, m.mtu, m.quoted_len, m.quoted_seq, m.resent)).collect();
    assert_eq!(got, vec![(9, Some(1500), 1645, 1.0, true), (20, Some(1500), 1665, 1606.0, true)]);
    assert!(
        c.diagnosis.text.contains(
            "The path reported an MTU of 1500 bytes (2 ICMP \"fragmentation needed\" messages from 74.121.139.112, frames 9 and 20) \
             for packets of 1645 and 1665 bytes from 172.16.133.54:64540 (RFC 1191): the path dropped them, and both were sent again after the messages."
        ),
        "{}",
        c.diagnosis.text
    );
}

/// The same exchange with the router's message a "communication administratively
/// prohibited" (type 3 code 13, RFC 1812 §5.2.7.1) instead: no MTU, and "undelivered",
/// since such a message may come from a router or the receiver's own firewall.
#[test]
fn admin_prohibited_says_undelivered() {
    let (_, mut frames) = pmtu_flow();
    let mut icmp = frames.pop().unwrap();
    icmp.net[20 + 1] = 13;
    frames.push(icmp);
    let c = analyze(frames);
    assert_eq!(c.icmp.as_deref().map(|i| (i.messages[0].kind, i.messages[0].mtu)), Some((IcmpKind::AdminProhibited, None)));
    assert!(
        c.diagnosis.text.contains("An ICMP \"communication administratively prohibited\" from 10.0.0.254 (frame 5) reported a packet from 10.0.0.1:40000 undelivered, and it was sent again after the message."),
        "{}",
        c.diagnosis.text
    );
}
