//! Sentence leftovers of session 38 (issue 39, /work/notes/closing38.md "Deserve issues"),
//! each on the public captures that showed it (skipped without `TCPSCOPE_CORPUS`).

use crate::common;

/// The path headline's parts name no share that rounds to 0 % (path_words.rs
/// `path_text`). cessarlemur Project-Kdrive `download.pcapng` connection 16: shares
/// 62 % congestion window or path, 0.77 % receive window, 0.0 loss (no retransmission),
/// 36 % application; once read "… held the sender 1 % of it, loss 0 % and the application 36 %".
#[test]
fn path_headline_names_no_zero_share() {
    let Some(c) = common::corpus_connection("cessarlemur__Project-Kdrive__download.pcapng", 16) else { return };
    let text = &c.diagnosis.text;
    assert!(text.starts_with("The congestion window or the path took the largest share of the time (62 %); the receive window held the sender 1 % of it and the application 36 %;"), "{text}");
    assert!(!text.contains("loss 0 %"), "{text}");
}

/// An outage counts as unseen only the timer re-sends its stalls' ending flights did not
/// carry (diagnosis_episodes/timers.rs `untimed_words`). wireshark-samples
/// `mptcp_redundant_stream1.pcapng` connection 5 (captured at the receiver, 111 ms sender
/// lag): the IPv4 Identification skips 0x7228–0x7229 before frame 1953 (new data at
/// 10.358 s), and frame 1959, 30 ms later in the same flight, re-sends the hole at 87159
/// (tshark: retransmission) — counted a recovery retransmission; frame 1958, the
/// receiver's ACK before it, is at 10.378 s (10 ms).
#[test]
fn outage_counts_a_seen_resend_as_seen() {
    let Some(c) = common::corpus_connection("realjimmy__sample-captures__wireshark-samples_files_mptcp_redundant_stream1.pcapng", 5) else { return };
    let text = &c.diagnosis.text;
    assert!(!text.contains("did not see"), "{text}");
    assert!(
        text.contains("Nothing got through for 1.2 s during 9.197 s–10.358 s: 1 re-send, 10 ms after the receiver's last packet, counted as a recovery retransmission; no retransmission timeout counted."),
        "{text}"
    );
}

/// A stall whose ending flight carried no re-send the capture saw stays unseen: pymptcpanalyzer
/// `client_2.pcap` connection 15, the IPv4 Identification skips 0x8e5f–0x8e60 before
/// frame 2231 (new data at 27.266 s beyond the hole at 25705, never re-sent in the capture).
#[test]
fn outage_keeps_an_unseen_resend_unseen() {
    let Some(c) = common::corpus_connection("teto__pymptcpanalyzer__examples_client_2.pcap", 15) else { return };
    let text = &c.diagnosis.text;
    assert!(text.contains("No answer came back for 590 ms during 26.677 s–27.266 s: 1 timer re-send the capture did not see;"), "{text}");
}

/// Through a CONNECT tunnel the proxy's waits are the far server's (app_facts/proxy.rs):
/// the application saving's lead says so, beside the tunnel's paragraph. Kunalgarg
/// Wireshark-Lab `Part4_q4.pcapng` connection 4 (CONNECT frame 45, 200 frame 52; the
/// ClientHello, frame 54 at 4.1886 s, answered by the ServerHello, frame 56 at 4.2373 s),
/// and suricata-verify `bug-2769` connection 0 (CONNECT frame 4, 200 frame 5). The
/// numbers are the saving's, as before.
#[test]
fn tunnel_saving_names_the_far_servers_waits() {
    for (name, id, lead) in [
        (
            "Kunalgarg2100__Wireshark-Lab__Part4_q4.pcapng",
            4,
            "Had the far server behind 10.4.20.103:8080's tunnel always had data ready (the waits for its answers, relayed through the tunnel with the proxy's path to it and back, 1.2 s; the other 252 ms of the pauses was the wait for 10.1.40.31:48998's next message), the transfer would have taken about 350 ms instead of 1.6 s.",
        ),
        (
            "OISF__suricata-verify__tests_bug-2769_issue_no_icmp.pcap",
            0,
            "Had the far server behind 3.235.60.34:8080's tunnel always had data ready (the waits for its answers, relayed through the tunnel with the proxy's path to it and back, 1.3 s; the other 341 ms of the pauses was the wait for 3.251.38.200:59921's next message), the transfer would have taken about 879 ms instead of 2.1 s.",
        ),
    ] {
        let Some(c) = common::corpus_connection(name, id) else { return };
        let text = &c.diagnosis.text;
        assert!(text.contains(lead) && !text.contains("its own waits"), "{name} {id}: {text}");
    }
}

/// The answer-waits sentence is rewritten from the typed fact (report.rs `Said`), as it
/// was from its words: Kunalgarg `Part4_q4.pcapng` connection 7, the proxy's 300-ms
/// wait from the ClientHello (frame 972) to the ServerHello (frame 1002).
#[test]
fn tunnel_answer_waits_rewritten_from_the_fact() {
    let Some(c) = common::corpus_connection("Kunalgarg2100__Wireshark-Lab__Part4_q4.pcapng", 7) else { return };
    let text = &c.diagnosis.text;
    assert!(
        text.contains("10.4.20.103:8080 took 512 ms of the pauses to answer messages of 10.1.40.31:49002 it had received in full and acknowledged (the longest 300 ms: frame 972 at 5.201 s → frame 1002 at 5.501 s): answers relayed through the proxy's tunnel, so time of the far server and of the proxy's path to it and back, not of the proxy's own application."),
        "{text}"
    );
}
