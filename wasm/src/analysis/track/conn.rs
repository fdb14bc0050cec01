//! One connection's state, packet by packet: per side its sequence space, window
//! scale, bytes in flight, the loss and timing trackers (retrans_kinds.rs, capture_loss.rs,
//! datagram_ids.rs, rtt.rs, sender_clock.rs), and the rows it writes for the charts.
//! Wireshark's flag rules (flags.rs), relative sequence numbers (sequence.rs) and window
//! scaling (window.rs) run here on every segment; the analyzer (run/analyzer.rs) finds
//! the connection and calls `Conn::push`. Its loss steps are in conn/loss.rs, the steps
//! that read the peer's ACK in conn/acks.rs.

use super::ending::Closing;
use super::ecn::{self, EcnCounts};
use super::flags::{self, SegFacts, WsFlow};
use super::handshake::HandshakeOffers;
use super::sequence::SeqSpace;
use super::totals::Totals;
use super::window::{self, Effective, Scale};
use crate::analysis::capture::clock::ClockTicks;
use crate::analysis::capture::radio::RadioLog;
use crate::analysis::loss::capture_loss::Holes;
use crate::analysis::loss::datagram_ids::{DatagramIds, SourceLast};
use crate::analysis::loss::reported::ReportedLoss;
use crate::analysis::loss::retrans_kinds::RetransKinds;
use crate::analysis::rows::columns::flag_bits as fb;
use crate::analysis::rows::store::{secs, ConnWriter, PacketRow};
use crate::analysis::timing::rtt::{AckRtt, TsRtt};
use crate::analysis::timing::sender_clock::SenderClock;
use crate::decode::tcp_flags::{ACK, FIN, RST, SYN};
use crate::decode::TcpSegment;
use std::net::IpAddr;

mod acks;
mod late_sighting;
mod loss;

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
    /// What the peer's SACK blocks reported missing of this side's data (reported.rs);
    /// boxed and made at the first SACK block above the peer's cumulative ACK.
    pub reported: Option<Box<ReportedLoss>>,
}

/// Capture times (ns) of the three-way handshake, for the path RTT (vantage.rs).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct HandshakeTimes {
    /// Direction that sent the SYN (the client).
    pub client_dir: u8,
    pub syn: Option<i64>,
    pub syn_ack: Option<i64>,
    pub ack: Option<i64>,
    /// The client sent its SYN more than once before the SYN/ACK; the server its SYN/ACK
    /// more than once before the ACK: the answer times which copy is ambiguous (Karn,
    /// vantage.rs `handshake_half`).
    pub syn_resent: bool,
    pub syn_ack_resent: bool,
    /// SYNs the client sent before the SYN/ACK, re-sends included (ending.rs
    /// `NotEstablished`; in the struct's padding: no byte more per connection).
    pub syns: u32,
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
    /// The tick of the clock that stamped this connection's packets (clock.rs: a
    /// capture can merge clocks of different ticks).
    pub ticks: ClockTicks,
    /// Link padding inside the IP length (padding.rs), from the first zero tail.
    pub(crate) padding: Option<Box<super::padding::Padding>>,
    /// Segment heads, to find two senders on one side (two_senders.rs), from the first
    /// data segment.
    pub(crate) senders: Option<Box<super::two_senders::Senders>>,
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
            ticks: ClockTicks::default(),
            padding: None,
            senders: None,
        }
    }

    /// Gives back its logs' growth room once the connection has gone quiet (run/quiet.rs,
    /// issue 43): only capacity changes, a later packet grows them again.
    pub(crate) fn release_slack(&mut self) {
        self.rows.release_slack();
        self.senders.iter_mut().for_each(|s| s.release_slack());
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
        // Zero bytes of link padding the IP length counted are not data (padding.rs).
        let stripped = self.take_out_padding(seg, d);
        let seg = stripped.as_ref().unwrap_or(seg);
        self.ticks.add(seg.ts_ns);
        self.count_ecn(seg, d);
        let mut p = self.place_in_sequence_space(seg, t_ns, d, store);
        let mut aflags = self.wireshark_flags(&p);
        self.settle_late_copy(seg, t_ns, d, aflags);
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
        // A second sender's first sending of its own bytes is no re-send (two_senders.rs).
        let ttls = [self.sides[0].ttl, self.sides[1].ttl];
        if super::two_senders::Senders::note(&mut self.senders, seg, d, (p.seq_rel, p.end_rel), p.ack_rel, t_ns, self.handshake.syn_ack.is_some(), ttls) {
            aflags &= !fb::ANY_RETRANSMISSION;
        }
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
                    let syn_resent = hs.syn.is_some() && hs.client_dir == d as u8;
                    let syns = if syn_resent { hs.syns.saturating_add(1) } else { 1 };
                    *hs = HandshakeTimes { client_dir: d as u8, syn: Some(seg.ts_ns), syn_ack: None, ack: None, syn_resent, syn_ack_resent: false, syns };
                }
            } else if hs.syn.is_some() && d as u8 != hs.client_dir && hs.syn_ack.is_none() {
                hs.syn_ack = Some(seg.ts_ns);
            } else if hs.syn_ack.is_some() && d as u8 != hs.client_dir && hs.ack.is_none() {
                hs.syn_ack_resent = true;
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
            if let Some(k) = fwd.kinds.as_mut() {
                k.sent_low = fwd.sent_low;
                if high_before.is_none_or(|h| p.end_rel > h) {
                    k.b2b.on_new_data(seg.options.timestamp.map(|t| t.0)); // the original a back-to-back copy repeats
                }
            }
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
        // The peer's clock learns this side's TSvals, to tell whether its echoes are of
        // them (sender_clock.rs `echoes_are_peers`).
        // Whether the data sender would echo it (RFC 7323 §4.3: at or below the last
        // ACK it sent, as in acks.rs `echoable`): the far part's bounds (far_bounds.rs).
        if let (Some((tsval, _)), Some(c)) = (seg.options.timestamp, rev.clock.as_mut()) {
            let echoable = fwd.peer_ack.is_some_and(|last_ack_sent| p.seq_rel <= last_ack_sent);
            c.on_peer_tsval(tsval, p.t_ns, echoable);
            c.peer_silences.on_packet(p.t_ns, tsval, p.row); // its silences by its own clock (timing/peer_silences.rs)
        }
        // The sender's clock on the segments a stall is measured between (stalls/gaps.rs
        // `is_data_segment`: data, not a probe). Its `ACK_HELD_ON_PATH` rows are marked
        // at the end of the capture, when its echoes are known to be the peer's clock.
        if let (Some(ts), true) = (seg.options.timestamp, seg.payload_len > 0 && !probe) {
            let new_data = high_before.is_none_or(|h| p.end_rel > h);
            match fwd.clock.as_mut() {
                Some(c) => {
                    c.on_data(p.t_ns, ts, new_data, p.row);
                }
                None => fwd.clock = Some(Box::new(SenderClock::new(p.t_ns, ts.0))),
            }
        }
        aflags
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

/// The side that sent a segment of direction `d`, and its peer.
fn sides_of(sides: &mut [Side; 2], d: usize) -> (&mut Side, &mut Side) {
    let [s0, s1] = sides;
    if d == 0 {
        (s0, s1)
    } else {
        (s1, s0)
    }
}

/// The path round trip so far for the hole-fill rule: the shorter of Wireshark's
/// handshake RTT `first_rtt` (capture → each end → capture, but one sample, which a
/// slow SYN/ACK inflates: 39.9 ms on the 10 ms path of rx-cubic-loss.pcap) and the
/// sum of the shortest turns through each end. None before either is known.
pub(super) fn round_trip(first_rtt: i64, min_turn: [i64; 2]) -> Option<i64> {
    let turns = (min_turn[0] > 0 && min_turn[1] > 0).then(|| min_turn[0] + min_turn[1]);
    let hs = (first_rtt > 0).then_some(first_rtt);
    match (hs, turns) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
