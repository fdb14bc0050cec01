//! Review AF nits C-COALESCED-SEGMENT-COUNT and C-SLOWSTART-BINS (docs/ANALYSIS.md
//! "Segments on the wire"; verdict/diagnosis/wire_segments.rs, slow_start_words.rs).
use crate::common;

/// lvhoaa01 MMT `lab3.pcapng` #5 (receiver side, Windows RSC): 16 data frames of up to
/// 23,232 B (f126, f145); the server's segments are 1,452 B (its SYN/ACK's MSS; the
/// client's is 1,460, no timestamps). tshark: the 16 frames' lengths ÷ 1,452, rounded up,
/// sum to 126 (8 + 2 + 16 + 4 + 12 + 2 + 4 + 5 + 7 + 10 + 16 + 10 + 2 + 14 + 13 + 1).
#[test]
fn corpus_lvhoaa01_rsc_frames_are_counted_as_segments() {
    let Some(c) = common::corpus_connection("lvhoaa01__MMT__lab3.pcapng", 5) else { return };
    let t = &c.diagnosis.text;
    assert!(t.starts_with("Too short to judge: about 126 data segments (178 KiB, captured as 16 frames: the capturing host's offload, TSO or GRO, joined several segments in one) in 110 ms"), "{t}");
}

/// donkaloo `lab3.pcapng` #5 (macOS upload, sender side, 30 ms): the ACK of each round's
/// first segment (f110 ack 677, f117 ack 5021, f130 ack 12261, f155 ack 28189, ...)
/// starts the next round: f104–106 (3), f112–116 (5), f118–129 (10), f131–154 (19), ...
/// Fixed 30 ms bins cut f131–135 from f140–154: "3, 5, 10, 4, 19, 34, 69, 16".
#[test]
fn corpus_donkaloo_rounds_are_ack_clocked_flights() {
    let Some(c) = common::corpus_connection("donkaloo__lab3__lab3.pcapng", 5) else { return };
    let t = &c.diagnosis.text;
    assert!(t.contains("3, 5, 10, 19, 36, 69, 18 segments per round trip of the path over the 7 round trips (a path RTT of 30 ms)"), "{t}");
}
