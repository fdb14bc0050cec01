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
    // SYN (frame 1, 0 s) → the ACK that completed the handshake (frame 5, 3.001 s; review
    // Y W3: the handshake's time runs to that ACK, RFC 9293 §3.5): 3.00 s, 30 round trips
    // of the 100 ms path. The SYN/ACK of 1.100 s passed the capture 1.9 s (> one round trip)
    // before the re-send of 3.000 s: it had not reached the client. Frame 5's TSecr 50000
    // is that SYN/ACK's TSval: answered 3.001 − 1.100 = 1.90 s after it passed.
    assert!(t.contains(
        " Setting the connection up took 3.00 s (frame 1 at 0.000 s → the ACK that completed it, frame 5 at 3.001 s), where the \
         path's round trip is 100 ms: 10.0.0.1:40000 re-sent its SYN at 1.000 s and 3.000 s (its retransmission timer, RFC 6298 §5); \
         10.0.0.2:443's SYN/ACK of 1.100 s passed the capture more than a round trip before the re-send of 3.000 s, so it had \
         not reached 10.0.0.1:40000 by then; that ACK echoes the timestamp of the \
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
    pushes_at(100_000, &[1_000_000, 3_000_000, 5_000_000, 7_000_000], reply_us)
}

/// [`pushes`] on a path of `rtt_us`, the server's messages at `at` (µs).
fn pushes_at(rtt_us: i64, at: &[i64], reply_us: i64) -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:443");
    f.handshake(0, rtt_us, Opts::new().mss(1000), Opts::new().mss(1000));
    f.data(C2S, rtt_us + 1_000, 200);
    for k in 0..20 {
        f.data(S2C, 2 * rtt_us + 1_000 + k * 10, 1000);
    }
    f.push(C2S, 2 * rtt_us + 1_300);
    for &s in at {
        f.data(S2C, s, 100);
        f.data(C2S, s + reply_us, 80);
        f.push(S2C, s + reply_us + rtt_us);
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
    // data); the ACK 6 (3.041 s) has TSecr 1411554697 and completed the handshake: 3.04 s
    // (review Y W3); the first data 8 (3.062 s). The
    // ClientHello 8, 11–12, 15–18, 23–27: 1, 2, 4, 5 segments of 1,024 B (the last 159 B),
    // 11,423 bytes. Pushes (server record → client record → server record): 289→291→293,
    // 299→300→302, 302→303→305, 305→306→308, 316→317→319, 319→320→322, 376→378→380,
    // 420→421→423: the server's every 0.947 s (420 → 423) to 2.43 s (299 → 302), the
    // client's replies 5.2 ms (420 → 421) to 99 ms (299 → 300) after.
    let Some(c) = common::corpus_connection(HUGE_CH, 0) else { return };
    let t = &c.diagnosis.text;
    assert!(t.contains(
        " Setting the connection up took 3.04 s (frame 1 at 0.000 s → the ACK that completed it, frame 6 at 3.041 s), where the \
         path's round trip is 141 ms: 172.30.84.193:40640 re-sent its SYN at 1.027 s and 3.039 s (its retransmission timer, RFC \
         6298 §5); 208.253.217.142:443's SYN/ACKs of 1.168 s and 2.182 s passed the capture more than a round trip before the \
         re-send of 3.039 s, so they had not reached 172.30.84.193:40640 by then; that ACK \
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
            "Setting the connection up took 3.51 s (frame 3307 at 305278600.936 s → the ACK that completed it, frame 3310 at \
             305278604.445 s), where the path's round trip is 527 µs: 10.0.2.15:1039 re-sent its SYN at 305278603.846 s (its \
             retransmission timer, RFC 6298 §5); 54.243.120.151:80's SYN/ACK passed the capture at 305278604.444 s."
        ), "{}", c.diagnosis.text);
    }
}

/// Review Y W3 (nfstream/nDPI `wechat.pcap` connection 44): a capture at the client of a
/// 269 ms path. SYN at 0 (TSval 100), SYN/ACK at 269 ms (TSval 9000, echoing 100), the
/// client's ACK at 269.1 ms (echoing 9000): the handshake complete in one round trip.
/// That ACK is lost beyond the capture, so the server's timer re-sends its SYN/ACK at
/// 1.560 s (TSval 10000) and the client ACKs it again; the client's first data comes at
/// 4.820 s. With `syn_resent` the client's SYN is also re-sent at 1 s and the SYN/ACK
/// comes only at 1.269 s.
fn completed_then_silent(syn_resent: bool) -> Flow {
    let ts = |v: u32, e: u32| Opts::new().ts(v, e);
    let mut f = Flow::new("192.168.1.103:58041", "203.205.147.171:443");
    let d = if syn_resent { 1_000_000 } else { 0 };
    f.push(C2S, 0).flags(SYN).ack(0).opts(ts(100, 0).mss(1000));
    if syn_resent {
        f.push(C2S, d).flags(SYN).ack(0).seq(1000).opts(ts(1100, 0).mss(1000));
    }
    f.push(S2C, d + 269_000).flags(SYN | ACK).ack(1001).opts(ts(9000, 100).mss(1000));
    f.push(C2S, d + 269_100).opts(ts(1369, 9000));
    f.push(S2C, d + 1_560_000).flags(SYN | ACK).seq(5000).ack(1001).opts(ts(10_000, 100).mss(1000));
    f.push(C2S, d + 1_560_100).opts(ts(2660, 10_000));
    f.data(C2S, d + 4_820_000, 500).opts(ts(5920, 10_000));
    f.push(S2C, d + 5_089_000).opts(ts(13_000, 5920));
    f.data(S2C, d + 5_090_000, 800).opts(ts(13_001, 5920));
    f.push(C2S, d + 5_090_100).opts(ts(5921, 13_001));
    f
}

#[test]
fn the_handshake_ends_at_the_ack_that_completed_it_not_at_the_first_data() {
    // SYN → ACK 269.1 ms, one round trip: not slow; the SYN/ACK at 1.560 s came after that
    // ACK (the server's timer on a lost ACK), and the 4.55 s to the data are the client
    // application's. Nothing of the setup is told.
    let t = common::analyze_flow(&completed_then_silent(false)).diagnosis.text;
    assert!(!t.contains("Setting the connection up"), "{t}");

    // With the SYN re-sent at 1 s: SYN (0 s) → ACK (frame 4, 1.269 s) = 1.27 s, over three
    // round trips; then the SYN/ACK re-sent at 2.560 s after that ACK, and the data at
    // 5.820 s, 4.55 s after the ACK (5.820 − 1.2691): the application's, said as such.
    let t = common::analyze_flow(&completed_then_silent(true)).diagnosis.text;
    assert!(t.contains(
        " Setting the connection up took 1.27 s (frame 1 at 0.000 s → the ACK that completed it, frame 4 at 1.269 s), where the \
         path's round trip is 269 ms: 192.168.1.103:58041 re-sent its SYN at 1.000 s (its retransmission timer, RFC 6298 §5);"
    ), "{t}");
    assert!(t.contains(
        " 203.205.147.171:443 re-sent its SYN/ACK at 2.560 s after that ACK had passed the capture: its timer, on an ACK lost \
         beyond the capture. The first data (frame 7 at 5.820 s) came 4.55 s after the connection was up: \
         192.168.1.103:58041's application's time, not the setup's."
    ), "{t}");
}

/// Review Y smaller note (zeek `ssh.pcap` connection 18): SYNs re-sent 110 ms and 100 ms
/// apart, same ISN, on a 1 ms path. RFC 6298 §2.1 starts the retransmission timer at
/// 1 s and §5.5 doubles it: these re-sends fit no such timer and are told only by how far
/// apart they came. The server answers each SYN within 1 ms; the client's ACK at 211 ms
/// echoes the first SYN/ACK's TSval (900), so those had not reached it.
#[test]
fn syn_re_sends_sooner_than_a_retransmission_timer_are_not_called_one() {
    let ts = |v: u32, e: u32| Opts::new().ts(v, e);
    let mut f = Flow::new("192.168.1.31:51489", "192.168.1.32:22");
    for (k, at) in [0i64, 110_000, 210_000].into_iter().enumerate() {
        f.push(C2S, at).flags(SYN).ack(0).seq(1000).opts(ts(100 + k as u32, 0).mss(1000));
        f.push(S2C, at + 1_000).flags(SYN | ACK).seq(5000).ack(1001).opts(ts(900 + k as u32, 100).mss(1000));
    }
    f.push(C2S, 211_100).opts(ts(200, 900));
    f.data(S2C, 212_000, 40).opts(ts(1000, 200));
    f.push(C2S, 213_000).opts(ts(201, 1000));
    f.data(C2S, 214_000, 40).opts(ts(202, 1000));
    f.push(S2C, 215_000).opts(ts(1001, 202));
    let t = common::analyze_flow(&f).diagnosis.text;
    assert!(t.contains("192.168.1.31:51489 re-sent its SYN at 0.110 s and 0.210 s (110 ms and 100 ms after the one before);"), "{t}");
    assert!(!t.contains("retransmission timer"), "{t}");
}

#[test]
fn answers_to_a_scripted_clients_quick_commands_are_no_pushes() {
    // Review Y W4 (community-shares `FTP.pcap` connection 1) on a 5 ms path: the server's
    // message every 40 ms, the client's next "command" 100 µs after each; the server's next
    // comes 40 − 0.1 − 5 = 34.9 ms of its own later (over four round trips, 20 ms): the old
    // rule read three pushes. But 40 ms is under 200 ms (and 8 round trips, under the
    // floor of max(5 × 5 ms, 200 ms)): no schedule of its own, so these are answers.
    let at = [100_000, 140_000, 180_000, 220_000, 260_000];
    let t = common::analyze_flow(&pushes_at(5_000, &at, 100)).diagnosis.text;
    assert!(!t.contains("of the exchanges itself"), "{t}");
    // The same path with the server's messages 400 ms apart (80 round trips, over 200 ms):
    // a schedule of its own, said.
    let at = [400_000, 800_000, 1_200_000, 1_600_000, 2_000_000];
    let t = common::analyze_flow(&pushes_at(5_000, &at, 100)).diagnosis.text;
    assert!(t.contains("10.0.0.2:443 started 4 of the exchanges itself"), "{t}");

    // Pushes 1 s, 4 s and 1 s apart (100 ms path; each over 5 round trips and 200 ms) keep
    // no schedule: the longest is 4 times the shortest, over PUSH_SPREAD (3).
    let t = common::analyze_flow(&pushes_at(100_000, &[1_000_000, 2_000_000, 6_000_000, 7_000_000], 20_000)).diagnosis.text;
    assert!(!t.contains("of the exchanges itself"), "{t}");
    // Evenly 1 s apart instead: pushes.
    let t = common::analyze_flow(&pushes_at(100_000, &[1_000_000, 2_000_000, 3_000_000, 4_000_000], 20_000)).diagnosis.text;
    assert!(t.contains("10.0.0.2:443 started 3 of the exchanges itself"), "{t}");
}

#[test]
fn review_y_wechat_44_and_ftp_1_read_as_they_happened() {
    // nfstream `wechat.pcap` connection 44 (tshark): SYN 1427 at 528.4335 s, SYN/ACK 1431
    // at 528.7026 s, the client's ACK 1432 at 528.7027 s (269 ms, one round trip); 1456 at
    // 529.994 s is the server's SYN/ACK re-sent after that ACK; the data 1478 at 533.258 s
    // is 4.55 s after the ACK: no handshake story.
    for name in ["nfstream__nfstream__tests_pcaps_wechat.pcap", "ntop__nDPI__tests_cfgs_default_pcap_wechat.pcap"] {
        if let Some(c) = common::corpus_connection(name, 44) {
            assert!(!c.diagnosis.text.contains("Setting the connection up"), "{}", c.diagnosis.text);
        }
    }
    // community-shares `FTP.pcap` connection 1 (tshark, FTP decode): 30 "230" → 31 "opts"
    // (+94 µs) → 32 "500" (+39 ms); 32 → 33 "syst" (+92 µs) → 34 "215" (+40 ms); 34 → 35
    // "site" → 36 (+20 ms), on a 4.9–7.8 ms path: the server answered each command.
    if let Some(c) = common::corpus_connection("realjimmy__sample-captures__community-shares_ftp_FTP.pcap", 1) {
        let t = &c.diagnosis.text;
        assert!(!t.contains("of the exchanges itself"), "{t}");
        assert!(t.contains("2.2.2.5:21 itself took 120 ms of the pauses to answer messages of 2.2.2.2:61651"), "{t}");
    }
}
