//! A capture that misses most of a connection's data (verdict/blind_capture.rs, issue 39
//! review Q C-BLIND-CAPTURE), and windows that cannot be judged (verdict/
//! window_unjudged.rs, C-RWND-HIDDEN). One synthetic download is cut as a capture that
//! dropped packets would cut it. `TCPSCOPE_WRITE_DIR=/tmp/x cargo test --test all
//! capture_gaps::` writes the files.
use crate::common;
use tcpscope_core::decode::tcp_flags::*;
use tcpscope_core::session::Session;
use tcpscope_core::synth::*;

/// A 100-segment download (1448 B each, 144,800 B, one every 1 ms from 30 ms), a
/// client ACK of every second segment 10 ms later, then the server's FIN and the
/// client's FIN. Handshake at 0 / 10 ms, window scale 7 both ways.
fn download() -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 10_000, Opts::new().mss(1460).wscale(7).sack_perm(), Opts::new().mss(1460).wscale(7).sack_perm());
    for k in 0..100i64 {
        f.data(S2C, 30_000 + k * 1000, 1448);
        if k % 2 == 1 {
            f.push(C2S, 40_000 + k * 1000).window(2048);
        }
    }
    f.push(S2C, 200_000).flags(FIN | ACK);
    f.push(C2S, 210_000).flags(FIN | ACK);
    f
}

/// The frames `keep(segment, index of the server's data segment)` lets through, analysed.
fn cut(name: &str, keep: impl FnMut(&Segment, Option<usize>) -> bool) -> Session {
    common::cut_flow(name, &download(), "10.0.0.2:80", keep)
}

#[test]
fn a_capture_holding_a_quarter_of_the_data_names_no_limit() {
    // Every fourth data segment kept (k = 0, 4, …, 96: 25 × 1448 = 36,200 B), every ACK
    // and the FINs kept. The sender's sequence space runs from byte 1 to the client's
    // last ACK 144,801 (k = 99, at 139 ms): 144,800 B. Missing: 24 holes of 3 segments
    // between the kept ones (104,256 B) and the 3 segments after k = 96 that the ACK
    // covers (4,344 B), 25 holes, 108,600 B = 75.0 %. (The client's ACK of the FIN,
    // 144,802, is one sequence number past the data: the FIN's, no byte.)
    let s = cut("quarter", |_, k| k.is_none_or(|k| k % 4 == 0));
    let c = &s.analysis().unwrap().connections[0];
    assert_eq!(c.diagnosis.limit, "capture-gaps");
    assert_eq!(c.diagnosis.evidence.verdict, "unknown");
    assert!(c.diagnosis.episodes.is_empty() && c.diagnosis.savings.is_empty());
    assert!(
        c.diagnosis.text.starts_with(
            "The capture holds only 35 KiB of the 141 KiB 10.0.0.2:80 sent (75.0 % never captured, in 25 holes in its \
             sequence numbers), so no limit can be judged from it: the pauses between the fragments it holds are the \
             capture's gaps, not the transfer's. 10.0.0.1:40000's acknowledgements show 141 KiB of it delivered by 0.139 s (frame "
        ),
        "{}",
        c.diagnosis.text
    );
}

#[test]
fn a_capture_missing_a_fifth_of_the_data_is_judged() {
    // One data segment in five dropped (20 % missing): below half, the limit is judged.
    let s = cut("fifth", |_, k| k.is_none_or(|k| k % 5 != 0));
    let c = &s.analysis().unwrap().connections[0];
    assert_ne!(c.diagnosis.limit, "capture-gaps");
    assert!(!c.diagnosis.text.starts_with("The capture holds only"), "{}", c.diagnosis.text);
}

#[test]
fn tls2_payload_only_with_holes_names_no_limit() {
    // PcapPlusPlus tls2.pcap connection 44, payload-only ("no pure ACK, handshake or FIN"),
    // tshark frame by frame: 185.199.111.154:443 sent relative bytes 1–652,279 (its last
    // segment, frame 5752, ends there): 652,278 B; the capture holds 9 of its segments,
    // 1396 + 51 + 66 + 534 + 344 + 354 + 200 + 945 + 46 = 3,936 B, with 5 holes
    // (1397–3789, 3906–19262, 19796–636430, 636774–649338, 649692–651088) = 648,342 B,
    // 99.4 %. The client's highest ACK, 652,233, first came in frame 5751 at 100.309 s.
    // Before: "Bytes in flight reached the receiver's 128 KiB window 97 % of the time …
    // The path (link capacity or congestion) limited this flow".
    let Some(c) = common::corpus_connection("seladb__PcapPlusPlus__Tests_ExamplesTest_pcap_examples_tls2.pcap", 44) else { return };
    assert_eq!(c.diagnosis.limit, "capture-gaps");
    assert_eq!(
        c.diagnosis.text,
        "The capture holds only 3.8 KiB of the 637 KiB 185.199.111.154:443 sent (99.4 % never captured, in 5 holes in its \
         sequence numbers) and no pure ACK (it keeps only data segments), so no limit can be judged from it: the pauses \
         between the fragments it holds are the capture's gaps, not the transfer's. 192.168.0.17:49693's acknowledgements \
         show 637 KiB of it delivered by 100.309 s (frame 5751)."
    );
    // No receive-window share without the receiver's own ACKs.
    assert_eq!(c.diagnosis.shares.receive_window, 0.0);
}

#[test]
fn b206_windows_not_judged_say_so_and_keep_the_zero_windows() {
    // Zeek 206_example_b.pcap: neither SYN (frames 1, 2) carries a window scale option;
    // the client advertised a zero window in 57 ACKs (tshark tcp.window_size == 0 and
    // not RST): frames 166–215 (0.3747–0.3799 s), reopened by 216 at 0.436 s, and
    // 1047–1096 (from 1.3495 s), reopened by 1101 at 1.363 s. The server sent past the
    // edge, so the windows are not judged. Before: "the receive window held the sender
    // 0 % of it" and "though its window scale is in the capture".
    let Some(c) = common::corpus_connection("zeek__zeek__testing_btest_Traces_http_206_example_b.pcap", 0) else { return };
    let t = &c.diagnosis.text;
    assert!(!t.contains("receive window held the sender 0 %"), "{t}");
    assert!(t.contains("though neither SYN in the capture carries the window scale option, so its windows are unscaled (RFC 7323 §2.2)"), "{t}");
    assert!(t.contains("192.168.72.14:3254 still closed its window twice: 57 zero-window advertisements (0.375–0.436 s, 1.349–1.363 s)."), "{t}");
}
