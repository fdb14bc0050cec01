//! Issue 39, review AD class C-WIN-QUEUE-LONG-RTT (verdict/diagnosis/window_and_queue.rs,
//! docs/ANALYSIS.md "Window and queue full together"): a window-limited flow whose
//! window-full rounds carried a standing queue — W × (1 − base RTT / loaded RTT) at least
//! 10 % of the window and 4 segments — filled the bottleneck too: the page says so, with
//! the bottleneck's rate (window / loaded RTT), instead of "raise the receiver's buffer".
//! A window-limited flow on a flat RTT keeps that advice.

use crate::common;

use tcpscope_core::analysis::ConnectionSummary;
use tcpscope_core::synth::*;

/// An upload of `n` segments of 1,000 B captured at its sender (10.0.0.7), MSS 1,000,
/// handshake 100 ms. The receiver advertises 60,000 B (no window scale) on every ACK and
/// ACKs each segment. The path is one FIFO bottleneck that takes `ser_us` per segment,
/// and an ACK reaches the sender `100 ms − ser_us` after its segment left the
/// bottleneck: a segment that met an empty queue has a 100 ms round trip, the base. The
/// sender starts with its window open (a warm congestion window) and sends a segment as
/// soon as an ACK makes room for it under the receive window.
fn upload(n: u32, ser_us: i64) -> ConnectionSummary {
    const WINDOW: u32 = 60_000;
    let mut f = Flow::new("10.0.0.7:40100", "192.0.2.20:9000");
    f.handshake(0, 100_000, Opts::new().mss(1000), Opts::new().mss(1000));
    let first = 1001u32; // the client's ISN 1000 + its SYN
    let mut link_free = 0i64;
    let mut ack_at: Vec<i64> = Vec::new();
    let (mut sent, mut acked) = (0u32, 0u32);
    let mut t = 101_000i64;
    loop {
        while sent < n && (sent - acked + 1) * 1000 <= WINDOW {
            f.data(C2S, t, 1000);
            link_free = link_free.max(t) + ser_us;
            ack_at.push(link_free + 100_000 - ser_us);
            sent += 1;
        }
        if acked == n {
            break;
        }
        t = ack_at[acked as usize];
        acked += 1;
        f.push(S2C, t).ack(first + 1000 * acked).window(WINDOW as u16);
    }
    common::analyze_flow(&f)
}

#[test]
fn window_full_rounds_behind_a_standing_queue_name_the_bottleneck() {
    // A 2 ms-per-segment bottleneck (4 Mbit/s): 60 segments in flight drain at one per
    // 2 ms, so every ACK-clocked round trip is 60 × 2 ms = 120 ms (Little's law), 1.2 ×
    // the 100 ms base — below the 1.5 × that "packets queued" needs (phrases.rs
    // `rtt_queueing`). The window (60,000 B) exceeds the bandwidth-delay product
    // (4 Mbit/s × 100 ms = 50,000 B) by 10,000 B = 60,000 × (1 − 100/120): 17 % of the
    // window and 10 segments, which wait in the queue. The bottleneck delivered
    // 60,000 × 8 / 0.120 s = 4.0 Mbit/s; a larger window would only lengthen the queue.
    let c = upload(1500, 2_000);
    let d = &c.diagnosis;
    assert_eq!(d.limit, "path", "{}", d.text);
    assert!(d.text.starts_with("The receive window and the path's bottleneck were full together"), "{}", d.text);
    for said in ["the round trip was 120 ms", "against the path's 100 ms", "about 9.8 KiB (17 % of the window)", "about 4 Mbit/s", "about 49 KiB (that rate × the 100 ms base RTT)"] {
        assert!(d.text.contains(said), "{said:?} in {}", d.text);
    }
    assert!(!d.text.contains("Raise the receiver's buffer"), "{}", d.text);
    // The bottleneck's rate is the evidence's link rate: 60,000 B × 8 per 120 ms.
    let link = d.evidence.link_rate_bps.expect("a link rate");
    assert!((link - 4.0e6).abs() < 1e3, "{link}");
}

#[test]
fn a_window_limited_flow_on_a_flat_rtt_keeps_the_window_advice() {
    // A 1 ms-per-segment bottleneck (8 Mbit/s): its bandwidth-delay product (100,000 B at
    // the 100 ms base) exceeds the 60,000 B window, so after the first flight (whose 60
    // segments queue behind each other once) each segment meets an empty queue and its
    // round trip is the base 100 ms: no queue in the window-full rounds, the window alone
    // capped the flow at 60,000 × 8 / 0.1 s = 4.8 Mbit/s. The advice stays.
    let c = upload(1500, 1_000);
    let d = &c.diagnosis;
    assert_eq!(d.limit, "receive-window", "{}", d.text);
    assert!(d.text.contains("Raise the receiver's buffer"), "{}", d.text);
    assert!(!d.text.contains("full together"), "{}", d.text);
}

/// kavinjaveriya/hadoop_datatransfer client.pcap conn 1: a phone-hotspot client writes a
/// 1 MB block to us-east behind a 119 KiB window. Its window-full rounds take 273 ms
/// against a 232 ms minimum, but its own rounds with little in flight take as long
/// (tshark's ack_rtt: 269 ms median at 0–20 kB in flight, 266 ms at 20–60 kB, 268 ms at
/// the window — review AG W5): the 232 ms is the hotspot path's spread, not a queue the
/// window built, so the window was the limit and its advice stands (the small-flight
/// median is the base, `window_and_queue::small_flight_median`).
#[test]
fn kavinjaveriya_upload_with_a_flat_rtt_under_load_keeps_the_window_advice() {
    let Some(c) = common::corpus_connection("kavinjaveriya__hadoop_datatransfer__client.pcap", 1) else { return };
    let d = &c.diagnosis;
    assert_eq!(d.limit, "receive-window", "{}", d.text);
    assert!(d.text.contains("Raise the receiver's buffer"), "{}", d.text);
    assert!(!d.text.contains("full together"), "{}", d.text);
}

#[test]
fn kavinjaveriya_forward_hop_on_a_flat_rtt_stays_window_limited() {
    let Some(c) = common::corpus_connection("kavinjaveriya__hadoop_datatransfer__swapnilslave222.pcap", 1) else { return };
    assert_eq!(c.diagnosis.limit, "receive-window", "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("Raise the receiver's buffer"), "{}", c.diagnosis.text);
}

/// public/examples twin-sender-pause-server.pcap (recorded here through linkemu: a
/// 20 Mbit/s link, 20 ms base RTT, a 250 kB queue; the receiver's window ~83 KiB).
/// The window-full rounds take 36 ms against 24 ms for the same connection's rounds with
/// little in flight (its slow start: the small-flight median, not the 20 ms minimum, is the
/// base), so about a third of the window sat in the link's queue and the link, not the
/// window, set the rate: about 19 Mbit/s against the recording's 20 Mbit/s.
#[test]
fn twin_example_behind_a_20_mbit_link_names_the_queue() {
    let path = format!("{}/../public/examples/twin-sender-pause-server.pcap", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let s = tcpscope_core::session::analyze_bytes(&bytes, tcpscope_core::analysis::AnalysisOptions::default(), 1 << 20);
    let c = &s.analysis().unwrap().connections[0];
    let d = &c.diagnosis;
    assert_eq!(d.limit, "path", "{}", d.text);
    for said in ["full together", "the round trip was 36 ms", "against 24 ms with little in flight", "about 19 Mbit/s"] {
        assert!(d.text.contains(said), "{said:?} in {}", d.text);
    }
    let link = d.evidence.link_rate_bps.expect("a link rate");
    assert!((18.0e6..20.5e6).contains(&link), "{link}");
}
