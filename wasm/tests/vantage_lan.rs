//! Issue 39, task E (session 39): on a LAN of a 0.1–0.4 ms path a host's own turnaround
//! (tens of µs) is more than 10 % of the path, so a capture taken on a host read
//! "middle". The part is local too where it is at most 50 µs, at most a third of the
//! other part, and no router stands between that host and the capture point by its TTLs
//! (vantage.rs `Parts::host_turnaround`; docs/ANALYSIS.md `connection.vantage`).

use crate::common;
use tcpscope_core::analysis::Vantage;

#[test]
fn rdp_client_capture_on_a_lan_is_at_the_receiver() {
    // jovair1994/Intro_Traffic_Analysis rdp.pcap, captured on the client 192.168.43.185
    // (TTL 64) of a Windows RDP server 192.168.43.130 (TTL 128, no router either way):
    // the server's data is ACKed by the client in 19 µs (its own turnaround), the
    // client's segments answered by the server in 108 µs; handshake 348 µs + 36 µs.
    // Review AD #13: it read "middle".
    let Some(c) = common::corpus_connection("jovair1994__Intro_Traffic_Analysis__rdp.pcap", 0) else { return };
    assert_eq!(c.data_direction, 1);
    assert_eq!(c.path_rtt_method, "19 µs to the receiver and back + 108 µs to the sender and back");
    assert_eq!(c.vantage, Vantage::Receiver);
    // The server's SYN/ACK (MSS, NOP, wscale 8, SACK-permitted, TS at TTL 128): Windows.
    assert_eq!(c.handshake.syn_ack.as_ref().unwrap().stack, Some("windows"));
}

#[test]
fn a_capture_at_the_sender_on_a_lan_gives_it_no_lag() {
    // wireshark-samples dhcpfo.pcapng connection 0: the capture is on 192.168.7.70, the
    // data sender (every frame it sent carries an offloaded checksum, none of its peer's
    // do); 41 µs towards it, 356 µs towards the receiver. At 10 % it read "middle", its
    // sender 41 µs behind the capture, so the ACK at 5.771 ms that released new data 25 µs
    // later (frame 11 → 12, Nagle's wait) reached it only after that data, and the 13 ms
    // wait read "application idle". Now the sender's own ACK wait.
    let Some(c) = common::corpus_connection("realjimmy__sample-captures__wireshark-samples_files_dhcpfo-protocol_dhcpfo.pcapng", 0) else { return };
    assert_eq!(c.vantage, Vantage::Sender);
    assert_eq!(c.sender_lag_ms, 0.0);
    assert!(c.diagnosis.text.contains("Other stalls: 30 ms waiting on ACKs."), "{}", c.diagnosis.text);
}

#[test]
fn two_host_sized_parts_tell_no_side() {
    // realjimmy zeek-samples ftp fake-long-commands.pcap: 15 µs + 8 µs (handshake) — a
    // loopback or one bridge: both parts a host's turnaround, the capture point stays
    // "middle" (the rule needs the other part above 50 µs).
    let Some(c) = common::corpus_connection("realjimmy__sample-captures__zeek-samples_ftp_fake-long-commands.pcap", 0) else { return };
    assert_eq!(c.vantage, Vantage::Middle, "{}", c.path_rtt_method);
}
