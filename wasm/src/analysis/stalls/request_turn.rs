//! A loss of the peer's request starts when the request was first sent (docs/ANALYSIS.md
//! "Stall causes", rule 2d). A `retransmission-timeout` stall of rule 2c — the sender
//! waited for the peer's next request, which was lost and re-sent by the peer's timer —
//! runs from the sender's last data; but the peer's timer was armed only when it first
//! sent the request (RFC 6298 §5.1), and before that the peer had not asked: its own
//! pause, no loss. Such a stall is split at the request's first transmission: the time
//! before is `application-idle` (the peer's application), the time after stays the
//! timeout. suricata-verify `filestore-5408` connection 0: the server's last data at
//! 0.4316 s, the client's next request first sent at 1.2539 s (frames 18–19), lost
//! and re-sent at 2.1487 s, answered at 2.2751 s: 0.82 s of the client's pause had read
//! as 1.8 s of "Nothing got through".

use super::cause::{whole_ns, Stall, StallCause};
use crate::analysis::format::{format_duration, format_timestamp};
use crate::analysis::rows::columns::{flag_bits as fb, PacketColumns};

/// Rows before a stall looked at for the sender's highest byte (bounded: a stall per gap).
const LOOK_BACK: usize = 256;

/// Splits each such stall of `dir` where both parts are stalls at `threshold_s`.
pub fn split(stalls: &mut Vec<Stall>, cols: &PacketColumns, dir: u8, threshold_s: f64) {
    let mut out = Vec::with_capacity(stalls.len());
    for s in stalls.drain(..) {
        match request_sent(&s, cols, dir).filter(|&(k, _)| cols.t[k] - s.start >= threshold_s && s.start + s.duration - cols.t[k] >= threshold_s) {
            Some((k, bytes)) => {
                let (tk, end) = (cols.t[k], s.start + s.duration);
                let words = format!(
                    "the peer's request of {bytes} bytes, first sent at {} ({} after this side's last data: the peer's application), then lost and re-sent by the peer's timer",
                    format_timestamp(tk),
                    format_duration(tk - s.start)
                );
                out.push(Stall { duration: whole_ns(tk - s.start), cause: StallCause::ApplicationIdle, frame_after: cols.frame[k], ended_by: words, ..s.clone() });
                out.push(Stall { start: tk, duration: whole_ns(end - tk), frame_before: cols.frame[k], ..s });
            }
            None => out.push(s),
        }
    }
    *stalls = out;
}

/// For a timeout stall of `dir` ended by new data (not a re-send of its own) after the
/// peer acknowledged everything `dir` had sent: the row of the peer's first new payload
/// in the gap, where the peer re-sent (not needlessly) bytes of it later in the gap,
/// and the bytes of new payload the peer sent in the gap (its request).
fn request_sent(s: &Stall, cols: &PacketColumns, dir: u8) -> Option<(usize, u64)> {
    if s.cause != StallCause::RetransmissionTimeout {
        return None;
    }
    let (i, j) = cols.rows_of(s.frame_before, s.frame_after, s.start, s.duration)?;
    if cols.flags[j] & fb::ANY_RETRANSMISSION != 0 || cols.dir[i] != dir {
        return None;
    }
    let peer = |r: &usize| cols.dir[*r] != dir && cols.len[*r] > 0;
    let new = |r: &usize| cols.flags[*r] & fb::ANY_RETRANSMISSION == 0;
    let k = (i + 1..j).filter(peer).find(new)?;
    // Everything the sender had sent (its highest byte among its last `LOOK_BACK` rows: the
    // gap may begin with a re-send below it), acknowledged before the request.
    let sent_end = (i.saturating_sub(LOOK_BACK)..=i).filter(|&r| cols.dir[r] == dir).map(|r| cols.seq[r] + f64::from(cols.len[r])).fold(f64::NEG_INFINITY, f64::max);
    let acked_all = (i + 1..=k).any(|r| cols.dir[r] != dir && cols.ack[r] >= sent_end);
    let (lo, hi) = (cols.seq[k], cols.seq[k] + f64::from(cols.len[k]));
    let timer = |r: &usize| super::peer_timer_resend(cols.flags[*r]);
    let resent = (k + 1..j).filter(peer).filter(timer).any(|r| cols.seq[r] < hi && cols.seq[r] + f64::from(cols.len[r]) > lo);
    // Not where the peer's timer re-sent bytes below `k`'s too: they were first sent
    // before it (before the gap, or in it as a re-send), the peer's timer ran from their
    // first sending (RFC 6298 §5.1), and the time before `k` was no pause of the peer's
    // but already the loss (bhavesh7reddy IP-Address-Analyser `cn.pcapng` connection
    // 16: the client's request first sent at 8.987 s, before the server's last data,
    // its 39-B follow-up the first new payload in the gap).
    let asked_before = (k + 1..j).filter(peer).filter(timer).any(|r| cols.seq[r] < lo);
    let bytes = (k..j).filter(peer).filter(new).map(|r| u64::from(cols.len[r])).sum();
    (acked_all && resent && !asked_before).then_some((k, bytes))
}
