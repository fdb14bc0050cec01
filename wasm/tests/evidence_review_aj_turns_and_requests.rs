//! Session 42 task D: two classes of the stall/turn rules, on the public captures that
//! showed them (each number checked with tshark `-T fields -e frame.number -e
//! frame.time_relative -e tcp.seq -e tcp.len -e tcp.ack -e tcp.flags.str`).
//! - An ACK-clocked flight is no request/response turn (review AK/E notes; issue 39 §8):
//!   verdict/diagnosis_shares/queued_write.rs.
//! - A peer request first sent before the gap is no pause of the peer's (review AJ
//!   C-PEER-REQUEST-LOSS-AS-ACK-WAIT's mechanism): stalls/request_turn.rs.
use crate::common;

const J1: &str = "p4-team__ctf__2018-12-15-trendmicro_j1_attack.pcap";
const CONSTELLATION: &str = "p4-team__ctf__2018-09-15-trendmicro_misc_constellation_traffic.pcap";
const CN: &str = "bhavesh7reddy__IP-Address-Analyser__cn.pcapng";

/// j1_attack connection 6 (192.168.1.230:49229 → 185.17.121.200:80, captured at the
/// client): a 271,974-byte POST body in slow start, TSO super-frames of 2,920 (frame
/// 1040), 5,840 (1043), 11,680 (1048), 23,360 (1055) … bytes, none with PSH until the
/// last (1133). The server's ACK of the whole second flight (1045, ACK 8761 at 6.691505 s)
/// and its early "HTTP/1.0 200 OK" headers (1046–1047, 17 + 87 B) came in the same
/// microsecond; the client's next flight (1048) followed 31 µs later. Frame 1043 is 4 full
/// segments without PSH: the write went on past it, and the ACK released the next flight
/// (RFC 1122 §4.2.2.2, RFC 5681 §3). Once "1 time the sender, with everything
/// acknowledged, sent more only on the peer's next message … 14 % of the time".
#[test]
fn j1_an_ack_clocked_flight_is_no_turn() {
    let Some(c) = common::corpus_connection(J1, 6) else { return };
    let t = &c.diagnosis.text;
    assert_eq!(c.diagnosis.shares.turns, 0.0, "{t}");
    assert!(!t.contains("next message"), "{t}");
    // Read as rule 4a reads it: the 31 µs from the ACK to the next flight are the
    // sender's (its stack's turnaround), the 358 µs before it `other`; main said 2 %.
    assert!(c.diagnosis.shares.application < 0.05, "{:?}", c.diagnosis.shares);
}

/// constellation connection 4 (192.168.0.17:11494 → 64.4.54.254:443): the client's
/// 234-byte message with PSH (frame 1816, 8.268 s), the server's 90-byte answer (1846,
/// 8.465 s), the client's next five segments 0.24 ms after it (1847–1851): the client's
/// write had ended, and it sent on the server's message — a real turn, kept.
/// Connection 2 (34.195.196.96:443 → 192.168.0.17:1581): the client's 63-byte messages
/// every 10 s (1582, 5429, 9266, …), each answered by the server's 63 bytes ~50 ms later
/// (1607, 5455, 9291, …), kept as the server waiting for the client's next message.
#[test]
fn constellation_real_turns_are_kept() {
    let Some(c4) = common::corpus_connection(CONSTELLATION, 4) else { return };
    assert!(c4.diagnosis.text.contains("was the wait for 64.4.54.254:443's next message"), "{}", c4.diagnosis.text);
    let Some(c2) = common::corpus_connection(CONSTELLATION, 2) else { return };
    assert!(c2.diagnosis.text.contains("waiting for 192.168.0.17:1581's next message"), "{}", c2.diagnosis.text);
}

/// cn.pcapng connection 16 (142.250.195.195:443 → 192.168.122.81:60099, captured at the
/// client): the client's request 1223–1533 first sent at 8.987 s (frame 497), before the
/// server's last data (546, 9.1813 s, ACKed by 547); its 39-byte follow-up (548,
/// 9.1816 s) is the first new payload in the gap, and the client's timer re-sends from
/// 1223 (557 at 9.614 s, 588 at 10.741 s). The gap is one stall, never split at 548 as
/// the client's pause: its timer ran from 497. The server's TSval moved 90 ms across the
/// 1.79 s gap (…813 at 546, …903 at 593), and its echoes (…721 at 593, …903 at 619 and
/// 628) never echo a re-send's TSval (…8349 at 557, …9476 at 588): it answered the
/// original request before any re-send reached it, and its answer was held on the way
/// (rule 3a), which the stall says.
#[test]
fn cn_request_first_sent_before_the_gap_is_one_stall_held_on_the_path() {
    let Some(c) = common::corpus_connection(CN, 16) else { return };
    let s = &c.directions[1].stalls;
    assert_eq!((s[0].frame_before, s[0].frame_after), (546, 593), "{s:?}");
    assert!(s[0].ended_by.contains("held on the path"), "{s:?}");
}

/// Synthetic (client-side capture, 10 ms round trip): the client's request of 200 bytes
/// first sent at 30.5 ms, while the server's 3 × 1448 B (30–32 ms) were still coming,
/// and lost; the client ACKs the server's data at 33 ms and sends a 50-byte follow-up at
/// 0.433 s; its timer re-sends both (250 bytes from the request's first byte) at 1.433 s;
/// the server answers at 1.444 s. The server's wait, 0.032 → 1.444 s, is one loss: the
/// client's timer ran from 30.5 ms (RFC 6298 §5.1), so the 0.401 s before the follow-up
/// was no pause of the client's (before: split into 0.401 s `application-idle` and 1.011 s
/// `retransmission-timeout` at the follow-up).
#[test]
fn a_request_first_sent_before_the_gap_is_no_pause() {
    use tcpscope_core::analysis::AnalysisOptions;
    use tcpscope_core::session::analyze_bytes;
    use tcpscope_core::synth::*;
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 20_000, 100);
    f.data(S2C, 30_000, 1448);
    f.data(C2S, 30_500, 200);
    let req = f.segments().last().unwrap().seq;
    f.data(S2C, 31_000, 1448).ack(req);
    f.data(S2C, 32_000, 1448).ack(req);
    f.push(C2S, 33_000);
    f.data(C2S, 433_000, 50);
    f.data(C2S, 1_433_000, 250).seq(req);
    f.data(S2C, 1_444_000, 1448);
    f.push(C2S, 1_445_000);
    let bytes = write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let c = &s.analysis().unwrap().connections[0];
    let st: Vec<(f64, f64, String)> = c.directions[1].stalls.iter().map(|s| (s.start, s.duration, cause(s.cause))).collect();
    // 1.444 − 0.032 = 1.412 s, one stall of the client's timer (rule 2c).
    assert_eq!(st, [(0.032, 1.412, "retransmission-timeout".to_string())], "{:?}", c.directions[1].stalls);
}

fn cause(c: tcpscope_core::analysis::stalls::cause::StallCause) -> String {
    serde_json::to_value(c).unwrap().as_str().unwrap().to_string()
}
