//! Where each stall happened (docs/ANALYSIS.md `twin.stalls[].place`): in the host that
//! sends the stalled direction, in the network, or in the host that receives it.
//!
//! A stall is a gap in one direction's datagrams at one capture (analysis/stalls). With
//! both captures, the datagram that ended it is followed back to its sender:
//! 1. At the receiver side, a gap the sender-side capture does not show (from the
//!    datagram that began it to its next data the sender was silent for under half the
//!    gap) was made on the way: sent on time, arrived late or not at all → **network**.
//!    Silent for longer, the sender's gap that its next data ended is placed instead.
//! 2. Otherwise the sender did not send. If what ended the gap resends data lost between
//!    the points, the sender's timer waited on the network's loss → **network**.
//! 3. Otherwise the last datagram from the receiver that reached the sender in the gap
//!    released it (an opening the sender would not use, smaller than a segment and than
//!    a third of the window, is not room; a resend the receiver's duplicate ACKs or
//!    SACKs asked for was released by the last of them). None: the sender waited on itself (**sender host**), unless the
//!    receiver's datagrams due in the gap were lost on the way back, or data outstanding
//!    when it began was lost between (**network**). A message of the receiver (turn-
//!    taking: a requester waiting for the answer) is cut into the sender's own time, the
//!    receiver's time before answering, and the rest, the network's (`turn`). An ACK or
//!    a window is followed to the receiver-side capture, and the gap cut into the
//!    sender's reaction to it (its arrival → the datagram that ended the gap), the
//!    receiver's answer time (the receiver's last arrival before it → its sending), and
//!    the network's part: the two paths above their floors (a path's fixed delay is not
//!    a stall's cause: the threshold is several round trips), plus, when the releasing
//!    datagram resends one lost between, the time since the lost copy left (taken from
//!    the receiver's part). The largest part places the stall.
//! Times are on the merged axis (clock.rs), good to the offset's uncertainty; the
//! paths' parts above their floors, and each host's part of a turn, do not depend on it.

use std::collections::HashMap;

use super::clock::Clock;
use super::collect::{Dgram, HAS_SACK};
use super::fate::LOST;
use super::matching::{Matching, EXACT, PIECE};
use super::report::{Place, PlacedStall};
use crate::analysis::format::format_duration;
use crate::analysis::Stall;

mod distinct;
mod turn;

pub use distinct::TIED_WORDS;

/// What let the sender go on (`Ctx::release`).
enum Release {
    /// This datagram of the receiver (its index at the sender side).
    By(usize),
    /// The last datagram of a message (payload) of the receiver that the sender waited
    /// for: turn-taking, as a requester waits for the answer (its index at the sender side).
    Message(usize),
    /// Nothing was outstanding and the receiver asked nothing: the sender was free.
    Free,
    /// Data was outstanding and no ACK or window that would let it go on came.
    Nothing,
}

pub struct Ctx<'a> {
    pub d: [&'a [Dgram]; 2],
    pub m: &'a Matching,
    pub clock: &'a Clock,
    pub near: [usize; 2],
    pub code: [&'a [u8]; 2],
    /// Each direction's smallest one-way delay, ns.
    pub floor: [f64; 2],
    /// The window shift of each direction's sender (collect.rs `ConnPrint::shift`).
    pub shift: [u8; 2],
    /// Frame number → index, per input.
    pub frames: [HashMap<u32, u32>; 2],
}

fn ms(ns: f64) -> String {
    format_duration(ns / 1e9)
}

impl Ctx<'_> {
    fn at(&self, side: usize, i: usize) -> f64 {
        self.clock.at(side, self.d[side][i].t_ns)
    }
    /// The right edge of the window datagram x (of direction `dir`) advertises: ACK +
    /// window, the window shifted by its sender's scale except on a SYN (RFC 7323 §2.2).
    fn edge(&self, x: &Dgram, dir: usize) -> u32 {
        let shift = if x.flags & crate::decode::tcp_flags::SYN != 0 { 0 } else { self.shift[dir] };
        x.ack.wrapping_add(u32::from(x.window) << shift)
    }
    fn partner(&self, side: usize, i: usize) -> Option<usize> {
        matches!(self.m.how[side][i], EXACT | PIECE).then(|| self.m.partner[side][i] as usize)
    }
    /// The last datagram of direction r at `side` before index i; with `data`, the last
    /// one carrying payload (a stall is a gap between those, analysis/stalls/gaps.rs).
    fn previous(&self, side: usize, i: usize, r: usize, data: bool) -> Option<usize> {
        (0..i).rev().find(|&k| usize::from(self.d[side][k].dir()) == r && (!data || self.d[side][k].len > 0))
    }

    /// Places one stall of input `side`'s report, in direction r.
    pub fn place(&self, side: usize, r: usize, s: &Stall) -> PlacedStall {
        let (ss, rs) = (self.near[r], 1 - self.near[r]);
        let capture = if side == 1 - self.clock.receiver { "sender-side" } else { "receiver-side" };
        let before = self.frames[side].get(&s.frame_before).map(|&i| i as usize);
        let at = before.map_or(f64::NAN, |i| self.at(side, i) / 1e9);
        let mut out = PlacedStall {
            capture,
            direction: r as u8,
            start: s.start,
            duration: s.duration,
            cause: s.cause,
            frame_before: s.frame_before,
            frame_after: s.frame_after,
            at,
            place: Place::Unknown,
            sender_host_ms: None,
            network_ms: None,
            receiver_host_ms: None,
            why: String::new(),
        };
        let gap = s.duration * 1e9;
        let after = self.frames[side].get(&s.frame_after).map(|&i| i as usize);
        let q = match after {
            Some(i) if side == ss => Some(i),
            Some(i) => self.partner(side, i),
            None => None,
        };
        // At the receiver side, the gap is followed from the datagram that began it: the
        // sender's first data after that one at the sender side. Sent soon after it (for
        // under half the gap the sender was silent), what filled the gap was sent on time
        // and arrived late or not at all (rule 1). Sent later, the sender's own silence
        // made most of the gap, and is placed as the sender side's gap that this first
        // datagram ended: datagrams lost between just before the gap's end cost only
        // what they would have arrived earlier.
        // A datagram sent after that one but overtaking it on the way (network
        // reordering) arrived before the gap and is not what followed it: the sender's
        // first data after the gap is the earliest-sent one that arrived after the gap's
        // first datagram (or never), and the sender's silence is the time before it
        // since its previous data.
        let began = self.frames[side].get(&s.frame_before).map(|&i| i as usize);
        let first = (side == rs)
            .then(|| began.and_then(|i| self.partner(side, i)))
            .flatten()
            .and_then(|a| {
                let data = |k: usize| usize::from(self.d[ss][k].dir()) == r && self.d[ss][k].len > 0;
                let later = |k: usize| self.partner(ss, k).is_none_or(|p| Some(p) > began);
                let k = (a + 1..self.d[ss].len()).take(1_000_000).find(|&k| data(k) && later(k))?;
                Some((self.previous(ss, k, r, true).unwrap_or(a).max(a), k))
            });
        if let Some((a, k)) = first {
            let silent = self.at(ss, k) - self.at(ss, a);
            if silent < gap / 2.0 {
                out.place = Place::Network;
                out.network_ms = Some((gap - silent) / 1e6);
                out.why = self.on_the_way(ss, q.unwrap_or(k), r, gap, silent, Some(k));
                return out;
            }
        }
        let q = first.map(|(_, k)| k).or(q);
        let Some(q) = q else {
            out.why = "The datagram that ended the gap is not in the sender-side capture: it cannot be followed.".into();
            return out;
        };
        let t_q = self.at(ss, q);
        let quiet = self.previous(ss, q, r, true).map_or(f64::INFINITY, |p| t_q - self.at(ss, p));
        if side == rs && first.is_none() && quiet < gap / 2.0 {
            out.place = Place::Network;
            out.network_ms = Some((gap - quiet) / 1e6);
            out.why = self.on_the_way(ss, q, r, gap, quiet, None);
            return out;
        }
        let start = t_q - if quiet.is_finite() { quiet } else { gap };
        if let Some(lost_at) = self.lost_copy(ss, q, r) {
            out.place = Place::Network;
            out.network_ms = Some((t_q - lost_at).min(gap) / 1e6);
            out.why = format!("The datagram that ended the gap resends data lost between the two points {} earlier: the sender's timer waited on the network's loss.", ms(t_q - lost_at));
            return out;
        }
        let trig = match self.release(ss, q, r, start) {
            Release::By(k) => k,
            Release::Message(m) => return self.turn(out, ss, rs, q, r, m, gap),
            Release::Free => {
                out.place = Place::SenderHost;
                out.sender_host_ms = Some((t_q - start).min(gap) / 1e6);
                out.why = format!("Everything was acknowledged and the receiver sent nothing to answer: the sender had nothing to send for {} (its application).", ms(t_q - start));
                return out;
            }
            Release::Nothing => {
                let (place, part, why) = self.unanswered(ss, rs, q, r, start, t_q);
                out.place = place;
                *match place {
                    Place::Network => &mut out.network_ms,
                    Place::ReceiverHost => &mut out.receiver_host_ms,
                    _ => &mut out.sender_host_ms,
                } = Some(part.min(gap) / 1e6);
                out.why = why;
                return out;
            }
        };
        // Each part is the time its interval (on the merged axis) spent inside the gap,
        // the row's length counted back from the sending of the datagram that ended it
        // (at the receiver side the gap is that datagram's arrival, one transit later):
        // a datagram's transit, a host's hold, measured from before the gap began (data
        // sent before it through a standing queue, an ACK withheld since data that came
        // earlier) is cut at the gap's start, so the parts are of this gap and a sender
        // that paused behind a queue is not outweighed by the queue's earlier delay.
        let inside = |from: f64, to: f64| (to.min(t_q) - from.max(t_q - gap)).max(0.0);
        let sender = inside(self.at(ss, trig), t_q);
        out.sender_host_ms = Some(sender / 1e6);
        let Some(trig_r) = self.partner(ss, trig) else {
            let place = if sender >= gap / 2.0 { Place::SenderHost } else { Place::Unknown };
            out.place = place;
            out.why = format!("The sender answered the receiver's last datagram {} later; that datagram is not in the receiver-side capture, so the rest of the gap cannot be split.", ms(sender));
            return out;
        };
        let sent_r = self.at(rs, trig_r);
        // A path's part: the datagram's transit above the path's floor, the end of it.
        let back = inside(sent_r + self.floor[1 - r], self.at(ss, trig));
        let last_in = self.previous(rs, trig_r + 1, r, false).filter(|&k| self.at(rs, k) <= sent_r);
        let (receiver, forth): (f64, f64) = match last_in {
            Some(k) => {
                let forth = self.partner(rs, k).map_or(0.0, |p| inside(self.at(ss, p) + self.floor[r], self.at(rs, k)));
                (inside(self.at(rs, k), sent_r), forth)
            }
            None => (0.0, 0.0),
        };
        // A resend that released the sender: the time since its lost original was the
        // network's loss, not the receiver's delay.
        // Any datagram of the receiver's answer sent in the gap up to the release that
        // resends one lost between (a request's answer delivered only after the loss
        // was recovered, RFC 6298 / RFC 8985): from its lost copy on, the answer's time
        // was the network's loss recovery, not the receiver's nor the requester's.
        let recovery = (0..=trig_r)
            .rev()
            .take_while(|&k| self.at(rs, k) >= start)
            .take(100_000)
            .filter(|&k| usize::from(self.d[rs][k].dir()) != r)
            .filter_map(|k| self.lost_copy(rs, k, 1 - r))
            .fold(None, |a: Option<f64>, t| Some(a.map_or(t, |a| a.min(t))))
            .map_or(0.0, |lost_at| inside(lost_at, sent_r));
        let held = |t: f64| inside(sent_r - t, sent_r);
        let receiver = (receiver - recovery).max(0.0).max(held(self.window_held(rs, trig_r, r))).max(held(self.ack_held(rs, trig_r, r)));
        let network = (back + forth + recovery).min(gap);
        out.receiver_host_ms = Some(receiver / 1e6);
        out.network_ms = Some(network / 1e6);
        let lost = if recovery > 0.0 { format!(", of which {} since a copy lost on the way", ms(recovery)) } else { String::new() };
        let parts = format!("the sender's reaction {}, the receiver's answer {}, the network {} (the paths above their floors{lost})", ms(sender), ms(receiver), ms(network));
        let (place, what) = if receiver >= sender && receiver >= network {
            (Place::ReceiverHost, "arrived on time, answered late: the receiver took the time")
        } else if network >= sender {
            (Place::Network, "the datagrams that released the sender spent the time on the way, or were lost")
        } else {
            (Place::SenderHost, "the receiver's answer reached the sender in time: the sender took the time")
        };
        out.place = place;
        out.why = format!("Of the {} gap, {parts}: {what}.", ms(gap));
        out
    }

    /// What let the sender go on in the gap (module doc, rule 3), from the sender's
    /// state when the gap began: the highest sequence it had sent, and the receiver's
    /// latest cumulative ACK and window (RFC 9293 §3.8.6: the sender may send up to
    /// ACK + window).
    fn release(&self, ss: usize, q: usize, r: usize, start: f64) -> Release {
        let d = self.d[ss];
        let first = d.partition_point(|x| self.clock.at(ss, x.t_ns) <= start).min(q);
        let after = |a: u32, b: u32| (a.wrapping_sub(b) as i32) > 0;
        let edge = |x: &Dgram| self.edge(x, 1 - r);
        let (mut nxt, mut peer) = (None::<u32>, None::<&Dgram>);
        for x in d[..first].iter().rev().take(10_000) {
            if usize::from(x.dir()) == r && x.seq_len() > 0 {
                let end = x.seq.wrapping_add(x.seq_len());
                nxt = Some(nxt.map_or(end, |n| if after(end, n) { end } else { n }));
            } else if usize::from(x.dir()) != r && x.has_ack() && peer.is_none() {
                peer = Some(x);
            }
        }
        let from_peer = (first..q).filter(|&k| usize::from(d[k].dir()) != r);
        let (Some(nxt), Some(peer)) = (nxt, peer) else {
            return from_peer.last().map_or(Release::Nothing, Release::By);
        };
        // The sender had room to send again at the first of the receiver's datagrams
        // in the gap that opened the window past what was sent (a full window) or
        // acknowledged more (the congestion window), or from the start when nothing was
        // outstanding. Had it been waiting on that, it would have sent at once; if the
        // receiver sent a message after it (turn-taking), the sender waited on the
        // message. So: the later of the two.
        // A window opening counts as room only when the sender would use it: a Linux
        // sender defers a send into less than a third of the window (tcp_tso_should_defer,
        // tcp_tso_win_divisor 3) until more opens, and none sends less than a full segment
        // while data is outstanding (sender-side SWS avoidance, RFC 9293 §3.8.6.2.1;
        // Nagle, RFC 896). An opening smaller than both left the sender waiting on the
        // receiver's next ACK.
        let mss = d[..first].iter().rev().take(10_000).filter(|x| usize::from(x.dir()) == r).map(|x| x.len).max().unwrap_or(0);
        let usable = |x: &Dgram| {
            let room = edge(x).wrapping_sub(nxt);
            let window = edge(x).wrapping_sub(x.ack);
            room >= mss && (room >= window / 3 || room >= 65_535)
        };
        let (full, outstanding) = (!after(edge(peer), nxt), after(nxt, peer.ack));
        let room = if outstanding {
            let opens = |x: &Dgram| x.has_ack() && if full { after(edge(x), nxt) && usable(x) } else { after(x.ack, peer.ack) };
            from_peer.clone().find(|&k| opens(&d[k])).map(Some)
        } else {
            Some(None)
        };
        // A resend of data the receiver still asks for (q below what was sent, and the
        // receiver's ACKs in the gap stop at its first byte): the duplicate ACKs or SACKs
        // that asked for it released the sender (fast retransmit, RFC 5681 §3.2; SACK loss
        // recovery, RFC 6675 §5; RACK, RFC 8985 §6.2), not an earlier opening: the last of
        // them, when there were two or more or one carried SACK blocks.
        let resend = d[q].seq_len() > 0 && after(nxt, d[q].seq);
        let asks = |x: &Dgram| x.has_ack() && x.ack == d[q].seq;
        let asked: Vec<usize> = if resend { from_peer.clone().filter(|&k| asks(&d[k])).collect() } else { Vec::new() };
        let dup = asked.last().copied().filter(|_| asked.len() >= 2 || asked.iter().any(|&k| d[k].flags & HAS_SACK != 0));
        let room = match dup {
            Some(k) => Some(Some(k)),
            None => room,
        };
        let message = from_peer.filter(|&k| d[k].len > 0).last();
        match (room, message) {
            (None, _) => Release::Nothing,
            (Some(Some(k)), Some(m)) if k > m => Release::By(k),
            (Some(_), Some(m)) => Release::Message(m),
            (Some(Some(k)), None) => Release::By(k),
            (Some(None), None) => Release::Free,
        }
    }

    /// How long the receiver had held data back before datagram k (at `rs`, its own
    /// capture) released the sender, ns: the time since the run of its ACKs, just
    /// before k, whose window's right edge (ACK + window) moved less than half as far
    /// as the ACK itself. Data acknowledged but not taken by the application shrinks
    /// the window by as much (RFC 9293 §3.8.6.2.2); an application reading as data
    /// comes keeps the edge moving with the ACK. 0 when the receiver's ACKs moved the
    /// edge as usual.
    fn window_held(&self, rs: usize, k: usize, r: usize) -> f64 {
        let d = self.d[rs];
        let edge = |x: &Dgram| self.edge(x, 1 - r);
        let acks: Vec<usize> = (0..k).rev().take(10_000).filter(|&i| usize::from(d[i].dir()) != r && d[i].has_ack()).collect();
        let mut since = None;
        for w in acks.windows(2) {
            let (cur, prev) = (&d[w[0]], &d[w[1]]);
            let acked = i64::from(cur.ack.wrapping_sub(prev.ack) as i32);
            let opened = i64::from(edge(cur).wrapping_sub(edge(prev)) as i32);
            if acked > 0 && 2 * opened < acked {
                since = Some(w[1]);
            } else if acked > 0 || opened > 0 {
                break;
            }
        }
        since.map_or(0.0, |i| self.at(rs, k) - self.at(rs, i))
    }

    /// How long the data that datagram k (at `rs`) acknowledged first had waited at
    /// the receiver for it, ns: from the arrival of the datagram that carried the first
    /// byte its ACK newly covers (the receiver's previous ACK), the latest such arrival
    /// when a resend filled a hole: a receiver cannot acknowledge past a hole (RFC 9293
    /// §3.4, cumulative ACK; RFC 2018 tells of the data beyond it), and acknowledges at
    /// once when a segment fills one (RFC 5681 §4.2), so data held out of order waited
    /// on the network's loss, not on the receiver. A delayed ACK (RFC 9293 §3.8.6.3),
    /// or ACKs withheld while the application does not read, hold the sender here.
    fn ack_held(&self, rs: usize, k: usize, r: usize) -> f64 {
        let d = self.d[rs];
        let x = &d[k];
        let Some(prev) = (0..k).rev().take(10_000).find(|&i| usize::from(d[i].dir()) != r && d[i].has_ack()) else { return 0.0 };
        let before = d[prev].ack;
        if !x.has_ack() || (x.ack.wrapping_sub(before) as i32) <= 0 {
            return 0.0;
        }
        let covers = |y: &Dgram| y.seq_len() > 0 && (before.wrapping_sub(y.seq) as i32) >= 0 && (y.seq.wrapping_add(y.seq_len()).wrapping_sub(before) as i32) > 0;
        let filled = (0..k).rev().take(10_000).find(|&i| usize::from(d[i].dir()) == r && covers(&d[i]));
        let oldest = || (prev..k).find(|&i| usize::from(d[i].dir()) == r && d[i].seq_len() > 0 && (d[i].seq.wrapping_add(d[i].seq_len()).wrapping_sub(before) as i32) > 0);
        filled.or_else(oldest).map_or(0.0, |i| self.at(rs, k) - self.at(rs, i))
    }

    /// A gap in which nothing from the receiver let the sender go on (its timer, or
    /// its application, ended it): the network's when the receiver's datagrams due were
    /// lost on the way back, when data outstanding at the gap's start was lost between
    /// (no ACK for it could come: the sender's tail loss probe, RFC 8985 §7, or its
    /// retransmission timer, RFC 6298, waited on the loss, whether it then sent new data
    /// or a resend), or the sender's last data before the gap was held on the
    /// way (it arrived late by more than half the gap, or not within it); the
    /// receiver's when that data arrived and the receiver then sent nothing for more
    /// than half the gap (ACKs withheld); else the sender's own.
    fn unanswered(&self, ss: usize, rs: usize, q: usize, r: usize, start: f64, end: f64) -> (Place, f64, String) {
        let gap = end - start;
        let lost = self.lost_on_the_way_back(rs, r, start, end);
        if lost > 0 {
            return (Place::Network, gap, format!("No ACK that let the sender go on reached it during the gap: {lost} of the receiver's datagrams due then were lost on the way back."));
        }
        let lost = self.outstanding_lost(ss, r, start);
        if lost > 0 {
            let n = if lost == 1 { "1 datagram".to_string() } else { format!("{lost} datagrams") };
            return (Place::Network, gap, format!("{n} of the data outstanding when the gap began {} lost on the way: no ACK for it could come, and the sender's timer waited on the network's loss.", if lost == 1 { "was" } else { "were" }));
        }
        let last = self.previous(ss, q, r, true);
        if let Some(p) = last {
            let late = self.partner(ss, p).map_or(f64::INFINITY, |k| self.at(rs, k) - self.at(ss, p) - self.floor[r]);
            if late >= gap / 2.0 && self.code[ss][p] != LOST {
                return (Place::Network, late.min(gap), format!("The sender's last data before the gap was held on the way ({} above the path's floor): the network.", ms(late.min(gap))));
            }
            if let Some(k) = self.partner(ss, p) {
                let arrived = self.at(rs, k);
                let next = self.d[rs][k + 1..].iter().find(|y| usize::from(y.dir()) != r).map_or(f64::INFINITY, |y| self.clock.at(rs, y.t_ns));
                let silent = next.min(end) - arrived;
                if silent >= gap / 2.0 {
                    return (Place::ReceiverHost, silent, format!("The sender's last data before the gap arrived on time, and the receiver sent nothing for {} after it (ACKs withheld): the receiver.", ms(silent)));
                }
            }
        }
        (Place::SenderHost, gap, format!("The sender waited {} with nothing lost, nothing held on the way and no ACK or window it waited for: its own timer or its application.", ms(gap)))
    }

    /// Datagrams of direction r (at `ss`, its sender's capture) sent before `start` and
    /// not yet acknowledged then (past the receiver's latest ACK), lost between.
    fn outstanding_lost(&self, ss: usize, r: usize, start: f64) -> usize {
        let d = self.d[ss];
        let first = d.partition_point(|x| self.clock.at(ss, x.t_ns) <= start);
        let Some(acked) = d[..first].iter().rev().take(10_000).find(|x| usize::from(x.dir()) != r && x.has_ack()).map(|x| x.ack) else { return 0 };
        let outstanding = |x: &Dgram| x.seq_len() > 0 && (x.seq.wrapping_add(x.seq_len()).wrapping_sub(acked) as i32) > 0;
        (0..first).rev().take(10_000).filter(|&k| usize::from(d[k].dir()) == r && outstanding(&d[k]) && self.code[ss][k] == LOST).count()
    }

    /// Why a gap seen at the receiver side only was the network's.
    /// `first`: the sender's first data after the datagram that began the gap (rule 1),
    /// when the gap was followed from there.
    fn on_the_way(&self, ss: usize, q: usize, r: usize, gap: f64, quiet: f64, first: Option<usize>) -> String {
        let t_q = self.at(ss, q);
        // That first data lost between the points: the sender's silence after it is its
        // timer's wait on the loss (a tail loss probe, RFC 8985 §7; the retransmission
        // timer, RFC 6298), up to its next data; the silence before it tells nothing of
        // that wait, so the sentence names both.
        if let Some(k) = first.filter(|&k| self.code[ss][k] == LOST) {
            let data = |i: usize| usize::from(self.d[ss][i].dir()) == r && self.d[ss][i].len > 0;
            if let Some(next) = (k + 1..self.d[ss].len()).take(1_000_000).find(|&i| data(i)) {
                let wait = self.at(ss, next) - self.at(ss, k);
                return format!("Sent on time: the sender-side capture shows the sender's next data {} after the datagram that began the {} gap; it was lost on the way, and the sender's timer waited {} before sending again: the network's loss.", ms(quiet), ms(gap), ms(wait));
            }
        }
        let lost = (0..q).rev().take_while(|&k| self.at(ss, k) > t_q - gap).filter(|&k| usize::from(self.d[ss][k].dir()) == r && self.code[ss][k] == LOST).count();
        let late = self.partner(ss, q).map(|p| self.at(1 - ss, p) - t_q);
        let mut s = format!("Sent on time: the sender-side capture shows the sender silent for at most {} of the {} gap", ms(quiet), ms(gap));
        if lost > 0 {
            s += &format!(", and {lost} datagram{} sent meanwhile {} lost on the way.", if lost == 1 { "" } else { "s" }, if lost == 1 { "was" } else { "were" });
        } else if let Some(d) = late {
            s += &format!("; the datagram that ended it took {} one way (floor {}).", ms(d), ms(self.floor[r]));
        } else {
            s.push('.');
        }
        s
    }

    /// When the earlier copy of datagram q's data (direction r, at `side`, its sender's
    /// capture) left, where that copy was lost between the points: q is a resend the
    /// loss made.
    fn lost_copy(&self, side: usize, q: usize, r: usize) -> Option<f64> {
        let x = &self.d[side][q];
        if x.seq_len() == 0 {
            return None;
        }
        let (s, e) = (x.seq, x.seq.wrapping_add(x.seq_len()));
        let overlaps = |y: &Dgram| y.seq_len() > 0 && (y.seq.wrapping_sub(e) as i32) < 0 && (s.wrapping_sub(y.seq.wrapping_add(y.seq_len())) as i32) < 0;
        (0..q).rev().take(100_000).find(|&k| usize::from(self.d[side][k].dir()) == r && self.code[side][k] == LOST && overlaps(&self.d[side][k])).map(|k| self.at(side, k))
    }

    /// The receiver's datagrams (direction 1 − r, seen leaving at `rs`) due at the
    /// sender within [start, end) and lost between the points.
    fn lost_on_the_way_back(&self, rs: usize, r: usize, start: f64, end: f64) -> usize {
        let due = |y: &Dgram| self.clock.at(rs, y.t_ns) + self.floor[1 - r];
        let (lo, hi) = (self.d[rs].partition_point(|y| due(y) < start), self.d[rs].partition_point(|y| due(y) < end));
        (lo..hi).filter(|&k| usize::from(self.d[rs][k].dir()) != r && self.code[rs][k] == LOST).count()
    }
}
