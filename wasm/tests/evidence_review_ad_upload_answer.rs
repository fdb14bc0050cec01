//! Review AD (issue 39) class C-ANSWER-AFTER-UPLOAD-UNNAMED: the peer's answer after an
//! upload, its wait and share said (verdict/diagnosis/upload_answer.rs; docs/ANALYSIS.md
//! "The answer after an upload").

use crate::common;
use tcpscope_core::synth::*;

const SAID: &str = "after acknowledging the upload's last byte";

/// A client's 40 × 1460-byte upload from 2 ms on, one segment every 100 µs (last at
/// 5.9 ms), the server acknowledging every second one 50 µs later (the last ACK, of all
/// 58,400 bytes, at 5.95 ms); then the server's answer of `answer` bytes at
/// 5.95 ms + `wait_us` (none for 0) and the client's ACK of it 50 µs later.
fn upload(answer: u32, wait_us: i64) -> Flow {
    let mut f = Flow::new("10.9.0.1:40000", "10.9.0.2:80");
    f.handshake(0, 1_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    for i in 0..40 {
        f.data(C2S, 2_000 + i * 100, 1460);
        if i % 2 == 1 {
            f.push(S2C, 2_050 + i * 100);
        }
    }
    if answer > 0 {
        f.data(S2C, 5_950 + wait_us, answer);
        f.push(C2S, 6_000 + wait_us);
    }
    f
}

fn text(c: &tcpscope_core::analysis::ConnectionSummary) -> String {
    c.diagnosis.text.clone()
}

#[test]
fn an_answer_half_a_second_after_the_upload_was_acknowledged_is_said_with_its_share() {
    // Frames: 1–3 handshake, then data/ACK pairs: the 40th data segment is frame 62 and
    // the server's ACK of all 58,400 bytes frame 63 (5.950 ms); the answer frame 64 at
    // 505.950 ms: 500 ms of the 505.95 ms from the SYN = 98.8 % → "99 %". The upload's
    // own time runs from its first data (2 ms) to that ACK: 3.95 ms ("4 ms", two digits). 300 B < 58,400 B, so the client's direction is the data's.
    let c = common::analyze_flow(&upload(300, 500_000));
    let t = text(&c);
    assert!(
        t.contains(
            "10.9.0.2:80 answered 500 ms after acknowledging the upload's last byte (frame 63 at 0.006 s → frame 64 at 0.506 s), \
             99 % of the 506 ms exchange and longer than the 57 KiB upload itself took (4 ms), the peer's own time to answer \
             (its application's, or a server's behind a proxy that acknowledged for it): the wait for the answer, not the upload, took the time."
        ),
        "{t}"
    );
}

#[test]
fn an_upload_answered_only_by_acks_or_at_once_says_no_answer() {
    // No answer at all (the ACK of everything is the server's last word): no answer to time.
    assert!(!text(&common::analyze_flow(&upload(0, 0))).contains(SAID));
    // An answer 5 ms after the ACK: below the floor (four 1-ms path RTTs is 4 ms, the
    // floor's 10 ms is more), the server's ordinary turn.
    assert!(!text(&common::analyze_flow(&upload(300, 5_000))).contains(SAID));
    // An answer 3 ms after: shorter than the upload's 3.95 ms as well.
    assert!(!text(&common::analyze_flow(&upload(300, 3_000))).contains(SAID));
}

#[test]
fn a_clients_next_request_after_a_download_is_no_answer() {
    // The mirror: the server (which did not open the connection) sends 40 segments and
    // the client's next 300-byte request comes 500 ms after its last ACK: a request, not
    // an answer to the server's data (the SYN's sender asks, RFC 9293 §3.5).
    let mut f = Flow::new("10.9.0.1:40000", "10.9.0.2:80");
    f.handshake(0, 1_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    f.data(C2S, 1_500, 300);
    for i in 0..40 {
        f.data(S2C, 2_000 + i * 100, 1460);
        if i % 2 == 1 {
            f.push(C2S, 2_050 + i * 100);
        }
    }
    f.data(C2S, 505_950, 300);
    f.push(S2C, 506_000);
    assert!(!text(&common::analyze_flow(&f)).contains(SAID));
}

#[test]
fn shmosh_post_through_a_proxy_names_the_servers_284_s() {
    // Shmosh001 CSC3002F-Assignment-4 TCP.pcapng connection 0 (review AD #12): tshark
    // shows frame 312 (0.344115 s) ACK 302941 = the POST's last byte, frame 323
    // (3.186793 s) "HTTP/1.1 200" of 780 B: 2.842678 s → "2.84 s"; 2.8427 / 3.1868 (from
    // the SYN at 0) = 89.2 %. The POST's last turn (after the proxy's 0-byte replies:
    // none) starts at frame 4 (0.0362 s).
    let Some(c) = common::corpus_connection("Shmosh001__CSC3002F-Assignment-4__TCP.pcapng", 0) else { return };
    let t = text(&c);
    assert!(t.contains("128.119.245.12:80 answered 2.84 s after acknowledging the upload's last byte (frame 312 at 0.344 s → frame 323 at 3.187 s), 89 % of the 3.2 s exchange"), "{t}");
}

#[test]
fn a_post_after_a_slow_handshake_says_the_share_without_took_the_time() {
    // cisco mercury unit_tests capture2.pcap connection 117: a VirtualBox client's POST
    // of 10,761 B (frames 3311–3320), the NAT's ACK of all at frame 3323
    // (305278604.448555 s), "HTTP/1.1 200 OK" at frame 3324 (305278604.911974 s): 463 ms,
    // 11.6 % of the 3.98 s since the SYN (frame 3307; the SYN was re-sent) → "12 %"; the
    // handshake took more, so no "took the time".
    let Some(c) = common::corpus_connection("cisco__mercury__unit_tests_pcaps_capture2.pcap", 117) else { return };
    let t = text(&c);
    assert!(t.contains("54.243.120.151:80 answered 463 ms after acknowledging the upload's last byte (frame 3323 at 305278604.449 s → frame 3324 at 305278604.912 s), 12 % of the 4 s exchange and longer than the 11 KiB upload itself took (3.2 ms), the peer's own time to answer (its application's, or a server's behind a proxy that acknowledged for it)."), "{t}");
}

#[test]
fn a_kerberos_kdc_answer_after_the_request_is_the_kdcs_time() {
    // zeek krb_kinit.trace (realjimmy sample-captures) connection 2: a kinit over TCP/88,
    // the client's 2,984-byte AS-REQ in 5 segments (frames 213–221), the KDC's ACK of all
    // at frame 222 (98.889886 s), its 2,621-byte answer from frame 223 (98.990583 s):
    // 100.7 ms → "101 ms"; 100.7 / 353.3 ms since the SYN (frame 210, 98.637277 s) =
    // 28.5 % → "29 %", under half: no "took the time".
    let Some(c) = common::corpus_connection("realjimmy__sample-captures__zeek-samples_krb_kinit.trace", 2) else { return };
    let t = text(&c);
    assert!(t.contains("192.168.1.32:88 answered 101 ms after acknowledging the upload's last byte (frame 222 at 98.890 s → frame 223 at 98.991 s), 29 % of the 353 ms exchange and longer than"), "{t}");
    assert!(!t.contains("not the upload, took the time"), "{t}");
}
