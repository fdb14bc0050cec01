//! Issue 39, "Evidence before every claim", review L class C-PATHSLOW: a burst slowed
//! only by the sender's own pauses (everything sent acknowledged, or less than one
//! segment outstanding, before it sent again) read "the path slowed down".
//! Checked on the public captures that showed them (`TCPSCOPE_CORPUS`; absent, they pass).

use crate::common;



#[test]
fn a_proxy_sending_late_is_not_a_path_that_slowed() {
    // Connection 4 (client :48998 ← proxy :8080, captured at the client). tshark: frame
    // 127 (4.452044 s) ends at 36409, ACKed by frame 128 at +56 µs; the next data, frame
    // 129, arrives at 4.476942 s (+24.8 ms) with TSval 2121964890 against 2121964865 on
    // frame 127: the proxy's own clock moved the same 25 ms, it sent late. Frame 73 (38 B,
    // 4.301198 s) to 74 (4.310762 s): 38 B outstanding, no ACK between, TSval +9 ms.
    let Some(conns) = common::corpus_connections("Kunalgarg2100__Wireshark-Lab__Part4_q4.pcapng") else { return };
    let c = conns.iter().find(|c| c.id == 4).expect("connection 4");
    assert!(!c.diagnosis.text.contains("the path slowed down"), "{}", c.diagnosis.text);
}

#[test]
fn flights_a_server_acknowledged_whole_and_late_are_no_path_that_slowed() {
    // protos c06-ldapv3-app-r1, captured at the LDAP client (192.168.0.2), every
    // connection to 192.168.0.1:389. Connection 184 (tcp.stream 184): the SYN/ACK comes
    // 0.86 ms after the SYN; the first flight (frames 3118–3119, 2 × 1460 B) is ACKed
    // whole by frame 3147 95 ms later, the next flights of 3 and 4 segments (frames
    // 3150–3152, 3159–3162) by single ACKs 11.6 ms and 39 ms after their last segment
    // (frames 3158, 3188), none inside a flight. Connection 519 the same (frames 7145,
    // 7152: 93 ms, 21 ms), and 1384. Each read "a burst took 67 ms (125 ms, 145 ms)
    // instead of 9.3 ms: no retransmissions: the path slowed down": the receiver's
    // held ACKs, not evidence of the path (verdict/diagnosis_episodes/path_evidence.rs).
    let Some(conns) = common::corpus_connections("realjimmy__sample-captures__wireshark-samples_files_protos-test-suite-traffic_c06-ldapv3-app-r1.pcap") else { return };
    for id in [184, 519, 1384] {
        let c = conns.iter().find(|c| c.id == id).expect("connection");
        assert!(!c.diagnosis.text.contains("the path slowed down"), "{id}: {}", c.diagnosis.text);
    }
}
