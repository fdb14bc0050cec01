//! A receiving host that held its ACKs (docs/ANALYSIS.md "Stall", "the receiving host
//! held its ACKs"; review X class C-RECEIVER-HOLD-AS-NETWORK).
//!
//! A sender waiting on ACKs (`ack-wait`) waits for the path or for the receiver. The
//! capture tells them apart where the wait ends in a batch: the receiver, silent since
//! before the stall, sends ACKs that together cover at least [`MIN_BATCH_SEGMENTS`]
//! full segments of data sent before the stall, all within [`BATCH_S`]. Such data had
//! been at the receiver (or on its way) the whole time; a path that delivers what it
//! holds at that rate (≥ 2 segments a millisecond) drains a queue of one flight in a
//! millisecond or two, so it cannot be what held them for many times longer. What held
//! them is either the path stopping (an outage) or the receiving host not acknowledging.
//! The host is shown where its window told of it just before: within the hold's own
//! length before the silence it advertised a zero window, or at least
//! [`MIN_FILLING_ACKS`] ACKs that advanced the acknowledgement while the window's right
//! edge (ACK + window, RFC 9293 §3.8.6) stood still — its receive buffer filling, its
//! application not reading. A host too busy to read is one too busy to acknowledge.
//!
//! The stall keeps its cause (`ack-wait`: the sender did wait on ACKs), and its
//! `ended_by` says who held them; the diagnosis then names the receiving host, not the
//! network, as what paced those waits (diagnosis/bulk_limit_words.rs), and no delay
//! spike is read from the round trips the hold lengthened (diagnosis_episodes.rs).
//! telzw (review X): a telnet sender's capture on a 119-µs LAN; the receiver advertised a
//! zero window (frame 100) and a shrinking one (166), then sent nothing for 70 ms and
//! then 12 segments' ACKs within 1 ms — once read "the RTT rose from 119 µs to 71 ms" and
//! "the network, not the application, set its pace".

use crate::analysis::format::{format_bytes, format_duration};
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::cause::{Stall, StallCause};
use crate::analysis::timing::peer_silences::TsSilences;

/// The ACKs that end a hold come within this of the first of them.
pub const BATCH_S: f64 = 0.001;
/// Fewest full segments of data sent before the stall that the batch acknowledges.
pub const MIN_BATCH_SEGMENTS: f64 = 2.0;
/// Fewest ACKs advancing with the window's right edge still that show a filling buffer.
pub const MIN_FILLING_ACKS: usize = 2;
/// Least share of a hold the receiver's own clock must see pass (`awake_words`).
pub const AWAKE_SHARE: f64 = 0.5;
/// Fewest ticks it must move (one tick is its rounding).
pub const AWAKE_TICKS: u32 = 2;
/// How a receiver hold's `ended_by` begins ([`is_hold`] finds them by it).
pub const HELD: &str = "the receiving host held its ACKs for";

/// Whether stall `s` was re-labelled here.
pub fn is_hold(s: &Stall) -> bool {
    s.ended_by.starts_with(HELD)
}

/// The span in which the receiver held the ACK that ended stall `s`, where it did: a
/// delayed ACK Nagle's algorithm waited for (delayed_ack.rs), or a hold named here, to
/// the end of its batch. A round trip completed in it times that host, not the path
/// (diagnosis_episodes.rs: no delay spike from it).
pub fn acks_held(s: &Stall) -> Option<(f64, f64)> {
    let end = s.start + s.duration;
    match s.cause {
        StallCause::DelayedAck => Some((s.start, end)),
        _ if is_hold(s) => Some((s.start, end + BATCH_S)),
        _ => None,
    }
}

/// Re-words direction `dir`'s `ack-wait` stalls that a receiver hold ended (module doc).
/// `mss`: the sender's full segment, bytes.
/// `ts`: the receiver's silences by its own TCP timestamps (timing/peer_silences.rs).
pub fn reword(stalls: &mut [Stall], cols: &PacketColumns, dir: u8, mss: f64, ts: Option<&TsSilences>) {
    // The sender's highest sequence sent, carried along: stalls are in time order.
    let (mut upto, mut sent) = (0usize, f64::NEG_INFINITY);
    for s in stalls.iter_mut().filter(|s| s.cause == StallCause::AckWait && !is_hold(s)) {
        let from = cols.t.partition_point(|&t| t <= s.start);
        for i in upto..from.max(upto) {
            if cols.dir[i] == dir && cols.len[i] > 0 {
                sent = sent.max(cols.seq[i] + f64::from(cols.len[i]));
            }
        }
        upto = upto.max(from);
        if let Some(words) = held(cols, dir, (s.start, s.start + s.duration), sent, mss, ts) {
            s.ended_by = words;
        }
    }
}

/// The words for a hold of the receiver (direction `1 - dir`) during the stall
/// (t0, t1], or None where the capture does not show one. `sent`: the end of the
/// sender's data by t0.
fn held(cols: &PacketColumns, dir: u8, (t0, t1): (f64, f64), sent: f64, mss: f64, ts: Option<&TsSilences>) -> Option<String> {
    let from = cols.t.partition_point(|&t| t <= t0);
    let to = cols.t.partition_point(|&t| t <= t1);
    // The receiver's first packet in the stall, and its last before.
    let a = (from..to).find(|&i| cols.dir[i] != dir)?;
    // (Searched back the stall's own length at most: a receiver silent longer before
    // it is not read, and a one-sided capture costs no pass per stall.)
    let back = cols.t.partition_point(|&t| t < t0 - (t1 - t0));
    let b = (back..from).rev().find(|&i| cols.dir[i] != dir)?;
    let hold = cols.t[a] - cols.t[b];
    // What the receiver had ACKed of it.
    let acked = cols.ack[b];
    if !(sent > acked) || !(mss > 0.0) {
        return None;
    }
    // The batch: the receiver's ACKs within BATCH_S of the first, up to the one that
    // covers all the sender had sent before the stall (later ones ACK new data).
    let end = cols.t.partition_point(|&t| t <= cols.t[a] + BATCH_S);
    let mut batch: Vec<usize> = Vec::new();
    for i in (a..end).filter(|&i| cols.dir[i] != dir && cols.ack[i].is_finite()) {
        batch.push(i);
        if cols.ack[i] >= sent {
            break;
        }
    }
    let top = batch.iter().map(|&i| cols.ack[i]).fold(acked, f64::max).min(sent);
    let covered = top - acked;
    // Many times the batch itself: a wait the batch's own pace could not have made.
    if batch.len() < 2 || covered < MIN_BATCH_SEGMENTS * mss || hold < 10.0 * BATCH_S {
        return None;
    }
    let (frame, window) = window_told(cols, dir, b, hold)?;
    let last = batch[batch.len() - 1];
    Some(format!(
        "{HELD} {} (its window had fallen to {} at frame {frame}, just before: its receive buffer filling), then acknowledged {} \
         ({:.0} full segments sent before the stall) in {} ACKs within {} (frames {}–{}): a path delivering at that pace holds no \
         queue that long, so the receiving host, not the network, kept the sender waiting{}",
        format_duration(hold),
        format_bytes(window),
        format_bytes(covered),
        (covered / mss).floor(),
        batch.len(),
        format_duration(cols.t[last] - cols.t[a]),
        cols.frame[a],
        cols.frame[last],
        ts.and_then(|ts| awake_words(ts, cols, (b, a), hold)).unwrap_or_default(),
    ))
}

/// Where the receiver's own TCP timestamps moved through its silence (rows `b` → `a`, the
/// capture's `hold` s) by at least [`AWAKE_SHARE`] of it and [`AWAKE_TICKS`] ticks, its
/// first ACK after was stamped at the silence's end, not its start: the host was awake
/// and sent it then — holding its ACKs by its own policy (a closed window, a delayed
/// ACK), not ACKs it sent at once that the path then held, nor a host whose clock had
/// stopped. Where they did not move, nothing more is said (the path may have held the
/// ACKs, or the host slept). telzw: the receiver's 10-ms clock moved 7 ticks (99619209
/// → 99619216, frames 167 → 173) over its 70-ms silence.
fn awake_words(ts: &TsSilences, cols: &PacketColumns, (b, a): (usize, usize), hold: f64) -> Option<String> {
    let (ticks, own) = ts.between(b, a)?;
    (ticks >= AWAKE_TICKS && own >= AWAKE_SHARE * hold).then(|| {
        format!(
            "; its TCP timestamps moved {ticks} ticks (about {}) from frame {} to frame {}: it sent that ACK at the silence's end, awake and holding its ACKs (a closed window or a delayed ACK), not at its start",
            format_duration(own),
            cols.frame[b],
            cols.frame[a]
        )
    })
}

/// The receiver's smallest window in its packets within `span` s before its packet `b`
/// (frame, bytes), where those packets show its buffer filling (module doc).
fn window_told(cols: &PacketColumns, dir: u8, b: usize, span: f64) -> Option<(u32, f64)> {
    let since = cols.t[b] - span;
    let mut prev: Option<(f64, f64)> = None; // (ack, right edge)
    let (mut filling, mut zero, mut least) = (0usize, false, None::<(u32, f64)>);
    let first = cols.t.partition_point(|&t| t < since);
    for i in (first..=b).filter(|&i| cols.dir[i] != dir && cols.ack[i].is_finite() && cols.win[i].is_finite()) {
        let (ack, win) = (cols.ack[i], cols.win[i]);
        if let Some((pa, pe)) = prev {
            if ack > pa && ack + win <= pe {
                filling += 1;
            }
        }
        zero |= win == 0.0;
        if least.is_none_or(|(_, w)| win < w) {
            least = Some((cols.frame[i], win));
        }
        prev = Some((ack, ack + win));
    }
    (zero || filling >= MIN_FILLING_ACKS).then_some(least).flatten()
}

#[cfg(test)]
#[path = "receiver_hold_tests.rs"]
mod tests;
