//! Issue 39, "Evidence before every claim", reviews R and S class C-SENDER-DELAY-DENIED:
//! over a server's own time inside an exchange — it had the whole request, acknowledged
//! it, and sent nothing — the page said "an exchange of messages paced by its source, …
//! so no readier application would shorten it" (or "the exchange's own pace, which no
//! readier application would shorten"). The rule (answer_waits.rs): that time is the
//! answering end's application's, said with its number, its frames and what removing
//! it would save.

use crate::common;

use tcpscope_core::synth::*;

/// A client-side capture of a request/response exchange on a 20 ms path (handshake
/// 0 / 20 ms, frames 1–3): the client's 100-byte request at 21 ms (frame 4), answered
/// with 300 B after 1 ms of the server's time (frame 5 at 42 ms: 20 ms of round trip
/// + 1 ms); its next 100 B at 43 ms (frame 6), which the server acknowledges at once
/// (frame 7 at 63 ms, a round trip later: it had the whole request) and answers at
/// `answer_us` (frame 8), then the client's ACK a round trip later (frame 9).
fn exchange(answer_us: i64) -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:22");
    f.handshake(0, 20_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 21_000, 100);
    f.data(S2C, 42_000, 300);
    f.data(C2S, 43_000, 100);
    f.push(S2C, 63_000);
    f.data(S2C, answer_us, 300);
    f.push(C2S, answer_us + 20_000);
    f
}

#[test]
fn the_answering_ends_own_wait_is_its_applications_time() {
    // The server's own time on the second request: 0.563 − 0.043 (frame 6 passing the
    // capture) − 0.020 (the round trip to the server and back, its SYN → SYN/ACK and
    // its ACK of frame 6 alike) = 0.500 s. The data direction (the server, 600 B) was
    // active 0.042 → 0.563 s = 521 ms, so without that wait: 21 ms. Two 300-byte bursts
    // (median 300 B, under two full segments), each pause holding the client's request:
    // an exchange of messages — but not one paced by its source alone.
    let c = common::analyze_flow(&exchange(563_000));
    let t = &c.diagnosis.text;
    assert!(t.contains("Each burst between the pauses was a message (median 300 B, under two full segments): an exchange of messages, but not one paced by its source alone."), "{t}");
    assert!(t.contains(
        "10.0.0.2:22 itself took 500 ms of the pauses to answer messages of 10.0.0.1:40000 it had received in full and acknowledged \
         (the longest 500 ms: frame 6 at 0.043 s → frame 8 at 0.563 s, less the 20 ms round trip between the capture point and 10.0.0.2:22): \
         time of its application (or of a person at it), which a readier one would take off of the 521 ms the transfer took."
    ), "{t}");
    assert!(!t.contains("no readier application would shorten"), "{t}");
    // The saving counts it once, as the server's: its own waits (500 ms of the 521 ms),
    // the client's 21 ms (frame 5 → frame 6 at the server) left out.
    let s = c.diagnosis.savings.iter().find(|s| s.limit == "application").expect("an application saving");
    assert!((s.seconds - 0.5).abs() < 1e-6, "{:?}", c.diagnosis.savings);
    // A 2-s wait: the 20 ms round trip does not change "2 s", and is not said.
    let t = common::analyze_flow(&exchange(2_063_000)).diagnosis.text;
    assert!(t.contains("(the longest 2 s: frame 6 at 0.043 s → frame 8 at 2.063 s): time of its application"), "{t}");

    // The same answer 50 ms after the request (30 ms of the server's, under 4 round
    // trips, 80 ms): the wait is the exchange's, nothing said of the server.
    let c = common::analyze_flow(&exchange(93_000));
    assert!(!c.diagnosis.text.contains("itself took"), "{}", c.diagnosis.text);
}

#[test]
fn a_wait_the_evidence_does_not_give_the_answering_end_is_not_called_its_own() {
    // (1) The server never acknowledged the second request before or with its answer
    // (frame 7 gone, frame 8's ACK still at the first request's end): it may not have
    // had it; (2) the client closed (FIN at 1 s) before the answer: the server's data
    // answers the close, not the message; (3) the data sender opened the connection:
    // its time after the other end's message is its next request, a person's or a
    // client's, no answer owed.
    // Client ISN 1000: the first request is bytes 1001–1100, the second 1101–1200.
    let mut unacked = Flow::new("10.0.0.1:40000", "10.0.0.2:22");
    unacked.handshake(0, 20_000, Opts::new().mss(1460), Opts::new().mss(1460));
    unacked.data(C2S, 21_000, 100);
    unacked.data(S2C, 42_000, 300);
    unacked.data(C2S, 43_000, 100);
    unacked.data(S2C, 2_063_000, 300).ack(1101);
    unacked.push(C2S, 2_083_000);
    let c = common::analyze_flow(&unacked);
    assert!(!c.diagnosis.text.contains("itself took"), "{}", c.diagnosis.text);

    let mut closed = exchange(2_063_000);
    closed.push(C2S, 1_000_000).flags(tcpscope_core::decode::tcp_flags::FIN | tcpscope_core::decode::tcp_flags::ACK);
    let c = common::analyze_flow(&closed);
    assert!(!c.diagnosis.text.contains("itself took"), "{}", c.diagnosis.text);

    // The client sends the 300-byte messages, 2 s after the server's 100-byte one.
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:22");
    f.handshake(0, 20_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(S2C, 21_000, 100);
    f.data(C2S, 42_000, 300);
    f.data(S2C, 43_000, 100);
    f.push(C2S, 63_000);
    f.data(C2S, 2_063_000, 300);
    f.push(S2C, 2_083_000);
    let c = common::analyze_flow(&f);
    assert_eq!(c.data_direction, 0);
    assert!(!c.diagnosis.text.contains("itself took"), "{}", c.diagnosis.text);
}

#[test]
fn servers_slow_to_answer_in_public_captures_are_said() {
    // tshark, each:
    // - stratosphere ssh-bruteforce connection 5 (capture at the LAN, round trip 103 µs):
    //   the client's 84-byte password try, frame 106 at 0.217330 s, ACKed by the server's
    //   frame 113 (0.257678, ack 1745 = all of it), its 52-byte failure frame 117 at
    //   3.663508 s: 3.446 s of sshd's own.
    // - nDPI rdp_over_tls connection 0 (capture at the server, 91.238.181.21 34 ms away):
    //   the client's 638-byte CredSSP record frame 12 at 0.180260, ACKed by frame 13
    //   (0.220912, ack 1091), the server's TLS alert frame 14 at 1.181963: 1.0017 s.
    // - cisco joy firefox58 connection 11 (client-side, 10 ms): the client's last record
    //   frame 414 at 10.472612 (its request 411–412 at 10.4624), ACKed by frame 418
    //   (10.482559, ack 1061), the answer frame 422 at 10.587175: 114.6 ms at the capture,
    //   less its 10.33 ms SYN → SYN/ACK (frames 393 → 395), the round trip to the server = 104 ms.
    // - ferozbaig96 ssl.pcap connection 0 (client-side, 0.48 ms): the client's SETTINGS
    //   ack frame 15 at 0.0144, the answer frame 17 at 0.1165: 102 ms.
    for (name, id, said) in [
        (
            "stratosphereips__StratosphereLinuxIPS__dataset_test19-malicious-ssh_malicious-ssh-bruteforce.pcap",
            5,
            "(the longest 3.4 s: frame 106 at 0.217 s → frame 117 at 3.664 s): time of its application (or of a person at it), which a readier one would take off of the 3.5 s the transfer took.",
        ),
        (
            "ntop__nDPI__tests_cfgs_default_pcap_rdp_over_tls.pcap",
            0,
            "89.31.79.12:3389 itself took 1 s of the pauses to answer messages of 91.238.181.21:35888 it had received in full and acknowledged (the longest 1 s: frame 12 at 0.180 s → frame 14 at 1.182 s): time of its application (or of a person at it), which a readier one would take off of the 1.1 s the transfer took.",
        ),
        (
            "cisco__joy__test_pcaps_firefox58.pcap",
            11,
            "216.58.218.228:443 itself took 104 ms of the pauses to answer messages of 10.225.201.111:33338 it had received in full and acknowledged (the longest 104 ms: frame 414 at 10.473 s → frame 422 at 10.587 s, less the 10 ms round trip between the capture point and 216.58.218.228:443)",
        ),
        ("ferozbaig96__pcaps__ssl.pcap", 0, "(the longest 102 ms: frame 15 at 0.014 s → frame 17 at 0.116 s"),
    ] {
        let Some(c) = common::corpus_connection(name, id) else { return };
        let t = &c.diagnosis.text;
        assert!(t.contains(said), "{name}: {t}");
        assert!(!t.contains("no readier application would shorten"), "{name}: {t}");
    }
    // A proxy that terminates TCP beside the client (suricata-verify tls-cert-noissuer:
    // SYN/ACK frame 2 190 ms after the SYN, the client's data ACKed within 0.5 ms, each
    // answer ~190 ms after its message): the far round trip, not the server's time.
    if let Some(c) = common::corpus_connection("OISF__suricata-verify__tests_tls_tls-cert-noissuer_tls.pcap", 0) {
        assert!(!c.diagnosis.text.contains("itself took"), "{}", c.diagnosis.text);
    }
}
