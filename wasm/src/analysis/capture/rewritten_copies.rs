//! The same datagram captured on both sides of a middlebox that rewrites sequence
//! numbers is one packet (issue 39, review H class L).
//!
//! Where such copies come from: firewalls randomise a host's initial sequence number
//! (Cisco ASA/PIX "sequence number randomization", OpenBSD pf `modulate state`) and
//! rewrite every later sequence and acknowledgment number of the connection by the
//! same constant, both ways. A capture that sees one host's datagrams on both sides
//! of such a box (a SPAN of inside and outside, two taps merged) holds each of them
//! twice: same IPv4 Identification, same length, flags and window — the box forwards
//! the datagram, it does not build a new one (RFC 791 §3.1: the Identification names
//! the datagram) — but with sequence AND acknowledgment numbers shifted by the box's
//! offsets. Analysed as one connection, each shifted copy is a segment 2 GB away: a
//! multi-GB "hole the capture missed", "spurious retransmissions", a doubled rate
//! (tshark too calls every shifted copy a spurious retransmission). The duplicate
//! filter (duplicates.rs) cannot see them: the numbers differ.
//!
//! Rule: two datagrams of one direction (addresses and ports), one right after the
//! other within [`COPY_WINDOW_TWO_POINTS_NS`], with the same non-zero Identification,
//! payload length, flags and raw window, whose sequence numbers differ and whose
//! acknowledgment numbers differ, are one datagram seen twice when exactly one of them
//! acknowledges within [`PEER_SPACE_BYTES`] of the highest sequence the peer was seen
//! to send (the copy in the sequence space the peer's side of the capture uses) and the
//! other more than that away (an ACK for data never sent: a TCP receiver drops it,
//! RFC 9293 §3.10.7.4, so the peer never got that one — it was taken on the far side of
//! the box). The pair's offsets (sequence, acknowledgment) must be those of the
//! direction's first such pair: the box's offsets are constant for the connection, so
//! a pair with other offsets is no such copy. The copy in the peer's space is analysed;
//! the other is counted in `capture.duplicateFrames` and told in its warning.
//!
//! What it does not fire on: a retransmission carries the same sequence number (and a
//! new Identification); another connection on the same ports has a new ISN but not the
//! same Identification on the datagram right before; a datagram whose peer sent nothing
//! yet (a one-direction capture) has nothing to be compared with. What stays unseen: a
//! box that rewrites only one side's numbers (the copies' ACKs equal), and copies that
//! are not adjacent in the capture (another datagram in between).
//!
//! Order: the far side's copy may come first. Such a segment (its ACK far from the
//! peer's space) is held back until the next segment: if that is its twin, the held one
//! is dropped; otherwise it is analysed first, in its place (`Analyzer::push`). Memory:
//! one held segment and a direct-mapped table of per-direction facts.

use super::duplicates::COPY_WINDOW_TWO_POINTS_NS;
use crate::decode::tcp_flags::{FIN, SYN};
use crate::decode::TcpSegment;

/// An ACK this far from the highest sequence the peer sent (either way) acknowledges
/// data the peer never sent: beyond any unscaled window (64 KiB) sixteen times over.
pub const PEER_SPACE_BYTES: u32 = 1 << 20;
const DIRECTIONS: usize = 4096;

/// What one direction's analysed datagrams showed.
#[derive(Clone, Copy, Default)]
struct Direction {
    key: u64,
    /// Highest sequence end (SYN and FIN count one) of the analysed segments.
    high: Option<u32>,
    /// The last analysed datagram: Identification, length, flags, window, seq, ack, time.
    last: Option<(u16, u32, u8, u16, u32, u32, i64)>,
    /// The box's offsets (copy − analysed: sequence, acknowledgment), from the first pair.
    offsets: Option<(u32, u32)>,
}

pub struct RewrittenCopies {
    directions: Box<[Direction]>,
    /// Copies recognised and left out.
    pub copies: u64,
}

impl Default for RewrittenCopies {
    fn default() -> Self {
        RewrittenCopies { directions: vec![Direction::default(); DIRECTIONS].into_boxed_slice(), copies: 0 }
    }
}

/// What to do with a segment.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Analyse it.
    Analyse,
    /// Hold it until the next segment: it may be the far side's copy of that one.
    Hold,
    /// The far side's copy of the datagram analysed just before: leave it out.
    Copy,
}

fn key(s: &TcpSegment, reverse: bool) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = crate::fxhash::FxHasher::default();
    if reverse {
        (s.dst, s.src, s.dst_port, s.src_port).hash(&mut h);
    } else {
        (s.src, s.dst, s.src_port, s.dst_port).hash(&mut h);
    }
    h.finish() | 1
}

/// |a − b| in sequence space.
fn distance(a: u32, b: u32) -> u32 {
    (a.wrapping_sub(b) as i32).unsigned_abs()
}

impl RewrittenCopies {
    fn slot(&self, key: u64) -> Direction {
        let d = self.directions[(key >> 20) as usize % DIRECTIONS];
        if d.key == key {
            d
        } else {
            Direction { key, ..Direction::default() }
        }
    }

    fn store(&mut self, d: Direction) {
        self.directions[(d.key >> 20) as usize % DIRECTIONS] = d;
    }

    /// Its ACK lies in the peer's space (true), far from it (false), or no telling.
    fn ack_in_peer_space(&self, s: &TcpSegment) -> Option<bool> {
        let high = self.slot(key(s, true)).high?;
        Some(distance(s.ack, high) <= PEER_SPACE_BYTES)
    }

    /// `copy` and `kept` are one datagram with shifted numbers (module doc), and the
    /// offsets agree with the direction's; records them on the first pair.
    fn twins(&mut self, copy: &TcpSegment, kept: &TcpSegment) -> bool {
        let (Some(id), Some(kept_id)) = (copy.frame_id.ip_id, kept.frame_id.ip_id) else { return false };
        let same = id != 0
            && id == kept_id
            && key(copy, false) == key(kept, false)
            && (copy.payload_len, copy.flags, copy.window) == (kept.payload_len, kept.flags, kept.window)
            && copy.seq != kept.seq
            && copy.ack != kept.ack
            && (copy.ts_ns - kept.ts_ns).abs() <= COPY_WINDOW_TWO_POINTS_NS;
        if !same || self.ack_in_peer_space(copy) != Some(false) || self.ack_in_peer_space(kept) != Some(true) {
            return false;
        }
        let offsets = (copy.seq.wrapping_sub(kept.seq), copy.ack.wrapping_sub(kept.ack));
        let mut d = self.slot(key(kept, false));
        if d.offsets.is_some_and(|o| o != offsets) {
            return false;
        }
        d.offsets = Some(offsets);
        self.store(d);
        self.copies += 1;
        true
    }

    /// The verdict on `s`, arriving after `held` (a segment held back, if any). When
    /// `held` is `s`'s twin it is a copy: the caller drops it (`true` in the pair).
    pub fn check(&mut self, s: &TcpSegment, held: Option<&TcpSegment>) -> (Verdict, bool) {
        if held.is_some_and(|h| self.twins(h, s)) {
            return (Verdict::Analyse, true);
        }
        let (key, far) = (key(s, false), self.ack_in_peer_space(s) == Some(false));
        if far && s.frame_id.ip_id.is_some_and(|id| id != 0) {
            if let Some((id, len, flags, window, seq, ack, t)) = self.slot(key).last {
                let mut kept = s.clone();
                (kept.payload_len, kept.flags, kept.window, kept.seq, kept.ack, kept.ts_ns) = (len, flags, window, seq, ack, t);
                kept.frame_id.ip_id = Some(id);
                if self.twins(s, &kept) {
                    return (Verdict::Copy, false);
                }
            }
            return (Verdict::Hold, false);
        }
        (Verdict::Analyse, false)
    }

    /// `s` is analysed: what it shows of its direction.
    pub fn analysed(&mut self, s: &TcpSegment) {
        let mut d = self.slot(key(s, false));
        let end = s.seq.wrapping_add(s.payload_len).wrapping_add(u32::from(s.flags & (SYN | FIN) != 0));
        if d.high.is_none_or(|h| (end.wrapping_sub(h) as i32) > 0) {
            d.high = Some(end);
        }
        d.last = s.frame_id.ip_id.map(|id| (id, s.payload_len, s.flags, s.window, s.seq, s.ack, s.ts_ns));
        self.store(d);
    }
}

#[cfg(test)]
#[path = "rewritten_copies_tests.rs"]
mod tests;
