//! A receiving host's hold, synthesized: the numbers of telzw's (review X) in small.
use super::*;
use crate::analysis::stalls::testkit::{Cols, MSS};

/// A sender of 10 full segments 5 µs apart from 1 s; the receiver ACKs the first three
/// 2 µs after the third, sixth and ninth segments with `windows` (its right edge, ACK + window, still when the buffer
/// fills), then nothing until 1.070036 s, then three ACKs 200 µs apart covering the rest,
/// the sender's new data between them. Returns the columns and the sender's stall.
fn hold(windows: [f64; 3]) -> (Cols, Stall) {
    let mut c = Cols::new(65536.0);
    let m = f64::from(MSS);
    let mut acks = 0;
    for k in 0..10u32 {
        let t = 1.0 + f64::from(k) * 0.000005;
        c.data(t, 0, 1.0 + f64::from(k) * m, MSS);
        if k % 3 == 2 && acks < 3 {
            c.ack(t + 0.000002, 1, 1.0 + f64::from(acks + 1) * m, windows[acks as usize]);
            acks += 1;
        }
    }
    c.ack(1.070036, 1, 1.0 + 6.0 * m, 65536.0);
    c.data(1.070040, 0, 1.0 + 10.0 * m, MSS);
    c.ack(1.070236, 1, 1.0 + 8.0 * m, 65536.0);
    c.ack(1.070436, 1, 1.0 + 10.0 * m, 65536.0);
    let s = Stall { start: 1.000045, duration: 0.069995, cause: StallCause::AckWait, frame_before: 14, frame_after: 16, ended_by: "new data after an ACK at 1.070 s".into() };
    (c, s)
}

/// The buffer filling (right edge 65,537 held by ACKs 2 and 3, window 65,536 − 3 × 1,448
/// = 61,192 B, "60 KiB", at frame 13), then 70 ms of silence (1.000042 → 1.070036 s), then ACKs of
/// the 7 segments (10,136 B) sent before the stall in 3 ACKs within 400 µs (frames 15,
/// 17, 18): the receiving host held them.
#[test]
fn a_batch_after_a_filling_buffer_is_the_receivers_hold() {
    let m = f64::from(MSS);
    let (c, s) = hold([65536.0 - m, 65536.0 - 2.0 * m, 65536.0 - 3.0 * m]);
    let mut stalls = vec![s];
    reword(&mut stalls, &c.c.packets, 0, m, None);
    let w = &stalls[0].ended_by;
    assert!(is_hold(&stalls[0]), "{w}");
    assert!(w.starts_with("the receiving host held its ACKs for 70 ms (its window had fallen to "), "{w}");
    assert!(w.contains("60 KiB at frame 13, just before"), "{w}");
    assert!(w.contains("(7 full segments sent before the stall) in 3 ACKs within 400 µs (frames 15–18)"), "{w}");
    assert_eq!(stalls[0].cause, StallCause::AckWait);
}

/// The same silence and batch with the window's right edge advancing with each ACK (the
/// application reading): nothing shows the host rather than the path stopping.
#[test]
fn without_the_window_telling_the_hold_is_not_named() {
    let (c, s) = hold([65536.0; 3]);
    let mut stalls = vec![s];
    reword(&mut stalls, &c.c.packets, 0, f64::from(MSS), None);
    assert!(!is_hold(&stalls[0]));
}

/// One ACK ending the silence, covering 2 segments at most, is no batch.
#[test]
fn one_ack_is_no_batch() {
    let m = f64::from(MSS);
    let mut c = Cols::new(65536.0);
    for k in 0..6u32 {
        c.data(1.0 + f64::from(k) * 0.000005, 0, 1.0 + f64::from(k) * m, MSS);
    }
    c.ack(1.000031, 1, 1.0 + m, 0.0);
    c.ack(1.070031, 1, 1.0 + 3.0 * m, 65536.0);
    c.data(1.070040, 0, 1.0 + 6.0 * m, MSS);
    let mut stalls = vec![Stall { start: 1.000025, duration: 0.070015, cause: StallCause::AckWait, frame_before: 7, frame_after: 10, ended_by: String::new() }];
    reword(&mut stalls, &c.c.packets, 0, m, None);
    assert!(!is_hold(&stalls[0]));
}

/// The receiver's own TCP timestamps through its silence (rows 12 → 14, frames 13 → 15,
/// 1.000017 → 1.070036 s: 70 ms): a 10-ms clock that moved 7 ticks (70 ms ≥ half the
/// hold, ≥ 2 ticks) stamped the batch's first ACK at the silence's end — the host was
/// awake and held it; one that moved 0 or 2 ticks (20 ms < 35 ms) adds nothing (the
/// path may have held ACKs sent at the start, or the host slept).
#[test]
fn the_receivers_own_clock_through_the_hold_says_it_was_awake() {
    use crate::analysis::timing::peer_silences::{TsSilence, TsSilences};
    let m = f64::from(MSS);
    let words = |ticks: u32| {
        let (c, s) = hold([65536.0 - m, 65536.0 - 2.0 * m, 65536.0 - 3.0 * m]);
        let ts = TsSilences { tick_s: Some(0.01), silences: vec![TsSilence { row_before: 12, row_after: 14, ticks }] };
        let mut stalls = vec![s];
        reword(&mut stalls, &c.c.packets, 0, m, Some(&ts));
        stalls.remove(0).ended_by
    };
    let w = words(7);
    assert!(w.ends_with("kept the sender waiting; its TCP timestamps moved 7 ticks (about 70 ms) from frame 13 to frame 15: it sent that ACK at the silence's end, awake and holding its ACKs (a closed window or a delayed ACK), not at its start"), "{w}");
    for ticks in [0, 2] {
        let w = words(ticks);
        assert!(w.ends_with("kept the sender waiting"), "{ticks}: {w}");
    }
}
