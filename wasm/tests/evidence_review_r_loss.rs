//! Review R (issue 39), loss classes on the public captures that showed them:
//! C-DSACK-DOUBLE-COUNT (packetlife gmail.pcapng.cap) and C-LOSS-SPAN-FROM-LAST-DATA
//! (suricata-verify filestore-5408). Each number checked with tshark (`-T fields -e
//! tcp.seq -e tcp.ack -e tcp.options.sack_le -e tcp.options.sack_re`).
use crate::common;

const GMAIL: &str = "epiecs__packetlife-backup__pcaps_gmail.pcapng.cap";

/// gmail connection 2 (208.117.231.17:443 → 192.168.1.101:56563, captured at the
/// receiver, no timestamps): 19 re-sends, 3 of them needless — 94 (5601, after ACK 90
/// had acknowledged 7001), 393 (18201, after ACK 381 = 19601), 491 (42001, after ACK
/// 479 = 47601), each D-SACKed once (95, 394, 495). The earlier re-sends of the same
/// bytes, 84 and 373, filled the hole: the next ACK (90, 381) jumped past them. One
/// D-SACK explains one duplicate (RFC 2883 §4): 3, not 5. The outage that ends with
/// frame 132 ended by a re-send the counters call a fast retransmission (rtoEvents 0):
/// the episode does not call it a retransmission timeout.
#[test]
fn gmail_one_dsack_per_needless_resend() {
    let Some(c) = common::corpus_connection(GMAIL, 2) else { return };
    let d = &c.directions[0];
    assert_eq!((d.retransmissions, d.spurious_retransmissions, d.rto_events), (19, 3, 0));
    assert!(c.diagnosis.text.contains("(19 of 63 data segments, 3 of them needless"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("Nothing got through for 1.6 s during 4.494 s–6.142 s: 1 retransmission."), "{}", c.diagnosis.text);
}
