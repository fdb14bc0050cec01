//! Issue 39, "Evidence before every claim", review O classes C-PERIODIC-INFLIGHT and
//! C-FLAT-CAP: a sender that set its own rate while data was in flight was called
//! limited by "the congestion window or the path's capacity" (the residue of the share
//! pass, `other`). diagnosis_shares/sender_paced.rs names it from the capture's own
//! evidence (docs/ANALYSIS.md "The sender's own rate"):
//! - its application's clock: small segments (each record sent as written, RFC 9293
//!   §3.7.4: a sender with data queued sends full segments) at a steady rate whose send
//!   times do not follow the ACKs (an ACK-clocked sender sends at the ACK, RFC 5681 §3);
//! - a fixed cap: flights stopping at one byte count round after round (a congestion
//!   window grows without loss), each leaving in a fraction of the round trip (a path
//!   that held the flow spreads the flight over it), the receiver's window far above.
//!
//! Every capture here is taken at the receiver (the client), as both public ones were:
//! the server's segments arrive at their send times plus a constant one-way delay and
//! the client acknowledges each 50 µs later; the handshake gives the path RTT, and the
//! diagnosis replays the client's ACKs that much later (sender_view.rs).

use crate::common;
use tcpscope_core::synth::*;

/// A client-side capture: handshake with a `rtt_us` round trip (window scale 7 both
/// ways, MSS 1460), then the server's segments `(arrival µs, bytes)`, each acknowledged
/// by the client 50 µs after it arrived.
fn receiver_capture(rtt_us: i64, segments: &[(i64, u32)]) -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:443");
    f.handshake(0, rtt_us, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    for &(t, len) in segments {
        f.data(S2C, t, len);
        f.push(C2S, t + 50);
    }
    f
}

#[test]
fn a_fixed_rate_source_with_data_in_flight_is_its_applications_clock() {
    // A 300-byte record every 20 ms for 10 s (500 records, 50/s, 120 kbit/s) on a 90 ms
    // path. In the server's time the client's ACK of record j arrives at 20j + 90.05 ms,
    // so when record k leaves (20k ms) records k−4 … k are outstanding: 1,500 bytes, the
    // records of one round trip, and the latest ACK came 9.95 ms before — half a period:
    // the sends keep their own clock, not the ACKs'. Every segment is under half a full
    // segment (1,420 B): nothing was queued behind it. Before: "Neither the receive
    // window (0 %), loss (0 %) nor the application (0 %) limited this flow … The
    // congestion window or the path's capacity was the limit."
    let records: Vec<(i64, u32)> = (0..500).map(|k| (200_000 + 20_000 * k, 300)).collect();
    let c = common::analyze_flow(&receiver_capture(90_000, &records));
    let d = &c.diagnosis;
    assert_eq!(d.limit, "application", "{}", d.text);
    assert!(d.text.starts_with("The sending application's clock set the rate (100 % of the time): it sent a segment about every 20 ms (50 per second, median 300 B)"), "{}", d.text);
    assert!(d.text.contains("500 of its 500 segments below half a full segment"), "{}", d.text);
    assert!(d.text.contains("about what it produced in a round trip (90 ms)"), "{}", d.text);
    assert!(!d.text.contains("congestion window or the path's capacity"), "{}", d.text);
    // The time moved to the application's share; no saving is claimed for it: a source's
    // clock is its pace, not a delay a readier application would remove (what is left of
    // the application's saving is one period, 20 ms).
    assert!(d.shares.application > 0.99, "{:?}", d.shares);
    assert!(d.savings.iter().all(|s| s.limit != "application" || s.seconds <= 0.02 + 1e-9), "{:?}", d.savings);
}

#[test]
fn small_segments_sent_at_each_ack_stay_the_path() {
    // The same 300-byte segments, but each sent the moment an ACK reached the server:
    // four outstanding, so record k + 4 arrives 90.05 ms + 0.1 ms after record k did (a
    // period of 22.5 ms, as steady). The latest ACK came 0.1 ms before each send — the ACK
    // clock, not the application's: no claim of a sender's clock.
    let mut records: Vec<(i64, u32)> = Vec::new();
    for k in 0..480i64 {
        let t = if k < 4 { 200_000 + 100 * k } else { records[(k - 4) as usize].0 + 90_150 };
        records.push((t, 300u32));
    }
    let c = common::analyze_flow(&receiver_capture(90_000, &records));
    assert!(!c.diagnosis.text.contains("clock set the rate"), "{}", c.diagnosis.text);
}

/// Flights `(bytes)` of 1,448-byte segments (the last one shorter), 0.2 ms apart, the
/// next flight `gap_us` after the previous one's first segment.
fn flights(sizes: &[u32], gap_us: i64) -> Vec<(i64, u32)> {
    let mut out = Vec::new();
    for (k, &bytes) in sizes.iter().enumerate() {
        let (mut left, mut t) = (bytes, 200_000 + gap_us * k as i64);
        while left > 0 {
            let len = left.min(1448);
            out.push((t, len));
            left -= len;
            t += 200;
        }
    }
    out
}

#[test]
fn a_byte_exact_flat_flight_is_the_senders_cap() {
    // Slow start (10 and 20 segments), then 30 flights of exactly 32,768 bytes (22 × 1,448
    // + 912), each leaving in 4.4 ms and the next 205 ms later on a 200 ms path: every
    // flight fully acknowledged (in the server's time 4.45 + 200 ms) before the next, so
    // the bytes in flight peak at 32,768 thirty times and never above. A congestion
    // window counts segments and would have grown (no loss), and 32,768 is no whole
    // number of 1,448-byte segments; the path carried 32 KiB in 4.4 ms (60 Mbit/s).
    // The cap sets 32,768 B per 205 ms: 1.28 Mbit/s. Before: "The congestion window or
    // the path's capacity was the limit."
    let mut sizes = vec![10 * 1448, 20 * 1448];
    sizes.extend([32_768; 30]);
    let c = common::analyze_flow(&receiver_capture(200_000, &flights(&sizes, 205_000)));
    let d = &c.diagnosis;
    assert_eq!(d.limit, "application", "{}", d.text);
    assert!(d.text.starts_with("The sender capped its data in flight at 32 KiB (32768 bytes;"), "{}", d.text);
    assert!(d.text.contains("30 of its 31 flights of at least half that stopped at exactly that byte count — no whole number of its 1448-byte segments — and none went beyond it"), "{}", d.text);
    assert!(d.text.contains("each sent within 4.4 ms (median; at most 4.4 ms) of a 200 ms round trip"), "{}", d.text);
    assert!(d.text.contains("It capped the rate at about 1.3 Mbit/s (32 KiB per 205 ms)"), "{}", d.text);
    assert!(!d.text.contains("congestion window or the path's capacity"), "{}", d.text);
}

#[test]
fn a_growing_window_and_a_busy_path_stay_the_path() {
    // Congestion avoidance: flights of 10, 11, … 41 full segments, one more per round trip
    // (RFC 5681 §3.1), each fully acknowledged before the next: no flat cap. (A window
    // held flat at whole segments is no byte budget either: diagnosis_tests.rs
    // `loss_holding_down_the_congestion_window`, 10 segments without loss, stays `path`.)
    let sizes: Vec<u32> = (10..42).map(|n| n * 1448).collect();
    let c = common::analyze_flow(&receiver_capture(200_000, &flights(&sizes, 205_000)));
    assert!(!c.diagnosis.text.contains("capped its data in flight"), "{}", c.diagnosis.text);
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
    // A bottleneck spacing full segments 5 ms apart for 10 s (2.3 Mbit/s) on a 90 ms path:
    // the bytes in flight are flat (18 segments) but the flight never drains in a
    // fraction of the round trip: the path's pace.
    let even: Vec<(i64, u32)> = (0..2000).map(|k| (200_000 + 5_000 * k, 1448)).collect();
    let c = common::analyze_flow(&receiver_capture(90_000, &even));
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("The congestion window or the path's capacity was the limit."), "{}", c.diagnosis.text);
}

const CONST: &str = "p4-team__ctf__2018-09-15-trendmicro_misc_constellation_traffic.pcap";
const NO_CRLF: &str = "zeek__zeek__testing_btest_Traces_http_no_crlf.pcap";

#[test]
fn the_telemetry_stream_is_its_applications_clock_on_the_public_capture() {
    // Connection 0 (TLS from 66.180.85.34:443, captured at the client 192.168.0.17, 82 ms
    // path). tshark: 2,137 of the server's 2,546 data segments are 357-byte records, 43 per
    // second in every 5-s interval, median spacing 20.7 ms; at most 1,818 bytes
    // unacknowledged (the ~4 records of one round trip), no re-send.
    let Some(c) = common::corpus_connection(CONST, 0) else { return };
    let d = &c.diagnosis;
    assert_eq!(d.limit, "application", "{}", d.text);
    assert!(d.text.starts_with("The sending application's clock set the rate"), "{}", d.text);
    assert!(d.text.contains("median 357 B"), "{}", d.text);
    assert!(d.text.contains("never had more than 1.8 KiB unacknowledged"), "{}", d.text);
    assert!(!d.text.contains("congestion window or the path's capacity"), "{}", d.text);
}

#[test]
fn the_http_server_32_kib_cap_is_named_on_the_public_capture() {
    // Connection 0 (HTTP from 5.2.136.90:80, captured at the client, 203 ms path, the
    // client's window 256 KiB). tshark: after slow start every round trip carries exactly
    // 32,768 bytes — 40 flights over the 4 responses (frames 67–237, 320–644, 748–1155,
    // 1213–1413), each arriving within 3–53 ms, the next about 205–307 ms later.
    let Some(c) = common::corpus_connection(NO_CRLF, 0) else { return };
    let d = &c.diagnosis;
    assert_eq!(d.limit, "application", "{}", d.text);
    assert!(d.text.starts_with("The sender capped its data in flight at 32 KiB (32768 bytes;"), "{}", d.text);
    assert!(d.text.contains("40 of its 46 flights of at least half that stopped at exactly that byte count — no whole number of its 1382-byte segments"), "{}", d.text);
    assert!(d.text.contains("the receiver's 256 KiB window had room"), "{}", d.text);
    assert!(!d.text.contains("congestion window or the path's capacity"), "{}", d.text);
}

/// Issue 39 review T class C-STOP-AND-WAIT-AS-PATH: one segment in flight at a time for a
/// whole transfer, each sent only once the previous one was acknowledged, with the
/// receiver's window far above one segment and no loss. No congestion window stays at one
/// segment for hundreds of round trips without loss (RFC 5681 §3.1 slow start from 1–10
/// segments, RFC 6928): the sender sent one segment per ACK.
/// A capture in the middle of a 10 ms path (5 ms to each end and back): handshake, then
/// the server's segments `(capture µs, bytes)`, each acknowledged by the client 5 ms
/// later as the capture sees it.
fn middle_capture(segments: &[(i64, u32)]) -> Flow {
    use tcpscope_core::decode::tcp_flags::{ACK, SYN};
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:443");
    let opts = || Opts::new().mss(1460).wscale(7);
    f.push(C2S, 0).flags(SYN).ack(0).opts(opts());
    f.push(S2C, 5_000).flags(SYN | ACK).opts(opts());
    f.push(C2S, 10_000);
    for &(t, len) in segments {
        f.data(S2C, t, len);
        f.push(C2S, t + 5_000);
    }
    f
}

#[test]
fn one_segment_per_round_trip_is_a_stop_and_wait_sender() {
    // 200 segments of 1,448 B, each acknowledged by the client 5 ms after it passed the
    // capture point; the next comes 5.2 ms after that ACK (5 ms to the server and back,
    // 0.2 ms to answer): 10.2 ms per segment, never two outstanding, the client's window
    // 8 MiB (65,535 << 7), no loss. Each segment came 5.2 ms after the ACK of the one
    // before passed the capture point, more than half the 5 ms the ACK needs to reach the
    // sender and the segment to come back: the sender had that ACK before it sent.
    // The 0.2 ms the sender took to answer each ACK, everything acknowledged, is its
    // application's already (0.2 / 10.2 ms = 2 %); the 10 ms in flight, 98 %, move to it.
    // Before: "The congestion window or the path's capacity was the limit."
    let segments: Vec<(i64, u32)> = (0..200).map(|k| (20_000 + 10_200 * k, 1448)).collect();
    let c = common::analyze_flow(&middle_capture(&segments));
    let d = &c.diagnosis;
    assert_eq!(d.limit, "application", "{}", d.text);
    assert!(
        d.text.starts_with(
            "A stop-and-wait sender set the rate (98 % of the time): each of its 200 segments (median 1.4 KiB) left only after \
             the previous one was acknowledged (median 5.2 ms after that ACK passed the capture point), never two in flight"
        ),
        "{}",
        d.text
    );
    assert!(d.text.contains("A congestion window does not stay at one segment for 200 round trips without loss"), "{}", d.text);
    assert!(!d.text.contains("congestion window or the path's capacity"), "{}", d.text);
    assert!(!d.text.contains("congestion control set that pace"), "{}", d.text);
    // Two segments per round trip, the second 0.2 ms behind the first: it follows the
    // ACK of the first by less than half the 5 ms that ACK needs to reach the sender and
    // the answer to come back (it passes the capture point before that ACK is sent): no
    // stop-and-wait.
    let pairs: Vec<(i64, u32)> = (0..200).map(|k| (20_000 + 10_200 * (k / 2) + 200 * (k % 2), 1448)).collect();
    let c = common::analyze_flow(&middle_capture(&pairs));
    assert!(!c.diagnosis.text.contains("stop-and-wait"), "{}", c.diagnosis.text);
}

#[test]
fn the_stego_transfer_is_stop_and_wait_on_the_public_capture() {
    // google-ctf 2016 stego.pcap (raw IP, generated): 10.13.37.1:80 → 10.0.0.1:1337 sends
    // a 60-B greeting, 1,049 segments of 1,024 B and one of 573 B (tshark: 1,051 data
    // segments), each 0.22–0.25 ms after the client's ACK of the one before (frames 7 → 8
    // → 9 …), never two outstanding (bytes in flight 1,024), the client's window 8,192 B,
    // no re-send.
    let Some(c) = common::corpus_connection("ctfs__write-ups-2016__google-ctf-2016_forensics_a-cute-stegosaurus-100_stego.pcap", 0) else { return };
    let d = &c.diagnosis;
    assert_eq!(d.limit, "application", "{}", d.text);
    assert!(d.text.starts_with("A stop-and-wait sender set the rate (100 % of the time): each of its 1051 segments (median 1 KiB)"), "{}", d.text);
    assert!(d.text.contains("(median 227 µs after that ACK passed the capture point)"), "{}", d.text);
    assert!(d.text.contains("the receiver's 8 KiB window had room for more"), "{}", d.text);
    assert!(!d.text.contains("congestion window or the path's capacity"), "{}", d.text);
}
