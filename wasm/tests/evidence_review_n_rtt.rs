//! Issue 39, review N's round-trip classes: what a wait is called and what round trip it
//! is held against. Each is synthesized with a known answer (why in the comments) and,
//! under `TCPSCOPE_CORPUS`, checked on the public capture that showed it.

use crate::common;

use common::analyze_flow;
use tcpscope_core::decode::tcp_flags::{ACK, SYN};
use tcpscope_core::synth::*;

/// C-RTT-ARTEFACT: a download captured at the client (its packets leave with TTL 128,
/// the server's arrive with 111: the capture is on the client's host), as in
/// suricata-verify `tcp-rst-unacked-stream-12`. The SYN at 0 is answered at 3.375408 s
/// (a re-sent SYN the capture missed: 3 s later, answered 0.375 s after it, so no
/// handshake half times the path: vantage.rs `handshake_half`). The 757-byte request at
/// 3.375953 s is acknowledged at 6.728602 s with a D-SACK of all of it (RFC 2883 §4:
/// it arrived twice, a re-send the capture missed). Then 20 flights of two 1288-byte
/// segments: the client ACKs the first 200 µs after it arrives, the second arrives
/// 0.1–2.0 ms after that ACK (already in flight: it left before the ACK could reach the
/// server), the client ACKs it 200 µs later, and the next flight comes 360 ms after that
/// ACK — an ACK-clocked sender whose far part of the round trip is 360 ms.
fn lossy_receiver_side_download() -> Flow {
    let mut f = Flow::new("10.12.14.101:49254", "110.37.219.134:990");
    let (c, s) = (Opts::new().mss(1460).sack_perm(), Opts::new().mss(1288).sack_perm());
    f.push(C2S, 0).flags(SYN).ack(0).opts(c);
    f.push(S2C, 3_375_408).flags(SYN | ACK).opts(s);
    f.push(C2S, 3_375_658);
    f.data(C2S, 3_375_953, 757);
    // ISN 1000: the request is 1001–1758.
    f.push(S2C, 6_728_602).opts(Opts::new().sack(&[(1001, 1758)]));
    let mut t = 7_000_000i64;
    for k in 0..20i64 {
        let in_flight = 100 * (1 + (k * 7 % 20));
        f.data(S2C, t, 1288);
        f.push(C2S, t + 200);
        f.data(S2C, t + 200 + in_flight, 1288);
        f.push(C2S, t + 400 + in_flight);
        t += 400 + in_flight + 360_000;
    }
    for seg in f.segments_mut() {
        seg.ttl = if seg.src.port() == 49254 { 128 } else { 111 };
    }
    f
}

#[test]
fn a_request_dsacked_takes_no_sample_and_the_far_part_comes_from_ack_to_data() {
    // Before: the request's ACK timed it at 3.35 s (tshark's ack_rtt says 3.352649 s),
    // taken as the part towards the server: path RTT 3.35 s, stall threshold 13.4 s.
    // Karn (RFC 6298 §3) takes no sample from bytes sent twice, and the D-SACK shows they
    // were. The far part is then read from the data: 39 ACK → new-data pairs, 20 of them
    // in flight (0.1–2.0 ms) and 19 released (360 ms); all 39 do not repeat their lower
    // quartile (1.0 ms), so the shortest are dropped until the rest do: from 1.5 ms, 25
    // pairs whose lower quartile (index 6) is 360 ms, 19 within 1.5× of it. Threshold
    // 4 × 360 ms = 1.44 s: no 360 ms round trip is a stall.
    let c = analyze_flow(&lossy_receiver_side_download());
    assert_eq!(c.vantage, tcpscope_core::analysis::Vantage::Receiver);
    assert_eq!(c.path_rtt_ms, None, "the request's 3.35 s is no round trip: {}", c.path_rtt_method);
    assert_eq!(c.directions[0].rtt.samples, 0);
    assert!((c.stall_threshold_ms - 1440.0).abs() < 1e-6, "{} {}", c.stall_threshold_ms, c.path_rtt_method);
    assert!((c.sender_lag_ms - 360.0).abs() < 1e-6, "{}", c.sender_lag_ms);
    assert!(
        c.path_rtt_method.contains("near 360 ms (the lower quartile of 25 ACK → new-data pairs, 19 of them within 1.5× of it; 14 shorter pairs were data already in flight)"),
        "{}",
        c.path_rtt_method
    );
    assert!(c.directions[1].stalls.is_empty(), "{:?}", c.directions[1].stalls);
    assert!(!c.diagnosis.text.contains("3.4 s") && !c.diagnosis.text.contains("stalled"), "{}", c.diagnosis.text);
}

#[test]
fn suricata_rst_unacked_12_reads_its_round_trip_from_the_servers_turnarounds() {
    // Frame 5 (6.728602 s) D-SACKs 1–758, the request of frame 4 (3.375953 s): tshark's
    // ack_rtt 3.352649 s. Every ACK → next data of the server is 0.34–0.38 s (10 → 12,
    // 19 → 20, 27 → 28, 249 → 250 …). Before: path RTT 3,352.854 ms, threshold 13.4 s,
    // "stalled 2 times for 45 s", the 4.0 s (35 → 36) and 7.7 s (248 → 249) gaps hidden.
    let Some(c) = common::corpus_connection("OISF__suricata-verify__tests_tcp-rst-unacked-stream-12_TLPW1-tcp-110.37.219.134-10.12.14.101-tcp-990-49254.pcap", 0) else { return };
    assert_eq!(c.path_rtt_ms, None, "{}", c.path_rtt_method);
    assert!(c.stall_threshold_ms > 1300.0 && c.stall_threshold_ms < 1500.0, "{} {}", c.stall_threshold_ms, c.path_rtt_method);
    let gaps: Vec<(u32, u32)> = c.directions[1].stalls.iter().map(|s| (s.frame_before, s.frame_after)).collect();
    assert!(gaps.contains(&(34, 36)) && gaps.contains(&(247, 250)), "{gaps:?}");
    assert!(!c.diagnosis.text.contains("3.4 s"), "{}", c.diagnosis.text);
}

/// C-TURN-RTT: request/response turns captured at the client (as ITI's s7comm
/// `libnodavedemo_bench.pcap`): the SYN/ACK 630 µs after the SYN, the client's ACK 44 µs
/// after that (path RTT 674 µs: 630 µs to the server and back + 44 µs to the client and
/// back). Then 60 turns: the client's 22-byte request, the server's 100-byte answer
/// `far + answer` µs later, the client's next request 70 µs after each answer.
fn turns(far: i64, answer: i64) -> Flow {
    let mut f = Flow::new("192.168.1.10:4272", "192.168.1.40:102");
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new().mss(1460));
    f.push(S2C, far).flags(SYN | ACK).opts(Opts::new().mss(1460));
    f.push(C2S, far + 44);
    let mut t = far + 100;
    for _ in 0..60 {
        f.data(C2S, t, 22);
        f.data(S2C, t + far + answer, 100);
        t += far + answer + 70;
    }
    f
}

#[test]
fn a_turn_waiting_on_the_peers_answer_is_not_called_a_round_trip() {
    // Each turn at the capture: request → answer 3,930 µs (630 µs of it the way to the
    // server and back, the path's part there), answer → next request 70 µs (44 µs the
    // client's own turnaround, measured by the handshake's ACK). The server's own time is
    // 3,930 − 630 = 3,300 µs, the client's 70 − 44 = 26 µs; with the 674 µs round trip
    // a turn is 4,000 µs, 17 % of it the network (674 / 4,000). Before: "each wait at
    // least a round trip (a path RTT of 674 µs) … fewer turns … or a shorter round trip
    // would make it faster".
    let c = analyze_flow(&turns(630, 3_300));
    assert_eq!(c.diagnosis.limit, "turns", "{}", c.diagnosis.text);
    assert!((c.path_rtt_ms.unwrap() - 0.674).abs() < 1e-9, "{:?}", c.path_rtt_ms);
    let t = &c.diagnosis.text;
    assert!(
        t.contains("a typical turn took 4 ms (medians): 192.168.1.40:102 answered each message after 3.3 ms, 192.168.1.10:4272 sent its next 26 µs after each answer, and the network's round trip (the path RTT) was 674 µs, 17 % of the turn"),
        "{t}"
    );
    assert!(t.contains("a quicker answer from 192.168.1.40:102 or fewer turns (pipelining, batching requests) would make it faster; a shorter round trip would save at most 674 µs a turn"), "{t}");
    assert!(!t.contains("shorter round trip would make it faster") && !t.contains("each wait at least a round trip"), "{t}");
}

#[test]
fn a_turn_that_is_mostly_the_round_trip_keeps_the_round_trip_words() {
    // A 40 ms path (39,956 µs to the server and back + 44 µs) and a 1 ms answer: the
    // round trip is 40 ms of a 41 ms turn, and a shorter one would make it faster.
    let c = analyze_flow(&turns(39_956, 1_000));
    assert_eq!(c.diagnosis.limit, "turns", "{}", c.diagnosis.text);
    let t = &c.diagnosis.text;
    assert!(t.contains("each wait at least a round trip (a path RTT of 40 ms)") && t.contains("or a shorter round trip would make it faster"), "{t}");
}

#[test]
fn iti_s7comm_bench_waits_on_the_plcs_cycle() {
    // Connection 0: request → response at the client 3.933 ms (median of 5,004; tshark,
    // frames 4 → 5, 17 → 18 …: 3.84–3.94 ms on a 4 ms grid), response → next request
    // 70 µs; handshake SYN → SYN/ACK 1.870 ms, path RTT 674 µs (630 µs + 44 µs).
    let Some(c) = common::corpus_connection("ITI__ICS-Security-Tools__pcaps_s7_s7comm_varservice_libnodavedemo_bench.pcap", 0) else { return };
    let t = &c.diagnosis.text;
    assert!(t.contains("192.168.1.40:102 answered each message after 3.3 ms"), "{t}");
    assert!(t.contains("the network's round trip (the path RTT) was 674 µs"), "{t}");
    assert!(!t.contains("shorter round trip would make it faster"), "{t}");
}

#[test]
fn realjimmy_mptcp_redundant_subflow_names_its_queue() {
    // Connection 4 (10.10.13.13:58792 → 10.10.11.11:5201), captured at the receiver: the
    // handshake's 20 ms is the minimum; the data's round trips (the receiver's ACK delay
    // plus the far part its timestamp echoes time, 307 followed samples) have a median
    // of 803 ms and a p95 of 1.7 s, with up to 327,012 bytes in flight. The reviewer read
    // the same from the sender's TSecr: 40 ms at the start, then 1.2–1.7 s. Before: the
    // loss headline alone, the queue named only on the sibling subflow (connection 5).
    // Issue 39 class C-LINK-VS-LOSS (review Q): the link ran full, so its rate is the
    // headline and the queue its evidence (see `realjimmy_mptcp_redundant_link_ran_full`).
    let Some(c) = common::corpus_connection("realjimmy__sample-captures__wireshark-samples_files_mptcp_redundant_stream1.pcapng", 4) else { return };
    let t = &c.diagnosis.text;
    assert!(
        t.contains("behind a queue that held the RTT at 803 ms (median, 1.7 s at the 95th percentile) against a 20 ms minimum while up to 319 KiB were in flight"),
        "{t}"
    );
}

#[test]
fn realjimmy_mptcp_redundant_link_ran_full() {
    // Connection 4, review Q's C-LINK-VS-LOSS: headlined "Loss limited" while its link
    // ran full. tshark at the receiver: the subflow's segments arrive one every 10.1 ms
    // (frames 1159–1345, 8.317–8.792 s; 1,428 B each: 1.13 Mbit/s), and where the full
    // queue dropped every other segment (8.49–8.79 s) the arrivals kept that pace; 100 ms
    // bins of arrivals reach 1,142.4 kbit/s and no more. The receiver's SACK blocks' right
    // edges meanwhile ran at 1.9–2.3 Mbit/s (they jump the holes), which read as the
    // "sustained best" and hid that recovery delivered at the link's rate; what the
    // receiver held (cumulative ACK + SACKed bytes, RFC 2018 §3) gives 1,142,400 bit/s.
    // Recovery then delivered 983 kbit/s, no less than the 807 kbit/s outside it, behind
    // a standing queue (RTT 20 → 803 ms): the path's bottleneck, with the 132 re-sends
    // (12.2 % of the bytes) its overflow.
    let Some(c) = common::corpus_connection("realjimmy__sample-captures__wireshark-samples_files_mptcp_redundant_stream1.pcapng", 4) else { return };
    let t = &c.diagnosis.text;
    assert_eq!(c.diagnosis.limit, "path", "{t}");
    assert_eq!(c.diagnosis.evidence.link_rate_bps, Some(1_142_400.0), "{t}");
    assert!(t.starts_with("The path's bottleneck set the rate: its receiver reported at most about 1.1 Mbit/s delivered (its sustained best)"), "{t}");
    assert!(t.contains("The losses were that queue overflowing, a symptom of the full link, not its limit: they took 13 % of the time"), "{t}");
    assert!(t.contains("yet its receiver reported 983 kbit/s delivered meanwhile, no less than outside recovery (807 kbit/s; its sustained best 1.1 Mbit/s)"), "{t}");
    assert!(!t.contains("Loss limited"), "{t}");
}
