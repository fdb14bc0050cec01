//! Issue 39, "Evidence before every claim", review J class H3: in turn-taking, the time
//! the peer had everything is not taken from an ACK that rode on the peer's next message.
//! A receiver may hold its ACK for its own next segment (RFC 9293 §3.8.6.3, RFC 1122
//! §4.2.3.2: a delayed ACK goes out with data the application writes meanwhile); such an
//! ACK dates the peer's next message, not the moment the peer received the data. Where the
//! path's round trip is known and far shorter than the wait, one round trip is the path's
//! and the rest the peer's application (docs/ANALYSIS.md stall rule 3a) — an interactive
//! shell's echo followed by the user's next keystroke is the user's typing time, never
//! "waiting on ACKs".
//!
//! The shape is synthesized (tests/common) and checked on the public capture that showed
//! it (`TCPSCOPE_CORPUS`; absent, that test says so and passes).

use crate::common;

use tcpscope_core::analysis::{ConnectionSummary, Stall, StallCause};
use tcpscope_core::synth::*;

/// Direction `d`'s stall that begins at frame `before`.
fn stall_at(c: &ConnectionSummary, d: usize, before: u32) -> Stall {
    let s = c.directions[d].stalls.iter().find(|s| s.frame_before == before);
    s.unwrap_or_else(|| panic!("no stall after frame {before}: {:?}", c.directions[d].stalls)).clone()
}

fn count(c: &ConnectionSummary, d: usize, cause: StallCause) -> usize {
    c.directions[d].stalls.iter().filter(|s| s.cause == cause).count()
}

/// An interactive shell captured at the client, on a LAN path of 100 µs (the handshake's
/// SYN → SYN/ACK, the client's ACK at once): every 30 ms the user types a key (36 bytes, an SSH packet), the
/// server echoes it (36 bytes) 150 µs later, and the client never sends a pure ACK of the
/// echo: its ACK rides on the next keystroke.
fn typing() -> Flow {
    let mut f = Flow::new("192.168.1.2:43210", "192.168.1.3:22");
    f.handshake(0, 100, Opts::new().mss(1460), Opts::new().mss(1460));
    for k in 0..20i64 {
        let t = 10_000 + k * 30_000;
        f.data(C2S, t, 36);
        f.data(S2C, t + 150, 36);
    }
    f
}

#[test]
fn typing_time_after_an_echo_is_the_peers_application() {
    // The server's 30 ms silences after each echo end with the client's next keystroke,
    // which carries the client's first ACK of the echo: that ACK dates the keystroke, not
    // the echo's arrival. The path's round trip is measured (100 µs), so at most 100 µs of
    // the 29.85 ms are the path's and the rest the user's typing (rule 3a). Before the
    // piggybacked-ACK rule: `ack-wait`, "the peer's next message of 36 bytes at …: a
    // request/response round trip" for every one of them.
    let c = common::analyze_flow(&typing());
    assert_eq!(c.path_rtt_ms, Some(0.1), "{}", c.path_rtt_method);
    let server = &c.directions[1].stalls;
    assert_eq!(count(&c, 1, StallCause::AckWait), 0, "{server:?}");
    assert_eq!(server.len(), 19, "{server:?}");
    assert!(server.iter().all(|s| s.cause == StallCause::ApplicationIdle), "{server:?}");
    // The fifth silence: echo 4 at 0.130150 s, keystroke 5 at 0.160 s (29.85 ms, "30 ms").
    assert_eq!(
        server[4].ended_by,
        "new data after the peer's next message of 36 bytes at 0.160 s, 30 ms after its data: one path round trip is at most 100 µs, the rest was the peer's application (the message carried the peer's first ACK of the data, which a receiver may hold for its next message)"
    );
    assert!(!c.diagnosis.text.contains("waiting on ACKs"), "{}", c.diagnosis.text);
}


#[test]
fn ssh_typing_on_a_public_capture_is_the_peers_application() {
    // cisco joy test/pcaps/kali-normal-ssh.pcap, connection 0 (client 192.168.1.2, sshd
    // 192.168.1.3, path RTT 0.105 ms from the handshake): the server's echo frame 356
    // (77.781299 s) reaches the client at the capture point, the client's next keystroke
    // frame 357 (77.810537 s) carries its ACK, the server answers it in frame 358. Before
    // (review J, H3): 50 such gaps `ack-wait` "a request/response round trip", the headline's
    // "Other stalls: 1.5 s waiting on ACKs".
    if let Some(conns) = common::corpus_connections("cisco__joy__test_pcaps_kali-normal-ssh.pcap") {
        let c = &conns[0];
        assert_eq!(c.path_rtt_ms, Some(0.105), "{}", c.path_rtt_method);
        let s = stall_at(c, 1, 356);
        assert_eq!((s.frame_after, s.cause), (358, StallCause::ApplicationIdle), "{s:?}");
        assert!(s.ended_by.contains("one path round trip is at most 105 µs, the rest was the peer's application"), "{}", s.ended_by);
        assert_eq!(count(c, 1, StallCause::AckWait), 0, "{:?}", c.directions[1].stalls);
        assert!(!c.diagnosis.text.contains("waiting on ACKs"), "{}", c.diagnosis.text);
    }
}
