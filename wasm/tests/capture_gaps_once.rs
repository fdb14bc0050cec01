//! The capture's missing bytes, counted once and only where the capture proves them
//! (issue 39, closing34 "Still open" item 5): another incarnation's segments set aside
//! (track/incarnation.rs), an ACK past any window no evidence (loss/capture_loss.rs
//! `acks_unsent`), and one count of a side's missing bytes that the capture-loss numbers
//! and the capture-gaps sentence share (capture_loss.rs `Missed`).
//! `TCPSCOPE_DUMP=/tmp/x cargo test --test all capture_gaps_once::` writes the synthetic files.
use crate::common;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::tcp_flags::*;
use tcpscope_core::session::{analyze_bytes, Session};
use tcpscope_core::synth::*;

fn analyse(f: &Flow) -> Session {
    let mut frames = f.frames();
    frames.sort_by_key(|fr| fr.ts_ns);
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    if let Some(dir) = std::env::var_os("TCPSCOPE_DUMP") {
        let name = std::thread::current().name().unwrap_or("capture").replace("::", "_");
        let _ = std::fs::write(std::path::Path::new(&dir).join(format!("{name}.pcap")), &bytes);
    }
    analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20)
}

/// A 100-B request at `t` µs and a 10 × 1448-B answer 20 ms later, the client ACKing
/// every second segment, then FINs.
fn exchange(f: &mut Flow, t: i64) {
    f.data(C2S, t, 100);
    for k in 0..10i64 {
        f.data(S2C, t + 20_000 + k * 100, 1448);
        if k % 2 == 1 {
            f.push(C2S, t + 20_040 + k * 100);
        }
    }
    f.push(S2C, t + 30_000).flags(FIN | ACK);
    f.push(C2S, t + 30_100).flags(FIN | ACK);
}

#[test]
fn an_earlier_incarnations_ack_and_the_reset_it_draws_are_set_aside() {
    // RFC 9293 §3.10.7.3: the client's SYN (ISN 1000, window scale 7) is answered by a
    // server still holding an older connection of the same ports with an ACK in that
    // connection's numbers (seq 3,000,000,000, ack 1,500,001,001: 1,500,000,000 past
    // ISN + 1, far beyond the 65,535 << 7 = 8,388,480 B the client could offer); the
    // client resets it <SEQ=SEG.ACK> and re-sends its SYN (same ISN) 3 s later, which
    // opens the connection. Before: the ACK read as 1.4 GiB delivered unseen (a
    // capture-gaps verdict), the reset as a retransmission of the client's.
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    let opts = || Opts::new().mss(1460).wscale(7).sack_perm();
    f.push(C2S, 0).flags(SYN).ack(0).opts(opts());
    f.push(S2C, 20_000).seq(3_000_000_000).ack(1_500_001_001);
    f.push(C2S, 20_100).flags(RST).seq(1_500_001_001).ack(0);
    let _ = f.segments_mut(); // settle the reset's number, then restore the real next ones
    f.isn(1000, 5000);
    f.push(C2S, 3_000_000).flags(SYN).ack(0).opts(opts());
    f.push(S2C, 3_020_000).flags(SYN | ACK).opts(opts());
    f.push(C2S, 3_020_000);
    exchange(&mut f, 3_020_100);
    let s = analyse(&f);
    let a = s.analysis().unwrap();
    assert_eq!(a.connections.len(), 1, "the re-sent SYN has the same ISN: one connection");
    let c = &a.connections[0];
    assert_eq!((c.capture_loss.unseen_bytes, c.capture_loss.holes), (0, 0));
    assert_ne!(c.diagnosis.limit, "capture-gaps", "{}", c.diagnosis.text);
    // The client re-sent its SYN once (a retransmission); its reset is no re-send and
    // the server's old sequence number opens no hole before its SYN/ACK.
    assert_eq!((c.directions[0].retransmissions, c.directions[1].lost_segments), (1, 0));
    // The set-aside segments are not the connection's packets (the warning counts them,
    // not analysed; tshark's conversation table holds one more each way): client SYN,
    // SYN, ACK, request, 5 ACKs, FIN = 10; server SYN/ACK, 10 data, FIN = 12.
    assert_eq!((c.directions[0].packets, c.directions[1].packets), (10, 12));
    assert!(!c.diagnosis.text.contains("reset"), "the reset ended nothing of this connection: {}", c.diagnosis.text);
    let w = a.warnings.iter().find(|w| w.kind == "other-incarnation").expect("warning");
    assert_eq!(w.count, 2);
    assert!(w.message.starts_with("Not analysed: 2 TCP segments (frames 2, 3) on 1 connection belong to an earlier use"), "{}", w.message);
}

#[test]
fn an_ack_just_past_the_isn_is_data_the_capture_missed_not_another_incarnation() {
    // The same opening, but the server's ACK acknowledges 1,448 B past ISN + 1 (a
    // SYN/ACK and a request the capture missed): within the client's window, so it
    // stays in the connection and is counted as 1,448 B never captured, 1 hole.
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new().mss(1460).wscale(7));
    f.push(S2C, 20_000).seq(5001).ack(1001 + 1448);
    let s = analyse(&f);
    let a = s.analysis().unwrap();
    assert!(a.warnings.iter().all(|w| w.kind != "other-incarnation"));
    assert_eq!((a.connections[0].capture_loss.unseen_bytes, a.connections[0].capture_loss.holes), (1448, 1));
}

#[test]
fn an_ack_past_any_window_the_peer_could_fill_is_no_capture_loss() {
    // No window scaling (neither SYN offers it): the client can offer at most 65,535 B,
    // so the server cannot have sent more than that past what the capture saw of it.
    // The handshake's ACK acknowledges 436,207,616 B past the SYN/ACK (nDPI
    // fuzz-2006-09-29-28586 connection 4's fuzzed number): RFC 9293 §3.10.7.4 "ACK of
    // something not yet sent", no evidence of unseen data. Before: "416 MiB" of capture
    // loss. The later answer and its ACKs are whole: nothing missing.
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new().mss(1460));
    f.push(S2C, 300).flags(SYN | ACK).opts(Opts::new().mss(1460));
    f.push(C2S, 320).ack(5001 + 436_207_616);
    exchange(&mut f, 2_000);
    let c = analyse(&f).analysis().unwrap().connections[0].clone();
    assert_eq!((c.capture_loss.unseen_bytes, c.capture_loss.holes), (0, 0), "{}", c.diagnosis.text);
    // 65,535 B past it is still possible, and counted (a window the capture missed).
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new().mss(1460));
    f.push(S2C, 300).flags(SYN | ACK).opts(Opts::new().mss(1460));
    f.push(C2S, 320).ack(5001 + 65_535);
    let c = analyse(&f).analysis().unwrap().connections[0].clone();
    assert_eq!((c.capture_loss.unseen_bytes, c.capture_loss.holes), (65_535, 1));
}

#[test]
fn the_capture_gaps_sentence_and_the_capture_loss_count_say_the_same_hole() {
    // The server's 40 × 1448-B answer with only its first and last segment captured
    // (k = 0 and 39), every client ACK captured. The ACKs pass bytes beyond the captured
    // data (one run counted), then segment 39 arrives right after that run: the same
    // run, 1 hole, 38 × 1448 = 55,024 B, in both the capture-loss count (before: 2
    // holes) and the sentence. Sent 40 × 1448 = 57,920 B, 2,896 B captured: 95.0 %.
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 10_000, Opts::new().mss(1460).wscale(7).sack_perm(), Opts::new().mss(1460).wscale(7).sack_perm());
    f.data(C2S, 10_100, 100);
    for k in 0..40i64 {
        f.data(S2C, 30_000 + k * 100, 1448);
        if k % 2 == 1 {
            f.push(C2S, 30_040 + k * 100);
        }
    }
    let s = common::cut_flow("once", &f, "10.0.0.2:80", |_, k| k.is_none_or(|k| k == 0 || k == 39));
    let c = &s.analysis().unwrap().connections[0];
    assert_eq!((c.capture_loss.unseen_bytes, c.capture_loss.holes), (55_024, 1));
    assert_eq!(c.diagnosis.limit, "capture-gaps");
    assert!(
        c.diagnosis.text.starts_with("The capture holds only 2.8 KiB of the 57 KiB 10.0.0.2:80 sent (95.0 % never captured, in 1 hole in its sequence numbers)"),
        "{}",
        c.diagnosis.text
    );
}

const SUBJECTALTNAME: &str = "OISF__suricata-verify__tests_tls_tls-subjectaltname_input.pcap";

#[test]
fn suricata_subjectaltname_earlier_incarnations_are_no_capture_gaps() {
    // Connection 7 (192.168.100.206:59819 → 93.184.221.240:80), tshark: frame 152 SYN
    // (ISN 4287462971), 154 the server's ACK seq 4080053130 ack 2086663738 (2,094,168,063
    // past the ISN), 155 the client's RST seq 2086663738, 157 the SYN again (same ISN),
    // 158 the SYN/ACK (ISN 155123798). Before: "The capture holds only 195 B of the 2 GiB
    // … sent", captureLoss 2,464,206,026 B (the 2 GiB plus the server's 370,037,964-B
    // jump from 4080053130 to its ISN), 2 client retransmissions. After: the 60 KiB
    // answer, whole (tshark: 61,345 B, no frame missing), nothing unseen.
    let Some(bytes) = common::corpus(SUBJECTALTNAME) else { return };
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().unwrap();
    let c = a.connections.iter().find(|c| c.id == 7).unwrap();
    assert_eq!((c.capture_loss.unseen_bytes, c.capture_loss.holes), (0, 0));
    assert_ne!(c.diagnosis.limit, "capture-gaps", "{}", c.diagnosis.text);
    // tshark's conv,tcp: 31 / 56 frames, less frame 155 (the client's RST) and 154.
    assert_eq!((c.directions[0].packets, c.directions[1].packets), (30, 55));
    assert_eq!((c.directions[0].retransmissions, c.directions[1].lost_segments), (1, 0));
    // Connection 8 (59949): frames 250/251 the same exchange; 931 MiB before.
    let c8 = a.connections.iter().find(|c| c.id == 8).unwrap();
    assert_eq!((c8.capture_loss.unseen_bytes, c8.diagnosis.limit.as_str()), (0, "too-short"));
    // 18 such segments in 11 connections (frames 12–15, 45, 47, … 154, 155, 250, 251).
    let w = a.warnings.iter().find(|w| w.kind == "other-incarnation").unwrap();
    assert_eq!(w.count, 18);
    assert!(a.warnings.iter().all(|w| w.kind != "capture-loss"), "no capture loss left: {:?}", a.warnings.iter().map(|w| &w.message).collect::<Vec<_>>());
}

#[test]
fn ndpi_fuzz_2006_handshake_ack_is_no_capture_loss() {
    // Connection 4, tshark: frame 18, the handshake ACK, acks 4266498575, 436,207,617
    // past the SYN/ACK's ISN 3830290958; neither SYN offers window scaling. Before:
    // 436,207,616 B ("416 MiB") of capture loss. After: 658 B in 1 hole: the 657 B the
    // client's ACKs 23, 25 and 28 (acks 3830291048, …189, …616) acknowledge of the
    // server's answer, whose frames (22, 24, 26, 27) the fuzzer moved to other
    // addresses, and 1 more acknowledged by frame 32 (ack …617) past the server's FIN
    // (frame 31, fuzzed seq …490): the run continues to it.
    let Some(c) = common::corpus_connection("ntop__nDPI__tests_cfgs_default_pcap_fuzz-2006-09-29-28586.pcap", 4) else { return };
    assert_eq!((c.capture_loss.unseen_bytes, c.capture_loss.holes), (658, 1));
}

#[test]
fn no_hole_ends_at_a_syn() {
    // A reset and a FIN "from the server" at seq 0 (an injector's, RFC 9293 §3.10.7.3:
    // a reset with an acceptable ACK in SYN-SENT), then the real SYN/ACK at ISN 59,247:
    // the SYN's number is the connection's first (§3.4), so the 59,246 numbers between
    // are no data of it and the client's ACK of the SYN/ACK acknowledges nothing unseen.
    // Before: 59,246 B "missed" in 1 hole (suricata bug-3286-03, below).
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.isn(1000, 0);
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new().mss(1460));
    f.push(S2C, 26_000).flags(RST | ACK);
    f.push(S2C, 27_000).flags(FIN | ACK);
    f.push(S2C, 28_000).flags(SYN | ACK).seq(59_247).opts(Opts::new().mss(1460));
    f.push(C2S, 29_000);
    f.data(C2S, 29_100, 343);
    f.data(S2C, 99_000, 79);
    f.push(C2S, 158_000);
    let c = analyse(&f).analysis().unwrap().connections[0].clone();
    assert_eq!((c.capture_loss.unseen_bytes, c.capture_loss.holes), (0, 0), "{}", c.diagnosis.text);
    let Some(c) = common::corpus_connection("OISF__suricata-verify__tests_bug-3286-03-windows-evasion_with_evasion_windows.pcap", 0) else { return };
    assert_eq!((c.capture_loss.unseen_bytes, c.diagnosis.limit.as_str()), (0, "too-short"));
}

#[test]
fn suricata_bug_5437_old_fins_leave_the_syns_unanswered() {
    // bug-5437-02 connection 7 (41.108.52.138:54530 → 196.25.212.207:80), tshark: 5 SYNs,
    // ISN 3524690798 (frames 30, 34, 36, 38, 40; 0.475–15.501 s), no SYN/ACK; frames 57
    // and 59 (66.4 s, 116.4 s) are the server's FINs of the earlier connection of these
    // ports (seq 232739073, ack 2438278675: that connection's numbers, ISN 2438278673;
    // 1,086,412,124 from the new ISN + 1). Set aside, they leave the SYNs unanswered
    // (before they counted as the server's packets; without them in the connection, as
    // first written here, the text read "Still open when the capture ended").
    let Some(c) = common::corpus_connection("OISF__suricata-verify__tests_bug-5437-02_input.pcap", 7) else { return };
    assert_eq!((c.diagnosis.limit.as_str(), c.directions[0].packets + c.directions[1].packets), ("not-established", 5));
    assert!(c.diagnosis.text.starts_with("The connection was never established: 41.108.52.138:54530 sent 5 SYNs"), "{}", c.diagnosis.text);
}
