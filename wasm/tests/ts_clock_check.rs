//! A capture clock the hosts' own TCP timestamp clocks contradict both ways
//! (docs/ANALYSIS.md "A capture clock the hosts' clocks contradict"; review AF class
//! C-BATCHED-CAPTURE-CLOCK). Corpus only: returns early when the corpus is absent.

use crate::common;

const CLASH: &str = "Mamaril-Jeremy__CPE400-Project__clash_data.pcapng";

#[test]
fn an_rvictl_capture_of_an_iphone_is_clock_broken() {
    // Connection 23 (707 kB TLS from CloudFront over LTE): the phone's TSval moves 7 ticks
    // (its clock runs ≈ 1 ms a tick over the file) from frame 2294 to frame 2299, which
    // echoes frame 2298, stamped 989 ms after frame 2294; and 85 ticks from frame 1878
    // (echoing the SYN/ACK, frame 1875) to frame 1882, stamped 155 µs after frame 1875.
    // Before: "stalled 2 times for 2 s … waiting on ACKs" and a 35 µs path RTT.
    let Some(c) = common::corpus_connection(CLASH, 23) else { return };
    assert_eq!(c.diagnosis.limit, "clock-broken");
    let t = &c.diagnosis.text;
    assert!(t.contains("moved 7 ticks") && t.contains("frame 2294 to frame 2299") && t.contains("989 ms after frame 2294"), "{t}");
    assert!(t.contains("moved 85 ticks") && t.contains("155 µs after frame 1875"), "{t}");
    // Connection 4 (the game's own connection): the phone's 1 s "Nagle hold" likewise.
    let Some(c) = common::corpus_connection(CLASH, 4) else { return };
    assert_eq!(c.diagnosis.limit, "clock-broken");
}
