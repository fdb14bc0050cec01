//! Issue 39, "Evidence before every claim", review N class C-SWS-NAGLE: a gap whose usable
//! window (the receiver's right edge less the bytes sent) had fallen below one segment,
//! ended by the receiver's ACK opening the window and full segments right after it, read
//! "Nagle's algorithm waiting for the peer's delayed ACK … set TCP_NODELAY". Nagle's
//! algorithm holds only a segment smaller than a full one (RFC 896, RFC 1122 §4.2.3.4);
//! a sender sends nothing beyond the window (RFC 9293 §3.8.6.2.1): the window held the
//! data (docs/ANALYSIS.md "Stall causes", rule 5b). Synthesized shapes with exact numbers
//! are in wasm/src/analysis/stalls/delayed_ack.rs (`window_bound_tests`).

use crate::common;

use tcpscope_core::analysis::{AnalysisOptions, StallCause};
use tcpscope_core::session::analyze_bytes;

const X11: &str = "realjimmy__sample-captures__wireshark-samples_files_x11_x11-glx.pcap";

#[test]
fn the_x_servers_small_window_is_not_nagle_on_the_public_capture() {
    // Connection 0, client 10.3.15.227 → X server 10.3.15.93. tshark: frame 247 (0.315210)
    // acknowledges 180,889 with a window of 2,304; frame 248 sends 1,324 bytes (980 usable
    // left, below the 1,448-byte segments); frame 249 (0.340850, +25 ms) acknowledges
    // 182,213 with a window of 66,560; frames 250/251 are full 1,448-byte segments. Same at
    // 397 (window 2,048) → 398 (1,324 B, 724 usable) → 399 (+172 ms, 66,560) → 400/401.
    // Frames 42 → 44 stay Nagle: a 68-byte segment, the server's pure ACK 43 197 ms later
    // in a 65,792-byte window, then a 12-byte segment. Before: "3 stalls (396 ms in all)
    // were Nagle's algorithm waiting for the peer's delayed ACK … set TCP_NODELAY".
    let Some(bytes) = common::corpus(X11) else { return };
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let c = &s.analysis().expect("analysed").connections[0];
    let stalls: Vec<_> = c.directions.iter().flat_map(|d| d.stalls.iter()).map(|s| (s.frame_before, s.frame_after, s.cause)).collect();
    assert!(stalls.contains(&(42, 44, StallCause::DelayedAck)), "{stalls:?}");
    assert!(stalls.contains(&(248, 250, StallCause::WindowLimited)), "{stalls:?}");
    assert!(stalls.contains(&(398, 400, StallCause::WindowLimited)), "{stalls:?}");
    let s248 = c.directions.iter().flat_map(|d| d.stalls.iter()).find(|s| s.frame_before == 248).unwrap();
    assert!(s248.ended_by.starts_with("ACK opening the window to 66560 bytes at 0.341 s, after the usable window had fallen to 980 bytes"), "{}", s248.ended_by);
    // The one Nagle stall (42 → 44) is said, with its remedy (diagnosis/nagle_words.rs,
    // review X); the window's two are not counted in it.
    let t = &c.diagnosis.text;
    assert!(!t.contains("were Nagle's algorithm waiting"), "{t}");
    assert!(t.contains("In 1 stall (197 ms in all), Nagle's algorithm held 10.3.15.227:48895's next small segment until 10.3.15.93:6000's delayed ACK"), "{t}");
}
