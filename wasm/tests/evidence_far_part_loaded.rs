//! Issue 39 review class Z: at a capture next to the data receiver, the far part of the
//! round trip (receiver's ACK → sender → the sender's next data back) grows with a queue
//! on the way, and the sender's timestamp echoes measure it (RFC 7323 §4.3: the sender
//! echoes TS.Recent, the TSval of the latest segment of the receiver it accepted). A
//! silence that loaded far part takes is the path's, not the sender's application: a
//! queue that held the client's ACKs and requests 100 ms on a 20 ms path read "Mostly
//! the application" (PcapPlusPlus `example.pcap` #3). docs/ANALYSIS.md stall rule 10.

use crate::common;
use tcpscope_core::analysis::{ConnectionSummary, StallCause};
use tcpscope_core::synth::*;

const MS: f64 = 1_000.0; // µs

/// Client TSval: 100 + its clock in ms; server TSval: 5000 + its clock in ms (1 ms ticks).
fn client_ts(t_us: f64) -> u32 {
    100 + (t_us / MS) as u32
}
fn server_ts(t_us: f64) -> u32 {
    5_000 + (t_us / MS) as u32
}

/// A download captured at the client (the data receiver), 10 ms each way. After the
/// handshake the way up (client → server) holds everything `queue_ms` more; the server
/// thinks `think_ms` before each answer. Three requests, each answered by 20 segments of
/// 1,448 B: 10 sent at once (1 ms apart on the wire), 10 more each as the ACK of one of
/// the first arrives (the server's congestion window). The client ACKs each segment
/// 50 µs after it and sends its next request 100 µs after the last ACK.
fn download(queue_ms: f64, think_ms: f64) -> ConnectionSummary {
    common::analyze_flow(&download_flow(queue_ms, think_ms))
}

fn download_flow(queue_ms: f64, think_ms: f64) -> Flow {
    let up = (10.0 + queue_ms) * MS;
    let down = 10.0 * MS;
    let mut f = Flow::new("10.0.0.2:50000", "10.0.0.1:80");
    f.handshake(0, 20_000, Opts::new().mss(1460).ts(client_ts(0.0), 0), Opts::new().mss(1460).ts(server_ts(10.0 * MS), client_ts(0.0)));
    // (capture time µs, direction, payload, TSval, TSecr), emitted in time order below.
    let mut ev: Vec<(f64, Dir, u32, u32, u32)> = Vec::new();
    let mut t_req = 20_100.0;
    for _ in 0..3 {
        ev.push((t_req, C2S, 200, client_ts(t_req), server_ts(0.0)));
        let sent = t_req + up + think_ms * MS; // the server's clock is the capture's
        let mut acks = Vec::new();
        for i in 0..10 {
            let s = sent + f64::from(i) * MS;
            let a = s + down;
            ev.push((a, S2C, 1448, server_ts(s), client_ts(t_req)));
            acks.push(a + 50.0);
            ev.push((a + 50.0, C2S, 0, client_ts(a + 50.0), server_ts(s)));
        }
        let mut last = 0.0;
        for &ack in &acks {
            // Sent when that ACK arrives, echoing its TSval (the next ACK not yet there).
            let s = ack + up;
            let a = s + down;
            ev.push((a, S2C, 1448, server_ts(s), client_ts(ack)));
            ev.push((a + 50.0, C2S, 0, client_ts(a + 50.0), server_ts(s)));
            last = a + 50.0;
        }
        t_req = last + 100.0;
    }
    ev.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (t, d, len, tsval, tsecr) in ev {
        let s = if len > 0 { f.data(d, t as i64, len) } else { f.push(d, t as i64) };
        s.opts(Opts::new().ts(tsval, tsecr));
    }
    f
}

fn causes(c: &ConnectionSummary) -> Vec<(u32, StallCause)> {
    c.directions[1].stalls.iter().map(|s| ((s.duration * 1e4).round() as u32, s.cause)).collect()
}

#[test]
fn a_turn_the_loaded_far_part_takes_is_the_paths() {
    // Queue 100 ms on the way up, no think time. Each response's second half comes
    // 120.05 ms after the ACKs that released it (rule 3a's held echo: its echo is older
    // than the ACK of everything, 111 ms stalls `ack-wait` before and after). The next
    // response's first segment comes 120.15 ms after the last data (0.1 ms to the
    // request + 10 + 100 up + 10 down): `application-idle` by the path RTT of 20 ms,
    // though the echoes showed the far part then at least 119 ms — the second half's
    // segment i echoes the ACK of the first half's i, 120.05 ms after it, while the ACK
    // of i + 1 had left 1 ms after i (119.05 ms before; the data's one-way delay is the
    // same 10 ms throughout, so none of it is a queue on the data's way — but for the
    // server's 1 ms TSval ticks, which read up to a tick of it as one: 118.95 ms kept).
    // 120.15 − 118.95 = 1.2 ms: the rest is less than the bound and less than a stall
    // (80 ms): `ack-wait`.
    let c = download(100.0, 0.0);
    assert_eq!(c.path_rtt_ms, Some(20.0));
    assert_eq!(c.stall_threshold_ms, 80.0);
    let got = causes(&c);
    assert_eq!(got, vec![(1111, StallCause::AckWait), (1202, StallCause::AckWait), (1111, StallCause::AckWait), (1202, StallCause::AckWait), (1111, StallCause::AckWait)], "{:?}", c.directions[1].stalls);
    let turn = &c.directions[1].stalls[1];
    assert!(turn.ended_by.contains("the far part of the round trip was at least 119 ms; the rest, 1.2 ms"), "{}", turn.ended_by);
    // The far part's samples are followed: the data's round trips add them (the second
    // half's echoes, each a newer ACK having left 1 ms after the echoed one).
    assert!(c.directions[1].rtt.followed_samples > 0);
    assert_ne!(c.diagnosis.limit, "application", "{}", c.diagnosis.text);
}

#[test]
fn a_turn_the_far_part_does_not_take_stays_the_applications() {
    // No queue, the server thinks 100 ms: the same 120.15 ms turns, but the echoes bound
    // the far part at 19.05 ms only (20.05 − 1): 101.1 ms would be the application's,
    // more than the path's — `application-idle` as before. The second halves now come
    // 20.05 ms after the ACKs (below the 80 ms threshold: no stall).
    let c = download(0.0, 100.0);
    let got = causes(&c);
    assert_eq!(got, vec![(1202, StallCause::ApplicationIdle), (1202, StallCause::ApplicationIdle)], "{:?}", c.directions[1].stalls);
}

#[test]
fn pcapplusplus_example_3_waits_on_a_queue_not_the_application() {
    // seladb/PcapPlusPlus Tests/Pcap++Test/PcapExamples/example.pcap, connection #3
    // (10.0.0.6:44150 ← 212.199.202.9:80, captured at the client): tshark shows frame 622
    // (4.1334 s) echoing TSval 195320 although the client sent 195321 at 4.0178 s (frame
    // 461), 115.6 ms before; the request at 4.1350 s (frame 625) is answered at 4.2819 s
    // (frame 785, 147 ms) against a 19.7 ms handshake. Was: 10 application-idle stalls,
    // "Mostly the application", the far part "known only by its minimum".
    let Some(bytes) = common::corpus("seladb__PcapPlusPlus__Tests_Pcap++Test_PcapExamples_example.pcap") else { return };
    let s = tcpscope_core::session::analyze_bytes(&bytes, Default::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    let c = a.connections.iter().find(|c| c.endpoints[0] == "10.0.0.6:44150").expect("connection 44150");
    let st = &c.directions[1].stalls;
    let at = |t: f64| st.iter().find(|s| (s.start - t).abs() < 1e-4).map(|s| s.cause);
    assert_eq!(at(4.134852), Some(StallCause::AckWait));
    assert_eq!(at(4.519829), Some(StallCause::AckWait));
    let app = st.iter().filter(|s| s.cause == StallCause::ApplicationIdle).count();
    assert_eq!(app, 0, "{st:?}");
    assert_ne!(c.diagnosis.limit, "application", "{}", c.diagnosis.text);
    assert!(c.directions[1].rtt.followed_samples > 0);
    assert!(!c.diagnosis.far_part_unseen);
}

/// The analysis of `bytes` and the stalls the view finds for direction `dir` of
/// connection `i` at `threshold_ms` (view/stalls.rs, as when a person sets another
/// stall threshold), as (start, cause) beside the summary's.
fn view_and_summary(a: &tcpscope_core::analysis::Analysis, i: usize, dir: u8, threshold_ms: f64) -> (Vec<(f64, StallCause)>, Vec<(f64, StallCause)>) {
    let c = &a.connections[i];
    let tick = c.tick_s(a.capture.timestamp_resolution_s());
    let view = tcpscope_core::view::stalls::find(&a.stores[i], c, dir, threshold_ms, tick);
    let pairs = |v: &[tcpscope_core::analysis::Stall]| v.iter().map(|s| (s.start, s.cause)).collect::<Vec<_>>();
    (pairs(&view), pairs(&c.directions[dir as usize].stalls))
}

#[test]
fn the_view_at_another_threshold_judges_by_the_same_rules() {
    // The queued download above: its two turns are `ack-wait` by rule 10 (the echoes'
    // far-part bound, kept with the rows for the view: stalls/later_rules.rs). At 79.9 ms
    // instead of the summary's 80 the same five gaps are stalls, and each must keep its
    // cause; the view ran the gap rules only, and said `application-idle` of both turns.
    let mut frames = download_flow(100.0, 0.0).frames();
    frames.sort_by_key(|fr| fr.ts_ns);
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = tcpscope_core::session::analyze_bytes(&bytes, Default::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    let (view, summary) = view_and_summary(a, 0, 1, 79.9);
    assert_eq!(summary.iter().filter(|s| s.1 == StallCause::AckWait).count(), 5);
    assert_eq!(view, summary);
}

#[test]
fn pcapplusplus_example_3_the_view_keeps_the_causes() {
    // The same on example.pcap #3 (receiver side, stall rule 10 and the far part): every
    // stall the view finds just below the summary's threshold has the summary's cause.
    let Some(bytes) = common::corpus("seladb__PcapPlusPlus__Tests_Pcap++Test_PcapExamples_example.pcap") else { return };
    let s = tcpscope_core::session::analyze_bytes(&bytes, Default::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    let i = a.connections.iter().position(|c| c.endpoints[0] == "10.0.0.6:44150").expect("connection 44150");
    let (view, summary) = view_and_summary(a, i, 1, a.connections[i].stall_threshold_ms * 0.999);
    assert!(summary.len() >= 10, "{summary:?}");
    assert_eq!(view, summary);
}
