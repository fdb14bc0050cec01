//! Issue 39 item 8 ("causes cross-checked"), review AF class
//! C-BACK-TO-BACK-DUPLICATE-AS-RECOVERY (loss/back_to_back.rs; docs/ANALYSIS.md
//! `direction.backToBackDuplicates`): a segment sent twice within microseconds, before any
//! feedback or timer could ask for it, is no fast retransmission and no tail loss probe.
//! Corpus captures: each test returns early without `TCPSCOPE_CORPUS`.

use crate::common;

/// [retransmissions, timeouts, probes, fast, slow start, back to back, spurious] of
/// direction `d`.
fn kinds(name: &str, id: u32, d: usize) -> Option<[u64; 7]> {
    let c = common::corpus_connection(name, id)?;
    let x = &c.directions[d];
    Some([x.retransmissions, x.rto_events, x.tail_loss_probes, x.fast_retransmissions, x.slow_start_retransmissions, x.back_to_back_duplicates, x.spurious_retransmissions])
}

#[test]
fn response_tails_sent_twice_back_to_back_are_no_recovery() {
    // moudie lab8 (2) conn 13, Akamai → client (capture at the client, 3.3 ms path):
    // f1508/1509, f2044/2045, f2199/2200 are a response's last segment sent twice 2 µs
    // apart (IP IDs 0x6724/0x6725 …: two datagrams), no ACK between, each copy D-SACKed
    // (f1510, f2046, f2201): 3 back-to-back duplicates. f831 re-sends f827's tail 6.5 ms
    // (≈ 2 RTT) after it, after the client's ACK of it (f830) was captured: not sent
    // twice back to back, and its kind is another rule's (still fast: the sender lag puts
    // f830 within a round trip of it). All 4 D-SACKed. Before: fast 2, probes 2.
    let Some(k) = kinds("moudie__wireshark-labs-IT-520__lab8 (2).pcapng", 13, 1) else { return };
    assert_eq!(k, [4, 0, 0, 1, 0, 3, 4]);
}

#[test]
fn other_captures_with_the_shape() {
    // zeek smtp.pcap conn 3: Google's 85-B greeting f90 seen again 47 µs (f91) and 153 µs
    // (f92) later, new IP IDs, nothing from the client between: once a timeout and a probe,
    // neither of which fires within 1 ms. wenjie01 `lab final 7-13` conn 35: the tail
    // 46389+676 (f839) and its copy 1 µs later (f841), D-SACKed (f844): once a probe.
    // Meghanay `tcp.pcap` conn 1: f2751/f2752, 24 B sent twice 103 µs apart (IDs
    // 0x0523/0x0524), D-SACKed (f2753): one of its two probes was this copy.
    // nfstream `alexa-app.pcapng` conn 31: f645 (1+85) and f646 (86+53) re-sent as one
    // 138-B segment 228 µs later (f647), no ACK between: once a retransmission timeout.
    for (name, id, d, want) in [
        // zeek smtp.pcap conn 3 is not one after all (session 41, the sender's clock): the
        // three copies carry TSvals 539416720, …7055, …7390 — 335 ticks of Google's 1 kHz
        // clock apart each, each ACKed on its own (f93–95 echo all three): a probe and a
        // timeout delivered together, as once counted (docs/ANALYSIS.md
        // `direction.backToBackDuplicates`).
        ("zeek__zeek__testing_btest_Traces_smtp.pcap", 3, 0, [2, 1, 1, 0, 0, 0, 2]),
        ("wenjie01__wireshark_labs__lab final 7-13.pcapng", 35, 1, [1, 0, 0, 0, 0, 1, 1]),
        ("Meghanay2112__Wireshark-Traffic-Analysis__tcp.pcap", 1, 1, [2, 0, 1, 0, 0, 1, 2]),
        ("nfstream__nfstream__tests_pcaps_alexa-app.pcapng", 31, 1, [1, 0, 0, 0, 0, 1, 0]),
    ] {
        let Some(k) = kinds(name, id, d) else { return };
        assert_eq!(k, want, "{name} conn {id}");
    }
}

#[test]
fn fast_retransmissions_stay_fast() {
    // Re-sends with the receiver's feedback before them, or more than 1 ms after their
    // original: the rule leaves them as they were (the counts are main's before it).
    // zeek tcp/retransmit-fast009 (Zeek's fast-retransmit test): 3 fast; rajatgolechha
    // wireshark3 conn 18: 8; moudie `lab 6` conn 14: 3, all D-SACKed; luguifang
    // ipv6-http conn 0: 117 fast and 1 timeout.
    for (name, id, d, want) in [
        ("realjimmy__sample-captures__zeek-samples_tcp_retransmit-fast009.trace", 0, 1, [3, 0, 0, 3, 0, 0, 0]),
        ("rajatgolechha3319__COL334-1__wireshark3.pcapng", 18, 1, [8, 0, 0, 8, 0, 0, 0]),
        ("moudie__wireshark-labs-IT-520__lab 6.pcapng", 14, 1, [3, 0, 0, 3, 0, 0, 3]),
        ("luguifang__protocol-pcap__ipv6-http.pcap", 0, 1, [118, 1, 0, 117, 0, 0, 0]),
    ] {
        let Some(k) = kinds(name, id, d) else { return };
        assert_eq!(k, want, "{name} conn {id}");
    }
}
