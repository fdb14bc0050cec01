//! Whether a frame whose TCP checksum fails reached its receiver all the same: the
//! receiver's own acknowledgements say so (docs/ANALYSIS.md "Corrupt frames").
//!
//! A receiver discards a segment whose checksum fails (RFC 9293 §3.10.7.4): it never
//! acknowledges bytes only such a segment carried. So when the peer later acknowledges
//! a failing segment's bytes — cumulatively or in a SACK block (RFC 2018) — and no other
//! frame in the capture carried them, the segment reached it intact and only the
//! capture's copy fails: checksum offload on the capturing host (its own sends are
//! captured before the NIC fills the field in, some drivers after writing anything
//! there; received frames the NIC verified and merged), or a capture edited after the
//! fact. Such a frame is analysed like any other. A failing frame whose bytes another
//! frame carries (the intact copy before or after it — a radio retry, a re-send) or
//! that the peer never acknowledges is the corrupt copy it looks like.
//!
//! The decision needs the peer's later frames, so it is taken when the session
//! releases the frame for analysis (session.rs), over what was decoded by then — the
//! frame's reordering window after it, 2 s or 65,536 packets
//! (analysis/capture/timeline.rs) — while the frames before it are asked of the
//! analysis (`Analyzer::sent_before`). Only a frame's header is used (ports, sequence
//! number, length, flags): a damaged header fits nothing — a random sequence number
//! lands between what was sent before and what the peer acknowledged after with a
//! chance of that span in 2^32 — and stays corrupt. The acknowledgement vouches for
//! the sequence numbers and length, which is what a data segment's analysis rests on;
//! a SYN's rests on its options, which it does not vouch for, so a failing SYN is
//! judged as before (checksum.rs), as is a frame without sequence space (a pure ACK:
//! nothing to acknowledge).

use std::collections::HashMap;
use std::net::IpAddr;

use super::tcp_flags::{ACK, FIN, RST, SYN};
use super::TcpSegment;
use crate::fxhash::FxBuild;

/// Failing frames watched at once for their peer's acknowledgement; one past it is
/// not watched and stays corrupt. Each decoded frame is compared with the open ones
/// while any is open: bounded work per frame on a capture of many failing frames.
pub const MAX_OPEN: usize = 64;

/// A failing frame waiting for its peer's acknowledgement.
#[derive(Clone, Copy, Debug)]
struct Open {
    index: u64,
    src: (IpAddr, u16),
    dst: (IpAddr, u16),
    /// Its sequence space [seq, end): payload, SYN and FIN.
    seq: u32,
    end: u32,
    /// A frame of its peer came after it (without acknowledging it).
    peer_after: bool,
}

/// What became of a failing frame released for analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Its peer acknowledged its bytes, no other frame carrying them.
    Acknowledged,
    /// Still waiting at the capture's end, its peer silent after it: no acknowledgement
    /// could be in the capture, so whether it was delivered is not known.
    Unanswered,
    /// Neither: another frame carried its bytes, or its peer went on without
    /// acknowledging them, or it was never watched.
    Unacknowledged,
}

/// The failing frames watched, and what became of them.
#[derive(Debug, Default)]
pub struct AckedEvidence {
    open: Vec<Open>,
    /// Decided frames by packet index: true = acknowledged by the peer with no other
    /// frame carrying its bytes first; false = another frame carried them.
    decided: HashMap<u64, bool, FxBuild>,
    /// Frames analysed on this evidence (the `acked-bad-checksum` warning).
    pub delivered: u64,
    /// Frames analysed as [`Fate::Unanswered`] (the `unanswered-bad-checksum` warning).
    pub unanswered: u64,
}

/// Sequence space a segment occupies (RFC 9293 §3.4: SYN and FIN count one each).
fn space(seg: &TcpSegment) -> u32 {
    seg.payload_len + u32::from(seg.flags & SYN != 0) + u32::from(seg.flags & FIN != 0)
}

/// `a` is at or after `b` and less than 2^31 beyond it (RFC 9293 §3.4 comparison).
fn at_or_after(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

impl AckedEvidence {
    /// Watch a failing frame (call after `see` for it): decided when its peer
    /// acknowledges its bytes or another frame carries them. A frame without sequence
    /// space, or past [`MAX_OPEN`], is not watched; nor a SYN, whose worth is its
    /// options (MSS, window scale), which no acknowledgement vouches for (a monitor's
    /// damaged copy of a SYN/ACK the station received intact reads "MSS none"); nor a RST.
    pub fn watch(&mut self, seg: &TcpSegment) {
        let len = space(seg);
        if len == 0 || self.open.len() >= MAX_OPEN || seg.flags & (RST | SYN) != 0 {
            return;
        }
        let (src, dst) = ((seg.src, seg.src_port), (seg.dst, seg.dst_port));
        self.open.push(Open { index: seg.packet_index, src, dst, seq: seg.seq, end: seg.seq.wrapping_add(len), peer_after: false });
    }

    /// A frame decoded after those watched: a copy of a watched frame's bytes from the
    /// same sender decides it corrupt, an acknowledgement of all of them from its peer
    /// delivered. Nothing to do (one comparison) while nothing is watched.
    #[inline]
    pub fn see(&mut self, seg: &TcpSegment) {
        if self.open.is_empty() {
            return;
        }
        self.see_open(seg);
    }

    fn see_open(&mut self, seg: &TcpSegment) {
        let (from, to) = ((seg.src, seg.src_port), (seg.dst, seg.dst_port));
        let len = space(seg);
        let decided = &mut self.decided;
        self.open.retain_mut(|o| {
            let verdict = if (from, to) == (o.src, o.dst) {
                // Any of its bytes again: the frame is not the only copy.
                let end = seg.seq.wrapping_add(len);
                (len > 0 && at_or_after(end, o.seq.wrapping_add(1)) && at_or_after(o.end, seg.seq.wrapping_add(1))).then_some(false)
            } else if (from, to) == (o.dst, o.src) {
                let cumulative = seg.flags & ACK != 0 && at_or_after(seg.ack, o.end) && seg.ack.wrapping_sub(o.end) < 1 << 30;
                let sacked = seg.options.sack_blocks[..usize::from(seg.options.sack_count.min(4))]
                    .iter()
                    .any(|&(l, r)| at_or_after(o.seq, l) && at_or_after(r, o.end) && r.wrapping_sub(l) < 1 << 30);
                o.peer_after = true;
                (cumulative || sacked).then_some(true)
            } else {
                None
            };
            if let Some(v) = verdict {
                decided.insert(o.index, v);
            }
            verdict.is_none()
        });
    }

    /// Whether the failing frame `seg`, released for analysis, was acknowledged by its
    /// peer with no other frame carrying its bytes (forgets it either way). A frame
    /// still waiting, or never watched, was not.
    pub fn acknowledged(&mut self, seg: &TcpSegment) -> bool {
        self.fate(seg, false) == Fate::Acknowledged
    }

    /// What became of the failing frame `seg`, released for analysis (forgets it).
    /// `at_end`: released once the whole capture was read, so every later frame was
    /// seen: a frame still waiting whose peer sent nothing after it is
    /// [`Fate::Unanswered`] (no acknowledgement could be captured: the capture ends
    /// first). Released earlier, a frame still waiting had its reordering window
    /// without an acknowledgement and is [`Fate::Unacknowledged`], as before.
    pub fn fate(&mut self, seg: &TcpSegment, at_end: bool) -> Fate {
        if let Some(i) = self.open.iter().position(|o| o.index == seg.packet_index) {
            let o = self.open.swap_remove(i);
            return if at_end && !o.peer_after { Fate::Unanswered } else { Fate::Unacknowledged };
        }
        match self.decided.remove(&seg.packet_index) {
            Some(true) => Fate::Acknowledged,
            _ => Fate::Unacknowledged,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(index: u64, server: bool, seq: u32, ack: u32, len: u32) -> TcpSegment {
        let (a, b): ((IpAddr, u16), (IpAddr, u16)) = (("10.0.0.1".parse().unwrap(), 40000), ("10.0.0.2".parse().unwrap(), 25));
        let ((src, src_port), (dst, dst_port)) = if server { (b, a) } else { (a, b) };
        TcpSegment {
            packet_index: index,
            ts_ns: 0,
            wire_len: 54 + len,
            src,
            dst,
            src_port,
            dst_port,
            seq,
            ack,
            flags: ACK,
            window: 1000,
            ecn: 0,
            payload_len: len,
            options: Default::default(),
            tls_alert: None,
            mptcp: None,
            frame_id: Default::default(),
            meta: Default::default(),
        }
    }

    #[test]
    fn acknowledged_and_never_carried_again_is_delivered() {
        // The server's 71 bytes at seq 1 fail their checksum; the client's ACK 72 covers
        // them (an ACK 71 would not: one byte short), nothing re-sent them: delivered.
        let mut e = AckedEvidence::default();
        let bad = seg(3, true, 1, 1, 71);
        e.see(&bad);
        e.watch(&bad);
        e.see(&seg(4, false, 1, 71, 0));
        assert_eq!(e.open.len(), 1);
        e.see(&seg(5, false, 1, 72, 35));
        assert!(e.acknowledged(&bad));
        assert!(!e.acknowledged(&bad), "forgotten once asked");
    }

    #[test]
    fn a_copy_of_its_bytes_before_the_acknowledgement_makes_it_corrupt() {
        // The intact retry (bytes 1001..2449 again) comes before the ACK: the ACK may be
        // the retry's. Not delivered. A SACK of the range counts as an acknowledgement.
        let mut e = AckedEvidence::default();
        let bad = seg(10, true, 1001, 1, 1448);
        e.watch(&bad);
        e.see(&seg(11, true, 2000, 1, 100));
        e.see(&seg(12, false, 1, 2449, 0));
        assert!(!e.acknowledged(&bad));
        let bad = seg(20, true, 5001, 1, 1448);
        e.watch(&bad);
        let mut sack = seg(21, false, 1, 3000, 0);
        sack.options.sack_blocks[0] = (5001, 6449);
        sack.options.sack_count = 1;
        e.see(&sack);
        assert!(e.acknowledged(&bad));
    }

    #[test]
    fn never_acknowledged_or_never_watched_is_not_delivered() {
        let mut e = AckedEvidence::default();
        let bad = seg(1, true, 1, 1, 100);
        e.watch(&bad);
        // An ACK far beyond (a damaged number 2^31 away) is no acknowledgement.
        e.see(&seg(2, false, 1, 1 << 31, 0));
        assert!(!e.acknowledged(&bad));
        assert!(e.open.is_empty());
        // A pure ACK has no sequence space to acknowledge: never watched.
        let ack = seg(3, true, 101, 1, 0);
        e.watch(&ack);
        e.see(&seg(4, false, 1, 200, 0));
        assert!(!e.acknowledged(&ack));
        // Nor a SYN, though its peer's SYN/ACK acknowledges it: its options are unvouched.
        let mut syn = seg(5, false, 999, 0, 0);
        syn.flags = SYN;
        e.watch(&syn);
        e.see(&seg(6, true, 5000, 1000, 0));
        assert!(!e.acknowledged(&syn));
    }
}
