//! Issue 39, "Evidence before every claim", third review (recordings a44-*): two wrong
//! claims of the one-capture engine, each checked on the recording that showed it and on a
//! synthesized capture of the same shape (tests/common), with the reason the answer is
//! right.
//!
//! 1. Reordering at a sender-side capture read as loss recovery: the receiver's duplicate
//!    ACKs (with SACK blocks) for a hole that the late original fills were counted as a
//!    loss being detected. A duplicate ACK shows a loss only when its hole is repaired by
//!    a re-send that was not needless (diagnosis_shares/reorder_dup_acks.rs; RFC 4653 §1,
//!    RFC 2883, RFC 3708) — at either vantage point.
//! 2. A gap ended (or begun) by a fast retransmission called `retransmission-timeout`:
//!    no timer fired, the peer's duplicate ACKs / SACKs sent it (RFC 5681 §3.2, RFC 6675);
//!    the gap was a wait on ACKs (stalls/gaps.rs `ack_clocked_resend`).

use crate::common;

use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary, StallCause, Vantage};
use tcpscope_core::decode::tcp_flags::{ACK, SYN};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

/// The one connection of `file` in public/examples, at `threshold_ms` (None: default).
fn example(file: &str, threshold_ms: Option<f64>) -> ConnectionSummary {
    let path = format!("{}/../public/examples/{}", env!("CARGO_MANIFEST_DIR"), file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let options = AnalysisOptions { stall_threshold_ms: threshold_ms, ..AnalysisOptions::default() };
    let s = analyze_bytes(&bytes, options, 1 << 20);
    let a = s.analysis().expect("analysed");
    assert_eq!(a.connections.len(), 1, "{file}");
    a.connections[0].clone()
}

/// A scripted flow's connection at `threshold_ms` (the page lets the reader lower it);
/// tests/common's `analyze_flow` at the default threshold.
fn analyze_at(f: &Flow, threshold_ms: f64) -> ConnectionSummary {
    let mut frames = f.frames();
    frames.sort_by_key(|fr| fr.ts_ns);
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let options = AnalysisOptions { stall_threshold_ms: Some(threshold_ms), ..AnalysisOptions::default() };
    analyze_bytes(&bytes, options, 1 << 20).analysis().expect("analysed").connections[0].clone()
}

fn stalls_of(c: &ConnectionSummary, cause: StallCause) -> Vec<(u32, u32)> {
    c.directions[c.data_direction as usize].stalls.iter().filter(|s| s.cause == cause).map(|s| (s.frame_before, s.frame_after)).collect()
}

const MSS: u32 = 1448;
/// The server's first data byte (the Flow's server ISN 5000, + 1 for the SYN), and the
/// client's (1000 + 1).
const S0: u32 = 5001;
const C0: u32 = 1001;
const PER_TURN: u32 = 20;
const SLOT_US: i64 = 50;
const ONE_WAY_US: i64 = 10_000;
const RTT_US: i64 = 2 * ONE_WAY_US;
/// The client's think time between the whole answer and its next request.
const THINK_US: i64 = 2_000;

/// How the network treated a response's segment 4.
#[derive(Clone, Copy, PartialEq)]
enum Fate {
    Delivered,
    /// Held: it arrived after segments 5–7 (the receiver sent a duplicate ACK with a SACK
    /// block for each), and the sender re-sent nothing (RACK's reordering window, RFC 8985).
    Reordered,
    /// The same, and the sender re-sent it on the third duplicate ACK; the re-send
    /// arrived after the original and the receiver reported it with a D-SACK (RFC 2883 §4).
    ReorderedResent,
    /// Lost: the receiver's duplicate ACKs until the sender's fast retransmission on the
    /// third one repairs the hole (RFC 5681 §3.2).
    Lost,
}

/// Request/response captured at the server (the data sender; the client's packets
/// arrive with TTL 50, the server's leave with 64: vantage.rs `local_by_ttl`), 20 ms
/// path: each turn the client's 100-byte request, the server's 20-segment answer 50 µs
/// apart, the client's ACK of every second segment a round trip later, and its next
/// request [`THINK_US`] after its ACK of the whole answer. `fates[r]`: what happened to turn r's
/// segment 4.
fn request_response(fates: &[Fate]) -> Flow {
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:443");
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new().mss(1460).sack_perm()).ttl(50);
    f.push(S2C, 10).flags(SYN | ACK).opts(Opts::new().mss(1460).sack_perm());
    f.push(C2S, RTT_US).ack(S0).ttl(50);
    let seq = |r: u32, k: u32| S0 + (r * PER_TURN + k) * MSS;
    let mut t = RTT_US + 100;
    for (r, &fate) in fates.iter().enumerate() {
        let r = r as u32;
        f.data(C2S, t, 100).seq(C0 + r * 100).ack(seq(r, 0)).ttl(50);
        let t0 = t + 20;
        for k in 0..PER_TURN {
            f.data(S2C, t0 + i64::from(k) * SLOT_US, MSS).seq(seq(r, k)).ack(C0 + (r + 1) * 100);
        }
        // The client's ACKs reach the capture a round trip after each segment left it.
        let order: Vec<u32> = if fate == Fate::Delivered { (0..PER_TURN).collect() } else { [0, 1, 2, 3, 5, 6, 7, 4].into_iter().chain(8..PER_TURN).collect() };
        let mut cum = seq(r, 0);
        let mut sacked: Option<(u32, u32)> = None;
        let mut last_ack_t = t0;
        let mut third_dup_t = None;
        let ack = |f: &mut Flow, at: i64, cum: u32| {
            f.push(C2S, at).seq(C0 + (r + 1) * 100).ack(cum).ttl(50);
        };
        for (slot, &k) in order.iter().enumerate() {
            let at = t0 + slot as i64 * SLOT_US + RTT_US + 10;
            if fate == Fate::Lost && k == 4 {
                continue; // never arrived
            }
            if seq(r, k) == cum {
                cum = seq(r, k) + MSS;
                if let Some((_, right)) = sacked.take() {
                    cum = right; // the hole filled: everything SACKed is now in order
                }
                if slot % 2 == 1 || k == 4 {
                    ack(&mut f, at, cum);
                    last_ack_t = at;
                }
            } else {
                let block = (sacked.map_or(seq(r, k), |b| b.0), seq(r, k) + MSS);
                sacked = Some(block);
                f.push(C2S, at).seq(C0 + (r + 1) * 100).ack(cum).opts(Opts::new().sack(&[block])).ttl(50);
                last_ack_t = at;
                if k == 7 {
                    third_dup_t = Some(at);
                }
            }
        }
        if matches!(fate, Fate::ReorderedResent | Fate::Lost) {
            // The fast retransmission, 10 µs after the third duplicate ACK.
            let at = third_dup_t.expect("three duplicate ACKs") + 10;
            f.data(S2C, at, MSS).seq(seq(r, 4)).ack(C0 + (r + 1) * 100);
            let back = at + RTT_US + 10;
            if fate == Fate::Lost {
                // The repair: the client now has the whole answer.
                ack(&mut f, back, seq(r + 1, 0));
                last_ack_t = last_ack_t.max(back);
            } else {
                // A duplicate of bytes the client had: a D-SACK below the cumulative ACK,
                // sent after the client's next request (it had the whole answer already).
                f.push(C2S, back).seq(C0 + (r + 2) * 100).ack(seq(r + 1, 0)).opts(Opts::new().sack(&[(seq(r, 4), seq(r, 4) + MSS)])).ttl(50);
            }
        }
        t = last_ack_t + THINK_US;
    }
    f
}

#[test]
fn reordering_at_a_sender_side_capture_is_no_loss_recovery() {
    // The recording: request/response 30000/100000/8000 B × 30 over 15 ms each way at
    // 30 Mbit/s, 1 in 15 data segments held 2 ms (71 reordered), 3 % of ACKs lost,
    // captured at the server (the data sender). Its kernel: TCPFastRetrans 1,
    // TCPTimeouts 0, TCPDSACKRecv 1, TCPSACKReorder 70: the one re-send was needless,
    // nothing was lost. The client's duplicate ACKs for the ~2 ms holes (127 of them) were
    // once each read as a loss being detected, and the interval after the response's
    // last segment (the wait for the next request) as loss recovery: "Loss limited this
    // flow: 0.1 % … and the sender spent 67 % of the time recovering from loss". Every
    // one of those holes closed with no re-send (or with the one needless one), so no
    // time is loss (0), and the headline names the request/response turns: 28 times
    // the server, all acknowledged, waited for the next request (the client's 30 ms think
    // time + a 30 ms round trip), 94 % of the time.
    let c = example("a44-rr-ackloss-reorder-server.pcap", None);
    assert_eq!(c.vantage, Vantage::Sender);
    let d = &c.directions[c.data_direction as usize];
    assert_eq!((d.retransmissions, d.fast_retransmissions, d.spurious_retransmissions, d.rto_events), (1, 1, 1, 0));
    assert_eq!(c.diagnosis.shares.loss, 0.0, "{:?}", c.diagnosis.shares);
    // Turns are their own limit (review I class T), not the path's capacity.
    assert_eq!(c.diagnosis.limit, "turns");
    assert!(!c.diagnosis.text.contains("recovering from loss"), "{}", c.diagnosis.text);
    assert!(
        c.diagnosis.text.contains("Request/response turns set the pace: 28 times the sender, with everything acknowledged, sent more only on the peer's next message, 94 % of the time"),
        "{}",
        c.diagnosis.text
    );
    // The same connection captured at the client says the same: no loss (it read 1.6 %
    // before, from the duplicate ACKs of holes the late originals filled), the same 28 turns.
    let rx = example("a44-rr-ackloss-reorder.pcap", None);
    assert_eq!(rx.vantage, Vantage::Receiver);
    assert_eq!((rx.diagnosis.shares.loss, rx.diagnosis.limit.as_str()), (0.0, "turns"));
    assert!(rx.diagnosis.text.contains("Request/response turns set the pace: 28 times"), "{}", rx.diagnosis.text);
}

#[test]
fn a_synthesized_reordering_at_the_sender_is_no_loss_but_a_repaired_hole_is() {
    use Fate::*;
    // 10 turns, 2 ms think time; in turns 1, 3, 5 and 7 the network delivered segment 4
    // three segments late (no re-send), in turn 8 too and the sender re-sent it needlessly
    // on the third duplicate ACK (D-SACKed). Captured at the sender, where a late
    // original is not seen late: the duplicate ACKs are the only trace. Before, each
    // turn with duplicate ACKs counted its wait for the next request (the answer's round
    // trip) as loss recovery: loss share 0.5174, and "Loss limited this flow: 0.5 % of
    // the bytes sent were retransmissions (1 of 201 data segments, 1 of them needless
    // …), and the sender spent 52 % of the time recovering from loss" — the recording's
    // story. Every hole closed with no re-send that repaired it: loss 0; and the one
    // needless re-send put the flow at no loss-based bound (diagnosis/phrases.rs
    // `loss_held_cwnd`). The headline names the turns: 8 of the 9 waits between answers
    // were a request promptly after the ACK of everything (the ninth is cut in two by the
    // needless re-send), 85 % of the time.
    let fates = [Delivered, Reordered, Delivered, Reordered, Delivered, Reordered, Delivered, Reordered, ReorderedResent, Delivered];
    let c = common::analyze_flow(&request_response(&fates));
    assert_eq!(c.vantage, Vantage::Sender);
    let d = &c.directions[c.data_direction as usize];
    assert_eq!((d.retransmissions, d.spurious_retransmissions), (1, 1));
    assert_eq!(c.diagnosis.shares.loss, 0.0, "{:?}", c.diagnosis.shares);
    // Its turns are their own limit (review I class T), not the path's capacity.
    assert_eq!(c.diagnosis.limit, "turns", "{}", c.diagnosis.text);
    assert!(
        c.diagnosis.text.contains("Request/response turns set the pace: 8 times the sender, with everything acknowledged, sent more only on the peer's next message, 85 % of the time"),
        "{}",
        c.diagnosis.text
    );

    // The contrast: in turn 8 segment 4 was lost and the fast retransmission repaired it.
    // That hole's duplicate ACKs showed a loss: the wait from the answer's last segment
    // to the re-send (20.4 ms) and from it to the next answer (the repair's round trip
    // and the think time, 22 ms) are loss recovery, 18 % of the 0.248 s active time
    // (before: 57 %, the four reordered turns' waits counted too).
    let mut lost = fates;
    lost[8] = Lost;
    let c = common::analyze_flow(&request_response(&lost));
    let d = &c.directions[c.data_direction as usize];
    assert_eq!((d.retransmissions, d.spurious_retransmissions, d.fast_retransmissions), (1, 0, 1));
    assert!((c.diagnosis.shares.loss - 0.1823).abs() < 5e-5, "{:?}", c.diagnosis.shares);
}

#[test]
fn a_gap_ended_by_a_fast_retransmission_is_no_timeout_in_the_recordings() {
    // At a 15 ms threshold (the page's setting) the server-side captures hold gaps of one
    // round trip that a fast retransmission ended or began; both kernels counted no
    // timeout and no probe (TCPTimeouts 0, TCPLossProbes 0), so no stall may be a
    // retransmission timeout (issue 39 item 8).
    //
    // a44-rr-ackloss-reorder-server, frames 31 → 39 (30.2 ms): frame 31 ends a 30 KB
    // answer; the client's duplicate ACKs (frames 36–38, SACK 15929–20273) come a round
    // trip later, and frame 39, 15 µs after the third, re-sends 14481: a fast
    // retransmission (Wireshark says so; TCPFastRetrans 1). Before: `retransmission-timeout`,
    // "recovery retransmission of 1448 bytes". The server waited on ACKs with 30 KB in
    // flight below its 432 KiB window: `ack-wait`, and the words say what ended it.
    let c = example("a44-rr-ackloss-reorder-server.pcap", Some(15.0));
    assert_eq!(stalls_of(&c, StallCause::RetransmissionTimeout), vec![]);
    let s = c.directions[c.data_direction as usize].stalls.iter().find(|s| s.frame_before == 31).expect("the gap 31 → 39");
    assert_eq!((s.frame_after, s.cause), (39, StallCause::AckWait));
    assert_eq!(s.ended_by, "recovery retransmission of 1448 bytes at 0.094 s, sent on the peer's duplicate ACKs or SACKs, not by a timer");
    // a44-nat-sndpause-server, frames 857 → 881 (26.1 ms): frame 857 is a fast
    // retransmission of 705177 on the second duplicate ACK; bytes in flight already
    // filled the client's 129116-byte window (Wireshark: "window … completely full" at
    // frame 854), and the ACK of the repair (frame 880) let new data out. The sender was
    // held by the receive window the hole pinned (what its own SndLim states, RFC 4898's
    // SndLimTimeRwin, count): `window-limited`, no timer. Before: `retransmission-timeout`,
    // "new data after the retransmitted data was acknowledged" (rule 2b).
    let c = example("a44-nat-sndpause-server.pcap", Some(15.0));
    assert_eq!(stalls_of(&c, StallCause::RetransmissionTimeout), vec![]);
    assert_eq!(stalls_of(&c, StallCause::WindowLimited), vec![(857, 881)]);
    // The same gap at the client (frames 878 → 882; before, a timeout too): the same cause.
    let rx = example("a44-nat-sndpause.pcap", Some(15.0));
    assert_eq!(stalls_of(&rx, StallCause::RetransmissionTimeout), vec![]);
    assert_eq!(stalls_of(&rx, StallCause::WindowLimited), vec![(878, 882)]);
}

/// A download captured at the server, 20 ms path, its 20 segments 50 µs apart; segment
/// 4 is lost, the client sends a duplicate ACK with a SACK block for each segment above
/// it, the server re-sends segment 4 10 µs after the third (fast retransmission), and
/// sends its next 20 segments when the client's ACK of everything comes, a round trip
/// later. `window`: the client's advertised window. With `timer`, instead: the last
/// segment (19) is lost, no duplicate ACK comes, and the server's timer re-sends it
/// 200 ms after it first went (RFC 6298 §2.4's 1 s floor, Linux's 200 ms).
fn download_with_one_loss(window: u16, timer: bool) -> Flow {
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:443");
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new().mss(1460).sack_perm()).ttl(50);
    f.push(S2C, 10).flags(SYN | ACK).opts(Opts::new().mss(1460).sack_perm());
    f.push(C2S, RTT_US).ack(S0).ttl(50).window(window);
    f.data(C2S, RTT_US + 50, 100).ack(S0).ttl(50).window(window);
    let seq = |k: u32| S0 + k * MSS;
    let t0 = RTT_US + 100;
    for k in 0..PER_TURN {
        f.data(S2C, t0 + i64::from(k) * SLOT_US, MSS).seq(seq(k));
    }
    let lost = if timer { 19 } else { 4 };
    let mut cum = seq(0);
    let mut dup_acks = 0;
    let mut resent_at = None;
    for k in 0..PER_TURN {
        let at = t0 + i64::from(k) * SLOT_US + RTT_US + 10;
        if k == lost {
            continue;
        }
        if k < lost {
            cum = seq(k + 1);
            if k % 2 == 1 || k + 1 == lost {
                f.push(C2S, at).ack(cum).ttl(50).window(window);
            }
        } else {
            f.push(C2S, at).ack(cum).ttl(50).window(window).opts(Opts::new().sack(&[(seq(lost + 1), seq(k + 1))]));
            dup_acks += 1;
            if dup_acks == 3 {
                resent_at = Some(at + 10);
                f.data(S2C, at + 10, MSS).seq(seq(lost));
            }
        }
    }
    let resent_at = resent_at.unwrap_or_else(|| {
        let at = t0 + i64::from(lost) * SLOT_US + 200_000;
        f.data(S2C, at, MSS).seq(seq(lost));
        at
    });
    // The ACK of everything, and the next flight.
    let back = resent_at + RTT_US + 10;
    f.push(C2S, back).ack(seq(PER_TURN)).ttl(50).window(window);
    for k in PER_TURN..2 * PER_TURN {
        f.data(S2C, back + 10 + i64::from(k - PER_TURN) * SLOT_US, MSS).seq(seq(k));
    }
    f.push(C2S, back + 10 + RTT_US + 1_000).ack(seq(2 * PER_TURN)).ttl(50).window(window);
    f
}

#[test]
fn a_synthesized_gap_ended_by_a_fast_retransmission_is_a_wait_on_acks() {
    // Frames: 1–4 handshake and request, 5–24 the first flight, then the client's ACKs of
    // segments 1 and 3 (25, 26), its duplicate ACKs of segment 4 with SACK blocks (27–29),
    // the fast retransmission (30, 10 µs after the third), more duplicate ACKs (31–42),
    // the ACK of everything (43) and the next flight (44–63).
    // At a 15 ms threshold two gaps are stalls: 24 → 30 (19.4 ms: the last segment of the
    // flight to the fast retransmission the duplicate ACKs sent) and 30 → 44 (20 ms:
    // the re-send to the new data its ACK let out). Before, both were
    // `retransmission-timeout` ("recovery retransmission …", "new data after the
    // retransmitted data was acknowledged") though no timer fired; with 29 KB in flight
    // below a 64 KiB window the sender waited on ACKs both times: `ack-wait`.
    let c = analyze_at(&download_with_one_loss(65535, false), 15.0);
    assert_eq!(c.vantage, Vantage::Sender);
    let d = &c.directions[c.data_direction as usize];
    assert_eq!((d.fast_retransmissions, d.rto_events, d.tail_loss_probes), (1, 0, 0));
    assert_eq!(stalls_of(&c, StallCause::AckWait), vec![(24, 30), (30, 44)], "{:?}", d.stalls);
    assert_eq!(stalls_of(&c, StallCause::RetransmissionTimeout), vec![]);
    assert!(d.stalls[0].ended_by.starts_with("recovery retransmission of 1448 bytes at "), "{}", d.stalls[0].ended_by);

    // The client's window exactly the flight (20 × 1448 = 28960 bytes): through the first
    // gap the sender could send nothing more, its window full: `window-limited`. At the
    // re-send 16 segments were in flight (the hole's first byte to the highest sent), 4
    // below the window, and the sender sent nothing more until the repair's ACK: its
    // congestion window (cut by the loss, RFC 6675 §5) held it: `ack-wait`, as above.
    let c = analyze_at(&download_with_one_loss(28960, false), 15.0);
    assert_eq!(stalls_of(&c, StallCause::WindowLimited), vec![(24, 30)]);
    assert_eq!(stalls_of(&c, StallCause::AckWait), vec![(30, 44)]);
    assert_eq!(stalls_of(&c, StallCause::RetransmissionTimeout), vec![]);

    // The contrast: the flight's last segment lost, no duplicate ACK, the timer re-sends
    // it 200 ms later (a tail loss probe: it re-sends the highest segment, RFC 8985 §7.3).
    // Both gaps are the probe timer's, as the counters count it (a probe, no timeout):
    // 24 → 35 the probe ended, 35 → 37 the wait for its ACK began with it (rule 2b) —
    // `tail-loss-probe` (stalls/timer_label.rs), once `retransmission-timeout`.
    let c = analyze_at(&download_with_one_loss(65535, true), 15.0);
    let d = &c.directions[c.data_direction as usize];
    assert_eq!((d.fast_retransmissions, d.rto_events, d.tail_loss_probes), (0, 0, 1));
    assert_eq!(stalls_of(&c, StallCause::TailLossProbe), vec![(24, 35), (35, 37)], "{:?}", d.stalls);
    assert_eq!(stalls_of(&c, StallCause::RetransmissionTimeout), vec![], "{:?}", d.stalls);
}
