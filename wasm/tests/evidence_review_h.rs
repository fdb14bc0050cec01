//! Issue 39, review H (captures by others read against tshark): `ack-wait` claimed where
//! nothing held the sender. The question behind every stall cause is what released the
//! data that ended the gap, in the sender's time: an ACK that opened room (a window, a
//! congestion window or Nagle's algorithm held it: `ack-wait`), the peer's next message
//! (turn-taking: the peer's application, or a round trip), or nothing (the sender's own
//! schedule: its application). Each shape is synthesized with a known answer (tests/common),
//! and, with TCPSCOPE_CORPUS set, checked on the capture that showed it.

use crate::common;

use common::analyze_flow;
use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary, StallCause};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

fn causes(c: &ConnectionSummary, dir: usize) -> Vec<StallCause> {
    c.directions[dir].stalls.iter().map(|s| s.cause).collect()
}

/// A measurement unit streaming 54 bytes every 20 ms to 10.0.0.1, captured at the unit
/// (the sender, 1 ms path): first a 134-byte configuration frame, ACKed at once; then
/// 40 frames. The receiver ACKs every second frame at once (RFC 1122 §4.2.3.2); the
/// first of each pair waits for it. Every fifth pair its delayed-ACK timer fires 19.6 ms
/// after the first frame instead, 0.4 ms before the second leaves.
fn periodic_stream() -> Flow {
    let mut f = Flow::new("10.0.0.9:4712", "10.0.0.1:36835");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(S2C, 2_000, 18); // the start command
    f.push(C2S, 2_500);
    f.data(C2S, 3_000, 134);
    f.push(S2C, 4_000);
    let start = 10_000i64;
    let base = 1001 + 134;
    for pair in 0..20u32 {
        let t = start + i64::from(pair) * 40_000;
        let seq = base + pair * 108;
        f.data(C2S, t, 54);
        if pair % 5 == 4 {
            f.push(S2C, t + 19_600).ack(seq + 54);
        }
        f.data(C2S, t + 20_000, 54);
        f.push(S2C, t + 21_000).ack(seq + 108);
    }
    f
}

#[test]
fn a_periodic_sender_with_a_delayed_ack_pending_is_its_application() {
    // Each second frame leaves with the first still unacknowledged (16 times with no
    // ACK at all in its 20 ms gap, 4 times 0.4 ms after the delayed ACK of the first):
    // in flight 108 bytes at most, as the 134-byte frame before, against a 64 KiB
    // window; and a sender that sends a small segment behind an unacknowledged small
    // one runs without Nagle's algorithm (RFC 896), so no ACK released it. Each of the
    // 39 gaps is the unit's reporting period: application-idle, none waiting on ACKs
    // (once 20 `ack-wait` "new data without an ACK" / "after an ACK").
    let c = analyze_flow(&periodic_stream());
    let d = c.data_direction as usize;
    assert_eq!(c.directions[d].stalls.len(), 39);
    assert!(causes(&c, d).iter().all(|&x| x == StallCause::ApplicationIdle), "{:?}", c.directions[d].stalls);
    assert_eq!(c.diagnosis.limit, "application", "{}", c.diagnosis.text);
    assert!(!c.diagnosis.text.contains("waiting on ACKs"), "{}", c.diagnosis.text);
    assert!(!c.diagnosis.text.contains("Had each wait on ACKs"), "{}", c.diagnosis.text);
}

#[test]
fn a_window_limited_flight_stays_a_wait_on_acks() {
    // The counter-shape: flights of 10 full segments, the next flight 1 ms after the
    // ACK of the last one (the congestion window released by it, RFC 5681 §3), ACKs
    // 30 ms late. Each gap began with more in flight than before (room not shown) and
    // ended right after an ACK: `ack-wait`, as before.
    let mut f = Flow::new("10.0.0.9:4712", "10.0.0.1:36835");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    let mut t = 2_000i64;
    for flight in 1..=4u32 {
        for _ in 0..(10 * flight) {
            f.data(C2S, t, 1448);
            t += 10;
        }
        t += 30_000;
        f.push(S2C, t);
        t += 100;
    }
    let c = analyze_flow(&f);
    assert_eq!(causes(&c, 0), vec![StallCause::AckWait; 3], "{:?}", c.directions[0].stalls);
}

/// An interactive session filtered to payload ("len > 0": no handshake, no pure ACK),
/// captured at the client, 24 ms path: the user types a 36-byte keystroke, the server
/// echoes it 24 ms later (its echo carries the ACK), and the next keystroke, which
/// carries the client's ACK of the echo, comes after the user's think time.
fn payload_only_session() -> Flow {
    let mut f = Flow::new("172.16.0.48:57377", "54.0.0.75:22");
    // The key exchange first: each side answers the other at once (1 ms at the client).
    let mut t = 0i64;
    for len in [41u32, 1360, 48, 16] {
        f.data(C2S, t, len);
        f.data(S2C, t + 24_000, len);
        t += 25_000;
    }
    let thinks_ms = [150i64, 300, 700, 2_000, 180, 450, 1_200, 6_000, 220, 260];
    for think in thinks_ms {
        f.data(C2S, t, 36);
        f.data(S2C, t + 24_000, 36);
        t += 24_000 + think * 1000;
    }
    f.data(C2S, t, 36);
    f.data(S2C, t + 24_000, 36);
    f
}

#[test]
fn a_wait_for_the_peers_next_message_is_the_peers_not_a_round_trip() {
    // Each echo gap (174 ms to 6 s on a 24 ms path) ended with the server answering the
    // next keystroke: that message released it, and it came one path round trip plus
    // the user's think time after the echo. The ACK it carries says nothing of when the
    // client had the echo (the capture holds no pure ACK). All 10 gaps of the server are
    // application-idle (once 6 "ack-wait: a request/response round trip" and the 4 over 0.5 s
    // `unknown`).
    let c = analyze_flow(&payload_only_session());
    let server = c.directions.iter().position(|d| d.from.ends_with(":22")).unwrap();
    assert_eq!(causes(&c, server), vec![StallCause::ApplicationIdle; 10], "{:?}", c.directions[server].stalls);
    assert!(c.directions[server].stalls.iter().all(|s| !s.ended_by.contains("round trip:")), "{:?}", c.directions[server].stalls);
    assert!(!c.diagnosis.text.contains("waiting on ACKs"), "{}", c.diagnosis.text);
}

/// The one capture `name` of TCPSCOPE_CORPUS, its connection `id`; None without it.
fn corpus(name: &str, id: usize) -> Option<ConnectionSummary> {
    let dir = std::env::var_os("TCPSCOPE_CORPUS")?;
    let bytes = std::fs::read(std::path::Path::new(&dir).join(name)).ok()?;
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    Some(s.analysis().expect("analysed").connections[id].clone())
}

fn count(c: &ConnectionSummary, dir: usize, cause: StallCause) -> usize {
    c.directions[dir].stalls.iter().filter(|s| s.cause == cause).count()
}

#[test]
fn review_h_captures_no_longer_claim_waits_on_acks() {
    // The PMU stream (one 54-byte frame every 20 ms, in flight ≤ 134 B of a 6,912-byte
    // window): 210 of 249 periods read ack-wait. Now none: the last 2 (frames 27→28
    // and 300→301) ended by an ACK that came before the gap's first frame, which
    // released nothing (review I class M2, stall rule 5a: the ACK of the frame before
    // reached the sender half the gap and a round trip before the new frame, which fit
    // in what it already had in flight). Its TSval moves in steps of 50 ms: no gap of
    // 20 ms is "held on the path".
    if let Some(c) = corpus("ntop__nDPI__tests_cfgs_default_pcap_ieee_c37118.pcap", 0) {
        let d = c.data_direction as usize;
        assert_eq!(count(&c, d, StallCause::AckWait), 0, "{:?}", c.directions[d].stalls);
        assert!(c.directions[d].stalls.iter().all(|s| !s.ended_by.contains("held on the path")));
        assert_eq!(c.diagnosis.limit, "application", "{}", c.diagnosis.text);
        assert!(!c.diagnosis.text.contains("Had each wait on ACKs"), "{}", c.diagnosis.text);
    }
    // The payload-only SSH session: no keystroke wait is "a request/response round
    // trip" (once 69). One gap is `unknown`, no longer ack-wait: 443 ms after frames
    // 18–22 (1,364 bytes sent at once), no packet of the client in it, and the capture
    // holds none of the client's pure ACKs, so nothing shows an ACK the sender waited
    // for (review I class S, stall rule 5c).
    if let Some(c) = corpus("FoxIO-LLC__ja4__pcap_ssh.pcapng", 0) {
        let server = c.directions.iter().position(|d| d.from.ends_with(":22")).unwrap();
        assert!(c.directions[server].stalls.iter().all(|s| !s.ended_by.contains("round trip:")));
        assert_eq!(count(&c, server, StallCause::Unknown), 1);
        assert_eq!(count(&c, server, StallCause::AckWait), 0);
        assert!(!c.diagnosis.text.contains("Had each wait on ACKs"), "{}", c.diagnosis.text);
    }
    // SMB: the server's answers after the client's delayed ACK and next request (frames
    // 6209–6212, 6069–6072) are the client's turn, not Nagle nor a round trip: none of
    // the server's 7 `delayed-ack` stalls is left. Of the client's 3, the two after it
    // sent small segments behind unacknowledged ones (7.08 s on: no Nagle) are gone, and
    // so is the one at 2.52 s (frame 36 → 38, 20 ms after the server's ACK): every round
    // trip here is below the 10 ms clock tick, so an ACK two ticks before the new data
    // did not release it (review I class Q2: the tick bounds the round trip).
    if let Some(c) = corpus("OISF__suricata-verify__tests_filestore-filecontainer-smb_filecontainer-smb.pcap", 0) {
        let server = c.directions.iter().position(|d| d.from.ends_with(":445")).unwrap();
        assert_eq!(count(&c, server, StallCause::DelayedAck), 0, "{:?}", c.directions[server].stalls);
        let delayed: Vec<u32> = c.directions[1 - server].stalls.iter().filter(|s| s.cause == StallCause::DelayedAck).map(|s| s.frame_before).collect();
        assert_eq!(delayed, Vec::<u32>::new());
        for frame in [6069, 6209] {
            let s = c.directions[server].stalls.iter().find(|s| s.frame_before == frame).unwrap();
            assert_eq!(s.cause, StallCause::ApplicationIdle, "{s:?}");
        }
    }
}
