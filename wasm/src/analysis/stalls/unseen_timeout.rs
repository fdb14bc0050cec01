//! A retransmission timeout the capture cannot see as one (docs/ANALYSIS.md "Stall
//! causes", `retransmission-timeout`): at a capture point past the loss (at the
//! receiver, or a tap downstream of the bottleneck), a segment lost at the tail of a
//! flight never reaches the capture, the receiver's ACKs say it has everything, and
//! the sender's timer re-sends the segment as if it were new data. The gap then reads
//! "everything acknowledged, nothing sent": application idle — while the sender was
//! waiting on its timer.
//!
//! Where the sender numbers its datagrams one per segment (Linux: datagram_ids.rs),
//! the numbering tells them apart outright: the segment that ends the gap follows a
//! skipped number — its first transmission, sent and never captured. A gap ended
//! without a skip is no timeout. Otherwise (Windows, macOS, IPv6, …):
//!
//! What tells them apart is what the sender does next. After a timeout its congestion
//! window is one segment (RFC 5681 §3.1: LW = 1 SMSS): it sends that segment alone,
//! and the next ones only when its ACK comes back, two at once (slow start). After an
//! idle application it restarts with its initial window (RFC 5681 §4.1: RW = min(IW,
//! cwnd), IW ≥ 2 segments, RFC 3390; Linux 10, RFC 6928), sent back to back. So a stall
//! found `application-idle` is a timeout when the segment that ends it went alone, the
//! receiver's pure ACK of it came back, the sender's next segment followed that ACK
//! within a round trip and a half, and another came right behind it, all full segments. Linux, 5 % loss
//! without SACK, captured at the client: a 228 ms "application idle" stall was the
//! kernel's one TCPTimeouts (its first transmission dropped before the client).

use crate::analysis::rows::columns::flag_bits::{CAPTURE_LOSS, HELD_ON_PATH, LOST_SEGMENT, UNSEEN_BEFORE};
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::format::format_timestamp;
use crate::analysis::stalls::cause::Stall;
use crate::analysis::stalls::cause::StallCause;

/// Rows looked at after the segment that ends the gap, at most.
const LOOK_AHEAD: usize = 64;

/// Re-labels the stalls of direction `dir` that ended in a re-send of a segment the
/// capture never saw: `application-idle`, `ack-wait` and `delayed-ack` ones told by the
/// sender's datagram numbering where it numbers one per segment (`numbered`,
/// datagram_ids.rs), else `application-idle` ones by a congestion window of one segment. `lag_s`: the sender lag (capture → sender → capture; 0 at
/// the sender, where a timeout's re-send is seen as one and stalls/gaps.rs names it);
/// `path_rtt_s`: the path RTT, if known; `full_segment`: a full segment's payload for
/// this sender (delayed_ack.rs `full_segment`).
pub fn reclassify(stalls: &mut [Stall], p: &PacketColumns, dir: u8, lag_s: f64, path_rtt_s: Option<f64>, full_segment: u32, numbered: bool) {
    if !(lag_s > 0.0) {
        return;
    }
    let rtt = path_rtt_s.unwrap_or(lag_s).max(lag_s);
    // Gaps in which the capture shows the sender waiting with nothing lost: idle, or on
    // an ACK (a delayed one among them). A lost datagram it never saw can end any of them.
    let waiting = |c: StallCause| matches!(c, StallCause::ApplicationIdle | StallCause::AckWait | StallCause::DelayedAck);
    for s in stalls.iter_mut().filter(|s| waiting(s.cause)) {
        let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        // A request of the peer during the gap: the sender answered it (turn-taking,
        // tcpdump's of13_ericsson.pcapng), it was not waiting on a timer.
        if p.peer_payload_in(i..j, dir) {
            continue;
        }
        if numbered {
            // The numbering says it outright: datagrams were sent just before the one
            // that ends the gap and never captured. Where that one starts where the
            // captured data ended, they carried its own data — its first transmission,
            // lost before the capture point (a tail loss: nothing was sent after it,
            // so no ACK could have told the sender, and only a timer re-sends it —
            // whatever the gap looked like, as stalls/gaps.rs rule 2 at the sender). Where
            // it starts beyond a hole, they carried the hole's data, unacknowledged
            // through a gap in which no ACK came (application idle) until the sender's
            // timer sent again (a tail-loss probe sends new data, RFC 8985 §7.3); with
            // ACKs during the gap (ack-wait) the new data may have been clocked by them —
            // unless every one came too late for that: an ACK captured at t reaches the
            // sender, and data it clocks the capture, half a sender lag later at the
            // earliest (`window_of_one`'s test). rx-heavy-loss.pcap at 1.383 s: a 45 ms gap
            // ended by new data beyond a hole 1.3 ms after the client's delayed ACK, with
            // 10 ms of sender lag and a TSval 45 ms after the last one before the gap — the
            // server's probe timer (its kernel counted 5 TCPLossProbes), once read "waiting
            // on ACKs"; at 1.449 s the new data came 5.2 ms after the ACK, which may have
            // clocked it, and the gap stays.
            // Unless the capture itself dropped them (CAPTURE_LOSS: the receiver
            // acknowledged the hole). A numbering without a skip says the sender sent
            // nothing unseen: no timeout.
            let f = p.flags[j];
            let hole = f & LOST_SEGMENT != 0;
            let clocked = || (i + 1..j).any(|r| p.dir[r] != dir && p.t[j] - p.t[r] >= 0.5 * lag_s);
            // Not where the sender's clock says it sent the segment right after the one
            // before the gap (HELD_ON_PATH, sender_clock.rs): a re-send by a timer
            // carries the time it was re-sent.
            if f & (UNSEEN_BEFORE | CAPTURE_LOSS | HELD_ON_PATH) == UNSEEN_BEFORE && (!hole || s.cause == StallCause::ApplicationIdle || !clocked()) {
                s.cause = StallCause::RetransmissionTimeout;
                s.ended_by = if !hole {
                    format!(
                        "a re-send at {}: the sender's IPv4 Identification skipped the datagrams just before it, \
                         never captured (lost before the capture point) and nothing sent after them, so its \
                         timer re-sent the data (a tail-loss probe or a retransmission timeout)",
                        format_timestamp(p.t[j])
                    )
                } else {
                    format!(
                        "new data at {} after a hole: the sender's IPv4 Identification skipped the datagrams that \
                         carried the hole's data, lost before the capture point and unacknowledged through the \
                         gap, until its timer sent again (a tail-loss probe or a retransmission timeout)",
                        format_timestamp(p.t[j])
                    )
                };
            }
            continue;
        }
        if s.cause != StallCause::ApplicationIdle {
            continue;
        }
        // Without a numbering the pattern alone is no timeout: nothing counted was
        // re-sent, and a small write sent alone looks the same (DESIGN.md "Diagnosis
        // principles" 1 and 3: a timeout is claimed only where a re-send shows it). So
        // the gap is no longer said to be an idle application, nor a timeout: unknown.
        if let Some(t) = window_of_one(p, dir, j, lag_s, rtt, full_segment) {
            s.cause = StallCause::Unknown;
            s.ended_by = format!(
                "a segment sent alone at {}, the next ones only on its ACK a round trip later: a congestion \
                 window of one segment, as after a retransmission timeout whose first transmission was lost \
                 before the capture point — or a write the application sent alone; nothing re-sent shows \
                 which",
                format_timestamp(t)
            );
        }
    }
}

/// When segment `j` of `dir` went alone and the next two only on its ACK (see the
/// module comment), its capture time. The next segment must come at least half a
/// sender lag after that ACK (the ACK's way to the sender and the data's back): one
/// that comes sooner was already on its way, part of a burst the receiver ACKed piece
/// by piece (rx-cubic-loss.pcap, 0.691 s: six segments in 80 µs after an 80 ms hole,
/// their TSvals 6 ms after the last ones before it — delayed on the path, not timed
/// out; the kernel counted no timeout).
fn window_of_one(p: &PacketColumns, dir: u8, j: usize, lag_s: f64, rtt: f64, full_segment: u32) -> Option<f64> {
    let data = |i: usize| p.dir[i] == dir && p.len[i] > 0;
    // Full segments only: a bulk sender's (a message protocol's small writes answered
    // one by one keep the same rhythm: tcpdump's of13_ericsson.pcapng, an OpenFlow
    // switch's 9 messages, once read as a timeout). `full_segment`: delayed_ack.rs.
    let full = |i: usize| data(i) && p.len[i] >= full_segment.max(1);
    let peer = |i: usize| p.dir[i] != dir;
    if !full(j) {
        return None;
    }
    let end = p.seq[j] + f64::from(p.len[j]);
    let rows = j + 1..(j + 1 + LOOK_AHEAD).min(p.t.len());
    // The peer's pure ACK of it, before any other data of ours or of the peer.
    let ack = rows.clone().find(|&i| data(i) || (peer(i) && (p.len[i] > 0 || p.ack[i] >= end)))?;
    if !(peer(ack) && p.len[ack] == 0) {
        return None;
    }
    // Our next segment: clocked by that ACK (within a round trip and a half of it),
    // new data, with no request of the peer in between; and a second one right behind.
    let mut next = (ack + 1..rows.end).filter(|&i| data(i) || (peer(i) && p.len[i] > 0));
    let (k, k2) = (next.next()?, next.next()?);
    let after_ack = p.t[k] - p.t[ack];
    let clocked = full(k) && after_ack >= 0.5 * lag_s && after_ack <= 1.5 * rtt + 0.001 && p.seq[k] >= end;
    let behind = full(k2) && p.t[k2] - p.t[k] <= 0.25 * rtt && p.seq[k2] >= p.seq[k] + f64::from(p.len[k]);
    (clocked && behind).then_some(p.t[j])
}

#[cfg(test)]
mod tests {
    use crate::analysis::track::testseg::{run, Seg};
    use crate::analysis::stalls::cause::StallCause;
    use crate::analysis::timing::vantage::Vantage;
    use crate::decode::tcp_flags::{ACK, SYN};

    /// A download captured at client A: B's data, each segment ACKed by A within 10 µs,
    /// 10 ms path (the handshake's SYN → SYN/ACK). Ten segments from 20 ms; the
    /// eleventh never reaches the capture; `after` = (time, segments) sent after the
    /// gap, each group back to back, each segment ACKed at once.
    fn download(after: &[(f64, u32)]) -> crate::analysis::report::Analysis {
        run(download_segments(after))
    }

    /// `download` with B numbering its datagrams as Linux does (one per segment),
    /// 11 (the lost eleventh segment's number) skipped when `skip`.
    fn numbered_download(after: &[(f64, u32)], skip: bool) -> crate::analysis::report::Analysis {
        // B sends the SYN/ACK and ten segments before the gap: its 12th datagram
        // comes after the one lost.
        let (mut sent, mut next) = (0, 0u16);
        let segs = download_segments(after).into_iter().map(|s| {
            if !s.from_b() {
                return s;
            }
            sent += 1;
            next += if skip && sent == 12 { 2 } else { 1 };
            s.ip_id(next)
        });
        run(segs.collect())
    }

    fn download_segments(after: &[(f64, u32)]) -> Vec<Seg> {
        const LEN: u32 = 1448;
        let mut segs = vec![
            Seg::a_to_b(0.0).seq(1000).flags(SYN).mss(1460),
            Seg::b_to_a(0.010).seq(5000).ack(1001).flags(SYN | ACK).mss(1460),
            Seg::a_to_b(0.01001).seq(1001).ack(5001),
            Seg::a_to_b(0.01002).seq(1001).ack(5001).len(64),
        ];
        let send = |segs: &mut Vec<Seg>, t: f64, seq: u32| {
            segs.push(Seg::b_to_a(t).seq(seq).ack(1065).len(LEN));
            segs.push(Seg::a_to_b(t + 0.00001).seq(1065).ack(seq + LEN));
        };
        let mut next = 5001u32;
        for k in 0..10 {
            send(&mut segs, 0.020 + 0.0001 * f64::from(k), next);
            next += LEN;
        }
        // The eleventh (at 21 ms) is lost before the capture point: the capture's ACKs
        // say A has everything, and its re-send comes as "new" data.
        for &(t, n) in after {
            for k in 0..n {
                send(&mut segs, t + 0.0001 * f64::from(k), next);
                next += LEN;
            }
        }
        segs
    }

    #[test]
    fn a_window_of_one_segment_after_the_gap_is_no_idle_sender() {
        // 230 ms after the last segment the lost one comes alone (the RTO's re-send,
        // cwnd 1, RFC 5681 §3.1), the next two only on its ACK, 10 ms later. Without the
        // sender's numbering nothing counted was re-sent, and a lone write looks the
        // same: not an idle application, and no timeout claimed either — unknown
        // (issue 39: a timeout only where a re-send shows it).
        let a = download(&[(0.250, 1), (0.26002, 2), (0.27003, 4)]);
        let c = &a.connections[0];
        assert_eq!(c.vantage, Vantage::Receiver, "{}", c.path_rtt_method);
        let st = &c.directions[c.data_direction as usize].stalls;
        assert_eq!(st.len(), 1, "{st:?}");
        assert_eq!(st[0].cause, StallCause::Unknown, "{}", st[0].ended_by);
        assert!(st[0].ended_by.starts_with("a segment sent alone at 0.250 s"), "{}", st[0].ended_by);
        // An idle application restarts with its initial window, ten back to back
        // (RFC 5681 §4.1, RFC 6928): idle, as before.
        let a = download(&[(0.250, 10)]);
        let st = &a.connections[0].directions[a.connections[0].data_direction as usize].stalls;
        assert_eq!(st[0].cause, StallCause::ApplicationIdle, "{}", st[0].ended_by);
        // One alone, but the next two in the same burst, ACKed piece by piece as they
        // came (0.1 ms, not a round trip, after the ACK): delayed on the path, not a timer.
        let a = download(&[(0.250, 1), (0.25011, 2)]);
        let st = &a.connections[0].directions[a.connections[0].data_direction as usize].stalls;
        assert_eq!(st[0].cause, StallCause::ApplicationIdle, "{}", st[0].ended_by);
    }

    #[test]
    fn the_senders_datagram_numbering_decides_where_it_numbers_one_per_segment() {
        let cause = |a: &crate::analysis::report::Analysis| {
            let c = &a.connections[0];
            let d = &c.directions[c.data_direction as usize];
            (d.unseen_datagrams, d.stalls[0].cause)
        };
        // B's numbering skips the eleventh segment's datagram: sent, never captured.
        // Its re-send 230 ms later starts a full initial window (a tail-loss probe
        // followed by new data): no window of one, yet the numbering says timeout.
        let a = numbered_download(&[(0.250, 10)], true);
        assert_eq!(cause(&a), (Some(1), StallCause::RetransmissionTimeout));
        let st = &a.connections[0].directions[1].stalls[0];
        assert!(st.ended_by.starts_with("a re-send at 0.250 s: the sender's IPv4 Identification skipped"), "{}", st.ended_by);
        // No skip: the sender sent nothing the capture missed, so even a window of one
        // segment after the gap (the rule without numbering) is not a timeout.
        let a = numbered_download(&[(0.250, 1), (0.26002, 2), (0.27003, 4)], false);
        assert_eq!(cause(&a), (Some(0), StallCause::ApplicationIdle));
    }

    /// A download captured at client A from B, which numbers its datagrams one per
    /// segment (1 the SYN/ACK, 2..21 the data): twenty segments (enough steps to trust
    /// its numbering), each ACKed at once but the last, whose delayed ACK comes 43 ms
    /// later (Linux's 40 ms timer). Returns the segments and the next sequence number.
    fn twenty_then_a_delayed_ack() -> (Vec<Seg>, u32) {
        let mut v = vec![
            Seg::a_to_b(0.0).seq(1000).flags(SYN).mss(1460),
            Seg::b_to_a(0.010).seq(5000).ack(1001).flags(SYN | ACK).mss(1460).ip_id(1),
            Seg::a_to_b(0.01001).seq(1001).ack(5001),
            Seg::a_to_b(0.01002).seq(1001).ack(5001).len(64),
        ];
        let mut next = 5001u32;
        for k in 0..20u16 {
            let t = 0.020 + 0.0001 * f64::from(k);
            v.push(Seg::b_to_a(t).seq(next).ack(1065).len(LEN).ip_id(2 + k));
            next += LEN;
            let ack_at = if k == 19 { t + 0.043 } else { t + 0.00001 };
            v.push(Seg::a_to_b(ack_at).seq(1065).ack(next));
        }
        (v, next)
    }

    const LEN: u32 = 1448;
    /// When the 20th segment of `twenty_then_a_delayed_ack` was captured.
    const LAST_SENT: f64 = 0.0219;

    #[test]
    fn a_lost_tail_re_sent_while_the_last_ack_was_delayed_is_a_timeout_not_ack_wait() {
        // The 21st segment is lost before the capture and re-sent 45 ms after the 20th,
        // just after its delayed ACK: an ack-wait gap to the eye. With B's numbering
        // skipping the lost one's datagram it is the probe timer (the ad hoc 120-answer
        // take of rx-rr-loss: 3 such gaps, 43-45 ms).
        let segs = |skip: bool| {
            let (mut v, next) = twenty_then_a_delayed_ack();
            // The 21st (number 22) lost; its re-send numbered 23, or 22 without a skip.
            v.push(Seg::b_to_a(LAST_SENT + 0.045).seq(next).ack(1065).len(LEN).ip_id(if skip { 23 } else { 22 }));
            v.push(Seg::a_to_b(LAST_SENT + 0.04501).seq(1065).ack(next + LEN));
            run(v)
        };
        let stall = |a: &crate::analysis::report::Analysis| a.connections[0].directions[1].stalls[0].cause;
        // Without the skip it is new data the sender sent 2 ms after the delayed ACK was
        // captured — before that ACK, 5 ms away at least (half the 10 ms sender lag), could
        // reach it — and 35 ms after the ACK before: no ACK released it (gaps/gap.rs
        // `acked_long_before`), its application's.
        assert_eq!(stall(&segs(false)), StallCause::ApplicationIdle);
        assert_eq!(stall(&segs(true)), StallCause::RetransmissionTimeout);
    }

    #[test]
    fn new_data_after_a_hole_too_soon_after_the_delayed_ack_is_the_probe_timer() {
        // As above, but the two segments after the 20th are both lost (numbers 22 and 23)
        // and what ends the gap is new data beyond them (number 24): a hole and a skip.
        // The sender lag is 10 ms (the handshake), so data the delayed ACK clocked reaches
        // the capture 5 ms after it at the earliest (half the lag; a full lag in fact).
        let segs = |after_ack: f64| {
            let (mut v, next) = twenty_then_a_delayed_ack();
            let t = LAST_SENT + 0.043 + after_ack;
            v.push(Seg::b_to_a(t).seq(next + 2 * LEN).ack(1065).len(LEN).ip_id(24));
            v.push(Seg::a_to_b(t + 0.00001).seq(1065).ack(next).sack(&[(next + 2 * LEN, next + 3 * LEN)]));
            run(v)
        };
        let stall = |a: &crate::analysis::report::Analysis| a.connections[0].directions[1].stalls[0].cause;
        // 1.3 ms after the ACK (rx-heavy-loss.pcap frame 547): sent before that ACK reached
        // the sender, so its timer sent it — a tail-loss probe's new data.
        assert_eq!(stall(&segs(0.0013)), StallCause::RetransmissionTimeout);
        // 8 ms after it: the ACK may have clocked it, as the capture shows it: waiting on ACKs.
        assert_eq!(stall(&segs(0.008)), StallCause::AckWait);
    }
}
