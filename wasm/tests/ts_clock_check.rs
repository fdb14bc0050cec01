//! A capture clock the hosts' own TCP timestamp clocks contradict both ways
//! (docs/ANALYSIS.md "A capture clock the hosts' clocks contradict"; review AF class
//! C-BATCHED-CAPTURE-CLOCK). Corpus only: returns early when the corpus is absent.

use crate::common;

const CLASH: &str = "Mamaril-Jeremy__CPE400-Project__clash_data.pcapng";

#[test]
fn an_rvictl_capture_of_an_iphone_is_clock_broken() {
    // Connection 23 (707 kB TLS from CloudFront over LTE): the phone's TSval moves 7 ticks
    // (its clock runs ≈ 1 ms a tick over the file) from frame 2294 to frame 2299, which
    // echoes frame 2298, stamped 989 ms after frame 2294; and 85 ticks from frame 1878
    // (echoing the SYN/ACK, frame 1875) to frame 1882, stamped 155 µs after frame 1875.
    // Before: "stalled 2 times for 2 s … waiting on ACKs" and a 35 µs path RTT.
    let Some(c) = common::corpus_connection(CLASH, 23) else { return };
    assert_eq!(c.diagnosis.limit, "clock-broken");
    let t = &c.diagnosis.text;
    assert!(t.contains("moved 7 ticks") && t.contains("frame 2294 to frame 2299") && t.contains("989 ms after frame 2294"), "{t}");
    assert!(t.contains("moved 85 ticks") && t.contains("155 µs after frame 1875"), "{t}");
    // Connection 4 (the game's own connection): the phone's 1 s "Nagle hold" likewise.
    let Some(c) = common::corpus_connection(CLASH, 4) else { return };
    assert_eq!(c.diagnosis.limit, "clock-broken");
}

#[test]
fn other_rvictl_captures_of_iphones_are_clock_broken() {
    // Carperis WebRTC_Testbench, an iPhone captured with rvictl (interface rvi0), Messenger
    // over IPv6 to Facebook, connection 4: the phone's TSval moves 17 ticks from frame 451
    // to frame 456 (which echoes frame 452) and the server's 16 (frames 449 → 452), yet the
    // capture stamps frame 452 998 ms after frame 451; frames 315–372 lie within 1 ms of
    // capture while the phone's clock moves 462 ticks and the server's 475. Before: "The
    // sending application limited this flow … idle gaps totalling 53 s", its rates and
    // round trips read from the batched clock.
    let Some(c) = common::corpus_connection("Carperis__WebRTC_Testbench__test cases_messenger_case 8_packets_caller.pcapng", 4) else { return };
    assert_eq!(c.diagnosis.limit, "clock-broken");
    let t = &c.diagnosis.text;
    assert!(t.contains("moved 17 ticks") && t.contains("998 ms after frame 451") && t.contains("963 µs after frame 316"), "{t}");
    // The same testbench's Discord call (connection 4, IPv4 to Cloudflare): 91 ticks
    // against 997 ms of capture (frames 247 → 251 → 254).
    let Some(c) = common::corpus_connection("Carperis__WebRTC_Testbench__test cases_caller_iphone_app_discord_66.22.212.134.pcapng", 4) else { return };
    assert_eq!(c.diagnosis.limit, "clock-broken");
    assert!(c.diagnosis.text.contains("moved 91 ticks") && c.diagnosis.text.contains("997 ms after frame 247"), "{}", c.diagnosis.text);
}

const CASE7: &str = "Carperis__WebRTC_Testbench__test cases_messenger_case 7_packets_caller.pcapng";

#[test]
fn ts_clock_per_interface() {
    // One interface (rvi0), one clock (docs/ANALYSIS.md "A broken capture clock", per
    // interface): connections 10, 11 and 39 prove it batched by their hosts' TCP
    // timestamps; connection 37 (Apple push, 17.57.144.55:5223) gives no pair of each
    // kind itself and read "1 s waiting on ACKs … about 15 ms instead of 1 s" over gaps
    // its sender's clock moved 24–37 ms (review AI W4, "Noticed").
    let Some(bytes) = common::corpus(CASE7) else { return };
    let s = tcpscope_core::session::analyze_bytes(&bytes, tcpscope_core::analysis::AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    let c = |i: usize| &a.connections[i];
    assert_eq!(c(37).diagnosis.limit, "clock-broken");
    assert!(c(37).diagnosis.text.contains("on connection 10 of the same capture interface"), "{}", c(37).diagnosis.text);
    // Connection 10 keeps its own proof (its frames).
    assert!(c(10).diagnosis.text.contains("10.239.204.154:50384's own TCP timestamp clock"), "{}", c(10).diagnosis.text);
    // Verdicts read from which packets exist stand: SYNs never answered, one direction.
    assert_eq!((c(24).diagnosis.limit.as_str(), c(0).diagnosis.limit.as_str()), ("not-established", "one-direction"));
    // 46 connections: 11 such (0, 24, 25, 28–35), 35 told; the proof once, connection 10
    // having the largest ratio: its TSval moved 31 ticks while the capture put 1 s between
    // frames 4024 and 4027, and 757 ticks over 2.4 ms (frames 4042 → 4101).
    let told = a.connections.iter().filter(|c| c.diagnosis.limit == "clock-broken").count();
    assert_eq!(told, 35);
    let w = a.warnings.iter().find(|w| w.kind == "batched-clock").expect("batched-clock warning");
    let m = &w.message;
    assert!(m.contains("on connection 10 (the same on connections 11, 39)") && m.contains("moved 31 ticks") && m.contains("frame 4024 to frame 4028"), "{m}");
    assert!(m.contains("757 ticks") && m.contains("The gaps, stalls, rates and round trips of the 35 connections captured on it are not judged"), "{m}");
    // No re-send of a clock-broken connection is a back-to-back copy (loss/back_to_back.rs):
    // connection 10 frames 643/644 are 24 µs apart by the capture, 63 ticks by the sender.
    for i in [10, 37] {
        assert_eq!([0, 1].map(|d| c(i).directions[d].back_to_back_duplicates), [0, 0], "connection {i}");
    }
}

#[test]
fn back_to_back_copies_without_timestamps_stay() {
    // MuhammadRamadhanil TCP.pcapng connection 16: Dropbox's frames 371/372, seq 572, 46 B
    // twice, 377 µs apart, IP IDs 0xb2dd/0xb2de, no TS option, no ACK between: a copy, as
    // before (review AI row 33). Its capture has no clock proof: nothing else changes.
    let Some(c) = common::corpus_connection("MuhammadRamadhanil__tugas-wireshark-muhammad-ramadhanil__TCP.pcapng", 16) else { return };
    assert_eq!(c.directions[1].back_to_back_duplicates, 1);
    assert_ne!(c.diagnosis.limit, "clock-broken");
}
