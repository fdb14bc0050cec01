//! A capture that holds no packet without payload (stalls/gaps.rs: the windows are not
//! judged there).

use crate::analysis::rows::columns::PacketColumns;

/// True when no packet of the connection lacks payload: no pure ACK, handshake, FIN or
/// reset is in the capture (a capture filter on payload, a tool that kept only data:
/// the `payload-only` warning). Every ACK the capture then shows rode on the peer's own
/// data, and the ACKs a receiver sends on their own (RFC 1122 §4.2.3.2, RFC 9293
/// §3.8.6.3: at least one for every second full segment) can never appear, so bytes in
/// flight (highest sent − last ACK seen) only grow between the peer's messages and a
/// window "full" by them is nothing the receiver did (issue 39 review Q C-BLIND-CAPTURE:
/// 5.6 s between two data-borne ACKs read "window full 97 %"). The windows are not
/// judged then, as when they are understated (gaps.rs `windows_understated`).
pub fn acks_unseen(cols: &PacketColumns) -> bool {
    !cols.len.is_empty() && cols.len.iter().all(|&l| l > 0)
}
