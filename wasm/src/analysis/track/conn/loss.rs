//! The loss steps of `Conn::push`: the sender's datagram numbering (datagram_ids.rs),
//! the ranges the capture never saw (capture_loss.rs) and what filled them, and the
//! kind of each retransmission (retrans_kinds.rs).

use super::{sides_of, Conn, HandshakeTimes, Packet};
use crate::analysis::loss::capture_loss::LateCopy;
use crate::analysis::loss::datagram_ids::{Arrival, DatagramIds, IdStep, SourceLast};
use crate::analysis::loss::retrans_kinds::RetransKinds;
use crate::analysis::rows::columns::flag_bits as fb;
use crate::analysis::track::sequence::lt_seq;
use crate::analysis::timing::vantage::{sent_with_initial_ttl, HOST_TURNAROUND_RATIO, HOST_TURNAROUND_S};
use crate::decode::tcp_flags::{FIN, RST, SYN};
use crate::decode::TcpSegment;

impl Conn {
    /// The sender's IPv4 Identification (datagram_ids.rs): what its number says of this
    /// datagram, and whether a datagram carrying its data was sent before unseen.
    pub(super) fn read_datagram_number(&mut self, p: &Packet, aflags: u32, rtt_so_far: Option<i64>, source_last: SourceLast) -> Numbering {
        let (seg, d) = (p.seg, p.d);
        let mut numbering = Numbering { step: IdStep::Unknown, resends_unseen: false, due: false };
        let Some(id) = seg.frame_id.ip_id else { return numbering };
        let lost = aflags & fb::LOST_SEGMENT != 0;
        let no_router = sent_with_initial_ttl(self.sides[d].ttl);
        let (fwd, _) = sides_of(&mut self.sides, d);
        if seg.payload_len > 0 && fwd.ids.is_none() {
            let mut ids = Box::<DatagramIds>::default();
            // The direction's first data seen starts beyond its first byte (its SYN
            // is in the capture, so that is known; any data the SYN carried, RFC
            // 7413, is in `prev_next`): the datagrams that carried the bytes before
            // it were sent and never reached the capture. Only within the 65,535
            // bytes a first flight can hold (a SYN's window is never scaled, RFC
            // 7323 §2.2): a gap beyond is not a lost first flight.
            let first_flight = p.prev_next.filter(|&n| lost && n < p.seq_rel && p.seq_rel - n <= i64::from(u16::MAX) && self.offers.syn_seen_from(d as u8));
            if let Some(n) = first_flight {
                ids.lost_before_first((p.seq_rel - n) as u64, self.offers.send_mss(d as u8));
            }
            fwd.ids = Some(ids);
        }
        let Some(ids) = fwd.ids.as_mut() else { return numbering };
        let control = seg.flags & (SYN | RST) != 0;
        numbering.due = !control && ids.is_due(id);
        // A datagram without data is one segment whatever the size: no SMSS to find.
        let segment = if seg.payload_len > 0 { self.offers.send_mss(d as u8) } else { None };
        let mut resend_shape = false;
        if !control {
            let arrival = Arrival {
                id,
                ack: p.has_ack.then_some(seg.ack),
                t_ns: p.t_ns,
                payload: seg.payload_len,
                gap: fwd.sent_high.map(|h| p.seq_rel - h).filter(|&g| g >= 0),
                nothing_missing: fwd.holes.as_ref().is_none_or(|h| h.gaps.is_empty()),
                prompted: fwd.prompted,
                round_trip_ns: rtt_so_far,
                segment,
                source_last,
            };
            // At the sender's own host every datagram it sends passes the
            // capture point: a number skipped there went to another connection
            // (one counter for all of a host's datagrams), never to the path.
            if !captured_at_host(&self.handshake, self.min_turn, d, no_router) {
                (resend_shape, numbering.resends_unseen) = ids.resends_unseen(&arrival);
            }
        }
        // Evidence of a loss behind a skip (datagram_ids.rs `told`): a re-send, seen
        // as one or proven by the numbering, or a hole the receiver still lacks (a
        // re-send of it lost again takes a number and leaves no new hole).
        let hole_open = fwd.holes.as_ref().is_some_and(|h| !h.gaps.is_empty());
        let resend = resend_shape || hole_open || (seg.payload_len > 0 && aflags & fb::ANY_RETRANSMISSION != 0);
        numbering.step = ids.on_datagram(id, seg.frame_id.ip_ttl.unwrap_or(0), control, seg.payload_len, segment, p.row, lost, resend);
        numbering
    }

    /// The sequence ranges the capture never saw (capture_loss.rs): a segment past a
    /// hole opens one, a late one fills it; the flags are re-labelled by what filled
    /// it (`reclassify_out_of_order`) and by the datagram's number.
    pub(super) fn fill_capture_holes(&mut self, p: &Packet, mut aflags: u32, rtt_so_far: Option<i64>, numbering: Numbering) -> u32 {
        let seg = p.seg;
        let peer_no_router = sent_with_initial_ttl(self.sides[1 - p.d].ttl);
        let (fwd, _) = sides_of(&mut self.sides, p.d);
        fwd.max_len = fwd.max_len.max(seg.payload_len);
        if let Some(t) = seg.frame_id.ip_ttl {
            fwd.ttl = Some(fwd.ttl.map_or((t, t), |(lo, hi)| (lo.min(t), hi.max(t))));
        }
        let lost = aflags & fb::LOST_SEGMENT != 0;
        // A SYN's number is its connection's first (RFC 9293 §3.4, the ISN): nothing of
        // the connection precedes it, so no hole ends at one (what came before, a reset
        // or FIN at another number, is no data of it: suricata bug-3286-03 frames 2–4).
        let hole = p.prev_next.filter(|&n| lost && n < p.seq_rel && !p.is_syn);
        if hole.is_some() && fwd.holes.is_none() {
            fwd.holes = Some(Box::default());
        }
        let rows = &mut self.rows;
        // A SYN or FIN occupies one sequence number: it fills that much of a hole.
        let occupied_end = p.end_rel + i64::from(seg.flags & (SYN | FIN) != 0);
        let filled_gap = fwd.holes.as_ref().and_then(|h| h.oldest_filled(p.seq_rel, occupied_end));
        // At the receiver's host the capture sees the receiver's report of the hole as
        // it leaves (vantage.rs): the sender's answer to it passes a path round trip later.
        let report = fwd.holes.as_ref().and_then(|h| h.first_report(p.seq_rel, occupied_end));
        // That ACK goes out at once (RFC 5681 §4.2): the first one captured later than
        // half a round trip after the hole opened is not it — the capture missed the
        // receiver's earlier ACKs (suricata bug-4953 file76.pcap frame 97, 272 ms after
        // the hole of frame 92 on a 250 ms path, its SACK naming 5 segments never
        // captured) — and then only the hole's opening is known.
        let prompt = |r: i64, opened: i64| rtt_so_far.is_some_and(|rtt| (r - opened).saturating_mul(2) < rtt);
        let report = report.zip(filled_gap).filter(|&(r, opened)| prompt(r, opened)).map(|(r, _)| r);
        let since_report = report.filter(|_| captured_at_host(&self.handshake, self.min_turn, 1 - p.d, peer_no_router)).map(|r| p.t_ns - r);
        let fill = HoleFill { after_open_ns: filled_gap.map(|opened| p.t_ns - opened), since_report_ns: since_report };
        aflags = reclassify_out_of_order(aflags, fill, rtt_so_far, numbering.step);
        // Its data looks new, but its number says a datagram carrying it was sent before
        // and never reached the capture (datagram_ids.rs `resends_unseen`).
        if numbering.resends_unseen && aflags & fb::ANY_RETRANSMISSION == 0 {
            aflags |= fb::RETRANSMISSION;
        }
        let resent = aflags & fb::ANY_RETRANSMISSION != 0;
        let reordered = fwd.holes.as_mut().map_or(0, |h| h.on_segment(hole, p.seq_rel, occupied_end, p.row, p.t_ns, resent, |r| rows.mark(r, fb::CAPTURE_LOSS)));
        // A hole whose every byte came late in originals overtaken on the way was
        // reordering, not loss: its "previous segment not captured" is no lost segment
        // (docs/ANALYSIS.md `direction.lostSegments`; it counts in `outOfOrder`).
        let lost_count = &mut self.totals[p.d].count[fb::LOST_SEGMENT.trailing_zeros() as usize - 8];
        *lost_count = lost_count.saturating_sub(reordered);
        let aflags = self.late_sighting(p, aflags, numbering.due);
        self.hold_late_copy(p, aflags, rtt_so_far)
    }

    /// One segment, stamped just after its own ACK: the capture saw the receiver's ACK of
    /// bytes it had never seen (counted as delivered unseen, capture_loss.rs), and then,
    /// within a round trip, the first copy of exactly those bytes, in sequence (the next
    /// byte the sender was due to send, nothing captured beyond it). Wireshark calls
    /// that copy a spurious retransmission and the ACK one of a segment never captured:
    /// the same segment counted twice. Data reaches the receiver before its ACK leaves,
    /// so the copy is either the original stamped late (a capture merged from two
    /// interfaces or clocks, whose timestamps can invert two frames of opposite
    /// directions by microseconds) or a re-send of an original the capture missed. The
    /// receiver tells which: a copy of bytes it already holds is not acceptable and is
    /// answered at once with an ACK repeating its cumulative ACK (RFC 9293 §3.10.7.4;
    /// a D-SACK, RFC 2883; Linux `tcp_send_dupack`). So the copy counts as the original
    /// (no retransmission, no capture loss) unless the receiver's first segment that
    /// could answer it is such a duplicate (`settle_late_copy`). A capture that ends
    /// first shows no second copy: the original stands (a re-send needs its evidence).
    fn hold_late_copy(&mut self, p: &Packet, aflags: u32, rtt_so_far: Option<i64>) -> u32 {
        let seg = p.seg;
        // A FIN occupies one sequence number (RFC 9293 §3.4): its ACK can come first too.
        let end = p.end_rel + i64::from(seg.flags & FIN != 0);
        if end == p.seq_rel || seg.flags & SYN != 0 || p.prev_next != Some(p.seq_rel) {
            return aflags;
        }
        let segment = self.sides[p.d].max_len.max(u32::from(self.offers.mss_announced_by(1 - p.d as u8).unwrap_or(0)));
        let (fwd, rev) = sides_of(&mut self.sides, p.d);
        let first_copy = fwd.sent_high.is_none_or(|h| h <= p.seq_rel);
        let acked = fwd.peer_ack.is_some_and(|a| a >= end);
        // The receiver's last segment (the ACK) within a round trip before the copy.
        let since_ack = seg.ts_ns - rev.ws.lastack_time;
        let close = rev.ws.lastack_time != 0 && rtt_so_far.is_some_and(|r| since_ack >= 0 && since_ack <= r);
        let Some(holes) = fwd.holes.as_mut() else { return aflags };
        if !(first_copy && acked && close && holes.late_copy.is_none()) {
            return aflags;
        }
        let Some(uncounted) = holes.uncount_first_copy(p.seq_rel, end, segment) else { return aflags };
        holes.late_copy = Some(LateCopy {
            row: p.row,
            t_ns: p.t_ns,
            seq: p.seq_rel,
            end,
            bits: aflags & fb::ANY_RETRANSMISSION,
            una: if fwd.peer_ack_by_rst { None } else { fwd.peer_ack },
            tsval: seg.options.timestamp.map(|t| t.0),
            uncounted,
        });
        aflags & !fb::ANY_RETRANSMISSION
    }

    /// The receiver's segment `seg` (direction `d`) after a held copy of the other side's
    /// (`hold_late_copy`): one that could answer the copy (captured at least the
    /// receiver's shortest turn after it) settles it — a duplicate ACK or a D-SACK says
    /// the receiver got the bytes twice, so the copy was a re-send after all; anything
    /// else, that it was the original.
    pub(super) fn settle_late_copy(&mut self, seg: &TcpSegment, t_ns: i64, d: usize, aflags: u32) {
        let turn = self.min_turn[d];
        let Some(late) = self.sides[1 - d].holes.as_ref().and_then(|h| h.late_copy.as_ref()) else { return };
        if seg.flags & crate::decode::tcp_flags::ACK == 0 || t_ns - late.t_ns < turn {
            return;
        }
        let dsack = seg.options.sack_count > 0 && lt_seq(seg.options.sack_blocks[0].0, seg.ack);
        let duplicate = aflags & fb::DUPLICATE_ACK != 0 || dsack;
        let late = self.sides[1 - d].holes.as_mut().and_then(|h| h.late_copy.take());
        if let (true, Some(late)) = (duplicate, late) {
            self.confirm_late_copy(1 - d, late);
        }
    }

    /// A held copy was a re-send: Wireshark's flags, its retransmission kind and the
    /// capture loss of its original come back.
    fn confirm_late_copy(&mut self, d: usize, late: LateCopy) {
        if let Some(r) = late.row {
            self.rows.mark(r, late.bits);
        }
        let mut bits = late.bits;
        while bits != 0 {
            self.totals[d].count[bits.trailing_zeros() as usize - 8] += 1;
            bits &= bits - 1;
        }
        let side = &mut self.sides[d];
        if let Some(h) = side.holes.as_mut() {
            h.recount(late.uncounted);
        }
        // A FIN without data carries no retransmission flag to give back.
        if late.bits == 0 {
            return;
        }
        if side.kinds.is_none() {
            side.kinds = Some(Box::new(RetransKinds::new(None, self.offers.sack_permitted())));
        }
        if let Some(kinds) = side.kinds.as_mut() {
            // When it was new data since is not kept: no probe-timer bound (retrans_kinds.rs).
            kinds.on_new_data(None);
            kinds.on_retransmission(late.row, late.t_ns, late.seq, late.end, late.end, late.una, late.tsval, false);
        }
    }

    /// Loss recovery of this side (for the RTT samples' trust, rtt.rs), and the kind of
    /// a retransmission (retrans_kinds.rs).
    pub(super) fn note_retransmission_kind(&mut self, p: &Packet, aflags: u32, high_before: Option<i64>, resends_unseen: bool) {
        let seg = p.seg;
        let (fwd, rev) = sides_of(&mut self.sides, p.d);
        // From a retransmission until the peer's ACK passes the highest sequence sent then.
        let resent = seg.payload_len > 0 && aflags & fb::ANY_RETRANSMISSION != 0;
        if resent && fwd.recover.is_none() {
            fwd.recover = fwd.sent_high;
        }
        // Data below the highest sent before (a re-send, or an original late to the
        // capture): a copy the capture saw of anything the receiver reported lost.
        if let (Some(rep), Some(h)) = (fwd.reported.as_mut(), high_before) {
            if seg.payload_len > 0 && p.seq_rel < h {
                rep.on_resend(p.seq_rel, p.end_rel.min(h));
            }
        }
        // Every segment `retransmissions` counts gets a kind: data, and a SYN or FIN
        // without data (its sequence number is the one byte it occupies).
        let ctrl_resent = seg.payload_len == 0 && seg.flags & (SYN | FIN) != 0 && aflags & fb::ANY_RETRANSMISSION != 0;
        if ctrl_resent && fwd.kinds.is_none() {
            let peer_ack_t = (rev.ws.lastack != 0).then(|| rev.ws.lastack_time - (seg.ts_ns - p.t_ns));
            fwd.kinds = Some(Box::new(RetransKinds::new(peer_ack_t, self.offers.sack_permitted())));
        }
        if let (true, Some(kinds)) = (resent || ctrl_resent, fwd.kinds.as_mut()) {
            let tsval = seg.options.timestamp.map(|t| t.0);
            let end = p.end_rel + i64::from(ctrl_resent);
            // A SYN is re-sent only by its retransmission timer (RFC 6298 §5.7).
            let syn = p.is_syn && seg.payload_len == 0;
            // Acknowledged by a refusal is not "the original arrived": no spurious mark.
            let una = if fwd.peer_ack_by_rst { None } else { fwd.peer_ack };
            // A re-send of data the capture never saw: the sender had sent up to its end at least.
            let high = if resends_unseen { high_before.map(|h| h.max(end)) } else { high_before };
            // The last segment that advanced SND.NXT (data, SYN or FIN; flags.rs), which
            // restarted the sender's probe timer (RFC 8985 §7.2).
            let new_data_t = (fwd.ws.nextseq != 0).then(|| fwd.ws.nextseq_time - (seg.ts_ns - p.t_ns));
            kinds.on_new_data(new_data_t);
            kinds.on_retransmission(p.row, p.t_ns, p.seq_rel, end, high.unwrap_or(end), una, tsval, syn);
        }
    }
}

/// What the sender's datagram number says of a segment (datagram_ids.rs).
#[derive(Clone, Copy)]
pub(super) struct Numbering {
    pub(super) step: IdStep,
    /// A datagram carrying its data was sent before and never reached the capture.
    pub(super) resends_unseen: bool,
    /// Its number is exactly the one due after the sender's last datagram seen.
    pub(super) due: bool,
}

/// Whether the capture so far looks taken at end `d`'s host (vantage.rs's rule, on
/// what is known mid-capture): the turn through `d` (its shortest answer to the other
/// end's segments, or its half of the handshake) at most a tenth of the whole round
/// trip, both turns measured — or a host's turnaround on a µs LAN (vantage.rs
/// `Parts::host_turnaround`: at most 50 µs, a third of the other turn, which is above
/// 50 µs, and `no_router`: every packet of `d` left with one initial TTL).
pub(super) fn captured_at_host(hs: &HandshakeTimes, min_turn: [i64; 2], d: usize, no_router: bool) -> bool {
    let half = |from: Option<i64>, to: Option<i64>| from.zip(to).map(|(a, b)| b - a).filter(|&ns| ns >= 0);
    let c = (hs.client_dir & 1) as usize;
    // SYN → SYN/ACK is the turn through the server, SYN/ACK → ACK through the client.
    let hs_turn = |e: usize| if e == c { half(hs.syn_ack, hs.ack) } else { half(hs.syn, hs.syn_ack) };
    let turn = |e: usize| {
        let sampled = (min_turn[e] > 0).then_some(min_turn[e]);
        match (sampled, hs_turn(e)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    };
    match (turn(d), turn(1 - d)) {
        // i128: stamps come from the file, and a hostile one makes turns near i64::MAX
        // (the decoder fuzz found `mine * 10` overflowing).
        (Some(mine), Some(other)) => {
            let (mine, other) = (i128::from(mine), i128::from(other));
            let floor = (HOST_TURNAROUND_S * 1e9) as i128;
            let turnaround = no_router && mine <= floor && other > floor && other as f64 >= HOST_TURNAROUND_RATIO * mine as f64;
            other > 0 && (mine * 10 <= mine + other || turnaround)
        }
        _ => false,
    }
}

/// How a segment that fills a hole the capture never saw came, for
/// `reclassify_out_of_order`.
#[derive(Clone, Copy, Default)]
pub(super) struct HoleFill {
    /// How long after the hole it fills opened (None: it filled none, all its bytes
    /// were captured before).
    pub(super) after_open_ns: Option<i64>,
    /// At a capture on the receiver's host only: how long after the receiver's first
    /// ACK that reported the hole (capture_loss.rs `Holes::on_report`). None elsewhere
    /// or when no ACK came since the hole opened.
    pub(super) since_report_ns: Option<i64>,
}

/// tcpscope's one departure from Wireshark's labels (see flags.rs): an
/// "out-of-order" segment whose bytes were all captured before is a retransmission.
/// True reordering (receiver-side captures) always fills a capture gap, because the
/// later segment that overtook it was flagged "previous segment not captured" — but so
/// does the re-send of a segment lost before a receiver-side capture point, which comes
/// a round trip after the receiver reported the gap (below). `rtt_ns`: `round_trip`;
/// `id_step`: what the sender's datagram numbering says of it (datagram_ids.rs).
pub(super) fn reclassify_out_of_order(f: u32, fill: HoleFill, rtt_ns: Option<i64>, id_step: IdStep) -> u32 {
    // The sender's numbering says this datagram is an original, overtaken on the way,
    // whatever Wireshark's clock rule called it: a copy re-sent in the meantime may even
    // have brought its bytes first (a forwarder that reordered runs of 70 datagrams:
    // 364 late originals read as retransmissions, beside the server's 1,822 re-sends).
    if id_step == IdStep::Overtaken && f & (fb::OUT_OF_ORDER | fb::ANY_RETRANSMISSION) != 0 {
        return (f & !fb::ANY_RETRANSMISSION) | fb::OUT_OF_ORDER;
    }
    let refilled = |rtt: i64| match fill.since_report_ns {
        // At the receiver's host the capture sees its duplicate ACK or SACK leave
        // (RFC 5681 §4.2: sent at once for a segment beyond a hole): the sender learns
        // of the hole from it, and its re-send passes the capture point a whole path
        // round trip later (capture → sender → capture). `rtt` is the shortest round
        // trip the capture has measured (`round_trip`: a minimum, the floor of the
        // samples' spread — queueing only lengthens a re-send's), so a fill sooner than
        // it is no answer to the report. A quarter of margin, as RACK allows reordering
        // a quarter of min_RTT (RFC 8985 §6.2 reo_wnd), for a floor measured on few
        // samples and clock granularity: under ¾ of it, an original overtaken on the
        // way (kDrive IPv6 download frame 324: 1.59 ms after the SACK of frame 323 on a
        // 3.3 ms path; tshark: out-of-order). A re-send due to an ACK before the report
        // (RACK marking by send order) or a timer comes later still, never sooner.
        Some(since) => since.saturating_mul(4) >= rtt.saturating_mul(3),
        // Elsewhere (or no ACK since the hole opened) only the hole's opening is known:
        // the sender learns of a hole from the receiver's ACKs of the data beyond it,
        // so its retransmission passes the capture point one path RTT (capture →
        // receiver → capture → sender → capture) after the segment that opened the hole,
        // whatever the vantage (RFC 5681 §3.2, RFC 6675 §5; less the spacing of
        // later-sent segments when RACK marks by send order, RFC 8985 §6.2). A segment
        // reordered on the way arrives within a fraction of it: a hole filled half a
        // round trip or more after it opened was refilled by the sender.
        None => fill.after_open_ns.is_some_and(|after| after.saturating_mul(2) >= rtt),
    };
    let retransmitted = match (fill.after_open_ns, rtt_ns) {
        // Its bytes were all captured before: the sender sent them again.
        (None, _) => true,
        // Where the sender numbers its datagrams one per segment, the number says it
        // outright: an original overtaken on the way carries a number the capture
        // skipped over; a re-send a number at or past the one due, however soon it came
        // (rx-heavy-loss.pcap frame 152: 4.5 ms after its hole opened on a 10.2 ms path,
        // RACK marking by send order once its neighbour's re-send was acknowledged;
        // numbered 0xb7cf after 0xb7ce).
        (Some(_), _) if id_step != IdStep::Unknown => id_step == IdStep::Fresh,
        // It fills a hole (a segment the capture never saw, lost before the capture
        // point or reordered): by the clock (`refilled`). Without any round trip yet,
        // Wireshark's label stands.
        (Some(_), Some(rtt)) => refilled(rtt),
        (Some(_), None) => false,
    };
    // And the converse, by the same clock: Wireshark calls a segment that fills a hole
    // after two duplicate ACKs a fast retransmission (packet-tcp.c), but one that came
    // before the sender could have heard of the hole is an original overtaken on the
    // way (a receiver-side capture of reordering by three segments; the sender's
    // kernel counts no retransmission).
    let overtaken = id_step == IdStep::Unknown && fill.after_open_ns.is_some() && rtt_ns.is_some_and(|rtt| !refilled(rtt));
    if f & fb::OUT_OF_ORDER != 0 && retransmitted {
        (f & !fb::OUT_OF_ORDER) | fb::RETRANSMISSION
    } else if f & fb::ANY_RETRANSMISSION != 0 && overtaken {
        (f & !fb::ANY_RETRANSMISSION) | fb::OUT_OF_ORDER
    } else {
        f
    }
}
