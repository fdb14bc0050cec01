//! Issue 39, review T class C-IDLE-DILUTES-BULK: a keep-alive connection whose idle
//! time between requests makes the application headline, and whose one bulk answer —
//! most of the bytes — was paced by the network. Rule (diagnosis/bulk_limit_words.rs):
//! where one bulk burst carried at least 80 % of the bytes and the data direction's
//! stalls of the network's causes inside its span took at least 25 % of it, its time,
//! rate, stalls and re-sends are said as the network's, and the headline says the
//! application limited the connection, not that transfer.

use crate::common;

use tcpscope_core::synth::*;

const ASIS: &str = "ctfs__write-ups-2015__asis-quals-ctf-2015_web_strange-authen_strangeauthen.asis-ctf.ir_misc_sample_traffic.pcap";

/// At the data sender (so the sender's view is the capture's): a 20 ms path (stall
/// threshold 80 ms). Small exchanges at 0.1, 10, 20, 40, 50 and 60 s (the sender's 500-B
/// message, the peer's 100-B answer 20 ms later, ACKed 20 ms after it). At 30 s the
/// sender's 146,000-B upload: ten flights of ten 1,460-B segments 100 µs apart, each
/// flight's ACK (of its first five segments; the last flight's, of all) 200 ms after its
/// last segment (a queue), the next flight 50 µs after that ACK: from 30.000 s to
/// 30.000 + 9 × 0.20095 + 0.0009 = 31.80945 s.
fn keep_alive_with_one_slow_upload() -> Flow {
    let mut f = Flow::new("192.168.110.116:57259", "217.218.48.85:80");
    f.handshake(0, 20_000, Opts::new().mss(1460).sack_perm(), Opts::new().mss(1460).sack_perm());
    let small = |f: &mut Flow, t: i64| {
        f.data(C2S, t, 500);
        f.data(S2C, t + 20_000, 100);
        f.push(C2S, t + 40_000);
    };
    for s in [0, 10, 20] {
        small(&mut f, s * 1_000_000 + 100_000);
    }
    let mut t = 30_000_000;
    for k in 0..10 {
        for j in 0..10 {
            f.data(C2S, t + 100 * j, 1460);
        }
        let upto = f.segments()[f.segments().len() - 5].seq;
        let ack = f.push(S2C, t + 900 + 200_000);
        if k < 9 {
            ack.ack(upto);
        }
        t += 200_950;
    }
    for s in [40, 50, 60] {
        small(&mut f, s * 1_000_000 + 100_000);
    }
    f
}

#[test]
fn the_one_slow_answer_of_an_idle_connection_is_judged() {
    let c = common::analyze_flow(&keep_alive_with_one_slow_upload());
    let t = &c.diagnosis.text;
    // 146,000 of 149,000 B (98 %) in the one burst; 9 waits of 200.05 ms between its
    // flights, each with five segments outstanding (1.8 s, 99.5 % of the 1.809 s span);
    // 146,000 × 8 / 1.80945 s = 645.5 kbit/s. The idle between the exchanges, 58 s, is
    // the connection's 97 %.
    assert!(t.starts_with("The sending application limited this connection, but not its one bulk transfer, which the network paced (below): 97 %"), "{t}");
    assert!(t.contains("That burst is the transfer that mattered, and the application did not pace it: it took 1.8 s at 646 kbit/s, and for 1.8 s of that time the sender had data and waited — 1.8 s waiting on ACKs (9 stalls): the network, not the application, set its pace"), "{t}");
    assert!(!t.contains("which no readier application would shorten"), "{t}");
}

#[test]
fn the_public_keep_alive_answer_is_judged_as_the_networks() {
    // asis connection 38 (192.168.110.116:57259 ← 217.218.48.85:80). tshark: the answer
    // runs from frame 953 (20.515930 s, seq 1) to 2111 (26.261829 s, seq 213899 + 385):
    // 214,283 B in 5.746 s, 298 kbit/s; re-sent (seq below the highest sent) 1162, 1334,
    // 1343, 1346, 1388, 1439, 2084 (tshark flags 4 as retransmissions, 3 as out-of-order
    // hole fills at this receiver-side capture); the report's own count is 6. Before: "…
    // the exchange's own pace, which no readier application would shorten."
    let Some(c) = common::corpus_connection(ASIS, 38) else { return };
    let t = &c.diagnosis.text;
    assert!(t.starts_with("The applications limited this connection, but not its one bulk transfer, which the network paced (below): 95 %"), "{t}");
    assert!(t.contains("it took 5.7 s at 298 kbit/s, and for 2.7 s of that time the sender had data and waited — 2 s waiting on ACKs (9 stalls), 635 ms for retransmission timers (3 stalls), and it re-sent 6 segments"), "{t}");
    // Review AB rule 2e: 2 of those waits ended in a flight re-sending a SACKed hole long after the
    // last ACK (stalls/hole_resend.rs), timers, not ACKs.
    assert!(!t.contains("which no readier application would shorten"), "{t}");
}
