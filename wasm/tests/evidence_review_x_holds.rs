//! Issue 39 review X, classes C-RECEIVER-HOLD-AS-NETWORK and C-CAPTURE-STALL-AS-NETWORK
//! (item 8, "causes cross-checked"): a receiving host that held its ACKs is named, not
//! the network (stalls/receiver_hold.rs), and a silence the capture made — packets of
//! both hosts, among them a re-send microseconds after its original, flushed at once — is
//! the capture's, named whatever its share (stalls/capture_stall.rs).

use crate::common;
use tcpscope_core::analysis::StallCause;

/// telzw (HoneyNet 1112 fc_0, capture at the telnet sender, path 119 µs): the receiver
/// advertised a zero window (frame 100, 1.2110 s) and a window shrinking with its right
/// edge still (163–166), then sent nothing from frame 167 (1.212466 s) to 173 (1.282572 s),
/// 70 ms, then ACKs of the 13 segments sent before the stall in 7 ACKs (frames 173–192,
/// 128,953 → 147,777 and past) within 404 µs (tshark: `-Y "frame.number>=160 && frame.number<=206"`).
#[test]
fn telzw_receiver_hold_is_the_receiving_host_not_the_network() {
    let Some(c) = common::corpus_connection("markofu__pcaps__HoneyNet_1112_fc_0.pcap", 0) else { return };
    let s = c.directions[0].stalls.iter().find(|s| s.frame_before == 172).expect("the 70-ms stall");
    assert_eq!(s.cause, StallCause::AckWait);
    assert!(s.ended_by.starts_with("the receiving host held its ACKs for 70 ms (its window had fallen to 0 B at frame 100"), "{}", s.ended_by);
    let t = &c.diagnosis.text;
    assert!(!t.contains("The RTT rose"), "{t}");
    assert!(!t.contains("the network, not the application"), "{t}");
    assert!(t.contains("70 ms the receiving host holding its ACKs"), "{t}");
}

/// melsec (ITI MELSEC melsoft, a 16-ms poll loop): request 22542 (90.147194 s), nothing
/// for 955 ms, then the server's answer 22544 (91.102721), the client's re-send 22545
/// (+14 µs, IP ID 0x20aa) and the server's re-send of 22544 as 22546 (+15 µs, IP ID
/// 0x75f7, no pure ACK between): the capture's flush (tshark `-Y "frame.number>=22540 &&
/// frame.number<=22549"`).
#[test]
fn melsec_flush_is_the_captures_stall() {
    let Some(c) = common::corpus_connection("ITI__ICS-Security-Tools__pcaps_MELSEC_melsoft_variant_clean.pcap", 0) else { return };
    for (d, after) in [(0, 22545), (1, 22544)] {
        let s = c.directions[d].stalls.iter().find(|s| s.frame_after == after).expect("the stall before the flush");
        assert_eq!(s.cause, StallCause::Unknown, "{}", s.ended_by);
        assert!(s.ended_by.starts_with("the capture's own stall: nothing was captured from 90.147 s for 956 ms, then frames 22544–22546 of both hosts were stamped within 15 µs, among them frame 22546, a re-send of frame 22544 only 15 µs after it"), "{}", s.ended_by);
    }
    let t = &c.diagnosis.text;
    assert_eq!(t.matches("The capture stalled: nothing was captured from 90.147 s for 956 ms").count(), 1, "{t}");
}
