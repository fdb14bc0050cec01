//! Stall and wait causes cross-checked by TCP timestamps and by the stalled direction's
//! own state (issue 39 item 8; session 37 area G): the peer's transfer is no timer of
//! this side's (lycdl), an answer held on the path (isp), a receiver awake through its
//! hold (telzw).

use crate::common;
use tcpscope_core::analysis::StallCause;
use tcpscope_core::decode::tcp_flags::{ACK, PSH};
use tcpscope_core::synth::*;

/// A client's 100-byte request at 30 ms, then the server's 300 segments of 1448 bytes
/// every 10 ms from 50 ms (the client ACKing each 50 µs after it, but the last, at
/// 3.040 s, lost after the capture point), the server's timer re-sending that last one
/// at 3.340 s (300 ms), and the client's next request 25 ms after its ACK (3.365 s).
fn streamed() -> Flow {
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:443");
    f.handshake(0, 20_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 30_000, 100);
    for k in 0..300i64 {
        let t = 50_000 + k * 10_000;
        f.data(S2C, t, 1448);
        if k < 299 {
            f.push(C2S, t + 50);
        }
    }
    f.push(S2C, 3_340_000).seq(5001 + 299 * 1448).payload(1448).flags(ACK | PSH);
    f.push(C2S, 3_340_050);
    f.data(C2S, 3_365_000, 100);
    f.data(S2C, 3_385_000, 1448);
    f.push(C2S, 3_385_050);
    f
}

#[test]
fn a_wait_through_the_peers_transfer_is_this_sides_idle_time_not_the_peers_timer() {
    // The client's gap: 0.030 → 3.365 s (3.335 s). Its own state: its request was
    // acknowledged at 0.050 s and it had nothing outstanding; the server sent its own data
    // from 0.050 s, and its timer ran only on the last segment, from its first sending at
    // 3.040 s to the re-send at 3.340 s (300 ms, RFC 6298 (5.1)): 2.99 s of the gap were
    // the server's transfer before that, 25 ms the client's answer. Rule 2c ("the peer's
    // timer had to re-send") took the whole 3.3 s as the server's timer.
    let c = common::analyze_flow(&streamed());
    let s = c.directions[0].stalls.iter().find(|s| (s.start - 0.030).abs() < 1e-6).unwrap_or_else(|| panic!("{:?}", c.directions[0].stalls));
    assert!((s.duration - 3.335).abs() < 1e-6, "{s:?}");
    assert_eq!(s.cause, StallCause::ApplicationIdle, "{s:?}");
    assert_eq!(s.ended_by, "new data 25 ms after the peer's last payload at 3.340 s: the peer had sent its own new data from 0.050 s to 3.040 s (2.99 s; its timer re-sent lost bytes at 3.340 s), with all of this side's acknowledged — the peer's turn, then this side's answer");
    // The server's own direction keeps its timer: its 300 ms wait on the lost segment.
    let t = c.directions[1].stalls.iter().find(|s| (s.start - 3.040).abs() < 1e-6).unwrap_or_else(|| panic!("{:?}", c.directions[1].stalls));
    assert_eq!(t.cause, StallCause::RetransmissionTimeout, "{t:?}");
}

#[test]
fn lycdl_clients_silence_through_the_download_is_its_own_idle_time() {
    // lycdl (review X): the client's 14.1-s silence (frames 416 → 3616, 5.200 → 19.292 s)
    // while the server sent 2.3 MB; the server's timer re-sent 2588729 at 19.267 s (frame
    // 3614), 0.6 s after its first sending, and the client wrote 25 ms after its ACK.
    let Some(c) = common::corpus_connection("lyc0930__Wireshark-Labs__2-HTTP&DNS_DNS_1.pcapng", 16) else { return };
    let s = c.directions[0].stalls.iter().find(|s| (s.start - 5.200118).abs() < 1e-6).unwrap_or_else(|| panic!("{:?}", c.directions[0].stalls));
    assert_eq!(s.cause, StallCause::ApplicationIdle, "{s:?}");
    assert!(s.ended_by.starts_with("new data 25 ms after the peer's last payload at 19.267 s: the peer had sent its own new data from 5.206 s to "), "{}", s.ended_by);
    // Its 1.67-s stall from 3.279 s stays a timeout: the server's 777 ms of new data
    // (3.449 → 4.226 s) are under half of it, its probe's 705 ms after (re-send 4.931 s).
    let t = c.directions[0].stalls.iter().find(|s| (s.start - 3.278995).abs() < 1e-6).unwrap_or_else(|| panic!("{:?}", c.directions[0].stalls));
    assert_eq!(t.cause, StallCause::RetransmissionTimeout, "{t:?}");
}

fn ts(val: u32, ecr: u32) -> Opts {
    Opts::new().ts(val, ecr)
}

/// isp's answer, in small (a capture at the client, 25-ms path, both clocks 1 ms): the
/// server ACKs the request at 52 ms (TSval 1027: on time, its TSval at capture time T ms
/// is T + 975), sends its 9-segment answer at TSval 2795 — 1768 ticks after its ACK —
/// which reaches the capture at 2.068 s, 248 ms later than its clock says (2.016 s seen,
/// 1.768 s sent); its timer re-sends the first segment at TSval 3043 (248 ticks after),
/// arriving on time at 2.068040 s, and the client D-SACKs it.
fn held_answer() -> Flow {
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:80");
    f.push(C2S, 0).flags(tcpscope_core::decode::tcp_flags::SYN).ack(0).opts(Opts::new().mss(1460).sack_perm().ts(500_000, 0));
    f.push(S2C, 25_000).flags(tcpscope_core::decode::tcp_flags::SYN | ACK).opts(Opts::new().mss(1460).sack_perm().ts(1000, 500_000));
    f.push(C2S, 25_000).opts(ts(500_025, 1000));
    f.data(C2S, 26_000, 485).opts(ts(500_026, 1000));
    f.push(S2C, 52_000).opts(ts(1027, 500_026));
    for k in 0..9i64 {
        f.data(S2C, 2_068_000 + 2 * k, if k < 8 { 1448 } else { 1389 }).opts(ts(2795, 500_026));
    }
    f.push(S2C, 2_068_040).seq(5001).payload(1448).opts(ts(3043, 500_026));
    f.push(C2S, 2_068_060).opts(ts(502_068, 2795));
    f.push(C2S, 2_068_070).opts(Opts::new().ts(502_068, 2795).sack(&[(5001, 6449)]));
    f.data(C2S, 2_080_000, 420).opts(ts(502_080, 3043));
    for k in 0..6i64 {
        let t = 2_105_000 + 300 * k;
        f.data(S2C, t, 1448).opts(ts((t / 1000) as u32 + 975, 502_080));
        if k % 2 == 1 {
            f.push(C2S, t + 50).opts(ts((t / 1000) as u32 + 500_000, (t / 1000) as u32 + 975));
        }
    }
    f
}

#[test]
fn an_answer_the_path_held_is_told_by_the_senders_own_clock() {
    // Frame 5 (the server's ACK, 0.052 s) → frame 6 (its answer's first byte, 2.068 s):
    // 2.016 s at the capture, 1768 ticks of the server's 1-ms clock (the tick measured
    // on its least-delayed packets, 0.052 → 2.068040 s: 2016 ticks in 2.016 s). The path
    // held the answer 248 ms (≥ the 25-ms path RTT, ≥ 10 ticks, beyond 2 ticks + 1 ms +
    // 1 % of the 1.768 s). Its timer's re-send (frame 15) came while the answer was held,
    // and the client D-SACKed it: needless.
    let c = common::analyze_flow(&held_answer());
    let t = &c.diagnosis.text;
    assert!(t.contains("By 10.0.0.1:80's TCP timestamps (its clock ticking every 1 ms), it sent frame 6 1.77 s after frame 5 (1768 ticks), yet the capture saw 2.02 s pass between them: the path held the answer about 248 ms on the way"), "{t}");
    assert!(t.contains("its retransmission timer fired needlessly: frame 15 re-sent bytes that were only held, not lost, 1.4 KiB in all; the timeout also restarted slow start"), "{t}");
}

#[test]
fn isp_answer_held_on_the_path_and_the_needless_timeout_are_named() {
    // isp (review V): frame 30 (0.452409 s, TSval 1425358236) → frame 32 (2.068421 s,
    // TSval 1425359604): 1368 ticks of a 1-ms clock against 1.616 s seen: held ≈ 0.25 s.
    // Frame 41 (TSval …9848) is the timer's re-send, D-SACKed by 47; 50, 52, 54, 56
    // re-send 5793–11585 after the client's ACKs of them (D-SACKed by 51–57).
    let Some(c) = common::corpus_connection("chrissanders__packets__dns_isp_hijack.pcapng", 2) else { return };
    let t = &c.diagnosis.text;
    assert!(t.contains("it sent frame 32 1.37 s after frame 30 (1368 ticks), yet the capture saw 1.62 s pass between them: the path held the answer about 24"), "{t}");
    assert!(t.contains("frame 41 re-sent bytes that were only held, not lost, then 4 more (frames 50–56)"), "{t}");
}

#[test]
fn telzw_receiver_awake_through_its_hold() {
    // telzw (review X): the receiver's 10-ms clock moved 7 ticks (99619209 → 99619216,
    // frames 167 → 173) over its 70-ms silence: it sent the batch's first ACK at the end.
    let Some(c) = common::corpus_connection("markofu__pcaps__HoneyNet_1112_fc_0.pcap", 0) else { return };
    let d = c.data_direction as usize;
    let s = c.directions[d].stalls.iter().find(|s| s.ended_by.starts_with("the receiving host held its ACKs")).unwrap_or_else(|| panic!("{:?}", c.directions[d].stalls));
    assert!(s.ended_by.contains("; its TCP timestamps moved 7 ticks (about 70 ms) from frame 167 to frame 173: it sent that ACK at the silence's end"), "{}", s.ended_by);
}
