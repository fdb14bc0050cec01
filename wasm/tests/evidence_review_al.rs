//! Issue 39, review AL (session 42): captures nobody here had read (/work/notes
//! reviewAL.md; `scripts/corpus/repos.txt` names their repositories). Corpus captures:
//! return early without `TCPSCOPE_CORPUS`.

use crate::common;

/// Class C-LOSS-HEADLINE-FROM-ONE-LOSS (verdict/diagnosis/phrases.rs `loss_held_cwnd`,
/// `MATHIS_MIN_LOSSES`): one repaired loss gives no loss rate to be "at the Mathis bound".
#[test]
fn one_loss_in_a_thousand_segments_is_not_the_headline() {
    // DSPJ2021 MongoDB benchmark, client 10.6.0.16 → 10.0.0.3:27017, sender side, RTT
    // 254 ms: 21 insert batches of ~147 kB, each sent a round trip after the server's
    // reply (tshark: the 45-B replies, then the next batch 254 ms later); one segment lost
    // (dup ACKs with SACK from frame 11582, fast re-send frame 11584): 1 of 1,119 data
    // segments, 6 % of the time recovering. The turns set the pace, not the loss.
    let name = "DSPJ2021__benchmark-data__data-baseline-with-latency-6_20210929-11-experiment-baseline-with-latency-6_10.6.0.16.pcap";
    let Some(c) = common::corpus_connection(name, 203) else { return };
    let d = &c.diagnosis;
    assert_eq!(d.limit, "turns", "{}", d.text);
    assert!(!d.text.contains("Loss limited"), "{}", d.text);
}
