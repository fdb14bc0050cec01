//! `throughput.activeMeanBps` is a rate only where a burst held two data segments
//! (docs/ANALYSIS.md; issue 39 review J class AA). Hand-built segments
//! (analysis/track/testseg.rs): handshake A (ISN 1000) → B (ISN 5000), 20 ms round trip.

use crate::analysis::track::testseg::{handshake, run, Seg};

fn data(t: f64, seq: u32) -> Seg {
    Seg::a_to_b(t).seq(seq).ack(5001).len(1000)
}

fn ack(t: f64, a: u32) -> Seg {
    Seg::b_to_a(t).seq(5001).ack(a)
}

#[test]
fn lone_segments_a_second_apart_have_no_rate_while_active() {
    // Three 1000-byte messages 1 s apart, each ACKed 1 ms later: every burst between the
    // application's pauses is one segment, timed only by its own round trip (1000 B over
    // 20 ms would read "400 kbit/s while active" for a flow that sent 3000 B in 2 s).
    // No burst of two: 0, no rate.
    let mut v = handshake(Some(7), Some(7));
    v.extend([data(0.030, 1001), ack(0.031, 2001), data(1.030, 2001), ack(1.031, 3001), data(2.030, 3001), ack(2.031, 4001)]);
    let a = run(v);
    let d = &a.connections[0].directions[0];
    assert_eq!(d.payload_bytes, 3000);
    assert_eq!(d.throughput.active_mean_bps, 0.0);
}

#[test]
fn bursts_of_two_segments_keep_their_rate_while_active() {
    // The same, each message two segments 0.1 ms apart: a burst of two is delivered
    // together, its time the sender's, so the rate while active stands (above 0).
    let mut v = handshake(Some(7), Some(7));
    for (k, t) in [0.030, 1.030, 2.030].into_iter().enumerate() {
        let s = 1001 + 2000 * k as u32;
        v.extend([data(t, s), data(t + 0.0001, s + 1000), ack(t + 0.0011, s + 2000)]);
    }
    let a = run(v);
    let d = &a.connections[0].directions[0];
    assert_eq!(d.payload_bytes, 6000);
    assert!(d.throughput.active_mean_bps > 0.0, "{}", d.throughput.active_mean_bps);
}
