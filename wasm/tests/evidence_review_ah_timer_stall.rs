//! Issue 39, review AH class C-RTO-STALL-WITHOUT-TIMEOUT (known since review AD): a
//! stall's timer label follows what the counters (loss/retrans_kinds.rs, checked
//! against the kernel's nstat) say of the re-send that ended it (stalls/timer_label.rs):
//! a tail-loss probe is its own cause (RFC 8985 §7), a re-send answering the peer's
//! re-sent SYN/ACK is the peer's timer, one answering the peer's packet is a wait on it,
//! and only a counted timeout is "retransmission timeout". The counters are not changed.

use crate::common;
use tcpscope_core::analysis::audit::audit;
use tcpscope_core::analysis::{AnalysisOptions, StallCause};
use tcpscope_core::session::analyze_bytes;

/// The analysis of a corpus capture, None where the corpus is absent.
fn analysed(name: &str) -> Option<tcpscope_core::analysis::Analysis> {
    let bytes = common::corpus(name)?;
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    Some(s.analysis().expect("analysed").clone())
}

#[test]
fn corpus_a_probe_d_sacked_is_a_tail_loss_probe_not_a_timeout() {
    // brianlochanan android-runner test.pcapng conn 1 (SSH, captured at the server, RTT
    // 0.6 ms): f1690 re-sends seq 37045 41 ms after f1689 with 3 segments out, and f1694
    // SACKs 37045–37113 below its ACK 37113 (a D-SACK, RFC 2883): the probe timer's,
    // needless. The counters: tailLossProbes 1, rtoEvents 0. Was "Other stalls: 41 ms
    // retransmission timeout".
    let Some(a) = analysed("brianlochanan__android-runner__test.pcapng") else { return };
    let c = a.connections.iter().find(|c| c.id == 1).expect("connection 1");
    let d = &c.directions[1];
    assert_eq!((d.rto_events, d.tail_loss_probes), (0, 1));
    let st = d.stalls.iter().find(|s| s.frame_before == 1689).expect("the stall after frame 1689");
    assert_eq!((st.frame_after, st.cause), (1690, StallCause::TailLossProbe));
    assert!(st.ended_by.starts_with("tail-loss probe of 68 bytes") && st.ended_by.contains("D-SACK"), "{}", st.ended_by);
    assert!(c.diagnosis.text.contains("Other stalls: 41 ms tail-loss probe."), "{}", c.diagnosis.text);
    assert!(!c.diagnosis.text.contains("retransmission timeout"), "{}", c.diagnosis.text);
}

#[test]
fn corpus_a_probe_that_crossed_the_receivers_delayed_ack_is_no_answer_to_it() {
    // elh313 compnet nat.pcap conn 0 (captured at the client, 62 ms sender lag): the
    // client's delayed ACK f12 (1.4745 s) passes 54 ms before the server's re-send f13
    // (1.5286 s): less than one sender lag, so f13 left the server before f12 reached it
    // — the server's probe (tailLossProbes 1), D-SACKed by f14, not an answer to f12.
    let Some(a) = analysed("elh313__compnet__nat.pcap") else { return };
    let c = &a.connections[0];
    let st = c.directions[1].stalls.iter().find(|s| s.frame_before == 11).expect("the stall after frame 11");
    assert_eq!((st.frame_after, st.cause), (13, StallCause::TailLossProbe));
}

#[test]
fn corpus_a_resend_answering_the_peers_resent_syn_ack_is_the_peers_timer() {
    // Carperis WebRTC_Testbench messenger case 9 caller conn 26 (TURN over TCP, 40 µs
    // path): the client's ACK f957, data f961 and FIN f963 (23.061 s) never reached the
    // server; its SYN/ACK timer re-sent at 25.071054 s (f1152) and the client re-sent its
    // FIN 35 µs later (f1154), then the data (f1169). Was "no retransmission timeout
    // counted" beside "2 s of it waiting on retransmission timeouts", and "3 of 2 data
    // segments" (the re-sent FINs counted as data).
    let Some(a) = analysed("Carperis__WebRTC_Testbench__test cases_messenger_case 9_packets_caller.pcapng") else { return };
    let c = a.connections.iter().find(|c| c.id == 26).expect("connection 26");
    let st = c.directions[0].stalls.iter().find(|s| s.frame_before == 961).expect("the stall after frame 961");
    assert_eq!((st.frame_after, st.cause), (1169, StallCause::RetransmissionTimeout));
    assert!(st.ended_by.starts_with("the peer's retransmission timer: its SYN/ACK re-sent at 25.071 s (frame 1152)"), "{}", st.ended_by);
    // Since session 42 main judges no gap of this capture: connection 18 of the same
    // interface proves the capture's clock batched (review AF C-BATCHED-CAPTURE-CLOCK),
    // so the text says that and names no timer; the stall list above still reads right.
    let t = &c.diagnosis.text;
    assert!(t.starts_with("This capture's clock does not follow the packets") && !t.contains("no retransmission timeout counted"), "{t}");
    assert_eq!(audit(&a), Vec::<String>::new());
}

#[test]
fn corpus_a_recovery_resend_long_after_the_last_ack_keeps_the_timer_and_says_both() {
    // zeek tcp/reassembly.pcap (realjimmy's copy) conn 0, captured at the receiver, 30 ms
    // path, no SACK: five duplicate ACKs of 4655 up to f34 (0.98 s), then f35 re-sends
    // 4655 1.6 s later — a timer's wait whatever the counters' kind ("recovery"). And f114
    // (14.350 s), counted recovery 8 ms after the ACK f113 — less than the 30 ms sender
    // lag, so sent before f113 reached the sender: the slow start after f112, the 3.2 s
    // timeout's re-send of 31674 (the dup ACKs f107–f111 came 3.2 s before).
    let Some(a) = analysed("realjimmy__sample-captures__zeek-samples_tcp_reassembly.pcap") else { return };
    let c = &a.connections[0];
    let st = c.directions[0].stalls.iter().find(|s| s.frame_before == 33).expect("the stall after frame 33");
    assert_eq!((st.frame_after, st.cause), (35, StallCause::RetransmissionTimeout));
    assert!(st.ended_by.contains("counted as recovery, but sent 1.6 s after the receiver's last packet"), "{}", st.ended_by);
    let st = c.directions[0].stalls.iter().find(|s| s.frame_before == 110).expect("the stall after frame 110");
    assert_eq!((st.frame_after, st.cause), (114, StallCause::RetransmissionTimeout));
    assert!(st.ended_by.contains("counted as recovery, but sent 3.2 s after the receiver's last packet"), "{}", st.ended_by);
}

#[test]
fn corpus_a_probe_counted_after_seconds_of_silence_keeps_the_timeout() {
    // elad361 CCMeasure 25_Pecent.pcapng conn 0 (loopback, netem loss): f15 re-sends
    // 518 at 21.834 s, 4.6 s after f14 — far past any probe timer (2·SRTT + 200 ms, RFC
    // 8985 §7.2) on a 21 µs path: the backed-off retransmission timer's, whatever the
    // counted kind. The stall stays a timeout and says both.
    let Some(a) = analysed("elad361__CCMeasure__25_Pecent.pcapng") else { return };
    let c = &a.connections[0];
    let st = c.directions[0].stalls.iter().find(|s| s.frame_before == 14).expect("the stall after frame 14");
    assert_eq!((st.frame_after, st.cause), (15, StallCause::RetransmissionTimeout));
    assert!(st.ended_by.contains("counted as a tail-loss probe, but sent 4.6 s after the gap began"), "{}", st.ended_by);
}
