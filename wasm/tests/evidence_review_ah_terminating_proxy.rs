//! Issue 39, review AH class C-TERMINATING-PROXY-UNNAMED: a proxy that accepts every
//! connection itself answered for servers of several networks, and the page put its
//! relay and far leg on the origin server ("23.58.163.249:443 itself took 72 ms …: time
//! of its application"). The rule: terminating_proxy.rs, docs/ANALYSIS.md "Terminating
//! proxy".

use crate::common;

const GOODALI: &str = "Madiba-Research__QuicMitm__goodali.pcap";

#[test]
fn one_counter_behind_many_servers_is_a_proxy() {
    let Some(conns) = common::corpus_connections(GOODALI) else { return };
    // tshark -Y 'tcp.flags.syn==1 && tcp.flags.ack==1' -e ip.src -e ip.id -e ip.ttl:
    // 47.246.136.117 0xd7dc, 31.13.80.8 0xe0dc, 47.246.182.10 0x1edd, 23.58.163.249 0x5ddd,
    // 184.28.178.46 0x6ddd … 47.246.131.56 0x28de, every one TTL 62, window 14600, MSS
    // only: one little-endian counter (0xdcd7, 0xdce0, 0xdd1e, …) over 9 addresses in 4 /8s.
    let c6 = conns.iter().find(|c| c.id == 6).unwrap();
    let t = &c6.diagnosis.text;
    assert!(t.contains("Its SYN/ACK (frame 349) and those of 8 other addresses came from one box"), "{t}");
    assert!(t.contains("0xd7dc at frame 3 → 0x28de at frame 994"), "{t}");
    // The server's waits are the proxy's relay and far leg too, not "its application".
    assert!(t.contains("answers through the proxy that accepted this connection"), "{t}");
    assert!(!t.contains("itself took"), "{t}");
    let c0 = conns.iter().find(|c| c.id == 0).unwrap();
    assert!(c0.diagnosis.text.contains("Had 47.246.136.117:443 and the proxy in front of it always had data ready"), "{}", c0.diagnosis.text);
    // Every connection whose SYN/ACK is of the run says it: 14 SYN/ACKs of 14 connections
    // (tcp.stream 0–4 and 6–14; connection 5's, to port 80, is not in the capture).
    assert_eq!(conns.iter().filter(|c| c.diagnosis.text.contains("came from one box")).count(), 14);
}

#[test]
fn a_reflection_flood_is_no_proxy() {
    // SYN/ACKs of thousands of reflectors (Windows ones at TTL 121/122, window 8192, MSS
    // only) with their own IDs: no run of four consecutive ones follows one counter.
    let Some(conns) = common::corpus_connections("StopDDoS__packet-captures__amp.TCP.reflection.SYNACK.pcap") else { return };
    assert_eq!(conns.iter().filter(|c| c.diagnosis.text.contains("came from one box")).count(), 0);
}
