//! Re-sends set off by an ICMP "fragmentation needed" (review X class
//! C-PMTU-RESEND-AS-FAST, analysis/verdict/pmtu_resends.rs): the loss text must say the
//! router's message found the loss, not "a lost segment is re-sent a round trip later at
//! best … only when the sender's probe timer or retransmission timeout fires".
use crate::common;
use tcpscope_core::analysis::ConnectionSummary;
use tcpscope_core::synth::*;

/// ICMPv4 "fragmentation needed" (type 3 code 4, RFC 1191 §4) from 10.0.0.254 at
/// `t_us` after the flow's start, quoting `quoted`'s IP header and first 8 TCP bytes.
fn frag_needed(t_us: i64, mtu: u16, quoted: &Frame) -> Frame {
    let mut icmp = vec![3, 4, 0, 0, 0, 0, (mtu >> 8) as u8, mtu as u8];
    icmp.extend_from_slice(&quoted.net[..28]);
    let total = (20 + icmp.len()) as u16;
    let mut ip = vec![0x45, 0, (total >> 8) as u8, total as u8, 0, 0, 0, 0, 64, 1, 0, 0, 10, 0, 0, 254, 10, 0, 0, 1];
    ip.extend(icmp);
    Frame::new(Flow::EPOCH_NS + t_us * 1000, 0x0800, ip)
}

fn analyze(mut frames: Vec<Frame>) -> ConnectionSummary {
    frames.sort_by_key(|f| f.ts_ns);
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = tcpscope_core::session::analyze_bytes(&bytes, tcpscope_core::analysis::AnalysisOptions::default(), 1 << 20);
    s.analysis().expect("analysed").connections[0].clone()
}

/// A mail-style exchange captured at the client, 100-ms path: banner, four 10-B
/// commands each answered a round trip later (turns), then the message body: four
/// 1,460-B segments at 506 ms (IP packets of 1,500 B, relative seq 41–5,881) that a
/// router with a 1,492-B next hop drops, saying so 2.0, 2.5, 3.0 and 3.5 ms later.
/// The client re-sends at once at 1,452 B (first re-send 508.05 ms: 50 µs after the
/// first message), then two per ACK of the server (608.13 ms, 30 µs after the ACK of
/// 1,452 B; 708.23 ms, 30 µs after the ACK of 4,356 B): 1,452 × 4 + 32 = 5,840 B.
fn smtp_like() -> Vec<Frame> {
    smtp_like_late(0)
}

/// [`smtp_like`] with the client's re-sends and everything after them `late_us` later.
fn smtp_like_late(late_us: i64) -> Vec<Frame> {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:25");
    f.handshake(0, 100_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(S2C, 100_500, 100);
    for k in 0..4 {
        f.data(C2S, 101_000 + k * 101_000, 10);
        f.data(S2C, 201_000 + k * 101_000, 20);
    }
    let mut dropped = Vec::new();
    for k in 0..4u32 {
        f.push(C2S, 506_000).payload(1460);
        dropped.push(f.segments().last().unwrap().frame());
        let _ = k;
    }
    let base = 1001 + 40;
    let l = late_us;
    f.push(C2S, 508_050 + l).seq(base).payload(1452);
    f.push(S2C, 608_100 + l).ack(base + 1452);
    f.push(C2S, 608_130 + l).seq(base + 1452).payload(1452);
    f.push(C2S, 608_140 + l).seq(base + 2904).payload(1452);
    f.push(S2C, 708_200 + l).ack(base + 4356);
    f.push(C2S, 708_230 + l).seq(base + 4356).payload(1452);
    f.push(C2S, 708_240 + l).seq(base + 5808).payload(32);
    f.push(S2C, 808_300 + l).ack(base + 5840);
    f.data(S2C, 808_400 + l, 20);
    f.push(C2S, 808_500 + l);
    let mut frames = f.frames();
    for (k, q) in dropped.iter().enumerate() {
        frames.push(frag_needed(508_000 + 500 * k as i64, 1492, q));
    }
    frames
}

/// The five re-sends of relative 41–5,881 all follow the first message (frame 17 at
/// 508 ms) and carry bytes of the four quoted segments: the first left 50 µs after
/// it at 1,452 B, the last (32 B at 708.24 ms) 200 ms after it, each later one 30 or
/// 40 µs after an ACK of the server (≤ 1 ms): the generic clause is replaced.
#[test]
fn pmtu_resends_are_told_from_the_message() {
    let c = analyze(smtp_like());
    let t = &c.diagnosis.text;
    assert!(!t.contains("a round trip later at best"), "{t}");
    assert!(
        t.contains(
            "the path's MTU dropped 4 segments and its router said so at once: the first re-send left 50 µs after the message \
             (frame 17 → frame 18), at 1452 bytes, found by the message, not by duplicate ACKs or a timer; the last (frame 27) 200 ms \
             after it, each later one within 1 ms of an ACK of the peer, so the sender's window, not loss detection, spaced them"
        ),
        "{t}"
    );
}

/// CESNET ipfixprobe functional/inputs/smtp.pcap (review X, smtp): frames 22–25
/// (1,500 B) dropped by the PPPoE router 192.168.1.1, whose "fragmentation needed, MTU
/// 1492" is frame 26 (3.203055 s); the first re-send, frame 27 (1,452 B), left 55 µs
/// after it; the last, frame 36 (3.977754 s), 775 ms after it, 91 µs after the
/// server's ACK 34; frames 32–33 31 and 57 µs after ACK 31 (`tshark -r smtp.pcap`).
#[test]
fn smtp_pmtu_resends_are_told_from_the_message() {
    let Some(c) = common::corpus_connection("CESNET__ipfixprobe__tests_functional_inputs_smtp.pcap", 0) else { return };
    let t = &c.diagnosis.text;
    assert!(!t.contains("a round trip later at best"), "{t}");
    assert!(
        t.contains(
            "the path's MTU dropped 4 segments and its router said so at once: the first re-send left 55 µs after the message \
             (frame 26 → frame 27), at 1452 bytes, found by the message, not by duplicate ACKs or a timer; the last (frame 36) 775 ms \
             after it, each later one within 1 ms of an ACK of the peer, so the sender's window, not loss detection, spaced them"
        ),
        "{t}"
    );
}

/// The counters of [`smtp_like`]: its five re-sends are PMTU re-sends
/// (loss/pmtu_kind.rs), none a timeout, probe, fast or slow-start re-send. Each left after
/// a message, starts inside the segment it quoted (41–1,501, 1,501–2,961, 2,961–4,421 and
/// 4,421–5,881: the 3rd re-send, 2,945, inside the 2nd; the 5th, 5,849, inside the 4th), is
/// smaller than it (1,452 and 32 B < 1,460 B) and fits the 1,492-B MTU (1,452 + 40), and
/// none re-sends a byte an earlier one carried; the first left 50 µs after its message
/// (the client's own capture: no sender lag; ≤ 10 ms), so the sender acted on it.
#[test]
fn pmtu_resends_are_counted_apart() {
    let c = analyze(smtp_like());
    let d = &c.directions[0];
    assert_eq!(
        (d.retransmissions, d.pmtu_retransmissions, d.rto_events, d.tail_loss_probes, d.fast_retransmissions, d.slow_start_retransmissions, d.retransmitted_segments),
        (5, 5, 0, 0, 0, 0, 5)
    );
}

/// The same exchange with the client re-sending 300 ms after the messages (then as
/// before): 300 ms > 10 ms of reaction after the message, on a capture at the sender (lag
/// 0), is a retransmission timer's (a sender that ignored the message, RFC 1191 §6.4's
/// black hole), so none is a PMTU re-send, the kinds are the timers' and the ACKs' as
/// before this rule, and the loss text keeps its generic clause.
#[test]
fn a_smaller_re_send_long_after_the_message_is_the_timers() {
    let c = analyze(smtp_like_late(300_000));
    let d = &c.directions[0];
    assert_eq!((d.retransmissions, d.pmtu_retransmissions), (5, 0));
    assert_eq!(d.rto_events + d.tail_loss_probes + d.fast_retransmissions + d.slow_start_retransmissions, 5);
    assert!(!c.diagnosis.text.contains("the path's MTU dropped"), "{}", c.diagnosis.text);
}

/// The loss headline's share is of bytes re-sent (diagnosis_shares/pass.rs): CESNET smtp.pcap
/// conn 0 re-sent 1,452 × 4 + 32 B (frame 36 = 5959–7411 re-sends only 5959–5991, below the
/// highest byte sent, 5991; 5991–7411 were new) of the payload: 28.4 %, once 35.3 %
/// (7,260 B, every re-send whole). tshark: 23 data segments of 10.10.1.4, 20,545 B; the page's
/// 22 end at the transfer's end (4.366 s), before the 6-B QUIT: 5,840 / 20,539 = 28.4 % too.
#[test]
fn smtp_counts_re_sent_bytes_not_whole_re_sends() {
    let Some(c) = common::corpus_connection("CESNET__ipfixprobe__tests_functional_inputs_smtp.pcap", 0) else { return };
    let t = &c.diagnosis.text;
    assert!(t.starts_with("Loss limited this flow: 28.4 % of the bytes sent were retransmissions (5 of 22 data segments)"), "{t}");
}

/// CESNET ipfixprobe smtp.pcap conn 0 (tshark): ICMP 26, 28, 29, 30 (3.2031–3.2046 s, MTU
/// 1492) quote frames 22–25 (1,460 B at relative 151, 1611, 3071, 4531); re-sends of
/// 1,452 B: 27 (55 µs after 26), 32/33 (after ACK 31), 35/36 (after ACK 34; 36 =
/// 5959–7411 starts inside 4531–5991). There is no duplicate ACK in the connection. Before
/// this rule: 1 timeout + 4 slow-start re-sends; now 5 PMTU re-sends.
#[test]
fn smtp_counts_five_pmtu_resends() {
    for name in ["CESNET__ipfixprobe__tests_functional_inputs_smtp.pcap", "mushorg__go-dpi__godpi_example_dumps_smtp.pcap"] {
        let Some(c) = common::corpus_connection(name, 0) else { return };
        let d = &c.directions[0];
        assert_eq!(
            (d.retransmissions, d.pmtu_retransmissions, d.rto_events, d.tail_loss_probes, d.fast_retransmissions, d.slow_start_retransmissions),
            (5, 5, 0, 0, 0, 0),
            "{name}"
        );
    }
}
