//! Issue 39, review AF class C-PHASE-MIX: a head of small messages before a bulk phase
//! was judged with the transfer. wenjie01/wireshark_labs `lab final 7-13.pcapng`
//! connection 65: 4.6 s of messages both ways (frames 1606–1697, 2.5 KiB in all), then
//! from frame 1700 (19.018 s) a 738 kB upload to the capture's end (99 % of the bytes),
//! read "The applications limited this flow: 58 % … waiting for the peer's next
//! message": the head's pauses, not the transfer's.
//!
//! The rule (analysis/verdict/diagnosis_shares/transfer_head.rs, docs/ANALYSIS.md
//! "The transfer's head"): the shares are of the bulk phase — the first burst of at
//! least 10 full segments — where at least two message bursts (under 2 full segments,
//! the peer's too) came before it with the peer's data between, no stall but
//! `application-idle`, at least 90 % of the bytes after it, a head of at least 2 stall
//! thresholds and a quarter of the time, and a bulk phase of at least one threshold.

use crate::common;

const WENJIE: &str = "wenjie01__wireshark_labs__lab final 7-13.pcapng";

#[test]
fn the_head_of_messages_is_cut_and_said() {
    let Some(c) = common::corpus_connection(WENJIE, 65) else { return };
    let text = &c.diagnosis.text;
    // Frame 1700 at 19.017 9 s is the upload's first segment (1,460 B, tshark
    // `tcp.stream==65`), after the peer's 167-B message (frame 1697 at 18.992 s); the
    // head runs from the first payload (frame 1606 at 14.4 s) — 4.6 s; 99 % of the
    // 741 kB of new bytes came from frame 1700 on.
    assert!(
        text.contains("The transfer began at 19.018 s (frame 1700) and carried 99 % of the sender's bytes; the 4.6 s before it were the two applications' messages"),
        "{text}"
    );
    // The head's 2.9 s and 0.98 s waits for the peer are no longer the headline's.
    assert!(!text.contains("waiting for 178.196.67.128:46271's next message"), "{text}");
    // The bulk phase queued on the path: tshark `tcp.analysis.ack_rtt` 149 ms at frame
    // 1718, 346 ms at its peak, 50–128 KiB in flight; its 16,397-B piece writes (11 × 1,460
    // + 337 B, PSH) each left at an ACK. Under that standing queue the write ends are no
    // "application set the pace" (sender_paced.rs `queued`). The rate said is the
    // connection's active mean, 1.5 Mbit/s (throughput.activeMeanBps, the head's active bins
    // in it); 741 kB from 19.018 s to 22.156 s is 1.9 Mbit/s — the bulk phase's own rate
    // is open (review AI W2: bytes over the cut's span counted idle pauses as active).
    assert!(text.starts_with("Neither the receive window (0 % of the time), loss (0 %) nor the application (19 %) limited this flow; the flow averaged 1.5 Mbit/s while active"), "{text}");
    assert!(text.contains("The median RTT grew to 243 ms (minimum 149 ms): packets queued at the bottleneck."), "{text}");
    assert!(!text.contains("nothing queued") && !text.contains("set the pace"), "{text}");
    assert_eq!(c.diagnosis.transfer_start.map(|s| (s.frame, s.own_messages, s.peer_messages)), Some((1700, 3, 4)));
}

/// A head in which the sender sat on the peer's messages is its own application's time
/// (transfer_head.rs `OWN_ANSWER_SHARE`): suricata-verify tls-cert-issuer #3's server
/// answered frame 53 (3.601 s) at frame 55 (6.980 s), 3.4 s of a 3.9-s head; smb.pcap #0's
/// client sent its keep-alives 4.4 s after the server's answers (frames 22 → 24) and its
/// Create 2.5 s after (25 → 27). Not cut; their texts keep the sender's own waits.
#[test]
fn a_head_of_the_senders_own_waits_is_not_cut() {
    for (name, id) in [("OISF__suricata-verify__tests_tls_tls-cert-issuer_tls.pcap", 3), ("star12234__smb_reassemble__smb.pcap", 0)] {
        let Some(c) = common::corpus_connection(name, id) else { return };
        assert!(c.diagnosis.transfer_start.is_none(), "{name} {id}: {}", c.diagnosis.text);
        assert!(!c.diagnosis.text.contains("The transfer began at"), "{name} {id}: {}", c.diagnosis.text);
    }
}

/// Request/response all along, a handshake before one answer, an idle tail, turns of a
/// PLC: no head of messages before a bulk phase, nothing cut.
#[test]
fn request_response_connections_are_not_cut() {
    for (name, id) in [
        ("lvhoaa01__MMT__lab03.pcapng", 0),
        ("wenjie01__wireshark_labs__lab final 7-13.pcapng", 33),
        ("moudie__wireshark-labs-IT-520__lab8 (2).pcapng", 13),
        ("ivangcruz__wireshark_labs__FinalMAC.TLS.pcapng", 9),
        ("Meghanay2112__Wireshark-Traffic-Analysis__tcp.pcap", 62),
        ("Meghanay2112__Wireshark-Traffic-Analysis__tcp.pcap", 59),
        ("dbagal__internet-packet-analysis__pcap_tcp_1082.pcap", 1),
        ("ITI__ICS-Security-Tools__pcaps_s7_s7comm_varservice_libnodavedemo_bench.pcap", 0),
        ("nfstream__nfstream__tests_pcaps_443-firefox.pcap", 0),
        ("nfstream__nfstream__tests_pcaps_Oscar.pcap", 0),
        ("seladb__PcapPlusPlus__Tests_Pcap++Test_PcapExamples_example.pcap", 6),
    ] {
        let Some(cs) = common::corpus_connections(name) else { return };
        for c in cs.iter().filter(|c| c.id == id) {
            assert!(!c.diagnosis.text.contains("The transfer began at"), "{name} {id}: {}", c.diagnosis.text);
        }
    }
}
