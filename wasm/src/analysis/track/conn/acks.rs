//! The ACK steps of `Conn::push`: what the peer's cumulative ACK, timestamps and SACK
//! blocks tell (RTT samples, loss recovery, capture loss, the peer's retransmission
//! kinds), and the shortest turns through each end.

use super::{sides_of, Conn, Packet};
use crate::analysis::loss::retrans_kinds::PeerAck;
use crate::analysis::rows::columns::flag_bits as fb;
use crate::analysis::timing::round_trips::{ANSWERED, CLOCKED, DELAYABLE, EXCLUDED};
use crate::analysis::timing::rtt::Echo;
use crate::analysis::timing::vantage::INITIAL_RTO_S;
use crate::decode::tcp_flags::{FIN, RST, SYN};
/// RFC 9293 §3.7.1: the send MSS a TCP assumes when it received no MSS option (IPv4;
/// 1220 for IPv6). The capture-loss estimate's smallest segment size when the
/// receiver's SYN is not in the capture.
const DEFAULT_SEND_MSS: u32 = 536;

impl Conn {
    /// RTT (rtt.rs): this segment starts a clock; its ACK and its timestamp echo may
    /// stop the peer's.
    pub(super) fn time_rtt(&mut self, p: &Packet, probe: bool) {
        let (fwd, rev) = sides_of(&mut self.sides, p.d);
        let ctrl = if p.seg.flags & (SYN | FIN) != 0 { 1 } else { 0 };
        fwd.ack_rtt.on_send(p.seq_rel, p.end_rel + ctrl, p.seg.ts_ns, probe);
        // The peer was in loss recovery when this ACK came: its samples now may time a
        // retransmission or echo a TSval from before the hole (RFC 7323 §4.3).
        let rev_recovering = rev.recover.is_some();
        let acked = match p.ack_rel {
            Some(a) => self.read_ack(p, a),
            None => AckCoverage::Nothing,
        };
        self.read_timestamps(p, probe, rev_recovering, acked);
    }

    /// The peer's cumulative ACK `a` this segment carries: the peer's clock of
    /// everything acknowledged, its ACK-based RTT sample, its loss recovery, and the
    /// capture loss it shows (capture_loss.rs). What new sequence space (data, SYN or
    /// FIN) of the peer's it acknowledged ([`AckCoverage`]).
    pub(super) fn read_ack(&mut self, p: &Packet, a: i64) -> AckCoverage {
        let (seg, d) = (p.seg, p.d);
        let round_trip = super::round_trip(self.first_rtt, self.min_turn);
        let full = full_sized(self.sides[1 - d].max_len, self.offers.send_mss(1 - d as u8));
        let (fwd, rev) = sides_of(&mut self.sides, d);
        let mut acked = AckCoverage::Nothing;
        if rev.peer_ack.map_or(true, |n| a > n) {
            let previous = rev.peer_ack;
            rev.peer_ack = Some(a);
            // The peer's first ACK of everything the other side had sent (its TSval:
            // sender_clock.rs tells from the next data's echo whether that side had it).
            // Only where that side would echo it once received: its TS.Recent takes a
            // TSval only from a segment at or below the last ACK it sent (RFC 7323 §4.3,
            // Linux `tcp_replace_ts_recent`), so not while it holds unacknowledged data
            // of the peer's (a request it has not answered: it keeps echoing the
            // request's TSval, however many ACKs follow).
            let echoable = fwd.peer_ack.is_some_and(|last_ack_sent| p.seq_rel <= last_ack_sent);
            if let (Some(c), Some((tsval, _)), true) = (rev.clock.as_mut(), seg.options.timestamp, echoable && rev.sent_high.is_some_and(|h| a >= h)) {
                c.on_peer_acked_all(tsval);
            }
            rev.peer_ack_by_rst = seg.flags & RST != 0;
            // A D-SACK (RFC 2883 §4: the first block at or below the ACK) names bytes
            // that arrived twice: Karn's rule times none of them (rtt.rs).
            let o = &seg.options;
            let dup = (o.sack_count > 0).then(|| (rev.seq.rel(o.sack_blocks[0].0), rev.seq.rel(o.sack_blocks[0].1))).filter(|&(_, r)| r <= a);
            let (sample, behind) = rev.ack_rtt.on_ack_reporting(a, seg.ts_ns, dup);
            // The ACK rode on this side's new data: its answer (round_trips.rs `ANSWERED`).
            let rides_on_data = seg.payload_len > 0 && p.prev_next.map_or(true, |n| p.end_rel > n);
            acked = AckCoverage::of(previous, a, full, behind, rides_on_data);
            if let Some((ns, round_trip)) = sample {
                // The answer to a SYN or SYN/ACK (it acknowledges only that) later than
                // the initial RTO: a copy the capture did not see was sent by then, or the
                // answer is a re-send itself, so Karn's rule leaves it out
                // (vantage.rs `handshake_half`: a SYN/ACK 3.1 s after a lone SYN).
                let round_trip = round_trip && !(a == 1 && ns as f64 / 1e9 > INITIAL_RTO_S);
                // A segment SACKed before this ACK (rtt.rs): drawn, left out of the
                // statistics and of the turns, like an old timestamp echo.
                if round_trip {
                    note_turn(&mut self.min_turn, d, ns);
                }
                if p.store {
                    self.rows.push_rtt(p.t_ns, (1 - d) as u8, ns, (if round_trip { 0 } else { EXCLUDED }) | acked.delay_bit());
                }
            }
        }
        if rev.recover.is_some_and(|r| a >= r) {
            rev.recover = None;
        }
        // Capture loss (capture_loss.rs): what the peer's data holes this ACK passes.
        if rev.ws.nextseq != 0 {
            let seen_next = rev.seq.rel(rev.ws.nextseq).max(rev.sent_high.unwrap_or(i64::MIN));
            // A connection picked up mid-stream whose first segment from the peer, with no
            // data, was a keep-alive (RFC 9293 §3.8.4, RFC 1122 §4.2.3.6: SEG.SEQ = SND.NXT
            // − 1): this ACK of it is one above what the capture saw, for a byte sent
            // before the capture began, not one it missed (review T class
            // C-KEEPALIVE-AS-CAPTURE-HOLE: fox-it `bro.org-harlemshake-inject.pcap`
            // connections 38–41, four keep-alive pairs, "the capture dropped packets: 4 holes").
            // (Without the SYN, Wireshark's relative numbers start at 1, RFC 9293 §3.4.)
            let keep_alive_answer = rev.sent_high.is_none() && seen_next == 1 && a == 2 && !self.offers.syn_seen_from(1 - d as u8);
            // An ACK past any window the peer could have filled: no evidence (capture_loss.rs).
            let shift = match crate::analysis::track::window::effective(&fwd.scale, &rev.scale) {
                crate::analysis::track::window::Effective::Known(s) => Some(s),
                _ => None,
            };
            // Nor a reset's ACK field: a receiver validates a RST by its sequence number
            // alone and acts on no acknowledgement in it (RFC 9293 §3.10.7.4, "first check
            // sequence number … second check the RST bit"), and a reset answering a
            // segment acknowledges that segment's end, delivered or not (§3.10.7.1); the
            // capture-gaps sentence never read it either (suricata security-4710-02: a
            // RST/ACK 3,568 B past the server's 768-B answer, "3.5 KiB missed").
            if keep_alive_answer {
                rev.holes.get_or_insert_with(Default::default).sent_before_capture(a);
            }
            if keep_alive_answer || p.is_rst || crate::analysis::loss::capture_loss::acks_unsent(a, seen_next, shift) {
                return acked;
            }
            if a > seen_next && rev.holes.is_none() {
                rev.holes = Some(Box::default());
            }
            if let Some(h) = rev.holes.as_mut() {
                let rows = &mut self.rows;
                // The estimate's segment size: the largest payload seen so far, but
                // never below the MSS this ACK's sender announced (no segment can
                // be larger), or RFC 9293 §3.7.1's default send MSS of 536 when its
                // SYN was not captured: after only a 3-byte SOCKS greeting, 1,400
                // unseen bytes are 1 segment, not 467 (tests/capture_loss_captures.rs).
                let mss = self.offers.mss_announced_by(d as u8).map_or(DEFAULT_SEND_MSS, u32::from);
                let reported = rev.reported.as_deref();
                let (t, rtt) = (p.t_ns, round_trip.unwrap_or(0));
                let missing = |x: i64, y: i64| reported.is_some_and(|r| r.reported_unseen(x, y, t, rtt));
                h.on_report(a, p.t_ns);
                h.on_ack(a, seen_next, rev.max_len.max(mss), &missing, |r| rows.mark(r, fb::CAPTURE_LOSS));
            }
        }
        acked
    }

    /// The timestamp option (RFC 7323): its echo times the peer's segment, and its
    /// TSval starts this side's clock for the peer's next echo.
    pub(super) fn read_timestamps(&mut self, p: &Packet, probe: bool, rev_recovering: bool, acked: AckCoverage) {
        let acks_new_data = acked != AckCoverage::Nothing;
        let (seg, d) = (p.seg, p.d);
        let Some((tsval, tsecr)) = seg.options.timestamp else { return };
        let (fwd, rev) = sides_of(&mut self.sides, d);
        if p.has_ack {
            let new_data = seg.payload_len > 0 && !probe && p.prev_next.map_or(true, |n| p.end_rel > n);
            let round_trip_ns = super::round_trip(self.first_rtt, self.min_turn);
            let echo = Echo { acks_new_data, sends_new_data: new_data, round_trip_ns };
            if new_data {
                rev.ts_rtt.on_peer_data(seg.ts_ns);
            }
            if let Some(sample) = rev.ts_rtt.on_echo(tsecr, seg.ts_ns, echo) {
                note_turn(&mut self.min_turn, d, sample.ns);
                if p.store {
                    // An echo by the answer to a SYN or SYN/ACK (this segment newly
                    // acknowledged only that) later than the initial RTO: as in `read_ack`.
                    let late_handshake = acks_new_data && p.ack_rel == Some(1) && sample.ns as f64 / 1e9 > INITIAL_RTO_S;
                    let excluded = !sample.trusted || rev_recovering || probe || late_handshake;
                    // New data that our segment clocked out, not an ACK of ours
                    // (whose timing is the peer's ACK delay or think time): the far
                    // part a receiver-side data round trip adds (round_trips.rs).
                    let clocked = new_data && !acks_new_data;
                    let kind = 1 | if excluded { EXCLUDED } else { 0 } | if clocked { CLOCKED } else { 0 } | acked.delay_bit();
                    self.rows.push_rtt(p.t_ns, (1 - d) as u8, sample.ns, kind);
                }
            }
        }
        // After this segment, does the peer still have data outstanding (so that its
        // next data is clocked by this ACK)?
        let peer_busy = match (rev.sent_high, rev.peer_ack) {
            (Some(h), Some(a)) => h > a,
            _ => false,
        };
        // Whether the peer would echo this TSval once it has it (RFC 7323 §4.3: at or below
        // the last ACK it sent; rtt.rs `on_echo`).
        let echoable = fwd.peer_ack.is_some_and(|last_ack_sent| p.seq_rel <= last_ack_sent);
        fwd.ts_rtt.on_send(tsval, seg.ts_ns, peer_busy, echoable);
    }

    /// SACK blocks (RFC 2018 §3) describe the peer's data: its sequence space. They time
    /// the peer's segments received out of order (rtt.rs), are stored for the charts,
    /// and with the ACK tell the peer's retransmission kinds (retrans_kinds.rs).
    pub(super) fn read_sack_blocks(&mut self, p: &Packet, aflags: u32) {
        let (fwd, rev) = sides_of(&mut self.sides, p.d);
        // The right edge of the window this ACK offers, bytes above it (an unknown scale
        // taken at its largest, 14: RFC 7323 §2.3).
        let offered = match crate::analysis::track::window::effective(&fwd.scale, &rev.scale) {
            crate::analysis::track::window::Effective::Known(s) => i64::from(p.seg.window) << s,
            _ => i64::from(p.seg.window) << 14,
        };
        if !(p.has_ack && rev.seq.is_set()) {
            return;
        }
        let o = &p.seg.options;
        let mut blocks = [(0i64, 0i64); 4];
        let n = o.sack_count.min(4) as usize;
        for (i, &(l, r)) in o.sack_blocks.iter().take(n).enumerate() {
            // rel() advances the unwrap reference: call it even when not storing.
            let (left, right) = (rev.seq.rel(l), rev.seq.rel(r));
            blocks[i] = (left, right);
            // Received out of order (a D-SACK block lies at or below the ACK).
            if p.ack_rel.is_some_and(|a| right > a) {
                rev.ack_rtt.on_sack(right);
            }
            if p.store {
                self.rows.push_sack(p.t_ns, p.d as u8, left, right);
            }
        }
        // What the blocks report missing (reported.rs): made at the first block above
        // the cumulative ACK, then told every ACK so it sees the cumulative ACK pass.
        if let Some(a) = p.ack_rel {
            if rev.reported.is_none() && blocks[..n].iter().any(|&(_, r)| r > a) && rev.sent_high.is_some() {
                rev.reported = Some(Box::default());
            }
            if let Some(rep) = rev.reported.as_mut() {
                let sent_high = rev.sent_high.unwrap_or(a);
                let smss = self.offers.send_mss(1 - p.d as u8).unwrap_or(rev.max_len).max(1);
                let sent_low = rev.sent_low.unwrap_or(sent_high);
                let holes = &rev.holes;
                // Never captured: before the first data the capture saw of this side (a
                // capture that began mid-transfer), its holes, and all beyond what it saw.
                let never = |x: i64, y: i64| -> Vec<(i64, i64)> {
                    let mut out: Vec<(i64, i64)> = Vec::new();
                    if x < sent_low {
                        out.push((x, y.min(sent_low)));
                    }
                    if let Some(h) = holes.as_ref() {
                        out.extend(h.gaps.iter().filter(|g| g.start < y && x < g.end && g.end > sent_low).map(|g| (g.start.max(x).max(sent_low), g.end.min(y))));
                    }
                    if y > sent_high {
                        out.push((x.max(sent_high).max(sent_low), y));
                    }
                    out.retain(|&(a, b)| b > a);
                    out
                };
                let ack_rtt = &rev.ack_rtt;
                let resent = |x: i64, y: i64| ack_rtt.resent_within(x, y);
                let rtt = super::round_trip(self.first_rtt, self.min_turn);
                // A block can only report data the sender sent (RFC 2018 §3), and the
                // sender sends nothing beyond the window's right edge, which the receiver
                // does not move back (RFC 9293 §3.8.6.2.2): a block ending beyond both
                // everything the capture saw sent and this ACK's window is of another
                // sequence space (a middlebox that renumbers the sequence but not the SACK
                // blocks) and reports no loss.
                let limit = sent_high.max(a + offered);
                let mut checked = [(0i64, 0i64); 4];
                let mut k = 0;
                for &(l, r) in blocks[..n].iter().filter(|&&(l, r)| l < r && r <= limit) {
                    checked[k] = (l, r);
                    k += 1;
                }
                rep.on_ack(p.t_ns, a, &checked[..k], sent_high, smss, rtt, &never, &resent);
            }
        }
        if let (Some(a), Some(kinds)) = (p.ack_rel, rev.kinds.as_mut()) {
            let duplicate = aflags & fb::DUPLICATE_ACK != 0;
            // Eifel's echo only where it is of the data sender's clock (`could_echo`).
            let tsecr = o.timestamp.map(|t| t.1).filter(|&e| rev.clock.as_ref().is_none_or(|c| c.could_echo(e)));
            kinds.on_peer_ack(&PeerAck { t_ns: p.t_ns, ack: a, sack: &blocks[..n], sack_unreadable: o.sack_unreadable, tsecr, duplicate });
        }
    }
}

/// An RTT sample `ns` of a segment that end `d` answered (capture → d → capture).
pub(super) fn note_turn(min_turn: &mut [i64; 2], d: usize, ns: i64) {
    if ns > 0 && (min_turn[d] == 0 || ns < min_turn[d]) {
        min_turn[d] = ns;
    }
}

/// What one cumulative ACK acknowledged of the peer's sequence space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum AckCoverage {
    /// Nothing new.
    Nothing,
    /// Sent at once: it covers at least two full-sized segments, which a receiver
    /// acknowledges without delay (RFC 1122 §4.2.3.2); or the next segment was sent
    /// right behind the newest it covers (rtt.rs `on_ack_behind`); or it is the first
    /// ACK the capture saw (it covers the SYN, whose ACK no stack delays, or an
    /// unknown span).
    Prompt,
    /// Less than two full-sized segments with nothing sent right behind: the receiver
    /// may have held this ACK for its delayed-ACK timer (RFC 1122 §4.2.3.2; RFC 9293
    /// §3.8.6.3: up to 0.5 s), or sent it only with its own answer, so the RTT sample
    /// it completes may time that host, not the path (`round_trips.rs` `DELAYABLE`).
    Delayable,
    /// It rode on the receiver's new data, whatever it covers: the receiver answered
    /// (RFC 9293 §3.8.6.3: an ACK held to go with the answer), so the sample times the
    /// answer, not the path (round_trips.rs `ANSWERED`). Not the first ACK the capture saw
    /// (the SYN/ACK's, or one covering an unknown span).
    Answered,
}

impl AckCoverage {
    fn of(previous: Option<i64>, ack: i64, full: u32, behind: bool, rides_on_data: bool) -> AckCoverage {
        match previous {
            Some(_) if rides_on_data => AckCoverage::Answered,
            Some(n) if ack - n < 2 * i64::from(full) && !behind => AckCoverage::Delayable,
            _ => AckCoverage::Prompt,
        }
    }

    fn delay_bit(self) -> u8 {
        match self {
            AckCoverage::Delayable => DELAYABLE,
            AckCoverage::Answered => DELAYABLE | ANSWERED,
            _ => 0,
        }
    }
}

/// Linux's floor on the receiver's estimate of a full-sized segment (`TCP_MSS_DEFAULT`,
/// RFC 9293 §3.7.1's default send MSS): before larger segments arrive, a receiver
/// counts segments of this size (`tcp_initialize_rcv_mss`).
const MIN_FULL_SIZED: u32 = 536;

/// A full-sized segment of the peer's, as its receiver judges one (Linux
/// `tcp_measure_rcv_mss`: the largest segment received, at least 536 bytes): the
/// largest payload the peer sent so far, no more than its SMSS when the handshake gave
/// it (a GRO capture's frames hold many segments), at least [`MIN_FULL_SIZED`] (or
/// the SMSS, if smaller).
fn full_sized(largest_sent: u32, smss: Option<u32>) -> u32 {
    let floor = MIN_FULL_SIZED.min(smss.unwrap_or(MIN_FULL_SIZED));
    largest_sent.min(smss.unwrap_or(u32::MAX)).max(floor)
}
