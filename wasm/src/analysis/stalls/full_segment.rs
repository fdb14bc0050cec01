//! A full segment's payload for one sender (docs/ANALYSIS.md "Full segment"): the unit
//! of "full segments", of Nagle's "smaller than a full segment" and of every threshold
//! counted in segments (the transfer's end, the bulk bursts, the messages).
//!
//! RFC 9293 §3.7.1: the effective send MSS is the smaller of the MSS the *peer*
//! announced and what the sender's own interface carries (its MTU less the IP and TCP
//! headers). The capture holds the peer's option (the handshake) and the sender's own
//! segments. A host announces in its own MSS option what its interface receives (RFC
//! 9293 §3.7.1, MMS_R), and sends through the same interface: the smaller option bounds
//! the segment; the sender's own segments show the option bytes below that bound, where
//! it cut a write (a segment followed at once by the next bytes of the stream, before
//! any ACK of it came back, was as large as the sender could make it). A frame above
//! the full segment is a TSO/GSO/GRO super-frame of several. An AWS host announcing a
//! jumbo 8,961 to a Google server whose own MSS is 1,430 receives segments of 1,418 B
//! (p4-team ctf `greatescape1.pcap`): counted in 8,921-B "full segments", a burst of 98
//! segments read "16 segments of 8.7 KiB".

use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::rows::columns::flag_bits;
use crate::analysis::track::handshake::Handshake;

/// Option bytes a segment may carry (timestamps, SACK: up to 40), taken off the peer's
/// MSS where the sender's own segments do not show its size.
const OPTION_BYTES: u32 = 40;

/// Cut segments of one size needed before a size above the sender's own option is
/// taken for its own: one could be a write that happened to be followed by the next.
/// Within 40 bytes below the bound one cut is enough: a write that happened to end there
/// and be followed at once by the next is as unlikely as it would be harmless.
const LEAST_CUTS_ABOVE: u32 = 2;

/// A full segment's payload for `sender` (direction `dir` of `p`), where the handshake
/// gave the peer's MSS option: the smaller of that option and the sender's own (its
/// interface's limit, RFC 9293 §3.7.1) — less the option bytes its segments carry, as
/// its own cut segments show them ([`common_cut`] within 40 bytes below that bound),
/// else less 40 (timestamps and SACK take up to 40). A sender seen cutting its writes
/// above its own option (an option clamped on the way) is taken at that size, up to the
/// peer's. Without the peer's option, `largest_payload` (the caller's largest segment).
/// A size the sender's writes happen to have (an application writing 1,024-byte
/// chunks with TCP_NODELAY, a VNC server) is no interface limit: only the options bound
/// the segment from above.
pub fn full_segment(handshake: &Handshake, sender: &str, p: &PacketColumns, dir: u8, largest_payload: u32) -> u32 {
    let options = [&handshake.syn, &handshake.syn_ack];
    let mss_of = |own: bool| options.into_iter().flatten().find(|o| (o.from == sender) == own).and_then(|o| o.mss).map(u32::from);
    let Some(peer) = mss_of(false) else { return largest_payload };
    let bound = mss_of(true).map_or(peer, |own| own.min(peer));
    match common_cut(p, dir, (DEFAULT_MSS.min(peer), peer), LEAST_CUTS_ABOVE) {
        Some(c) if c > bound => c,
        _ => common_cut(p, dir, (bound.saturating_sub(OPTION_BYTES), bound), 1).unwrap_or_else(|| bound.saturating_sub(OPTION_BYTES)),
    }
}

/// RFC 9293 §3.7.1's default send MSS where no SYN announced one (RFC 1122 §4.2.2.6: 536 B
/// over IPv4; IPv6's 1,220 is larger): the least a full segment is, and the least payload a
/// cut size counts from. The one copy of this number (nagle_shape, savings, blind_capture).
pub const DEFAULT_MSS: u32 = 536;

/// The payload size at which direction `dir` cut its writes most often (the larger on
/// a tie), among sizes `lo..=hi`: data segments followed by its next data segment
/// starting where they ended, with no ACK of them captured between — at least `least`
/// of them. None when no size in the range was cut that often.
pub fn common_cut(p: &PacketColumns, dir: u8, (lo, hi): (u32, u32), least: u32) -> Option<u32> {
    let mut counts: std::collections::BTreeMap<u32, u32> = std::collections::BTreeMap::new();
    // Speed (issues 41, 43): this walks every packet, and a connection's summary and
    // diagnosis ask ~20 times. A sender cuts nearly all its writes at one size, so
    // the cuts are counted in runs of one size and a run goes into the map when the
    // size changes (the same counts as one map entry per cut); the columns are sliced
    // to one length first, so no row's index is checked per column.
    let mut run: (u32, u32) = (0, 0);
    // The sender's last data segment while no ACK has covered it: (end, payload).
    let mut open: Option<(f64, u32)> = None;
    let n = p.t.len();
    let (dirs, acks, seqs, lens, flags) = (&p.dir[..n], &p.ack[..n], &p.seq[..n], &p.len[..n], &p.flags[..n]);
    for i in 0..n {
        let len = lens[i];
        if dirs[i] != dir {
            if open.is_some_and(|(end, _)| acks[i] >= end) {
                open = None;
            }
            continue;
        }
        // `is_data_segment` (gaps.rs), on the sliced columns.
        if len == 0 || flags[i] & (flag_bits::ZERO_WINDOW_PROBE | flag_bits::KEEP_ALIVE) != 0 {
            continue;
        }
        let seq = seqs[i];
        if let Some((end, cut)) = open {
            if seq == end && (lo..=hi).contains(&cut) {
                if run.1 > 0 && run.0 != cut {
                    *counts.entry(run.0).or_insert(0) += run.1;
                    run.1 = 0;
                }
                run = (cut, run.1 + 1);
            }
        }
        open = Some((seq + f64::from(len), len));
    }
    if run.1 > 0 {
        *counts.entry(run.0).or_insert(0) += run.1;
    }
    counts.into_iter().filter(|c| c.1 >= least).max_by_key(|&(len, n)| (n, len)).map(|c| c.0)
}
