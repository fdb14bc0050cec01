//! A segment sent twice back to back (docs/ANALYSIS.md "Retransmission kinds",
//! `backToBackDuplicates`): the copy of the highest segment sent, less than
//! [`TIMER_FLOOR_NS`] after it, with no feedback of the receiver between the two.
//!
//! Nothing of loss recovery sends that. A fast retransmission needs the receiver's
//! report of a hole (RFC 5681 §3.2 the third duplicate ACK, RFC 6675 §5 SACKed data
//! above it), and no report about the highest segment can come back before one round
//! trip after it; RACK marks a segment lost only when one sent after it is acknowledged
//! (RFC 8985 §6.2), and nothing was sent after the highest; a tail loss probe waits
//! 2·SRTT (RFC 8985 §7.2, Linux ≥ 2 ms more) and a retransmission timeout at least
//! 200 ms (Linux; RFC 6298 §2.4 1 s; a data centre's lowered floor a few ms): no timer
//! fires within [`TIMER_FLOOR_NS`]. So the second copy is the sender's (or a layer below
//! its TCP's) own duplicate — a proactive copy of a response's tail, as CDNs send to spare
//! the probe's round trip (Flach et al., "Reducing Web Latency: the Virtue of Gentle
//! Aggression", SIGCOMM 2013) — not a loss signal: it is counted apart from the
//! recovery kinds and leaves the loss state as it was. An exact copy the capture set-up
//! made (the same IPv4 Identification) never gets here (analysis/capture/duplicates.rs);
//! these are two datagrams (moudie wireshark-labs-IT-520 `lab8 (2).pcapng` connection 13:
//! IDs 0x6724/0x6725, 2 µs apart, on a 3.3 ms path, each second copy D-SACKed; once
//! counted "fast 2, tail-loss probes 2").
//!
//! "Less than 1 ms after" is by the capture's clock, which may not be the packets' own
//! (timing/ts_clock_check.rs). Where both copies carry TCP timestamps, the sender's own
//! clock says when each left it (RFC 7323 §3: TSval is the sender's clock when it sent
//! the segment, one tick 1 ms – 1 s, §5.4): copies sent back to back carry the same
//! TSval, or one tick apart if the clock ticked between them. A re-send whose TSval moved
//! two ticks or more left the sender at least one whole tick after its original — a
//! probe or timer's re-send the capture squeezed next to it, not a copy ([`SenderClockApart`]:
//! Carperis WebRTC_Testbench "messenger case 7 caller" frames 643/644, 24 µs apart in the
//! capture, TSval 1579817032 → 1579817095: 63 ms of the sender's 1 kHz clock, each
//! answered by its own ACK echoing it). And on a connection whose capture clock is proven
//! not to follow the packets (verdict/broken_clock.rs) no gap of the capture's tells
//! "back to back": the kind is not given there, and the re-send is classified as the
//! others are. Without timestamps the capture's gap stands (the two datagrams' distinct
//! IPv4 Identifications show two sends: lab8 (2) above; MuhammadRamadhanil TCP.pcapng
//! connection 16, frames 371/372, 377 µs apart, IDs 0xb2dd/0xb2de, no TS option).

use super::timer_driven::TIMER_FLOOR_NS;

/// The TSval of the segment that last advanced SND.NXT — the original of a back-to-back
/// copy — 0 when it carried none (RFC 7323 allows a TSval of 0: such an original is then
/// judged by the capture's gap alone). 8 bytes more in `RetransKinds` (its size:
/// run/analyzer_tests.rs `per_connection_state_is_small`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderClockApart(u32);

/// The bit of a record's flags (retrans_kinds.rs `hole_reported_before`): the re-send and
/// its original carry TSvals ≥ 2 ticks apart, or the capture's clock does not follow the
/// packets ([`all_apart`]): it is no back-to-back copy.
pub const APART: u8 = 2;

impl SenderClockApart {
    /// A segment of this side advanced SND.NXT, carrying `tsval`.
    pub fn on_new_data(&mut self, tsval: Option<u32>) {
        self.0 = tsval.unwrap_or(0);
    }

    /// A retransmission record is kept, its segment carrying `tsval`: its [`APART`] bit.
    pub fn on_resend(&self, tsval: Option<u32>) -> u8 {
        if ticks_apart(Some(self.0).filter(|&v| v != 0), tsval).is_some_and(|m| m >= 2) { APART } else { 0 }
    }
}

/// Whether a record with these flags may be a back-to-back copy by the sender's clock.
pub fn may_be_copy(flags: u8) -> bool {
    flags & APART == 0
}

/// A connection whose capture clock is proven not to follow the packets
/// (verdict/broken_clock.rs, set before the classification: run/analyzer.rs): no gap of
/// the capture's makes any of its re-sends a back-to-back copy.
pub fn all_apart(flags: &mut [u8]) {
    flags.iter_mut().for_each(|f| *f |= APART);
}

/// How many ticks of the sender's TS clock lie between two of its TSvals (RFC 7323 §5.2's
/// wrap-aware arithmetic: the shorter way round the 2³² circle), if both are known.
pub fn ticks_apart(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    let (a, b) = (a?, b?);
    Some((b.wrapping_sub(a) as i32).unsigned_abs())
}

/// Whether a re-send is a back-to-back duplicate: it ends exactly at the highest byte
/// sent before it (`to_high`: it carries no new byte and reaches the end of the last
/// new data, which is so its original), `since_original_ns` after the segment that first reached that end (the sender's
/// last new data), and `feedback_between` says whether the receiver's feedback (an ACK,
/// SACK or duplicate ACK) was captured between the two. 0 is no duplicate: the re-send
/// itself made the last advance (bytes the capture never saw before it: a Windows
/// re-send that grows by the data written since, corelight asyncrat `9596cf60…pcap`
/// connection 26, each of 7 timeouts 167 → 1,361 B), or it shares its original's
/// timestamp, which then tells nothing. A SYN is never one (only its timer re-sends it,
/// RFC 6298 §5.7).
pub(crate) fn back_to_back_duplicate(to_high: bool, since_original_ns: i64, feedback_between: bool, syn: bool) -> bool {
    to_high && !syn && !feedback_between && (1..TIMER_FLOOR_NS).contains(&since_original_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_before_any_timer_and_any_feedback() {
        const US: i64 = 1_000;
        // lab8 (2) f1508/f1509: 2 µs apart, no ACK between.
        assert!(back_to_back_duplicate(true, 2 * US, false, false));
        // A tail loss probe comes 2·SRTT + ≥ 2 ms later (f831, 6.5 ms after f827): not one.
        assert!(!back_to_back_duplicate(true, 6_531 * US, false, false));
        // Feedback between (a partial ACK may clock the next hole), a lower segment, a SYN.
        assert!(!back_to_back_duplicate(true, 2 * US, true, false));
        assert!(!back_to_back_duplicate(false, 2 * US, false, false));
        assert!(!back_to_back_duplicate(true, 2 * US, false, true));
        // The re-send itself advanced SND.NXT (grown by new bytes): no original to copy.
        assert!(!back_to_back_duplicate(true, 0, false, false));
    }

    #[test]
    fn the_senders_clock_must_not_have_moved_two_ticks() {
        let mut k = SenderClockApart::default();
        // Carperis case 7 caller #10 fr643 → fr644: TSval 1579817032 → 1579817095, 63 ticks.
        k.on_new_data(Some(1_579_817_032));
        let mut flags = vec![k.on_resend(Some(1_579_817_095))];
        // The same TSval (sent within one tick), or the clock ticking once between them.
        flags.push(k.on_resend(Some(1_579_817_032)));
        flags.push(k.on_resend(Some(1_579_817_033)));
        // No timestamp on the re-send: the capture's gap stands (moudie lab8 (2) #13).
        flags.push(k.on_resend(None));
        // Bit 0 (a hole reported before it) is another fact's: left alone.
        flags.push(1);
        assert_eq!(flags.iter().map(|&f| may_be_copy(f)).collect::<Vec<_>>(), [false, true, true, true, true]);
        // Across the wrap: u32::MAX → 1 is 2 ticks.
        assert_eq!(ticks_apart(Some(u32::MAX), Some(1)), Some(2));
        assert_eq!(ticks_apart(Some(5), None), None);
        // A clock proven not to follow the packets gives no copy at all.
        all_apart(&mut flags);
        assert!(flags.iter().all(|&f| !may_be_copy(f)) && flags[4] == 1 | APART);
    }
}
