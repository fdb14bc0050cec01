//! Issue 39, review L class C-TAIL: the idle after a transfer's bulk data, before a last
//! small exchange, was counted as the transfer's own time. A persistent connection (HTTP
//! keep-alive, a TLS session closed minutes later with its close_notify) stays open after
//! its data moved; its idle is the connection waiting for a next request or its close,
//! not the application slowing the transfer. dbagal/internet-packet-analysis
//! `tcp_1082.pcap` connection 1 (a 2.1 MB download in 0.34 s, then 0.87 s idle until the
//! client's 67-byte record and a 400-byte answer) read "The applications limited this
//! flow: 76 % of the time … would have taken about 295 ms instead of 1.2 s".
//!
//! The rule (analysis/verdict/diagnosis_shares/transfer_end.rs, docs/ANALYSIS.md
//! `diagnosis.transferEnd`): the transfer ends at the last data segment before the
//! earliest application-idle stall after which at most 2 % of the new bytes came, whose
//! burst carried ten times those bytes and at least two full segments, and after which no
//! re-send and no stall of another cause came.

use crate::common;

use tcpscope_core::analysis::audit::audit_connection;
use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary, StallCause};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

const DBAGAL: &str = "dbagal__internet-packet-analysis__pcap_tcp_1082.pcap";


/// A download on a 2 ms path captured at the client: a 200-byte request at 3 ms, a
/// response of `first` segments from 5 ms; then, for each `(idle_us, segments)` of
/// `later`, the client's 67-byte request `idle_us` after the last segment and the server's
/// answer 2 ms later: `segments` full segments, or 400 bytes when 0.
fn download(first: i64, later: &[(i64, i64)]) -> Flow {
    let mut f = Flow::new("10.0.0.1:50706", "10.0.0.2:443");
    f.handshake(0, 2_000, Opts::new().mss(1460).wscale(7).sack_perm(), Opts::new().mss(1460).wscale(7).sack_perm());
    f.segments_mut()[2].window(2048);
    f.data(C2S, 3_000, 200).window(2048);
    let mut t = common::response(&mut f, 5_000, first);
    for &(idle, segments) in later {
        f.data(C2S, t + idle - 2_000, 67).window(2048);
        t = if segments > 0 {
            common::response(&mut f, t + idle, segments)
        } else {
            f.data(S2C, t + idle, 400);
            f.push(C2S, t + idle + 50).window(2048);
            t + idle
        };
    }
    f
}

fn application_idle(c: &ConnectionSummary) -> Vec<(f64, f64)> {
    let d = &c.directions[c.data_direction as usize];
    d.stalls.iter().filter(|s| s.cause == StallCause::ApplicationIdle).map(|s| (s.start, s.duration)).collect()
}

#[test]
fn the_idle_before_a_last_small_answer_is_the_connections_not_the_transfers() {
    // 100 segments (146,000 B) from 5.000 ms to 24.800 ms, then 800 ms idle: the client's
    // request at 822.8 ms, the 400-byte answer at 824.8 ms. The idle stall runs from the
    // last segment (24.8 ms) to the answer: 800 ms. 400 B is 0.27 % of 146,400 (≤ 2 %), the
    // burst before the stall 365 times it (≥ 10) and 100 segments (≥ 2): the transfer
    // ended at 24.8 ms, 19.8 ms after its first segment. Before: 800 ms of the 820 ms
    // active time "application", the headline `application` and "would have taken about
    // 20 ms instead of 820 ms". The last segment is frame 153: 3 of the handshake, the
    // request, 100 segments and the 49 ACKs before the last.
    let c = common::analyze_flow(&download(100, &[(800_000, 0)]));
    assert_eq!(application_idle(&c).len(), 1, "{:?}", c.directions[1].stalls);
    let (start, duration) = application_idle(&c)[0];
    assert!((start - 0.0248).abs() < 1e-9 && (duration - 0.8).abs() < 1e-9, "{start} {duration}");
    let d = &c.diagnosis;
    let te = d.transfer_end.expect("a transfer end");
    assert!((te.at - 0.0248).abs() < 1e-9, "{te:?}");
    assert_eq!((te.bytes, te.tail_bytes, te.peer_spoke), (146_000.0, 400.0, true));
    assert!((te.idle_seconds - 0.8).abs() < 1e-9 && (te.tail_seconds - 0.8).abs() < 1e-9, "{te:?}");
    // The shares are of the 19.8 ms transfer: no idle stall in them, and no application
    // saving of the idle (each 50 µs between an ACK of everything and the next segment,
    // sender time, is at most a few hundred µs in all).
    assert!(d.shares.application < 0.1, "{:?} {}", d.shares, d.text);
    assert!(d.savings.iter().all(|s| s.seconds < 0.01), "{:?}", d.savings);
    assert_ne!(d.limit, "application", "{}", d.text);
    assert!(!d.text.contains("would have taken about"), "{}", d.text);
    assert!(
        d.text.contains(
            "The transfer ended at 0.025 s (frame 153, 143 KiB sent); the connection then idled 800 ms until the sender answered a message of the peer, \
             and only 400 B followed: time the connection stayed open"
        ),
        "{}",
        d.text
    );
    // The auditor reads the same cut: its active time is 19.8 ms, and the idle stall,
    // after the transfer's end, is not held against the application share.
    assert_eq!(audit_connection(&c, te.at - 0.005), Vec::<String>::new());
}

#[test]
fn keep_alive_transfers_keep_the_idle_between_them() {
    // Two responses of 100 and 60 segments with 500 ms between them (the client's next
    // request 2 ms before the second), then 800 ms idle and a 400-byte answer. After the
    // first pause 87,600 + 400 B follow, 37 % of the bytes: no cut there; after the second,
    // 400 B, 0.17 % of 233,998 and under a tenth of the 87,600-byte burst: the cut. The
    // 500 ms between the transfers stays an idle stall of the shares, judged as before.
    let c = common::analyze_flow(&download(100, &[(500_000, 60), (800_000, 0)]));
    let idle = application_idle(&c);
    assert_eq!(idle.len(), 2, "{idle:?}");
    let d = &c.diagnosis;
    let te = d.transfer_end.expect("a transfer end");
    // The second response's last segment: 524.8 ms + 59 × 200 µs = 536.6 ms.
    assert!((te.at - 0.5366).abs() < 1e-9, "{te:?}");
    assert_eq!((te.bytes, te.tail_bytes), (233_600.0, 400.0));
    // The 500 ms between the transfers is in the application share (of 531.6 ms).
    assert!(d.shares.application * (te.at - 0.005) >= 0.5 - 1e-6, "{:?}", d.shares);
    assert_eq!(d.limit, "application", "{}", d.text);
    // Without the last answer: no cut, as before.
    let c = common::analyze_flow(&download(100, &[(500_000, 60)]));
    assert!(c.diagnosis.transfer_end.is_none(), "{:?}", c.diagnosis.transfer_end);
}

#[test]
fn messages_and_a_failed_tail_are_not_cut() {
    // A response of one segment, then 400 bytes after 800 ms: the burst before the pause is
    // below two full segments, a message, not a transfer.
    let c = common::analyze_flow(&download(1, &[(800_000, 0)]));
    assert!(c.diagnosis.transfer_end.is_none(), "{:?}", c.diagnosis.transfer_end);
    // The 100-segment download, then, after the 800 ms idle, the 400-byte answer re-sent
    // 300 ms later (never acknowledged the first time): what followed the pause was no idle
    // tail but a loss, which stays in the shares.
    // The server's data starts at its ISN 5000 + 1; the answer after 100 × 1460 bytes.
    let seq = 5001 + 100 * 1460;
    // No ACK of the answer; its re-send 300 ms later, then the ACK.
    let mut g = Flow::new("10.0.0.1:50706", "10.0.0.2:443");
    g.handshake(0, 2_000, Opts::new().mss(1460).wscale(7).sack_perm(), Opts::new().mss(1460).wscale(7).sack_perm());
    g.segments_mut()[2].window(2048);
    g.data(C2S, 3_000, 200).window(2048);
    let t = common::response(&mut g, 5_000, 100);
    g.data(C2S, t + 798_000, 67).window(2048);
    g.data(S2C, t + 800_000, 400);
    g.data(S2C, t + 1_100_000, 400).seq(seq);
    g.push(C2S, t + 1_100_050).window(2048);
    let c = common::analyze_flow(&g);
    assert!(c.directions[1].retransmissions >= 1, "{:?}", c.directions[1]);
    assert!(c.diagnosis.transfer_end.is_none(), "{:?} {}", c.diagnosis.transfer_end, c.diagnosis.text);
}

#[test]
fn the_download_of_the_public_capture_ends_before_its_idle_tail() {
    // Connection 1, 172.24.16.236:50706 ↔ 34.193.77.105:1082, captured at the client.
    // tshark: the server's data runs from frame 11 (0.023 s) to frame 2107 (0.373922 s,
    // seq 2173845 + 447 = 2174292), ACKed by frame 2108 (0.373968 s); frame 2109
    // (1.231206 s) is the client's 67-byte record, frame 2110 (1.243362 s) the server's
    // 400-byte answer, the last data. The idle stall 0.373922 s → 1.243362 s (869 ms):
    // 400 B after it, 0.018 % of 2,174,691. Before: "The applications limited this flow:
    // 76 % … Had every answer been ready at once, the transfer would have taken about
    // 295 ms instead of 1.2 s." Review L's reading: the reply arrived in 0.34 s (path RTT
    // 8.7 ms, window 278 KiB never reached: congestion window or path), then the
    // connection idled 0.87 s until the client's next message.
    let Some(bytes) = common::corpus(DBAGAL) else { return };
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    let c = &a.connections[1];
    let d = &c.diagnosis;
    let te = d.transfer_end.expect("a transfer end");
    assert_eq!(te.frame, 2107);
    assert!((te.at - 0.373922).abs() < 1e-6 && (te.idle_seconds - 0.86944).abs() < 1e-6, "{te:?}");
    assert_eq!((te.bytes, te.tail_bytes, te.peer_spoke), (2_174_291.0, 400.0, true));
    assert_eq!(d.limit, "path", "{}", d.text);
    assert!(d.text.contains("the flow averaged 53 Mbit/s while active with a path RTT of 8.7 ms, below the 261 Mbit/s that the 278 KiB window would allow"), "{}", d.text);
    assert!(d.text.contains("The transfer ended at 0.374 s (frame 2107, 2.1 MiB sent); the connection then idled 869 ms until the sender answered a message of the peer, and only 400 B followed"), "{}", d.text);
    assert!(!d.text.contains("would have taken about 295 ms"), "{}", d.text);
    // Only the 48 ms wait for the client's request after the TLS handshake (frames 30 →
    // 40) is left of the application's time: 16 % of the 0.35 s transfer.
    assert!((d.shares.application - 0.158).abs() < 0.005, "{:?}", d.shares);
}
