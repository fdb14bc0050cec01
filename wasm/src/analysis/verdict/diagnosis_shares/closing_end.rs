//! The transfer's end before a close (issue 39 review T class
//! C-CLOSE-NOTIFY-EXTENDS-TRANSFER; docs/ANALYSIS.md "diagnosis.transferEnd"): where the
//! data direction's last data is its closing message (track/ending/closing_message.rs:
//! a TLS close_notify and the like, sent with or just before its FIN) after an idle
//! pause, the transfer ended at its data before that pause. The pause is the
//! connection staying open until the close, not a turn of the transfer: a browser
//! that closed an idle keep-alive connection after 4.77 s sent its 31-B close_notify
//! with its FIN, the server answered with its own, and the 4.77 s read as "the wait for
//! the client's next message" ("7.3 s instead of 8 s" of a 3.25-s exchange, stuff).
//!
//! transfer_end.rs's rule needs a bulk burst before the pause, ten times the bytes
//! after it: a keep-alive connection's last answer of 1.2 KB is none, though nothing but
//! the close followed it. A closing message needs no such weighing: it is no message
//! of the transfer, whatever came before it. The cut is made only where
//! - the data direction sent its closing message after an idle pause (its
//!   `application-idle` stall) from its last other data,
//! - every data segment after that last data, of either side, is a closing message,
//! - and nothing after it was trouble: no re-send of the direction and none of its
//!   stalls of a cause other than `application-idle` (as transfer_end.rs).

use crate::analysis::report::TransferEnd;
use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::cause::{Stall, StallCause};
use crate::analysis::stalls::is_data_segment;
use crate::analysis::track::ending::closing_message::{closing_rows, is_data_not_closing};

/// The transfer's end where the data direction `dir` closed after an idle pause (see
/// the module doc): `new_bytes`, the direction's new payload bytes in all (the whole
/// pass's); `stalls`: the direction's; `within_s`: the stall threshold.
pub(super) fn closing_end(cols: &PacketColumns, dir: u8, stalls: &[Stall], new_bytes: f64, within_s: f64) -> Option<TransferEnd> {
    let closing = closing_rows(cols, within_s);
    let own = closing[usize::from(dir)]?;
    let last = (0..own).rev().find(|&i| is_data_segment(cols, i, dir))?;
    let (t0, t1) = (cols.t[last], cols.t[own]);
    let after = last + 1..cols.t.len();
    let only_closing = after.clone().all(|i| !is_data_not_closing(cols, closing, i));
    let resent = after.clone().any(|i| cols.dir[i] == dir && cols.flags[i] & flag_bits::ANY_RETRANSMISSION != 0);
    let trouble = stalls.iter().any(|s| s.start + s.duration > t0 && s.cause != StallCause::ApplicationIdle);
    // The pause: the direction's idle stall from its last data on (stalls/gaps.rs).
    let pause = stalls.iter().find(|s| s.cause == StallCause::ApplicationIdle && (s.start - t0).abs() <= 1e-6 && s.start + s.duration <= t1 + 1e-6)?;
    if !(only_closing && !resent && !trouble) {
        return None;
    }
    let peer = closing[usize::from(1 - dir)].filter(|&i| i > last && i < own);
    let tail = f64::from(cols.len[own]);
    Some(TransferEnd {
        at: t0,
        frame: cols.frame[last],
        bytes: (new_bytes - tail).max(0.0),
        idle_seconds: pause.duration,
        peer_spoke: peer.is_some(),
        tail_bytes: tail,
        tail_seconds: t1 - t0,
    })
}
