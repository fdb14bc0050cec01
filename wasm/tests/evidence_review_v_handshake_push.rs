//! Issue 39, review V classes C-HANDSHAKE-UNTOLD and C-PUSH-AS-ANSWER, both on nDPI's
//! `tls_with_huge_ch.pcapng` (capture near the client, 141 ms path):
//! - the SYN at 0 s was re-sent at 1.027 and 3.039 s; the server's SYN/ACKs passed the
//!   capture at 1.168 and 2.182 s, but the client's ACK (frame 6, 3.041 s) echoes the
//!   first one's TSval; then its 11.4 KB ClientHello left in 1, 2, 4 and 5 segments a
//!   round trip. 3.8 s of 31.7 s, and the page said nothing of it
//!   (diagnosis/handshake_story.rs);
//! - from 9.8 s on the server sent a ~100-B record every 1–2.4 s and the client answered
//!   each within 5–99 ms, under the round trip: the page said the server "itself took
//!   11 s of the pauses to answer messages of 172.30.84.193" and gave the 400-B records
//!   between them the bulk advice "fewer, larger chunks would save up to that"
//!   (diagnosis/answer_waits.rs `Pushes`, diagnosis_episodes/chunk_turns.rs `words`).

use crate::common;

use tcpscope_core::decode::tcp_flags::{ACK, SYN};
use tcpscope_core::synth::*;

const HUGE_CH: &str = "ntop__nDPI__tests_cfgs_default_pcap_tls_with_huge_ch.pcapng";

/// A capture at the client of a 100 ms path (ISNs 1000 / 5000). The client's SYN at 0
/// (TSval 1000) is re-sent at 1.000 s (TSval 2000); the server's SYN/ACK (TSval 50000,
/// echoing 2000) passes the capture at 1.100 s but does not reach the client, which
/// re-sends its SYN at 3.000 s (TSval 4000) and completes the handshake at 3.001 s with
/// an ACK echoing 50000 (the SYN/ACK was held on the client's side of the capture).
/// Then its 12,000-byte request leaves in 1, 2, 4 and 5 segments of 1,000 B, each
/// flight on the server's ACK of the last (100 ms later), and the server answers with
/// 30 segments of 1,000 B.
fn slow_handshake() -> Flow {
    let ts = |v: u32, e: u32| Opts::new().ts(v, e);
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:443");
    f.push(C2S, 0).flags(SYN).ack(0).opts(ts(1000, 0).mss(1000));
    f.push(C2S, 1_000_000).flags(SYN).ack(0).seq(1000).opts(ts(2000, 0).mss(1000));
    f.push(S2C, 1_100_000).flags(SYN | ACK).ack(1001).opts(ts(50_000, 2000).mss(1000));
    f.push(C2S, 3_000_000).flags(SYN).ack(0).seq(1000).opts(ts(4000, 0).mss(1000));
    f.push(C2S, 3_001_000).opts(ts(4001, 50_000));
    let (mut t, mut c_ts, mut s_ts) = (3_002_000i64, 4002u32, 50_001u32);
    for flight in [1, 2, 4, 5] {
        for k in 0..flight {
            f.data(C2S, t + k * 10, 1000).opts(ts(c_ts, s_ts - 1));
        }
        c_ts += 1;
        t += 100_000;
        f.push(S2C, t).opts(ts(s_ts, c_ts - 1));
        s_ts += 1;
        t += 1_000;
    }
    for k in 0..30 {
        f.data(S2C, t + k * 10, 1000).opts(ts(s_ts, c_ts - 1));
    }
    f.push(C2S, t + 400).opts(ts(c_ts, s_ts));
    f
}

#[test]
fn a_slow_handshake_is_told_with_its_re_sends_its_echo_and_its_one_segment_start() {
    let c = common::analyze_flow(&slow_handshake());
    let t = &c.diagnosis.text;
    // SYN (frame 1, 0 s) → the first data (frame 6, 3.002 s): 3.00 s, 30 round trips of
    // the 100 ms path. The SYN/ACK of 1.100 s passed the capture 1.9 s (> one round trip)
    // before the re-send of 3.000 s: it had not reached the client. Frame 5's TSecr 50000
    // is that SYN/ACK's TSval: answered 3.001 − 1.100 = 1.90 s after it passed.
    assert!(t.contains(
        " Setting the connection up took 3.00 s (frame 1 at 0.000 s → the first data, frame 6 at 3.002 s), where the path's \
         round trip is 100 ms: 10.0.0.1:40000 re-sent its SYN at 1.000 s and 3.000 s (its retransmission timer, RFC 6298 §5); \
         10.0.0.2:443's SYN/ACK of 1.100 s passed the capture more than a round trip before the re-send of 3.000 s, so it had \
         not reached 10.0.0.1:40000 by then; its ACK completing the handshake (frame 5 at 3.001 s) echoes the timestamp of the \
         SYN/ACK of 1.100 s (TSecr, RFC 7323 §4.3), answered 1.90 s after it passed the capture, where a round trip takes 100 ms."
    ), "{t}");
    // 12 segments from a window of one: 1 + 2 + 4 + 5, four round trips (3.002 → 3.305 s);
    // from ten (10 + 2): two, so two round trips (200 ms) sooner.
    assert!(t.contains(
        " After its re-sent SYN 10.0.0.1:40000 started from a one-segment window (RFC 5681 §3.1): its first 12 KiB left in 4 \
         round trips of 1, 2, 4 and 5 segments (3.002 s → 3.305 s), where an initial window of ten segments (RFC 6928) would \
         have needed 2, about 200 ms sooner."
    ), "{t}");

    // The same exchange with the SYN answered at once (no re-send, SYN/ACK after one round
    // trip, data at 101 ms): nothing to tell.
    let mut quick = Flow::new("10.0.0.1:40000", "10.0.0.2:443");
    quick.handshake(0, 100_000, Opts::new().mss(1000), Opts::new().mss(1000));
    for k in 0..12 {
        quick.data(C2S, 101_000 + k * 10, 1000);
    }
    quick.push(S2C, 201_000);
    for k in 0..30 {
        quick.data(S2C, 202_000 + k * 10, 1000);
    }
    quick.push(C2S, 302_400);
    let t = common::analyze_flow(&quick).diagnosis.text;
    assert!(!t.contains("Setting the connection up"), "{t}");
}

/// A capture at the client of a 100 ms path: the client's 200-B request at 101 ms, the
/// server's 20,000-B answer at 201 ms, then a 100-B message of the server at 1, 3, 5 and
/// 7 s, each answered by the client's 80-B message `reply_us` after it passed the
/// capture; the server ACKs each a round trip after.
fn pushes(reply_us: i64) -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:443");
    f.handshake(0, 100_000, Opts::new().mss(1000), Opts::new().mss(1000));
    f.data(C2S, 101_000, 200);
    for k in 0..20 {
        f.data(S2C, 201_000 + k * 10, 1000);
    }
    f.push(C2S, 201_300);
    for s in [1_000_000, 3_000_000, 5_000_000, 7_000_000] {
        f.data(S2C, s, 100);
        f.data(C2S, s + reply_us, 80);
        f.push(S2C, s + reply_us + 100_000);
    }
    f
}

#[test]
fn a_senders_own_messages_answered_at_once_are_pushes_not_slow_answers() {
    // Each 2-s pause before the server's message at 3, 5 and 7 s holds the client's reply,
    // which came 20 ms after the server's previous message passed the capture (near the
    // client: under the 100 ms round trip, the client's own quick reply), and the server's
    // next message 2 s − 20 ms − 100 ms = 1.88 s of its own after that reply (over four
    // round trips): three pushes, every 2 s.
    let c = common::analyze_flow(&pushes(20_000));
    let t = &c.diagnosis.text;
    assert_eq!(c.data_direction, 1, "{t}");
    assert!(t.contains(
        " 10.0.0.2:443 started 3 of the exchanges itself, from frame 26 at 1.000 s on: it sent a message every 2 s of its own, \
         and 10.0.0.1:40000 replied to each within 20 ms of receiving it, under the 100 ms round trip (a reply, not a request), \
         so those pauses were 10.0.0.2:443's own schedule (a push or a heartbeat), not time it took to answer."
    ), "{t}");
    assert!(!t.contains("itself took"), "{t}");

    // The client's messages 500 ms after the server's (five round trips: its own, no
    // quick reply): the server's next, 1.5 s − 100 ms later, answers it as far as the
    // capture can tell, and is said so.
    let t = common::analyze_flow(&pushes(500_000)).diagnosis.text;
    assert!(!t.contains("started 3 of the exchanges itself"), "{t}");
    assert!(t.contains("10.0.0.2:443 itself took"), "{t}");
}

#[test]
fn tls_with_huge_ch_tells_its_handshake_and_its_servers_pushes() {
    // tshark (frames as in review V): SYN 1 (0 s), re-sent 2 (1.027 s) and 5 (3.039 s);
    // SYN/ACKs 3 (1.168 s, TSval 1411554697), 4 (2.182 s), 9 (3.179 s, after the first
    // data); the ACK 6 (3.041 s) has TSecr 1411554697; the first data 8 (3.062 s). The
    // ClientHello 8, 11–12, 15–18, 23–27: 1, 2, 4, 5 segments of 1,024 B (the last 159 B),
    // 11,423 bytes. Pushes (server record → client record → server record): 289→291→293,
    // 299→300→302, 302→303→305, 305→306→308, 316→317→319, 319→320→322, 376→378→380,
    // 420→421→423: the server's every 0.947 s (420 → 423) to 2.43 s (299 → 302), the
    // client's replies 5.2 ms (420 → 421) to 99 ms (299 → 300) after.
    let Some(c) = common::corpus_connection(HUGE_CH, 0) else { return };
    let t = &c.diagnosis.text;
    assert!(t.contains(
        " Setting the connection up took 3.06 s (frame 1 at 0.000 s → the first data, frame 8 at 3.062 s), where the path's \
         round trip is 141 ms: 172.30.84.193:40640 re-sent its SYN at 1.027 s and 3.039 s (its retransmission timer, RFC 6298 §5); \
         208.253.217.142:443's SYN/ACKs of 1.168 s and 2.182 s passed the capture more than a round trip before the re-send of \
         3.039 s, so they had not reached 172.30.84.193:40640 by then; its ACK completing the handshake (frame 6 at 3.041 s) \
         echoes the timestamp of the SYN/ACK of 1.168 s (TSecr, RFC 7323 §4.3), answered 1.87 s after it passed the capture, \
         where a round trip takes 141 ms."
    ), "{t}");
    assert!(t.contains("its first 11 KiB left in 4 round trips of 1, 2, 4 and 5 segments (3.062 s → 3.638 s), where an initial window of ten segments (RFC 6928) would have needed 2, about 281 ms sooner."), "{t}");
    assert!(t.contains(
        "208.253.217.142:443 started 8 of the exchanges itself, from frame 289 at 9.806 s on: it sent a message every 947 ms–2.4 s \
         of its own, and 172.30.84.193:40640 replied to each within 99 ms of receiving it, under the 141 ms round trip"
    ), "{t}");
    assert!(!t.contains("itself took"), "{t}");
    // The 15 turns inside the 3.8–9.8 s burst: 400-B records per 380-B record, messages.
    assert!(t.contains("an interactive exchange, message for message, not a transfer cut into chunks."), "{t}");
    assert!(!t.contains("fewer, larger chunks"), "{t}");
}

#[test]
fn neither_rule_speaks_where_its_evidence_is_thin() {
    // snabb `telnet-cooked` connection 0 (tshark): the server's option negotiation and
    // login steps (15 → 17 → 19, 42 → 43 → 45 "Last login" 1.28 s later) look like three
    // pushes, but hold under 10 % of a 39.6-s session: no push is said (nor were waits).
    if let Some(c) = common::corpus_connection("snabbco__snabb__lib_pflua_tests_data_telnet-cooked.pcap", 0) {
        assert!(!c.diagnosis.text.contains("of the exchanges itself"), "{}", c.diagnosis.text);
    }
    // asis-quals `sample_traffic` connection 77 (tshark): one SYN (1725, 24.398 s), one
    // SYN/ACK before the first data (1816, 24.901 s; its copy 1904 at 25.252 s came after
    // the data): no re-send tells why the SYN/ACK took 503 ms, so no handshake story.
    let asis = "ctfs__write-ups-2015__asis-quals-ctf-2015_web_strange-authen_strangeauthen.asis-ctf.ir_misc_sample_traffic.pcap";
    if let Some(c) = common::corpus_connection(asis, 77) {
        assert!(!c.diagnosis.text.contains("Setting the connection up"), "{}", c.diagnosis.text);
    }
    // mercury `dns_packet.capture2` connection 117 (tshark): SYN 3307 at 305278600.936 s,
    // re-sent 3308 at 603.846 s, SYN/ACK 3309 at 604.444 s (after the re-send: nothing
    // said of it reaching late), ACK 3310, data 3311 at 604.445 s; no timestamps.
    if let Some(c) = common::corpus_connection("cisco__mercury__unit_tests_pcaps_dns_packet.capture2.pcap", 117) {
        assert!(c.diagnosis.text.contains(
            "Setting the connection up took 3.51 s (frame 3307 at 305278600.936 s → the first data, frame 3311 at 305278604.445 s), \
             where the path's round trip is 527 µs: 10.0.2.15:1039 re-sent its SYN at 305278603.846 s (its retransmission timer, \
             RFC 6298 §5); 54.243.120.151:80's SYN/ACK passed the capture at 305278604.444 s; its ACK completed the handshake \
             (frame 3310 at 305278604.445 s)."
        ), "{}", c.diagnosis.text);
    }
}
