//! Issue 39 review U, class C-NAGLE-IN-PEER-TURN: inside the data sender's wait for the
//! peer's next message, the peer's stack held that message (Nagle's algorithm, RFC 896 /
//! RFC 1122 §4.2.3.4) behind its own previous small segment until the data sender's
//! delayed ACK of it (RFC 1122 §4.2.3.2) — time of the two TCP stacks, which the
//! headline gave to the peer's application ("The applications' turns … set the pace").
//! The rule: diagnosis/nagle_turns.rs.

use crate::common;

use tcpscope_core::synth::*;

/// A client-side capture of DNS over TCP on a 5 ms path (handshake frames 1–3 at 0 /
/// 5 ms; the stall threshold is then 20 ms): three queries, each written in two calls —
/// the 2-byte length, then the 30-byte body. Per query at `base` (21, 121, 221 ms): the
/// length leaves at `base`; Nagle's algorithm holds the body (the length is
/// unacknowledged); the server, with nothing to send until it has the whole query,
/// holds its ACK of the length `held` (its delayed-ACK timer: 40 ms, the third time
/// 30 ms), which reaches the capture 5 ms of path later; the body follows
/// `body_after_us` after that ACK; the server answers 300 B one ms after the body
/// reaches it (6 ms after the body at the capture). The client asks again 100 ms after
/// `base`.
fn dns_over_tcp(body_after_us: i64) -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:53");
    f.handshake(0, 5_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for k in 0..3 {
        let (base, held) = (21_000 + k * 100_000, if k == 2 { 30_000 } else { 40_000 });
        f.data(C2S, base, 2);
        f.push(S2C, base + 5_000 + held);
        f.data(C2S, base + 5_000 + held + body_after_us, 30);
        f.data(S2C, base + 5_000 + held + body_after_us + 6_000, 300);
    }
    f.push(C2S, 21_000 + 2 * 100_000 + 35_000 + body_after_us + 7_000);
    f
}

#[test]
fn a_message_held_by_nagle_for_the_senders_delayed_ack_is_not_the_peers_turn() {
    // The server (900 B) is the data sender; each pause between its answers holds the
    // client's next query. Frames per query: length, the server's ACK, body, answer —
    // the second query is frames 8 (0.121 s), 9 (0.166 s), 10 (0.166010 s), 11. The
    // client's stall 8 → 10 is `delayed-ack` (a 2-byte segment, the server's pure ACK
    // held 45 − 5 = 40 ms ≥ 20 ms); the body left 10 µs after that ACK, within the
    // capture → client round trip (0 here) and a millisecond: the ACK released it. That
    // stall lies inside the server's idle pause (answer 7 at 0.072 s → answer 11 at
    // 0.172 s), from the length (0.121 s) to the body (0.166010 s): 45.01 ms; the third
    // query's 35.01 ms (a 30-ms hold): 80 ms in all, the longest the second query's. The first query's hold precedes the server's
    // first data: no pause of its.
    let c = common::analyze_flow(&dns_over_tcp(10));
    assert_eq!(c.data_direction, 1);
    let t = &c.diagnosis.text;
    assert!(
        t.contains(
            "; 80 ms of that wait was no application's: 10.0.0.1:40000's next segment was held by Nagle's algorithm behind its previous small one \
             until 10.0.0.2:53's delayed ACK of it (2 times; the longest: frame 8 at 0.121 s, the ACK frame 9 45 ms later, the held segment frame 10 10 µs after it)"
        ),
        "{t}"
    );
    assert!(t.contains("The turns, not the network, set the pace: the applications', and for 80 ms the two TCP stacks'"), "{t}");
    assert!(!t.contains("The applications' turns, not the network"), "{t}");
}

#[test]
fn a_message_sent_well_after_the_ack_was_not_held_for_it() {
    // The same, but each body 5 ms after the server's ACK at a client-side capture (the
    // capture → client round trip is 0): more than the millisecond within which a held
    // segment leaves as its ACK arrives, so the ACK did not release it — the client wrote
    // it then. Nothing is said of Nagle in the headline.
    let c = common::analyze_flow(&dns_over_tcp(5_000));
    let t = &c.diagnosis.text;
    assert!(!t.contains("no application's"), "{t}");
    assert!(t.contains("The applications' turns, not the network, set the pace."), "{t}");
}

#[test]
fn nagle_inside_the_peers_turn_in_public_captures() {
    // tshark, each:
    // - arkime smtp-subject-8859-b connection 0 (capture at the server: its TTL 64, the
    //   client's 123): the server's 39-byte reply frame 9 at 0.007069 s, the client's
    //   pure ACK frame 10 (ack 285) at 0.214268 s, the server's next 39-byte reply frame
    //   11 at 0.214303 s (35 µs later); the client's pause 8 (0.006579) → 12 (0.214736).
    // - DNS-OARC dnscap dnso1tcp connection 0 (capture at the client): each query's
    //   2-byte length, then 8.8.8.8's ACK ~44 ms later, then the body ~15 µs after it;
    //   40 of them, the longest frame 30 (0.214 s) → ACK 31 (+46 ms) → body 32 (+55 µs).
    let Some(c) = common::corpus_connection("arkime__arkime__tests_pcap_smtp-subject-8859-b.pcap", 0) else { return };
    let t = &c.diagnosis.text;
    assert!(
        t.contains(
            "; 207 ms of that wait was no application's: 64.236.55.18:25's next segment was held by Nagle's algorithm behind its previous small one \
             until 10.180.121.109:11084's delayed ACK of it (frame 9 at 0.007 s, the ACK frame 10 207 ms later, the held segment frame 11 35 µs after it)"
        ),
        "{t}"
    );
    assert!(t.contains("(TCP_NODELAY at 64.236.55.18:25, or its writing each message in one call, or 10.180.121.109:11084 acknowledging at once, removes that part)."), "{t}");
    let Some(c) = common::corpus_connection("DNS-OARC__dnscap__src_test_dnso1tcp.pcap", 0) else { return };
    let t = &c.diagnosis.text;
    assert!(t.contains("1.8 s of that wait was no application's: 172.17.0.8:51388's next segment was held by Nagle's algorithm"), "{t}");
    assert!(t.contains("(40 times; the longest: frame 30 at 0.214 s, the ACK frame 31 46 ms later, the held segment frame 32 55 µs after it)"), "{t}");
    // delayed_ack.rs's advice names the remedies there: not twice.
    assert!(t.contains("the applications', and for 1.8 s the two TCP stacks'. "), "{t}");
}
