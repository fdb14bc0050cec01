//! A FIN its sender kept re-sending after the capture held the peer's ACK of it
//! (docs/ANALYSIS.md `ending.finResentAfterAck`; issue 39 review W, qi #13). A FIN takes
//! one sequence number and is acknowledged like data (RFC 9293 §3.6): the close of a side
//! completes when that side accepts the peer's ACK of it, ACK ≥ FIN's sequence number + 1.
//! A TCP drops an ACK that arrives on a segment outside its receive window or that
//! acknowledges something it never sent (§3.10.7.4), and then its retransmission timer
//! fires again (§3.10.8): so a side that re-sent the same FIN after such an ACK had
//! passed the capture did not take it, or the ACK was lost beyond the capture point.
//! One re-send may have crossed the ACK (a capture near the FIN's receiver sees the ACK
//! leave before the re-send it did not prevent arrives), or one ACK may have been lost;
//! from two on, the sender's timer fired again after a second ACK: the FIN is not told
//! as completed, unless the side's own ACK field advanced after its last re-send: it
//! then accepted a later segment of the peer's, and with it the ACK of its FIN (zeek
//! `ssh.pcap` #19: two re-sends 1 ms apart with ACK 1, then ACK 2 of the peer's FIN).
//! Where a second sender on the peer's side explains it
//! (two_senders.rs `OtherSender::refused_acks`), the sentence says how.

use super::{Ending, Mark};
use crate::analysis::track::two_senders::thousands;
use serde::Serialize;

/// Re-sends from which a FIN is not told as completed (see the module doc).
pub(super) const NOT_TAKEN: u64 = 2;

/// One direction's FIN re-sent after the peer's ACK of it (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FinResent {
    /// FIN segments with the same FIN sequence number as the side's latest FIN, captured
    /// after the peer's cumulative ACK reached beyond that sequence number.
    pub count: u64,
    /// The last of them: s since the file's first packet, and its frame.
    pub last_at: f64,
    pub last_frame: u32,
    /// After the last of them the side's own ACK field advanced (it acknowledged new
    /// data or a FIN of the peer's): it accepted a segment of the peer's, which carries
    /// the ACK of its FIN, so the close completed after all and is told as such.
    pub taken_later: bool,
}

/// What `Closing::note` keeps of a direction's FINs for [`FinResent`]: the re-sends
/// after the ACK are rare, so they are boxed at the first (issue 43: every connection
/// that closes with FINs makes a `Closing`; 24 B per direction instead of 64).
#[derive(Clone, Debug, Default)]
pub(super) struct FinTrack {
    /// The latest FIN's sequence number (relative: its payload's end).
    seq: Option<i64>,
    resent: Option<Box<Resent>>,
}

/// The re-sends of the latest FIN after the peer's ACK of it.
#[derive(Clone, Copy, Debug)]
struct Resent {
    count: u64,
    last: Mark,
    /// The side's own highest ACK (the peer's space) at the last of them.
    own_ack: Option<i64>,
}

impl FinTrack {
    /// A FIN at relative sequence number `seq` (None: the side's space is unknown),
    /// with the peer's highest cumulative ACK so far (`peer_ack`, same space) and the
    /// side's own highest ACK so far (`own_ack`, the peer's space). A FIN at another
    /// sequence number starts over (the stream went on, or another sender's).
    pub(super) fn note(&mut self, seq: Option<i64>, (peer_ack, own_ack): (Option<i64>, Option<i64>), at: Mark) {
        let Some(seq) = seq else { return };
        if self.seq != Some(seq) {
            *self = FinTrack { seq: Some(seq), resent: None };
        } else if peer_ack.is_some_and(|a| a > seq) {
            let r = self.resent.get_or_insert_with(|| Box::new(Resent { count: 0, last: at, own_ack: None }));
            r.count += 1;
            r.last = at;
            r.own_ack = own_ack;
        }
    }

    /// `own_ack`: the side's own highest ACK at the end of the capture.
    pub(super) fn finding(&self, own_ack: Option<i64>) -> Option<FinResent> {
        let r = self.resent.as_deref()?;
        Some(FinResent { count: r.count, last_at: r.last.t_ns as f64 / 1e9, last_frame: r.last.frame, taken_later: own_ack > r.own_ack })
    }
}

/// The directions whose FIN was not taken (re-sent at least [`NOT_TAKEN`] times after
/// the peer's ACK of it).
pub(super) fn not_taken(e: &Ending) -> [bool; 2] {
    [0, 1].map(|d| e.fin_resent_after_ack[d].is_some_and(|r| r.count >= NOT_TAKEN && !r.taken_later))
}

/// " X re-sent its FIN 7 times after Y's ACK of it had passed the capture, the last at
/// 39.149 s: <why>." for each direction whose FIN was not taken. `second_sender`: the
/// direction with a second sender and its `refused_acks` [own sender's high, the peer's
/// ACK] (two_senders.rs), where known.
pub(super) fn push_words<'a>(s: &mut String, e: &Ending, name: &impl Fn(u8) -> &'a str, second_sender: Option<(u8, [i64; 2])>) {
    let taken = not_taken(e);
    for d in 0..2u8 {
        let Some(r) = e.fin_resent_after_ack[d as usize].filter(|_| taken[d as usize]) else { continue };
        let (me, peer) = (name(d), name(1 - d));
        *s += &format!(" {me} re-sent its FIN {} times after {peer}'s ACK of it had passed the capture, the last at ", r.count);
        super::in_words::push_timestamp(s, r.last_at);
        *s += ": ";
        match second_sender {
            // The peer has a second sender: the peer's own segments, this ACK among them,
            // carry sequence numbers up to its own high, below what this side had
            // acknowledged of the other sender's bytes: outside its window (§3.10.7.4).
            Some((p, [high, ack])) if p != d => {
                *s += &format!("{peer}'s own segments carry sequence numbers up to {} (relative), below the {} {me} acknowledged of the second sender's bytes, and a TCP drops a segment below its receive window", thousands(high), thousands(ack));
            }
            // This side has the second sender: the peer's ACK counts bytes of the other
            // sender, beyond anything this side's own TCP sent.
            Some((_, [high, ack])) => {
                *s += &format!("{peer}'s ACK {} acknowledges the second sender's bytes, beyond the {} {me}'s own sender reached, and a TCP drops an ACK of bytes it never sent", thousands(ack), thousands(high));
            }
            None => {
                *s += &format!("{me} did not take the ACK, or it was lost beyond this capture point each time");
            }
        }
        *s += " (RFC 9293 §3.10.7.4).";
    }
}
