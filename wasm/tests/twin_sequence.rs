//! The data direction's time-sequence series as each capture saw it, on the merged axis
//! (issue 44 item 3; wasm/src/twin/sequence.rs, docs/ANALYSIS.md `twin.sequence`), and
//! the marks the events give it: against the simulator, whose every loss is chosen here
//! (tests/twin_sim), and against twin-forward-loss, whose link emulator counted its own
//! drops and whose kernels counted their segments
//! (wasm/tests/examples-truth/twin-forward-loss.json).

// The simulator's skew and TSO helpers serve twin_merge.rs; this file needs neither.
#[allow(dead_code)]
use crate::twin_sim;

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::twin::{merge_captures, TwinEvent, TwinPair, TwinReport, TwinSequence, TwinSequenceSide, MAX_SEQUENCE_BINS};
use twin_sim::{pcap, run, skew, Config, MSS};

fn read(file: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../public/examples/{file}", env!("CARGO_MANIFEST_DIR"))).expect("example capture")
}

fn merged(a: &[u8], b: &[u8]) -> TwinReport {
    let r = merge_captures(a, b, AnalysisOptions::default());
    assert!(r.refusal.is_none() && r.pairs.len() == 1 && r.pairs[0].refused.is_none(), "{:?}", r.refusal);
    r
}

fn sequence(p: &TwinPair) -> &TwinSequence {
    p.sequence.as_ref().expect("a merged pair has its sequence series")
}

/// (data datagrams, of them resends) of one side, checked against its bins: each bin on
/// the shared grid, in time order, within the cap, and the bins' counts adding up.
fn side_totals(s: &TwinSequence, side: &TwinSequenceSide) -> (u64, u64) {
    assert!(side.bins.len() <= MAX_SEQUENCE_BINS && side.acks.len() <= MAX_SEQUENCE_BINS);
    for (k, b) in side.bins.iter().enumerate() {
        let column = (b.t - s.start) / s.bin_width;
        assert!((column - column.round()).abs() < 1e-6 && column.round() < MAX_SEQUENCE_BINS as f64, "bin {k} off the grid: {b:?}");
        assert!(k == 0 || side.bins[k - 1].t < b.t, "bins in time order");
        assert!(b.seq_min < b.seq_max && b.retransmitted <= b.count);
    }
    let count: u64 = side.bins.iter().map(|b| u64::from(b.count)).sum();
    let again: u64 = side.bins.iter().map(|b| u64::from(b.retransmitted)).sum();
    assert_eq!((count, again), (side.datagrams, side.retransmitted));
    (side.datagrams, side.retransmitted)
}

/// The sender side's bin holding a mark's time covers the mark's bytes: the marks and
/// the bins count sequence numbers from the same first one.
fn sits_on_its_bin(s: &TwinSequence, e: &TwinEvent) -> bool {
    let column = ((e.t - s.start) / s.bin_width).floor();
    let bin = s.sender_side.bins.iter().find(|b| ((b.t - s.start) / s.bin_width).round() == column);
    bin.is_some_and(|b| b.seq_min <= e.seq && e.seq + i64::from(e.len) <= b.seq_max)
}

fn lost(p: &TwinPair, direction: u8) -> Vec<&TwinEvent> {
    p.events.iter().filter(|e| e.kind == "lost-between" && e.direction == direction).collect()
}

#[test]
fn each_side_draws_what_it_saw_and_the_losses_are_marked_on_both() {
    // 2,000 segments of 1,448 bytes; the path loses the server's datagrams #300 and #900
    // and the client's #50 (an ACK). Forward path 10 ms, return 8 ms, one clock: after
    // the offset (1 ms ± 9 ms, the symmetric split of the 18 ms round trip) both floors
    // read 9 ms.
    let t = run(Config { drop_fwd: vec![300, 900], drop_rev: vec![50], ..Config::default() });
    assert_eq!(t.lost, [2, 1]);
    let r = merged(&pcap(&t.client_side), &pcap(&t.server_side));
    let p = &r.pairs[0];
    let s = sequence(p);
    // The sender's capture saw its 2,000 data segments and the 2 resends of the lost
    // ones; the receiver's, the 2,000 that arrived: 1,998 first copies and both resends.
    assert_eq!(side_totals(s, &s.sender_side), (2002, 2));
    assert_eq!(side_totals(s, &s.receiver_side), (2000, 2));
    // Sequence numbers from the SYN (0): the last byte ends at 2,000 × 1,448 + 1 at both
    // points, and the receiver's last ACK covers the FIN too, one more.
    let end = i64::from(2000 * MSS) + 1;
    assert_eq!([s.sender_side.bins.last().unwrap().seq_max, s.receiver_side.bins.last().unwrap().seq_max], [end, end]);
    assert_eq!([s.sender_side.acks.last().unwrap().ack, s.receiver_side.acks.last().unwrap().ack], [end + 1, end + 1]);
    // The grid starts at the earliest datagram of either capture: the client's SYN, which
    // left 9 ms (the return floor after the offset) before the server's capture, the
    // merged axis' 0, saw it arrive.
    assert!((s.start + 0.009).abs() < 1e-9, "{}", s.start);
    // The marks: the two data segments lost on the way, seen leaving at the sender side,
    // each due at the receiver side one forward floor (9 ms) later, where it never
    // arrived; the lost ACK seen leaving the receiver side, due at the sender side 9 ms
    // later, sitting on the chart at what it acknowledged: its client sent the SYN, the
    // handshake's ACK and a request before its first ACK of data, so datagram #50 ACKs
    // 48 segments: 48 × 1,448 + 1.
    // The server's datagram #0 is its SYN/ACK, so #300 carried the 300th segment's bytes
    // (from 299 × 1,448 + 1); the resend of those went out before #900, which carried
    // the 899th segment's.
    let forward = lost(p, 0);
    assert_eq!(forward.iter().map(|e| e.seq).collect::<Vec<_>>(), [299 * 1448 + 1, 898 * 1448 + 1]);
    for e in &forward {
        assert_eq!((e.capture, e.ack), ("sender-side", None));
        assert!((e.due.unwrap() - e.t - 0.009).abs() < 1e-9, "{e:?}");
        assert!(sits_on_its_bin(s, e), "{e:?}");
    }
    let back = lost(p, 1);
    assert_eq!(back.len(), 1);
    assert_eq!((back[0].capture, back[0].ack), ("receiver-side", Some(48 * 1448 + 1)));
    assert!((back[0].due.unwrap() - back[0].t - 0.009).abs() < 1e-9);
}

#[test]
fn forward_loss_recording_matches_the_kernels_and_the_emulator() {
    let r = merged(&read("twin-forward-loss.pcap"), &read("twin-forward-loss-server.pcap"));
    let p = &r.pairs[0];
    let s = sequence(p);
    // The server (pv_a) sent 1,675 segments of new data (TcpExtTCPOrigDataSent) and 47
    // resends (TcpRetransSegs): 1,722 at its own capture, 47 of them resends. The
    // emulator dropped 47 of them (random_loss a_to_b), every one a first copy (the
    // server resent each once: TcpRetransSegs = the drops, TcpExtTCPLostRetransmit 0),
    // so the client's capture saw 1,675: 1,628 first copies and the 47 resends.
    assert_eq!(side_totals(s, &s.sender_side), (1722, 47));
    assert_eq!(side_totals(s, &s.receiver_side), (1675, 47));
    // Everything arrived in the end: both sides reach the same last byte and ACK.
    assert_eq!(s.sender_side.bins.last().unwrap().seq_max, s.receiver_side.bins.last().unwrap().seq_max);
    assert_eq!(s.sender_side.acks.last().unwrap().ack, s.receiver_side.acks.last().unwrap().ack);
    // 5.4 s on at most 1,000 columns of whole microseconds.
    assert_eq!((s.bin_width * 1e6).round(), 5411.0);
    // The lost-between marks: the emulator's 47 drops server → client, each on the sender
    // side's chart at its send time, on the bin that holds it, and due at the client one
    // forward floor (10.056 ms) later; none the other way (b_to_a dropped nothing).
    let floor = p.directions[0].delay.unwrap().min_ms / 1e3;
    let forward = lost(p, 0);
    assert_eq!((forward.len(), lost(p, 1).len()), (47, 0));
    assert!((floor - 0.010056).abs() < 1e-9, "{floor}");
    for e in forward {
        assert_eq!(e.capture, "sender-side");
        assert!((e.due.unwrap() - e.t - floor).abs() < 1e-9, "{e:?}");
        assert!(sits_on_its_bin(s, e), "{e:?}");
    }
}

#[test]
fn a_skewed_drifting_receiver_clock_moves_no_bin() {
    // 4,000 segments kept 4 in flight: 18 s, long enough for the drift to be measured
    // (twin_merge.rs `offset_drift_and_losses_on_a_skewed_clock`: exact on constant
    // delays). The client's capture clock moved 37.5 ms ahead and gaining 50 ppm: taken
    // out by the offset and drift, every datagram lands on the merged axis where it did
    // with the true clock, so both sides' bins are the same bins.
    let cfg = Config { segments: 4000, window: 4, drop_fwd: (1..40).map(|k| k * 97).collect(), drop_rev: (1..30).map(|k| k * 61).collect(), ..Config::default() };
    let t = run(cfg);
    let plain = merged(&pcap(&t.client_side), &pcap(&t.server_side));
    let mut client = t.client_side.clone();
    skew(&mut client, 37_500_000, 50.0);
    let skewed = merged(&pcap(&client), &pcap(&t.server_side));
    let (a, b) = (sequence(&plain.pairs[0]), sequence(&skewed.pairs[0]));
    assert_eq!((a.start, a.bin_width), (b.start, b.bin_width));
    let shape = |s: &TwinSequenceSide| s.bins.iter().map(|x| (x.t, x.seq_min, x.seq_max, x.count, x.retransmitted)).collect::<Vec<_>>();
    assert_eq!(shape(&a.sender_side), shape(&b.sender_side));
    assert_eq!(shape(&a.receiver_side), shape(&b.receiver_side));
    // 39 data segments and 29 ACKs lost: every resend seen leaving and arriving.
    assert_eq!((b.sender_side.retransmitted, b.receiver_side.retransmitted), (39, 39));
    assert_eq!((lost(&skewed.pairs[0], 0).len(), lost(&skewed.pairs[0], 1).len()), (39, 29));
}
