//! Issue 39 review class X: a short transfer that spent its life in slow start (RFC 5681
//! §3.1: the congestion window grows by a segment per ACK, doubling each round trip from
//! the initial window, RFC 6928's 10 segments) and ran out of data before the growth
//! stopped was "The congestion window or the path's capacity was the limit". The path's
//! capacity never showed: the time was round trips (verdict/diagnosis/slow_start_words.rs).
use crate::common;
use tcpscope_core::synth::*;

/// Captured at the sender, a 50 ms path: a 100-byte request at 60 ms, then the reply in
/// rounds of 10, 20, 40 and 80 segments of 1448 B, one round trip apart (100 µs between
/// segments: 116 Mbit/s while sending), then the last 30; the client ACKs each segment
/// 50 ms after it was sent. Each round is twice the one before (every ACK of a round
/// adds a segment, RFC 5681 §3.1): 180 segments, 260,640 B, in 5 round trips.
fn ramp() -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 50_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    f.data(C2S, 60_000, 100);
    let mut t0 = 110_000;
    for n in [10, 20, 40, 80, 30] {
        for k in 0..n {
            f.data(S2C, t0 + k * 100, 1448);
            f.push(C2S, t0 + k * 100 + 50_000);
        }
        t0 += 50_000;
    }
    f
}

#[test]
fn a_transfer_that_ended_in_slow_start_is_said_so() {
    let c = common::analyze_flow(&ramp());
    let d = &c.diagnosis;
    assert_eq!(d.limit, "path", "{}", d.text);
    assert!(
        d.text.starts_with(
            "Slow start took the whole transfer: the sender began with 10 segments (14 KiB) in its first round trip and \
             grew its flight each round trip as slow start does (RFC 5681 §3.1: up to twice the flight per round trip): \
             10, 20, 40, 80, 30 segments per round trip of the path over the 5 round trips (a path RTT of 50 ms) it took \
             to send 255 KiB."
        ),
        "{}",
        d.text
    );
    assert!(d.text.contains("a faster link would not"), "{}", d.text);
    assert!(!d.text.contains("the path's capacity was the limit"), "{}", d.text);
}

/// The same flight sizes held level (80 segments each round trip after the ramp): a
/// window that stopped growing, not a transfer that ended in slow start.
#[test]
fn a_flow_that_levelled_off_is_not_called_slow_start() {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 50_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    f.data(C2S, 60_000, 100);
    let mut t0 = 110_000;
    for n in [10, 20, 40, 80, 80, 80, 80, 80, 30] {
        for k in 0..n {
            f.data(S2C, t0 + k * 100, 1448);
            f.push(C2S, t0 + k * 100 + 50_000);
        }
        t0 += 50_000;
    }
    let c = common::analyze_flow(&f);
    assert!(!c.diagnosis.text.starts_with("Slow start"), "{}", c.diagnosis.text);
}

/// zeek's `tcp/timestamp.pcap` (captured at the client, 51 ms path): 1,000,000 B from
/// 192.168.2.20:12345 in flights of 10, 20, 40 and 80 segments one round trip apart
/// from its first data segment at 0.103 s, then more each round trip, no re-send;
/// before: "The congestion window or the path's capacity was the limit".
#[test]
fn corpus_zeek_tcp_timestamp_ended_in_slow_start() {
    let Some(bytes) = common::corpus("zeek__zeek__testing_btest_Traces_tcp_timestamp.pcap") else { return };
    let s = tcpscope_core::session::analyze_bytes(&bytes, tcpscope_core::analysis::AnalysisOptions::default(), 1 << 30);
    let c = &s.analysis().expect("analysed").connections[0];
    assert_eq!(c.diagnosis.limit, "path");
    assert!(c.diagnosis.text.starts_with("Slow start took the whole transfer: the sender began with 10 segments (14 KiB)"), "{}", c.diagnosis.text);
    // tshark, 50.833 ms windows from 1/4 of one before the first data segment: 10 20 40
    // 78 11 169 320 43 (the 80-segment flight straddles a window's edge).
    assert!(c.diagnosis.text.contains("10, 20, 40, 78, 11, 169, 320, 43 segments per round trip of the path over the 8 round trips (a path RTT of 51 ms) it took to send 977 KiB"), "{}", c.diagnosis.text);
}

/// Issue 39 review AD class C-SLOWSTART-MISSED: the ramp read from the bulk answer, not
/// from the sender's first data. A TLS-like exchange before the request — the server's
/// 4-segment first flight (ServerHello, certificate) at 110 ms, its 51-B Finished at 210 ms
/// after the client's 100 B — then the 450-B request at 260 ms and the answer in
/// `rounds` one 50-ms round trip apart from 310 ms, each segment ACKed 50 ms after it
/// (a sender-side capture). Read from the first data segment, the rounds of the
/// handshake turns are empty and the ramp unreadable; RFC 5681 §4.1 restarts an idle
/// window and the turns are messages, not the transfer. With `lose`, the 6th segment of
/// the 40-segment round is lost: the client's ACKs stay at it (34 duplicates) and the
/// server re-sends it after the duplicates, inside the next round — loss recovery, which ends slow start
/// (RFC 5681 §3.2: ssthresh halves), so no "Slow start" sentence.
fn answer_after_turns(rounds: &[i64], lose: bool) -> (Flow, u32) {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:443");
    f.handshake(0, 50_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    f.data(C2S, 60_000, 300);
    for k in 0..4 {
        f.data(S2C, 110_000 + k * 100, 1448);
    }
    f.push(C2S, 160_000);
    f.data(C2S, 160_100, 100);
    f.data(S2C, 210_000, 51);
    f.data(C2S, 260_000, 450);
    let first = f.segments().len() as u32 + 1;
    let mut t0 = 310_000;
    let mut lost = None;
    for (r, &n) in rounds.iter().enumerate() {
        if let Some(seq) = lost.take() {
            // After the 34 duplicate ACKs (the last at 3.9 ms into the round).
            f.data(S2C, t0 + 4_050, 1448).seq(seq);
        }
        for k in 0..n {
            f.data(S2C, t0 + k * 100, 1448);
            if lose && r == 2 && k == 5 {
                lost = Some(f.segments().last().expect("pushed").seq);
            }
            let ack = f.push(C2S, t0 + k * 100 + 50_000);
            if let Some(seq) = lost {
                ack.ack(seq);
            }
        }
        t0 += 50_000;
    }
    (f, first)
}

#[test]
fn slow_start_is_read_from_the_answer_after_the_handshake_turns() {
    let (f, first) = answer_after_turns(&[10, 20, 40, 80, 30], false);
    let c = common::analyze_flow(&f);
    let d = &c.diagnosis;
    assert_eq!(d.limit, "path", "{}", d.text);
    // 180 answer segments × 1448 B = 260,640 B: 255 KiB; the handshake's 5,843 B before
    // the request are 2 % of the bytes, under the 20 % the answer may leave out.
    let lead = format!(
        "Slow start took the whole answer, which followed the peer's last message: from its first segment (frame {first} \
         at 0.310 s) the sender began with 10 segments (14 KiB) in its first round trip and grew its flight each round \
         trip as slow start does (RFC 5681 §3.1: up to twice the flight per round trip): 10, 20, 40, 80, 30 segments per \
         round trip of the path over the 5 round trips (a path RTT of 50 ms) it took to send 255 KiB."
    );
    assert!(d.text.starts_with(&lead), "{}", d.text);
    assert!(d.text.contains("Before the answer, "), "{}", d.text);
}

#[test]
fn a_loss_recovered_inside_the_answer_is_no_slow_start_to_the_end() {
    let (f, _) = answer_after_turns(&[10, 20, 40, 80, 30], true);
    let c = common::analyze_flow(&f);
    let sender = &c.directions[1];
    assert_eq!(sender.retransmissions, 1, "the one re-send");
    assert_eq!(sender.spurious_retransmissions, 0, "a real loss: the ACKs stayed at the hole");
    assert!(!c.diagnosis.text.starts_with("Slow start"), "{}", c.diagnosis.text);
}

/// elh313 compnet `http4.pcapng` connection 18 (receiver side, macOS Wi-Fi, 183 ms): the
/// TLS handshake turns, then the response from frame 167 (8.800 s). tshark, 183 ms windows
/// from a quarter round trip before frame 167: 10, 20, 40, 75, 40, 128, 36 segments; no
/// re-send inside it (4 segments out of order at 9.257 s, tshark `out_of_order`; the one
/// re-send is the server's FIN, frame 808 at 15.167 s, after the transfer's end at
/// 9.880 s). Before: "The congestion window or the path's capacity was the limit".
#[test]
fn corpus_elh313_http4_answer_in_slow_start() {
    let Some(c) = common::corpus_connection("elh313__compnet__http4.pcapng", 18) else { return };
    let t = &c.diagnosis.text;
    assert!(t.starts_with("Slow start took the whole answer, which followed the peer's last message: from its first segment (frame 167 at 8.800 s)"), "{t}");
    assert!(t.contains("10, 20, 40, 75, 40, 128, 36 segments per round trip of the path over the 7 round trips (a path RTT of 183 ms)"), "{t}");
}

/// nDPI `1kxun.pcap` connection 60 (data segments only, 238 ms): two answers, the second
/// after the client's next request (frame 1419) carrying 43 KiB of the 96 KiB. Read from
/// the first data segment, the two answers made "1, 3, 15, 5, 6 segments" a ramp; the last
/// answer alone is under 80 % of the bytes: no slow start to the end is said.
#[test]
fn corpus_1kxun_two_answers_are_not_one_ramp() {
    let Some(c) = common::corpus_connection("ntop__nDPI__tests_cfgs_default_pcap_1kxun.pcap", 60) else { return };
    assert!(!c.diagnosis.text.starts_with("Slow start"), "{}", c.diagnosis.text);
}

/// p4-team trendmicro `j1_attack` #6 (review AI W5): the upload's flights of 2, 4, 8, 16,
/// 32, 64 segments (TSO frames of 2,920 … 64,240 B at the sender) began at frame 1040;
/// the server's 17 + 87 B (frames 1046/1047) came with the ACK of all (frame 1045), and
/// frame 1048 left 31 µs later on that ACK. No "answer" from frame 1048. And the last
/// round ran at the link's rate: tshark `ack_rtt` 284 µs for frame 1040, 750 µs and
/// 1,308 µs for the last frames (1085, 1132) on a 168-µs path — twice the path RTT, a
/// queue (review AI W3): no slow start to the end either.
#[test]
fn corpus_trendmicro_j1_attack_flight_not_an_answer() {
    let Some(c) = common::corpus_connection("p4-team__ctf__2018-12-15-trendmicro_j1_attack.pcap", 6) else { return };
    let t = &c.diagnosis.text;
    assert!(!t.contains("frame 1048"), "{t}");
    assert!(!t.starts_with("Slow start"), "{t}");
}

/// Review AI W3: srd373 `tcp.pcapng` #7, an upload whose flights doubled (10, 20, 40, 54)
/// while tshark's `ack_rtt` rose from 43 ms to 151–167 ms on a 41-ms path: a queue at the
/// bottleneck, which the last round reached. Not "never reached the path's rate".
#[test]
fn corpus_srd373_queue_is_no_slow_start_to_the_end() {
    let Some(c) = common::corpus_connection("srd373__wireshark_TCP__tcp.pcapng", 7) else { return };
    let t = &c.diagnosis.text;
    assert!(!t.starts_with("Slow start"), "{t}");
    assert!(t.contains("packets queued at the bottleneck"), "{t}");
}

/// Review AI W1: realjimmy `c05-http-reply-r1` #107, 12 segments at a steady 1.84-ms
/// spacing, flights of 2, 3, 2, 3, 3 by the ACK clock: no growth, no slow start.
#[test]
fn corpus_c05_paced_flow_is_no_slow_start() {
    let Some(c) = common::corpus_connection("realjimmy__sample-captures__wireshark-samples_files_protos-test-suite-traffic_c05-http-reply-r1.pcap", 107) else { return };
    assert!(!c.diagnosis.text.starts_with("Slow start"), "{}", c.diagnosis.text);
}
