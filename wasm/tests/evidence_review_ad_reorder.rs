//! Issue 39, review AD class C-REORDER-AS-FAST-RTX (track/conn/loss.rs
//! `reclassify_out_of_order`): at a capture on the receiver's host, a segment that fills
//! a hole sooner than ¾ of the path's minimum round trip after the receiver's first ACK
//! reporting that hole left the sender before the sender could have heard of the hole:
//! an original overtaken on the way, not a fast retransmission.

use crate::common;

use tcpscope_core::synth::*;

/// A capture at the client 10.0.0.1:50000 (the receiver) of a 20 ms path (handshake
/// 20 ms; the server answers the request 20.9 ms after it), SACK on both sides: a 10-B
/// request, then the server's 30 segments of 1,000 B, one every 1 ms from 41 ms. The
/// 11th (index 10) is missing when the 12th arrives at 52 ms; the client answers each
/// segment 100 µs later, with a SACK of what it holds beyond the hole (RFC 2018, RFC
/// 5681 §4.2), and the 11th's bytes come `late_us` after the 12th. The IPv4 ID is the
/// same on every datagram (no numbering to read): only the clock can tell.
fn late_fill(late_us: i64) -> Flow {
    let mut f = Flow::new("10.0.0.1:50000", "10.0.0.2:80");
    f.handshake(0, 20_000, Opts::new().mss(1000).sack_perm(), Opts::new().mss(1000).sack_perm());
    f.data(C2S, 20_100, 10);
    let first = 5001u32;
    let fill_t = 41_000 + 11_000 + late_us;
    let mut events: Vec<(i64, u32)> = (0..30u32).filter(|&k| k != 10).map(|k| (41_000 + i64::from(k) * 1_000, k)).collect();
    events.push((fill_t, 10));
    events.sort();
    let mut got = [false; 30];
    let mut acked = first;
    for (t, k) in events {
        f.data(S2C, t, 1000).seq(first + 1000 * k);
        got[k as usize] = true;
        while (acked - first) / 1000 < 30 && got[((acked - first) / 1000) as usize] {
            acked += 1000;
        }
        let ack = f.push(C2S, t + 100).ack(acked);
        if !got[10] && k > 10 {
            ack.opts(Opts::new().sack(&[(first + 11_000, first + 1000 * (k + 1))]));
        }
    }
    f
}

fn counts(c: &tcpscope_core::analysis::ConnectionSummary) -> (u64, u64, u64) {
    let d = c.directions.iter().max_by_key(|d| d.out_of_order + d.retransmissions).expect("two directions");
    (d.retransmissions, d.fast_retransmissions, d.out_of_order)
}

#[test]
fn a_fill_sooner_than_a_round_trip_after_the_receivers_report_is_reordering() {
    // 12 ms after the hole opened, 11.9 ms after the client's first SACK of it (52.1
    // ms): a re-send prompted by that SACK passes this capture no sooner than one
    // round trip (20 ms) later, 72.1 ms. 11.9 ms < ¾ × 20 ms = 15 ms: the original,
    // overtaken. (The old rule, half a round trip after the hole opened, called it a
    // fast retransmission: 12 ms ≥ 10 ms.) Out of order 1, retransmissions 0.
    let c = common::analyze_flow(&late_fill(12_000));
    assert_eq!(counts(&c), (0, 0, 1), "{:?}", c.diagnosis.text);
}

#[test]
fn a_fill_a_round_trip_after_the_receivers_report_is_a_fast_retransmission() {
    // 21 ms after the hole opened, 20.9 ms after the first SACK (≥ 15 ms, and ≥ the
    // 20 ms round trip): the answer to the client's duplicate ACKs — one fast
    // retransmission (RFC 5681 §3.2), no segment out of order.
    let c = common::analyze_flow(&late_fill(21_000));
    assert_eq!(counts(&c), (1, 1, 0), "{:?}", c.diagnosis.text);
}

#[test]
fn kdrive_ipv6_reordered_segment_is_no_fast_retransmission() {
    // cessarlemur Project-Kdrive download.pcapng conn 16 (IPv6: no IP ID; capture at
    // the client, path RTT 3.3 ms): frame 324 (seq 158807) came 1.59 ms after the
    // client's SACK of frame 323 (ACK 158807, SACK 160247–161495) — a re-send could
    // not pass before 5.6254 s; tshark: out-of-order. The server's direction counts
    // no retransmission and 37 segments out of order (36 before, + frame 324), and
    // "loss" gives no saving.
    let Some(c) = common::corpus_connection("cessarlemur__Project-Kdrive__download.pcapng", 16) else { return };
    assert_eq!(counts(&c), (0, 0, 37));
    assert!(c.diagnosis.savings.iter().all(|s| s.limit != "loss"), "{:?}", c.diagnosis.savings);
}

#[test]
fn receiver_side_re_sends_proven_by_timing_or_ip_ids_stay() {
    // kabuto-mk7 TCP.pcapng conn 10 (Windows client, TLS from Bing, RTT 25.2 ms): 38
    // duplicate ACKs with SACK, then the re-send 30.6 ms after the hole — a real fast
    // retransmission (tshark says out-of-order). rajatgolechha3319 wireshark3.pcapng
    // conn 3: 35 segments lost before the capture re-sent as fresh IPv4 IDs
    // 0x5533–0x5555 (datagram_ids.rs): 42 fast retransmissions stay.
    if let Some(c) = common::corpus_connection("kabuto-mk7__PDN-CW-21-WireShark__TCP.pcapng", 10) {
        assert_eq!(counts(&c), (1, 1, 0));
    }
    if let Some(c) = common::corpus_connection("rajatgolechha3319__COL334-1__wireshark3.pcapng", 3) {
        assert_eq!(counts(&c), (42, 42, 0));
    }
}
