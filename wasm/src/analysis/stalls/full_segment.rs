//! A full segment's payload for one sender (docs/ANALYSIS.md "Full segment"): the unit
//! of "full segments", of Nagle's "smaller than a full segment" and of every threshold
//! counted in segments (the transfer's end, the bulk bursts, the messages).
//!
//! RFC 9293 §3.7.1: the effective send MSS is the smaller of the MSS the *peer*
//! announced and what the sender's own interface carries (its MTU less the IP and TCP
//! headers). The capture holds the peer's option (the handshake) and the sender's own
//! segments; the sender's own limit shows where it cut a write: a segment followed at
//! once by the next bytes of the same stream (before any ACK of it came back, so no ACK
//! released the second) was as large as the sender could make it. The common size of
//! such cut segments, no larger than the peer's MSS, is the sender's full segment; a
//! frame above it is a TSO/GSO/GRO super-frame of several. An AWS host announcing a
//! jumbo 8,961 to a Google server whose own MSS is 1,430 receives segments of 1,418 B
//! (p4-team ctf `greatescape1.pcap`): counted in 8,921-B "full segments", a burst of 98
//! segments read "16 segments of 8.7 KiB".

use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::is_data_segment;
use crate::analysis::track::handshake::Handshake;

/// Option bytes a segment may carry (timestamps, SACK: up to 40), taken off the peer's
/// MSS where the sender's own segments do not show its size.
const OPTION_BYTES: u32 = 40;

/// The least payload taken as a sender's own full size: RFC 9293 §3.7.1's default send
/// MSS (536 B, a 576-byte datagram every host accepts). Smaller cut segments are writes
/// sent back to back (a header, then its body), not the interface's limit.
const LEAST_OWN_SIZE: u32 = 536;

/// Cut segments of one size needed before that size is the sender's own: one could
/// be a write that happened to be followed by the next.
const LEAST_CUTS: u32 = 2;

/// A full segment's payload for `sender` (direction `dir` of `p`): where the
/// handshake gave the peer's MSS option, the sender's own full size as its segments
/// show it ([`own_full_size`], at most that MSS), else that MSS less 40 option bytes
/// (RFC 9293 §3.7.1: the MSS counts no options; timestamps and SACK take up to 40);
/// without the option, `largest_payload` (the caller's largest segment).
pub fn full_segment(handshake: &Handshake, sender: &str, p: &PacketColumns, dir: u8, largest_payload: u32) -> u32 {
    let peer_mss = [&handshake.syn, &handshake.syn_ack].into_iter().flatten().find(|o| o.from != sender).and_then(|o| o.mss);
    match peer_mss {
        Some(m) => own_full_size(p, dir, u32::from(m)).unwrap_or_else(|| u32::from(m).saturating_sub(OPTION_BYTES)),
        None => largest_payload,
    }
}

/// The payload size at which direction `dir` cut its writes: the most common size (the
/// larger on a tie) of its data segments of [`LEAST_OWN_SIZE`] (or `cap`, if smaller)
/// up to `cap` bytes that were followed by its next data segment starting where they
/// ended, with no ACK of them captured between — at least [`LEAST_CUTS`] of them. None
/// when no size was cut that often (messages each sent alone, or every frame a
/// super-frame above `cap`).
pub fn own_full_size(p: &PacketColumns, dir: u8, cap: u32) -> Option<u32> {
    let floor = LEAST_OWN_SIZE.min(cap);
    let mut counts: std::collections::BTreeMap<u32, u32> = std::collections::BTreeMap::new();
    // The sender's last data segment while no ACK has covered it: (end, payload).
    let mut open: Option<(f64, u32)> = None;
    for i in 0..p.t.len() {
        if p.dir[i] != dir {
            if open.is_some_and(|(end, _)| p.ack[i] >= end) {
                open = None;
            }
            continue;
        }
        if !is_data_segment(p, i, dir) {
            continue;
        }
        if let Some((end, len)) = open {
            if p.seq[i] == end && (floor..=cap).contains(&len) {
                *counts.entry(len).or_insert(0) += 1;
            }
        }
        open = Some((p.seq[i] + f64::from(p.len[i]), p.len[i]));
    }
    counts.into_iter().filter(|c| c.1 >= LEAST_CUTS).max_by_key(|&(len, n)| (n, len)).map(|c| c.0)
}
