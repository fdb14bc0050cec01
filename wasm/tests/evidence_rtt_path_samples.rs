//! Issue 39, "Evidence before every claim", review I classes J, E, U and K2: which round
//! trips may speak of the path.
//!
//! - J: a sample whose ACK rode on the receiver's new data times the receiver's answer (a
//!   typist's next keystroke), and one that acknowledges a lone segment within 0.5 s may
//!   time its delayed-ACK timer (RFC 1122 §4.2.3.2, RFC 9293 §3.8.6.3). Neither shows a
//!   queue: "the network is not cleared: the median RTT was … against a … minimum" needs
//!   the samples that time the path (round_trips.rs `times_path`, `rtt.pathMedianMs`),
//!   in both directions alike. The samples stay in the statistics and on the chart.
//! - U: a handshake half whose segment was sent twice, or answered after the 1 s initial
//!   RTO, is ambiguous (Karn, RFC 6298 §3 and §2.1; RFC 9293 §3.8.1) and times no path.
//! - E (loss headline's "no standing queue") is checked on the public capture; its rule's
//!   exact words are in verdict/diagnosis_tests.rs. K2 (sub-tick vantage) in vantage.rs.
//!
//! Each shape is synthesized and checked on the public capture that showed it
//! (`TCPSCOPE_CORPUS`; absent, that test says so and passes).

use crate::common;

use tcpscope_core::analysis::timing::vantage::Vantage;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::tcp_flags::{ACK, SYN};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

fn opts() -> Opts {
    Opts::new().mss(1460)
}

/// An interactive session captured at the client: handshake on a 20 ms path, then 30
/// turns. The server sends 200 bytes; 150 ms later the client's next 40-byte keystroke
/// carries the ACK of them; the server's 200-byte echo, carrying the ACK of the keystroke,
/// comes back 20 ms later. No pure ACK at all (a payload-only capture).
fn typing_session() -> Flow {
    let mut f = Flow::new("10.0.0.1:50000", "10.0.0.2:22");
    f.handshake(0, 20_000, opts(), opts());
    let mut t = 20_100;
    f.data(S2C, t, 200);
    for _ in 0..30 {
        t += 150_000;
        f.data(C2S, t, 40);
        t += 20_000;
        f.data(S2C, t, 200);
    }
    f
}

#[test]
fn acks_riding_on_the_peers_answer_show_no_queue() {
    // The data (server → client) is timed by the client's keystrokes: 150 ms each, + the
    // 20 ms far part = 170 ms round trips against a 20 ms path RTT, 8.5×. They are every
    // one the client's think time, not a queue. Only the SYN/ACK's sample (the client's
    // pure ACK, 0 + 20 ms) times the path. The keystrokes' own samples (the server's
    // echo, 20 ms) ride on data too. All stay in the statistics (median 170 ms).
    let c = common::analyze_flow(&typing_session());
    assert_eq!(c.data_direction, 1);
    let data = &c.directions[1].rtt;
    assert_eq!((data.samples, data.median_ms), (31, Some(170.0)), "{data:?}");
    assert_eq!((data.path_samples, data.path_median_ms), (1, Some(20.0)), "{data:?}");
    assert_eq!(c.directions[0].rtt.path_samples, 1, "{:?}", c.directions[0].rtt);
    let text = &c.diagnosis.text;
    assert!(!text.contains("not cleared"), "{text}");
    assert!(!text.contains("queue"), "{text}");
}

/// A 50 Hz telemetry stream captured at its receiver: handshake on a 0.8 ms path, then a
/// 54-byte report every 20 ms, each ACKed alone by the receiver 19.7 ms later (a
/// heartbeat-style delayed-ACK timer), just before the next report.
fn telemetry_stream(ack_delay_us: i64) -> Flow {
    let mut f = Flow::new("192.168.0.20:36835", "192.168.0.241:4712");
    f.handshake(0, 800, opts(), opts());
    for k in 0..100 {
        let t = 1_000 + k * 20_000;
        f.data(S2C, t, 54);
        f.push(C2S, t + ack_delay_us);
    }
    f
}

#[test]
fn a_receivers_delayed_acks_of_lone_segments_show_no_queue() {
    // 100 samples of 19.7 ms + 0.8 ms: 20.5 ms against a 0.8 ms path RTT (and the
    // SYN/ACK's, 0 + 0.8 ms, the one path sample). Each ACK covers one 54-byte segment
    // (less than two full-sized ones) and came within the 0.5 s any delayed-ACK timer may
    // hold it: the receiver's timer, not a queue.
    let c = common::analyze_flow(&telemetry_stream(19_700));
    let data = &c.directions[1].rtt;
    assert_eq!((data.samples, data.median_ms), (101, Some(20.5)), "{data:?}");
    assert_eq!((data.path_samples, data.path_median_ms), (1, Some(0.8)), "{data:?}");
    assert!(!c.diagnosis.text.contains("not cleared"), "{}", c.diagnosis.text);
    assert!(!c.diagnosis.text.contains("queue"), "{}", c.diagnosis.text);
    // The same stream ACKed at once (0.1 ms after each report): every sample is a path
    // sample (a lone segment's ACK that came at once is still marked delayable, but a
    // prompt one is no queue either way: median = minimum).
    let c = common::analyze_flow(&telemetry_stream(100));
    assert!(!c.diagnosis.text.contains("not cleared"), "{}", c.diagnosis.text);
}

/// A handshake captured at the client and nothing else: the SYN at 0 (and again at 1 s
/// when `second_syn`), the SYN/ACK at `syn_ack_at_us`, the client's ACK 100 µs later.
/// Only the handshake times the part towards the server.
fn resent_syn(second_syn: bool, syn_ack_at_us: i64) -> Flow {
    let mut f = Flow::new("11.0.0.1:60453", "11.0.0.2:5201");
    f.push(C2S, 0).flags(SYN).ack(0).opts(opts());
    if second_syn {
        // The same SYN again (the synth would number it after the first).
        f.push(C2S, 1_000_000).flags(SYN).ack(0).seq(1000).opts(opts());
    }
    f.push(S2C, syn_ack_at_us).flags(SYN | ACK).opts(opts());
    f.push(C2S, syn_ack_at_us + 100);
    f
}

#[test]
fn a_resent_or_late_syn_times_no_path() {
    // SYN twice (0 and 1 s), SYN/ACK at 2.1 s: it may answer either copy (Karn), and 1.1 s
    // from the last is past the 1 s initial RTO anyway. Only the SYN/ACK → ACK half
    // (100 µs) is measured. Before: "path RTT 1100.10 ms (… 1.1 s … (handshake))".
    let c = common::analyze_flow(&resent_syn(true, 2_100_000));
    assert_eq!(c.path_rtt_ms, Some(0.1), "{}", c.path_rtt_method);
    // A lone SYN answered after 3.1 s: the client's timer had fired (a copy the capture
    // did not see) or the SYN/ACK is a backed-off re-send: no path sample either.
    let c = common::analyze_flow(&resent_syn(false, 3_100_000));
    assert_eq!(c.path_rtt_ms, Some(0.1), "{}", c.path_rtt_method);
    // A lone SYN answered in 300 ms times the path to the server and back: kept.
    let c = common::analyze_flow(&resent_syn(false, 300_000));
    assert!(c.path_rtt_ms.is_some_and(|r| (r - 300.1).abs() < 1e-9), "{}", c.path_rtt_method);
    assert_eq!(c.path_rtt_method, "300 ms to the receiver and back (handshake) + 100 µs to the sender and back (handshake)");
}

fn corpus_conn(name: &str, i: usize) -> Option<tcpscope_core::analysis::ConnectionSummary> {
    let bytes = common::corpus(name)?;
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    Some(s.analysis().expect("analysed").connections[i].clone())
}

#[test]
fn ssh_keystrokes_on_a_public_capture_are_no_queue() {
    // FoxIO ja4 pcap_ssh.pcapng, connection 0 (client 172.16.225.48 ↔ server
    // 54.160.114.75:22), payload-only: every frame carries data. Server data is ACKed by
    // the client's next keystroke (frame 23, 0.963534 s → frame 24, 1.084487 s: 121 ms),
    // the keystrokes by the server's echo (frame 24 → frame 25: 27 ms). Before: "The
    // pauses were the application's, but the network is not cleared: the median RTT was
    // 147 ms against a 24 ms minimum, a queue on the path while it sent."
    let Some(c) = corpus_conn("FoxIO-LLC__ja4__pcap_ssh.pcapng", 0) else { return };
    let d = c.data_direction as usize;
    assert_eq!(c.directions[d].rtt.path_samples, 0, "{:?}", c.directions[d].rtt);
    assert!(!c.diagnosis.text.contains("not cleared"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("The applications' turns, not the network, set the pace."), "{}", c.diagnosis.text);
}

#[test]
fn telemetry_delayed_acks_on_a_public_capture_are_no_queue() {
    // nDPI ieee_c37118.pcap, connection 0: the PMU 192.168.0.241:4712 sends a 54-byte
    // report every 20 ms; the client ACKs each alone, e.g. frame 25 (0.186487 s) → pure
    // ACK frame 26 (0.206229 s), 19.7 ms, on a 0.77 ms path. Before: "the network is not
    // cleared: the median RTT was 18 ms against a 768 µs minimum, a queue on the path".
    let Some(c) = corpus_conn("ntop__nDPI__tests_cfgs_default_pcap_ieee_c37118.pcap", 0) else { return };
    assert_eq!(c.diagnosis.limit, "application");
    assert!(!c.diagnosis.text.contains("not cleared"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("Mostly the application, not the network, was the bottleneck."), "{}", c.diagnosis.text);
    // The samples are still in the statistics (256, median ≈ 18 ms).
    assert_eq!(c.directions[1].rtt.samples, 256);
}

#[test]
fn no_standing_queue_is_said_only_within_its_threshold_on_a_public_capture() {
    // pymptcpanalyzer client_1_tcp_only.pcap, connection 3: path RTT 153 ms, the data's
    // median 182.7 ms and p95 244 ms. Before: "with the RTT near its 153 ms minimum (no
    // standing queue at the bottleneck)". 30 ms above is more than HyStart++'s 16 ms.
    let Some(c) = corpus_conn("teto__pymptcpanalyzer__examples_client_1_tcp_only.pcap", 3) else { return };
    // No longer a loss headline (review I class D, diagnosis/recovery.rs: recovery
    // delivered at least its rate outside recovery behind a queue, so the loss cost
    // only the re-sent bytes): the congestion window or the path, and no "no standing
    // queue" anywhere (30 ms above the minimum is over HyStart++'s 16 ms).
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
    assert!(!c.diagnosis.text.contains("no standing queue"), "{}", c.diagnosis.text);
}

#[test]
fn resent_and_late_syns_on_a_public_capture_time_no_path() {
    // pymptcpanalyzer client_2.pcap. Connection 1: SYN frames 16 (6.683 s) and 70
    // (7.724 s), SYN/ACK frame 292 (8.829 s), ACK frame 297 (8.849 s). Before: "path RTT
    // 1125 ms"; now the SYN/ACK → ACK half, 20 ms. Connection 6: a lone SYN frame 275
    // (8.762 s), SYN/ACK frame 806 (11.902 s). Before: "path RTT 3139.53 ms"; nothing else
    // timed it, so it is unknown.
    let Some(c1) = corpus_conn("teto__pymptcpanalyzer__examples_client_2.pcap", 1) else { return };
    assert_eq!(c1.endpoints, ["11.0.0.1:60453", "11.0.0.2:5201"]);
    let r = c1.path_rtt_ms.expect("SYN/ACK → ACK");
    assert!((r - 20.47).abs() < 0.01, "{r} {}", c1.path_rtt_method);
    let c6 = corpus_conn("teto__pymptcpanalyzer__examples_client_2.pcap", 6).expect("read above");
    assert_eq!(c6.endpoints, ["11.0.0.1:55233", "10.0.0.2:5201"]);
    assert_eq!(c6.path_rtt_ms, None, "{}", c6.path_rtt_method);
}

#[test]
fn a_one_tick_round_trip_on_a_public_capture_is_a_bound() {
    // cisco mercury capture2.pcap, connection 100 (10.10.0.2:443 → 10.6.9.137:1759): a
    // 16.67 ms capture clock; every data sample reads one tick, the other part none.
    // Before: "Captured at the sender; path RTT 16.67 ms (17 ms to the receiver and back
    // + 0 s to the sender and back)" and the headline "with a path RTT of 17 ms".
    let Some(c) = corpus_conn("cisco__mercury__unit_tests_pcaps_capture2.pcap", 100) else { return };
    assert_eq!(c.vantage, Vantage::Unknown);
    assert!(c.path_rtt_method.starts_with("≤ one tick of the capture clock (17 ms)"), "{}", c.path_rtt_method);
    assert!(c.diagnosis.text.contains("with a path RTT of one tick of the capture clock (17 ms) or less"), "{}", c.diagnosis.text);
}
