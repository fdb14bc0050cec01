//! Issue 39, review N class C-LOSS-HEADLINE: "Loss limited this flow" where the re-sends
//! repaired no loss on the path.
//!
//! 1. Re-sends of data first sent past the receiver's right edge (zeek
//!    `206_example_b.pcap`: the client's window closed at 0.375 s, 57 zero-window ACKs;
//!    the server had sent up to 180,601 past the edge 136,936 and re-sent from 136,936 once
//!    the window reopened). The receiver dropped that data for want of room (RFC 9293
//!    §3.10.7.4), so its re-sends are the window's, not loss recovery
//!    (verdict/diagnosis_shares/window_overrun.rs).
//! 2. Re-sends into a peer that never answered again (ITI `EIP-FirmwareChange.pcap`: the
//!    PLC vanished after the 2 MB firmware moved, the client re-sent its request 5 times
//!    over 15 s; `206_example_b.pcap`: the client went silent at 1.409 s and the server
//!    re-sent for 65 s, then reset). That is the connection's end, said as such, and the
//!    shares are of the transfer before it (verdict/peer_silent.rs, docs/ANALYSIS.md
//!    `diagnosis.peerSilent`).

use crate::common;

use tcpscope_core::analysis::audit::audit_connection;
use tcpscope_core::decode::tcp_flags::{ACK, RST};
use tcpscope_core::synth::*;

const B206: &str = "zeek__zeek__testing_btest_Traces_http_206_example_b.pcap";
const EIP: &str = "ITI__ICS-Security-Tools__pcaps_openics_EIP-FirmwareChange.pcap";

/// The server's data starts at 5001 (ISN 5000 + the SYN).
const DATA0: u32 = 5001;

/// A download captured at the client over a 2 ms path: a 100-byte request at 3 ms, then
/// 40 segments of 1000 B from 5 ms, one a millisecond; the client ACKs every second one
/// 100 µs after it — up to segment 31 (frame 52 at 36.1 ms), and never again. The server
/// re-sends segment 32 by its timer at `resends` (µs) and resets the connection at `reset`.
fn vanishing_client_with(resends: &[i64], reset: i64) -> Flow {
    let mut f = Flow::new("10.0.0.1:50000", "10.0.0.2:80");
    f.handshake(0, 2_000, Opts::new().mss(1000), Opts::new().mss(1000));
    f.data(C2S, 3_000, 100);
    for k in 0..40 {
        f.data(S2C, 5_000 + 1_000 * k, 1000);
        if k % 2 == 1 && k < 32 {
            f.push(C2S, 5_000 + 1_000 * k + 100);
        }
    }
    for &t in resends {
        f.push(S2C, t).seq(DATA0 + 32_000).payload(1000);
    }
    f.push(S2C, reset).seq(DATA0 + 40_000).flags(RST | ACK);
    f
}

/// Re-sends at 250, 650, 1450 and 3050 ms (a doubling timer), the reset at 6.05 s.
fn vanishing_client() -> Flow {
    vanishing_client_with(&[250_000, 650_000, 1_450_000, 3_050_000], 6_050_000)
}

#[test]
fn re_sends_into_a_peer_that_never_answers_again_end_the_connection() {
    // Frames: 3 of the handshake, the request (4), then segments 0–31 with the 16 ACKs
    // after the odd ones (5–52: the last ACK, of segment 31, is frame 52 at 36.1 ms, the
    // client's last packet), segments 32–39 (53–60, 37–44 ms), the 4 re-sends (61–64) and
    // the reset (65). The client went silent after 36.1 ms; the server's data from 37 ms
    // (frame 53) on was never acknowledged; it re-sent 4 segments over 2.8 s (250 ms to
    // 3.05 s) and reset at 6.05 s. The transfer before it: segments 0–31, 5 ms to 36 ms
    // (frame 51). On main the 6 s of timeouts were 99 % of the time: "Loss limited this
    // flow … recovering from loss".
    let c = common::analyze_flow(&vanishing_client());
    let d = &c.diagnosis;
    let p = d.peer_silent.expect("the peer's silence");
    assert_eq!((p.frame, p.peer_last_frame, p.first_unanswered_frame, p.resends, p.reset), (51, 52, 53, 4, true), "{p:?}");
    for (got, want) in [(p.at, 0.036), (p.peer_last, 0.0361), (p.first_unanswered, 0.037), (p.first_resend, 0.25), (p.last_resend, 3.05), (p.until, 6.05)] {
        assert!((got - want).abs() < 1e-9, "{got} {want} {p:?}");
    }
    assert_ne!(d.limit, "loss", "{}", d.text);
    assert!(d.shares.loss == 0.0, "{:?}", d.shares);
    assert!(d.savings.iter().all(|s| s.limit != "loss"), "{:?}", d.savings);
    assert!(
        d.text.contains(
            "10.0.0.1:50000 went silent after 0.036 s (its last packet, frame 52): nothing 10.0.0.2:80 sent from 0.037 s \
             (frame 53) on was acknowledged, and it re-sent 4 segments over 2.8 s"
        ),
        "{}",
        d.text
    );
    assert!(d.text.contains("until it reset the connection at 6.050 s;"), "{}", d.text);
    assert!(d.text.contains("everything above is of the transfer up to 0.036 s (frame 51)."), "{}", d.text);
    // The outage of those timeouts stays an episode, said once (by the sentence above).
    assert!(d.episodes.iter().any(|e| e.kind == "outage"), "{:?}", d.episodes);
    assert!(!d.text.contains("No answer came back"), "{}", d.text);
    // The auditor reads the same cut: the transfer's active time is 31 ms.
    assert_eq!(audit_connection(&c, 0.031), Vec::<String>::new());
}

#[test]
fn a_silence_is_said_only_beyond_doubt() {
    // The same download, but the client ACKs the third re-send (1.45 s) 100 µs later: the
    // timer repaired a loss and the client was there. After its last packet only one
    // re-send came (3.05 s): fewer than 2, so no silence is said.
    let mut f = vanishing_client();
    f.push(C2S, 1_450_100).ack(DATA0 + 33_000);
    let c = common::analyze_flow(&f);
    assert!(c.diagnosis.peer_silent.is_none(), "{:?}", c.diagnosis.peer_silent);
    assert!(!c.diagnosis.text.contains("went silent"), "{}", c.diagnosis.text);
    // Two re-sends (250 and 650 ms) and the reset at 1.1 s: the connection ended 850 ms
    // after the first re-send, under the 1 s a live peer's answer may take (a 0.5 s
    // delayed ACK and a round trip): not beyond doubt either.
    let c = common::analyze_flow(&vanishing_client_with(&[250_000, 650_000], 1_100_000));
    assert!(c.diagnosis.peer_silent.is_none(), "{:?}", c.diagnosis.peer_silent);
    // At 1.25 s it is: 1 s after the first re-send.
    let c = common::analyze_flow(&vanishing_client_with(&[250_000, 650_000], 1_250_000));
    assert_eq!(c.diagnosis.peer_silent.map(|p| p.resends), Some(2));
}

/// A download captured at the client over a 10 ms path whose client stops reading: its
/// buffer takes 16,000 B (edge 5001 + 16,000). The server sends 24 segments of 1000 B
/// from 21 ms, 200 µs apart; the client ACKs every second one 50 µs later with the window
/// left (16,000 − ACKed), the window closes at segment 15, and each of segments 16–23,
/// past the edge, is answered by a zero-window ACK of the edge. At 30 ms the client's
/// application reads everything (a window update of 16,000, edge 37,001); at 40 ms the
/// server re-sends 16,000–24,000, then sends 24,000–60,000, one segment every 1 ms from
/// 44 ms, each second one ACKed 50 µs later with the window back at 16,000.
fn overrun_download() -> Flow {
    let mut f = Flow::new("10.0.0.1:50001", "10.0.0.2:80");
    f.handshake(0, 10_000, Opts::new().mss(1000), Opts::new().mss(1000));
    f.data(C2S, 11_000, 100);
    for k in 0..24u32 {
        let t = 21_000 + 200 * i64::from(k);
        f.data(S2C, t, 1000);
        if k >= 16 {
            f.push(C2S, t + 50).ack(DATA0 + 16_000).window(0);
        } else if k % 2 == 1 {
            let acked = (k + 1) * 1000;
            f.push(C2S, t + 50).window((16_000 - acked) as u16);
        }
    }
    f.push(C2S, 30_000).ack(DATA0 + 16_000).window(16_000);
    for k in 16..60u32 {
        let t = if k < 24 { 40_000 + 200 * i64::from(k - 16) } else { 44_000 + 1_000 * i64::from(k - 24) };
        f.push(S2C, t).seq(DATA0 + 1000 * k).payload(1000).flags(ACK | tcpscope_core::decode::tcp_flags::PSH);
        if k % 2 == 1 {
            f.push(C2S, t + 50).ack(DATA0 + 1000 * (k + 1)).window(16_000);
        }
    }
    f
}

#[test]
fn re_sends_of_data_sent_past_a_closed_window_are_no_loss() {
    // 8 re-sends (16,000–24,000), all of bytes first sent past the edge 21,001 that the
    // zero-window ACKs named: the receiver dropped them for want of room. On main the
    // 14.4 ms from the last segment past the edge (25.6 ms) to the first re-send (40 ms),
    // and the re-sends' recovery until the ACK passed 29,001, were "recovering from loss":
    // "Loss limited this flow: 11.8 % … retransmissions (8 of 68 data segments), and the
    // sender spent 46 % of the time recovering from loss". Now there is no loss time at
    // all (the congestion window or the path), and the re-sends are still counted.
    let c = common::analyze_flow(&overrun_download());
    let d = &c.diagnosis;
    assert_eq!(c.directions[1].retransmissions, 8, "{:?}", c.directions[1]);
    assert!(d.shares.loss == 0.0, "{:?} {}", d.shares, d.text);
    assert_ne!(d.limit, "loss", "{}", d.text);
    assert!(d.peer_silent.is_none());
    // 21 ms to 79 ms: the active time the auditor checks the shares against.
    assert_eq!(audit_connection(&c, 0.058), Vec::<String>::new());
}

#[test]
fn corpus_eip_the_plc_that_left_is_the_connections_end() {
    // ITI EIP-FirmwareChange conn 0: the firmware's 5,216 request/response turns up to
    // 45.335 s (frame 10577), keep-alives, one last exchange (10591–10594), then the
    // request 10597 at 63.673 s that the PLC never answered: re-sent 10598–10611 (64.088 s
    // to 79.177 s), nothing from 192.168.10.120 to the connection's end (tshark:
    // no packet of it after frame 10593 at 61.687 s). Was "Loss limited this flow … 36 %
    // of the time recovering from loss".
    let Some(c) = common::corpus_connection(EIP, 0) else { return };
    let d = &c.diagnosis;
    let p = d.peer_silent.expect("the PLC's silence");
    assert_eq!((p.peer_last_frame, p.first_unanswered_frame, p.frame, p.resends), (10593, 10597, 10592, 5), "{p:?}");
    assert_eq!(d.limit, "turns", "{}", d.text);
    assert!(d.shares.loss == 0.0, "{:?}", d.shares);
    assert!(d.text.contains(
        "192.168.10.120:44818 went silent after 61.687 s (its last packet, frame 10593): nothing 192.168.10.105:1057 sent \
         from 63.673 s (frame 10597) on was acknowledged, and it re-sent 5 segments over 15 s (1 tail loss probe and 4 \
         retransmission timeouts) until the connection's last packet at 83.642 s"
    ), "{}", d.text);
    assert!(d.text.contains("The transfer ended at 45.335 s (frame 10577, 2 MiB sent)"), "{}", d.text);
}

#[test]
fn corpus_b206_no_loss_headline_for_a_closed_window_and_a_client_gone() {
    // zeek 206_example_b conn 0: 31 of the 32 re-sends at 0.508 s are of bytes past the
    // edge 136,936 that the zero-window ACKs 166–215 named (the 32nd, frame 262, carries
    // 135 new bytes past 180,601 too); the client's last packet is frame 1225 at 1.409 s,
    // the server re-sent 76 segments (1226 on) and reset at 82.326 s. Was "Loss limited
    // this flow: 12.8 % … 80 % of the time recovering from loss".
    let Some(c) = common::corpus_connection(B206, 0) else { return };
    let d = &c.diagnosis;
    let p = d.peer_silent.expect("the client's silence");
    assert_eq!((p.peer_last_frame, p.first_unanswered_frame, p.frame, p.resends, p.reset), (1225, 1226, 1213, 76, true), "{p:?}");
    assert_ne!(d.limit, "loss", "{}", d.text);
    assert!(d.shares.loss == 0.0, "{:?}", d.shares);
    assert!(d.text.contains("192.168.72.14:3254 went silent after 1.409 s (its last packet, frame 1225)"), "{}", d.text);
    assert!(d.text.contains("until it reset the connection at 82.326 s"), "{}", d.text);
}

/// `vanishing_client` where the client's ACKs each carry `ack_payload` bytes (0: pure
/// ACKs) and the server's re-sends acknowledge `unseen` client bytes beyond the last the
/// capture holds.
fn vanishing_client_seen(ack_payload: u32, unseen: u32) -> Flow {
    let mut f = Flow::new("10.0.0.1:50000", "10.0.0.2:80");
    f.handshake(0, 2_000, Opts::new().mss(1000), Opts::new().mss(1000));
    f.data(C2S, 3_000, 100);
    let mut client_next = 1_101u32; // ISN 1000 + the SYN + the 100-byte request
    for k in 0..40 {
        f.data(S2C, 5_000 + 1_000 * k, 1000);
        if k % 2 == 1 && k < 32 {
            f.push(C2S, 5_000 + 1_000 * k + 100).seq(client_next).payload(ack_payload);
            client_next += ack_payload;
        }
    }
    for t in [250_000, 650_000, 1_450_000, 3_050_000] {
        f.push(S2C, t).seq(DATA0 + 32_000).ack(client_next + unseen).payload(1000);
    }
    f.push(S2C, 6_050_000).seq(DATA0 + 40_000).ack(client_next + unseen).flags(RST | ACK);
    f
}

#[test]
fn a_peer_is_called_silent_only_where_the_capture_could_see_it_answer() {
    // Review Q, C-BLIND-CAPTURE. The same vanishing client as above: with pure ACKs and
    // nothing unseen it went silent (frame 52, as above).
    let silent = |f: &Flow| common::analyze_flow(f).diagnosis.peer_silent;
    assert!(silent(&vanishing_client_seen(0, 0)).is_some());
    // The server's re-sends acknowledge 50 bytes of the client's that the capture never
    // saw: the client did send after frame 52 (the capture lost it), it was not silent
    // (nfstream reasm_crash_anon #0 on the session-31 merge).
    assert_eq!(silent(&vanishing_client_seen(0, 50)), None);
    // Every client segment carries payload: the capture holds no pure ACK of the
    // client's (as a payload-only capture keeps none), so it cannot tell a silent client
    // from one whose ACKs were not kept (PcapPlusPlus tls2 #188).
    assert_eq!(silent(&vanishing_client_seen(10, 0)), None);
}
