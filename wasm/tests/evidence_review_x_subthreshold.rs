//! Issue 39, "Evidence before every claim", review X class C-CWND-VS-PATH-UNDECIDED and
//! closing35's petit #10 (docs/ANALYSIS.md "diagnosis.text": *Congestion window, not
//! the path*; stall rule 5b's disproof). (Review X's C-SUBTHRESHOLD-TIME-AS-PATH, an RDP
//! encoder's paced writes, stays open: a first rule was wrong on 5 of 6 connections it
//! named in review AA — gaps released by the peer's data, a made-up capture clock.)
//! - One flight per round trip, arriving within a small part of it and growing as a
//!   congestion window grows, is the window's limit, not the path's capacity
//!   (cwnd_rounds.rs).
//! - Without an MSS option a lone largest segment is not shown full: a 31-B segment sent
//!   together with it disproves Nagle's algorithm at that sender (nagle_shape.rs).

use crate::common;

use tcpscope_core::analysis::ConnectionSummary;
use tcpscope_core::synth::*;

const PNGEX: &str = "realjimmy__sample-captures__wireshark-samples_files_captures-in-specific-file-formats_pcapng-example.pcapng";
const TPORTS: &str = "chrissanders__packets__tcp_ports.pcapng";
const PETIT: &str = "corelight__PetitPotam__testing_Traces_UnPatchedDCOpenFileRaw.pcapng";

/// A download seen at the client (the server 171 ms away: the handshake), MSS 1,348:
/// flights of `counts` segments, one per round trip, 100 µs apart, the client ACKing
/// every second segment at once; the first flight 1 ms after the handshake.
fn download(counts: &[u32]) -> ConnectionSummary {
    let mut f = Flow::new("192.168.1.1:46016", "64.170.98.42:443");
    f.handshake(0, 171_000, Opts::new().mss(1348), Opts::new().mss(1348));
    let mut t = 172_000;
    let mut sent = 5001u32; // the server's ISN (5000) + 1
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
fn flights_growing_by_two_segments_a_round_trip_are_the_congestion_window() {
    // 10, 12, 14, 16, 18 segments per 171-ms round trip and a last flight of 8, each
    // arriving within 1.7 ms (17 gaps of 100 µs at most): a quarter of the round trip is
    // 42.75 ms. Steps of 2 segments: congestion avoidance from 10 segments.
    let c = download(&[10, 12, 14, 16, 18, 8]);
    let text = &c.diagnosis.text;
    assert!(text.contains("The congestion window was the limit, not the path's capacity"), "{text}");
    assert!(text.contains("congestion avoidance from 10 segments (10, 12, 14, 16, 18 segments per round trip)"), "{text}");
}

#[test]
fn pngex_and_tports_flights_show_the_congestion_window() {
    // pngex conn 0: 10, 12, 14, 16, 16, 18 segments per 171-ms round trip (frames 62, 81,
    // 98, 129, 161, 193), each within ~1 ms; then the last flight of 8 (233).
    if let Some(c) = common::corpus_connection(PNGEX, 0) {
        let text = &c.diagnosis.text;
        assert!(text.contains("congestion avoidance from 10 segments (10, 12, 14, 16, 16, 18 segments per round trip)"), "{text}");
        assert!(!text.contains("The congestion window or the path's capacity was the limit"), "{text}");
    }
    // tports conn 5: 2, 3, 3, 6, 9 segments per 87-ms round trip (IW2 slow start,
    // frames 109, 137, 167, 204, 255), then the client's 16,872-B window.
    if let Some(c) = common::corpus_connection(TPORTS, 5) {
        let text = &c.diagnosis.text;
        assert!(text.contains("slow start from 2 segments (2, 3, 3, 6, 9 segments per round trip)"), "{text}");
    }
}

#[test]
fn petit_lone_largest_segment_is_not_full() {
    // petit conn 10 (172.67.72.98:443, begun mid-stream, no MSS option): 39 B (1231),
    // the client's ACK 41 ms later (1250), then 791 B and 31 B in the same microsecond
    // (1256, 1257). 791 B, sent once, is not shown full: the 31 B left with 791 small
    // bytes unacknowledged, which Nagle's algorithm would not have sent.
    let Some(c) = common::corpus_connection(PETIT, 10) else { return };
    let text = &c.diagnosis.text;
    assert!(!text.contains("Nagle"), "{text}");
}
