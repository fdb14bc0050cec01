//! Where the transfer ended (issue 39 review L class C-TAIL): the time a connection
//! idled after its bulk data, before a last small exchange or its close, is the
//! connection's, not the transfer's. A persistent connection (HTTP keep-alive, a TLS
//! session that sends its close_notify when the user leaves the page, a gRPC channel
//! pinged every minute) stays open after its data has moved; counting that idle as the
//! transfer's own time made a 2.1 MB download that took 0.34 s read "the applications
//! limited this flow: 76 % of the time … would have taken about 295 ms instead of
//! 1.2 s", because 0.87 s of waiting for the client's next request followed it.
//!
//! The rule, from the pauses the share pass already found (an `application-idle`
//! stall: everything sent acknowledged and nothing sent for longer than the stall
//! threshold, so the sender had nothing to send — stalls/gaps.rs):
//! the transfer ends at the last data segment before the earliest such pause P after
//! which
//! - at most [`TAIL_SHARE`] of the direction's new payload bytes were still to come,
//!   and fewer than [`BULK_MIN_SEGMENTS`] full segments: a message, not a transfer of its
//!   own (a keep-alive connection's next response of a few kB is one: the pause before
//!   it stays the transfer's, judged as before), and
//! - the burst that P ended (the new bytes since the previous idle stall, or since the
//!   first segment) carried at least [`BULK_OVER_TAIL`] times those bytes, and at least
//!   [`BULK_MIN_SEGMENTS`] full segments (the peer's MSS: `time_shares_full`): below
//!   that it was a message, not a transfer (savings.rs `MESSAGE_SEGMENTS`, the same
//!   line), and a conversation of messages has no transfer to end;
//!
//! - and nothing after P was trouble: no re-send (needless or not) and no stall of a
//!   cause other than `application-idle` (a timer's re-sends after the pause, a window
//!   that closed): a connection that failed after its transfer did not idle, and its
//!   loss stays in the shares.
//!
//! The first two are both needed: the first says the bulk had moved; the second that what ended at P
//! was a transfer and what followed was a smaller thing (a request's answer, a
//! close_notify, a keep-alive message), so an exchange of like-sized messages (keystrokes,
//! polls, a measurement stream), whose pauses are the conversation itself, is never
//! cut, nor a persistent connection whose later responses are real transfers (a
//! response of more than [`TAIL_SHARE`] of the bytes after the pause keeps every pause
//! before it in the shares, judged as before). The earliest such pause: a tail of several
//! small exchanges (pings every minute) is all of it the connection's idling.
//!
//! The shares, the savings and the auditor all read the same cut (`TimeShares::
//! transfer_end`, `diagnosis.transferEnd`); the time after it is reported separately
//! (verdict/transfer_tail.rs).

use crate::analysis::report::TransferEnd;

/// Of the data direction's new payload bytes, at most this share may follow the pause
/// for it to end the transfer: 2 %, a last small exchange beside the bulk (a request's
/// few-hundred-byte answer after megabytes, a 31-byte TLS close_notify).
pub const TAIL_SHARE: f64 = 0.02;
/// The burst before the pause must carry at least this many times the bytes after it:
/// an order of magnitude separates a transfer from the exchange that followed it.
pub const BULK_OVER_TAIL: f64 = 10.0;

/// The burst before the pause must carry at least this many full segments: savings.rs's
/// line between a message and a transfer.
pub const BULK_MIN_SEGMENTS: f64 = crate::analysis::verdict::savings::MESSAGE_SEGMENTS;

/// An idle stall the pass closed: a place the transfer may have ended.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pause {
    /// Row and capture time of the last data segment before it.
    pub row: usize,
    pub t: f64,
    /// New payload bytes sent before it, and of them since the previous idle stall.
    pub bytes: f64,
    pub burst: f64,
    /// Its length, and whether it ended with the peer's next message (its data in the
    /// pause's second half, the sender's next data after it).
    pub seconds: f64,
    pub peer_spoke: bool,
}

/// The pauses that can still end the transfer, kept as the pass goes. A pause whose
/// bytes after it already exceed what the rule allows never can again (bytes only
/// grow), so the list stays short: each survivor's burst is ten times the next one's,
/// at most a few dozen in any capture.
#[derive(Default)]
pub(super) struct Candidates {
    kept: Vec<Pause>,
    /// The bytes a tail must stay below: [`BULK_MIN_SEGMENTS`] full segments.
    max_tail: f64,
}

impl Candidates {
    /// `full_segment`: a full segment's payload for this sender.
    pub fn new(full_segment: f64) -> Candidates {
        Candidates { kept: Vec::new(), max_tail: BULK_MIN_SEGMENTS * full_segment }
    }

    /// Forgets every pause: trouble came after them.
    pub fn clear(&mut self) {
        self.kept.clear();
    }

    /// A new idle stall, `sent`: new bytes sent so far (before the segment that ends it).
    pub fn push(&mut self, p: Pause) {
        self.prune(p.bytes);
        self.kept.push(p);
    }

    /// Drops the pauses that `sent` new bytes in all already rule out.
    pub fn prune(&mut self, sent: f64) {
        let max_tail = self.max_tail;
        self.kept.retain(|p| fits(p, sent, max_tail));
    }

    /// The earliest pause that ends the transfer, `total`: the direction's new bytes.
    pub fn choose(mut self, total: f64) -> Option<Pause> {
        self.prune(total);
        self.kept.first().copied()
    }
}

/// `p` still fits the rule when `total` new bytes were sent in all, a tail below
/// `max_tail` bytes.
fn fits(p: &Pause, total: f64, max_tail: f64) -> bool {
    let tail = (total - p.bytes).max(0.0);
    tail <= TAIL_SHARE * total && tail < max_tail && p.burst >= BULK_OVER_TAIL * tail
}

/// Whether the connection idled after the pause `p` that `choose` found, as the tail
/// sentence says (transfer_tail.rs): its longest idle pause from `p` on (`longest_s`: of
/// the direction's `application-idle` stalls that began at its last data segment or
/// after, `p` included) took at least half the time from the transfer's end to the
/// direction's last data segment (`last_data_t`) — not one short pause inside a run of
/// turns that went on, as a PLC's 4 ms polls answered for 176 ms more after a 12 ms
/// pause (review O, s7), nor a conversation of like pauses (a 2 s heartbeat for 14 s);
/// but a few small exchanges before the long idle are the tail all the same, as a
/// browser's three in 5.8 s after its page had loaded, the last before 4.05 s of
/// nothing (review P, ffx: pauses of 0.44, 1.23 and 4.05 s) — and the peer sent under
/// [`BULK_MIN_SEGMENTS`] full segments (`full_segment`) after it (`peer_bytes`): a peer
/// that uploaded 134 KiB after the downloads did not idle (review O, mime).
pub(super) fn connection_idled(p: &Pause, last_data_t: f64, peer_bytes: f64, full_segment: f64, longest_s: f64) -> bool {
    let tail_seconds = (last_data_t - p.t).max(0.0);
    2.0 * longest_s.max(p.seconds) >= tail_seconds && peer_bytes < BULK_MIN_SEGMENTS * full_segment
}

/// The longest of the `application-idle` stalls among `stalls` that began at or after
/// `t` (capture time, the transfer's last data segment), s: the tail's longest idle
/// ([`connection_idled`]).
pub(super) fn longest_idle_from(stalls: &[crate::analysis::stalls::cause::Stall], t: f64) -> f64 {
    use crate::analysis::stalls::cause::StallCause;
    stalls.iter().filter(|s| s.cause == StallCause::ApplicationIdle && s.start >= t).map(|s| s.duration).fold(0.0, f64::max)
}

/// The report's transfer end for the pause `p` chosen, `total`: the direction's new
/// bytes; `frame`: the frame of its last data segment; `last_data_t`: the direction's
/// last data segment (the tail's end).
pub(super) fn transfer_end(p: &Pause, total: f64, frame: u32, last_data_t: f64) -> TransferEnd {
    TransferEnd {
        at: p.t,
        frame,
        bytes: p.bytes,
        idle_seconds: p.seconds,
        peer_spoke: p.peer_spoke,
        tail_bytes: (total - p.bytes).max(0.0),
        tail_seconds: (last_data_t - p.t).max(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pause(bytes: f64, burst: f64) -> Pause {
        Pause { row: 0, t: 0.0, bytes, burst, seconds: 1.0, peer_spoke: true }
    }

    #[test]
    fn the_earliest_pause_after_the_bulk_ends_the_transfer() {
        // 2,174,291 B in one burst, then a 400 B answer after the peer's next request
        // (review L C-TAIL): 400 B ≤ 2 % of 2,174,691 and the burst ≥ 10 × 400.
        let mut c = Candidates::new(1460.0);
        c.push(pause(2_174_291.0, 2_174_291.0));
        let p = c.choose(2_174_691.0).expect("a cut");
        assert_eq!(p.bytes, 2_174_291.0);
        // A bulk of 1 MB, then a 1,000 B message after a pause, then a 31 B close_notify
        // after a second: the first pause, its tail of 1,031 B under 2 %, a tenth and two
        // segments.
        let mut c = Candidates::new(1460.0);
        c.push(pause(1e6, 1e6));
        c.push(pause(1_001_000.0, 1_000.0));
        assert_eq!(c.choose(1_001_031.0).map(|p| p.bytes), Some(1e6));
        // With 10 kB after the bulk (a response of its own, 1 %), the pause before it is
        // no end: only the second one, after which 31 B came, under a tenth of 10 kB.
        let mut c = Candidates::new(1460.0);
        c.push(pause(1e6, 1e6));
        c.push(pause(1_010_000.0, 10_000.0));
        assert_eq!(c.choose(1_010_031.0).map(|p| p.bytes), Some(1_010_000.0));
    }

    #[test]
    fn a_pause_inside_turns_that_went_on_or_before_an_upload_is_no_idling() {
        // s7 (review O): a 12 ms pause at 20.564 s, then 176 ms more of 4 ms turns.
        let p = Pause { row: 0, t: 20.564, bytes: 1e6, burst: 1e6, seconds: 0.012, peer_spoke: true };
        assert!(!connection_idled(&p, 20.740, 0.0, 1460.0, 0.012));
        // dbagal (review L): 0.869 s of a 0.869 s tail idle, the peer's 67 B request.
        let p = Pause { row: 0, t: 0.374, bytes: 2e6, burst: 2e6, seconds: 0.869, peer_spoke: true };
        assert!(connection_idled(&p, 1.243, 67.0, 1460.0, 0.869));
        // mime (review O): the peer uploaded 134 KiB in the tail.
        assert!(!connection_idled(&p, 1.243, 137_216.0, 1460.0, 0.869));
    }

    #[test]
    fn messages_and_later_transfers_are_not_cut() {
        // 100 messages of 100 B, each after an idle stall: the last pause has 100 B
        // after it, 1 % of 10 kB, but its burst is one message, not ten.
        let mut c = Candidates::new(1460.0);
        for k in 1..100 {
            c.push(pause(100.0 * k as f64, 100.0));
        }
        assert!(c.choose(10_000.0).is_none());
        // Keep-alive responses of 1 MB and 60 kB: the second is 5.7 % of the bytes, a
        // transfer of its own: the pause between them stays in the shares.
        let mut c = Candidates::new(1460.0);
        c.push(pause(1e6, 1e6));
        assert!(c.choose(1_060_000.0).is_none());
    }
}
