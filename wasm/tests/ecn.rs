//! ECN evidence per direction (analysis/track/ecn.rs, docs/ANALYSIS.md "ECN") on synthetic
//! captures whose every mark is known.
use crate::common;
use tcpscope_core::analysis::ecn::EcnSummary;
use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary};
use tcpscope_core::decode::tcp_flags::*;
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

fn analyse(f: &Flow) -> ConnectionSummary {
    let bytes = write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro);
    analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20).analysis().expect("analysed").connections[0].clone()
}

/// A client uploads 40 segments of 1000 B, 1 ms apart, ECN-capable (ECT(0)); the
/// server ACKs every second one. `syn` / `syn_ack`: the (AE, CWR, ECE) of the
/// handshake. Segments 10, 11 and 25 arrive CE-marked (the capture is at the
/// receiver); the receiver sets ECE on its ACKs from each mark until the sender's next
/// segment with CWR (RFC 3168 §6.1.3), and the sender sets CWR on its next segment.
fn upload(syn: (bool, bool, bool), syn_ack: (bool, bool, bool), classic_echo: bool) -> Flow {
    let bits = |(ae, cwr, ece): (bool, bool, bool), base: u8| (ae, base | if cwr { CWR } else { 0 } | if ece { ECE } else { 0 });
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    let (ae, flags) = bits(syn, SYN);
    f.push(C2S, 0).flags(flags).ack(0).ecn(0, ae).opts(Opts::new().mss(1460));
    let (ae, flags) = bits(syn_ack, SYN | ACK);
    f.push(S2C, 10_000).flags(flags).ecn(0, ae).opts(Opts::new().mss(1460));
    f.push(C2S, 10_000);
    let marked = [10, 11, 25];
    let (mut echoing, mut answer) = (false, false);
    for k in 0..40 {
        let t = 11_000 + k * 1_000;
        let ce = marked.contains(&k);
        let seg = f.data(C2S, t, 1000).ecn(if ce { 3 } else { 2 }, false);
        if answer {
            seg.flags(ACK | PSH | CWR);
            (answer, echoing) = (false, false);
        }
        echoing |= ce && classic_echo;
        if k % 2 == 1 {
            let ack = f.push(S2C, t + 100);
            if echoing {
                ack.flags(ACK | ECE);
                answer = true;
            }
        }
    }
    f
}

#[test]
fn classic_ecn_counts_marks_echoes_and_window_reductions() {
    // RFC 3168 §6.1.1 setup: SYN with ECE + CWR, SYN/ACK with ECE alone.
    let c = analyse(&upload((false, true, true), (false, false, true), true));
    assert!(c.handshake.syn.as_ref().unwrap().ecn && !c.handshake.syn.as_ref().unwrap().accecn);
    // 40 data segments: 37 ECT(0) + 3 CE. Marks at 10 and 11 → the ACK after 11 (the
    // first after a mark) echoes; the sender's next segment (12) carries CWR, which
    // ends the echo: 1 ECE, 1 CWR. Mark 25 → the ACK after 25 echoes, CWR on 26: 2, 2.
    assert_eq!(c.directions[0].ecn, Some(EcnSummary { ect0: 37, ect1: 0, ce: 3, ece: Some(0), cwr: Some(2) }));
    assert_eq!(c.directions[1].ecn, Some(EcnSummary { ect0: 0, ect1: 0, ce: 0, ece: Some(2), cwr: Some(0) }));
    assert!(
        c.diagnosis.text.ends_with(
            "The network signalled congestion by ECN instead of dropping packets: 3 of 40 ECN-capable data segments arrived \
             marked Congestion Experienced (7.5 %); the receiver echoed congestion on 2 ACKs (ECE); the sender reduced its \
             window 2 times (CWR). Loss and retransmission counts do not show this congestion (RFC 3168)."
        ),
        "{}",
        c.diagnosis.text
    );
    assert_eq!(c.directions[0].retransmissions, 0);
}

#[test]
fn under_accurate_ecn_the_flags_are_a_counter_not_echoes() {
    // RFC 9768 §3.1.1: SYN with AE, CWR and ECE; the SYN/ACK answers (0, 1, 0). ECE and
    // CWR then carry the ACE counter of CE marks, so they are not counted (None); the
    // CE marks on the data still are.
    let c = analyse(&upload((true, true, true), (false, true, false), false));
    assert!(c.handshake.syn.as_ref().unwrap().accecn && c.handshake.syn_ack.as_ref().unwrap().accecn);
    assert_eq!(c.directions[0].ecn, Some(EcnSummary { ect0: 37, ect1: 0, ce: 3, ece: None, cwr: None }));
    assert!(c.diagnosis.text.contains("3 of 40 ECN-capable data segments arrived marked Congestion Experienced (7.5 %). Loss"), "{}", c.diagnosis.text);
}

#[test]
fn without_ecn_there_is_nothing_to_report() {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for k in 0..20 {
        f.data(C2S, 11_000 + k * 1_000, 1000);
    }
    let c = analyse(&f);
    assert_eq!((c.directions[0].ecn, c.directions[1].ecn), (None, None));
    assert!(!c.diagnosis.text.contains("ECN"));
}

/// A sender-side capture of a sender that sends one 1460-B ECN-capable segment at a
/// time over a 100 ms path (the handshake's round trip), waiting after each ACK of
/// everything before the next: 300 ms after an ACK echoing ECE (every second one, k
/// odd: the receiver saw a mark; the sender's next segment says CWR), 100 ms after the
/// others. 20 segments, so 19 intervals: 19 × 100 ms with the segment outstanding (the
/// path's), 9 pauses of 200 ms after an ECE (k = 1, 3, … 17) and 10 of 100 ms after none
/// (k = 0, 2, … 18): 4.7 s active. No gap reaches the 400 ms stall threshold.
fn paced_by_echoes(cwr: bool) -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.push(C2S, 0).flags(SYN | ECE | CWR).ack(0).opts(Opts::new().mss(1460));
    f.push(S2C, 100_000).flags(SYN | ACK | ECE).opts(Opts::new().mss(1460));
    f.push(C2S, 100_000);
    let mut t = 100_000;
    for k in 0..20 {
        let seg = f.data(C2S, t, 1460).ecn(2, false);
        if cwr && k % 2 == 0 && k > 0 {
            seg.flags(ACK | PSH | CWR);
        }
        let ece = k % 2 == 1;
        let ack = f.push(S2C, t + 100_000);
        if ece {
            ack.flags(ACK | ECE);
        }
        t += 100_000 + if ece { 200_000 } else { 100_000 };
    }
    f
}

#[test]
fn pauses_after_ecn_echoes_are_the_congestion_windows_not_the_applications() {
    // RFC 3168 §6.1.2: an ACK with ECE makes the sender cut its window; at one segment
    // it may send again only when its retransmission timer fires. So the 9 pauses
    // after an echo (1.8 s) are not shown to be an idle application: they move to the
    // congestion window. Before: application 2.8 s of 4.7 s (60 %) and the headline
    // "The sending application limited this flow"; after: application 1.0 s (21 %),
    // the congestion window or the path 1.9 + 1.8 = 3.7 s (79 %), 1.8 s (38 %) of it
    // after the echoes.
    let c = analyse(&paced_by_echoes(true));
    assert_eq!(c.directions[0].ecn, Some(EcnSummary { ect0: 20, ect1: 0, ce: 0, ece: Some(0), cwr: Some(9) }));
    assert_eq!(c.directions[1].ecn.and_then(|e| e.ece), Some(10));
    let s = &c.diagnosis.shares;
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
    assert!((s.application - 1.0 / 4.7).abs() < 1e-6 && (s.other - 3.7 / 4.7).abs() < 1e-6, "{s:?}");
    assert!(
        c.diagnosis.text.starts_with(
            "ECN congestion marks held this flow's congestion window: the receiver echoed congestion on 10 ACKs (ECE), \
             the sender reduced its window 9 times (CWR); it had up to 1.4 KiB (1 segment of 1.4 KiB) in flight"
        ),
        "{}",
        c.diagnosis.text
    );
    assert!(c.diagnosis.text.contains("The congestion window or the path took 79 % of the time (38 % of the time, 1.8 s, in pauses after the receiver's ECE echoes"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("the application 21 %, the receive window 0 % and loss 0 %"), "{}", c.diagnosis.text);
    // The closing ECN sentence would repeat the numbers.
    assert!(!c.diagnosis.text.contains("The network signalled congestion by ECN"), "{}", c.diagnosis.text);
}

#[test]
fn echoes_the_sender_never_answered_move_nothing() {
    // The same flow with every CWR taken off: ECE on the ACKs but no window reduction
    // said (a stray flag, or a sender not running ECN): the pauses stay the application's.
    let c = analyse(&paced_by_echoes(false));
    assert_eq!(c.diagnosis.limit, "application", "{}", c.diagnosis.text);
    assert!((c.diagnosis.shares.application - 2.8 / 4.7).abs() < 1e-6, "{:?}", c.diagnosis.shares);
}

#[test]
fn the_wireshark_ecn_sample_shows_its_marks_but_not_that_they_held_it() {
    // mtottenh pcapsql tcp-ecn-sample.pcap (the Wireshark sample), connection 0, captured
    // at the receiver: 83 KB in 536-B segments over 93 s. tshark: 52 of 168 data segments
    // CE (ip.dsfield.ecn 3), 131 client ACKs with ECE, 46 server segments with CWR; the
    // sender never had more than 1,072 B (2 segments) in flight against a 4,128-B window.
    // Review P (C-ECN-CWND) read the pauses as the marks' (RFC 3168 §6.1.2: a one-segment
    // window sits out its timer after an echo); review S measured the other side: the
    // sender paused as long after ACKs without an echo (mean 478 ms over 58 pauses, against
    // 453 ms over 51 after echoes; tshark medians 0.63 vs 0.64 s, e.g. plain ACK 379 → data
    // 380 is 2.35 s, ECE ACK 343 → 344 is 1.48 s), and the same pace runs before the first
    // mark (frame 48 at 6.8 s). So the pauses stay the application's (55 %), and the marks
    // are said as what they show: a queue signalling congestion, "the network is not
    // cleared", with their counts.
    let Some(c) = common::corpus_connection("mtottenh__pcapsql__fuzz_corpus_fuzz_pcap_reader_tcp-ecn-sample.pcap", 0) else { return };
    let t = &c.diagnosis.text;
    assert_eq!(c.diagnosis.limit, "application", "{t}");
    assert!(t.starts_with("The sending application limited this flow: 55 % of the time"), "{t}");
    assert!(t.contains("but the network is not cleared: 31 % of the ECN-capable data arrived CE-marked"), "{t}");
    assert!(
        t.contains(
            "52 of 168 ECN-capable data segments arrived marked Congestion Experienced (31 %); the receiver echoed \
             congestion on 131 ACKs (ECE); the sender reduced its window 46 times (CWR)."
        ),
        "{t}"
    );
    assert!(!t.contains("ECN congestion marks held"), "{t}");
}
