//! A side's closing message (docs/ANALYSIS.md "Closing message"; issue 39 review T
//! classes C-CLOSE-NOTIFY-EXTENDS-TRANSFER and C-IDLE-BEFORE-CLOSE-UNTOLD): the few
//! bytes an application sends as it closes, just before or with its FIN — TLS's
//! close_notify (RFC 8446 §6.1: one alert record, 24–31 B encrypted), an SSH
//! disconnect, a protocol's "bye". It ends the connection, not the transfer: a browser
//! that closes a keep-alive connection after 4.8 s of nothing sends its close_notify and
//! its FIN together, and counting that close_notify as the client's next message made
//! the idle before it read as the transfer's turn time (stuff: "7.3 s instead of 8 s"),
//! and made the 300 s a connection stayed open before its close go untold (surf).
//!
//! The rule reads no payload (any protocol closes this way): the side's last data
//! segment is a closing message where
//! - it carries at most [`CLOSE_MAX_BYTES`] (one small record: a TLS 1.2 AES-GCM
//!   close_notify is 31 B, TLS 1.3's 24 B, CBC with SHA-1 53 B),
//! - its side's FIN or reset came with it or within `within_s` after it (the stall
//!   threshold: no pause between them; the message and the FIN are one act of closing,
//!   and a side that waits one round trip for its peer's close_notify stays within it),
//! - it stands alone: the side's previous data came more than `within_s` before it
//!   (the last bytes of a longer message, sent with the FIN, are no closing message),
//! - and everything the side sent before it had been acknowledged (the peer's highest
//!   ACK before it reached its first byte): a side closing an idle connection, not one
//!   giving up on data outstanding (a server's alert and reset 3 s after its client
//!   stopped acknowledging 24 KiB is an abort, told by the ending as such).

use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::decode::tcp_flags::{FIN, RST, SYN};

/// The most payload a closing message carries: one small record.
pub const CLOSE_MAX_BYTES: u32 = 64;

/// A payload segment that is data: no keep-alive, zero-window probe, SYN or reset.
fn is_data(p: &PacketColumns, i: usize) -> bool {
    p.len[i] > 0 && p.flags[i] & (flag_bits::ZERO_WINDOW_PROBE | flag_bits::KEEP_ALIVE) == 0 && p.flags[i] & u32::from(RST | SYN) == 0
}

/// Each direction's closing message (see the module doc), as its row: `within_s`, the
/// connection's stall threshold.
pub fn closing_rows(p: &PacketColumns, within_s: f64) -> [Option<usize>; 2] {
    [0u8, 1].map(|d| {
        let mut rows = (0..p.t.len()).rev().filter(|&i| p.dir[i] == d && is_data(p, i));
        let last = rows.next()?;
        let previous = rows.next();
        let close = (last..p.t.len()).find(|&i| p.dir[i] == d && p.flags[i] & u32::from(FIN | RST) != 0)?;
        let alone = previous.is_none_or(|i| p.t[last] - p.t[i] > within_s);
        // Unanswered: no data of the peer's between it and the side's close. A message the
        // peer answered with data was a request, and the side's FIN answered the peer's
        // (review W, nDPI ssh_unidirectional #0: the client's "\r\n", the server's
        // "Protocol mismatch." and FIN, then the client's FIN 297 µs later).
        let unanswered = !(last + 1..close).any(|j| p.dir[j] != d && is_data(p, j));
        // Everything the side sent before it was acknowledged: an idle side closing, not
        // one aborting with data outstanding (an alert and a reset after a peer went away).
        let acked = (0..last).filter(|&j| p.dir[j] != d).map(|j| p.ack[j]).fold(f64::NEG_INFINITY, f64::max) >= p.seq[last];
        (p.len[last] <= CLOSE_MAX_BYTES && p.t[close] - p.t[last] <= within_s && alone && unanswered && acked).then_some(last)
    })
}

/// Whether row `i` is a data segment that is no closing message (`closing`:
/// [`closing_rows`]): the data a connection's transfer and its open time are told by.
pub fn is_data_not_closing(p: &PacketColumns, closing: [Option<usize>; 2], i: usize) -> bool {
    is_data(p, i) && !closing.contains(&Some(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows (t, dir, len, flags) as the columns hold them, each side's sequence numbers
    /// from 0, every row acknowledging all the peer sent before it.
    fn cols(rows: &[(f64, u8, u32, u8)]) -> PacketColumns {
        let mut p = PacketColumns::default();
        let mut next = [0.0f64; 2];
        for (k, &(t, d, len, f)) in rows.iter().enumerate() {
            p.t.push(t);
            p.dir.push(d);
            p.frame.push(k as u32 + 1);
            p.seq.push(next[usize::from(d)]);
            next[usize::from(d)] += f64::from(len);
            p.len.push(len);
            p.wire_len.push(len + 54);
            p.ack.push(next[usize::from(1 - d)]);
            p.win.push(65535.0);
            p.in_flight.push(0.0);
            p.flags.push(u32::from(f));
        }
        p
    }

    #[test]
    fn a_close_notify_with_its_fin_is_a_closing_message() {
        use crate::decode::tcp_flags::ACK;
        // stuff (review T): the server's last answer of 485 B at 81.799 s; 4.77 s later
        // the client's 31-B close_notify and, 8 µs after it, its FIN; the server's 31-B
        // alert with its FIN 23 ms later. Both 31-B records are closing messages (≤ 64 B,
        // the FIN within the 10 ms threshold or with it, the side's previous data 0.5 s
        // and 4.8 s before); the 485-B answer is not.
        let p = cols(&[
            (81.783858, 0, 99, ACK),
            (81.798871, 1, 717, ACK),
            (81.799111, 1, 485, ACK),
            (86.565357, 0, 31, ACK),
            (86.565365, 0, 0, ACK | FIN),
            (86.588197, 1, 31, ACK | FIN),
        ]);
        assert_eq!(closing_rows(&p, 0.010), [Some(3), Some(5)]);
        assert!(!is_data_not_closing(&p, closing_rows(&p, 0.010), 3) && is_data_not_closing(&p, closing_rows(&p, 0.010), 2));
        // The FIN 20 ms after the message, past the threshold: no closing message.
        let p = cols(&[(1.0, 1, 1000, ACK), (9.0, 0, 31, ACK), (9.020, 0, 0, ACK | FIN)]);
        assert_eq!(closing_rows(&p, 0.010), [None, None]);
        // 2 B answered by the peer's 19 B and FIN, the side's FIN after them: a request,
        // not a close (ssh_unidirectional); the peer's 19 B with its FIN, 322 ms after its
        // previous data, are its closing message.
        let p = cols(&[(0.224, 1, 41, ACK), (0.546, 0, 2, ACK), (0.548, 1, 19, ACK), (0.5481, 1, 0, ACK | FIN), (0.5484, 0, 0, ACK | FIN)]);
        assert_eq!(closing_rows(&p, 0.010), [None, Some(2)]);
        // 40 B sent with the FIN 1 ms after 1,000 B: the end of a longer message.
        let p = cols(&[(1.000, 1, 1000, ACK), (1.001, 1, 40, ACK | FIN)]);
        assert_eq!(closing_rows(&p, 0.010), [None, None]);
        // 65 B with the FIN: more than one small record.
        let p = cols(&[(1.0, 1, 1000, ACK), (5.0, 1, 65, ACK | FIN)]);
        assert_eq!(closing_rows(&p, 0.010), [None, None]);
        // 31 B with the FIN 4 s after 1,000 B: a close once the peer's ACK covered the
        // 1,000 B, an abort while they were outstanding (the peer's ACK left at 0).
        let mut p = cols(&[(1.0, 1, 1000, ACK), (1.1, 0, 0, ACK), (5.0, 1, 31, ACK | FIN)]);
        assert_eq!(closing_rows(&p, 0.010), [None, Some(2)]);
        p.ack[1] = 0.0;
        assert_eq!(closing_rows(&p, 0.010), [None, None]);
    }
}
