//! ECN evidence per direction (analysis/track/ecn.rs, docs/ANALYSIS.md "ECN") on synthetic
//! captures whose every mark is known.
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
