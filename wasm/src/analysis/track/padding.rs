//! Link padding counted in the IP length: zero bytes that are not data (review N,
//! C-PHANTOM; docs/ANALYSIS.md "Link padding inside the IP length").
//!
//! Ethernet pads a frame to its 60-byte minimum (IEEE 802.3 §3.2.7; 46 bytes of payload):
//! a pure ACK of 40 bytes of IPv4 and TCP header goes out with 6 zero bytes after the
//! datagram. The IP total length says where the datagram ends, so the padding is no part
//! of it — unless a box on the way wrote the frame's length into the IP header. That
//! happens: oxidecomputer/opte#367 (a virtual switch rewriting headers set the total
//! length of a padded Windows ACK to 46, and the server read 6 zero bytes as the start
//! of an HTTP request), and nDPI's `heuristic_tcp_ack_payload.pcap`, whose every ACK
//! carries 2 or 6 zero bytes inside its IP length with valid checksums (nDPI ignores
//! them in its TLS dissector since ntop/nDPI#1947, "statistics showed that padding does
//! not depend on the application protocol"). Wireshark counts such bytes as payload
//! (`tcp.len` 2 or 6) and then calls the next real segment, which starts at the same
//! sequence number, a retransmission; so did tcpscope: "a tail loss probe 57.8 s after",
//! "FIN never acknowledged" on an idle TLS connection where nothing was lost.
//!
//! Zero bytes are also real data (a VNC server's 4-byte SecurityResult "OK" is 4 zero
//! bytes in a minimum-size frame), so content alone does not decide. The rule reads the
//! sender's own evidence:
//! - a **zero tail** is the run of zero bytes ending the payload of an IPv4 datagram of
//!   at most 46 bytes (`FrameMeta::zero_tail`, decode/packet.rs): only there can padding
//!   sit inside the IP length;
//! - when the sender's next segment with payload starts inside its last zero tail with a
//!   byte that is not zero, the sender re-used those sequence numbers for other bytes:
//!   the tail was padding. Its bytes are taken back where they are still the sender's
//!   latest (the next segment is then new data, not a retransmission), and from then on
//!   that side's zero tails on new data are padding as they come (a retransmission of
//!   the same zeros, or a reader that acknowledged them, never shows such a re-use);
//! - every segment so read is counted: the `link-padding` warning
//!   (verdict/warnings.rs), never dropped silently.
//!
//! What stays: the first zero tail of each side, before its re-use, was counted as
//! payload (a few bytes in `payloadBytes`), and a side whose padding is never followed
//! by data of its own is never learned (its tails then stay data).

use super::conn::Conn;
use super::sequence::{gt_seq, lt_seq};
use crate::decode::tcp_flags::FIN;
use crate::decode::TcpSegment;

/// Per connection, made at its first zero tail.
#[derive(Default, Debug)]
pub(crate) struct Padding {
    /// The side's zero tails proved padding.
    learned: [bool; 2],
    /// The side's last zero tail (raw sequence numbers, start and end), until its next
    /// segment with payload.
    tail: [Option<(u32, u32)>; 2],
    /// Segments whose zero tail was read as padding (`link-padding`).
    pub segments: u32,
}

impl Conn {
    /// `seg` from side `d` without its padding, when its zero tail is padding (module
    /// doc); None when it is analysed as it is.
    pub(super) fn take_out_padding(&mut self, seg: &TcpSegment, d: usize) -> Option<TcpSegment> {
        let zeros = u32::from(seg.meta.zero_tail);
        if seg.payload_len == 0 || (zeros == 0 && self.padding.is_none()) {
            return None;
        }
        let pad = self.padding.get_or_insert_with(Box::default);
        if let Some((start, end)) = pad.tail[d].take() {
            if seg.meta.bits.lead_nonzero() && !lt_seq(seg.seq, start) && lt_seq(seg.seq, end) {
                pad.learned[d] = true;
                pad.segments += 1;
                // Still the side's latest bytes: they were never sent.
                let fwd = &mut self.sides[d];
                if fwd.ws.nextseq == end {
                    fwd.ws.nextseq = seg.seq;
                    if gt_seq(fwd.ws.maxseqtobeacked, seg.seq) {
                        fwd.ws.maxseqtobeacked = seg.seq;
                    }
                    let (start_rel, end_rel) = (fwd.seq.rel(seg.seq), fwd.seq.rel(end));
                    if fwd.sent_high == Some(end_rel) {
                        fwd.sent_high = Some(start_rel);
                    }
                }
            }
        }
        if zeros == 0 {
            return None;
        }
        let end = seg.seq.wrapping_add(seg.payload_len);
        // Not a zero-window probe (its one byte is data the sender had to send; a FIN
        // is none). A re-send carries the padding again (nDPI's capture re-sends a FIN
        // with its 6 zeros), and a keep-alive stays one without its byte (flags.rs
        // takes 0 or 1 byte at the next sequence number − 1).
        let probe = self.sides[1 - d].last_raw_win == Some(0) && seg.payload_len == 1 && seg.flags & FIN == 0;
        if pad.learned[d] && !probe {
            pad.segments += 1;
            let mut stripped = seg.clone();
            stripped.payload_len -= zeros.min(seg.payload_len);
            stripped.meta.zero_tail = 0;
            return Some(stripped);
        }
        pad.tail[d] = Some((end.wrapping_sub(zeros), end));
        None
    }

    /// Segments read as link padding (module doc).
    pub(crate) fn padding_segments(&self) -> u32 {
        self.padding.as_ref().map_or(0, |p| p.segments)
    }
}
