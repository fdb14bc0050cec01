//! The connection's idle tail after its transfer (diagnosis_shares/transfer_end.rs),
//! said on its own: the shares, the savings and the headline's times end at the
//! transfer's end, and this sentence tells what the connection did after it, so that
//! neither the idle nor the bytes that followed go unmentioned.

use crate::analysis::format::{format_bytes, format_duration, format_timestamp};
use crate::analysis::report::TransferEnd;

/// "The transfer ended at 0.374 s (frame 2107, 2.1 MiB sent); the connection then
/// idled 869 ms until the peer's next message, and only 400 B followed: …".
pub fn sentence(te: &TransferEnd) -> String {
    let until = if te.peer_spoke { "until the peer's next message" } else { "before the sender sent again" };
    // More than the one pause and its answer: say over how long the rest came.
    let over = if te.tail_seconds > TAIL_MORE * te.idle_seconds {
        format!(" over the next {}", format_duration(te.tail_seconds))
    } else {
        String::new()
    };
    format!(
        "The transfer ended at {} (frame {}, {} sent); the connection then idled {} {until}, and only {} followed{over}: \
         time the connection stayed open (waiting for a next request, a keep-alive or the close), not time the transfer \
         took, so everything above is of the transfer up to {}.",
        format_timestamp(te.at),
        te.frame,
        format_bytes(te.bytes),
        format_duration(te.idle_seconds),
        format_bytes(te.tail_bytes),
        format_timestamp(te.at),
    )
}

/// " " and [`sentence`] where the transfer ended before an idle tail, else nothing.
pub fn said(end: Option<&TransferEnd>) -> String {
    end.map_or_else(String::new, |te| format!(" {}", sentence(te)))
}

/// The tail lasted more than this many times its first pause: more than that pause and
/// its answer followed, and the sentence says over how long.
pub const TAIL_MORE: f64 = 1.5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_is_said_with_its_numbers() {
        let te = TransferEnd { at: 0.373922, frame: 2107, bytes: 2_174_291.0, idle_seconds: 0.86944, peer_spoke: true, tail_bytes: 400.0, tail_seconds: 0.86944 };
        assert_eq!(
            sentence(&te),
            "The transfer ended at 0.374 s (frame 2107, 2.1 MiB sent); the connection then idled 869 ms until the peer's next \
             message, and only 400 B followed: time the connection stayed open (waiting for a next request, a keep-alive or the \
             close), not time the transfer took, so everything above is of the transfer up to 0.374 s."
        );
    }
}
