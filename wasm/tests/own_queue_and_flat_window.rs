//! Issue 39, "Evidence before every claim", review AJ: the queue halves of
//! C-RWND-BELOW-ONE-MSS-HEADROOM-MISSED and C-DELAY-TOLD-AS-LOSS (the known
//! C-LATENCY-UNDER-LOAD-UNFOUNDED), and C-FLAT-SENDER-WINDOW-LEFT-OPEN (docs/ANALYSIS.md
//! "diagnosis.text": *A queue the flow built*, *The sender's own window*).
//! - "Packets queued at the bottleneck" needs round trips that grew with the flow's own
//!   flight, outages left out (own_queue.rs).
//! - A flat, loss-free flight per round trip that crossed the path far faster than the
//!   average is the sender's own window, not a congestion window nor the path
//!   (flat_window.rs).

use crate::common;

use tcpscope_core::analysis::ConnectionSummary;
use tcpscope_core::synth::*;

const VISHNU: &str = "Vishnugrandhi20__computer--networks-0755__tcp.pcapng";
const ARP: &str = "saikowshik07__Computer-networks__arp.pcapng";
const SMTP: &str = "saikowshik07__Computer-networks__smtp.pcapng";
const MYCAP: &str = "CharlesJu1__pcap-samples__capture-libpcap_mycap.pcap";

/// A download seen at the client (the server 171 ms away: the handshake), MSS 1,348:
/// flights of `counts` segments, one per round trip, 100 µs apart, the client ACKing
/// every second segment at once (as evidence_review_x_subthreshold.rs `download`).
fn download(counts: &[u32]) -> ConnectionSummary {
    let mut f = Flow::new("192.168.1.1:46016", "64.170.98.42:443");
    f.handshake(0, 171_000, Opts::new().mss(1348), Opts::new().mss(1348));
    let mut t = 172_000;
    let mut sent = 5001u32;
    for &n in counts {
        for k in 0..n {
            f.data(S2C, t + 100 * i64::from(k), 1348);
            sent += 1348;
            if k % 2 == 1 || k + 1 == n {
                f.push(C2S, t + 100 * i64::from(k) + 50).ack(sent);
            }
        }
        t += 171_000;
    }
    common::analyze_flow(&f)
}

#[test]
fn a_flat_loss_free_flight_is_the_senders_own_window() {
    // 10, 11, 10, 11, 12 segments per 171-ms round trip, then a last flight of 8: within
    // 25 % of the median 11, 2 segments gained over 4 steps (avoidance would gain ≥ 4),
    // each flight within 1.1 ms (11 gaps of 100 µs): about 118 Mbit/s within a round
    // against 0.7 Mbit/s per round trip, far above 4×.
    let c = download(&[10, 11, 10, 11, 12, 8]);
    let text = &c.diagnosis.text;
    assert!(text.contains("The sender's own window was the limit, not a congestion window nor the path's capacity"), "{text}");
    assert!(text.contains("it sent 10–12 segments per 171 ms round trip (10, 11, 10, 11, 12;"), "{text}");
    assert!(!text.contains("The congestion window or the path's capacity was the limit"), "{text}");
    // Growing by two a round: the congestion window's (cwnd_rounds.rs), not this rule.
    let c = download(&[10, 12, 14, 16, 18, 8]);
    assert!(!c.diagnosis.text.contains("The sender's own window"), "{}", c.diagnosis.text);
}

#[test]
fn mycap_flat_rounds_name_the_senders_window() {
    // mycap conn 6: after the request f190 the server sends 10 segments back to back
    // (f210–f225, 14,280 B in 5.9 ms at the client: 17 Mbit/s), then one round per
    // ~177 ms of 10–11 segments (10, 10, 11, 11, 11 by round trips from f210), nothing
    // re-sent, the client's window 128 KiB.
    let Some(c) = common::corpus_connection(MYCAP, 6) else { return };
    let text = &c.diagnosis.text;
    assert!(text.contains("The sender's own window was the limit"), "{text}");
    assert!(text.contains("(10, 10, 11, 11, 11;"), "{text}");
    assert!(!text.contains("The congestion window or the path's capacity was the limit"), "{text}");
}

#[test]
fn few_segments_in_flight_or_an_outage_are_no_queue() {
    // Vishnugrandhi conns 0 and 1: a Windows client's 2.5–9 KB window, 1–5 segments in
    // flight, RTT 84 → 134 ms: nothing of the flow's own to queue.
    for i in [0, 1] {
        if let Some(c) = common::corpus_connection(VISHNU, i) {
            assert!(!c.diagnosis.text.contains("queued at the bottleneck"), "conn {i}: {}", c.diagnosis.text);
        }
    }
    // arp conn 0: both sides silent 3.005 → 4.503 s, then the ACKs of all 65 kB within
    // 10 ms; smtp conn 1: silent 0.939 → 3.693 s. Outages, not queues.
    for (name, i) in [(ARP, 0), (SMTP, 1)] {
        if let Some(c) = common::corpus_connection(name, i) {
            assert!(!c.diagnosis.text.contains("queued at the bottleneck"), "{name} {i}: {}", c.diagnosis.text);
        }
    }
}
