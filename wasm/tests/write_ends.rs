//! Issue 39, "Evidence before every claim", review Z class C-APP-PACED-AS-CWND: a sender
//! with nothing queued was called limited by "the congestion window or the path's
//! capacity" (the share pass's residue, `other`). Both limits hold written data back;
//! a sender with data waiting sends full segments, and less than a full one only when
//! the data is pushed and all of its queue can go (RFC 9293 §3.8.6.2.1). So a PSH
//! segment that is no whole number of full segments, with more data after it, left the
//! send buffer empty (diagnosis_shares/write_ends.rs; docs/ANALYSIS.md "the sender's
//! writes").
//!
//! The captures are taken at the receiver, as rtsp's was: the server's segments arrive
//! at their send times plus a constant delay, and the client acknowledges every second
//! segment 50 µs after it (as a Windows receiver does), so the server is seen cutting
//! its 1,200-B writes (the full segment, docs/ANALYSIS.md "Full segment").

use crate::common;
use tcpscope_core::synth::*;

const ACK: u8 = 0x10;

/// A client-side capture with an 82 ms handshake (MSS 1200 both ways, window scale 7),
/// then `bursts` bursts 50 ms apart, each `packets` media packets 1 ms apart, each packet
/// a 1,200-B segment without PSH and a `tail`-byte PSH segment 20 µs later, the client
/// ACKing the pair 50 µs after the tail. With `peer_msg`, the client also sends a 42-B
/// message 10 ms after each burst's last tail (a grant the server waits for).
fn media(bursts: i64, packets: i64, tail: u32, peer_msg: bool) -> Flow {
    let mut f = Flow::new("10.16.0.77:4398", "160.39.80.23:554");
    f.handshake(0, 82_000, Opts::new().mss(1200).wscale(7), Opts::new().mss(1200).wscale(7));
    for b in 0..bursts {
        let t0 = 200_000 + 50_000 * b;
        for p in 0..packets {
            let t = t0 + 1_000 * p;
            f.push(S2C, t).payload(1200).flags(ACK);
            f.data(S2C, t + 20, tail);
            f.push(C2S, t + 70);
        }
        if peer_msg {
            f.data(C2S, t0 + 1_000 * (packets - 1) + 10_000, 42);
        }
    }
    f
}

#[test]
fn tails_between_full_segments_are_a_sender_with_nothing_queued() {
    // 400 bursts of 5 media packets (1,200 + 240 B) every 50 ms: 2.88 MB in 20 s, 1.15
    // Mbit/s, on an 82 ms path. The server never had more than two bursts unacknowledged
    // (14,400 B against a window of 8 MiB): every tail ended a write with nothing behind
    // it — a sender with data waiting would have filled the segment — so the time after
    // each (980 µs within a burst, 45.98 ms to the next) was its application's, not the
    // congestion window's or the path's. 2,000 tails, 1,999 with data after them; 4,000
    // new-data segments, 2,000 of them one full segment. Before: "Neither the receive
    // window (0 % of the time), loss (0 %) nor the application (0 %) limited this flow …
    // The congestion window or the path's capacity was the limit."
    let c = common::analyze_flow(&media(400, 5, 240, false));
    let d = &c.diagnosis;
    assert_eq!(d.limit, "application", "{}", d.text);
    assert!(d.text.starts_with("The sender had nothing queued ("), "{}", d.text);
    assert!(d.text.contains("1999 of its 4000 segments ended a write: PSH set, no whole number of full segments (median 240 B, a full segment 1.2 KiB), more data after them"), "{}", d.text);
    assert!(!d.text.contains("congestion window or the path's capacity"), "{}", d.text);
    // The intervals after the 1,999 tails: 1,600 × 980 µs + 399 × 45.98 ms = 19.9 s of the
    // 19.954 s active (the 20 µs after each full segment stays `other`, 0.2 %).
    assert!(d.shares.application > 0.99, "{:?}", d.shares);
}

#[test]
fn writes_released_by_the_peers_messages_are_no_sender_pace() {
    // The same bursts, but after each the client sends a 42-B message (a flow-control
    // grant, as HTTP/2's WINDOW_UPDATE, review AA W4): the server's next burst may have
    // waited for it. Those intervals are a turn of the exchange, not the sender's own
    // pace: the rule does not name them.
    let c = common::analyze_flow(&media(400, 5, 240, true));
    assert!(!c.diagnosis.text.contains("had nothing queued"), "{}", c.diagnosis.text);
}

#[test]
fn full_segments_sent_back_to_back_stay_the_path() {
    // A backlog: 400 flights of five full 1,200-B segments (no tail), PSH only on the
    // last: every segment a whole full one, no write end. The congestion window or the
    // path may have held it; the rule is silent.
    let mut f = Flow::new("10.16.0.77:4398", "160.39.80.23:554");
    f.handshake(0, 82_000, Opts::new().mss(1200).wscale(7), Opts::new().mss(1200).wscale(7));
    for b in 0..400i64 {
        for p in 0..10i64 {
            let t = 200_000 + 50_000 * b + 20 * p;
            if p == 9 { f.data(S2C, t, 1200); } else { f.push(S2C, t).payload(1200).flags(ACK); }
            if p % 2 == 1 { f.push(C2S, t + 50); }
        }
    }
    let c = common::analyze_flow(&f);
    assert!(!c.diagnosis.text.contains("had nothing queued"), "{}", c.diagnosis.text);
}

#[test]
fn rtsp_interleaved_media_is_paced_by_its_server() {
    // aliawa saved_pcaps rtsp.con-7223.pcap (review Z, rtsp): QuickTime RTSP with RTP
    // interleaved on TCP; each RTP packet leaves as a 1,200-B segment and a PSH tail
    // (frames 1334/1335 at 8.0058 s: 1,200 + 245 B), bursts every 47–53 ms on an 82 ms
    // path, the client's 200 KiB window never approached. Before: "The congestion window
    // or the path's capacity was the limit."
    let Some(c) = common::corpus_connection("aliawa__saved_pcaps__rtsp_rtsp.con-7223.pcap", 0) else { return };
    let d = &c.diagnosis;
    assert_eq!(d.limit, "application", "{}", d.text);
    assert!(d.text.starts_with("The sender had nothing queued ("), "{}", d.text);
    assert!(!d.text.contains("congestion window or the path's capacity"), "{}", d.text);
}

#[test]
fn tcp_file_writes_of_16_kib_are_the_senders_write_loop() {
    // AugustoCiuffoletti lab_traces tcp-file.pcapng (review Z, tcpfile), captured at the
    // receiver of a veth with GRO: after the initial window every frame is one 16,384-B
    // write with PSH (11 × 1,448 + 456: no whole number of segments), ACKed within 2 µs,
    // the next write 11–13 µs later; 8.5 Gbit/s on a 33 µs path. Frames of 15,928 B
    // (11 × 1,448) are whole. Before: "The congestion window or the path's capacity was
    // the limit."
    let Some(c) = common::corpus_connection("AugustoCiuffoletti__lab_traces__tcp-file.pcapng", 1) else { return };
    let d = &c.diagnosis;
    assert_eq!(d.limit, "application", "{}", d.text);
    assert!(d.text.starts_with("The sender had nothing queued ("), "{}", d.text);
    assert!(!d.text.contains("congestion window or the path's capacity"), "{}", d.text);
}
