//! Issue 39, review V class C-SPURIOUS-RTO-UNTOLD and the session-34 leftovers of the timer
//! classes (closing34.md "Still open" items 3–4):
//! - re-sends after a timeout with no duplicate ACK or SACK before them were counted
//!   "fast" (dns_isp_hijack.pcapng conn 2): a fast retransmission needs the receiver's
//!   report of a hole (RFC 5681 §3.2, RFC 6675 §5); without one, a re-send of bytes
//!   outstanding at the timeout is its go-back-N (slow start, RFC 5681 §3.1);
//! - one test of "was this re-send timer-driven?" for the counters and the stall rule
//!   (loss/timer_driven.rs; mercury http_request.capture2 #150's "4.2 s retransmission
//!   timeout" over re-sends the counters call recovery);
//! - a re-send loop without back-off is not TCP's retransmission timeout (RFC 6298 §5.5),
//!   and a flow whose every re-send was needless was not limited by loss (fox-it
//!   harlemshake conn 13).

use crate::common;

use tcpscope_core::synth::*;

const ISP: &str = "chrissanders__packets__dns_isp_hijack.pcapng";
const QI: &str = "fox-it__quantuminsert__presentations_brocon2015_pcaps_bro.org-harlemshake-inject.pcap";
const MERCURY: &str = "cisco__mercury__unit_tests_pcaps_http_request.capture2.pcap";

/// The isp scene at the client, 25 ms path, SACK on: the server's 9 segments of 1,448 B
/// (5001–18033) held on the path arrive at 2.068 s with the server's timer re-send of
/// the first right behind them; the client ACKs everything, then D-SACKs the re-send;
/// 26.5 ms later (one round trip: the server sent them as those ACKs reached it, before
/// it had processed the last) the server re-sends segments 4–7 (go-back-N), each
/// D-SACKed at once.
fn isp_like() -> Flow {
    let mut f = Flow::new("172.16.16.170:64257", "38.29.168.232:80");
    // TCP timestamps as in isp (1 tick = 1 ms): they tell the timer's re-send (TSval
    // 244 ticks after the burst's) from an original overtaken on the way.
    let ts = |val: u32, ecr: u32| Opts::new().ts(val, ecr);
    f.handshake(0, 25_000, Opts::new().mss(1460).sack_perm().ts(100, 0), Opts::new().mss(1460).sack_perm().ts(1000, 100));
    f.data(C2S, 25_100, 485).opts(ts(125, 1000));
    f.push(S2C, 50_000).opts(ts(1025, 125));
    for k in 0..9u32 {
        f.data(S2C, 2_068_000 + i64::from(k) * 2, 1448).opts(ts(1395, 125));
    }
    f.data(S2C, 2_068_020, 1448).seq(5001).opts(ts(1639, 125));
    for (k, ack) in [7897u32, 10_793, 13_689, 16_585, 18_033].into_iter().enumerate() {
        f.push(C2S, 2_068_050 + k as i64).ack(ack).opts(ts(2168, 1395));
    }
    f.push(C2S, 2_068_060).ack(18_033).opts(ts(2168, 1395).sack(&[(5001, 6449)]));
    for k in 0..4u32 {
        let seq = 5001 + (3 + k) * 1448;
        let t = 2_094_500 + i64::from(k) * 600;
        f.data(S2C, t, 1448).seq(seq).opts(ts(1668, 2168));
        f.push(C2S, t + 30).ack(18_033).opts(ts(2194, 1668).sack(&[(seq, seq + 1448)]));
    }
    f
}

#[test]
fn resends_after_a_timeout_without_a_reported_hole_are_slow_start() {
    let f = isp_like();
    let c = common::analyze_flow(&f);
    let d = &c.directions[1];
    // 5 re-sends: the first segment's, 2.04 s after the client's last ACK (its GET at
    // 25 ms), by the timer: a timeout (not a probe: it is not the
    // last segment). The 4 after it came 26.5 ms after the ACK of everything, with only
    // D-SACK duplicate ACKs between (no hole reported): the timeout's go-back-N, slow
    // start — before, 4 "fast". All 5 D-SACKed or already acknowledged: needless.
    assert_eq!(
        [d.retransmissions, d.rto_events, d.tail_loss_probes, d.fast_retransmissions, d.slow_start_retransmissions, d.spurious_retransmissions],
        [5, 1, 0, 0, 4, 5],
        "{d:?}"
    );
}

#[test]
fn isp_connection_2_counts_the_go_back_n_as_slow_start() {
    // tshark: 41 (2.069040, seq 1, TSval …848, 244 ticks after the burst 32–40's …604)
    // the timer's re-send; 42–46 ACK up to 12974 (all), 47 D-SACKs 1–1449; 50/52/54/56
    // (2.0945–2.0966, TSval …877) re-send 5793–11585, each D-SACKed (51/53/55/57, all
    // "Spurious Retransmission"). No three duplicate ACKs, no SACK of new data: not fast.
    let Some(c) = common::corpus_connection(ISP, 2) else { return };
    let d = &c.directions[1];
    assert_eq!(
        [d.retransmissions, d.rto_events, d.tail_loss_probes, d.fast_retransmissions, d.slow_start_retransmissions, d.spurious_retransmissions],
        [5, 1, 0, 0, 4, 5],
        "{d:?}"
    );
}

#[test]
fn mercury_150_stalls_and_counters_share_the_timer_test() {
    // Path RTT unknown (mid-stream, receiver side, no timestamps). tshark: dup ACKs
    // 4406/4414/4426 (SACK of data above the hole 8401–9801) at ~0.4–0.5 s spacing, the
    // hole re-sent 4438 397 ms after the last: clocked by the counters' 1-s test (RFC
    // 6298 §2.1/2.4), and now by the stall rule's (was 0.2 s: a "retransmission-timeout"
    // stall); the same for 334 ms at 484.479 s. The one timeout the counters hold, 35001
    // re-sent at 489.311 s (4874) 2.6 s after the dup ACK 4774, keeps its stall.
    let Some(c) = common::corpus_connection(MERCURY, 150) else { return };
    let d = &c.directions[c.data_direction as usize];
    assert_eq!((d.rto_events, d.fast_retransmissions, d.slow_start_retransmissions), (1, 3, 2), "{d:?}");
    let timeouts: Vec<String> = d
        .stalls
        .iter()
        .filter(|s| s.cause == tcpscope_core::analysis::StallCause::RetransmissionTimeout)
        .map(|s| format!("{:.3}+{:.3}", s.start, s.duration))
        .collect();
    assert_eq!(timeouts, ["308432486.700+2.612", "308432489.311+0.516", "308432489.827+0.332"]);
    let t = &c.diagnosis.text;
    assert!(t.contains("3.5 s retransmission timeout") && !t.contains("4.2 s retransmission timeout"), "{t}");
    assert!(t.contains("(1 retransmission timeout)"), "{t}");
}

/// The qi scene without the injector: the server's 485 B at 0.5 s, the client's ACK of it
/// 50 µs later (a 1 ms path, capture at the client); the server re-sends the same 485 B
/// 12 times 100 ms apart all the same (it never takes the ACKs), each ACKed again 50 µs
/// after it.
fn resend_loop() -> Flow {
    let mut f = Flow::new("10.0.0.5:48650", "192.150.187.43:80");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 1_100, 340);
    f.push(S2C, 2_000);
    f.data(S2C, 500_000, 485);
    f.push(C2S, 500_050);
    for k in 1..=12i64 {
        let t = 500_000 + k * 100_000;
        f.data(S2C, t, 485).seq(5001);
        f.push(C2S, t + 50);
    }
    f
}

#[test]
fn a_resend_loop_without_backoff_is_not_called_timeouts_and_nothing_lost_is_not_loss() {
    let c = common::analyze_flow(&resend_loop());
    let d = &c.directions[1];
    // 12 re-sends, every one of bytes the client had acknowledged before it: all needless.
    assert_eq!((d.retransmissions, d.spurious_retransmissions), (12, 12), "{d:?}");
    let chains: Vec<u32> = d.rto_chains.iter().map(|ch| ch.timeouts).collect();
    assert_eq!(d.rto_events, 12, "{chains:?}");
    let t = &c.diagnosis.text;
    assert!(!t.starts_with("Loss limited"), "{t}");
    assert!(t.starts_with("Re-sends limited this flow, though none repaired a loss: "), "{t}");
    assert!(t.contains("about 100 ms apart without backing off"), "{t}");
    assert!(!t.contains("retransmission timeouts"), "{t}");
}

#[test]
fn qi_13_names_the_loop_and_no_loss() {
    // tshark: the server's 485 B + FIN re-sent 99–106 ms apart (median 102.6 ms) from 0.664 s to
    // 46.093 s, each answered within 0.4 ms by the client's ACK 6356, which it refuses;
    // the client's own FIN re-sends double (0.30, 0.61, 1.22 … 19.5 s): those are RFC
    // 6298's timer and stay "retransmission timeouts" where named.
    let Some(c) = common::corpus_connection(QI, 13) else { return };
    let t = &c.diagnosis.text;
    // Session 36: frame 53, the real server's first answer (its bytes differ from the
    // injector's at seq 1), is no re-send (two_senders.rs): 445 re-sends, 96.9 %.
    assert!(t.starts_with("Re-sends limited this flow, though none repaired a loss: 96.9 %"), "{t}");
    assert!(t.contains("445 timer re-sends, 444 of them about 103 ms apart without backing off"), "{t}");
    assert!(!t.contains("446 retransmission timeouts") && !t.contains("waiting on retransmission timeouts"), "{t}");
}
