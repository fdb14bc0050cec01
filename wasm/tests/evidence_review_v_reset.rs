//! Issue 39, review V class C-STALL-AFTER-RESET: a peer whose last packet is its reset
//! has deleted the connection (RFC 9293 §3.10.7.4); the sender's timer re-sends after it
//! are the connection's end, not stalls of its transfer. Bro's
//! `heartbleed-encrypted-success.pcap` (captured on the client): the client sent its FIN
//! (frame 40, seq 400) and its reset (42, seq 400) at 0.036 s; the server had taken the
//! FIN (its ACKs go to 401 from frame 54), so the reset's sequence number lay below its
//! window and was dropped, and it kept sending and re-sent by its timer at 0.243 and
//! 0.651 s. The page headlined "The transfer stalled 2 times for 608 ms … would have taken
//! about 40 ms instead of 636 ms" (verdict/peer_silent.rs, stalls/receiver_silent.rs
//! `find`, docs/ANALYSIS.md `diagnosis.peerSilent`).

use crate::common;

use tcpscope_core::analysis::audit::audit_connection;
use tcpscope_core::decode::tcp_flags::{ACK, FIN, RST};
use tcpscope_core::synth::*;

const HEARTBLEED: &str = "bbaugnies__DPI-MPTCP__bro-2.3.1_testing_btest_Traces_tls_heartbleed-encrypted-success.pcap";

/// The server's data starts at 5001 (ISN 5000 + the SYN).
const DATA0: u32 = 5001;

/// A download captured at the client over a 2 ms path: a 100-byte request at 3 ms, then
/// 20 segments of 1000 B from 5 ms, one a millisecond. The client ACKs every second one
/// 100 µs after it up to segment 11 (16.1 ms), sends its FIN at 16.2 ms and its reset
/// 30 µs later with sequence number `reset_seq(fin_seq)`. The server's segments 12–19
/// (17–24 ms) ACK the FIN; it re-sends segment 12 by its timer at 250 and 650 ms.
fn reset_client(reset_seq: impl Fn(u32) -> u32) -> Flow {
    let mut f = Flow::new("10.0.0.1:50000", "10.0.0.2:80");
    f.handshake(0, 2_000, Opts::new().mss(1000), Opts::new().mss(1000));
    f.data(C2S, 3_000, 100);
    for k in 0..12 {
        f.data(S2C, 5_000 + 1_000 * k, 1000);
        if k % 2 == 1 {
            f.push(C2S, 5_000 + 1_000 * k + 100);
        }
    }
    let fin_seq = f.push(C2S, 16_200).flags(FIN | ACK).seq;
    f.push(C2S, 16_230).seq(reset_seq(fin_seq)).flags(RST);
    for k in 12..20 {
        f.data(S2C, 5_000 + 1_000 * k, 1000);
    }
    for t in [250_000, 650_000] {
        f.push(S2C, t).seq(DATA0 + 12_000).payload(1000);
    }
    f
}

#[test]
fn re_sends_after_the_peers_reset_are_the_connections_end() {
    // Frames: 3 of the handshake, the request (4), segments 0–11 with the 6 ACKs after the
    // odd ones (5–22; segment 11 is frame 21 at 16 ms), the FIN (23), the reset (24 at
    // 16.23 ms, the client's last packet), segments 12–19 (25–32, 17–24 ms) and the 2
    // re-sends (33, 34 at 0.25 and 0.65 s). The reset's sequence number is the FIN's: the
    // server's ACKs after it cover the FIN (one more), so it lay below the server's window.
    let c = common::analyze_flow(&reset_client(|fin| fin));
    let d = &c.diagnosis;
    let p = d.peer_silent.expect("the client's reset ends the connection");
    assert_eq!((p.frame, p.peer_last_frame, p.first_unanswered_frame, p.resends, p.reset, p.peer_reset), (21, 24, 25, 2, false, true), "{p:?}");
    for (got, want) in [(p.at, 0.016), (p.peer_last, 0.01623), (p.first_unanswered, 0.017), (p.first_resend, 0.25), (p.last_resend, 0.65), (p.until, 0.65)] {
        assert!((got - want).abs() < 1e-9, "{got} {want} {p:?}");
    }
    // 0.4 s of re-sends, under the 1-s floor a silence without a reset needs: said all the same.
    assert!(
        d.text.contains(
            "10.0.0.1:50000 went silent after 0.016 s (its last packet, frame 24), which was its reset: nothing 10.0.0.2:80 \
             sent from 0.017 s (frame 25) on was acknowledged, and it re-sent 2 segments over 400 ms"
        ),
        "{}",
        d.text
    );
    assert!(d.text.contains("had already acknowledged past the reset's sequence number"), "{}", d.text);
    assert!(d.text.contains("everything above is of the transfer up to 0.016 s (frame 21)."), "{}", d.text);
    // Nothing after the reset is a stall of the transfer, nor priced as a saving.
    assert_ne!(d.limit, "stalls", "{}", d.text);
    assert!(d.savings.iter().all(|s| s.limit != "stalls"), "{:?}", d.savings);
    assert!(!d.text.contains("stalled"), "{}", d.text);
    assert_eq!(audit_connection(&c, 0.011), Vec::<String>::new());
}

#[test]
fn a_reset_in_the_window_that_the_sender_went_on_past_is_said_as_such() {
    // The same, the reset one above the FIN (in the server's window once the FIN is
    // taken): nothing in the capture says why the server went on.
    let c = common::analyze_flow(&reset_client(|fin| fin + 1));
    let d = &c.diagnosis;
    assert!(d.peer_silent.is_some_and(|p| p.peer_reset), "{:?}", d.peer_silent);
    assert!(d.text.contains("went on as if the reset had not reached it"), "{}", d.text);
}

#[test]
fn corpus_heartbleed_the_servers_re_sends_after_the_clients_reset() {
    // Frames as in the module comment: the client's reset (42, 0.036 s) is its last
    // packet; the server's segments from frame 43 on were never acknowledged; its timer
    // re-sent seq 27028 at 0.243 s (62) and 0.651 s (63). The transfer before it ends at
    // frame 41 (0.036 s).
    let Some(c) = common::corpus_connection(HEARTBLEED, 0) else { return };
    let d = &c.diagnosis;
    let p = d.peer_silent.expect("the client's reset");
    assert_eq!((p.peer_last_frame, p.first_unanswered_frame, p.frame, p.resends, p.peer_reset), (42, 43, 41, 2, true), "{p:?}");
    assert_ne!(d.limit, "stalls", "{}", d.text);
    assert!(!d.text.contains("stalled"), "{}", d.text);
    assert!(d.text.contains("so the reset fell outside its window and was dropped (RFC 9293 §3.10.7.4)"), "{}", d.text);
}

const AGENTTESLA: &str = "corelight__zeek-agenttesla-detector__testing_Traces_0e328ab7-12b2-4843-8717-a5b3ebef33a8.pcap";

#[test]
fn corpus_agenttesla_the_larger_turn_share_beside_a_loss_headline_is_explained() {
    // Review V, C-HEADLINE-VS-LARGER-SHARE: connection 28, an 18 KB TLS upload from a
    // Windows client over 166 ms, 4 of 23 data segments re-sent. The headline is the loss
    // (its saving is the one priced; turns have none) while its last sentence said
    // "Request/response turns (2) took 43 % of the time" beside "37 % … recovering": the
    // text now says why the smaller share is named.
    let Some(c) = common::corpus_connection(AGENTTESLA, 28) else { return };
    let d = &c.diagnosis;
    assert_eq!(d.limit, "loss", "{}", d.text);
    // The recovery's price is the loss saving (71 ms), not its whole 37 % (review W).
    assert!(
        d.text.contains("Request/response turns (2) took 43 % of the time, more than the recovery, but each turn's wait is the exchange's own (fewer turns would shorten it); a path without loss would have saved at least 71 ms"),
        "{}",
        d.text
    );
}
