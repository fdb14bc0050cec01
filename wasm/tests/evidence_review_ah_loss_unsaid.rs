//! Issue 39, review AH class C-LOSS-UNSAID-UNDER-APPLICATION (verdict/diagnosis/
//! loss_over_pauses.rs): where the loss's saving outranks the application headline's,
//! the text names the loss. Corpus capture: returns early without `TCPSCOPE_CORPUS`.

use crate::common;

#[test]
fn loss_saving_above_the_pauses_is_said() {
    // nada-laaziz conn 3: 1.18 MB from Google, RTT 71 ms; 122 re-sent frames (tshark: 45
    // retransmissions + 77 "out-of-order" fills of holes open 84–215 ms, over the RTT:
    // repairs), 21 % of the time in recovery; savings loss ≥ 722 ms, application ≥ 186 ms.
    let Some(c) = common::corpus_connection("nada-laaziz__netdiag-plateforme__test.pcapng", 3) else { return };
    let d = &c.diagnosis;
    assert_eq!(d.limit, "application", "{}", d.text);
    assert_eq!(d.savings.first().map(|s| s.limit), Some("loss"), "{:?}", d.savings);
    assert!(d.text.contains("but loss cost more than they did"), "{}", d.text);
    assert!(!d.text.contains("not the network, set the pace"), "{}", d.text);
}
