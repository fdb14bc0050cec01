//! Issue 39, "Evidence before every claim" (item 8: a `retransmission-timeout` stall only
//! where a timeout or probe is counted, and named after the timer that fired), review
//! classes C, OE and M3:
//! - C: a wait for the peer's next request that the peer's timer ended (stall rule 2c) is
//!   the peer's timer only where that timer took the largest part of the gap; a peer that
//!   sat on its request for most of it was its application's turn;
//! - OE: an outage one of whose stalls the peer's re-sent request ended is named after the
//!   peer's timer too, not only the sender's own;
//! - M3: a lone segment in flight, no ACK or window update in the gap, and new data sooner
//!   than any timer of the sender's could fire (RFC 8985 §7.2): the sender's application,
//!   not "waiting on ACKs".
//!
//! The shapes are synthesized (tests/common) and checked on the public captures that
//! showed them (`TCPSCOPE_CORPUS`; absent, those tests say so and pass).

use crate::common;

use tcpscope_core::analysis::StallCause;
use tcpscope_core::decode::tcp_flags::{ACK, PSH, SYN};
use tcpscope_core::synth::*;


/// Request/response captured at the client, 20 ms path (the handshake's SYN → SYN/ACK):
/// ten rounds of a 200-byte request answered 20 ms later by three 1448-byte segments, each
/// ACKed by the client at once; then one request first sent `think_ms` after the last
/// answer was ACKed, lost after the capture point, and re-sent by the client's timer
/// 300 ms later; the server's answer arrives 22 ms after the re-send (a round trip and
/// 2 ms of the server's). Returns the flow and the capture times (µs) of the server's
/// last segment before the lost request and of its answer.
fn lost_request(think_ms: i64) -> (Flow, i64, i64) {
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:443");
    f.handshake(0, 20_000, Opts::new().mss(1460), Opts::new().mss(1460));
    let mut t = 30_000i64;
    let mut last = 0;
    for _ in 0..10 {
        f.data(C2S, t, 200);
        for k in 0..3 {
            last = t + 20_000 + 100 * k;
            f.data(S2C, last, 1448);
            f.push(C2S, last + 50);
        }
        t += 100_000;
    }
    let asked = last + 50 + think_ms * 1000;
    let seq = f.data(C2S, asked, 200).seq;
    // Lost: the capture saw it leave (at the client), the server never got it.
    let resent = asked + 300_000;
    f.push(C2S, resent).seq(seq).payload(200).flags(ACK | PSH);
    let answer = resent + 22_000;
    f.data(S2C, answer, 1448);
    f.push(C2S, answer + 50);
    (f, last, answer)
}

#[test]
fn a_peer_that_sat_on_its_lost_request_was_its_applications_turn() {
    // The client sat 800 ms before asking; its timer then took 300 ms and the server's
    // answer 22 ms: of the server's 1.122 s wait, the client's own turn is the largest
    // part, so the gap is `application-idle` (the peer's application) and names the
    // lost request, not "retransmission-timeout … the peer's timer had to re-send"
    // (nfstream alexa-app #115, 174.347 s: 844 ms of the client's idle time before a
    // request its timer re-sent 226 ms later, once the whole 1.159 s read as loss).
    let (f, last, answer) = lost_request(800);
    let c = common::analyze_flow(&f);
    assert_eq!(c.data_direction, 1);
    let stalls = &c.directions[1].stalls;
    let s = stalls.iter().find(|s| (s.start - last as f64 / 1e6).abs() < 1e-6).unwrap_or_else(|| panic!("{stalls:?}"));
    assert!((s.duration - (answer - last) as f64 / 1e6).abs() < 1e-6, "{s:?}");
    assert_eq!(s.cause, StallCause::ApplicationIdle, "{s:?}");
    assert!(s.ended_by.contains("the peer's application") && s.ended_by.contains("re-sent by its timer"), "{}", s.ended_by);
    assert_eq!(c.diagnosis.shares.loss, 0.0, "{:?}", c.diagnosis);
    assert_ne!(c.diagnosis.limit, "loss", "{}", c.diagnosis.text);
}

#[test]
fn a_request_lost_soon_after_the_answer_is_the_peers_timer() {
    // The client asked 10 ms after the ACK: its timer's 300 ms are the largest part of
    // the server's 332 ms wait (10 ms turn, 22 ms answer): rule 2c, as before.
    let (f, last, _) = lost_request(10);
    let c = common::analyze_flow(&f);
    let stalls = &c.directions[1].stalls;
    let s = stalls.iter().find(|s| (s.start - last as f64 / 1e6).abs() < 1e-6).unwrap_or_else(|| panic!("{stalls:?}"));
    assert_eq!(s.cause, StallCause::RetransmissionTimeout, "{s:?}");
    assert!(s.ended_by.contains("which the peer's timer had to re-send"), "{}", s.ended_by);
}

#[test]
fn an_outage_the_peers_re_sent_request_ended_is_named_after_the_peers_timer() {
    // Captured at the server (the data's sender), 20 ms path. Its last answer segment at
    // T is never acknowledged: the client's next request, which carried that ACK, was
    // lost before the capture point. The server's timer re-sends the segment 300 ms
    // later (its own timer: the first stall); the client ACKs the copy at once, its
    // sequence number past the request the capture never saw, and re-sends the request
    // by its timer 480 ms after T; the server answers 5 ms later (the second stall, rule
    // 2c). Together 485 ms ≥ 0.3 s: an outage, ended by the CLIENT's timer, which the
    // episode names (gopacket cip.pcap, 122.5 s: "(1 tail loss probe)", the PLC's own,
    // where the HMI's re-sent request ended it).
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:443");
    // The handshake as the server sees it: its SYN/ACK at once, the client's ACK a round
    // trip later.
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new().mss(1460));
    f.push(S2C, 100).flags(SYN | ACK).opts(Opts::new().mss(1460));
    f.push(C2S, 20_100);
    let mut t = 30_000i64;
    for _ in 0..10 {
        f.data(C2S, t, 200);
        for k in 0..3 {
            f.data(S2C, t + 20_000 + 100 * k, 1448);
        }
        f.push(C2S, t + 40_300);
        t += 100_000;
    }
    f.data(C2S, t, 200);
    let seg = f.data(S2C, t + 20_000, 1448).seq;
    let t0 = t + 20_000;
    // The client's request at t0 + 10 ms, lost: it advances the client's sequence only.
    let req = f.segments().iter().filter(|s| s.src.port() == 40000).map(|s| s.seq.wrapping_add(s.seq_len())).max().unwrap();
    f.push(S2C, t0 + 300_000).seq(seg).payload(1448).flags(ACK | PSH);
    f.push(C2S, t0 + 320_000).seq(req + 200);
    f.push(C2S, t0 + 480_000).seq(req).payload(200).flags(ACK | PSH);
    f.data(S2C, t0 + 485_000, 1448);
    f.push(C2S, t0 + 505_000);
    let c = common::analyze_flow(&f);
    assert_eq!(c.data_direction, 1);
    let stalls = &c.directions[1].stalls;
    let rto: Vec<_> = stalls.iter().filter(|s| s.cause == StallCause::RetransmissionTimeout).collect();
    assert_eq!(rto.len(), 2, "{stalls:?}");
    let outage = c.diagnosis.episodes.iter().find(|e| e.kind == "outage").unwrap_or_else(|| panic!("{:?}", c.diagnosis.episodes));
    assert!((outage.end - outage.start - 0.485).abs() < 1e-6, "{outage:?}");
    assert!(outage.text.contains("by 10.0.0.2:40000 re-sending its lost message"), "{}", outage.text);
}

/// A download captured at the server (the sender), 200 µs path: 1364-byte segments, the
/// client ACKing every second one at once. Ten pairs, then one lone 1364-byte segment
/// that the client holds its ACK for (a delayed ACK waits for a second segment, RFC 1122
/// §4.2.3.2), and `gap_us` later, with no ACK in between, the server's next writes
/// (1460 and 1364 bytes); `acked_at`: where Some(µs after the lone segment), the client's
/// delayed ACK of it comes then instead.
fn lone_segment(gap_us: i64, acked_at: Option<i64>) -> (Flow, i64) {
    let mut f = Flow::new("10.0.0.2:49197", "10.0.0.1:80");
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new().mss(1460));
    f.push(S2C, 10).flags(SYN | ACK).opts(Opts::new().mss(1460));
    f.push(C2S, 210);
    f.data(C2S, 1_000, 150);
    let mut t = 2_000i64;
    for _ in 0..10 {
        f.data(S2C, t, 1364);
        f.data(S2C, t + 100, 1364);
        f.push(C2S, t + 300);
        t += 4_000;
    }
    let lone = t;
    f.data(S2C, lone, 1364);
    if let Some(a) = acked_at {
        f.push(C2S, lone + a);
    }
    f.data(S2C, lone + gap_us, 1460);
    f.data(S2C, lone + gap_us + 20, 1364);
    f.push(C2S, lone + gap_us + 300);
    (f, lone)
}

#[test]
fn a_lone_segment_followed_by_data_no_ack_released_is_the_application() {
    // 16.7 ms after the lone segment, no ACK in between, one segment in flight: no window
    // or Nagle's algorithm let the data out (only an ACK does), and no timer fires this
    // soon (a probe at 2·SRTT + 200 ms with one segment in flight, RFC 8985 §7.2): the
    // server's application wrote then (nDPI exe_download_as_png, 1.887 s: the same 16.7 ms,
    // once "waiting on ACKs").
    let (f, lone) = lone_segment(16_700, None);
    let c = common::analyze_flow(&f);
    let stalls = &c.directions[1].stalls;
    let s = stalls.iter().find(|s| (s.start - lone as f64 / 1e6).abs() < 1e-6).unwrap_or_else(|| panic!("{stalls:?}"));
    assert!((s.duration - 0.0167).abs() < 1e-6, "{s:?}");
    assert_eq!(s.cause, StallCause::ApplicationIdle, "{s:?}");
    assert!(s.ended_by.contains("only the 1364-byte segment before the gap unacknowledged"), "{}", s.ended_by);
    // The same gap ended 0.1 ms after the peer's ACK of the lone segment (10 ms after
    // it): the ACK may have released the data — not this rule.
    let (f, lone) = lone_segment(10_100, Some(10_000));
    let c = common::analyze_flow(&f);
    let s = c.directions[1].stalls.iter().find(|s| (s.start - lone as f64 / 1e6).abs() < 1e-6).cloned();
    assert!(s.as_ref().map_or(true, |s| !s.ended_by.contains("only the 1364-byte segment")), "{s:?}");
    // 250 ms with no ACK: a probe timer could have sent the new data (2·SRTT + 200 ms):
    // not shown to be the application.
    let (f, lone) = lone_segment(250_000, None);
    let c = common::analyze_flow(&f);
    let s = c.directions[1].stalls.iter().find(|s| (s.start - lone as f64 / 1e6).abs() < 1e-6).unwrap_or_else(|| panic!("{:?}", c.directions[1].stalls));
    assert!(!s.ended_by.contains("only the 1364-byte segment"), "{s:?}");
}

#[test]
fn nfstream_alexa_115_the_clients_idle_time_before_a_lost_request_is_no_loss() {
    // Connection 115 (172.16.42.216:41913 ↔ 52.84.62.115:443), captured at the client.
    // The server's answer ends at 174.347 s (frame 3332), the client ACKs it all at
    // 174.354 s, then sends nothing until its 1290-byte request at 175.197 s (frame 3395);
    // lost, its tail loss probe re-sends it at 175.424 s (3407) and the server answers at
    // 175.506 s (3411, TSecr = 3407's TSval). 844 ms of the 1.159 s gap were the client's
    // own (in the sender's time), 226 ms its timer: application-idle, and the connection
    // is no longer "Loss limited" (its two other timer stalls, 336 ms, stay: 262 ms after
    // 2925 the client's re-sent request, and 74 ms ended by the server's tail-loss probe
    // of 34 bytes, frame 2967 — counted a probe, D-SACKed — `tail-loss-probe` since
    // stalls/timer_label.rs).
    let Some(conns) = common::corpus_connections("nfstream__nfstream__tests_pcaps_alexa-app.pcapng") else { return };
    let c = &conns[115];
    assert_eq!(c.endpoints[0], "172.16.42.216:41913");
    let s = c.directions[1].stalls.iter().find(|s| s.frame_before == 3332).expect("the 1.159 s gap");
    assert_eq!(s.frame_after, 3411);
    assert_eq!(s.cause, StallCause::ApplicationIdle, "{s:?}");
    assert!(s.ended_by.contains("first sent at 175.214 s (844 ms after everything was acknowledged: the peer's application), then lost and re-sent by its timer at 175.440 s"), "{}", s.ended_by);
    assert_ne!(c.diagnosis.limit, "loss", "{}", c.diagnosis.text);
    assert_eq!(c.directions[1].stalls.iter().filter(|s| s.cause == StallCause::RetransmissionTimeout).count(), 1);
    assert_eq!(c.directions[1].stalls.iter().filter(|s| s.cause == StallCause::TailLossProbe).count(), 1);
}

#[test]
fn ndpi_alexa_116_a_request_lost_twice_stays_the_peers_timer_and_the_outage_says_so() {
    // nDPI's copy, connection 116 (port 41914): the client's 1285-byte request (frame
    // 2916) is lost twice and re-sent by its probe (2953) and its timeout (2957); the
    // server's answer at 174.041 s (2958) echoes 2957's TSval. The server's second stall
    // (from its own probe, 2948) is the client's timers almost whole: rule 2c stays, and
    // the outage names both timers, the server's probe and the client's two re-sends.
    let Some(conns) = common::corpus_connections("ntop__nDPI__tests_cfgs_default_pcap_alexa-app.pcapng") else { return };
    let c = &conns[116];
    assert_eq!(c.endpoints[0], "172.16.42.216:41914");
    let s = c.directions[1].stalls.iter().find(|s| s.frame_before == 2948).expect("the wait for the request");
    assert_eq!(s.cause, StallCause::RetransmissionTimeout, "{s:?}");
    let outage = c.diagnosis.episodes.iter().find(|e| e.kind == "outage").expect("outage");
    assert!(
        outage.text.contains("(1 tail loss probe, and 1 tail loss probe and 1 retransmission timeout by 172.16.42.216:41914 re-sending its lost message)"),
        "{}",
        outage.text
    );
    assert!(outage.text.contains("it moved on only when a timer fired, its own or the peer's"), "{}", outage.text);
}

#[test]
fn cip_the_outage_at_122_s_names_the_hmis_re_sent_request() {
    // Connection 0, captured at the PLC's side: its 80-byte answer at 122.539 s (frame
    // 18882) goes unacknowledged — the HMI's request carrying that ACK (18884) was lost —
    // its probe re-sends it at 122.839 s (18899), and the HMI's timer re-sends the request
    // at 123.023 s (18904), which the PLC answers at 123.029 s (18906).
    let Some(conns) = common::corpus_connections("gopacket__gopacket__layers_testdata_cip.pcap") else { return };
    let outage = conns[0].diagnosis.episodes.iter().find(|e| e.kind == "outage").expect("outage");
    assert!(outage.text.contains("122.539 s–123.029 s (1 tail loss probe, and 1 tail loss probe by 10.200.1.18:2430 re-sending its lost message)"), "{}", outage.text);
}

#[test]
fn coap_mqtt_3_and_exe_download_as_png_no_wait_on_acks_no_ack_ended() {
    // nDPI coap_mqtt.pcap connection 3 (192.168.56.101:17501 → :53524): every ~107 ms a
    // 4-byte segment (frame 64 at 61.232 s), and 62 ms later an 86-byte one (frame 73),
    // with no packet of the peer's between: its ACK of the 4 bytes came only after the 86
    // (frame 76). Nothing released the 86 bytes: the broker's application wrote them. Eight
    // such gaps read "waiting on ACKs" (533 ms); none does now. nDPI exe_download_as_png:
    // the server's lone 1364-byte segment at 1.887 s (frame 95), its next 16.7 ms later
    // (96) with no ACK between: its application (the upstream) had no data sooner.
    if let Some(conns) = common::corpus_connections("ntop__nDPI__tests_cfgs_default_pcap_coap_mqtt.pcap") {
        let c = &conns[3];
        assert_eq!(c.endpoints[0], "192.168.56.101:17501");
        let d = &c.directions[0].stalls;
        assert_eq!(d.iter().filter(|s| s.cause == StallCause::AckWait).count(), 0, "{d:?}");
        let s = d.iter().find(|s| s.frame_before == 64).expect("frame 64's gap");
        assert_eq!((s.frame_after, s.cause), (73, StallCause::ApplicationIdle), "{s:?}");
        // The other direction's Nagle holds, each released by this side's 40 ms delayed ACK, stay.
        assert!(c.directions[1].stalls.iter().filter(|s| s.cause == StallCause::DelayedAck).count() >= 9);
    }
    if let Some(conns) = common::corpus_connections("ntop__nDPI__tests_cfgs_default_pcap_exe_download_as_png.pcap") {
        let s = conns[0].directions[1].stalls.iter().find(|s| s.frame_before == 95).expect("frame 95's gap");
        assert_eq!((s.frame_after, s.cause), (96, StallCause::ApplicationIdle), "{s:?}");
    }
}
