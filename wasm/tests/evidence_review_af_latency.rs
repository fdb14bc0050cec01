//! Issue 39, review AF classes C-LATENCY-UNDER-LOAD-UNFOUNDED (verdict/diagnosis/
//! latency_under_load.rs: a base RTT only from the same path, a rise only where the
//! capture shows it under load) and C-DELAYED-ACK-BEYOND-500MS (stalls/delayed_ack.rs
//! `MAX_HOLD_S`: a delayed ACK leaves within 0.5 s, RFC 9293 §3.8.6.3). Corpus captures:
//! each test returns early without `TCPSCOPE_CORPUS`.

use crate::common;

use tcpscope_core::analysis::StallCause;

const SENTENCE: &str = "Latency under load";

fn says_latency(name: &str, id: u32) -> Option<bool> {
    let c = common::corpus_connection(name, id)?;
    Some(c.diagnosis.text.contains(SENTENCE) || c.diagnosis.episodes.iter().any(|e| e.kind == "latency"))
}

#[test]
fn a_base_from_another_path_or_a_flat_rtt_is_no_latency_under_load() {
    // skudlur conn 13 (443, server TTL 54): its own handshake 180 ms, median 205 ms;
    // the 1.7 ms was conn 11's, an in-path proxy answering port 80 at TTL 60.
    // wenjie01 conn 36: flat 23.6 ms from its own SYN/ACK; its siblings to the same
    // anycast address each keep their own flat RTT (none of them rose).
    for (name, id) in [("skudlur__ccn-lab__lab3.pcapng", 13), ("wenjie01__wireshark_labs__lab final 7-13.pcapng", 36)] {
        let Some(said) = says_latency(name, id) else { return };
        assert!(!said, "{name} conn {id}");
    }
    // The base is no longer the proxy's 1.7 ms (conn 11's TTL 60 is another path).
    let Some(c) = common::corpus_connection("skudlur__ccn-lab__lab3.pcapng", 13) else { return };
    assert!(c.base_rtt_ms.is_some_and(|b| b > 100.0), "{:?}", c.base_rtt_ms);
}

#[test]
fn single_small_messages_or_untimed_connections_show_no_load() {
    // Answer times of small messages (hiqnet, an SSH session at 2.6 kbit/s, SMB
    // exchanges of zerologon at the server) and a connection of capture gaps (quickplay).
    for (name, id) in [
        ("realjimmy__sample-captures__wireshark-samples_files_harman-pro-hiqnet_hiqnet_netsetter-soundcraft_session.pcapng", 1),
        ("vedanandusekar__NetworkTraffic_Analyzer-__ftp.pcap", 2),
        ("OISF__suricata-verify__tests_dcerpc_zerologon_input.pcap", 46),
        ("OISF__suricata-verify__tests_dcerpc_zerologon_input.pcap", 47),
        ("nfstream__nfstream__tests_pcaps_quickplay.pcap", 18),
    ] {
        let Some(said) = says_latency(name, id) else { return };
        assert!(!said, "{name} conn {id}");
    }
}

#[test]
fn a_bulk_send_whose_own_rtt_rose_keeps_it_against_the_same_paths_base() {
    // irc-dcc-send conn 1: 1.3 MB DCC send, own minimum 4.684 ms (its handshake) → path
    // median 17.987 ms over 134 path samples, 580 kB in flight. Its base is conn 2's
    // 3.833 ms (both hosts at TTL 64, 62 s later), not the IRC connection's 2.65 ms
    // (the IRC server answered at TTL 63: one hop more). 17.987 / 3.833 = 4.7 → "5×".
    let Some(c) = common::corpus_connection("realjimmy__sample-captures__zeek-samples_irc-dcc-send.trace", 1) else { return };
    assert_eq!(c.base_rtt_ms.map(|b| (b * 1000.0).round() / 1000.0), Some(3.833));
    assert!(c.diagnosis.text.contains("Latency under load: the RTT rose from 3.8 ms"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("to 18 ms (median, 5×)"), "{}", c.diagnosis.text);
}

#[test]
fn an_ack_later_than_half_a_second_is_no_delayed_ack() {
    // clash_data conn 4: frame 556 (133 B) → the server's pure ACK frame 593 1.004 s
    // later by the capture's clock → frame 600. No delayed ACK is held that long, so no
    // `delayed-ack` stall and no Nagle sentence.
    let Some(c) = common::corpus_connection("Mamaril-Jeremy__CPE400-Project__clash_data.pcapng", 4) else { return };
    assert!(!c.diagnosis.text.contains("Nagle"), "{}", c.diagnosis.text);
    for d in c.directions.iter() {
        assert!(!d.stalls.iter().any(|s| s.cause == StallCause::DelayedAck && s.duration > 0.5), "{:?}", d.stalls);
    }
}

#[test]
fn lone_small_messages_waiting_as_long_as_loaded_rounds_are_no_latency_under_load() {
    // Review AH C-LATENCY-UNDER-LOAD-UNFOUNDED: lesquive test.cap, a Linux LAN server
    // (192.168.0.22:443, capture on it) → a Windows client. tshark's ack_rtt by the acked
    // segment's bytes_in_flight on conn 3: ≤ 3 kB median 24.8 ms (n 24), > 25 kB 31.6 ms —
    // lone small messages wait as long as loaded rounds (the client's link waking). The
    // engine's own control on conn 3: 14 small-flight path round trips (≤ 4,380 B in
    // flight), median 22.1 ms, against 26 ms loaded: no rise, and not "from 1.2 ms" (another
    // connection's minimum). Conns 4, 5, 7, 8: the same (5 and 7 never had more in flight).
    for id in [3, 4, 5, 7, 8] {
        let Some(said) = says_latency("lesquive__smartpcap__test.cap", id) else { return };
        assert!(!said, "lesquive conn {id}");
    }
    // Conn 6 still says a rise ("from 7.3 ms … to 30 ms (4×)"): its 11 small-flight path
    // round trips by the engine's filter (delayed-ACK holds out) have a 7.3 ms median, but
    // tshark's ack_rtt at ≤ 4.4 kB in flight is 47 ms (n 16): not asserted, left open.
}
