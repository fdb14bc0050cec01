//! Issue 39, reviews R and T class C-SPLIT-PROXY-RTT: a proxy or NAT that terminates
//! TCP beside the capture (VirtualBox's NAT) answers the SYN only after its own
//! connection out, then acknowledges the client's data itself. The handshake's time is
//! the far path; the ACKs' is the near hop's. The page called a pause of the proxy's
//! relaying "a burst took 11 ms instead of 1.4 ms … the path slowed down" (cisco
//! mercury surfshark.pcap connection 40) and never said the round trip it quoted was to
//! a proxy (bro.org.pcap: 0.107 ms against a 75.7-ms handshake). The rule:
//! split_proxy.rs, docs/ANALYSIS.md "Split proxy".

use crate::common;

use tcpscope_core::synth::*;

/// A client-side capture behind a proxy: SYN at 0, SYN/ACK 50 ms later (the proxy's own
/// connection out), then six 100-byte requests every 200 ms from 51 ms (frames 4, 8, …),
/// each ACKed by the responder `ack_us` later, and answered with 300 B `answer_us`
/// after the request, the client ACKing the answer 100 µs after it.
fn behind(requests: i64, ack_us: i64, answer_us: i64) -> Flow {
    let mut f = Flow::new("10.0.2.15:40000", "192.0.2.80:80");
    f.handshake(0, 50_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for k in 0..requests {
        let t = 51_000 + k * 200_000;
        f.data(C2S, t, 100);
        f.push(S2C, t + ack_us);
        f.data(S2C, t + answer_us, 300);
        f.push(C2S, t + answer_us + 100);
    }
    f
}

#[test]
fn a_handshake_far_slower_than_every_ack_is_a_proxy_near_the_capture() {
    // Handshake 50 ms (frame 1 → frame 2); six ACK round trips of exactly 200 µs (the
    // responder's pure ACKs, frames 5, 9, …): median 200 µs ≤ 50 ms / 10, three quarters
    // ≤ 50 ms / 4, 49.8 ms ≥ 5 ms apart; the first answer (frame 6) 52 ms after the
    // request (frame 4): ≥ half the handshake, the far round trip again.
    let c = common::analyze_flow(&behind(6, 200, 52_000));
    let t = &c.diagnosis.text;
    assert!(
        t.contains(
            "The handshake took 50 ms (frame 1 → frame 2), but 192.0.2.80:80's ACKs of 10.0.2.15:40000's data came in \
             200 µs (median of 6) and its first answer 52 ms after the request (frame 4 → frame 6): a proxy or NAT near the \
             capture answered for 192.0.2.80:80 (it answers the SYN only once its own connection out is made). The round \
             trip measured here is to it; the 50 ms is the path beyond it, which this capture cannot see, and a pause in \
             what it relays can be that far side's, not this path's nor an application's."
        ),
        "{t}"
    );
}

#[test]
fn a_slow_syn_ack_alone_or_few_acks_is_no_proxy() {
    // (1) The ACKs cross the same 50 ms as the handshake (no proxy: the server ACKs).
    // (2) A server slow only to answer the SYN: the ACKs in 200 µs but every answer
    //     2.2 ms after its request — the far round trip does not come back.
    // (3) Four ACK round trips only (< 5): too few to say "consistently".
    for (flow, why) in [
        (behind(6, 50_200, 52_000), "ACKs over the whole path"),
        (behind(6, 200, 2_200), "answers at once"),
        (behind(4, 200, 52_000), "four samples"),
    ] {
        let t = common::analyze_flow(&flow).diagnosis.text;
        assert!(!t.contains("a proxy or NAT near the capture"), "{why}: {t}");
    }
}

#[test]
fn virtualbox_nat_guests_in_public_captures() {
    // tshark:
    // - cisco mercury surfshark.pcap connection 40 (VirtualBox NAT guest 10.0.2.16): SYN
    //   1279 at 22.131357 → SYN/ACK 1280 at 22.146887 = 15.5 ms; the NAT's ACKs of the
    //   guest's data (tcp.analysis.ack_rtt from 172.64.146.182) median 0.344 ms, 81 % under
    //   1.55 ms; ClientHello 1282 (22.147974) → first data 1286 (22.166886) = 18.9 ms.
    //   Frames 1820–1826 then 1827 9.7 ms later: the proxy with nothing to relay, no RTT
    //   of this hop above 1.5 ms — no "the path slowed down".
    // - bbaugnies bro.org.pcap connection 1 (10.0.2.15): SYN 31 (0.184903) → SYN/ACK 50
    //   (0.260585) = 75.7 ms; the 7 ACKs of the GETs 107–447 µs (median 219 µs); GET 56
    //   (0.261844) → 101 (0.339814) = 78 ms.
    if let Some(c) = common::corpus_connection("cisco__mercury__unit_tests_pcaps_surfshark.pcap", 40) {
        let t = &c.diagnosis.text;
        assert!(t.contains("The handshake took 16 ms (frame 1279 → frame 1280), but 172.64.146.182:443's ACKs of 10.0.2.16:44532's data came in 344 µs"), "{t}");
        assert!(t.contains("its first answer 19 ms after the request (frame 1282 → frame 1286)"), "{t}");
        assert!(!t.contains("the path slowed down"), "{t}");
    }
    if let Some(c) = common::corpus_connection("bbaugnies__DPI-MPTCP__bro-2.3.1_testing_btest_Traces_http_bro.org.pcap", 1) {
        let t = &c.diagnosis.text;
        assert!(t.contains("The handshake took 76 ms (frame 31 → frame 50), but 192.150.187.43:80's ACKs of 10.0.2.15:55080's data came in 219 µs (median of 7) and its first answer 78 ms after the request (frame 56 → frame 101)"), "{t}");
    }
}
