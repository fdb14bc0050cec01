//! Issue 39, review AJ class C-DELAY-TOLD-AS-LOSS (loss/needless_resends.rs,
//! verdict/diagnosis/outage_words.rs, phrases.rs `repaired_fraction`): at a sender-side
//! capture, copies the receiver's ACKs show needless (acknowledged sooner than a round
//! trip after they left, or the ACK stopping below an original sent before the copy)
//! repair no loss: no loss share, no Mathis/BBR comparison, and a silence that ends with
//! the ACKs of everything outstanding is told as a path outage. Corpus captures: return
//! early without `TCPSCOPE_CORPUS`.

use crate::common;

#[test]
fn an_outage_whose_copies_were_acknowledged_at_once_is_not_loss() {
    // saikowshik07 arp #0 (sender side, RTT 372 ms): the server silent 3.005 → 4.503 s
    // (tshark: no frame of 142.250.196.42 from 274 to 317), a probe (314) and a timeout
    // (315), then ACKs of everything in 11 ms while 44 go-back-N copies (319…390) leave,
    // each "acknowledged" 0.1–0.4 ms later. Was "Loss cost 26 % of the time".
    let Some(c) = common::corpus_connection("saikowshik07__Computer-networks__arp.pcapng", 0) else { return };
    let d = &c.diagnosis;
    assert!(!d.text.contains("Loss cost"), "{}", d.text);
    assert!(d.shares.loss < 0.01, "{:?}", d.shares);
    assert!(d.text.contains("The path went silent for 1.5 s at 3.005 s"), "{}", d.text);
    assert!(d.text.contains("A path outage, not loss, took that time"), "{}", d.text);
    // The counters stay the kernel's: the D-SACK (405) goes to the probe, whose range it is, and the
    // one-byte D-SACK 197904–197905 (457) to the copy 197237–197905 (390).
    let s = &c.directions[1];
    assert_eq!((s.retransmissions, s.tail_loss_probes, s.rto_events, s.spurious_retransmissions), (46, 1, 1, 2));
}

#[test]
fn a_timer_copy_the_originals_acks_overtook_is_not_loss() {
    // saikowshik07 smtp #1: one timer copy (frame 128, 2.772 s) of 68445; the ACKs then
    // resume segment by segment (137: 69857, 138: 71269, …) for originals sent at 0.92 s
    // that were never copied. Was "Loss cost 47 % of the time" (the saving was 12 ms).
    let Some(c) = common::corpus_connection("saikowshik07__Computer-networks__smtp.pcapng", 1) else { return };
    assert!(!c.diagnosis.text.contains("Loss cost"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.shares.loss < 0.01, "{:?}", c.diagnosis.shares);
}

#[test]
fn copies_of_data_that_had_arrived_get_no_mathis_comparison() {
    // saikowshik07 icmp #11: copies 230 and 714 followed by in-order ACKs of the originals
    // (231: 17139, 18571, …), 1104 D-SACKed by 1105. Was "0.8 % … retransmissions, yet
    // … 3× what a loss-based sender reaches … (BBR does not)". Its 2.7 s without ACKs
    // after a 2.27 s round trip is the next round of its own growing queue: no outage.
    let Some(c) = common::corpus_connection("saikowshik07__Computer-networks__icmp.pcapng", 11) else { return };
    assert!(!c.diagnosis.text.contains("BBR"), "{}", c.diagnosis.text);
    assert!(!c.diagnosis.text.contains("path outage"), "{}", c.diagnosis.text);
}
