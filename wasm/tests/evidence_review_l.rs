//! Issue 39, "Evidence before every claim", review L (a network printer's 9100 stream,
//! chrissanders/packets `inconsistent_printer.pcapng`):
//! - class C-SWS: a receive window that fell below one segment, with everything sent
//!   acknowledged, read as "the sending application limited this flow". A sender avoiding
//!   the silly window syndrome sends nothing into such a window (RFC 9293 §3.8.6.2.1,
//!   RFC 1122 §4.2.3.4): it waits for a window update, or for its override timer, which
//!   then sends what fits (docs/ANALYSIS.md "Stall causes", rule 3c).
//! - class C-TLP: the last segment re-sent 5.5 s after it was sent, on a 0.2 ms LAN, read as
//!   a tail loss probe. A probe fires 2·SRTT (+ 200 ms with one segment outstanding) after
//!   the last new data or ACK (RFC 8985 §7.2); no smoothed RTT exceeds the largest round
//!   trip measured, so a later re-send is the retransmission timer's (RFC 6298 §5).
//!
//! The shapes are synthesized (tests/common) and checked on the public capture that showed
//! them (`TCPSCOPE_CORPUS`; absent, those tests say so and pass).

use crate::common;

use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary, StallCause};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

const PRINTER: &str = "chrissanders__packets__inconsistent_printer.pcapng";

/// The client's data segments of `n` × 1460 bytes from `t` µs, 10 µs apart; the time after
/// the last.
fn burst(f: &mut Flow, t: i64, n: i64) -> i64 {
    for k in 0..n {
        f.data(C2S, t + 10 * k, 1460);
    }
    t + 10 * (n - 1)
}

/// A printer's stream captured at the client, on a 200 µs LAN (SYN → SYN/ACK): the
/// printer ACKs each burst of three full segments 60 ms later (its delayed ACK) with a
/// window of 5840 bytes (its SYN/ACK offered 8760), except three times: the window falls
/// to 500 bytes and a window update (5840) comes 1.2 s later, the client's next burst
/// `resume_us` after it; the window falls to 300 bytes and the update comes 1.4 s later,
/// the next burst `resume_us` after it; the window falls to 1000 bytes and no update ever
/// comes: 4.8 s later the client sends the `last` bytes.
fn printer(resume_us: i64, last: u32) -> Flow {
    let mut f = Flow::new("172.16.0.8:3527", "172.16.0.253:9100");
    f.handshake(0, 200, Opts::new().mss(1460).sack_perm(), Opts::new().mss(1460).sack_perm());
    f.segments_mut()[1].window(8760);
    let mut t = burst(&mut f, 1_000, 3);
    // ACK of everything after 60 ms with `win`; the time of that ACK.
    let ack = |f: &mut Flow, t: i64, win: u16| {
        f.push(S2C, t + 60_000).window(win);
        t + 60_000
    };
    t = ack(&mut f, t, 5840);
    t = burst(&mut f, t + 50, 3);
    t = ack(&mut f, t, 500); // small window 1, at 0.121 s
    f.push(S2C, t + 1_200_000).window(5840);
    t = burst(&mut f, t + 1_200_000 + resume_us, 3);
    t = ack(&mut f, t, 5840);
    t = burst(&mut f, t + 50, 3);
    t = ack(&mut f, t, 300); // small window 2
    f.push(S2C, t + 1_400_000).window(5840);
    t = burst(&mut f, t + 1_400_000 + resume_us, 3);
    t = ack(&mut f, t, 1000); // small window 3: never updated
    f.data(C2S, t + 4_800_000, last);
    f.push(S2C, t + 4_860_000).window(5840);
    f
}

fn idle(c: &ConnectionSummary) -> usize {
    c.directions[0].stalls.iter().filter(|s| s.cause == StallCause::ApplicationIdle).count()
}

#[test]
fn a_window_below_one_segment_is_the_receivers_not_an_idle_application() {
    // The three silences after the ACK of everything (each over the stall threshold) are
    // the window's: a window update followed 50 µs later by a 1460-byte segment that the
    // window before it (500, then 300 bytes) could not hold, and, the third time, no update
    // and a 1000-byte segment that fills exactly the 1000 bytes left, below the 1460-byte
    // segment. Each is below one segment and below half the largest window seen (5840), so
    // the sender could send nothing (RFC 9293 §3.8.6.2.1). Before: three `application-idle`
    // stalls and "The sending application limited this flow".
    let c = common::analyze_flow(&printer(50, 1000));
    let stalls = &c.directions[0].stalls;
    assert_eq!(idle(&c), 0, "{stalls:?}");
    let small: Vec<_> = stalls.iter().filter(|s| s.ended_by.contains("below one segment")).collect();
    assert_eq!(small.len(), 3, "{stalls:?}");
    assert!(small.iter().all(|s| s.cause == StallCause::WindowLimited), "{small:?}");
    // First: burst at 0.06107–0.06109 s, ACK (500) at 0.12109 s, update at 1.32109 s; the
    // third: ACK (1000) at 2.9013 s, the 1000 bytes at 7.7013 s.
    assert_eq!(
        small[0].ended_by,
        "window update to 5840 bytes at 1.321 s, 1.2 s after the window had fallen to 500 bytes at 0.121 s (below one segment of 1460 bytes): \
         the sender's silly-window avoidance sends nothing into a window that small (RFC 9293 §3.8.6.2.1)"
    );
    assert!(small[2].ended_by.starts_with("1000 bytes at 7.701 s that filled the window, which had fallen to 1000 bytes at 2.901 s"), "{}", small[2].ended_by);
    assert_eq!(c.diagnosis.limit, "receive-window", "{}", c.diagnosis.text);
    assert!(
        c.diagnosis.text.contains(
            " 3 times the window fell below one segment (300–1000 bytes, with everything sent acknowledged), which a sender does not fill \
             (silly-window avoidance, RFC 9293 §3.8.6.2.1): twice the sender waited 1.2 s–1.4 s for the receiver's window update; \
             at 2.901 s no update came, and the sender's override timer sent the 1000 bytes that fit 4.8 s later."
        ),
        "{}",
        c.diagnosis.text
    );
    assert!(!c.diagnosis.text.contains("sending application"), "{}", c.diagnosis.text);
}

#[test]
fn data_long_after_the_update_or_that_fit_the_small_window_stays_the_applications() {
    // The sender's data 300 ms after the window update, on a 200 µs path: the update did not
    // release it (a sender holding data answers a window update at once), and the first
    // two silences stay `application-idle`.
    let c = common::analyze_flow(&printer(300_000, 1000));
    assert_eq!(idle(&c), 2, "{:?}", c.directions[0].stalls);
    // The last segment of 900 bytes, below the 1000 the window left: it would have fit at
    // once, so nothing held it, and that silence stays the application's too.
    let c = common::analyze_flow(&printer(50, 900));
    let last = c.directions[0].stalls.last().expect("stalls");
    assert_eq!(last.cause, StallCause::ApplicationIdle, "{last:?}");
}

/// A SACK download on a 1 ms path captured at the sender: 10 segments, the receiver ACKs
/// the first nine 1 ms after each pair, the tenth is lost and re-sent `resend_us` after it,
/// then acknowledged.
fn lost_tail(resend_us: i64) -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 1000, Opts::new().mss(1460).sack_perm(), Opts::new().mss(1460).sack_perm());
    let start = 2_000;
    for k in 0..10 {
        f.data(C2S, start + 10 * k, 1460);
    }
    // ACKs of 2, 4, 6, 8, 9 segments.
    let isn = 1001u32;
    for (k, segs) in [2u32, 4, 6, 8, 9].iter().enumerate() {
        f.push(S2C, start + 1_000 + 20 * k as i64).ack(isn + segs * 1460);
    }
    let last = start + 90;
    f.data(C2S, last + resend_us, 1460).seq(isn + 9 * 1460);
    f.push(S2C, last + resend_us + 1_000);
    f
}

#[test]
fn a_resend_later_than_any_probe_timeout_is_a_retransmission_timeout() {
    // Round trips measured: 1 ms (the handshake, the ACKs). A probe fires at most
    // 2 × 1 ms + 200 ms (one segment outstanding, RFC 8985 §7.2) after the last new data,
    // 10 ms more for the timer's slack: 212 ms. At 205 ms the re-send of the last segment
    // stays a tail loss probe (as Linux sends one); at 3 s only the retransmission timer
    // can have sent it. Before: a tail loss probe both times.
    let d = |resend_us| {
        let c = common::analyze_flow(&lost_tail(resend_us));
        let d = &c.directions[0];
        (d.retransmissions, d.tail_loss_probes, d.rto_events)
    };
    assert_eq!(d(205_000), (1, 1, 0));
    assert_eq!(d(3_000_000), (1, 0, 1));
}


#[test]
fn the_printers_window_and_its_timeouts_on_the_public_capture() {
    // Connection 0, 172.16.0.8:3527 → printer :9100, captured at the sender (ACK → data
    // 40–50 µs). tshark: frames 31 (win 628), 50 (80), 66 (404), 84 (1316), 101 (180) ACK
    // everything, each followed 1.1–1.4 s later by a "TCP Window Update" (frames 32, 51, 67,
    // 85, 102) and the sender's next 1460-byte segment 47–50 µs after it; frame 119 (win
    // 1092) ACKs everything and frame 120, 4.8 s later, sends exactly 1092 bytes ("TCP
    // Window Full"). Frames 121 (+5.50 s) and 122 (+5.60 s) re-send it, never acknowledged;
    // the printer's round trips were at most 201 ms (its delayed ACKs), so a probe would
    // have come within 612 ms. Before (review L): "The sending application limited this
    // flow: 46 % … idle gaps totalling 12 s" and "1 tail loss probe and 1 retransmission
    // timeout".
    let Some(conns) = common::corpus_connections(PRINTER) else { return };
    let c = &conns[0];
    let d = &c.directions[0];
    assert_eq!(idle(c), 0, "{:?}", d.stalls);
    let small: Vec<(u32, u32)> = d.stalls.iter().filter(|s| s.cause == StallCause::WindowLimited && s.ended_by.contains("below one segment")).map(|s| (s.frame_before, s.frame_after)).collect();
    assert_eq!(small, vec![(30, 33), (49, 52), (65, 68), (83, 86), (100, 103), (118, 120)]);
    assert_eq!((d.retransmissions, d.tail_loss_probes, d.rto_events), (2, 0, 2));
    assert_eq!(c.diagnosis.limit, "receive-window", "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("6 times the window fell below one segment (80–1316 bytes"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("5 times the sender waited 1.1 s–1.4 s for the receiver's window update; at 10.317 s no update came"), "{}", c.diagnosis.text);
    // The printer never answered again after frame 119 (issue 39 review N class
    // C-LOSS-HEADLINE): the timeouts are said as its silence, not as an outage of the transfer.
    assert!(c.diagnosis.text.contains("172.16.0.253:9100 went silent after 10.317 s (its last packet, frame 119): nothing 172.16.0.8:3527 sent from 15.117 s (frame 120) on was acknowledged, and it re-sent 2 segments over 5.6 s (2 retransmission timeouts)"), "{}", c.diagnosis.text);
}

/// Review M, class MJ: a reset answering an MP_JOIN SYN was read as a closed port ("No
/// socket listened on port 80"), though the same server accepted plain SYNs to port 80
/// in the same second (conns 16 and 17 at 12.061 s) and the MPTCP connection the SYN
/// asked to join (tshark: frame 158 from port 59063 carries MP_JOIN, frame 192 resets it).
/// RFC 8684 §3.2: a host refuses a join it will not take with a reset.
#[test]
fn a_refused_mptcp_join_is_not_a_closed_port() {
    let Some(bytes) = common::corpus("TheInverseKey__Multipath__speedtest.pcap") else { return };
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    for id in [6usize, 15] {
        let d = &a.connections[id].diagnosis;
        assert_eq!(d.limit, "not-established", "conn {id}");
        assert!(d.text.contains("asking to join MPTCP connection"), "conn {id}: {}", d.text);
        assert!(d.text.contains("refused the join with a reset"), "conn {id}: {}", d.text);
        assert!(!d.text.contains("No socket listened"), "conn {id}: {}", d.text);
    }
}
