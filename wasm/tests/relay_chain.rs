//! A relay on the capturing host (review X class C-SPLIT-PROXY-RTT, local form;
//! analysis/verdict/relay_chain.rs): the wait a relay's answer spent on its far
//! connection is that connection's, not the relay's application's.
use crate::common;
use tcpscope_core::analysis::ConnectionSummary;
use tcpscope_core::synth::*;

fn analyze(mut frames: Vec<Frame>) -> Vec<ConnectionSummary> {
    frames.sort_by_key(|f| f.ts_ns);
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Nano);
    let s = tcpscope_core::session::analyze_bytes(&bytes, tcpscope_core::analysis::AnalysisOptions::default(), 1 << 20);
    s.analysis().expect("analysed").connections.clone()
}

/// A SOCKS5 greeting (RFC 1928: 3 B, its 2-B choice) and request (10 B, its 10-B reply),
/// each answered at once (50 µs): the exchange the answer-waits sentence reads.
fn socks_greeting(f: &mut Flow, lag: i64) {
    f.data(C2S, 5_000 + lag, 3);
    f.data(S2C, 5_050 + lag, 2);
    f.data(C2S, 6_000 + lag, 10);
    f.data(S2C, 6_050 + lag, 10);
}

/// A browser → local SOCKS relay (connection 0, 127.0.0.1:44424 → :1080) whose
/// after its SOCKS greeting, request (517 B at 10 ms, frame 11 of the file) the relay passes on over its own
/// connection to the next hop (connection 1, 127.0.0.1:40164 → :1234, opened at 1 ms:
/// 636 B at 10.155 ms, frame 13). The next hop answers at 42.8 ms (1,274 B, frame 15)
/// and the relay passes 1,208 B back at 43.0 ms (frame 17), 200 µs later (≤ 1 ms): the
/// 33 ms from the request to the answer were connection 1's, not the relay's. The relay
/// then streams 11 × 1,208 B more (12 data segments, more than the 10 a verdict needs),
/// so it is connection 0's data direction, and the browser ACKs each within 20 µs (a
/// loopback round trip, far under the 33 ms).
fn chain(answer_lag_us: i64) -> Vec<Frame> {
    let mut b = Flow::new("127.0.0.1:40164", "127.0.0.1:1234");
    b.handshake(1_000, 20, Opts::new().mss(65483), Opts::new().mss(65483));
    b.data(C2S, 10_155, 636);
    b.push(S2C, 10_175);
    b.data(S2C, 42_800, 1274);
    b.push(C2S, 42_820);
    let mut a = Flow::new("127.0.0.1:44424", "127.0.0.1:1080");
    a.handshake(0, 20, Opts::new().mss(65483), Opts::new().mss(65483));
    socks_greeting(&mut a, 0);
    a.data(C2S, 10_000, 517);
    a.push(S2C, 10_020);
    for k in 0..12 {
        a.data(S2C, 42_800 + answer_lag_us + 100 * k, 1208);
        a.push(C2S, 42_820 + answer_lag_us + 100 * k);
    }
    let mut frames = a.frames();
    frames.extend(b.frames());
    frames
}

#[test]
fn a_relays_wait_is_its_far_legs() {
    let an = analyze(chain(200));
    let t = &an[0].diagnosis.text;
    assert!(!t.contains("time of its application"), "{t}");
    assert!(
        t.contains(
            "127.0.0.1:1080 relayed 127.0.0.1:44424's message: it passed it on over connection 1 (127.0.0.1:40164 → 127.0.0.1:1234, \
             frame 11 → frame 13, 155 µs) and answered 200 µs after that connection's answer arrived (frame 15 at 0.043 s → frame 17 \
             at 0.043 s), so the 33 ms wait was the far leg's (connection 1), not its application's."
        ),
        "{t}"
    );
}

/// The same with the relay's answer 5 ms after the far leg's (more than 1 ms): the
/// capture no longer ties the two, and the answer-waits sentence stays.
#[test]
fn an_answer_long_after_the_far_legs_is_not_tied_to_it() {
    let an = analyze(chain(5_000));
    let t = &an[0].diagnosis.text;
    assert!(!t.contains("relayed"), "{t}");
}

/// The same connection seen again through a NAT between two capture interfaces (ctfs
/// insomnihack TheGreatEscape connections 68 and 69: 172.31.36.141:51390 →
/// 52.214.142.175:443 and 52.214.142.175:51390 → 172.31.36.141:443, each packet again
/// 0.3 ms later with the same IP ID and length): the copy is "opened" from the
/// answering end's address and its answer lands 0.3 ms before the original's, but it is
/// no relay: the same two port numbers, the same segment sizes.
#[test]
fn a_nat_copy_of_the_same_connection_is_no_relay() {
    let script = |f: &mut Flow, lag: i64| {
        f.handshake(lag, 20, Opts::new().mss(1460), Opts::new().mss(1460));
        socks_greeting(f, lag);
        f.data(C2S, 10_000 + lag, 517);
        f.push(S2C, 10_020 + lag);
        for k in 0..12 {
            f.data(S2C, 43_000 + lag + 100 * k, 1208);
            f.push(C2S, 43_020 + lag + 100 * k);
        }
    };
    let mut a = Flow::new("10.0.0.1:51390", "10.0.0.2:443");
    script(&mut a, 300);
    let mut b = Flow::new("10.0.0.2:51390", "10.0.0.1:443");
    script(&mut b, 0);
    let mut frames = a.frames();
    frames.extend(b.frames());
    let cs = analyze(frames);
    // Each copy's answer wait is said (the rule had something to rewrite), as its own.
    assert!(cs.iter().all(|c| c.diagnosis.text.contains("itself took 33 ms")), "{:?}", cs.iter().map(|c| &c.diagnosis.text).collect::<Vec<_>>());
    assert!(cs.iter().all(|c| !c.diagnosis.text.contains("relayed")));
}

/// nDPI tests/cfgs/default/pcap/tls_heur__shadowsocks-tcp.pcapng (review X, ssocks):
/// the ClientHello frame 18 (0.055807 s) to ss-local :1080 went on to ss-server :1234
/// as frame 19 (0.055962 s, connection 1, 127.0.0.1:40164 opened by the same host);
/// connection 1's answer frame 28 (0.088533 s) came back to the browser as frame 34
/// (0.088732 s), 200 µs later (`tshark -r … -Y "frame.number>=14 && frame.number<=36"`).
#[test]
fn shadowsocks_relay_points_at_the_far_leg() {
    let Some(c) = common::corpus_connection("ntop__nDPI__tests_cfgs_default_pcap_tls_heur__shadowsocks-tcp.pcapng", 0) else { return };
    let t = &c.diagnosis.text;
    assert!(
        t.contains(
            "127.0.0.1:1080 relayed 127.0.0.1:44424's message: it passed it on over connection 1 (127.0.0.1:40164 → 127.0.0.1:1234, \
             frame 18 → frame 19, 155 µs) and answered 200 µs after that connection's answer arrived (frame 28 at 0.089 s → frame 34 \
             at 0.089 s), so the 33 ms wait was the far leg's (connection 1), not its application's."
        ),
        "{t}"
    );
}
