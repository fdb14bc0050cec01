//! Whether the receive window held the sender when a data segment left: the shares
//! pass's test of "window-limited" (docs/ANALYSIS.md "Time shares", rule 3; review AJ
//! class C-RWND-BELOW-ONE-MSS-HEADROOM-MISSED). A child module of pass.rs.
//!
//! A sender does not send a segment that would cross the right edge of the window the
//! receiver advertised (RFC 9293 §3.8.6), and silly-window avoidance keeps it from
//! sending a runt into the room left below a full segment while data is outstanding
//! (RFC 9293 §3.8.6.2.1, RFC 1122 §4.2.3.4; Nagle, RFC 896). So it is window-limited
//! not only when the window is full but whenever the bytes in flight plus one full
//! segment exceed it: the next segment does not fit. Two tests, either suffices:
//! - the flight within the tolerance of the window (stalls/gaps.rs `window_tolerance`:
//!   one MSS, at most a quarter of the window, so that offload super-frames do not make
//!   every small window look full);
//! - the headroom: flight + one full segment > window, where segment `i` did not end a
//!   write (no PSH: the sender had more to send), and a full segment is the
//!   sender's (stalls/full_segment.rs: the peer's MSS option less its option bytes, or
//!   the largest payload sent), no larger than segment `i` itself (a sender writing
//!   smaller pieces needs room for its next piece only), and no offload super-frame: at
//!   most a jumbo frame's payload. Without it a window of 2–4
//!   segments never counted: a Windows client advertising 2.5–5.4 KB (raw 10–21 × 2^8)
//!   to a server that sent exactly the one or two 1,388-B segments that fit each round
//!   (Vishnugrandhi20 computer-networks `0755/tcp.pcapng` #1, frames 400 → 406,
//!   430 → 432/434) read "the congestion window or the path took the largest share".
//!
//! From another vantage point the flight is reconstructed in the sender's time
//! (sender_view.rs), give or take a tenth of the window: the first test allows that
//! (`window_tolerance_lagged`), the headroom test needs no more (the larger of the two
//! tolerances applies, never their sum).

use super::SharesPass;
use crate::analysis::rows::columns::flag_bits;
use crate::analysis::stalls::window_tolerance_lagged;

/// The largest payload one segment on a real link carries: a 9,000-byte jumbo MTU less
/// 40 bytes of IP and TCP headers. A "full segment" above it is an offload super-frame
/// (TSO/GSO/GRO) and says nothing of what the next segment on the wire needs.
pub(super) const JUMBO_SEGMENT: f64 = 8960.0;

impl SharesPass<'_> {
    /// Whether data segment `i` left with `flight` bytes in flight against a receive
    /// window that had no room for another full segment (module comment), and whether
    /// only the headroom test said so.
    pub(super) fn window_held(&self, i: usize, flight: f64) -> (bool, bool) {
        let (cols, win) = (self.cols, self.peer_win);
        if !self.out.windows_trusted {
            return (false, false);
        }
        if cols.flags[i] & flag_bits::WINDOW_FULL != 0 {
            return (true, false);
        }
        if !win.is_finite() {
            return (false, false);
        }
        if flight >= win - window_tolerance_lagged(self.mss, win, self.lagged) {
            return (true, false);
        }
        // The next segment: as large as this one, never above a full segment (a sender
        // cutting its data into full segments needs a full one; one writing smaller
        // pieces — scapy `http_chunk.pcap`'s 1,031-B chunks — the next piece).
        let unit = self.full_segment.min(self.mss).min(f64::from(cols.len[i]));
        // Only where the sender had more to send: segment `i` did not end a write (no PSH,
        // RFC 9293 §3.9.1, as write_ends.rs reads it). A message that ended with it had
        // no next segment for the window to hold (review AK: DilanRamirez lab3.pcapng #14,
        // one 638-B message against an inferred 1,026-B window, and corelight PetitPotam
        // LSARPC #0, one message every 500 ms, read window time).
        let write_went_on = cols.flags[i] & u32::from(crate::decode::tcp_flags::PSH) == 0;
        let headroom = write_went_on && unit > 0.0 && unit <= JUMBO_SEGMENT && flight + unit > win;
        (headroom, headroom)
    }

    /// The open interval was window-limited by the headroom test alone, yet the sender
    /// sent its next segment with no ACK advancing and no window growing in between:
    /// that segment fitted the room left, so no window held it — the sender's own pace
    /// (tarun1894 CSA0731 `tcp.pcapng` #0: one small segment outstanding against a
    /// window of two, the next sent at its own cadence).
    pub(super) fn headroom_unused(&self) -> bool {
        self.small_hold.headroom && !self.released
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::rows::columns::PacketColumns;
    use crate::analysis::verdict::diagnosis_shares::time_shares;

    /// (t, dir, seq, len, ack, win): dir 0 the sender (its in-flight as Wireshark's
    /// bytes_in_flight: high − ACK), dir 1 the receiver's pure ACKs.
    fn cols(rows: &[(f64, u8, f64, u32, f64, f64)]) -> PacketColumns {
        let mut c = PacketColumns::default();
        let (mut high, mut acked) = (1.0f64, 1.0f64);
        for (k, &(t, d, seq, len, ack, win)) in rows.iter().enumerate() {
            if d == 1 {
                acked = ack;
            } else {
                high = high.max(seq + f64::from(len));
            }
            c.t.push(t);
            c.frame.push(k as u32 + 1);
            c.dir.push(d);
            c.seq.push(seq);
            c.len.push(len);
            c.wire_len.push(len + 54);
            c.ack.push(ack);
            c.win.push(win);
            c.flags.push(0);
            c.in_flight.push(if d == 0 { high - acked } else { f64::NAN });
        }
        c
    }

    #[test]
    fn a_window_without_room_for_the_next_full_segment_holds_the_sender() {
        // A 2,560-B window (raw 10 × 2^8, as Vishnugrandhi20 0755 tcp #1 f400) and
        // 1,388-B segments: after one segment 1,172 B are left, less than a segment, so
        // the sender waits for each ACK (RFC 9293 §3.8.6.2.1). Each 99-ms wait from a
        // segment to the ACK that releases the next is the window's: 2 × 0.099 s of
        // the 0.2 s active (the first segment at 0.001 s, the last at 0.201 s) — 99 %.
        // (The old tolerance, min(MSS, window / 4) = 640 B, left 1,388 of 2,560 B in
        // flight as "the congestion window or the path".)
        let c = cols(&[
            (0.000, 1, f64::NAN, 0, 1.0, 2560.0),
            (0.001, 0, 1.0, 1388, f64::NAN, f64::NAN),
            (0.100, 1, f64::NAN, 0, 1389.0, 2560.0),
            (0.101, 0, 1389.0, 1388, f64::NAN, f64::NAN),
            (0.200, 1, f64::NAN, 0, 2777.0, 2560.0),
            (0.201, 0, 2777.0, 1388, f64::NAN, f64::NAN),
        ]);
        let sh = time_shares(&c, 0, &[]);
        assert!((sh.active - 0.2).abs() < 1e-9);
        assert!((sh.receive_window - 0.2).abs() < 1e-9, "{}", sh.receive_window);
    }

    #[test]
    fn a_segment_sent_into_the_room_left_shows_no_window_held_it() {
        // The same window; the sender's second segment (1,000 B) fits the 1,172 B left
        // and leaves with no ACK or window update in between: the first interval
        // (0.001 → 0.050 s) was the sender's pace, not the window's. The second
        // (2,388 of 2,560 B in flight, within min(MSS, window / 4) of it) is the
        // window's until the segment after the ACK: 0.050 → 0.101 s.
        let c = cols(&[
            (0.000, 1, f64::NAN, 0, 1.0, 2560.0),
            (0.001, 0, 1.0, 1388, f64::NAN, f64::NAN),
            (0.050, 0, 1389.0, 1000, f64::NAN, f64::NAN),
            (0.100, 1, f64::NAN, 0, 2389.0, 2560.0),
            (0.101, 0, 2389.0, 1388, f64::NAN, f64::NAN),
        ]);
        let sh = time_shares(&c, 0, &[]);
        assert!((sh.receive_window - 0.051).abs() < 1e-9, "{}", sh.receive_window);
        assert!(sh.other + sh.application > 0.0489 && sh.other + sh.application < 0.0491, "{} {}", sh.other, sh.application);
    }
}
