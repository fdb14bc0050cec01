//! Issue 39, "Evidence before every claim", review I classes S, M2 and Q2: a stall is
//! `ack-wait` only where the capture shows the sender waited on an ACK.
//!
//! - S (a): where the capture missed packets of the connection inside the gap, the ACK or
//!   the request that ended it may be among them: `unknown`, naming the frame that shows
//!   the hole (a PLC's cyclic answers once read "waiting on ACKs" for 133 gaps, each in a
//!   run of frames the capture dropped).
//! - S (b): in a capture that holds none of the peer's pure ACKs, a gap with no ACK of the
//!   peer's in it shows nothing that held the sender: `unknown` (an SSH server's 443 ms
//!   between two key-exchange messages once read "waiting on ACKs").
//! - M2: an ACK that came long before the new data (half the gap and a round trip) did not
//!   release it: a sender held by ACKs sends as each arrives (RFC 5681 §3). A 50 Hz stream
//!   whose receiver's delayed ACK of the previous period reached the sender just after a
//!   period's segment once read "new data after an ACK" for the next period's segment.
//! - Q2: where every round trip was shorter than one tick of the capture clock, the round
//!   trip is at most one tick; a wait ended by the peer's next message that carried its
//!   first ACK of the data is one round trip of the path and the rest the peer's
//!   application (an SMB client's 100 ms think time, at a 10 ms clock, once read "a
//!   request/response round trip").
//!
//! Each shape is synthesized (tests/common) and checked on the public capture that showed
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

/// A poller (client) and a server that answers each 58-byte poll with 80 bytes 2 ms later,
/// every 30 ms for 20 polls, after a handshake with a 1 ms round trip (the client's ACK of
/// the SYN/ACK is its one pure ACK: the capture is not filtered to payload). `dropped`:
/// the capture misses that poll (the server still answers it, acknowledging it).
fn polling(dropped: Option<u32>) -> Flow {
    let mut f = Flow::new("10.200.1.18:2430", "10.50.1.54:44818");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for k in 0..20u32 {
        let t = 10_000 + i64::from(k) * 30_000;
        f.data(C2S, t, 58);
        f.data(S2C, t + 2_000, 80);
    }
    let Some(k) = dropped else { return f };
    // The segments are in push order: 3 of the handshake, then each poll and its answer.
    let drop = 3 + 2 * k as usize;
    let mut g = Flow::new("10.200.1.18:2430", "10.50.1.54:44818");
    for (_, s) in f.segments().iter().enumerate().filter(|&(i, _)| i != drop) {
        *g.push(C2S, 0) = s.clone();
    }
    g
}

#[test]
fn a_gap_whose_request_the_capture_dropped_is_no_wait_on_acks() {
    // Without a drop each 30 ms silence of the server (threshold: 10 ms, 4 × the 1 ms
    // round trip) ends with the client's next poll, which carries the ACK of the answer
    // 28 ms after it: one round trip of the path, the rest the client's application (Q2's
    // rule with a measured round trip). With poll 10 missing from the capture, the server's
    // gap from answer 9 (frame 23, 0.282 s) to answer 10 (frame 24, 0.312 s) holds no packet of the client's
    // and answer 10 acknowledges 58 bytes the capture never saw: what the server waited on
    // — the poll — is among the packets the capture missed. Before: `ack-wait`, "new data
    // without an ACK in the capture".
    let whole = common::analyze_flow(&polling(None));
    assert_eq!(count(&whole, 1, StallCause::AckWait), 0, "{:?}", whole.directions[1].stalls);
    let c = common::analyze_flow(&polling(Some(10)));
    let s = stall_at(&c, 1, 23);
    assert_eq!((s.frame_after, s.cause), (24, StallCause::Unknown), "{s:?}");
    assert_eq!(
        s.ended_by,
        "new data at 0.312 s after a gap in which the capture missed packets of this connection (frame 24: it acknowledges data the capture never saw): what the sender waited on may be among them"
    );
    assert_eq!(count(&c, 1, StallCause::AckWait), 0, "{:?}", c.directions[1].stalls);
}

/// An SSH-like exchange captured with a payload filter ("len > 0": no handshake, no pure
/// ACK): the client sends 100 bytes at 0, the server answers 200 bytes at 30 ms, the client
/// 50 bytes at 60 ms, then the server sends five 1,364-byte segments at 100 ms and — with
/// nothing from the client in between — 132 bytes at 543 ms; the client answers at 600 ms.
fn payload_only() -> Flow {
    let mut f = Flow::new("10.0.0.1:50000", "10.0.0.2:22");
    f.data(C2S, 0, 100);
    f.data(S2C, 30_000, 200);
    f.data(C2S, 60_000, 50);
    for k in 0..5 {
        f.data(S2C, 100_000 + k, 1364);
    }
    f.data(S2C, 543_000, 132);
    f.data(C2S, 600_000, 50);
    f
}

#[test]
fn no_ack_in_a_payload_only_capture_shows_no_wait_on_acks() {
    // The server's 443 ms silence after its burst (frame 8 at 0.100004 s → frame 9 at
    // 0.543 s): 6,820 bytes in flight, far below the client's window, and no packet of the
    // client's in the gap. The capture holds no pure ACK of the client's at all, so an ACK
    // it sent alone would not be in it either: nothing shows the server was held. Before:
    // `ack-wait`, "new data without an ACK in the capture".
    let c = common::analyze_flow(&payload_only());
    let s = stall_at(&c, 1, 8);
    assert_eq!((s.frame_after, s.cause), (9, StallCause::Unknown), "{s:?}");
    assert_eq!(
        s.ended_by,
        "new data with no ACK of the peer's in the gap; the capture holds none of the peer's pure ACKs, so whether an ACK released it or its application wrote it cannot be told"
    );
}

/// A 50 Hz stream captured at the sender: 54 bytes every 20 ms after a handshake with a
/// 1 ms round trip; the receiver ACKs each segment alone 20.5 ms after it (its delayed-ACK
/// timer), so each ACK arrives 0.5 ms after the next period's segment has left.
fn periodic() -> Flow {
    let mut f = Flow::new("10.0.0.1:4712", "10.0.0.2:36835");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    let mut acks = Vec::new();
    for k in 0..30i64 {
        let t = 10_000 + k * 20_000;
        f.data(C2S, t, 54);
        acks.push((t + 20_500, 1001 + 54 * (k as u32 + 1)));
    }
    for (t, ack) in acks {
        f.push(S2C, t).ack(ack);
    }
    f
}

#[test]
fn an_ack_long_before_the_next_period_did_not_release_it() {
    // Every 20 ms gap (threshold 10 ms) opens with 108 bytes in flight (this period's
    // segment and the last, whose ACK is 0.5 ms away), the ACK comes 19.5 ms before the
    // next segment, which leaves with 54 bytes unacknowledged again: no ACK released it, the
    // sender had had as much in flight before. The application's period. Before:
    // `ack-wait`, "new data after an ACK at …".
    let c = &common::analyze_flow(&periodic());
    let d = c.data_direction as usize;
    // The first gap ends before the receiver's first ACK: no window of its yet, nothing can
    // be told (rule 6, as before).
    let st = &c.directions[d].stalls;
    assert_eq!(st.len(), 29, "{st:?}");
    assert_eq!((st[0].cause, st[0].ended_by.as_str()), (StallCause::Unknown, "new data (the peer's ACKs are not in the capture)"));
    assert!(st[1..].iter().all(|s| s.cause == StallCause::ApplicationIdle), "{st:?}");
    assert!(st.iter().skip(1).all(|s| s.ended_by.contains("after the last ACK in the gap (an ACK releases held data at once)")), "{:?}", c.directions[d].stalls);
}

/// Request/response at a 10 ms capture clock: the handshake and each request's answer in
/// the tick of the request, the client's next 132-byte request 110 ms after each
/// 1,000-byte answer. The client acknowledges every other answer at once with a pure ACK in
/// its tick (every round trip under one tick), the others only on its next request.
fn ten_ms_clock_turns() -> Flow {
    let mut f = Flow::new("192.168.202.115:3049", "192.168.24.100:445");
    f.handshake(10_000, 0, Opts::new().mss(1460), Opts::new().mss(1380));
    for k in 0..30i64 {
        let t = 20_000 + k * 110_000;
        f.data(C2S, t, 132);
        f.data(S2C, t, 1000);
        if k % 2 == 0 {
            f.push(C2S, t);
        }
    }
    f
}

#[test]
fn a_think_time_of_many_ticks_on_a_sub_tick_path_is_the_peers_application() {
    // Each of the server's 110 ms silences (threshold 30 ms: 3 ticks) ends with the client's
    // request; after every other answer that request carries the client's first ACK of it
    // (after the others everything was acknowledged 110 ms before the request: the client's
    // application, rule 3). Every round trip fit in one tick, so the
    // path's part is at most one tick (10 ms) and 100 ms were the client's. Before:
    // "the peer's next message of 132 bytes at …: a request/response round trip", 29 ×
    // `ack-wait`.
    let c = common::analyze_flow(&ten_ms_clock_turns());
    assert_eq!(c.path_rtt_ms, None, "{}", c.path_rtt_method);
    assert_eq!(c.path_rtt_method, "every round trip was shorter than one tick of the capture clock");
    let server = &c.directions[1].stalls;
    assert_eq!(server.len(), 29, "{server:?}");
    assert!(server.iter().all(|s| s.cause == StallCause::ApplicationIdle), "{server:?}");
    assert_eq!(
        server[5].ended_by,
        "new data after the peer's next message of 132 bytes at 0.670 s, 110 ms after its data: one path round trip is at most 10 ms, the rest was the peer's application (the message carried the peer's first ACK of the data, which a receiver may hold for its next message)"
    );
}


#[test]
fn capture_drops_and_payload_filters_on_public_captures() {
    // gopacket layers/testdata/cip.pcap, connection 0 (PLC 10.50.1.54:44818 ↔ HMI
    // 10.200.1.18:2430, cyclic polling seen on both sides of a router). The PLC's gap from
    // frame 20317 (133.2727 s) to 20319 (133.3227 s): its datagram 0x9986 and the HMI's
    // polls in between are not in the capture (frame 20319 acknowledges 116 bytes the
    // capture never saw; tshark: "Previous segment(s) not captured"). Before: 135
    // `ack-wait` stalls, 133 of them "new data without an ACK in the capture", all inside
    // such runs of dropped frames ("Other stalls: 2 s waiting on ACKs").
    if let Some(conns) = common::corpus_connections("gopacket__gopacket__layers_testdata_cip.pcap") {
        let c = &conns[0];
        let plc = (0..2).find(|&d| c.directions[d].stalls.iter().any(|s| s.frame_before == 20317)).expect("the PLC's stall");
        let s = stall_at(c, plc, 20317);
        assert_eq!((s.frame_after, s.cause), (20319, StallCause::Unknown), "{s:?}");
        assert!(s.ended_by.contains("the capture missed packets of this connection"), "{}", s.ended_by);
        let without_ack = c.directions.iter().flat_map(|d| &d.stalls).filter(|s| s.cause == StallCause::AckWait && s.ended_by == "new data without an ACK in the capture").count();
        assert!(without_ack <= 16, "{without_ack}");
    }
    // FoxIO ja4 pcap_ssh.pcapng, connection 0 (payload only): frames 18–22 at 0.520233 s,
    // the server's key exchange, then frame 23 (132 bytes) 443 ms later with nothing from
    // the client in between. Before: `ack-wait` "new data without an ACK in the capture",
    // the headline's "Other stalls: 443 ms waiting on ACKs".
    if let Some(conns) = common::corpus_connections("FoxIO-LLC__ja4__pcap_ssh.pcapng") {
        let c = &conns[0];
        let d = c.data_direction as usize;
        let s = stall_at(c, d, 22);
        assert_eq!((s.frame_after, s.cause), (23, StallCause::Unknown), "{s:?}");
        assert_eq!(count(c, d, StallCause::AckWait), 0, "{:?}", c.directions[d].stalls);
        assert!(!c.diagnosis.text.contains("waiting on ACKs"), "{}", c.diagnosis.text);
    }
}

#[test]
fn periodic_and_sub_tick_turns_on_public_captures() {
    // nDPI ieee_c37118.pcap, connection 0 (PMU 192.168.0.241:4712 → 192.168.0.20:36835,
    // 50 Hz): frame 27 (0.206654 s) → 28 (0.226727 s); the client's ACK frame 26 (0.206229 s,
    // of frame 25) reaches the PMU 0.76 ms later, 19.7 ms before frame 28, which leaves with
    // frame 27 unacknowledged. Before: `ack-wait` "new data after an ACK at 0.207 s" (and
    // frames 300 → 301 alike), "Other stalls: 40 ms waiting on ACKs".
    if let Some(conns) = common::corpus_connections("ntop__nDPI__tests_cfgs_default_pcap_ieee_c37118.pcap") {
        let c = &conns[0];
        let d = c.data_direction as usize;
        assert_eq!(stall_at(c, d, 27).cause, StallCause::ApplicationIdle);
        assert_eq!(stall_at(c, d, 300).cause, StallCause::ApplicationIdle);
        assert_eq!(count(c, d, StallCause::AckWait), 0, "{:?}", c.directions[d].stalls);
    }
    // suricata-verify filestore-filecontainer-smb, connection 0 (10 ms clock, every round
    // trip under one tick): the server's answer frame 1569 (51.53 s), the client's next
    // request frame 1570 (51.63 s, carrying its ACK), answered in the same tick (1571).
    // Before: "the peer's next message of 132 bytes at 51.630 s: a request/response round
    // trip", one of 56 + 17 `ack-wait` stalls ("5.8 s waiting on ACKs").
    if let Some(conns) = common::corpus_connections("OISF__suricata-verify__tests_filestore-filecontainer-smb_filecontainer-smb.pcap") {
        let c = &conns[0];
        let server = (0..2).find(|&d| c.directions[d].stalls.iter().any(|s| s.frame_before == 1569)).expect("the server's stall");
        let s = stall_at(c, server, 1569);
        assert_eq!((s.frame_after, s.cause), (1571, StallCause::ApplicationIdle), "{s:?}");
        assert!(s.ended_by.contains("the rest was the peer's application"), "{}", s.ended_by);
        assert!(!c.diagnosis.text.contains("5.8 s waiting on ACKs"), "{}", c.diagnosis.text);
    }
}
