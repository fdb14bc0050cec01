//! Small writes sent as written, with data still in flight (issue 39, review AL class
//! C-SUBMSS-WRITES-TOLD-AS-CWND-OR-PATH; docs/ANALYSIS.md *The sender's writes*).
//!
//! An interactive sender (an SSH session's output, a chatty RPC or TLS stream) writes
//! many small pieces, each sent at once and acknowledged within a round trip. Between a
//! write and its ACK data is outstanding below the receiver's window, so the share pass
//! books that time `other` (the congestion window or the path). But a sender with data
//! queued sends full segments (RFC 9293 §3.7.4 and §3.8.6.2.1: less than a full segment
//! only when all queued data fits; RFC 1122 §4.2.3.4), so a segment that ended a write
//! (write_ends.rs `ends_write`: PSH, no whole number of full segments) left nothing
//! behind: until the next one the sender had nothing more to send — RFC 4898's
//! SndLimTransSnd, the application's time.
//!
//! write_ends.rs guards that reading against a stack that does not join queued writes
//! (it sends each write's tail back to back) by timing: the next bytes must come later
//! after a write's end than after a whole segment. An interactive sender PSHes nearly
//! every segment, its whole-size ones too, so there are no queued whole segments to time
//! against and the guard cannot speak. This rule reads the same question — was a backlog
//! held? — from evidence a backlog could not leave:
//! - no loss at all (no re-sent segment): no recovery held anything;
//! - most new segments (at least [`SMALL_SHARE`]) below half a full segment (a small-MSS
//!   path is excluded by write_ends.rs: whole segments must be seen, and the full segment
//!   is the handshake's or the largest sent);
//! - the flight at every new segment at most [`WINDOW_SHARE`] of the receiver's smallest
//!   window (trusted) and at most [`IW_SEGMENTS`] full segments, the initial window
//!   (RFC 6928), below which no congestion window falls without loss (RFC 5681 §3.1,
//!   §4.1's restart window is min(IW, cwnd)): no window held data back;
//! - the flight drained: with everything acknowledged the sender still did not send for
//!   at least [`DRAINED_SHARE`] of the time (the share pass's `application`): a backlog
//!   under a window is sent the moment an ACK frees room, it never lets the flight empty;
//! - Nagle was off (RFC 896 holds a small segment while small data is unacknowledged,
//!   which would make the wait the stack's, stalls/nagle_shape.rs): at least
//!   [`NAGLE_OFF_SHARE`] of the small segments left while the previous small segment was
//!   still unacknowledged.
//!
//! Then the write-ended intervals' `other` time (`TimeShares::other_written`) is the
//! application's, told with write_ends.rs's words (sender_paced_words.rs `Writes`).

use super::write_ends::Writes;
use super::TimeShares;

/// Share of the new data segments below half a full segment: most of them.
pub const SMALL_SHARE: f64 = 0.5;
/// The largest flight at most this share of the receiver's smallest window.
pub const WINDOW_SHARE: f64 = 0.25;
/// The largest flight at most this many full segments: RFC 6928's initial window.
pub const IW_SEGMENTS: f64 = 10.0;
/// Share of the active time with everything acknowledged and nothing sent.
pub const DRAINED_SHARE: f64 = 0.2;
/// Share of the small segments sent behind another unacknowledged small one.
pub const NAGLE_OFF_SHARE: f64 = 0.1;

/// What sender_paced.rs counted over the transfer's new data segments.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub segments: usize,
    /// Below half a full segment.
    pub small: usize,
    /// Small and sent while the previous new segment, also small, was unacknowledged.
    pub small_behind_small: usize,
    /// The largest bytes in flight at a new data segment.
    pub max_flight: f64,
}

/// The write-ended intervals were the application's (module comment): `writes` is
/// write_ends.rs's count without its timing guard, `full` a full segment's payload.
pub fn judge(writes: Option<Writes>, c: &Counts, full: f64, sh: &TimeShares) -> Option<Writes> {
    let w = writes?;
    let n = c.segments as f64;
    let no_loss = sh.retransmitted_segments == 0 && sh.loss <= 0.0;
    let small = c.small as f64 >= SMALL_SHARE * n;
    let below = sh.windows_trusted && c.max_flight <= WINDOW_SHARE * sh.min_window && c.max_flight <= IW_SEGMENTS * full;
    let drained = sh.application >= DRAINED_SHARE * sh.active;
    let nagle_off = c.small_behind_small as f64 >= NAGLE_OFF_SHARE * c.small as f64;
    let most = sh.other_written >= super::write_ends::MOST_OF_OTHER * sh.other;
    (n > 0.0 && no_loss && small && below && drained && nagle_off && most).then_some(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Si-ren ssh.pcap #2's numbers (review AL row 11): 1,055 new segments, 695 below half
    /// of the 1,440-B full segment, 307 of them behind an unacknowledged small one, the
    /// flight at most 11,524 B of a 124,480-B smallest window; 0.085 s of 0.204 s with
    /// everything acknowledged, 0.113 s of the 0.119 s `other` after a write's end.
    fn ssh() -> (Writes, Counts, TimeShares) {
        let w = Writes { segments: 1055, ends: 1041, whole: 14, tail: 380.0, full: 1440.0 };
        let c = Counts { segments: 1055, small: 695, small_behind_small: 307, max_flight: 11_524.0 };
        let sh = TimeShares { active: 0.204, application: 0.085, other: 0.119, other_written: 0.113, windows_trusted: true, min_window: 124_480.0, ..Default::default() };
        (w, c, sh)
    }

    #[test]
    fn interactive_writes_are_unqueued() {
        let (w, c, sh) = ssh();
        assert_eq!(judge(Some(w), &c, 1440.0, &sh), Some(w));
    }

    #[test]
    fn each_look_alike_is_refused() {
        let (w, c, sh) = ssh();
        // A loss the sender repaired: a backlog may have waited on the recovery.
        assert_eq!(judge(Some(w), &c, 1440.0, &TimeShares { retransmitted_segments: 1, ..sh.clone() }), None);
        // Mostly full segments (a bulk transfer): 500 of 1,055 small is below half.
        assert_eq!(judge(Some(w), &Counts { small: 500, ..c }, 1440.0, &sh), None);
        // The flight reached the window (a tiny window held it): 11,524 > 1/4 of 40,000.
        assert_eq!(judge(Some(w), &c, 1440.0, &TimeShares { min_window: 40_000.0, ..sh.clone() }), None);
        // Above ten full segments: a congestion window may have held it.
        assert_eq!(judge(Some(w), &Counts { max_flight: 14_401.0, ..c }, 1440.0, &sh), None);
        // An untrusted window (scale unknown) shows no room.
        assert_eq!(judge(Some(w), &c, 1440.0, &TimeShares { windows_trusted: false, ..sh.clone() }), None);
        // The flight never drained (0.04 s of 0.204 s is below a fifth): a backlog may have kept it full.
        assert_eq!(judge(Some(w), &c, 1440.0, &TimeShares { application: 0.04, ..sh.clone() }), None);
        // Nagle on: 69 of 695 small segments behind a small one is below a tenth.
        assert_eq!(judge(Some(w), &Counts { small_behind_small: 69, ..c }, 1440.0, &sh), None);
        // Most `other` time after whole segments, not write ends.
        assert_eq!(judge(Some(w), &c, 1440.0, &TimeShares { other_written: 0.05, ..sh.clone() }), None);
        // No write ends counted (write_ends.rs: fewer than 32, or no whole segment: a small-MSS path).
        assert_eq!(judge(None, &c, 1440.0, &sh), None);
    }
}
