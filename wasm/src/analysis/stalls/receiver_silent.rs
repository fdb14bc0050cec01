//! A receiver that stopped answering, seen from its own side of the path.
//!
//! A live TCP receiver answers every segment that reaches it: new data within the
//! delayed-ACK bound (RFC 9293 §3.8.6.3: 0.5 s at most), a duplicate or a segment
//! outside its window at once (RFC 9293 §3.10.7.4; RFC 5681 §4.2). At a capture taken
//! on the receiver's side (vantage.rs), a segment the capture saw arrive has reached the
//! receiver's host. So when the sender's timer re-sends and those re-sends arrive, and
//! the receiver sends nothing at all for longer than that bound after one of them, the
//! data was not lost on the path: the receiving host or its stack stopped (a crashed or
//! suspended host, a dead process whose socket the kernel no longer serves, a firewall
//! on the host dropping after the capture point). Calling that "loss" or "nothing got
//! through" contradicts the capture, which shows the data getting through. Only where the
//! capture is on the receiver's host or its LAN (its packets carry an initial TTL,
//! vantage.rs `local_by_ttl`): a router or two away, the last stretch may have lost them.
//!
//! The stall is then the sender waiting on ACKs that never came (`ack-wait`), not loss
//! recovery: the sender's timer still fired (its timeouts stay counted), but no
//! repair of the path would have helped. Elsewhere (sender side, middle, unknown) the
//! capture cannot tell lost re-sends from a receiver gone, and the stalls keep their
//! cause; the outage sentence says which it cannot tell (diagnosis_episodes.rs).
//!
//! Also where a peer went silent for good ([`find`], [`PeerSilent`]): the data direction
//! re-sent into a silence that lasted to the connection's end, at any vantage point
//! (verdict/peer_silent.rs says it and cuts the transfer there).

use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::is_data_segment;

const RST: u32 = crate::decode::tcp_flags::RST as u32;
use crate::analysis::format::{format_duration, format_timestamp};
use crate::analysis::stalls::cause::Stall;
use crate::analysis::stalls::cause::StallCause;
use crate::analysis::timing::vantage::Vantage;

/// RTO stalls are one outage when the next begins within this of the previous end
/// (exponential backoff: each retransmission is lost again, RFC 6298 §5.5).
pub const OUTAGE_JOIN_S: f64 = 0.001;

/// RFC 9293 §3.8.6.3: a receiver MUST acknowledge within 0.5 s of a segment's arrival.
pub const MAX_ACK_DELAY_S: f64 = 0.5;

/// How a re-labelled stall's `ended_by` begins (what [`silent_runs`] finds them by).
const ENDED_BY: &str = "a re-send by the sender's timer";

/// The receiver's packets (direction `1 - dir`) in (a, b], capture time.
fn receiver_sent(cols: &PacketColumns, dir: u8, a: f64, b: f64) -> bool {
    let (from, to) = (cols.t.partition_point(|&t| t <= a), cols.t.partition_point(|&t| t <= b));
    (from..to).any(|i| cols.dir[i] != dir)
}

/// Re-labels as `ack-wait` the retransmission-timeout stalls of direction `dir` at a
/// receiver-side capture during which the receiver sent nothing, although a segment
/// that began one of them (captured, so arrived) went unanswered for more than
/// [`MAX_ACK_DELAY_S`] while the capture still ran. `capture_end`: the time of the
/// connection's last packet (silence after it is the capture's end, not the receiver's).
/// Returns how many stalls were re-labelled.
/// `receiver_on_host`: the receiver's packets leave the capture point with an initial TTL
/// (vantage.rs `local_by_ttl`): no router between them, so what the capture saw arrive
/// reached the receiving host. Without it, a receiver-side capture a router or two away
/// cannot exclude the last stretch losing every re-send, and the stalls stay timeouts.
pub fn reclassify(stalls: &mut [Stall], cols: &PacketColumns, dir: u8, vantage: Vantage, receiver_on_host: bool, capture_end: f64) -> usize {
    if vantage != Vantage::Receiver || !receiver_on_host {
        return 0;
    }
    let mut n = 0;
    // Runs of back-to-back timeout stalls (the backoff of one outage): the receiver's
    // silence is judged over the run, as the outage episode joins them.
    let mut k = 0;
    while k < stalls.len() {
        if stalls[k].cause != StallCause::RetransmissionTimeout {
            k += 1;
            continue;
        }
        let mut end = k + 1;
        while end < stalls.len()
            && stalls[end].cause == StallCause::RetransmissionTimeout
            && stalls[end].start - (stalls[end - 1].start + stalls[end - 1].duration) <= OUTAGE_JOIN_S
        {
            end += 1;
        }
        let (a, b) = (stalls[k].start, stalls[end - 1].start + stalls[end - 1].duration);
        // The first segment of the run arrived at `a`; the receiver owed an answer by
        // a + 0.5 s and gave none, nor anything else, until the last re-send at b.
        let ignored = a + MAX_ACK_DELAY_S <= b.min(capture_end) && !receiver_sent(cols, dir, a, b);
        if ignored {
            // The receiver's last packet before the run: what it last said.
            let last_heard = cols.t[..cols.t.partition_point(|&t| t <= a)].iter().zip(&cols.dir).rev().find(|(_, &d)| d != dir).map(|(&t, _)| t);
            let since = last_heard.map_or_else(|| "the capture began".to_string(), format_timestamp);
            for s in &mut stalls[k..end] {
                s.cause = StallCause::AckWait;
                s.ended_by = format!(
                    "{ENDED_BY} at {}; the receiver had sent nothing since {} though the data reached this capture on its host ({} without an answer)",
                    format_timestamp(s.start + s.duration),
                    since,
                    format_duration(s.start + s.duration - a)
                );
                n += 1;
            }
        }
        k = end;
    }
    n
}

/// Runs of stalls that [`reclassify`] re-labelled, as (start, end, count): the
/// episodes say them ("… stopped answering for …").
pub fn silent_runs(stalls: &[Stall]) -> Vec<(f64, f64, usize)> {
    let mut out: Vec<(f64, f64, usize)> = Vec::new();
    for s in stalls.iter().filter(|s| s.cause == StallCause::AckWait && s.ended_by.starts_with(ENDED_BY)) {
        let (a, b) = (s.start, s.start + s.duration);
        match out.last_mut() {
            Some(last) if a - last.1 <= OUTAGE_JOIN_S => {
                last.1 = b;
                last.2 += 1;
            }
            _ => out.push((a, b, 1)),
        }
    }
    out
}

/// A peer that stopped answering while the data direction still had data
/// unacknowledged, and never answered again (docs/ANALYSIS.md `diagnosis.peerSilent`;
/// verdict/peer_silent.rs). Capture times, s (the clock of `stalls[].start`).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PeerSilent {
    /// The transfer's end: the data direction's last data segment before the silence,
    /// and its frame.
    pub at: f64,
    pub frame: u32,
    /// The peer's last packet in the connection, and its frame.
    pub peer_last: f64,
    pub peer_last_frame: u32,
    /// The data direction's first data segment after it (never acknowledged), and its frame.
    pub first_unanswered: f64,
    pub first_unanswered_frame: u32,
    /// Data segments re-sent from then on, the first and the last one's time.
    pub resends: u64,
    pub first_resend: f64,
    pub last_resend: f64,
    /// The connection's last packet (the sender's: a re-send, its reset or its FIN),
    /// and whether it was the sender's reset (it gave up).
    pub until: f64,
    pub reset: bool,
    /// The peer's last packet was its own reset: it had ended the connection, and
    /// nothing could come back (review V, C-STALL-AFTER-RESET).
    pub peer_reset: bool,
}

/// Re-sends after the peer's last packet, at least: the timer fired again after a
/// first re-send that went unanswered.
pub const MIN_RESENDS: u64 = 2;
/// Seconds from the first of them to the connection's last packet, at least: longer
/// than any delayed ACK (0.5 s, RFC 9293 §3.8.6.3) plus a round trip of up to 0.5 s,
/// and RFC 6298 §2.4's floor on the retransmission timeout.
pub const MIN_SILENCE_S: f64 = 1.0;

/// The capture could see the peer go silent (review Q, C-BLIND-CAPTURE): it holds a
/// payload-less ACK of the peer's that acknowledges data (beyond `data_from`, the
/// sender's first data byte: not the handshake's last ACK; a capture that kept only payload — the payload-only
/// warning — drops every pure ACK, and a peer that only acknowledged looks silent), and
/// the sender, after the peer's last packet, acknowledges nothing of the peer's that
/// the capture did not see (an ACK beyond the peer's highest sequence seen — data, SYN
/// and FIN each take sequence space, RFC 9293 §3.4 — proves the peer sent more: the
/// capture lost it, the peer was not silent).
fn peer_seen_whole(cols: &PacketColumns, dir: u8, peer_last: usize, data_from: f64) -> bool {
    use crate::decode::tcp_flags::{FIN, SYN};
    let ends_nothing = |i: usize| cols.flags[i] & (u32::from(SYN | FIN) | RST) == 0;
    let peer = |i: &usize| cols.dir[*i] != dir;
    if !(0..cols.t.len()).filter(peer).any(|i| cols.len[i] == 0 && ends_nothing(i) && cols.ack[i] > data_from) {
        return false;
    }
    let flag_space = |i: usize| f64::from(u8::from(cols.flags[i] & u32::from(SYN) != 0) + u8::from(cols.flags[i] & u32::from(FIN) != 0));
    let peer_high = (0..=peer_last).filter(peer).map(|i| cols.seq[i] + f64::from(cols.len[i]) + flag_space(i)).fold(f64::NEG_INFINITY, f64::max);
    !(peer_last + 1..cols.t.len()).any(|i| cols.dir[i] == dir && cols.ack[i].is_finite() && cols.ack[i] > peer_high)
}

/// The silence of the peer of direction `dir` (verdict/peer_silent.rs module comment), and the row of the
/// first data segment after the peer's last packet (where the transfer's rows end).
pub fn find(cols: &PacketColumns, dir: u8) -> Option<(PeerSilent, usize)> {
    let n = cols.t.len();
    let peer_last = (0..n).rev().find(|&i| cols.dir[i] != dir)?;
    let first = (peer_last + 1..n).find(|&i| is_data_segment(cols, i, dir))?;
    let before = (0..first).rev().find(|&i| is_data_segment(cols, i, dir))?;
    // The highest byte sent before, the lowest data byte, and the peer's highest ACK.
    let (mut high, mut low, mut acked) = (f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for i in 0..first {
        if is_data_segment(cols, i, dir) {
            high = high.max(cols.seq[i] + f64::from(cols.len[i]));
            low = low.min(cols.seq[i]);
        } else if cols.dir[i] != dir && cols.ack[i].is_finite() {
            acked = acked.max(cols.ack[i]);
        }
    }
    // A transfer before the silence: the peer acknowledged some of the data.
    if !(acked > low) {
        return None;
    }
    if !peer_seen_whole(cols, dir, peer_last, low) {
        return None;
    }
    let (mut resends, mut first_resend, mut last_resend) = (0u64, f64::NAN, f64::NAN);
    for i in first..n {
        if !is_data_segment(cols, i, dir) {
            continue;
        }
        let end = cols.seq[i] + f64::from(cols.len[i]);
        if cols.seq[i] < high || cols.flags[i] & flag_bits::ANY_RETRANSMISSION != 0 {
            resends += 1;
            if first_resend.is_nan() {
                first_resend = cols.t[i];
            }
            last_resend = cols.t[i];
        }
        high = high.max(end);
    }
    let until = cols.t[n - 1];
    // A peer whose last packet is its reset has deleted the connection (RFC 9293
    // §3.10.7.4): its silence needs no timer's evidence, only a re-send it left
    // unanswered (review V, heartbleed-encrypted-success: the server re-sent by its timer
    // at 0.243 and 0.651 s after the client's reset at 0.036 s, told as a 608-ms stall).
    let peer_reset = cols.flags[peer_last] & RST != 0;
    let beyond_doubt = if peer_reset { resends >= 1 } else { resends >= MIN_RESENDS && until - first_resend >= MIN_SILENCE_S };
    if !beyond_doubt {
        return None;
    }
    let silent = PeerSilent {
        at: cols.t[before],
        frame: cols.frame[before],
        peer_last: cols.t[peer_last],
        peer_last_frame: cols.frame[peer_last],
        first_unanswered: cols.t[first],
        first_unanswered_frame: cols.frame[first],
        resends,
        first_resend,
        last_resend,
        until,
        reset: cols.dir[n - 1] == dir && cols.flags[n - 1] & RST != 0,
        peer_reset,
    };
    Some((silent, first))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stall(start: f64, duration: f64) -> Stall {
        Stall { start, duration, cause: StallCause::RetransmissionTimeout, frame_before: 1, frame_after: 2, ended_by: String::new() }
    }

    fn cols(rows: &[(f64, u8)]) -> PacketColumns {
        let mut c = PacketColumns::default();
        for &(t, d) in rows {
            c.t.push(t);
            c.dir.push(d);
        }
        c
    }

    #[test]
    fn re_sends_that_arrive_unanswered_are_the_receiver_stopping() {
        // Receiver-side capture: data (dir 0) at 1.0 s re-sent by the timer at 1.3,
        // 1.9 and 3.1 s (backoff), the receiver silent from 0.9 s on: 3 stalls whose
        // re-sends arrived and went unanswered 2.1 s > 0.5 s.
        let c = cols(&[(0.9, 1), (1.0, 0), (1.3, 0), (1.9, 0), (3.1, 0)]);
        let mut s = vec![stall(1.0, 0.3), stall(1.3, 0.6), stall(1.9, 1.2)];
        assert_eq!(reclassify(&mut s, &c, 0, Vantage::Receiver, true, 3.1), 3);
        assert!(s[0].ended_by.contains("sent nothing since 0.900 s"), "{}", s[0].ended_by);
        assert!(s.iter().all(|s| s.cause == StallCause::AckWait));
        let runs = silent_runs(&s);
        assert_eq!(runs.len(), 1);
        assert!((runs[0].0 - 1.0).abs() < 1e-9 && (runs[0].1 - 3.1).abs() < 1e-9 && runs[0].2 == 3, "{runs:?}");
    }

    #[test]
    fn a_receiver_that_answers_or_a_capture_elsewhere_keeps_the_timeout() {
        // The receiver ACKs the re-send at 1.31 s: a tail loss repaired by the timer.
        let c = cols(&[(1.0, 0), (1.3, 0), (1.31, 1), (1.9, 0), (3.1, 0)]);
        let mut s = vec![stall(1.0, 0.3), stall(1.3, 0.6), stall(1.9, 1.2)];
        assert_eq!(reclassify(&mut s, &c, 0, Vantage::Receiver, true, 3.1), 0);
        // One 0.3 s timeout, the receiver silent: within the 0.5 s it may delay an ACK.
        let c = cols(&[(1.0, 0), (1.3, 0), (1.5, 1)]);
        let mut s = vec![stall(1.0, 0.3)];
        assert_eq!(reclassify(&mut s, &c, 0, Vantage::Receiver, true, 1.5), 0);
        // At the sender the re-sends may have been lost on the way: kept.
        let c = cols(&[(1.0, 0), (1.3, 0), (1.9, 0), (3.1, 0)]);
        let mut s = vec![stall(1.0, 0.3), stall(1.3, 0.6), stall(1.9, 1.2)];
        assert_eq!(reclassify(&mut s, &c, 0, Vantage::Sender, true, 3.1), 0);
        // A receiver-side capture with a router between it and the receiver: kept.
        assert_eq!(reclassify(&mut s, &c, 0, Vantage::Receiver, false, 3.1), 0);
        assert!(s.iter().all(|s| s.cause == StallCause::RetransmissionTimeout));
    }
}
