//! Where the transfer began (issue 39 review AF class C-PHASE-MIX): the mirror of the
//! idle tail (transfer_end.rs) at the connection's head. A connection on which the two
//! applications first exchanged small messages for seconds (a peer-to-peer client's
//! handshake and chatter, a control protocol's negotiation) and only then moved its
//! bytes in one bulk phase has two lives: the exchange, whose pauses are the
//! conversation (each side waiting for the other's next message), and the transfer.
//! Judging the limit over both made a 738 kB upload that queued on the uplink for 3 s
//! (RTT 149 → 346 ms, 128 KiB in flight) read "the applications limited this flow:
//! 58 % of the time … waiting for the peer's next message", because 5 s of 200-byte
//! messages came before it (wenjie01 "lab final 7-13", conn 65). The headline answers
//! what would have made the transfer faster (issue 39 §3), so the shares are of the
//! bulk phase and the head is said in one clause, as the tail is.
//!
//! The rule, from the data direction's `application-idle` stalls (everything sent
//! acknowledged and nothing sent for longer than the stall threshold — stalls/gaps.rs),
//! which cut its data into bursts: the transfer begins at the first segment of the
//! first burst of at least [`BULK_MIN_SEGMENTS`] full segments where
//! - at least two bursts came before it, every one — and every run of the peer's data
//!   segments — a message (below [`MESSAGE_SEGMENTS`] full segments, savings.rs's line
//!   between a message and a transfer), and the peer sent data between them: an
//!   exchange of messages, turns both ways — not one server flight and its answer, nor
//!   a keep-alive connection's earlier responses;
//! - every stall before it was `application-idle`: a head with a re-send timer or a
//!   closed window had trouble of its own, which stays in the shares;
//! - the bulk phase carried at least [`BULK_SHARE`] of the direction's new bytes;
//! - the head lasted at least [`HEAD_MIN_THRESHOLDS`] stall thresholds (each
//!   max(10 ms, 4 × min RTT)) and the bulk phase at least one: a TLS or HTTP handshake
//!   before a single answer takes a few round trips and is the first answer's wait
//!   (first_byte.rs), and a bulk phase of a round trip or two cannot be judged;
//! - and the head took at least [`HEAD_MIN_SHARE`] of the time from the first data to
//!   the transfer's end: a shorter head changes no share materially and is not cut;
//! - the sender's own answer time in the head stays below [`OWN_ANSWER_SHARE`] of it.
//!
//! A connection of requests and responses all along (no burst of ten segments) has no
//! bulk phase and is never cut; nor one whose messages carried more than a tenth of the
//! bytes (the messages are then part of the workload).

use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::cause::{Stall, StallCause};
use crate::analysis::stalls::is_data_segment;

/// The bulk phase carries at least this share of the direction's new payload bytes.
pub const BULK_SHARE: f64 = 0.90;
/// A burst of at least this many full segments is a bulk phase (savings.rs
/// `BULK_SEGMENTS`, the line of the headline's "bursts of at least 10 full segments"):
/// RFC 6928's initial window and more, several round trips of it, enough to judge.
pub const BULK_MIN_SEGMENTS: f64 = crate::analysis::verdict::savings::BULK_SEGMENTS;
/// Every burst of the head, either side's, stays below this many full segments: a
/// message (savings.rs `MESSAGE_SEGMENTS`), not a response or upload of its own.
pub const MESSAGE_SEGMENTS: f64 = crate::analysis::verdict::savings::MESSAGE_SEGMENTS;
/// The head lasts at least this many stall thresholds (8 × the minimum RTT).
pub const HEAD_MIN_THRESHOLDS: f64 = 2.0;
/// The head takes at least this share of the time from the first data to the end.
pub const HEAD_MIN_SHARE: f64 = 0.25;
/// The sender's own answer time (from the peer's message to its next data) stays below
/// this share of the head: the head's pauses were mostly the wait for the peer, as the
/// turns' reading (wait_words.rs `peer_turns`, half the application's time) has it. A
/// head in which the sender sat on the peer's request (a TLS server that answered a
/// request 3.4 s later, suricata-verify `tls-cert-issuer` #3) held the sender's own
/// waits, which the text says (answer_waits.rs), and is not cut.
pub const OWN_ANSWER_SHARE: f64 = 0.5;

pub use crate::analysis::stalls::transfer_start::TransferStart;

/// The head cut of direction `dir`, if the rule holds. `full_segment`: a full segment's
/// payload; `threshold_s`: the stall threshold; `end_t`: the transfer's end (capture
/// time of its last data segment).
pub fn transfer_start(cols: &PacketColumns, dir: u8, stalls: &[Stall], full_segment: f64, threshold_s: f64, end_t: f64) -> Option<TransferStart> {
    if !(full_segment > 0.0 && threshold_s > 0.0) {
        return None;
    }
    let (bulk_min, message_max) = (BULK_MIN_SEGMENTS * full_segment, MESSAGE_SEGMENTS * full_segment);
    let idle_after: Vec<u32> = stalls.iter().filter(|s| s.cause == StallCause::ApplicationIdle).map(|s| s.frame_after).collect();
    // Bursts of new bytes (sequence space past the highest sent), cut where an idle
    // stall ended; the first whose bytes reach `bulk_min` is the bulk phase.
    let (mut high, mut burst, mut burst_row, mut bursts, mut peer_between) = (f64::NAN, 0.0, None::<usize>, 0u32, 0u32);
    let (mut total, mut before) = (0.0, f64::NAN);
    let mut bulk_row = None;
    let mut peer_seen = false;
    for i in 0..cols.t.len() {
        if cols.dir[i] != dir {
            // A keep-alive's garbage byte (RFC 1122 §4.2.3.6) is no message.
            peer_seen |= cols.len[i] > 0 && cols.flags[i] & crate::analysis::rows::columns::flag_bits::KEEP_ALIVE == 0 && bulk_row.is_none();
            continue;
        }
        if !is_data_segment(cols, i, dir) {
            continue;
        }
        if bulk_row.is_none() && burst_row.is_some() && idle_after.contains(&cols.frame[i]) {
            if burst >= message_max {
                return None;
            }
            bursts += 1;
            peer_between += u32::from(peer_seen);
            burst = 0.0;
            burst_row = None;
            peer_seen = false;
        }
        let (seq, end) = (cols.seq[i], cols.seq[i] + f64::from(cols.len[i]));
        let new = if high.is_nan() { end - seq } else { (end - high).max(0.0) };
        if high.is_nan() || end > high {
            high = end;
        }
        total += new;
        if bulk_row.is_none() {
            burst_row = burst_row.or(Some(i));
            burst += new;
            if burst >= bulk_min {
                bulk_row = burst_row;
                before = total - burst;
            }
        }
    }
    let row = bulk_row?;
    let at = cols.t[row];
    let first = (0..cols.t.len()).find(|&i| cols.len[i] > 0 && cols.flags[i] & u32::from(crate::decode::tcp_flags::SYN) == 0)?;
    let head_seconds = at - cols.t[first];
    let trouble = stalls.iter().any(|s| s.start < at && s.cause != StallCause::ApplicationIdle);
    let bulk_share = if total > 0.0 { (total - before) / total } else { 0.0 };
    let ok = bursts >= 2
        && peer_between >= 1
        && !trouble
        && bulk_share >= BULK_SHARE
        && head_seconds >= HEAD_MIN_THRESHOLDS * threshold_s
        && end_t - at >= threshold_s
        && head_seconds >= HEAD_MIN_SHARE * (end_t - cols.t[first]);
    if !ok {
        return None;
    }
    // The head's messages: runs of one side's data segments. The peer's must be
    // messages too (each below `bulk_min`): a peer that uploaded in the head had a
    // transfer of its own there.
    let (mut own, mut peer, mut bytes, mut last_dir, mut run) = (0u32, 0u32, 0.0, None, 0.0);
    // The sender's own answer time in the head: from the peer's last message segment to
    // the sender's next data, the bulk's first segment included ([`OWN_ANSWER_SHARE`]).
    let (mut own_wait, mut peer_t) = (0.0, None::<f64>);
    for i in first..=row {
        if cols.len[i] == 0 || cols.flags[i] & u32::from(crate::decode::tcp_flags::SYN) != 0 || cols.flags[i] & crate::analysis::rows::columns::flag_bits::KEEP_ALIVE != 0 {
            continue;
        }
        if cols.dir[i] == dir {
            own_wait += peer_t.take().map_or(0.0, |p| cols.t[i] - p);
        } else {
            peer_t = Some(cols.t[i]);
        }
        if i == row {
            break;
        }
        if last_dir != Some(cols.dir[i]) {
            if cols.dir[i] == dir { own += 1 } else { peer += 1 }
            last_dir = Some(cols.dir[i]);
            run = 0.0;
        }
        run += f64::from(cols.len[i]);
        if cols.dir[i] != dir && run >= message_max {
            return None;
        }
        bytes += f64::from(cols.len[i]);
    }
    if own_wait >= OWN_ANSWER_SHARE * head_seconds {
        return None;
    }
    // The sender's messages: its runs, or its bursts where the peer only ACKed between.
    Some(TransferStart { at, frame: cols.frame[row], head_seconds, own_messages: own.max(bursts), peer_messages: peer, head_bytes: bytes, bulk_share })
}
