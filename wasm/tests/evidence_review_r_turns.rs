//! Review R (issue 39) class C-TURNS-FOR-LONG-REQUEST: a peer's message that took
//! several round trips to arrive was told as a request/response turn and answered with
//! "fewer turns (pipelining, batching requests)" (arkime http2-nghttp2.pcap: one 18.7 KB
//! HTTP/2 request uploaded in three flights). verdict/diagnosis/long_message.rs.
use crate::common;
use tcpscope_core::synth::*;

/// A client-side capture, path RTT 100 ms. The client uploads one 18,700-byte request
/// in slow start: 3 × 1400 B at 101 ms, 6 × 1400 B at 201.2 ms (on the server's ACK of
/// the first flight at 201 ms), 4 × 1400 + 500 B at 301.2 ms. The server sends a 40-byte
/// preamble at 201.1 ms (an HTTP/2 SETTINGS frame: not an answer, under a full segment)
/// and answers at 450 ms with 60 × 1400 B in three flights of 20, 100 ms apart.
/// The server's wait, 201.1 ms → 450 ms = 248.9 ms, holds the client's payload from
/// 201.2 ms to 301.6 ms (100.4 ms ≥ one round trip): the request still arriving. The
/// message is the client's 13 segments + 500 B = 18,700 B (18 KiB), flights of 3, 6 and
/// 5 segments (each under half the server's 65,535-byte window: the client's own
/// window grew), its last segment at 301.6 ms, 148.4 ms before the answer.
fn upload_then_answer() -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 100_000, Opts::new().mss(1400), Opts::new().mss(1400));
    for k in 0..3 {
        f.data(C2S, 101_000 + 100 * k, 1400);
    }
    f.push(S2C, 201_000);
    f.data(S2C, 201_100, 40);
    for k in 0..6 {
        f.data(C2S, 201_200 + 100 * k, 1400);
    }
    f.push(S2C, 301_000);
    for k in 0..4 {
        f.data(C2S, 301_200 + 100 * k, 1400);
    }
    f.data(C2S, 301_600, 500);
    f.push(S2C, 401_000);
    for flight in 0..3 {
        for k in 0..20 {
            let t = 450_000 + 100_000 * flight + 100 * k;
            f.data(S2C, t, 1400);
            if k % 2 == 1 {
                f.push(C2S, t + 50);
            }
        }
    }
    f
}

#[test]
fn a_request_in_three_flights_is_the_peers_message_not_turns() {
    let c = common::analyze_flow(&upload_then_answer());
    let t = &c.diagnosis.text;
    assert_eq!(c.diagnosis.limit, "turns", "{t}");
    assert!(
        t.starts_with(
            "The peer's message set the pace: 10.0.0.2:80 waited 249 ms (55 % of the time) for 10.0.0.1:40000's 18 KiB message, \
             which took 3 round trips to arrive (flights of 3, 6 and 5 segments, one round trip apart, each under half 10.0.0.2:80's \
             window: 10.0.0.1:40000's congestion window, RFC 5681), and answered 148 ms after its last segment"
        ),
        "{t}"
    );
    assert!(t.contains("a shorter round trip or a larger initial window at 10.0.0.1:40000 (RFC 6928) would make it faster, a faster link would not; with one message there was nothing to batch."), "{t}");
    assert!(!t.contains("batching requests"), "{t}");
}

/// arkime http2-nghttp2.pcap connection 0 (10.89.85.15:49570 ↔ 139.162.123.134:80,
/// captured at the client; `tshark -T fields -e frame.time_relative -e tcp.len`): the
/// server's 42-byte SETTINGS (frame 10, 0.41935 s) and its answer (26, 1.04618 s):
/// 627 ms waiting for the client's request, 18,718 bytes in flights of 3 (frames 4–6,
/// 0.211 s), 7 (9, 11–16, 0.419 s) and 5 segments (18, 21–24, 0.712 s), its last
/// segment 334 ms before the answer; the server's window stayed ≥ 59,392 bytes.
#[test]
fn http2_request_upload_is_one_message() {
    let Some(c) = common::corpus_connection("arkime__arkime__tests_pcap_http2-nghttp2.pcap", 0) else { return };
    let t = &c.diagnosis.text;
    assert!(
        t.starts_with(
            "The peer's message set the pace: 139.162.123.134:80 waited 627 ms (56 % of the time) for 10.89.85.15:49570's 18 KiB message, \
             which took 3 round trips to arrive (flights of 3, 7 and 5 segments, one round trip apart, each under half 139.162.123.134:80's \
             window: 10.89.85.15:49570's congestion window, RFC 5681), and answered 334 ms after its last segment"
        ),
        "{t}"
    );
    assert!(t.contains("with one message there was nothing to batch."), "{t}");
}
