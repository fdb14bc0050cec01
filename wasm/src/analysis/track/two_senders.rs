//! Two senders on one side of a connection (docs/ANALYSIS.md "Two senders on one
//! side"). TCP re-sends the same bytes for the same sequence numbers (RFC 9293 §3.4:
//! a sequence number names one octet of one stream), so two segments of one direction
//! that start at the same sequence number and carry different bytes there were not
//! made by one TCP: a second sender wrote into the stream (a packet injected on the
//! path, QUANTUMINSERT style, or a middlebox answering for the server). That is the
//! evidence this module requires; the IPv4 TTL (hop limit) only tells the two apart
//! afterwards, since a route change, NAT or a load balancer changes it without any
//! second sender.
//!
//! Cost: a connection pays one pointer; the log is made at its first data segment and keeps at most [`MAX_HEADS`] segment heads per direction
//! (16 B each, allocated at the first head), one TTL family inline per direction (families.rs: a second TTL allocates).

use std::collections::VecDeque;

mod families;
use families::Families;

use super::ending::Closing;
use crate::decode::{tcp_flags::FIN, TcpSegment};
use serde::Serialize;

/// Segment heads kept per direction (the newest): a re-send further back is not compared.
const MAX_HEADS: usize = 128;
/// TTL values followed per direction.
const MAX_TTLS: usize = 4;

#[derive(Clone, Copy, Debug)]
struct Head {
    seq: i64,
    hash: u8,
    ttl: Option<u8>,
    frame: u32,
}

#[derive(Clone, Debug, Default)]
struct SideLog {
    heads: VecDeque<Head>,
    /// The byte after the highest byte this direction sent so far (relative).
    high: Option<i64>,
    /// The TTL of every packet this side sent up to the handshake's end (None: the
    /// handshake was not captured or its TTLs differed): the connection's own sender.
    owner: Option<u8>,
    families: Families,
    conflicts: u32,
    /// The earlier segment and the first one whose bytes differed from it (boxed: rare).
    first: Option<Box<(Head, Head)>>,
    /// The highest ACK the peer sent (relative, this side's sequence space).
    peer_ack: Option<i64>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Senders {
    sides: [SideLog; 2],
}

/// The finding, on the connection (`ConnectionSummary::two_senders`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TwoSenders {
    /// The direction whose sender was two: 0 when `endpoints[0]` sent the segments.
    #[cfg_attr(test, ts(type = "0 | 1"))]
    pub direction: u8,
    /// Segments whose first bytes differed from those an earlier segment carried at the
    /// same sequence number.
    pub segments: u32,
    /// Frame numbers of the earlier segment and of the first that differed from it.
    pub frames: [u32; 2],
    /// Their IPv4 TTLs (None for IPv6 or unknown).
    pub ttls: [Option<u8>; 2],
    /// The other sender, told apart by its TTL from the side's handshake packets:
    /// its TTL, packets and first and last frame. None when the TTLs do not tell.
    pub other: Option<OtherSender>,
    /// The sentence the warning and the page show.
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OtherSender {
    pub ttl: u8,
    pub packets: u32,
    pub frames: [u32; 2],
    /// Its first FIN's frame, told as no close of the side (ending.rs).
    pub fin_frame: Option<u32>,
    /// The side's own sender's highest byte (relative, a FIN counted) and the peer's
    /// highest ACK, where the ACK is beyond it: ACKs of bytes that sender never sent,
    /// which it drops (RFC 9293 §3.10.7.4).
    pub refused_acks: Option<[i64; 2]>,
}

impl Senders {
    /// After the analyzer placed `seg` (direction `d`, relative `seq_rel`..`end_rel`,
    /// relative ACK `ack_rel`). `after_handshake`: the SYN/ACK is in the capture.
    /// `ttl_range`: the side's TTLs so far (conn.rs `Side::ttl`), for its owner.
    ///
    /// Returns whether the segment is its own writer's first sending of its bytes though
    /// they lie below the side's highest byte (`new_writer`): not a re-send, whatever
    /// the sequence numbers alone say.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn note(slot: &mut Option<Box<Senders>>, seg: &TcpSegment, d: usize, (seq_rel, end_rel): (i64, i64), ack_rel: Option<i64>, t_ns: i64, handshake_seen: bool, ttl_range: [Option<(u8, u8)>; 2]) -> bool {
        if slot.is_none() {
            if seg.payload_len == 0 {
                return false;
            }
            let mut s = Box::<Senders>::default();
            for k in 0..2 {
                s.sides[k].owner = ttl_range[k].filter(|&(lo, hi)| handshake_seen && lo == hi).map(|(lo, _)| lo);
            }
            *slot = Some(s);
        }
        let Some(s) = slot.as_deref_mut() else { return false };
        let frame = u32::try_from(seg.packet_index + 1).unwrap_or(u32::MAX);
        if let Some(a) = ack_rel {
            let peer = &mut s.sides[1 - d];
            peer.peer_ack = Some(peer.peer_ack.map_or(a, |x| x.max(a)));
        }
        let side = &mut s.sides[d];
        let end = end_rel + i64::from(seg.flags & FIN != 0);
        let below_high = side.high.is_some_and(|h| seq_rel < h);
        // Once a second writer is proven on this side, a packet whose TTL family (its
        // writer, `other`) had sent nothing up to its first byte is that writer's first
        // sending of it (the real server's FIN after an injected response).
        let writer_high = seg.frame_id.ip_ttl.and_then(|t| side.families.iter().find(|f| f.ttl == t)).map(|f| f.high);
        let mut new_writer = below_high && side.conflicts > 0 && writer_high.is_some_and(|h| h <= seq_rel);
        if let Some(ttl) = seg.frame_id.ip_ttl {
            side.family(ttl, frame, end, (seg.flags & FIN != 0).then_some((t_ns, frame)));
        }
        if seg.payload_len == 0 || seg.meta.head == 0 {
            return new_writer;
        }
        let head = Head { seq: seq_rel, hash: seg.meta.head, ttl: seg.frame_id.ip_ttl, frame };
        side.high = Some(side.high.map_or(end, |h| h.max(end)));
        if below_high {
            // Compared with the first bytes sent at this number (the stream's own).
            if let Some(earlier) = side.heads.iter().find(|h| h.seq == seq_rel) {
                if differ(earlier, &head) {
                    side.conflicts += 1;
                    side.first.get_or_insert_with(|| Box::new((*earlier, head)));
                }
                // No earlier segment carried these bytes here, nor any of this TTL (its
                // writer, told apart by TTL; one TTL writing other bytes at one number
                // proves nothing of who wrote first): their writer's first sending.
                let first_of_writer = head.ttl.is_some() && !side.heads.iter().any(|h| h.seq == seq_rel && (!differ(h, &head) || h.ttl == head.ttl));
                new_writer |= first_of_writer;
                if !first_of_writer {
                    return new_writer;
                }
            }
        }
        if side.heads.len() == MAX_HEADS {
            side.heads.pop_front();
        }
        crate::lean::push_back(&mut side.heads, head);
        new_writer
    }

    /// The heads' growth room given back (a connection gone quiet, conn.rs
    /// `release_slack`): only capacity changes.
    pub(crate) fn release_slack(&mut self) {
        self.sides.iter_mut().for_each(|s| s.heads.shrink_to_fit());
    }

    /// The finding, for the direction whose bytes conflicted (the one with more such
    /// segments when both did). `names`: the endpoints.
    pub(crate) fn finding(&self, id: u32, names: &[String; 2]) -> Option<TwoSenders> {
        let d = (0..2).filter(|&d| self.sides[d].conflicts > 0).max_by_key(|&d| self.sides[d].conflicts)?;
        let side = &self.sides[d];
        let (a, b) = *side.first.as_deref()?;
        let other = side.other(a.ttl, b.ttl);
        let text = words(id, names, d, side, (&a, &b), other.as_ref());
        Some(TwoSenders { direction: d as u8, segments: side.conflicts, frames: [a.frame, b.frame], ttls: [a.ttl, b.ttl], other, text })
    }
}

impl SideLog {
    fn family(&mut self, ttl: u8, frame: u32, end: i64, fin: Option<(i64, u32)>) {
        self.families.add(ttl, frame, end, fin, MAX_TTLS);
    }

    /// The sender that is not the side's own: the conflicting pair's TTLs differ and one
    /// of them is the TTL of the side's handshake packets.
    fn other(&self, a: Option<u8>, b: Option<u8>) -> Option<OtherSender> {
        let (owner, a, b) = (self.owner?, a?, b?);
        let foreign = match (a == owner, b == owner) {
            (true, false) => b,
            (false, true) => a,
            _ => return None,
        };
        let f = self.families.iter().find(|f| f.ttl == foreign)?;
        let own_high = self.families.iter().find(|f| f.ttl == owner).map(|f| f.high);
        let refused_acks = own_high.zip(self.peer_ack).filter(|(h, a)| a > h).map(|(h, a)| [h, a]);
        Some(OtherSender { ttl: f.ttl, packets: f.packets, frames: f.frames, fin_frame: f.fin().map(|x| x.1), refused_acks })
    }

    /// The side's own sender's first FIN (time ns, frame), by TTL.
    fn own_fin(&self, foreign: u8) -> Option<(i64, u32)> {
        self.families.iter().filter(|f| f.ttl != foreign).filter_map(|f| f.fin()).min_by_key(|x| x.0)
    }
}

impl Senders {
    /// For ending.rs: per direction, (the other sender's first FIN frame, the side's own
    /// first FIN) where a second sender was told apart by its TTL.
    pub(crate) fn foreign_fins(&self, finding: &TwoSenders) -> Option<(usize, u32, Option<(i64, u32)>)> {
        let o = finding.other.as_ref()?;
        let d = finding.direction as usize;
        Some((d, o.fin_frame?, self.sides[d].own_fin(o.ttl)))
    }
}

/// The connection's finding and its closing as told (a FIN of the other sender is no
/// close of the side: ending.rs `with_own_fin`), at the summary.
pub(crate) fn judge(senders: Option<Box<Senders>>, id: u32, names: &[String; 2], closing: Option<Box<Closing>>) -> (Option<Box<Closing>>, Option<Box<TwoSenders>>) {
    let Some((s, finding)) = senders.and_then(|s| s.finding(id, names).map(|f| (s, f))) else { return (closing, None) };
    let closing = match (closing, s.foreign_fins(&finding)) {
        (Some(c), Some((d, foreign, own))) => Some(Box::new(c.with_own_fin(d, foreign, own))),
        (c, _) => c,
    };
    (closing, Some(Box::new(finding)))
}

/// Two heads at the same sequence number differ: their hashes of the same first
/// `decode::packet::HEAD_BYTES` bytes (a keep-alive's one garbage octet, RFC 9293 §3.8.4,
/// is too short to have one).
fn differ(a: &Head, b: &Head) -> bool {
    a.hash != b.hash
}

fn words(id: u32, names: &[String; 2], d: usize, side: &SideLog, (a, b): (&Head, &Head), other: Option<&OtherSender>) -> String {
    let ttl = |t: Option<u8>| t.map_or(String::new(), |t| format!(", TTL {t}"));
    let segs = if side.conflicts == 1 { "1 segment".to_string() } else { format!("{} segments", side.conflicts) };
    let mut s = format!(
        "Two senders on one side of connection {id} ({} → {}): {segs} carried bytes different from those already sent at the same sequence numbers (first: frame {}{}, against frame {}{}) — one TCP re-sends the same bytes, so a second sender wrote into this stream: injection or a middlebox.",
        names[d],
        names[1 - d],
        b.frame,
        ttl(b.ttl),
        a.frame,
        ttl(a.ttl)
    );
    if let Some(o) = other {
        let owner = side.owner.map_or(String::new(), |t| format!(" (the side's handshake came with TTL {t})"));
        s += &format!(" The other sender's {} packets came with TTL {}, frames {}–{}{owner}.", o.packets, o.ttl, o.frames[0], o.frames[1]);
        if let Some([h, ack]) = o.refused_acks {
            s += &format!(" {} acknowledged up to {} (relative), beyond the {} the side's own sender reached: ACKs of bytes it never sent, which a TCP drops (RFC 9293 §3.10.7.4).", names[1 - d], thousands(ack), thousands(h));
        }
    }
    s
}

pub(crate) fn thousands(n: i64) -> String {
    let s = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}
