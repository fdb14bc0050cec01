//! The data direction's time-sequence graph as each capture saw it (docs/ANALYSIS.md
//! `twin.sequence`): the Stevens/tcptrace picture (sequence number over time, RFC 9293
//! §3.4's sequence space) drawn twice on the merged axis, once from the capture near
//! the data sender and once from the capture near its receiver, the receiver side's
//! times moved by the pair's offset and drift (clock.rs `Clock::at`), so that what left
//! one host and what reached the other line up in time and a datagram's fate
//! (fate.rs) can be marked on either.
//!
//! Bounded by pixels, not by the transfer: both sides share one grid of equal bins over
//! the pair's span, at most [`MAX_SEQUENCE_BINS`] (a chart is about that many pixels
//! wide), each holding the lowest and highest sequence number of the data datagrams in
//! it, how many there were and how many resent bytes the sender had sent before; and
//! per bin the highest cumulative ACK of the receiver seen at that capture.
//!
//! The marks are the pair's `events` (fate.rs, at most `twin::MAX_EVENTS`): each names
//! the capture whose time `t` is (`capture`), and `due_times` adds, for a datagram seen
//! at one capture only, when it was due at the other: there the chart marks its absence
//! (a datagram lost between, "never arrived").

use serde::{Deserialize, Serialize};

use super::clock::Clock;
use super::collect::Dgram;
use super::matching::{Matching, EXACT, PIECE};
use super::report::TwinEvent;
use super::MAX_SEQUENCE_BINS;


/// The data direction as both captures saw it, on the merged axis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TwinSequence {
    /// The first bin's start, merged view seconds, and every bin's width, s, both whole
    /// microseconds: bin k covers [start + k × binWidth, start + (k + 1) × binWidth),
    /// one grid for both sides so that their columns line up; the last bin reaches the
    /// pair's last datagram.
    pub start: f64,
    pub bin_width: f64,
    pub sender_side: TwinSequenceSide,
    pub receiver_side: TwinSequenceSide,
}

/// One capture's view of the data direction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TwinSequenceSide {
    /// Data datagrams of the data sender at this capture (payload > 0), and of them the
    /// resends (`TwinSequenceBin::retransmitted`).
    pub datagrams: u64,
    pub retransmitted: u64,
    /// Bins holding a data datagram, time order, at most `MAX_SEQUENCE_BINS`.
    pub bins: Vec<TwinSequenceBin>,
    /// Per bin holding an ACK of the receiver: the highest acknowledgment number.
    pub acks: Vec<TwinAckPoint>,
}

/// The data datagrams of one bin at one capture. Sequence numbers are relative to the
/// direction's first (the events' `seq`: the SYN is 0, the first byte of data 1), and
/// unwrapped past 2^32.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TwinSequenceBin {
    /// Merged view seconds: the bin's start.
    pub t: f64,
    /// Lowest first byte and highest end (sequence number + payload) in the bin.
    pub seq_min: i64,
    pub seq_max: i64,
    pub count: u32,
    /// Of `count`, datagrams that resend bytes the data sender had sent before (RFC 9293
    /// §3.8.1): at the sender side, data starting below the highest end it had sent; at
    /// the receiver side, the arrival of such a datagram (by its match, so a datagram
    /// the network reordered is not one), or, seen at that side only, data starting
    /// below the highest end that had arrived.
    pub retransmitted: u32,
}

/// The receiver's highest cumulative ACK (RFC 9293 §3.4) in one bin at one capture.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TwinAckPoint {
    /// Merged view seconds: the bin's start (a step line through these is early by
    /// less than a bin, a pixel column).
    pub t: f64,
    /// Relative to the data direction's first sequence number, as the bins.
    pub ack: i64,
}

/// Relative sequence numbers past 2^32: each value is read as the nearest (within
/// 2^31) to the highest one read so far.
struct Unwrap {
    raw: u32,
    rel: i64,
}

impl Unwrap {
    fn rel(&mut self, v: u32) -> i64 {
        let r = self.rel + i64::from(v.wrapping_sub(self.raw) as i32);
        if r > self.rel {
            (self.raw, self.rel) = (v, r);
        }
        r
    }
}

/// Which data datagrams of `list` (time order) resend bytes this capture had seen
/// before: data starting below the highest end of the direction so far.
fn resends(list: &[Dgram], base: u32) -> Vec<bool> {
    let mut seq = Unwrap { raw: base, rel: 0 };
    let mut highest = i64::MIN;
    list.iter()
        .map(|x| {
            if x.dir() != 0 || x.seq_len() == 0 {
                return false;
            }
            let s = seq.rel(x.seq);
            let again = x.len > 0 && s < highest;
            highest = highest.max(s + i64::from(x.seq_len()));
            again
        })
        .collect()
}

/// Both sides' series (module doc). `d` by input; `base`: the data direction's first
/// sequence number (fate.rs `Fates::base[0]`).
pub fn series(d: [&[Dgram]; 2], m: &Matching, clock: &Clock, base: u32) -> TwinSequence {
    let (s_in, r_in) = (1 - clock.receiver, clock.receiver);
    let at = |side: usize, x: &Dgram| clock.at(side, x.t_ns) / 1e9;
    let (lo, hi) = [s_in, r_in]
        .iter()
        .flat_map(|&side| d[side].iter().map(move |x| at(side, x)))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), t| (l.min(t), h.max(t)));
    // The grid in whole microseconds (a capture's resolution), so that every bin's start
    // is a short decimal in the report.
    let start_us = if lo.is_finite() { (lo * 1e6).floor() } else { 0.0 };
    let width_us = if hi > lo { ((hi - lo) * 1e6 / MAX_SEQUENCE_BINS as f64).ceil().max(1.0) } else { 1.0 };
    let (start, width) = (start_us / 1e6, width_us / 1e6);
    let bin_start = |k: usize| (start_us + k as f64 * width_us) / 1e6;
    let sent_again = resends(d[s_in], base);
    let own = resends(d[r_in], base);
    // At the receiver side a datagram matched at the sender side is a resend when what
    // left was one; one seen there only is judged by what had arrived.
    let arrived_again: Vec<bool> = (0..d[r_in].len())
        .map(|j| match m.how[r_in][j] {
            EXACT | PIECE => sent_again.get(m.partner[r_in][j] as usize).copied().unwrap_or(false),
            _ => own[j],
        })
        .collect();
    let side = |input: usize, again: &[bool]| {
        let mut seq = Unwrap { raw: base, rel: 0 };
        let mut bins: Vec<Option<TwinSequenceBin>> = vec![None; MAX_SEQUENCE_BINS];
        let mut acks: Vec<Option<TwinAckPoint>> = vec![None; MAX_SEQUENCE_BINS];
        let mut out = TwinSequenceSide::default();
        for (i, x) in d[input].iter().enumerate() {
            let t = at(input, x);
            let k = (((t - start) / width) as usize).min(MAX_SEQUENCE_BINS - 1);
            if x.dir() == 0 && x.len > 0 {
                let s = seq.rel(x.seq);
                let e = s + i64::from(x.len);
                let b = bins[k].get_or_insert(TwinSequenceBin { t: bin_start(k), seq_min: s, seq_max: e, count: 0, retransmitted: 0 });
                (b.seq_min, b.seq_max) = (b.seq_min.min(s), b.seq_max.max(e));
                b.count += 1;
                b.retransmitted += u32::from(again[i]);
                out.datagrams += 1;
                out.retransmitted += u64::from(again[i]);
            } else if x.dir() == 1 && x.has_ack() {
                let a = seq.rel(x.ack);
                if acks[k].map_or(true, |p| a > p.ack) {
                    acks[k] = Some(TwinAckPoint { t: bin_start(k), ack: a });
                }
            }
        }
        out.bins = bins.into_iter().flatten().collect();
        out.acks = acks.into_iter().flatten().collect();
        out
    };
    TwinSequence { start, bin_width: width, sender_side: side(s_in, &sent_again), receiver_side: side(r_in, &arrived_again) }
}

/// For each event of a datagram seen at one capture only, when it was due at the other
/// (merged view seconds): one floor (the direction's fastest one-way delay, ns; the
/// earliest it could have been there) after it left, for one seen leaving (lost
/// between, not seen at the receiver side, undecided), or one floor before it
/// arrived, for one seen arriving (not seen at the sender side). Seen at both
/// (reordered, duplicated): none.
pub fn due_times(events: &mut [TwinEvent], floor: [f64; 2]) {
    for e in events {
        let r = usize::from(e.direction.min(1));
        e.due = match e.kind {
            "lost-between" | "not-seen-at-receiver-side" | "undecided" => Some(e.t + floor[r] / 1e9),
            "not-seen-at-sender-side" => Some(e.t - floor[r] / 1e9),
            _ => None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sequence number just below 2^32 and one just past it read 2^32 apart from the
    /// base, not 4 GiB backwards; an older one after it stays older.
    #[test]
    fn sequence_numbers_unwrap_past_two_to_the_32() {
        let mut u = Unwrap { raw: 0xffff_ff00, rel: 0 };
        assert_eq!(u.rel(0xffff_ff00 + 0x80), 0x80);
        assert_eq!(u.rel(0x0000_0010), 0x110);
        assert_eq!(u.rel(0xffff_fff0), 0xf0);
    }

    /// A datagram starting below the highest end sent before is a resend; a SYN's
    /// sequence number counts for the highest end, so the first data is not.
    #[test]
    fn a_resend_starts_below_the_highest_end() {
        use crate::decode::tcp_flags::{ACK, SYN};
        let data = |seq: u32, len: u32, flags: u8| Dgram { seq, len, flags, ..Dgram::default() };
        let list = [data(100, 0, SYN), data(101, 10, ACK), data(111, 10, ACK), data(101, 10, ACK), data(121, 10, ACK)];
        assert_eq!(resends(&list, 100), [false, false, false, true, false]);
    }
}
