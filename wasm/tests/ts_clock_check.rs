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

#[test]
fn other_rvictl_captures_of_iphones_are_clock_broken() {
    // Carperis WebRTC_Testbench, an iPhone captured with rvictl (interface rvi0), Messenger
    // over IPv6 to Facebook, connection 4: the phone's TSval moves 17 ticks from frame 451
    // to frame 456 (which echoes frame 452) and the server's 16 (frames 449 → 452), yet the
    // capture stamps frame 452 998 ms after frame 451; frames 315–372 lie within 1 ms of
    // capture while the phone's clock moves 462 ticks and the server's 475. Before: "The
    // sending application limited this flow … idle gaps totalling 53 s", its rates and
    // round trips read from the batched clock.
    let Some(c) = common::corpus_connection("Carperis__WebRTC_Testbench__test cases_messenger_case 8_packets_caller.pcapng", 4) else { return };
    assert_eq!(c.diagnosis.limit, "clock-broken");
    let t = &c.diagnosis.text;
    assert!(t.contains("moved 17 ticks") && t.contains("998 ms after frame 451") && t.contains("963 µs after frame 316"), "{t}");
    // The same testbench's Discord call (connection 4, IPv4 to Cloudflare): 91 ticks
    // against 997 ms of capture (frames 247 → 251 → 254).
    let Some(c) = common::corpus_connection("Carperis__WebRTC_Testbench__test cases_caller_iphone_app_discord_66.22.212.134.pcapng", 4) else { return };
    assert_eq!(c.diagnosis.limit, "clock-broken");
    assert!(c.diagnosis.text.contains("moved 91 ticks") && c.diagnosis.text.contains("997 ms after frame 247"), "{}", c.diagnosis.text);
}
