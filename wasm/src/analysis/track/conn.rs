//! One connection's state, packet by packet: per side its sequence space, window
//! scale, bytes in flight, the loss and timing trackers (retrans_kinds.rs, capture_loss.rs,
//! datagram_ids.rs, rtt.rs, sender_clock.rs), and the rows it writes for the charts.
//! Wireshark's flag rules (flags.rs), relative sequence numbers (sequence.rs) and window
//! scaling (window.rs) run here on every segment; the analyzer (run/analyzer.rs) finds
//! the connection and calls `Conn::push`.

use super::ending::Closing;
use super::ecn::{self, EcnCounts};
use super::flags::{self, SegFacts, WsFlow};
use super::handshake::HandshakeOffers;
use super::sequence::SeqSpace;
use super::totals::Totals;
use super::window::{self, Effective, Scale};
use crate::analysis::capture::radio::RadioLog;
use crate::analysis::loss::capture_loss::Holes;
use crate::analysis::loss::datagram_ids::{Arrival, DatagramIds, IdStep, SourceLast};
use crate::analysis::loss::retrans_kinds::{PeerAck, RetransKinds};
use crate::analysis::rows::columns::flag_bits as fb;
use crate::analysis::rows::store::{secs, ConnWriter, PacketRow};
use crate::analysis::timing::round_trips::{CLOCKED, EXCLUDED};
use crate::analysis::timing::rtt::{AckRtt, Echo, TsRtt};
use crate::analysis::timing::sender_clock::SenderClock;
use crate::decode::tcp_flags::{ACK, FIN, RST, SYN};
use crate::decode::TcpSegment;
use std::net::IpAddr;

/// RFC 9293 §3.7.1: the send MSS a TCP assumes when it received no MSS option (IPv4;
/// 1220 for IPv6). The capture-loss estimate's smallest segment size when the
/// receiver's SYN is not in the capture.
const DEFAULT_SEND_MSS: u32 = 536;

/// Everything tracked for one side (direction) of a connection.
#[derive(Default, Debug)]
pub(crate) struct Side {
    pub seq: SeqSpace,
    pub ws: WsFlow,
    pub scale: Scale,
    /// Highest end (relative) of payload bytes this side sent (DESIGN.md in flight).
    pub sent_high: Option<i64>,
    /// Lowest relative seq of this side's payload (stands in for the peer's ACK
    /// until one is seen, e.g. captures holding only one direction).
    pub sent_low: Option<i64>,
    /// Highest cumulative ACK (relative, this side's space) the peer sent.
    pub peer_ack: Option<i64>,
    /// That ACK rode on a RST: the peer refused what it acknowledges (RFC 9293
    /// §3.10.7.3), so a re-send of it was a retry, not a needless retransmission.
    pub peer_ack_by_rst: bool,
    /// Last raw window this side advertised on a non-SYN, non-RST segment.
    pub last_raw_win: Option<u16>,
    /// Lower bound on this side's (unknown) scale, from the peer's bytes in flight.
    pub scale_lb: Option<u8>,
    /// False after a capture gap in this side's data until the peer sends an ACK
    /// (Wireshark's valid_bif): the peer's last captured ACK is stale then.
    pub bif_stale: bool,
    /// The peer sent something this side had to answer with a datagram of its own (data,
    /// SYN or FIN, a keep-alive or zero-window probe, a zero window) since this side's
    /// last datagram (datagram_ids.rs `resends_unseen`).
    pub prompted: bool,
    pub ack_rtt: AckRtt,
    pub ts_rtt: TsRtt,
    /// Sequence ranges never captured (after a "previous segment not captured").
    /// (capture_loss.rs; at most `capture_loss::MAX_GAPS`), and what the receiver
    /// acknowledged of them unseen; made at the first hole.
    pub holes: Option<Box<Holes>>,
    /// Largest payload this side sent (capture loss counts holes in segments of it).
    pub max_len: u32,
    /// Smallest and largest IPv4 TTL / IPv6 hop limit this side's packets arrived with
    /// (vantage.rs `local_by_ttl`); None before the first.
    pub ttl: Option<(u8, u8)>,
    /// Loss recovery in progress: the highest sequence sent when this side last
    /// retransmitted (RFC 6582's "recover"); cleared when the peer's ACK passes it.
    pub recover: Option<i64>,
    /// Kind of each retransmission of this side (retrans_kinds.rs); boxed and made
    /// when the side first sends data (a port scan's million connections never do).
    pub kinds: Option<Box<RetransKinds>>,
    /// This side's IPv4 Identification steps (datagram_ids.rs); boxed and made at its
    /// first data segment over IPv4.
    pub ids: Option<Box<DatagramIds>>,
    /// This side's TSvals on its data (sender_clock.rs); boxed and made at its first
    /// data segment with a timestamp.
    pub clock: Option<Box<SenderClock>>,
}

/// Capture times (ns) of the three-way handshake, for the path RTT (vantage.rs).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct HandshakeTimes {
    /// Direction that sent the SYN (the client).
    pub client_dir: u8,
    pub syn: Option<i64>,
    pub syn_ack: Option<i64>,
    pub ack: Option<i64>,
}
// (Options of i64 are 16 bytes each; 1M connections × 48 B is tolerable, see
// `per_connection_state_is_small`.)

pub(crate) struct Conn {
    /// endpoints[0] sent the first packet seen (direction 0).
    pub endpoints: [(IpAddr, u16); 2],
    pub sides: [Side; 2],
    /// Time of the most recent SYN and the handshake RTT (Wireshark's ts_mru_syn /
    /// ts_first_rtt, the out-of-order threshold), ns; 0 = none.
    ts_mru_syn: i64,
    first_rtt: i64,
    /// Shortest turn seen through each end: capture → host `d` → capture (an RTT
    /// sample of the other side's segment answered by `d`: ACK or timestamp echo),
    /// ns; 0 = none yet. The two add up to a path RTT (the hole-fill rule below).
    min_turn: [i64; 2],
    pub handshake: HandshakeTimes,
    /// Options of the SYN and SYN/ACK (handshake.rs).
    pub offers: HandshakeOffers,
    pub first_t: f64,
    pub last_t: f64,
    pub rows: ConnWriter,
    /// Per-direction totals for the summary, over every packet (summary.rs).
    pub totals: [Totals; 2],
    /// Packets of this connection not stored because the packet budget was spent
    /// (counted in the summary, absent from the charts).
    pub unstored: u64,
    /// The first process a packet of the connection named (decode::FrameMeta).
    pub process: Option<u32>,
    /// 802.11 radio samples (radio.rs), MAC retries included; boxed so that
    /// connections without radio headers pay one pointer.
    pub radio: Option<Box<RadioLog>>,
    /// ECN counts of both directions (ecn.rs), from the first segment with a signal.
    pub ecn: Option<Box<EcnCounts>>,
    /// The FINs, resets and TLS alerts (ending.rs), from the first of them.
    pub closing: Option<Box<Closing>>,
}

impl Conn {
    pub(crate) fn new(seg: &TcpSegment, bin_seconds: f64) -> Conn {
        Conn {
            endpoints: [(seg.src, seg.src_port), (seg.dst, seg.dst_port)],
            sides: Default::default(),
            ts_mru_syn: 0,
            first_rtt: 0,
            min_turn: [0; 2],
            handshake: HandshakeTimes::default(),
            offers: HandshakeOffers::default(),
            first_t: f64::NAN,
            last_t: f64::NAN,
            rows: ConnWriter::default(),
            totals: [Totals::new(bin_seconds), Totals::new(bin_seconds)],
            unstored: 0,
            process: None,
            radio: None,
            ecn: None,
            closing: None,
        }
    }

    pub(crate) fn dir_of(&self, seg: &TcpSegment) -> usize {
        if (seg.src, seg.src_port) == self.endpoints[0] {
            0
        } else {
            1
        }
    }

    /// `t_ns`: time since the first packet of the file; `store`: false once the
    /// packet budget is spent (the state is still updated, the row is not kept).
    /// `source_last`: its source address's datagram before it, on which connection
    /// (datagram_ids.rs `SourceIds`).
    ///
    /// The steps run in this order because each reads what the ones before it wrote:
    /// the flags read the relative numbers, the datagram numbering and the holes
    /// re-label the flags, the retransmission kinds and the clocks read the flags and
    /// the bytes in flight, the ACK's steps read the sender's state before this segment.
    pub(crate) fn push(&mut self, seg: &TcpSegment, t_ns: i64, store: bool, source_last: SourceLast) {
        let d = self.dir_of(seg);
        self.count_ecn(seg, d);
        let mut p = self.place_in_sequence_space(seg, t_ns, d, store);
        let mut aflags = self.wireshark_flags(&p);
        p.row = store.then(|| self.rows.next_row());
        // The path round trip so far, for the re-send and refill tests below.
        let rtt_so_far = round_trip(self.first_rtt, self.min_turn);
        // What this segment asks of the peer's next datagram (`Side::prompted`).
        let prompts = seg.payload_len > 0 || seg.flags & (SYN | FIN) != 0 || (!p.is_rst && seg.window == 0) || aflags & (fb::KEEP_ALIVE | fb::ZERO_WINDOW_PROBE) != 0;
        let numbering = self.read_datagram_number(&p, aflags, rtt_so_far, source_last);
        aflags = self.fill_capture_holes(&p, aflags, rtt_so_far, numbering);
        self.pass_the_turn(p.d, prompts);
        let win = self.read_handshake_and_window(&p);
        let (in_flight, high_before) = self.bytes_in_flight(&p);
        self.note_retransmission_kind(&p, aflags, high_before, numbering.resends_unseen);
        aflags = self.read_sender_clock(&p, aflags, high_before);
        let probe = aflags & (fb::ZERO_WINDOW_PROBE | fb::KEEP_ALIVE) != 0;
        self.time_rtt(&p, probe);
        self.read_sack_blocks(&p, aflags);
        // How the connection ends (ending.rs): noted only on the rare segments that tell.
        if seg.flags & (FIN | RST) != 0 || seg.tls_alert.is_some() {
            Closing::note(&mut self.closing, d, seg, t_ns, &self.sides, &self.handshake);
        }
        self.count_and_store(&p, seg.flags as u32 | aflags, win, in_flight);
    }

    /// ECN counts (ecn.rs), kept from the first segment with a signal.
    fn count_ecn(&mut self, seg: &TcpSegment, d: usize) {
        if self.ecn.is_some() || ecn::any_signal(seg) {
            self.ecn.get_or_insert_with(Box::default).add(d, seg);
        }
    }

    /// Base sequence numbers, as Wireshark (see sequence.rs), and the segment's
    /// relative numbers.
    fn place_in_sequence_space<'a>(&mut self, seg: &'a TcpSegment, t_ns: i64, d: usize, store: bool) -> Packet<'a> {
        let (fwd, rev) = sides_of(&mut self.sides, d);
        let has_ack = seg.flags & ACK != 0;
        let is_syn = seg.flags & SYN != 0;
        fwd.seq.set_base(if is_syn { seg.seq } else { seg.seq.wrapping_sub(1) });
        if has_ack {
            rev.seq.set_base(seg.ack.wrapping_sub(1));
            rev.bif_stale = false;
        }
        let prev_next = (fwd.ws.nextseq != 0).then(|| fwd.seq.rel(fwd.ws.nextseq));
        let seq_rel = fwd.seq.rel(seg.seq);
        let ack_rel = if has_ack { Some(rev.seq.rel(seg.ack)) } else { None };
        Packet {
            seg,
            t_ns,
            d,
            has_ack,
            is_syn,
            is_rst: seg.flags & RST != 0,
            prev_next,
            seq_rel,
            end_rel: seq_rel + seg.payload_len as i64,
            ack_rel,
            row: None,
            store,
        }
    }

    /// Wireshark's analysis flags (flags.rs); after "previous segment not captured" the
    /// peer's last ACK is stale for the bytes in flight.
    fn wireshark_flags(&mut self, p: &Packet) -> u32 {
        let (fwd, rev) = sides_of(&mut self.sides, p.d);
        let seg = p.seg;
        let rev_shift = match window::effective(&rev.scale, &fwd.scale) {
            Effective::Known(s) => Some(s),
            Effective::Unknown => None,
        };
        let facts = SegFacts {
            seq: seg.seq,
            ack: seg.ack,
            len: seg.payload_len,
            flags: seg.flags,
            window: seg.window as u32,
            ts_ns: seg.ts_ns,
        };
        let first_rtt = (self.first_rtt > 0).then_some(self.first_rtt);
        let aflags = flags::analyze(&mut fwd.ws, &mut rev.ws, &facts, rev_shift, first_rtt);
        if aflags & fb::LOST_SEGMENT != 0 {
            fwd.bif_stale = true;
        }
        aflags
    }

    /// The sender's IPv4 Identification (datagram_ids.rs): what its number says of this
    /// datagram, and whether a datagram carrying its data was sent before unseen.
    fn read_datagram_number(&mut self, p: &Packet, aflags: u32, rtt_so_far: Option<i64>, source_last: SourceLast) -> Numbering {
        let (seg, d) = (p.seg, p.d);
        let mut numbering = Numbering { step: IdStep::Unknown, resends_unseen: false };
        let Some(id) = seg.frame_id.ip_id else { return numbering };
        let lost = aflags & fb::LOST_SEGMENT != 0;
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
            if !captured_at_host(&self.handshake, self.min_turn, d) {
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
    fn fill_capture_holes(&mut self, p: &Packet, mut aflags: u32, rtt_so_far: Option<i64>, numbering: Numbering) -> u32 {
        let seg = p.seg;
        let (fwd, _) = sides_of(&mut self.sides, p.d);
        fwd.max_len = fwd.max_len.max(seg.payload_len);
        if let Some(t) = seg.frame_id.ip_ttl {
            fwd.ttl = Some(fwd.ttl.map_or((t, t), |(lo, hi)| (lo.min(t), hi.max(t))));
        }
        let lost = aflags & fb::LOST_SEGMENT != 0;
        let hole = p.prev_next.filter(|&n| lost && n < p.seq_rel);
        if hole.is_some() && fwd.holes.is_none() {
            fwd.holes = Some(Box::default());
        }
        let rows = &mut self.rows;
        // A SYN or FIN occupies one sequence number: it fills that much of a hole.
        let occupied_end = p.end_rel + i64::from(seg.flags & (SYN | FIN) != 0);
        let filled_gap = fwd.holes.as_mut().and_then(|h| h.on_segment(hole, p.seq_rel, occupied_end, p.row, p.t_ns, |r| rows.mark(r, fb::CAPTURE_LOSS)));
        aflags = reclassify_out_of_order(aflags, filled_gap.map(|opened| p.t_ns - opened), rtt_so_far, numbering.step);
        // Its data looks new, but its number says a datagram carrying it was sent before
        // and never reached the capture (datagram_ids.rs `resends_unseen`).
        if numbering.resends_unseen && aflags & fb::ANY_RETRANSMISSION == 0 {
            aflags |= fb::RETRANSMISSION;
        }
        aflags
    }

    /// This side has sent since the peer's last prompt; the peer now owes an answer when
    /// this segment `prompts` one (`Side::prompted`, datagram_ids.rs).
    fn pass_the_turn(&mut self, d: usize, prompts: bool) {
        let (fwd, rev) = sides_of(&mut self.sides, d);
        fwd.prompted = false;
        rev.prompted |= prompts;
    }

    /// The handshake's options, times and window scale (read after the analysis, as in
    /// packet-tcp.c), then the segment's window, scaled; None on a RST.
    fn read_handshake_and_window(&mut self, p: &Packet) -> Option<u64> {
        let (seg, d) = (p.seg, p.d);
        let (fwd, rev) = sides_of(&mut self.sides, d);
        let hs = &mut self.handshake;
        if p.is_syn {
            self.offers.on_segment(seg, d as u8);
            // A SYN with data (TCP Fast Open, RFC 7413 §3) made its side's tracker before
            // the SYN/ACK told whether SACK was negotiated: tell it now.
            if p.has_ack {
                if let Some(kinds) = rev.kinds.as_mut() {
                    kinds.learn_sack(self.offers.sack_permitted());
                }
            }
            window::on_syn(&mut fwd.scale, &mut rev.scale, p.has_ack, seg.options.window_scale);
            if !p.has_ack {
                self.ts_mru_syn = seg.ts_ns;
                // The last SYN before the SYN/ACK (a SYN retransmitted after a timeout
                // would otherwise add the timer to the round trip).
                if hs.syn_ack.is_none() {
                    *hs = HandshakeTimes { client_dir: d as u8, syn: Some(seg.ts_ns), syn_ack: None, ack: None };
                }
            } else if hs.syn.is_some() && d as u8 != hs.client_dir && hs.syn_ack.is_none() {
                hs.syn_ack = Some(seg.ts_ns);
            }
        } else if seg.flags & (SYN | ACK) == ACK && self.ts_mru_syn != 0 && self.first_rtt == 0 {
            self.first_rtt = (seg.ts_ns - self.ts_mru_syn).max(1);
        }
        if !p.is_syn && p.has_ack && d as u8 == hs.client_dir && hs.syn_ack.is_some() && hs.ack.is_none() {
            hs.ack = Some(seg.ts_ns);
        }
        let eff = window::effective(&fwd.scale, &rev.scale);
        let win = if p.is_rst { None } else { Some(window::scaled(seg.window, p.is_syn, eff)) };
        if !p.is_syn && !p.is_rst {
            fwd.last_raw_win = Some(seg.window);
        }
        win
    }

    /// Bytes in flight (DESIGN.md): highest sequence number sent so far (end of this
    /// segment) minus the highest cumulative ACK seen from the peer. Not computed after
    /// "previous segment not captured" until the peer ACKs again: the capture missed
    /// packets, so the last ACK seen is stale (as tshark). Also returns the highest
    /// sequence sent before this segment.
    fn bytes_in_flight(&mut self, p: &Packet) -> (Option<u64>, Option<i64>) {
        let seg = p.seg;
        let (fwd, rev) = sides_of(&mut self.sides, p.d);
        let mut in_flight = None;
        let high_before = fwd.sent_high;
        if seg.payload_len > 0 {
            if fwd.kinds.is_none() {
                // The peer's last ACK before this side's first data is its first feedback.
                let peer_ack_t = (rev.ws.lastack != 0).then(|| rev.ws.lastack_time - (seg.ts_ns - p.t_ns));
                fwd.kinds = Some(Box::new(RetransKinds::new(peer_ack_t, self.offers.sack_permitted())));
            }
            fwd.sent_low = Some(fwd.sent_low.map_or(p.seq_rel, |l| l.min(p.seq_rel)));
            fwd.sent_high = Some(fwd.sent_high.map_or(p.end_rel, |h| h.max(p.end_rel)));
        }
        if let (Some(high), Some(low), false) = (fwd.sent_high, fwd.sent_low, fwd.bif_stale || seg.payload_len == 0) {
            let f = (high - fwd.peer_ack.unwrap_or(low)).max(0) as u64;
            in_flight = Some(f);
            if let Some(lb) = rev.last_raw_win.and_then(|w| window::lower_bound(w, f)) {
                rev.scale_lb = Some(rev.scale_lb.map_or(lb, |x| x.max(lb)));
            }
        }
        (in_flight, high_before)
    }

    /// Loss recovery of this side (for the RTT samples' trust, rtt.rs), and the kind of
    /// a retransmission (retrans_kinds.rs).
    fn note_retransmission_kind(&mut self, p: &Packet, aflags: u32, high_before: Option<i64>, resends_unseen: bool) {
        let seg = p.seg;
        let (fwd, rev) = sides_of(&mut self.sides, p.d);
        // From a retransmission until the peer's ACK passes the highest sequence sent then.
        let resent = seg.payload_len > 0 && aflags & fb::ANY_RETRANSMISSION != 0;
        if resent && fwd.recover.is_none() {
            fwd.recover = fwd.sent_high;
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
            kinds.on_retransmission(p.row, p.t_ns, p.seq_rel, end, high.unwrap_or(end), una, tsval, syn);
        }
    }

    /// The data sender's TCP timestamps (sender_clock.rs): whether this payload answers
    /// the peer's latest data, and whether its echo shows an ACK held on the path.
    fn read_sender_clock(&mut self, p: &Packet, mut aflags: u32, high_before: Option<i64>) -> u32 {
        let seg = p.seg;
        let (fwd, rev) = sides_of(&mut self.sides, p.d);
        let probe = aflags & (fb::ZERO_WINDOW_PROBE | fb::KEEP_ALIVE) != 0;
        // Whether this payload answers the peer's latest data segment (its echo has
        // that segment's TSval or later): stalls/gaps.rs tells a request sent after a
        // retransmission arrived from one re-sent from before it.
        if let (Some((_, tsecr)), true, Some(c)) = (seg.options.timestamp, seg.payload_len > 0 && p.has_ack, rev.clock.as_ref()) {
            if tsecr != 0 && c.is_echoed_by(tsecr) {
                aflags |= fb::ANSWERS_PEER_DATA;
            }
        }
        // The sender's clock on the segments a stall is measured between (stalls/gaps.rs
        // `is_data_segment`: data, not a probe).
        if let (Some(ts), true) = (seg.options.timestamp, seg.payload_len > 0 && !probe) {
            let new_data = high_before.is_none_or(|h| p.end_rel > h);
            match fwd.clock.as_mut() {
                Some(c) => {
                    if c.on_data(p.t_ns, ts, new_data, p.row) {
                        aflags |= fb::ACK_HELD_ON_PATH;
                    }
                }
                None => fwd.clock = Some(Box::new(SenderClock::new(p.t_ns, ts.0))),
            }
        }
        aflags
    }

    /// RTT (rtt.rs): this segment starts a clock; its ACK and its timestamp echo may
    /// stop the peer's.
    fn time_rtt(&mut self, p: &Packet, probe: bool) {
        let (fwd, rev) = sides_of(&mut self.sides, p.d);
        let ctrl = if p.seg.flags & (SYN | FIN) != 0 { 1 } else { 0 };
        fwd.ack_rtt.on_send(p.seq_rel, p.end_rel + ctrl, p.seg.ts_ns, probe);
        // The peer was in loss recovery when this ACK came: its samples now may time a
        // retransmission or echo a TSval from before the hole (RFC 7323 §4.3).
        let rev_recovering = rev.recover.is_some();
        let acks_new_data = match p.ack_rel {
            Some(a) => self.read_ack(p, a),
            None => false,
        };
        self.read_timestamps(p, probe, rev_recovering, acks_new_data);
    }

    /// The peer's cumulative ACK `a` this segment carries: the peer's clock of
    /// everything acknowledged, its ACK-based RTT sample, its loss recovery, and the
    /// capture loss it shows (capture_loss.rs). True when it acknowledged new sequence
    /// space (data, SYN or FIN) the peer had sent.
    fn read_ack(&mut self, p: &Packet, a: i64) -> bool {
        let (seg, d) = (p.seg, p.d);
        let (fwd, rev) = sides_of(&mut self.sides, d);
        let mut acks_new_data = false;
        if rev.peer_ack.map_or(true, |n| a > n) {
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
            acks_new_data = true;
            if let Some((ns, round_trip)) = rev.ack_rtt.on_ack(a, seg.ts_ns) {
                // A segment SACKed before this ACK (rtt.rs): drawn, left out of the
                // statistics and of the turns, like an old timestamp echo.
                if round_trip {
                    note_turn(&mut self.min_turn, d, ns);
                }
                if p.store {
                    self.rows.push_rtt(p.t_ns, (1 - d) as u8, ns, if round_trip { 0 } else { EXCLUDED });
                }
            }
        }
        if rev.recover.is_some_and(|r| a >= r) {
            rev.recover = None;
        }
        // Capture loss (capture_loss.rs): what the peer's data holes this ACK passes.
        if rev.ws.nextseq != 0 {
            let seen_next = rev.seq.rel(rev.ws.nextseq).max(rev.sent_high.unwrap_or(i64::MIN));
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
                h.on_ack(a, seen_next, rev.max_len.max(mss), |r| rows.mark(r, fb::CAPTURE_LOSS));
            }
        }
        acks_new_data
    }

    /// The timestamp option (RFC 7323): its echo times the peer's segment, and its
    /// TSval starts this side's clock for the peer's next echo.
    fn read_timestamps(&mut self, p: &Packet, probe: bool, rev_recovering: bool, acks_new_data: bool) {
        let (seg, d) = (p.seg, p.d);
        let Some((tsval, tsecr)) = seg.options.timestamp else { return };
        let (fwd, rev) = sides_of(&mut self.sides, d);
        if p.has_ack {
            let new_data = seg.payload_len > 0 && !probe && p.prev_next.map_or(true, |n| p.end_rel > n);
            let echo = Echo { acks_new_data, sends_new_data: new_data };
            if new_data {
                rev.ts_rtt.on_peer_data(seg.ts_ns);
            }
            if let Some(sample) = rev.ts_rtt.on_echo(tsecr, seg.ts_ns, echo) {
                note_turn(&mut self.min_turn, d, sample.ns);
                if p.store {
                    let excluded = !sample.trusted || rev_recovering || probe;
                    // New data that our segment clocked out, not an ACK of ours
                    // (whose timing is the peer's ACK delay or think time): the far
                    // part a receiver-side data round trip adds (round_trips.rs).
                    let clocked = new_data && !acks_new_data;
                    let kind = 1 | if excluded { EXCLUDED } else { 0 } | if clocked { CLOCKED } else { 0 };
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
        fwd.ts_rtt.on_send(tsval, seg.ts_ns, peer_busy);
    }

    /// SACK blocks (RFC 2018 §3) describe the peer's data: its sequence space. They time
    /// the peer's segments received out of order (rtt.rs), are stored for the charts,
    /// and with the ACK tell the peer's retransmission kinds (retrans_kinds.rs).
    fn read_sack_blocks(&mut self, p: &Packet, aflags: u32) {
        let (_, rev) = sides_of(&mut self.sides, p.d);
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
        if let (Some(a), Some(kinds)) = (p.ack_rel, rev.kinds.as_mut()) {
            let duplicate = aflags & fb::DUPLICATE_ACK != 0;
            // Eifel's echo only where it is of the data sender's clock (`could_echo`).
            let tsecr = o.timestamp.map(|t| t.1).filter(|&e| rev.clock.as_ref().is_none_or(|c| c.could_echo(e)));
            kinds.on_peer_ack(&PeerAck { t_ns: p.t_ns, ack: a, sack: &blocks[..n], sack_unreadable: o.sack_unreadable, tsecr, duplicate });
        }
    }

    /// The connection's span and per-direction totals (every packet), and the packet's
    /// row for the charts (within the packet budget).
    fn count_and_store(&mut self, p: &Packet, flags: u32, win: Option<u64>, in_flight: Option<u64>) {
        let seg = p.seg;
        let t = secs(p.t_ns);
        if self.first_t.is_nan() {
            self.first_t = t;
        }
        self.last_t = if self.last_t.is_nan() { t } else { self.last_t.max(t) };
        self.totals[p.d].add(t, seg.payload_len, seg.wire_len, flags, win, in_flight);
        if !p.store {
            self.unstored += 1;
            return;
        }
        self.rows.push_packet(&PacketRow {
            t_ns: p.t_ns,
            dir: p.d as u8,
            frame: u32::try_from(seg.packet_index + 1).unwrap_or(u32::MAX),
            seq: p.seq_rel,
            len: seg.payload_len,
            wire_len: seg.wire_len,
            ack: p.ack_rel,
            win,
            in_flight,
            flags,
        });
    }
}

/// One segment as its connection sees it: computed first by `Conn::push`
/// (`place_in_sequence_space`), then read by each step.
struct Packet<'a> {
    seg: &'a TcpSegment,
    /// Time since the first packet of the file, ns.
    t_ns: i64,
    /// Its direction: 0 when endpoints[0] sent it.
    d: usize,
    has_ack: bool,
    is_syn: bool,
    is_rst: bool,
    /// Where the sender's next segment was due before this one (relative); None before
    /// its first.
    prev_next: Option<i64>,
    /// Relative sequence number of its first byte and of the byte after its payload.
    seq_rel: i64,
    end_rel: i64,
    /// Relative ACK (in the peer's sequence space), when it carries one.
    ack_rel: Option<i64>,
    /// The row it is stored at; None past the packet budget.
    row: Option<u32>,
    store: bool,
}

/// What the sender's datagram number says of a segment (datagram_ids.rs).
#[derive(Clone, Copy)]
struct Numbering {
    step: IdStep,
    /// A datagram carrying its data was sent before and never reached the capture.
    resends_unseen: bool,
}

/// The side that sent a segment of direction `d`, and its peer.
fn sides_of(sides: &mut [Side; 2], d: usize) -> (&mut Side, &mut Side) {
    let [s0, s1] = sides;
    if d == 0 {
        (s0, s1)
    } else {
        (s1, s0)
    }
}

/// Whether the capture so far looks taken at end `d`'s host (vantage.rs's rule, on
/// what is known mid-capture): the turn through `d` (its shortest answer to the other
/// end's segments, or its half of the handshake) at most a tenth of the whole round
/// trip, both turns measured.
fn captured_at_host(hs: &HandshakeTimes, min_turn: [i64; 2], d: usize) -> bool {
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
        (Some(mine), Some(other)) => other > 0 && i128::from(mine) * 10 <= i128::from(mine) + i128::from(other),
        _ => false,
    }
}

/// An RTT sample `ns` of a segment that end `d` answered (capture → d → capture).
fn note_turn(min_turn: &mut [i64; 2], d: usize, ns: i64) {
    if ns > 0 && (min_turn[d] == 0 || ns < min_turn[d]) {
        min_turn[d] = ns;
    }
}

/// The path round trip so far for the hole-fill rule: the shorter of Wireshark's
/// handshake RTT `first_rtt` (capture → each end → capture, but one sample, which a
/// slow SYN/ACK inflates: 39.9 ms on the 10 ms path of rx-cubic-loss.pcap) and the
/// sum of the shortest turns through each end. None before either is known.
fn round_trip(first_rtt: i64, min_turn: [i64; 2]) -> Option<i64> {
    let turns = (min_turn[0] > 0 && min_turn[1] > 0).then(|| min_turn[0] + min_turn[1]);
    let hs = (first_rtt > 0).then_some(first_rtt);
    match (hs, turns) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// tcpscope's one departure from Wireshark's labels (see flags.rs): an
/// "out-of-order" segment whose bytes were all captured before is a retransmission.
/// True reordering (receiver-side captures) always fills a capture gap, because the
/// later segment that overtook it was flagged "previous segment not captured" — but so
/// does the re-send of a segment lost before a receiver-side capture point, which comes
/// a round trip after the gap opened (below). `filled_gap_after_ns`: how long after the
/// gap it fills opened (None: it filled none); `rtt_ns`: `round_trip`; `id_step`: what
/// the sender's datagram numbering says of it (datagram_ids.rs).
fn reclassify_out_of_order(f: u32, filled_gap_after_ns: Option<i64>, rtt_ns: Option<i64>, id_step: IdStep) -> u32 {
    // The sender's numbering says this datagram is an original, overtaken on the way,
    // whatever Wireshark's clock rule called it: a copy re-sent in the meantime may even
    // have brought its bytes first (a forwarder that reordered runs of 70 datagrams:
    // 364 late originals read as retransmissions, beside the server's 1,822 re-sends).
    if id_step == IdStep::Overtaken && f & (fb::OUT_OF_ORDER | fb::ANY_RETRANSMISSION) != 0 {
        return (f & !fb::ANY_RETRANSMISSION) | fb::OUT_OF_ORDER;
    }
    let retransmitted = match (filled_gap_after_ns, rtt_ns) {
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
        // point or reordered). The sender learns of a hole from the receiver's ACKs of
        // the data beyond it: its retransmission passes the capture point one path RTT
        // (capture → receiver → capture → sender → capture) after the segment that
        // opened the hole, whatever the vantage (RFC 5681 §3.2, RFC 6675 §5; less the
        // spacing of later-sent segments when RACK marks by send order, RFC 8985 §6.2).
        // A segment reordered on the way arrives within a fraction of it: a sender
        // tolerates reordering up to min_RTT/4 (RACK's reo_wnd, RFC 8985 §6.2). So a
        // hole filled half a round trip (`Conn::round_trip`) or more after it opened
        // was refilled by the sender: a retransmission. Without any round trip yet,
        // Wireshark's label stands.
        (Some(after), Some(rtt)) => after.saturating_mul(2) >= rtt,
        (Some(_), None) => false,
    };
    // And the converse, by the same clock: Wireshark calls a segment that fills a hole
    // after two duplicate ACKs a fast retransmission (packet-tcp.c), but one that fills
    // it within half a round trip of its opening left the sender before the sender could
    // have heard of the hole: an original overtaken on the way (a receiver-side capture
    // of reordering by three segments; the sender's kernel counts no retransmission).
    let overtaken = id_step == IdStep::Unknown && matches!((filled_gap_after_ns, rtt_ns), (Some(after), Some(rtt)) if after.saturating_mul(2) < rtt);
    if f & fb::OUT_OF_ORDER != 0 && retransmitted {
        (f & !fb::OUT_OF_ORDER) | fb::RETRANSMISSION
    } else if f & fb::ANY_RETRANSMISSION != 0 && overtaken {
        (f & !fb::ANY_RETRANSMISSION) | fb::OUT_OF_ORDER
    } else {
        f
    }
}
