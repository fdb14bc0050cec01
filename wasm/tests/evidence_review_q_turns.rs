//! Issue 39, reviews P and Q: C-BURST-UNEXPLAINED (turns), the bulk line on loopback,
//! one burst given two bounds, the tail's longest pause, and a server's wait behind a
//! control frame.
//!
//! - Turns (markofu `jackcr-challenge.pcap` #2): inside each bulk burst a RAT server
//!   sent ~5 KB per 28-byte request of the client, each only once its last chunk was
//!   acknowledged, ~10 ms a chunk; the text said "the application's pauses came between
//!   these bursts, not inside them … which no readier application would shorten".
//!   Rule: diagnosis_episodes/chunk_turns.rs (docs/ANALYSIS.md "Turns inside bulk
//!   bursts").
//! - Bulk line (cisco mercury `redis.pcap`): a 218 KiB reply of a loopback connection
//!   (MSS 65,495) sat under "10 full segments" (640 KiB) and vanished behind "each burst
//!   was a message (median 11 B)". Rule: RFC 6928's initial window in bytes (savings.rs
//!   `bulk_line`).
//! - Two bounds (realjimmy `EmergeSync.cap` #1): "3.2 MiB … from 4.052 s" and "3.1 MiB
//!   … during 4.794 s–20.374 s" for one transfer (chunk_turns.rs `main_chunk`).
//! - The tail (ctfs haxdump `newtoy.pcap` #35, review P `hack` #2, jackcr #2):
//!   transfer_tail.rs names the tail's longest pause and reads who ended it.
//! - The answer's wait (nDPI `443-firefox.pcap` #0): first_answer.rs
//!   `answer_wait_sentence`.

use crate::common;

use tcpscope_core::decode::tcp_flags::{ACK, RST};
use tcpscope_core::synth::*;

const JACKCR: &str = "markofu__pcaps__jackcr_jackcr-challenge.pcap";
const REDIS: &str = "cisco__mercury__unit_tests_pcaps_redis.pcap";
const HACK: &str = "ntop__nDPI__tests_cfgs_default_pcap_heuristic_tcp_ack_payload.pcap";
const EMERGE: &str = "realjimmy__sample-captures__wireshark-samples_files_general-unsorted_EmergeSync.cap";
const NEWTOY: &str = "ctfs__write-ups-2015__haxdump-ctf-2015_forensics_newtoy_newtoy.pcap";
const FFX: &str = "ntop__nDPI__tests_cfgs_default_pcap_443-firefox.pcap";

/// jackcr's shape on a 1 ms path: three sessions 10 s apart, each opened by the
/// client's 24-byte command, then 10 chunks of 4,880 B (3 × 1,460 + 500, 100 µs
/// apart), 5 ms after the client's request: the client ACKs each chunk 1 ms after its
/// last segment and sends its next 28-byte request 3.5 ms after it, so the next chunk
/// starts 8.5 ms after the last one ended.
fn chunk_server() -> Flow {
    let mut f = Flow::new("10.0.0.1:1099", "10.0.0.2:80");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for s in 0..3 {
        let mut t = 1_000_000 + 10_000_000 * s;
        f.data(C2S, t, 24);
        t += 5_000;
        for c in 0..10 {
            if c > 0 {
                f.data(C2S, t - 5_000, 28);
            }
            for k in 0..4 {
                f.data(S2C, t + 100 * k, if k < 3 { 1460 } else { 500 });
            }
            f.push(C2S, t + 300 + 1_000);
            t += 300 + 8_500;
        }
    }
    f
}

#[test]
fn chunks_released_by_requests_are_turns_inside_the_bursts() {
    // 3 bursts of 48,800 B (bulk: over 14,600 B), each 10 chunks, the first of each no
    // turn (it answers the command after the 10 s pause): 27 turns. A chunk's first
    // segment to the next's: 300 µs + 8.5 ms = 8.8 ms; 8 × 4,880 / 0.0088 = 4.44 Mbit/s.
    // Each turn waited 8.5 ms (last segment → next chunk): 27 × 8.5 = 229.5 ms ("229 ms": 229.49… in binary), of which
    // 27 path round trips of 1 ms (the handshake's, and every ACK's) = 27 ms.
    let c = common::analyze_flow(&chunk_server());
    let t = &c.diagnosis.text;
    assert!(
        t.contains(
            "The application's pauses came between these bursts: the exchange's own pace. Inside them the sender sent its data \
             in chunks, each only once a small request of the peer had come with everything acknowledged: 27 turns, a median \
             4.8 KiB per 28 B request, one every 8.8 ms (4.4 Mbit/s), so the chunk size, not the network, set these bursts' \
             pace. The sender waited 229 ms between chunks in all, 27 ms of it the path's round trips (one of 1 ms a turn) and \
             the rest the two applications' time: fewer, larger chunks would save up to that."
        ),
        "{t}"
    );
    assert!(!t.contains("no readier application would shorten"), "{t}");
    // The same chunks sent back to back, no request between (one write per session):
    // no turns, and the pauses between bursts are the exchange's own pace as before.
    let mut f = Flow::new("10.0.0.1:1099", "10.0.0.2:80");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for s in 0..3 {
        let t = 1_000_000 + 10_000_000 * s;
        f.data(C2S, t, 24);
        for k in 0..40 {
            f.data(S2C, t + 5_000 + 100 * k, if k % 4 < 3 { 1460 } else { 500 });
            if k % 2 == 1 {
                f.push(C2S, t + 6_000 + 100 * k);
            }
        }
    }
    let t = common::analyze_flow(&f).diagnosis.text;
    assert!(!t.contains("Inside them"), "{t}");
}

#[test]
fn chunk_turns_on_the_public_capture() {
    // Connection 2 (58.64.132.141:80 → 172.16.150.20:1099). tshark, the server's data
    // split at each client data segment: 177 chunks, median 4,677 B; 160 of the client's
    // data segments are 28 B; the waits under 50 ms (169 of them) have a median of 8.8 ms
    // and total 1.67 s — the tool counts the 130 inside the bulk bursts (1.1 s).
    let Some(c) = common::corpus_connection(JACKCR, 2) else { return };
    let t = &c.diagnosis.text;
    assert!(t.contains("130 turns, a median 4.6 KiB per 28 B request, one every 9 ms (4.2 Mbit/s)"), "{t}");
    assert!(!t.contains("no readier application would shorten"), "{t}");
    // The tail: the client's 83 B (frame 1114, 301.539 s), then nothing until the
    // server's reset (frame 1116, 306.561 s): 5 s, not the 15 ms turn before it.
    assert!(t.contains("the connection then idled 15 ms before the sender sent again, and only 40 B followed over the next 5 s; its longest pause, 5 s from 301.539 s, ended with the reset, no data after it"), "{t}");
}

#[test]
fn a_loopback_reply_over_an_initial_window_is_bulk() {
    // redis's shape on loopback (MSS 65,495 both ways, no timestamps: a full segment of
    // 65,455 B): a 27-byte command, a 223,614-byte reply (six 32,768-byte writes, 16,326
    // and 10,008) within 2 ms, then four commands seconds apart answered by 64, 5, 5 and
    // 11 B. RFC 6928: IW = min(10 × 65,455, max(2 × 65,455, 14,600)) = 130,910 B; the reply
    // is over it: bulk, though 3.4 of its 64 KiB segments (before: under 10 segments, so
    // "each burst was a message (median 11 B)").
    let mut f = Flow::new("127.0.0.1:49312", "127.0.0.1:6379");
    f.handshake(0, 20, Opts::new().mss(65495).wscale(7), Opts::new().mss(65495).wscale(7));
    f.data(C2S, 71, 27);
    let mut t = 742;
    for len in [32768, 32768, 16326, 32768, 32768, 32768, 32768, 10008] {
        f.data(S2C, t, len);
        f.push(C2S, t + 10);
        t += 230;
    }
    for (k, len) in [64u32, 5, 5, 11].into_iter().enumerate() {
        let at = 6_955_466 + 3_000_000 * k as i64;
        f.data(C2S, at, 40);
        f.data(S2C, at + 160, len);
        f.push(C2S, at + 200);
    }
    let t = common::analyze_flow(&f).diagnosis.text;
    assert!(
        t.contains("Over 99 % of the bytes moved in 1 burst of at least an initial window (218 KiB, from 0.001 s to 0.002 s; RFC 6928 caps an initial window at 128 KiB for 64 KiB segments)"),
        "{t}"
    );
}

#[test]
fn the_loopback_reply_on_the_public_capture() {
    // tshark: frames 6–18 from 127.0.0.1:6379, 223,614 B at 0.000742–0.002574 s.
    let Some(c) = common::corpus_connection(REDIS, 0) else { return };
    let t = &c.diagnosis.text;
    assert!(t.contains("Over 99 % of the bytes moved in 1 burst of at least an initial window (218 KiB, from 0.001 s to 0.003 s;"), "{t}");
}

#[test]
fn one_transfer_has_one_pair_of_bounds() {
    // Connection 1 (rsync server 134.68.220.74:873): its 12-, 4- and 4-byte messages at
    // 4.052, 4.451 and 4.794 s answered the client's (frames 24–28), then the 3.1 MiB
    // file from frame 30 at 4.802 s (its 4-byte header, frame 29, at 4.794 s) to 20.374 s.
    let Some(c) = common::corpus_connection(EMERGE, 1) else { return };
    let t = &c.diagnosis.text;
    assert!(t.contains("(the largest 3.1 MiB, 2280 segments of 1.4 KiB, from 4.794 s to 20.374 s)"), "{t}");
    assert!(t.contains("During 4.794 s–20.374 s one burst moved 3.1 MiB"), "{t}");
    assert!(!t.contains("from 4.052 s"), "{t}");
}

/// A 100-segment response (to 24.8 ms, frame 153, as evidence_review_p_tail.rs), then
/// 36 ms later 694 B more of the server's own (no request), then 58 s later the client's
/// 41-byte message and the server's 700-byte answer 11 ms after it.
fn longest_later() -> Flow {
    let mut f = Flow::new("10.0.0.1:49457", "10.0.0.2:443");
    f.handshake(0, 2_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 3_000, 200);
    let t = common::response(&mut f, 5_000, 100);
    f.data(S2C, t + 36_000, 694);
    f.push(C2S, t + 36_050);
    f.data(C2S, t + 36_000 + 58_000_000, 41);
    f.data(S2C, t + 36_000 + 58_011_000, 700);
    f.push(C2S, t + 36_000 + 58_011_050);
    f
}

#[test]
fn the_tail_names_its_longest_pause() {
    // The first pause after the transfer, 36 ms, ended with the server's own 694 B; the
    // next, 58.011 s from 60.8 ms, with the client's message 11 ms before the server's
    // answer (in its second half). Before: "idled 36 ms before the sender sent again, and
    // only 1.4 KiB followed over the next 58 s", the 58 s unnamed.
    let c = common::analyze_flow(&longest_later());
    let te = c.diagnosis.transfer_end.expect("a transfer end");
    assert!((te.idle_seconds - 0.036).abs() < 1e-9, "{te:?}");
    let t = &c.diagnosis.text;
    assert!(
        t.contains("the connection then idled 36 ms before the sender sent again, and only 1.4 KiB followed over the next 58 s; its longest pause, 58 s from 0.061 s, ended when the sender answered a message of the peer:"),
        "{t}"
    );
    // The connection then reset 5 s after its last data: that silence is the longest.
    let mut f = longest_later();
    f.push(S2C, 36_000 + 58_011_000 + 24_800 + 5_000_000).flags(RST | ACK);
    let t = common::analyze_flow(&f).diagnosis.text;
    assert!(t.contains("its longest pause, 58 s from 0.061 s"), "{t}");
}

#[test]
fn the_tail_on_the_public_captures() {
    // newtoy #35 (198.41.214.183:443): the transfer ends at frame 1856 (87.179 s); the
    // server's 694 B (frame 1917) 36 ms later; then nothing until the client's 41 B
    // (frame 6690, 145.220 s) and the server's answer: 58 s.
    if let Some(c) = common::corpus_connection(NEWTOY, 35) {
        let t = &c.diagnosis.text;
        assert!(t.contains("the connection then idled 36 ms before the sender sent again, and only 735 B followed over the next 58 s; its longest pause, 58 s from 87.215 s, ended when the sender answered a message of the peer"), "{t}");
    }
    // hack #2 (review P): the 58 s pause from frame 142 (409428.955 s) ended with the
    // client's 46-byte record (frame 146, 409487.206 s), 24 ms before the server's answer
    // (frames 147–148); the client's earlier record (frame 144) came at its start.
    if let Some(c) = common::corpus_connection(HACK, 2) {
        let t = &c.diagnosis.text;
        assert!(t.contains("the connection then idled 58 s until the sender answered a message of the peer, and only 92 B followed over the next 116 s"), "{t}");
    }
    // ffx #0: after 2.586 s, 0.44, 1.23 s, then 4.0 s from the server's 83 B (frame 655,
    // 4.391 s) to the client's 38 B (frame 657, 8.399 s).
    if let Some(c) = common::corpus_connection(FFX, 0) {
        let t = &c.diagnosis.text;
        assert!(t.contains("the connection then idled 435 ms until the sender answered a message of the peer, and only 528 B followed over the next 5.9 s; its longest pause, 4 s from 4.391 s, ended when the sender answered a message of the peer"), "{t}");
    }
}

#[test]
fn a_wait_behind_a_control_frame_is_the_senders() {
    // A 415-byte request at 10 ms (frame 4) on a 40 ms path, the server's 30-byte
    // control frame 47 ms later (frame 5), then its answer from 1.710 s: 100 segments of
    // 1,460 B 200 µs apart (to 1.7298 s; frame 7, after the client's ACK of the 30 B). The wait, 1.710 − 0.010 = 1.70 s, is over 4
    // RTTs and the 19.8 ms the 146,000 B took; 30 B is under 1 % of them. Before: the
    // first data was the 30 B, 47 ms after the request, and nothing was said.
    let mut f = Flow::new("10.0.0.1:53096", "10.0.0.2:443");
    f.handshake(0, 40_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 10_000 + 40_000, 415);
    f.data(S2C, 57_000 + 40_000, 30);
    f.push(C2S, 57_050 + 40_000);
    common::response(&mut f, 1_710_000 + 40_000, 100);
    let t = common::analyze_flow(&f).diagnosis.text;
    assert!(
        t.contains("The answer came 1.70 s after the peer's message (frame 4 at 0.050 s → frame 7 at 1.750 s), the peer silent meanwhile, only 30 B sent before it; the 143 KiB of data then took 20 ms: the wait for the answer, not the transfer, took the time."),
        "{t}"
    );
    if let Some(c) = common::corpus_connection(FFX, 0) {
        // Request frames 16–18 (the last at 0.317569 s), the SETTINGS ack frame 20 (30 B,
        // 0.364493 s), the response from frame 22 (2.020183 s), 13 KiB in 1.3 ms up to the
        // client's next request (frame 39, 2.137436 s). The 393 KiB to 2.586368 s once said
        // answered that request and some 40 later ones of the client's (review Z class 5:
        // the answer's own bytes and time, never across later turns).
        let t = &c.diagnosis.text;
        assert!(t.contains("The answer came 1.70 s after the peer's message (frame 18 at 0.318 s → frame 22 at 2.020 s), the peer silent meanwhile, only 30 B sent before it; the 13 KiB of data then took 1.3 ms"), "{t}");
    }
}

#[test]
fn the_bulk_line_is_an_initial_window() {
    use tcpscope_core::analysis::verdict::savings::bulk_line;
    // RFC 6928 §2: IW = min(10 × MSS, max(2 × MSS, 14,600 B)). 1,460: 14,600 (10
    // segments, as before); 536 (the least segment): 5,360; a 100-byte "segment" counts
    // as 536; jumbo 8,921: max(17,842, 14,600) = 17,842; loopback 65,455: 130,910.
    assert_eq!(bulk_line(1460.0), 14_600.0);
    assert_eq!(bulk_line(536.0), 5_360.0);
    assert_eq!(bulk_line(100.0), 5_360.0);
    assert_eq!(bulk_line(8921.0), 17_842.0);
    assert_eq!(bulk_line(65_455.0), 130_910.0);
}
