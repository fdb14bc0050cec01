//! Episodes that must not blame the path for what the sender's application or the
//! receiver's delayed ACK did (docs/ANALYSIS.md "diagnosis.episodes"): a run of slow
//! bursts is only compared where bursts last round trips, and the RTT samples a
//! delayed ACK completed are no delay spike. Synthetic known answers, then the public
//! captures that showed both (../shared/captures, skipped when absent).

use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary, StallCause};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

fn analyze(bytes: &[u8]) -> ConnectionSummary {
    let s = analyze_bytes(bytes, AnalysisOptions::default(), 1 << 20);
    s.analysis().expect("analysed").connections[0].clone()
}

fn episodes(c: &ConnectionSummary) -> Vec<String> {
    c.diagnosis.episodes.iter().map(|e| format!("{}: {}", e.kind, e.text)).collect()
}

#[test]
fn two_writes_8_ms_apart_are_no_burst_the_path_slowed() {
    // Captured at the client, 10 ms path: 6 one-segment writes 500 ms apart, each ACKed
    // a round trip later; the 4th write is two segments 8 ms apart (the application
    // wrote twice; 8 ms is below the 40 ms stall threshold, 4 × the path RTT). The
    // median burst is one segment, 0 s from first to last: a burst that left in one
    // flight says nothing of the path, so no episode. Before: "a burst took 8 ms
    // instead of 0 s: no retransmissions: the path slowed down".
    let mut f = Flow::new("10.9.0.1:40000", "10.9.0.2:22");
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for k in 0..6 {
        let t = 100_000 + k * 500_000;
        f.data(C2S, t, 100);
        let second = if k == 3 { 8_000 } else { 0 };
        if second > 0 {
            f.data(C2S, t + second, 100);
        }
        f.push(S2C, t + second + 10_000);
    }
    let c = analyze(&write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro));
    assert_eq!(c.path_rtt_ms, Some(10.0));
    // The 5 pauses are the application's: the bursts are told apart as before.
    assert_eq!(c.directions[0].stalls.iter().filter(|s| s.cause == StallCause::ApplicationIdle).count(), 5);
    assert_eq!(episodes(&c), Vec::<String>::new());
}

/// A capture of ../shared/captures, or None where that folder is not beside the repo.
fn shared(name: &str) -> Option<Vec<u8>> {
    let base = std::env::var_os("TCPSCOPE_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    std::fs::read(base.join("captures").join(name)).ok()
}

#[test]
fn ssh_single_segment_writes_are_no_slow_bursts() {
    // tcpdump's mptcp-v0.pcap: an SSH session whose writes are single segments (frame 42,
    // 48 B, then frame 44, 112 B, 8.1 ms later, both ACKed 0.2 ms after the second at a
    // 0.163 ms path). It read "a burst took 8.1 ms instead of 0 s: the path slowed down"
    // on both of its connections.
    let Some(bytes) = shared("tcpdump__mptcp-v0.pcap") else { return };
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    for c in &s.analysis().unwrap().connections {
        assert!(c.diagnosis.episodes.iter().all(|e| !e.text.contains("burst")), "{:?}", episodes(c));
    }
}

#[test]
fn delayed_acks_after_nagle_are_no_delay_spike() {
    // tcpdump's ssh.pcap, captured at the SSH client (14 ms path): 2 stalls are Nagle's
    // algorithm waiting for the server's delayed ACK (held 44 and 54 ms: the client's
    // next segment follows each ACK within 0.1 ms), and the RTT samples those ACKs
    // completed are that hold. The text says so; the episodes said "The RTT rose from
    // 14 ms to 89 ms during 0.055 s–0.301 s" too. The third wait (frame 12 → 16) is a
    // turn, not Nagle: the client's 16 bytes came 26 ms after the server's delayed ACK
    // (frame 13), 4 ms after the server's 764-byte message (frame 14) that they answer.
    let Some(bytes) = shared("tcpdump__ssh.pcap") else { return };
    let c = analyze(&bytes);
    let d = c.data_direction as usize;
    assert_eq!(c.directions[d].stalls.iter().filter(|s| s.cause == StallCause::DelayedAck).count(), 2);
    assert!(c.diagnosis.text.contains("2 stalls (127 ms in all) were Nagle's algorithm waiting for the peer's delayed ACK"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.episodes.iter().all(|e| e.kind != "delay-spike"), "{:?}", episodes(&c));
}
