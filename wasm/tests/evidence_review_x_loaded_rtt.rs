//! Issue 39, "Evidence before every claim", review X class C-LOADED-RTT-AS-STALL: parallel
//! browser connections sharing one ~6 Mbit/s bottleneck lifted the RTT from a 16–20 ms
//! base to ~100 ms; the stall threshold (the larger of 10 ms and 4 × the minimum RTT,
//! DESIGN.md) sat below the RTT the path then had, so every ACK-clocked round read as a
//! stall, and "Had each wait … lasted no more than a round trip, … about 1.4 s instead of
//! 2.5 s" assumed the queue away. A gap that is one round trip of the path as loaded at
//! that moment (RFC 6298's SRTT + 4·RTTVAR over the round trips measured before it, the
//! next flight leaving within one round trip of the ACK that released it) is the
//! congestion window's pace at that RTT (docs/ANALYSIS.md "Loaded round trips";
//! verdict/diagnosis/loaded_round.rs).

use crate::common;

use tcpscope_core::analysis::{ConnectionSummary, StallCause};
use tcpscope_core::synth::*;

const PPEX: &str = "seladb__PcapPlusPlus__Tests_Pcap++Test_PcapExamples_example.pcap";

/// An upload captured at its sender, MSS 1,460, base RTT 20 ms (the handshake). Each round
/// the sender sends a flight of 10 full segments 100 µs apart; the receiver ACKs every
/// second segment, each ACK arriving `rtt_us[k]` after the pair's second segment left; the
/// next flight leaves `after_ack_us` after the flight's last ACK. The gap from a flight's
/// last segment to the next flight's first is `rtt_us[k] + after_ack_us`.
fn upload(rtt_us: &[i64], after_ack_us: i64) -> ConnectionSummary {
    let mut f = Flow::new("10.0.0.6:44150", "192.0.2.9:80");
    f.handshake(0, 20_000, Opts::new().mss(1460), Opts::new().mss(1460));
    let mut t = 25_000;
    let mut acked = 1001u32;
    for &rtt in rtt_us {
        for k in 0..10 {
            f.data(C2S, t + 100 * k, 1460);
        }
        for pair in 0..5 {
            acked += 2 * 1460;
            f.push(S2C, t + 100 * (2 * pair + 1) + rtt).ack(acked);
        }
        t += 900 + rtt + after_ack_us;
    }
    common::analyze_flow(&f)
}

fn stalls(c: &ConnectionSummary) -> Vec<(f64, StallCause)> {
    c.directions[0].stalls.iter().map(|s| ((s.duration * 1e7).round() / 1e4, s.cause)).collect()
}

#[test]
fn at_the_sender_acks_in_one_batch_show_no_loaded_path() {
    // Three rounds at the 20 ms base (gaps of 20.1 ms, under the 80 ms threshold), then
    // eight rounds whose ACKs come 100 ms late: 7 `ack-wait` stalls of 100.1 ms
    // (threshold 4 × 20 = 80 ms). Captured at the sender, each round's 5 ACKs arrive in
    // the wait's last 0.8 ms: a queue at a bottleneck would release them spread at its
    // pace through the wait (the ACK clock, drain_saving.rs `ticking`), a receiver
    // holding its ACKs in one batch — and here the round trip samples that would show
    // "the queue" are those same batches. So no gap is shown to be a loaded round
    // (loaded_round.rs `clock_shown`; evidence_shapes_review's
    // acks_that_all_come_at_the_end_of_a_wait_are_no_ack_clock is the same shape on a
    // 1 ms path), nor priced at the inflated SRTT: 7 × (100.1 − 20) = 560.7 ms.
    // A loaded path is shown at the receiver's capture (the corpus test below).
    let rtts = [20_000, 20_000, 20_000, 100_000, 100_000, 100_000, 100_000, 100_000, 100_000, 100_000, 100_000];
    let c = upload(&rtts, 100);
    let st = stalls(&c);
    assert_eq!(st.len(), 7, "{st:?}");
    assert!(st.iter().all(|&(ms, k)| ms == 100.1 && k == StallCause::AckWait), "{st:?}");
    let text = &c.diagnosis.text;
    assert_eq!(c.diagnosis.limit, "stalls", "{text}");
    assert!(!text.contains("as loaded at that moment"), "{text}");
    let saved = c.diagnosis.savings.iter().find(|s| s.limit == "stalls").map_or(0.0, |s| s.seconds);
    assert!((saved - 0.5607).abs() < 1e-3, "{:?}", c.diagnosis.savings);
}

#[test]
fn a_late_ack_on_an_unloaded_path_stays_a_stall() {
    // The same upload at the 20 ms base throughout, except that round 6's ACKs come 300 ms
    // after its pairs left: the round trips measured before that gap were all 20 ms
    // (SRTT + 4·RTTVAR ≈ 20 ms), so a 300.1 ms gap is no round of the path as it was —
    // the ACKs that end it are the delay itself. A wait on ACKs, priced 300.1 − 20 ms.
    let mut rtts = [20_000i64; 10];
    rtts[5] = 300_000;
    let c = upload(&rtts, 100);
    let st = stalls(&c);
    assert_eq!(st, vec![(300.1, StallCause::AckWait)], "{st:?}");
    let text = &c.diagnosis.text;
    assert!(!text.contains("as loaded at that moment"), "{text}");
    let saved = c.diagnosis.savings.iter().find(|s| s.limit == "stalls").map_or(0.0, |s| s.seconds);
    assert!((saved - 0.2801).abs() < 1e-3, "{:?}", c.diagnosis.savings);
}

#[test]
fn the_browsers_parallel_flows_read_as_the_loaded_path_on_the_public_capture() {
    // PcapPlusPlus example.pcap, connection 3: 10.0.0.6:44150 ← 212.199.202.9:80, captured
    // at the receiver, 13 parallel HTTP connections to one server. tshark: flights at
    // 3.909, 4.009, 4.130, 4.282, 4.391, 4.509 s …, each starting ~100 ms after the
    // receiver's ACKs of the one before (ACKs up to frame 307 at 3.915758 → frame 440 at
    // 4.008523, whose TSecr 195294 echoes the ACK of frame 291). Before: "The transfer
    // stalled 13 times … about 1.4 s instead of 2.5 s".
    let Some(c) = common::corpus_connection(PPEX, 3) else { return };
    let text = &c.diagnosis.text;
    assert_eq!(c.diagnosis.limit, "path", "{text}");
    assert!(text.starts_with("The path limited this flow: 12 gaps in its data (1.3 s"), "{text}");
    assert!(text.contains("the RTT had risen from 20 ms (the path's base) to about"), "{text}");
    assert!(!text.contains("stalled 13 times") && !text.contains("1.4 s instead of"), "{text}");
    // The 13 stalls stay listed (the definition's threshold is 4 × 19.7 ms).
    assert_eq!(c.directions[1].stalls.len(), 13);
    // What is left: the first gap (92.8 ms at 3.916 s, before any round trip showed the
    // queue) less the 19.7 ms path RTT = 73 ms.
    let saved = c.diagnosis.savings.iter().find(|s| s.limit == "stalls").map_or(0.0, |s| s.seconds);
    assert!((saved - 0.0731).abs() < 1e-3, "{:?}", c.diagnosis.savings);
}
