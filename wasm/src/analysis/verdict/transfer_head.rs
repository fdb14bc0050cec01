//! The connection's head of small messages before its transfer
//! (diagnosis_shares/transfer_head.rs), said on its own: the shares, the savings and
//! the headline's times begin at the bulk phase, and this sentence tells what the
//! connection did before it, as transfer_tail.rs tells the idle after it.

use crate::analysis::format::{format_bytes, format_duration, format_timestamp};
use crate::analysis::verdict::diagnosis_shares::transfer_head::TransferStart;

/// " The transfer began at 19.018 s (frame 1700) and carried 99 % of the sender's bytes;
/// the 5.1 s before it were the two applications' messages (…), so everything above
/// is of the transfer from 19.018 s." where the head was cut, else nothing.
pub fn said(start: Option<&TransferStart>) -> String {
    start.map_or_else(String::new, |s| format!(" {}", sentence(s)))
}

/// The head sentence of [`said`].
pub fn sentence(s: &TransferStart) -> String {
    let share = (s.bulk_share * 100.0).floor().min(99.0);
    let messages = |n: u32, whose: &str| format!("{n} {}{whose}", if n == 1 { "message" } else { "messages" });
    format!(
        "The transfer began at {at} (frame {}) and carried {share:.0} % of the sender's bytes; the {} before it were the two \
         applications' messages ({}, {}, {} in all), whose pauses were the exchange's own, not the transfer's, so everything \
         above is of the transfer from {at}.",
        s.frame,
        format_duration(s.head_seconds),
        messages(s.own_messages, " of the sender"),
        messages(s.peer_messages, " of the peer"),
        format_bytes(s.head_bytes),
        at = format_timestamp(s.at),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_is_said_with_its_numbers() {
        let s = TransferStart { at: 19.017_9, frame: 1700, head_seconds: 5.081, own_messages: 5, peer_messages: 6, head_bytes: 3200.0, bulk_share: 0.995 };
        assert_eq!(
            sentence(&s),
            "The transfer began at 19.018 s (frame 1700) and carried 99 % of the sender's bytes; the 5.1 s before it were the \
             two applications' messages (5 messages of the sender, 6 messages of the peer, 3.1 KiB in all), whose pauses were \
             the exchange's own, not the transfer's, so everything above is of the transfer from 19.018 s."
        );
    }
}
