//! Issue 39 items 5 and 8, review X class C-QUEUE-MISSED: an iperf3 upload captured near
//! its receiver, sent into a ~2-s standing queue upstream of the capture, read "Loss
//! limited … the sender spent 88 % of the time recovering from loss" with no word on the
//! queue: a receiver-side capture measures the round trip only from the capture on. The
//! sender's TCP timestamps against the capture's clock show it (docs/ANALYSIS.md
//! `direction.upstreamQueue`; timing/ts_clock.rs).

use crate::common;

use tcpscope_core::analysis::ConnectionSummary;
use tcpscope_core::decode::tcp_flags::{ACK, SYN};
use tcpscope_core::synth::*;

const SFRV: &str = "teto__pymptcpanalyzer__examples_server_1_tcp_only";

/// An upload captured at the receiver: 40 ms round trip (SYN/ACK → ACK), then one
/// 1,448-byte segment sent every 5 ms for 6 s, each arriving 20 ms after it was sent
/// plus the queue in front of the capture: none for 2 s, then 0.25 s more a second, to
/// 1 s. The sender's TSval counts its clock in ticks of `tick_ms`; the receiver ACKs each
/// segment 100 µs after it arrives.
fn upload(tick_ms: f64) -> ConnectionSummary {
    let mut f = Flow::new("10.0.0.1:59430", "10.0.0.2:5201");
    let tsval = |sent_us: i64| 1000 + (sent_us as f64 / 1000.0 / tick_ms) as u32;
    let opts = || Opts::new().mss(1448).sack_perm();
    f.push(C2S, 20_000).flags(SYN).ack(0).opts(opts().ts(tsval(0), 0));
    f.push(S2C, 20_050).flags(SYN | ACK).opts(opts().ts(5000, tsval(0)));
    f.push(C2S, 60_000).opts(Opts::new().ts(tsval(40_000), 5000));
    for k in 0..1200i64 {
        let sent = 40_000 + 5_000 * k;
        let queue = if sent < 2_040_000 { 0 } else { (sent - 2_040_000) / 4 };
        let at = sent + 20_000 + queue;
        f.data(C2S, at, 1448).opts(Opts::new().ts(tsval(sent), 5000 + (at / 1000) as u32));
        f.push(S2C, at + 100).opts(Opts::new().ts(5000 + (at / 1000) as u32, tsval(sent)));
    }
    common::analyze_flow(&f)
}

#[test]
fn a_queue_growing_to_1_s_before_a_receiver_side_capture_is_named() {
    // The chord of the least-delayed segments runs over the first 2 s (1.00 ms a tick,
    // from the first data at 0.04 s). The queue peaks at 0.99875 s (the last segment,
    // arriving at 7.054 s); the last window of two round trips that holds data to its end
    // begins in the bin at 6.93 s, whose first segment was sent at 5.936 s with 0.974 s of
    // queue. Less the bin (its start against its furthest TSval: up to 10 ms at the
    // arrivals' 1.25 × spacing) and the chord's uncertainty 4.9 s past its span (3 ms ×
    // (1 + 4.9 / 2) ≈ 10 ms): 0.937 s, a lower bound of the 0.97 s there.
    let c = upload(1.0);
    let q = c.directions[0].upstream_queue.expect("a queue");
    assert!((q.tick_s - 1e-3).abs() < 1e-5, "{q:?}");
    assert!((q.seconds - 0.937).abs() < 0.005 && (q.at - 6.93).abs() < 0.005 && q.seconds < 0.974, "{q:?}");
    let text = &c.diagnosis.text;
    assert!(text.contains("a standing queue of 937 ms") && text.contains("upstream of the capture (bufferbloat)"), "{text}");
}

#[test]
fn the_same_queue_on_a_10_ms_clock_is_not_claimed() {
    // A 100-Hz TS clock rounds each delay to 10 ms: RFC 7323 §5.4 allows it, but such a
    // clock is too coarse to claim a queue from (RESOLUTION_MAX_S, 5 ms).
    let c = upload(10.0);
    assert_eq!(c.directions[0].upstream_queue, None);
    assert!(!c.diagnosis.text.contains("standing queue"), "{}", c.diagnosis.text);
}

#[test]
fn sfrv_names_the_queue_the_iperf3_upload_built() {
    // Connection 1 (10.0.0.1:59430 → :5201, 1-kHz TSval): by tshark the sender's segments
    // arrive ≈ 0.06 s later than their TSval says at 5.79 s (frame 78) and ≈ 1.75 s at
    // 10.25 s (frame 825); the chord from 5.154 s (frame 25) to 7.39 s (frame 342) runs at
    // 0.9998 ms a tick over 2.2 s. The least delay over the windows of two 177-ms round
    // trips peaks at 1.63 s from 10.05 s.
    let Some(c) = common::corpus_connection(SFRV, 1) else { return };
    let q = c.directions[0].upstream_queue.expect("a queue");
    assert!((q.seconds - 1.63).abs() < 0.02 && (q.at - 10.05).abs() < 0.02, "{q:?}");
    assert!(c.diagnosis.text.contains("a standing queue of 1.6 s built up upstream of the capture (bufferbloat)"), "{}", c.diagnosis.text);
    // Connection 0, iperf3's control channel (a few small messages): nothing.
    let c = common::corpus_connection(SFRV, 0).expect("connection 0");
    assert!(c.directions.iter().all(|d| d.upstream_queue.is_none()));
}
