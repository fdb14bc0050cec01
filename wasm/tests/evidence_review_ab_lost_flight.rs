//! Review AB (issue 39), class C-LOST-FLIGHT-AS-IDLE: a gap whose ending flight re-sends
//! a hole the receiver had SACKed around is the sender's timer, not its application
//! (stalls/hole_resend.rs; docs/ANALYSIS.md "Stall causes", rule 2e), and where the named
//! timers ended only some of the timeout stalls, the loss text gives each kind its own
//! time (verdict/diagnosis/path_words.rs `by_kind`).

use crate::common;
use tcpscope_core::analysis::StallCause;
use tcpscope_core::synth::*;

const MSS: u32 = 1448;
/// The server's first data byte (ISN 5000 + the SYN).
const S0: u32 = 5001;

/// A download captured at the client (40 ms path: the handshake's SYN → SYN/ACK), every
/// server segment 1448 B, 100 µs apart. 20 segments from 80 ms, each ACKed at once; then
/// a flight of 10 from 200 ms whose 4th (`hole`) never reaches the client: the client's
/// next six ACKs stay at the hole and SACK what came beyond it (RFC 2018). The server's
/// fast re-send of the hole is lost too (never captured). `repaired`: instead the hole's
/// re-send is captured 40 ms later (a round trip after the first SACK) and ACKed in full.
/// Then, 300 ms after the flight, new data, and (`resend_behind`) 250 µs behind it the
/// hole again; then 10 more segments, each ACKed.
fn download(repaired: bool, resend_behind: bool) -> Flow {
    let mut f = Flow::new("10.0.0.1:50000", "10.0.0.2:443");
    f.handshake(0, 40_000, Opts::new().mss(1460).sack_perm(), Opts::new().mss(1460).sack_perm());
    f.data(C2S, 40_100, 300);
    let mut next = S0;
    for k in 0..20 {
        f.data(S2C, 80_000 + 100 * k, MSS).seq(next);
        next += MSS;
        f.push(C2S, 80_000 + 100 * k + 10).ack(next);
    }
    let hole = next + 3 * MSS;
    for k in 0..10 {
        let t = 200_000 + 100 * k;
        let seq = next + k as u32 * MSS;
        if seq == hole {
            continue;
        }
        f.data(S2C, t, MSS).seq(seq);
        let ack = if seq < hole { seq + MSS } else { hole };
        let c = f.push(C2S, t + 10).ack(ack);
        if seq > hole {
            c.opts(Opts::new().sack(&[(hole + MSS, seq + MSS)]));
        }
    }
    let top = next + 10 * MSS;
    if repaired {
        f.data(S2C, 240_500, MSS).seq(hole);
        f.push(C2S, 240_510).ack(top);
    }
    // 300 ms after the flight (a retransmission timeout's wait: RFC 6298 §2.4, Linux's
    // 200 ms floor plus the round trip), 10 segments of new data back to back (an idle
    // restart's initial window, RFC 5681 §4.1, RFC 6928), and the hole 250 µs behind the
    // first (`resend_behind`), each ACKed: at the hole with the SACKed run until the hole
    // is re-sent.
    let t = 200_900 + 300_000;
    let mut end = top;
    for k in 0..10 {
        f.data(S2C, t + 100 * k, MSS).seq(end);
        end += MSS;
        let filled = repaired || (resend_behind && k >= 3);
        let c = f.push(C2S, t + 100 * k + 10).ack(if filled { end } else { hole });
        if !filled {
            c.opts(Opts::new().sack(&[(hole + MSS, end)]));
        }
        if resend_behind && !repaired && k == 2 {
            f.data(S2C, t + 250, MSS).seq(hole);
            f.push(C2S, t + 260).ack(end);
        }
    }
    f
}

fn stalls(f: &Flow) -> Vec<tcpscope_core::analysis::Stall> {
    let c = common::analyze_flow(f);
    c.directions[1].stalls.clone()
}

#[test]
fn a_hole_re_sent_behind_new_data_after_a_timer_s_wait_is_no_idle_application() {
    // The gap from the flight's last segment (200.9 ms) to the new data (500.9 ms): 300 ms,
    // above the 160 ms threshold (4 × the 40 ms path). Through it the client's ACK stayed
    // at the hole with 6 segments SACKed beyond it: the server had the hole to re-send,
    // and re-sent it 250 µs behind the new data, 300 ms after the client's last ACK — no
    // ACK clocked it (a round trip is 40 ms), its timer did. Not "application idle".
    let st = stalls(&download(false, true));
    assert_eq!(st.len(), 1, "{st:?}");
    assert_eq!(st[0].cause, StallCause::RetransmissionTimeout, "{}", st[0].ended_by);
    assert!((st[0].duration - 0.300).abs() < 1e-9, "{}", st[0].duration);
    assert!(
        // 7 segments (10,136 B) from the hole to the flight's top were unacknowledged.
        st[0].ended_by.starts_with("a re-send at 0.501 s of 1.4 KiB the receiver had not acknowledged, 250 µs after new data that began its flight: its ACK stayed 9.9 KiB below what was sent"),
        "{}",
        st[0].ended_by
    );
}

#[test]
fn the_same_gap_after_the_hole_was_repaired_is_still_the_application() {
    // The hole's re-send captured 40 ms after the first SACK (a fast retransmission,
    // clocked by the SACKs) and the client's ACK of everything at 240.5 ms: nothing was
    // outstanding through the 260 ms until the new data, which no ACK released (RFC
    // 5681 §4.1's idle restart): the application's, as before.
    let st = stalls(&download(true, false));
    assert_eq!(st.len(), 1, "{st:?}");
    assert_eq!(st[0].cause, StallCause::ApplicationIdle, "{}", st[0].ended_by);
}

#[test]
fn a_hole_not_re_sent_in_the_ending_flight_is_left_to_the_earlier_rules() {
    // The hole still open but the flight that ends the gap re-sends nothing (the next
    // re-send never captured): what ended the gap is not shown to be a timer's, and this
    // rule says nothing (whatever gaps.rs said stays; here no re-send at all).
    let before = stalls(&download(false, false));
    assert_eq!(before.len(), 1, "{before:?}");
    assert_ne!(before[0].ended_by.get(..10), Some("a re-send "), "{}", before[0].ended_by);
}

#[test]
fn corpus_prachi_connection_32_gaps_before_a_sacked_hole_s_re_send_are_timers() {
    // Prachi-Sharnagat NetworkTrafficAnalysis tcp.pcapng, connection 32: a TLS download
    // captured at the Windows client (66 ms path), the server's IPv4 Identification one
    // per segment. Frames 2474 → 2479 (29.384 s, 310 ms): the client's ACK stayed at
    // 540593 with 542053–543513 SACKed (frame 2475); frame 2479 is new data, frame 2481,
    // 232 µs later, re-sends 540593 (counted a retransmission timeout). Frames 1881 →
    // 1884 (14.558 s, 290 ms): ACK at 23753 with 25213–55873 SACKed, ended by a flight
    // of new data and 23753 re-sent at the same instant (frame 1886). Both read "no ACK
    // released it — it sent when its application had data" (review AB).
    let Some(c) = common::corpus_connection("Prachi-Sharnagat__NetworkTrafficAnalysis__tcp.pcapng", 32) else { return };
    let st = &c.directions[1].stalls;
    let at = |frame: u32| st.iter().find(|s| s.frame_before == frame).unwrap_or_else(|| panic!("stall after frame {frame}: {st:?}"));
    assert_eq!(at(2474).cause, StallCause::RetransmissionTimeout, "{}", at(2474).ended_by);
    assert!(at(2474).ended_by.starts_with("a re-send at 29.694 s of 1.4 KiB the receiver had not acknowledged, 232 µs after new data"), "{}", at(2474).ended_by);
    assert_eq!(at(1881).cause, StallCause::RetransmissionTimeout, "{}", at(1881).ended_by);
    assert!(at(1881).ended_by.contains("in the flight that ended the gap, behind new data"), "{}", at(1881).ended_by);
    // Nothing outstanding before 15.706 s (frame 1954, all ACKed by frame 1956, no ID
    // skip, no SACK): 372 ms until new data is the application's, and stays so.
    assert_eq!(at(1954).cause, StallCause::ApplicationIdle, "{}", at(1954).ended_by);
    // The timer waits by kind: 696 ms ended by the one tail loss probe (frame 2025), the
    // other 5 timeout stalls (1.7 s) by re-sends no counted probe or timeout ended first.
    assert!(
        c.diagnosis.text.contains("2.4 s of it waiting on timers: 696 ms on 1 tail loss probe, 1.7 s on 5 other timer waits;"),
        "{}",
        c.diagnosis.text
    );
}

#[test]
fn corpus_strangeauthen_connection_36_three_sacked_holes_re_sent_behind_the_last_data_are_a_timer() {
    // ctfs write-ups-2015 strangeauthen sample_traffic.pcap, connection 36 (captured at
    // the client, 40 ms path): the server paced a segment every 12 ms and lost every other
    // one (22797, 25373, 27949: its IPv4 Identification skips each); the client's ACK
    // stayed at 22797, two duplicate ACKs SACKing the rest (frames 1124, 1126: fewer than
    // three, so no fast retransmission, RFC 5681 §3.2). 265 ms later (frame 1189) its last
    // 1005 B of new data, then 12 ms behind (frame 1191) the first hole re-sent: its
    // timer's, once counted idle time of its application.
    let Some(c) = common::corpus_connection("ctfs__write-ups-2015__asis-quals-ctf-2015_web_strange-authen_strangeauthen.asis-ctf.ir_misc_sample_traffic.pcap", 36) else { return };
    let st = &c.directions[c.data_direction as usize].stalls;
    let s = st.iter().find(|s| s.frame_before == 1125).unwrap_or_else(|| panic!("{st:?}"));
    assert_eq!((s.frame_after, s.cause), (1189, StallCause::RetransmissionTimeout), "{}", s.ended_by);
    assert!(s.ended_by.starts_with("a re-send at 21.719 s of 1.3 KiB the receiver had not acknowledged, 12 ms after new data"), "{}", s.ended_by);
}
