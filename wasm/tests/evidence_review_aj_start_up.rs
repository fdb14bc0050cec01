//! Issue 39, review AJ: the start-up words. C-MIDSTREAM-QUEUE-AS-PATH-RTT
//! (verdict/diagnosis/midstream_flight.rs): a capture that opens with a flight already
//! in progress is not "too short … to leave slow start"; its round trips carry the
//! backlog. C-SLOWSTART-MISSED (verdict/diagnosis/start_up_growth.rs): no rate "once its
//! start-up was over" while the ACK-clock rounds still grew at the capture's end. Corpus
//! captures return early without `TCPSCOPE_CORPUS`.

use crate::common;
use tcpscope_core::synth::{Flow, C2S, S2C};

/// An upload captured at its sender from the middle: the receiver's ACKs advance 1,000 B
/// every 8 ms (a 1 Mbit/s bottleneck) while 100,000 B sent before the capture are still
/// unacknowledged; the sender sends one 1,000-B segment 50 µs after each of the first 150
/// ACKs (ACK-clocked), then stops; ACKs go on until all is acknowledged.
fn midstream_upload() -> Flow {
    let s0: u32 = 1_000_000;
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:443");
    f.isn(s0 + 100_000, 5000);
    for k in 0..250i64 {
        f.push(S2C, k * 8000).ack(s0 + 1000 * (k as u32 + 1));
        if k < 150 {
            f.data(C2S, k * 8000 + 50, 1000);
        }
    }
    f
}

#[test]
fn a_transfer_already_under_way_is_told_from_its_ack_clock() {
    let c = common::analyze_flow(&midstream_upload());
    let d = &c.diagnosis;
    // Each segment is ACKed 100 ACKs (800 ms) after it left: the 800 ms "path RTT" is
    // the backlog's queue; 150 segments in 1.19 s is under 4 of those round trips, so
    // the too-short rule caught it (before: "Too short to judge … to leave slow start").
    assert_eq!(d.limit, "path", "{}", d.text);
    // Frame 1 is the first ACK (ack s0 + 1000), frame 2 the first data (seq s0 + 100,000),
    // frame 3 the next ACK (s0 + 2000): 98,000 B = 95.7 KiB beyond it.
    assert!(d.text.contains("first captured data (frame 2) lies 96 KiB beyond the receiver's next ACK (frame 3)"), "{}", d.text);
    // Flight at the first data: highest byte s0 + 101,000 less that ACK = 99,000 B; then
    // 100,000 B at every later send (one new segment per 1,000 B acknowledged).
    assert!(d.text.contains("The flight went from 97 KiB to at most 98 KiB over the 1.2 s of data (never below 97 KiB)"), "{}", d.text);
    // (No "ACK-clocked" sentence: it needs a sender-side vantage (vantage.rs), which this
    // scripted capture does not establish; the corpus test below checks it.)
    // ACK s0 + 2000 (frame 3, 8 ms) to s0 + 250,000 (frame 400, 1.992 s): 248,000 B in
    // 1.984 s = exactly 1 Mbit/s, the same in every quarter.
    assert!(d.text.contains("advanced 242 KiB in 2 s (frames 3 → 400), a steady 1 Mbit/s"), "{}", d.text);
    // 98,000 B at 1 Mbit/s = 784 ms, above half the 800 ms round trip.
    assert!(d.text.contains("the backlog alone takes 784 ms to deliver"), "{}", d.text);
    assert!(!d.text.contains("leave slow start"), "{}", d.text);
}

#[test]
fn a_flow_whose_start_is_captured_is_still_too_short() {
    // The same pattern with its handshake: the flow's start is here, the rule stays.
    let mut f = common::short_transfer("10.0.0.1:40000", "10.0.0.2:80");
    f.push(S2C, 60_000);
    let d = common::analyze_flow(&f).diagnosis;
    assert_eq!(d.limit, "too-short", "{}", d.text);
    assert!(d.text.contains("to leave slow start"), "{}", d.text);
}

#[test]
fn corpus_midstream_upload_over_a_standing_queue() {
    // kannaammulu25 udp #0 (review AJ row 3): tshark frame 3's data 232,700 B beyond
    // frame 2's ACK (next ACK frame 4 at 2,601: 230,100 B = 225 KiB), every send 50–100
    // µs after an ACK, the ACK reaching the last data at frame 444 (6.57 s).
    let Some(c) = common::corpus_connection("kannaammulu25__computer-networks-CPT__udp.pcapng", 0) else { return };
    let d = &c.diagnosis;
    assert_eq!(d.limit, "path", "{}", d.text);
    assert!(d.text.contains("first captured data (frame 3) lies"), "{}", d.text);
    assert!(d.text.contains("the sender was ACK-clocked"), "{}", d.text);
    assert!(d.text.contains("frames 4 → 444), a steady 8"), "{}", d.text);
    assert!(!d.text.contains("leave slow start"), "{}", d.text);
}

#[test]
fn corpus_upload_still_in_start_up_at_the_end() {
    // saikowshik07 icmp #11 (review AJ row 1): tshark's largest bytes in flight per 1-s
    // bin 20 → 37 → 71 → 118 → 236 → 371 → 727 → 777 kB to the capture's end.
    let Some(c) = common::corpus_connection("saikowshik07__Computer-networks__icmp.pcapng", 11) else { return };
    let d = &c.diagnosis;
    assert!(d.text.contains("still in start-up when the capture ends"), "{}", d.text);
    assert!(d.text.contains("grew from 550 B to 711 KiB over its last 9 round trips"), "{}", d.text);
    assert!(!d.text.contains("once its start-up was over"), "{}", d.text);
    assert!(!d.text.contains("steadily near its best"), "{}", d.text);
}
