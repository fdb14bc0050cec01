//! A gap ended by a timer re-sending data the peer had already acknowledged
//! (analysis/stalls/acked_resend.rs, docs/ANALYSIS.md "Stall causes"; issue 39 review T
//! class C-TEXT-VS-COUNTERS): a sender re-sends only what it holds unacknowledged (RFC 9293
//! §3.10.7.4), so it never took that ACK, and the gap was its retransmission timer
//! (RFC 6298), not an application with nothing to send.
use tcpscope_core::analysis::stalls::cause::StallCause;
use tcpscope_core::synth::*;
use crate::common;

/// Handshake (10 ms, captured at the client), a 200-B request at 20 ms, the answer: 5
/// segments of 1,448 B at 30–34 ms, each ACKed by the client 0.5 ms later (the first,
/// covering 6,449 = 5001 + 1448, at 30.5 ms). The server never takes those ACKs: its timer
/// re-sends the first segment (seq 5,001) at 234, 434 and 634 ms, each answered by the
/// client's duplicate ACK. Three gaps of 200 ms. The first began with the answer in
/// flight as the server knew it (the ACKs reach it a round trip after the capture point),
/// so rule 1 already calls it a timeout; the other two began with a re-send the client
/// had long acknowledged, and each ended with another: retransmission timeouts, not "new
/// data after all was acknowledged" (before: 2 application-idle stalls of 200 ms).
#[test]
fn a_timer_resending_acknowledged_data_is_no_idle_application() {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 20_000, 200);
    for k in 0..5 {
        f.data(S2C, 30_000 + k * 1_000, 1448);
        f.push(C2S, 30_500 + k * 1_000);
    }
    for k in 0..3 {
        f.data(S2C, 234_000 + k * 200_000, 1448).seq(5_001);
        f.push(C2S, 234_500 + k * 200_000);
    }
    let c = common::analyze_flow(&f);
    let stalls = &c.directions[1].stalls;
    assert_eq!(stalls.len(), 3, "{stalls:?}");
    assert!(stalls.iter().all(|s| s.cause == StallCause::RetransmissionTimeout), "{stalls:?}");
    assert!(stalls[0].ended_by.starts_with("timeout retransmission of 1448 bytes at 0.234 s"), "{stalls:?}");
    assert!(stalls[1].ended_by.starts_with("timer re-send of 1448 bytes at 0.434 s"), "{stalls:?}");
    assert_eq!(
        stalls[2].ended_by,
        "timer re-send of 1448 bytes at 0.634 s that the peer had already acknowledged (at 0.030 s): the sender never took \
         that ACK (lost on its way back, or not acceptable to it) and waited on its retransmission timer"
    );
    assert_ne!(c.diagnosis.limit, "application", "{}", c.diagnosis.text);
    assert!(!c.diagnosis.text.contains("nothing to send"), "{}", c.diagnosis.text);
    // A request of the client in the gap makes it a turn, whatever the server then sent.
    let mut g = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    g.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    g.data(C2S, 20_000, 200);
    for k in 0..5 {
        g.data(S2C, 30_000 + k * 1_000, 1448);
        g.push(C2S, 30_500 + k * 1_000);
    }
    g.data(C2S, 200_000, 100);
    g.data(S2C, 234_000, 1448).seq(10_793);
    let c = common::analyze_flow(&g);
    assert!(c.directions[1].stalls.iter().all(|s| !s.ended_by.starts_with("timer re-send")), "{:?}", c.directions[1].stalls);
}

/// fox-it quantuminsert `bro.org-harlemshake-inject.pcap` connection 13 (10.0.0.5:48650 ↔
/// 192.150.187.43:80). tshark: an injector (TTL 63) answered the GET first with 6,354 B
/// (frames 21–31) and the client ACKed 6356; the real server (TTL 127) sent its own 485-B
/// answer at seq 1 (53) and re-sent it with its FIN every ~100 ms until 46.093 s (105 …
/// 2229), each below the client's ACK. The report's counters: 447 rtoEvents, 447
/// spurious retransmissions, 446 stalls. Before: "100 % of the time everything sent had
/// been acknowledged and the sender still had nothing to send (idle gaps totalling 46 s)
/// … messages paced by its source".
#[test]
fn the_injected_connection_s_real_server_waited_on_its_timer() {
    let Some(c) = common::corpus_connection("fox-it__quantuminsert__presentations_brocon2015_pcaps_bro.org-harlemshake-inject.pcap", 13) else { return };
    let stalls = &c.directions[1].stalls;
    assert_eq!(stalls.len(), 446);
    // Session 36: the first (31 → 53) ends with the real server's first answer, no
    // re-send of its own (two_senders.rs); the 445 after it are its timer's.
    assert_eq!(stalls[0].frame_after, 53);
    assert!(stalls[1..].iter().all(|s| s.cause == StallCause::RetransmissionTimeout), "{:?}", stalls.iter().skip(1).find(|s| s.cause != StallCause::RetransmissionTimeout));
    let d = &c.diagnosis;
    assert_eq!(d.limit, "loss", "{}", d.text);
    // Session 35 (no_backoff.rs): the server's 100-ms loop is named as what it is.
    // Session 36: frame 53 is the real server's first answer, no re-send (two_senders.rs).
    assert!(d.text.contains("46 s of it waiting on 445 timer re-sends, 444 of them about 103 ms apart without backing off"), "{}", d.text);
    assert!(!d.text.contains("nothing to send") && !d.text.contains("paced by its source"), "{}", d.text);
}
