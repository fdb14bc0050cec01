//! Issue 39, "Evidence before every claim", review J classes TS, LS and AA: counters and
//! printed numbers that counted one thing twice, or named it wrongly.
//!
//! TS. A segment stamped microseconds after its own ACK (a capture merged from two
//!     clocks) was both a capture hole ("ACKed but never captured") and a spurious timeout
//!     retransmission. It is the original unless the receiver answers the copy with a
//!     duplicate ACK or D-SACK, as it must for bytes it already holds (RFC 9293 §3.10.7.4;
//!     track/conn/loss.rs `hold_late_copy`).
//! LS. A "previous segment not captured" whose hole only an original overtaken on the way
//!     filled was reordering, not a lost segment (docs/ANALYSIS.md `direction.lostSegments`).
//! AA. A flow of lone segments has no rate while active: each "burst" is timed by its own
//!     round trip (run/summary/steps.rs `some_burst_of_two`).
//!
//! The synthesized shapes with exact numbers are in analysis/loss/capture_loss_tests.rs;
//! here, the public captures that showed them (`TCPSCOPE_CORPUS`; absent, each test says
//! so and passes).

use crate::common;

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::analyze_bytes;

#[test]
fn an_ack_stamped_before_its_data_is_neither_a_hole_nor_a_re_send() {
    // suricata-verify issue-4220 1flowB: an SMTP upload, one 1,460-byte segment every
    // ~2.5 ms, each ACKed 4–40 µs later. Ten times the ACK is stamped just before the data
    // it covers: frame 74 (0.087547 s) acknowledges 38458, frame 75 (0.087553 s) is the only
    // copy of 36998..38458 (tshark: `tcp.seq==36998` matches it alone), and the receiver's
    // next segment, frame 77, acknowledges 39918: no duplicate, so it never got a second
    // copy. Before: "10 holes in the captured data … never captured" and "retransmissions 8
    // (8 timeouts; 8 spurious)" (+ 2 for the server's reply at frames 8/9 and 12/13, same
    // instants), one segment counted twice each time.
    let Some(bytes) = common::corpus("OISF__suricata-verify__tests_issue-4220-01-ids_1flowB.pcap") else { return };
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    let c = &a.connections[0];
    assert_eq!((c.capture_loss.holes, c.capture_loss.unseen_bytes), (0, 0));
    for d in c.directions.iter() {
        assert_eq!((d.retransmissions, d.rto_events, d.spurious_retransmissions), (0, 0, 0), "{}", d.from);
    }
    assert!(a.warnings.iter().all(|w| w.kind != "capture-loss"));
    // The headline was right and stays: the sender paced itself.
    assert!(c.diagnosis.text.starts_with("The sending application limited this flow"), "{}", c.diagnosis.text);
}

#[test]
fn segments_that_arrive_out_of_order_are_reordered_not_lost() {
    // dbagal pcap_tcp_1081 connection 1 (34.193.77.105:1081 → 172.24.16.236:50694, captured
    // at the client, 9.5 ms path): frame 330 (0.447824 s, seq 15692, IP ID 0xac2f) arrives
    // 39 and 85 µs before frames 331 and 333 (seq 12944 and 14318, IDs 0xac2d and 0xac2e):
    // sent before it, overtaken, never re-sent. tshark: 1 lost segment, 2 out-of-order;
    // before, "lost segments 1" with 0 retransmissions.
    let Some(bytes) = common::corpus("dbagal__internet-packet-analysis__pcap_tcp_1081.pcap") else { return };
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    let c = &a.connections[1];
    let d = &c.directions[c.data_direction as usize];
    assert_eq!(d.from, "34.193.77.105:1081");
    assert_eq!((d.lost_segments, d.out_of_order, d.retransmissions), (0, 2, 0));
}

#[test]
fn a_heartbeat_has_no_rate_while_active() {
    // corelight zeek-long-connections long_connection: 228 messages of 32 B, one every
    // ~30 s for 6,806 s (frame 4 at 0.216168 s, ACKed by frame 5 at 0.216304 s; frame 6 at
    // 25.220615 s …). Each "burst" is one segment timed by its own round trip: before,
    // "the flow averaged 671 kbit/s while active" beside a 2.6 kbit/s peak.
    let Some(bytes) = common::corpus("corelight__zeek-long-connections__testing_pcaps_long_connection.pcap") else { return };
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    let c = &a.connections[0];
    let d = &c.directions[c.data_direction as usize];
    assert_eq!((d.payload_bytes, d.throughput.active_mean_bps), (7_296, 0.0));
    let t = &c.diagnosis.text;
    assert!(!t.contains("while active;") && !t.contains("kbit/s while active"), "{t}");
    assert!(t.contains("the flow sent 7.1 KiB in 6806 s, each burst a lone segment, too little together for a rate while active"), "{t}");
}
