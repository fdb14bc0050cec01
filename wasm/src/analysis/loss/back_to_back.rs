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

use super::timer_driven::TIMER_FLOOR_NS;

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
}
