//! How many TCP segments a captured data frame held on the wire (review AF, class
//! C-COALESCED-SEGMENT-COUNT; docs/ANALYSIS.md "Segments on the wire").
//!
//! A host capture sees its NIC's or kernel's view: a receiver's GRO (Linux) or RSC
//! (Windows) hands the capture one frame for many arrived segments, a sender's TSO/GSO
//! one frame for many segments still to be cut. No segment on the wire carries more
//! payload than the peer's MSS option allows (RFC 9293 §3.7.1: Eff.snd.MSS ≤ the MSS
//! the receiver announced, less the options every segment carries — RFC 7323 §3: 12
//! bytes of timestamps where both SYNs offered them). A frame above that is several
//! segments: ⌈payload / segment⌉ of them, the segment being the smaller of the two
//! MSS options less those bytes (the sender's own option is its interface's, RFC 9293
//! §3.7.1 MMS_S), or the largest frame the capture shows at or below the bound when
//! that is larger (an option clamped on the way). lvhoaa01 MMT `lab3.pcapng` #5: 16
//! frames of up to 23,232 B from a 1,452-B path were "16 data segments"; 126 were sent.
//! Without the peer's SYN the bound is the most common size of the direction's data
//! frames of at least 536 B (the size its segments were cut at), never below 1,460 (an
//! Ethernet MTU's: a jumbo path's 8,948-B segments are one each), and a larger frame
//! holds ⌈len / that bound⌉.

use super::*;
use crate::analysis::stalls::full_segment::DEFAULT_MSS;
use crate::analysis::stalls::is_data_segment;

/// Timestamp option bytes in every segment where both SYNs offered the option (RFC
/// 7323 §3: 10 bytes, padded to 12).
const TIMESTAMP_BYTES: u32 = 12;

/// One direction's segment size: frames up to `one` are one segment each, larger ones
/// ⌈len / unit⌉.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct WireSegments {
    /// The most payload one segment on the wire can carry.
    pub one: u32,
    /// A full segment's payload on the wire.
    pub unit: u32,
}

impl WireSegments {
    /// The data direction's segment size (module comment).
    pub fn of(f: &Facts) -> WireSegments {
        let d = f.conn.data_direction.min(1);
        of_direction(&f.conn.handshake, &f.conn.directions[d as usize].from, f.rows.packets, d)
    }

    /// The segments a frame of `len` payload bytes held.
    pub fn count(&self, len: u32) -> u64 {
        if len <= self.one {
            1
        } else {
            u64::from(len.div_ceil(self.unit.max(1)))
        }
    }
}

/// The segment size of direction `dir` sent by `sender` (module comment).
pub(super) fn of_direction(handshake: &crate::analysis::track::handshake::Handshake, sender: &str, p: &PacketColumns, dir: u8) -> WireSegments {
    let options = [&handshake.syn, &handshake.syn_ack];
    let stamped = options.iter().all(|o| o.as_ref().is_some_and(|o| o.timestamps));
    let less = if stamped { TIMESTAMP_BYTES } else { 0 };
    let mss_of = |own: bool| options.into_iter().flatten().find(|o| (o.from == sender) == own).and_then(|o| o.mss).map(u32::from);
    let sizes = (0..p.t.len()).filter(|&i| is_data_segment(p, i, dir)).map(|i| p.len[i]);
    let Some(peer) = mss_of(false).filter(|&m| m > 0) else {
        // No option to bound it: the size the sender cut most (the larger on a tie),
        // counted in units of itself (a slightly large unit keeps ⌈⌉ from adding one).
        let mut counts: std::collections::BTreeMap<u32, u32> = std::collections::BTreeMap::new();
        for len in sizes.filter(|&l| l >= DEFAULT_MSS) {
            *counts.entry(len).or_insert(0) += 1;
        }
        let common = counts.iter().max_by_key(|(len, n)| (**n, **len)).map_or(0, |(len, _)| *len);
        let one = common.max(SEGMENT_WITHOUT_HANDSHAKE);
        return WireSegments { one, unit: one };
    };
    let one = peer.saturating_sub(less).max(1);
    let bound = mss_of(true).filter(|&m| m > 0).map_or(peer, |own| own.min(peer)).saturating_sub(less).max(1);
    let seen = sizes.filter(|&l| l <= one).max().unwrap_or(0);
    WireSegments { one, unit: bound.max(seen).min(one) }
}

/// The data direction's segments up to the transfer's end (where the `too-short` rule
/// and its sentence count them): `sh.data_segments` frames, each frame above one
/// segment ([`WireSegments`]) counted as the segments it held.
pub(super) fn wire_segment_count(f: &Facts) -> u64 {
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let end = f.sh.transfer_end.as_ref().map_or(f64::INFINITY, |e| e.at).min(f.sh.peer_silent.as_ref().map_or(f64::INFINITY, |s| s.at));
    let w = WireSegments::of(f);
    let extra: u64 = (0..p.t.len()).filter(|&i| is_data_segment(p, i, d) && p.t[i] <= end).map(|i| w.count(p.len[i]) - 1).sum();
    f.sh.data_segments + extra
}

/// "about 100 data segments (464 KiB, captured as 72 frames: …)": the data direction's
/// segments up to the transfer's end, as the `too-short` sentences count them.
pub(super) fn count_phrase(f: &Facts) -> String {
    // Frames of several segments (TSO/GRO, wire_segments.rs) counted as the segments
    // they held, and the frames said beside them: neither is called the other.
    let segments = wire_segment_count(f);
    if segments > f.sh.data_segments {
        format!(
            "about {segments} data segments ({}, captured as {} frame{}: the capturing host's offload, TSO or GRO, joined several segments in one)",
            format_bytes(f.sh.new_bytes.max(0.0)),
            f.sh.data_segments,
            if f.sh.data_segments == 1 { "" } else { "s" },
        )
    } else {
        format!("{} data segment{} ({})", segments, if segments == 1 { "" } else { "s" }, format_bytes(f.sh.new_bytes.max(0.0)))
    }
}

/// The `too-short` headline: the flow moved too little over too few round trips. (A
/// transfer already under way when the capture began: midstream_flight.rs.)
pub(super) fn too_short_text(f: &Facts) -> String {
    let count = count_phrase(f);
    format!(
        "Too short to judge: {count} in {}{}. A flow needs at least {} data \
         segments over {} round trips to leave slow start before any limit shows.",
        format_duration(f.sh.active.max(0.0)),
        if f.min_rtt.is_finite() { format!(" with {}", rtt_phrase(f)) } else { String::new() },
        MIN_DATA_SEGMENTS,
        MIN_ROUND_TRIPS,
    )
}
