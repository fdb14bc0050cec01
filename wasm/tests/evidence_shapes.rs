//! Issue 39, "Evidence before every claim": each shape a real capture by others showed
//! with a story the capture itself contradicts, synthesized with known answers. Each
//! test asserts the right headline and the absence of the false sentence, and says why
//! the answer is right (DESIGN.md "Diagnosis principles").

use crate::common;

use tcpscope_core::analysis::{ConnectionSummary, StallCause};
use tcpscope_core::decode::tcp_flags::{ACK, FIN, PSH, RST};
use tcpscope_core::synth::*;

/// The scripted flow's connection (tests/common: written in time order, TCPSCOPE_DUMP keeps it).
fn analyze(f: &Flow) -> ConnectionSummary {
    common::analyze_flow(f)
}

fn causes(c: &ConnectionSummary) -> Vec<StallCause> {
    c.directions[c.data_direction as usize].stalls.iter().map(|s| s.cause).collect()
}

/// An NFS-style read captured at the client (10.0.0.2), 1 ms path: the client asked
/// for ten 32 KiB replies at once; each reply is a 120-byte header segment, 22 full
/// segments and a short one (792 B). The client ACKs every second segment at once, and the lone short segment
/// at the end of each reply only on its 40 ms delayed-ACK timer (RFC 1122 §4.2.3.2);
/// the server sends the next reply as that ACK reaches it (Nagle holds its small first
/// write while the short segment is unacknowledged, RFC 896). The server numbers its
/// datagrams from one counter shared with its other traffic: one per datagram within
/// a reply, 57 more across each 40 ms pause (other clients took them).
fn delayed_ack_staircase(shared_counter: bool) -> Flow {
    let mut f = Flow::new("10.0.0.2:800", "10.0.0.1:2049");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 1_100, 1_200); // ten READ calls
    let mut id = 1000u16;
    let mut t = 2_200;
    for reply in 0..10 {
        if reply > 0 && shared_counter {
            id = id.wrapping_add(57);
        }
        // The reply's first write is the RPC header (120 B), held by Nagle while the last
        // reply's short segment is unacknowledged; then 22 full segments and the rest.
        for k in 0..24u32 {
            let len = match k {
                0 => 120,
                23 => 792,
                _ => 1448,
            };
            f.data(S2C, t, len).ip_id(id);
            id = id.wrapping_add(1);
            // Every second segment ACKed at once; the lone last one waits for the timer.
            if k % 2 == 1 && k < 23 {
                f.push(C2S, t + 10);
            }
            t += 20;
        }
        // The short segment's ACK on the delayed-ACK timer, then the next reply a
        // round trip later at this capture point.
        t += 40_000;
        f.push(C2S, t);
        t += 1_000;
    }
    f
}

#[test]
fn a_delayed_ack_staircase_on_a_shared_id_counter_is_no_loss() {
    // The NFS read of issue 39: 0 retransmissions, every byte ACKed, no hole. Its
    // server's IPv4 ID jumps 57 across each pause, which once read as 513 datagrams
    // "sent, not captured" and 9 "retransmission timer" stalls headlined as loss. No
    // skip has a hole or a re-send behind it, so the numbering is not shown to be the
    // connection's own (datagram_ids.rs `told`): nothing is told of it. The 9 pauses
    // are the delayed ACK meeting Nagle: the short segment held ~40 ms each time.
    let c = analyze(&delayed_ack_staircase(true));
    let server = &c.directions[c.data_direction as usize];
    assert_eq!((server.retransmissions, server.unseen_datagrams), (0, None));
    assert_eq!(causes(&c), vec![StallCause::DelayedAck; 9]);
    let text = &c.diagnosis.text;
    assert!(!text.contains("never reached the capture"), "{text}");
    assert!(!text.to_lowercase().contains("retransmission"), "{text}");
    assert_ne!(c.diagnosis.limit, "loss", "{text}");
    assert!(text.contains("delayed ACK"), "{text}");
    // The same transfer from a per-connection counter (Linux: one per datagram, no
    // other traffic): every step in step, 0 unseen, the same story.
    let c = analyze(&delayed_ack_staircase(false));
    assert_eq!(c.directions[c.data_direction as usize].unseen_datagrams, Some(0));
    assert_eq!(causes(&c), vec![StallCause::DelayedAck; 9]);
}

#[test]
fn one_id_jump_on_the_last_ack_is_not_a_loss() {
    // A bulk upload whose sender's ACK after its FIN carries an unrelated number (the
    // stack's, not the socket's): 1 step of 1,500 out of step, and no data after it.
    // It once read "26421 datagrams sent, not captured". Nothing lost shows in the
    // capture, so nothing is counted.
    let mut f = Flow::new("10.0.0.1:5000", "10.0.0.2:443");
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    let mut t = 11_000;
    for k in 0..1500u16 {
        f.data(C2S, t, 1448).ip_id(100 + k);
        if k % 2 == 1 {
            f.push(S2C, t + 10_000);
        }
        t += 100;
    }
    f.push(C2S, t).flags(FIN | ACK).ip_id(1600);
    f.push(S2C, t + 10_000).flags(FIN | ACK);
    f.push(C2S, t + 10_001).ip_id(28_021);
    let c = analyze(&f);
    let d = &c.directions[0];
    assert!(d.unseen_datagrams.is_none_or(|n| n == 0), "{:?}", d.unseen_datagrams);
    assert!(!c.diagnosis.text.contains("never reached the capture"), "{}", c.diagnosis.text);
}

#[test]
fn a_slow_uplink_draining_each_write_is_the_path_not_the_application() {
    // A 150 KB upload, captured at the sender, over a ~256 kbit/s uplink with a 23 ms
    // base RTT; the application writes 8 KiB and writes again only once all of it is
    // ACKed (an application window). Each 8 KiB (6 segments) leaves at once and drains
    // through the bottleneck in 256 ms, one ACK per two segments ~85 ms apart; the next
    // write follows the last ACK within 1 ms. The sender had data outstanding 99 % of
    // the time: the path, not the application ("95 % of the time everything sent had
    // been acknowledged … the application" before).
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:443");
    f.handshake(0, 23_000, Opts::new().mss(1460), Opts::new().mss(1460));
    let mut t = 24_000;
    let seg_us = 1448 * 8 * 1_000_000 / 256_000; // 45 ms per segment at 256 kbit/s
    let mut seq = 1001u32; // the client's ISN 1000, plus the SYN
    for _ in 0..18 {
        for k in 0..6 {
            f.data(C2S, t + k * 10, 1448);
        }
        // One ACK per two segments as the bottleneck delivers them.
        for k in 1..=3u32 {
            f.push(S2C, t + 23_000 + 2 * i64::from(k) * seg_us).ack(seq + 2 * k * 1448);
        }
        seq += 6 * 1448;
        t += 23_000 + 6 * seg_us + 1_000;
    }
    let c = analyze(&f);
    // Each 295 ms gap is a wait on ACKs with 3 ACKs arriving in it: the ACK clock ran,
    // the bottleneck delivering at its rate (diagnosis.rs `clocked_waits`): the path.
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.starts_with("The path limited this flow: in 17 stalls"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.shares.application < 0.05, "{:?}", c.diagnosis.shares);
    // Stalls that fill their period are the transfer's pace, not holds on a timer.
    assert!(c.diagnosis.episodes.iter().all(|e| e.kind != "periodic"), "{:?}", c.diagnosis.episodes);
    assert!(!c.diagnosis.text.contains("everything sent had been acknowledged"), "{}", c.diagnosis.text);
}

#[test]
fn a_window_limited_download_with_its_handshake_is_judged_by_its_window() {
    // A download captured at the client, handshake in frames 1–3 (scales 2 and 7);
    // the server keeps the 256 KiB window full every round trip (10 ms), and once the
    // receiver shrinks its window by a segment while a flight is out (RFC 9293
    // §3.8.6.2.2), so bytes in flight exceed the window by a little. That excess once
    // made the windows "understated" and the text "the handshake is not in the
    // capture". With the scale known only twice the window would say the windows are
    // wrong (stalls/gaps.rs `exceeds_window`).
    let mut f = Flow::new("10.0.0.2:50000", "10.0.0.1:443");
    f.handshake(0, 10_000, Opts::new().mss(1460).wscale(7).sack_perm(), Opts::new().mss(1460).wscale(2));
    f.data(C2S, 10_100, 300).window(2048);
    let window_bytes: u32 = 256 * 1024;
    let per_flight = window_bytes / 1448;
    let mut t = 20_200;
    for round in 0..40 {
        for k in 0..per_flight {
            f.data(S2C, t + i64::from(k) * 20, 1448);
        }
        // The client ACKs the flight as it arrives (every other segment), advertising
        // 256 KiB (2048 << 7); in round 20 one ACK advertises a segment less.
        for k in (1..per_flight).step_by(2) {
            let w = if round == 20 && k == 1 { 2036 } else { 2048 };
            f.push(C2S, t + i64::from(k) * 20 + 10).window(w);
        }
        t += 10_000;
    }
    let c = analyze(&f);
    let text = &c.diagnosis.text;
    assert!(!text.contains("handshake is not in the"), "{text}");
    assert!(!text.contains("its SYN is not in the capture"), "{text}");
    assert!(c.diagnosis.shares.receive_window > 0.5, "{:?}", c.diagnosis.shares);
    assert_eq!(c.diagnosis.limit, "receive-window", "{text}");
}

#[test]
fn a_transfer_reset_with_data_unacknowledged_is_not_an_idle_application() {
    // Captured at the client: the server sends 20 segments, the client ACKs the first
    // 10; the server then resets. Nothing in the capture says everything was ACKed at
    // the end, so "everything sent had been acknowledged" must not be said.
    let mut f = Flow::new("10.0.0.2:50000", "10.0.0.1:443");
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 10_100, 300);
    let mut t = 20_200;
    for k in 0..20u32 {
        f.data(S2C, t, 1448).flags(ACK | PSH);
        if k < 10 && k % 2 == 1 {
            f.push(C2S, t + 10);
        }
        t += 500;
    }
    f.push(S2C, t + 50_000).flags(RST | ACK);
    let c = analyze(&f);
    assert!(!c.diagnosis.text.contains("100 % of the time everything sent had been acknowledged"), "{}", c.diagnosis.text);
}

#[test]
fn holds_on_a_timer_are_named_periodic_and_blamed_on_the_path() {
    // A download captured at the client, 10 ms path, the server's segments one per ms
    // with TCP timestamps (TSval = its ms clock). Every 1.05 s the path holds the data
    // 215 ms (a radio scanning off-channel): the next segment, sent 1 ms after the one
    // before, arrives 215 ms late with its queue right behind it. Its TSval moved 1 ms
    // over the 215 ms gap, so the sender did not wait: held on the path (sender_clock.rs),
    // not an idle application; and the 7 holds at a steady 1.05 s are one periodic
    // pattern, ~19 % of the time (each gap 216 ms: the hold and the 1 ms spacing).
    let mut f = Flow::new("10.0.0.2:50000", "10.0.0.1:443");
    f.handshake(0, 10_000, Opts::new().mss(1460).ts(1, 0), Opts::new().mss(1460).ts(1, 1));
    f.data(C2S, 10_100, 300).opts(Opts::new().ts(11, 1));
    let (mut t, mut clock) = (20_000i64, 20u32);
    let mut next_hold = 1_000_000i64;
    let mut holds = 0;
    while t < 8_000_000 {
        let mut late = 0;
        if t >= next_hold && holds < 7 {
            late = 215_000;
            next_hold += 1_050_000;
            holds += 1;
        }
        // The held segment and the 9 queued behind it arrive back to back.
        let burst = if late > 0 { 10 } else { 1 };
        for k in 0..burst {
            f.data(S2C, t + late + k * 20, 1448).opts(Opts::new().ts(clock + k as u32, 11));
            if k % 2 == 1 || burst == 1 {
                f.push(C2S, t + late + k * 20 + 10).opts(Opts::new().ts(11 + ((t + late) / 1000) as u32, clock + k as u32));
            }
        }
        clock += burst as u32;
        t += late + i64::from(burst) * 1_000;
    }
    let c = analyze(&f);
    let d = &c.directions[c.data_direction as usize];
    let held = d.stalls.iter().filter(|s| s.duration > 0.2).collect::<Vec<_>>();
    assert_eq!(held.len(), 7, "{:?}", d.stalls);
    assert!(held.iter().all(|s| s.cause == StallCause::AckWait), "{held:?}");
    let periodic = c.diagnosis.episodes.iter().find(|e| e.kind == "periodic").expect("a periodic episode");
    assert!(periodic.text.starts_with("7 stalls of about 216 ms recurred every 1.05 s"), "{}", periodic.text);
    assert_ne!(c.diagnosis.limit, "application", "{}", c.diagnosis.text);
}

#[test]
fn a_line_rate_flow_with_short_pauses_is_the_path_and_no_burst_slowed_down() {
    // Captured at the sender, 10 ms path, 100 Mbit/s: one 1448-byte segment every
    // 116 µs, every second one ACKed a path RTT later. Five writes of 250 KB, 250 KB,
    // 40 MB, 250 KB and 250 KB, the application pausing 40 ms after each is ACKed.
    // Every burst ran at the link's rate: the 40 MB one took 160× as long because it
    // carried 160× the bytes, not because the path slowed down. The stalls are 4 ×
    // 50 ms of 3.6 s (5 %): the path (the link's rate) is the headline.
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:5201");
    // Windows of 8 MiB (65535 << 7): far above the 125 KB the link holds.
    f.handshake(0, 10_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    let mut t = 11_000i64;
    for segments in [173, 173, 27620, 173, 173] {
        for k in 0..segments {
            f.data(C2S, t, 1448);
            if k % 2 == 1 || k == segments - 1 {
                f.push(S2C, t + 10_000);
            }
            t += 116;
        }
        t += 10_000 + 40_000;
    }
    let c = analyze(&f);
    let text = &c.diagnosis.text;
    assert!(!text.contains("slowed down"), "{text}");
    assert!(c.diagnosis.episodes.iter().all(|e| e.kind != "delay-spike" && e.kind != "loss"), "{:?}", c.diagnosis.episodes);
    assert_eq!(c.diagnosis.limit, "path", "{text}");
    assert!(c.diagnosis.shares.application < 0.5, "{:?}", c.diagnosis.shares);
}

#[test]
fn an_application_writing_then_sleeping_is_the_application_not_the_path() {
    // Ten times: write 1 MB, sleep 200 ms, over 100 Mbit/s with a 10 ms path, captured
    // at the sender. Each megabyte drains in 84 ms; the next write comes 200 ms after
    // the last was ACKed. No faster network could bring the 10 × 200 ms of sleep down:
    // the application is the headline ("path 40 % vs application 39 %" before).
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:5201");
    f.handshake(0, 10_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    let mut t = 11_000i64;
    for _ in 0..10 {
        for k in 0..724 {
            f.data(C2S, t, 1448);
            if k % 2 == 1 || k == 723 {
                f.push(S2C, t + 10_000);
            }
            t += 116;
        }
        t += 10_000 + 200_000;
    }
    let c = analyze(&f);
    assert_eq!(c.diagnosis.limit, "application", "{}", c.diagnosis.text);
}
