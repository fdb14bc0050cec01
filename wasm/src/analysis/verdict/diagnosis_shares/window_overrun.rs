//! Data sent past the receiver's window, and its re-sends (issue 39 review N class
//! C-LOSS-HEADLINE): a segment is acceptable to a receiver only within its window,
//! RCV.NXT to RCV.NXT + RCV.WND (RFC 9293 §3.10.7.4, the acceptability test); what lies
//! beyond the right edge it advertised is dropped by the receiver, which answers with
//! an ACK of what it has and the same edge (a closed window's "zero-window" ACKs). The
//! sender then sends those bytes again once the window opens (RFC 9293 §3.8.6.1: the
//! window probe; RFC 1122 §4.2.2.17). Such a re-send repairs no loss on the path: the
//! receiver had no room for the data, and the time until it is repaired is the receive
//! window's, not loss recovery's.
//!
//! The right edge here is the largest the receiver had advertised (ACK + window, in any
//! of its packets but a SYN) by the time the capture saw the sender's segment. At a
//! capture on the receiver's side the receiver's packets pass the capture point before
//! they reach the sender, so the sender knew no larger edge; at the sender's side the
//! two coincide. A window the receiver shrank (RFC 9293 §3.8.6.2.2 discourages it) only
//! makes the edge used here larger: bytes past it were past the window by any reading.

use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::is_data_segment;

const SYN: u32 = crate::decode::tcp_flags::SYN as u32;
const RST: u32 = crate::decode::tcp_flags::RST as u32;

/// At most this many separate ranges are kept (memory bounded; an overrun is normally
/// one range per closed window).
const MAX_RANGES: usize = 4096;

/// The byte ranges of direction `dir` that were first sent beyond the receiver's
/// right edge (module comment), sorted and merged. `windows_trusted`: the receiver's
/// windows are as it advertised them (an unknown window scale understates them, and
/// everything would look past the edge: stalls/gaps.rs `windows_understated`). Without
/// that, only the edges a zero window gives are used: a zero window is zero whatever
/// the scale, its edge is its ACK number, and as a receiver's right edge never moves
/// left (RFC 9293 §3.8.6.2.2) every edge it had advertised before was no larger, so
/// bytes at or past that ACK sent before it were past the window when sent.
pub(super) fn beyond_window(cols: &PacketColumns, dir: u8, windows_trusted: bool) -> Vec<(f64, f64)> {
    let n = cols.t.len();
    let edge_of = |i: usize| -> Option<f64> {
        let (a, w) = (cols.ack[i], cols.win[i]);
        (cols.dir[i] != dir && a.is_finite() && w.is_finite() && cols.flags[i] & (SYN | RST) == 0).then_some(a + w)
    };
    // The smallest zero-window edge at or after each row (the tightest bound the
    // closed windows to come put on the edge then).
    let mut zero_after = vec![f64::INFINITY; n + 1];
    for i in (0..n).rev() {
        zero_after[i] = zero_after[i + 1];
        if let Some(e) = edge_of(i).filter(|_| cols.win[i] == 0.0) {
            zero_after[i] = zero_after[i].min(e);
        }
    }
    let mut out: Vec<(f64, f64)> = Vec::new();
    let (mut edge, mut high) = (f64::NAN, f64::NEG_INFINITY);
    for i in 0..n {
        if let Some(e) = edge_of(i) {
            if !(e <= edge) {
                edge = e;
            }
            continue;
        }
        if !is_data_segment(cols, i, dir) {
            continue;
        }
        let end = cols.seq[i] + f64::from(cols.len[i]);
        if !(end > high) {
            continue;
        }
        let bound = if windows_trusted && edge.is_finite() { edge.min(zero_after[i]) } else { zero_after[i] };
        // The new bytes of the segment that lay past the edge.
        let from = cols.seq[i].max(high).max(bound);
        high = end;
        if !(bound.is_finite() && end > from) {
            continue;
        }
        let k = out.len();
        match out.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(end),
            _ if k < MAX_RANGES => out.push((from, end)),
            _ => {}
        }
    }
    out
}

/// Whether the bytes [seq, end) lie within one range of `ranges` (sorted, merged).
pub(super) fn covers(ranges: &[(f64, f64)], seq: f64, end: f64) -> bool {
    let k = ranges.partition_point(|r| r.0 <= seq);
    k > 0 && end <= ranges[k - 1].1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (dir, seq, len, ack, win): dir 0 the sender, dir 1 the receiver's pure ACKs.
    fn cols(rows: &[(u8, f64, u32, f64, f64)]) -> PacketColumns {
        let mut c = PacketColumns::default();
        for (k, &(d, seq, len, ack, win)) in rows.iter().enumerate() {
            c.t.push(k as f64 * 0.001);
            c.frame.push(k as u32 + 1);
            c.dir.push(d);
            c.seq.push(seq);
            c.len.push(len);
            c.ack.push(ack);
            c.win.push(win);
            c.flags.push(0);
            c.in_flight.push(f64::NAN);
        }
        c
    }

    #[test]
    fn bytes_past_the_advertised_edge_are_found_and_their_re_sends_covered() {
        // The receiver's ACK 1001 with 2000 B of window: its right edge is 3001. The
        // sender sends 1001–2001 and 2001–3001 (within), 3001–4001 and 4001–5001 (past
        // the edge: the receiver drops them and ACKs 3001 with a zero window), then,
        // once the window reopens (ACK 3001, window 4000), re-sends 3001–4001.
        let c = cols(&[
            (1, f64::NAN, 0, 1001.0, 2000.0),
            (0, 1001.0, 1000, f64::NAN, f64::NAN),
            (0, 2001.0, 1000, f64::NAN, f64::NAN),
            (0, 3001.0, 1000, f64::NAN, f64::NAN),
            (0, 4001.0, 1000, f64::NAN, f64::NAN),
            (1, f64::NAN, 0, 3001.0, 0.0),
            (1, f64::NAN, 0, 3001.0, 4000.0),
            (0, 3001.0, 1000, f64::NAN, f64::NAN),
        ]);
        let r = beyond_window(&c, 0, true);
        assert_eq!(r, vec![(3001.0, 5001.0)]);
        assert!(covers(&r, 3001.0, 4001.0) && covers(&r, 4001.0, 5001.0));
        // Bytes within the window when first sent: a re-send of them repairs a loss.
        assert!(!covers(&r, 2001.0, 3001.0) && !covers(&r, 2501.0, 3501.0));
        // With the windows not trusted (an unknown scale), the zero window alone gives
        // the edge: its ACK 3001, and every earlier edge was no larger.
        assert_eq!(beyond_window(&c, 0, false), vec![(3001.0, 5001.0)]);
    }

    #[test]
    fn without_a_closed_window_untrusted_windows_say_nothing() {
        // The same sending against raw windows of an unknown scale (2000 may be 2000 ×
        // 2^k): no zero window, so no edge is known and nothing is past it.
        let c = cols(&[
            (1, f64::NAN, 0, 1001.0, 2000.0),
            (0, 1001.0, 1000, f64::NAN, f64::NAN),
            (0, 2001.0, 1000, f64::NAN, f64::NAN),
            (0, 3001.0, 1000, f64::NAN, f64::NAN),
            (1, f64::NAN, 0, 2001.0, 2000.0),
            (0, 2001.0, 1000, f64::NAN, f64::NAN),
        ]);
        assert!(beyond_window(&c, 0, false).is_empty());
        // Trusted, the edge 3001 is known: 3001–4001 lay past it.
        assert_eq!(beyond_window(&c, 0, true), vec![(3001.0, 4001.0)]);
    }
}
