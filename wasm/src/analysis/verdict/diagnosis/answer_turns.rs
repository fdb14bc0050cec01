//! Which of the peer's messages hand the turn to the sender, and where an answer ends
//! (docs/ANALYSIS.md "The answer came …"; issue 39 review Z class C-PUSH-AS-ANSWER).
//!
//! A server answers; it does not ask. Where the capture holds the SYN and the data's
//! sender sent it (the client, RFC 9293 §3.5), a message of the server that follows
//! the client's own data is the server's reply to it — an HTTP response, a TLS 1.3
//! NewSessionTicket after the client's Finished (RFC 8446 §4.6.1) — not a request:
//! the client's next data, however long after, is its own next request, and the
//! silence before it the client's idle, not "the answer came N s after the peer's
//! message". A server message before any data of the client (a greeting, SMTP or SSH)
//! still asks. Cloudflare's NewSessionTicket (Akhilasamatham wifi.pcapng #9, frame 187,
//! 21 ms after the client's Finished) read "The answer came 19.94 s after the peer's
//! message".
//!
//! The answer's bytes and time are its own: to its last segment before the peer's next
//! message (first_answer.rs `answer_wait_sentence`), never across later turns ("the 12
//! KiB of data then took 17 s" joined two requests sent 17 s apart, each in under 2 ms).

use crate::analysis::report::ConnectionSummary;

/// Whether the data's sender `d` opened the connection: the capture holds its SYN.
pub fn sender_opened(conn: &ConnectionSummary, d: u8) -> bool {
    conn.handshake.syn.as_ref().is_some_and(|s| u8::from(s.from != conn.endpoints[0]) == d)
}

