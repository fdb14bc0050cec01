//! A data segment that left its sender's write unfinished: the sender had more bytes
//! queued behind it, so the next data it sent was released by the peer's ACK, not by
//! the peer's message or by its application writing again (docs/ANALYSIS.md "Turns: an
//! ACK-clocked flight is no turn").
//!
//! RFC 1122 §4.2.2.2 and RFC 9293 §3.9.1: a sender sets PSH on the last segment of
//! what it had buffered ("when there is no more queued data to be sent"); RFC 9293
//! §3.8.6.2.1 lets it send a segment shorter than a full one only when all its queued
//! data fits. A new-data segment of a whole number of full segments without PSH
//! (write_ends.rs `whole`, which takes TSO/GRO super-frames) therefore had data queued
//! behind it, and what held that data until the sender's next segment was the
//! congestion window or the receive window, which an ACK opens (RFC 5681 §3, RFC 9293
//! §3.8.6: a sender sends on the ACK that opens room). A peer's message arriving in the
//! same interval (an HTTP server's early "200 OK" while the client's POST body was
//! still in slow start: p4-team ctf 2018-12-15 trendmicro_j1_attack.pcap connection 6,
//! frames 1043 → 1045/1046 → 1048) did not release it: the interval is no
//! request/response turn (issue 39 §8: no turns on one-way transfers). It is read as any
//! other interval with everything acknowledged (diagnosis_shares.rs rule 4a: the time
//! from that ACK to the next data, 31 µs there, is the application's, the rest `other`):
//! where the sender sent long after that ACK, the queued data says nothing of why — a
//! stack that sets PSH only at the close (the Wireshark `tcp-ecn-sample.pcap`, one
//! 536-B segment every ~0.6 s, reviewed as its application's pace: tests/ecn.rs) — so
//! this rule moves no time to `other` itself. A sender whose write ended (PSH, or a short
//! tail) keeps the turn.

use crate::analysis::verdict::diagnosis_shares::write_ends::whole;
use crate::analysis::rows::columns::{flag_bits, PacketColumns};

const PSH: u32 = crate::decode::tcp_flags::PSH as u32;

/// Segment `i` of its sender is new data at the top of what it had sent (`high`: the
/// highest sequence sent up to the next data segment), a whole number (≥ 1) of full
/// segments `full`, without PSH: its sender's write went on past it (module comment).
/// Not an original the path held back behind a later one (the write's PSH tail already
/// sent: public/examples `a44-rr-ackloss-reorder.pcap`, full segments overtaken by their
/// response's last one, then the client's next request, a real turn).
pub(super) fn went_on(cols: &PacketColumns, i: usize, full: f64, high: f64) -> bool {
    let (flags, len) = (cols.flags[i], cols.len[i]);
    len > 0
        && full >= 1.0
        && flags & PSH == 0
        && flags & flag_bits::ANY_RETRANSMISSION == 0
        && cols.seq[i] + f64::from(len) >= high
        && whole(len, full)
}
