//! Issue 39, review T classes C-NEAR-ZERO-WINDOW-AS-APP and (last test)
//! C-HEADLINE-VS-FIRST-BYTE. The first: a receiver that acknowledges
//! everything with a window below one segment (a Windows client reading its 64 KiB
//! buffer in bursts: p4-team trendmicro `j1 attack.pcap`, 27 windows of 512–1,280 bytes
//! at scale 8) holds a sender that avoids the silly window syndrome (RFC 9293
//! §3.8.6.2.1, RFC 1122 §4.2.3.4) until its window update; pauses of 0.4–1.3 ms, below
//! any stall threshold, were read "75 % of the time the sender had nothing to send …
//! The sending application limited this flow", receive window 0 %. Two rules:
//! - the shares pass gives such a pause to the receive window
//!   (diagnosis_shares/small_window_hold.rs, docs/ANALYSIS.md "Time shares" rule 3c);
//! - a burst a window update released, which the sender's-time reconstruction puts a
//!   few µs before that update, no longer makes the windows "understated" (and so
//!   untrusted): the excess is judged against the update too (stalls/gaps/window_check.rs).

use crate::common;

use tcpscope_core::synth::*;

/// A receiver-side capture: `cycles` bursts of 4 × 1,460 bytes, 1 ms apart; 10 µs after
/// each burst the client acknowledges everything with window `small` (raw, scale 8),
/// and 800 µs after that, with the same ACK, reopens it to 65,536 (raw 256); the next
/// burst arrives 190 µs after the update (the 100 µs path RTT and the sender's 90 µs).
fn bursts(cycles: i64, small: u16) -> Flow {
    let mut f = Flow::new("10.0.0.2:49223", "10.0.0.1:80");
    f.handshake(0, 100, Opts::new().mss(1460).wscale(8), Opts::new().mss(1460).wscale(5));
    f.push(C2S, 200).window(256);
    for k in 0..cycles {
        let t = 1_000 + 1_000 * k;
        for s in 0..4 {
            f.data(S2C, t + s, 1460);
        }
        f.push(C2S, t + 10).window(small);
        f.push(C2S, t + 810).window(256);
    }
    f
}

#[test]
fn pauses_behind_a_window_below_one_segment_are_the_receivers() {
    // 20 cycles of 1 ms. In the sender's time (lag = the 100 µs RTT) the ACK of
    // everything with 512 bytes of window reaches the sender 110 µs after each burst began
    // and the update 910 µs after: the 7 µs until the ACK are the path's, the rest of the
    // pause, ~890 µs of each 1,000, the window's: ~89 % of the 19 pauses. No stall (each
    // pause is under the threshold), no application.
    let c = common::analyze_flow(&bursts(20, 2));
    let sh = &c.diagnosis.shares;
    assert!(sh.receive_window > 0.85 && sh.receive_window < 0.92, "{sh:?}");
    assert!(sh.application < 0.01, "{sh:?}");
    assert!(!c.diagnosis.text.contains("nothing to send"), "{}", c.diagnosis.text);
}

#[test]
fn the_same_pauses_with_an_open_window_stay_the_applications() {
    // The control: the same timing with the window left at 65,536 (raw 256) — the
    // sender could have sent and did not: the pauses are the application's.
    let c = common::analyze_flow(&bursts(20, 256));
    let sh = &c.diagnosis.shares;
    assert!(sh.receive_window < 0.01, "{sh:?}");
    assert!(sh.application > 0.85, "{sh:?}");
}

const J1: &str = "p4-team__ctf__2018-12-15-trendmicro_j1_attack.pcap";

#[test]
fn the_windows_readers_small_windows_limit_the_public_capture() {
    // Connection 0, 185.17.121.200:80 → 192.168.1.230:49223 (receiver side, RTT 0.1 ms):
    // frames 103 (ack 128,017, window 1,280) → 104 (4,864) → data 105 0.41 ms later;
    // 108 (512) → 109 (61,184) → 110. Before: application 75 %, receive window 0 %
    // (windows untrusted: the 4,380 bytes sent on frame 104's update landed 4 µs before it
    // in the sender's time).
    let Some(c) = common::corpus_connection(J1, 0) else { return };
    let sh = &c.diagnosis.shares;
    assert!(sh.receive_window > 0.5, "{sh:?}");
    assert!(!c.diagnosis.text.starts_with("The sending application limited"), "{}", c.diagnosis.text);
}

const WIFI: &str = "ctfs__write-ups-2016__su-ctf-2016_forensics_network-forensics-200_Net_Forensic.cap";

#[test]
fn the_answers_wait_leads_the_transfers_own_limit() {
    // Review T class C-HEADLINE-VS-FIRST-BYTE, connection 0 (802.11, receiver side):
    // the request frame 1284 at 44.727 s, the first byte of the answer frame 1298 at
    // 45.093 s (366 ms), the 16 KiB answer then 234 ms with 4 re-sends. The wait took
    // more than the transfer: it leads, and "loss" follows as the transfer's limit.
    let Some(c) = common::corpus_connection(WIFI, 0) else { return };
    let t = &c.diagnosis.text;
    assert!(t.starts_with("The first byte of the answer came 366 ms after the peer's request (frame 1284 at 44.727 s → frame 1298 at 45.093 s)"), "{t}");
    assert!(t.contains("took the time. Within the transfer, loss limited this flow: 32.2 %"), "{t}");
    assert_eq!(c.diagnosis.limit, "loss");
}
