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

/// A browser → local SOCKS relay (connection 0, 127.0.0.1:44424 → :1080) whose
/// request (517 B at 10 ms, frame 7 of the file) the relay passes on over its own
/// connection to the next hop (connection 1, 127.0.0.1:40164 → :1234, opened at 1 ms:
/// 636 B at 10.155 ms, frame 9). The next hop answers at 42.8 ms (1,274 B, frame 11)
/// and the relay passes 1,208 B back at 43.0 ms (frame 13), 200 µs later (≤ 1 ms): the
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
             frame 7 → frame 9, 155 µs) and answered 200 µs after that connection's answer arrived (frame 11 at 0.043 s → frame 13 \
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
