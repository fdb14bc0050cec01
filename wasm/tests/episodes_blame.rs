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

/// Six bursts of 3 flights of 3 full segments (0.1 ms apart), captured at the sender
/// on a 1 ms path, 300 ms of application pause between bursts. Each flight is ACKed
/// whole: 1 ms after its last segment, but in burst 4 `held_us` after it, and where
/// `partial` the receiver also ACKs the first two segments of each of that burst's
/// flights as late, before the third.
fn flights_held(held_us: i64, partial: bool) -> ConnectionSummary {
    let mut f = Flow::new("10.9.0.1:40000", "10.9.0.2:389");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    let mut t = 10_000;
    // The client's ISN is 1000: its data starts at 1001.
    let mut next = 1_001u32;
    for burst in 0..6 {
        for _ in 0..3 {
            for k in 0..3 {
                f.data(C2S, t + k * 100, 1448);
            }
            let last = t + 200;
            let wait = if burst == 3 { held_us } else { 1_000 };
            if burst == 3 && partial {
                f.push(S2C, last + wait - 50).ack(next + 2 * 1448);
            }
            next += 3 * 1448;
            f.push(S2C, last + wait);
            t = last + wait + 100;
        }
        t += 300_000;
    }
    analyze(&write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro))
}

#[test]
fn flights_acknowledged_whole_and_late_are_no_path_that_slowed() {
    // Issue 39 (protos c06-ldapv3-app-r1: every connection's server ACKed each flight of
    // 2–6 full segments with one ACK 10–100 ms after its last, at a 0.9 ms path). Burst
    // 4's three flights wait 40 ms each for their ACK (the last wait, with nothing
    // more to send, ends the burst): it took 2 × (0.2 + 40 + 0.1) + 0.2 = 80.8 ms
    // against the others' 3 × 0.2 + 2 × (1 + 0.1) = 2.8 ms. A receiver
    // that ACKs every second full-sized segment at once (RFC 1122 §4.2.3.2) would have
    // sent an ACK inside each flight; one ACK of the whole flight 40 ms on is a receiver
    // that held it (a delayed-ACK timer holds up to 500 ms) as much as a slower path, so
    // nothing is claimed. Before: "During 0.922 s–1.002 s a burst took 81 ms instead of
    // 2.8 ms: no retransmissions: the path slowed down".
    let c = flights_held(40_000, false);
    assert_eq!(c.path_rtt_ms, Some(1.0));
    assert!(!c.diagnosis.text.contains("the path slowed down"), "{}", c.diagnosis.text);
    assert_eq!(episodes(&c).iter().filter(|e| e.contains("burst")).count(), 0, "{:?}", episodes(&c));
    // The receiver ACKing the first two segments of each flight as late, with the third
    // still to come: that ACK went out as the flight arrived, so the 40 ms were the
    // path's, and the sentence stays.
    let c = flights_held(40_000, true);
    assert!(c.diagnosis.text.contains("the path slowed down"), "{}", c.diagnosis.text);
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
    // Review Y: frames 45 (36 B) and 46 (60 B) left the client together at 0.525 s,
    // the second while the first was unacknowledged — Nagle's algorithm would have held
    // it (RFC 896): it is off at this client (OpenSSH sets TCP_NODELAY on interactive
    // sessions), so neither wait is called Nagle's (nagle_shape.rs `nagle_disproved`).
    assert_eq!(c.directions[d].stalls.iter().filter(|s| s.cause == StallCause::DelayedAck).count(), 0);
    assert!(!c.diagnosis.text.contains("Nagle"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.episodes.iter().all(|e| e.kind != "delay-spike"), "{:?}", episodes(&c));
}
