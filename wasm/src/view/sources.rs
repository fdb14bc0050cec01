//! What each series is made of, read once from a connection's compact store
//! (analysis/rows/store.rs) into the sorted columns the queries need. Definitions:
//! DESIGN.md "Definitions" and analysis/rows/columns.rs.

use super::pyramid::PointColumn;
use super::request::Series;
use crate::analysis::columns::flag_bits as fb;
use crate::analysis::round_trips::{RoundTripRule, EXCLUDED, FOLLOWED};
use super::times::Times;
use crate::analysis::store::{secs, PacketRow};
use crate::analysis::ConnStore;
use crate::decode::tcp_flags::{CWR, ECE, SYN};

/// Segments the sequence graph marks: retransmissions of any kind (Wireshark's
/// tcp.analysis.retransmission / fast / spurious), "previous segment not captured",
/// out-of-order.
pub const MARKER_FLAGS: u32 = fb::ANY_RETRANSMISSION | fb::LOST_SEGMENT | fb::OUT_OF_ORDER;

/// The point series of direction `dir` (the sender):
/// - inflight: bytes in flight at each data segment of `dir` (the analyzer's value);
/// - rwnd: the window the peer advertises, scaled when the scale is known, SYNs
///   excluded (RFC 7323 §2.2: never scaled there) and RSTs (no window);
/// - rtt: RTT samples of `dir`'s data as full round trips, ms (ACK-based and
///   timestamps, the other part of the round trip added by the connection's
///   `RoundTripRule`, as in the statistics), except those the analysis keeps out of
///   its statistics (kind bit 1; they are markers);
/// - sequence: relative sequence number of each data segment's first byte;
/// - ack / windowEdge: the peer's cumulative ACK, and ACK + its advertised window
///   (scaled when known; SYNs excluded like rwnd), at each peer packet carrying an ACK.
pub fn points(store: &ConnStore, series: Series, dir: u8, round_trips: &RoundTripRule) -> PointColumn {
    let (mut t, mut v) = (Vec::new(), Vec::new());
    match series {
        Series::Pipe => pipe(store, dir, &mut t, &mut v),
        Series::Rtt => round_trips.for_each(store, &mut |ts, d, _, round_trip_ms, kind| {
            if d == dir && kind & EXCLUDED == 0 {
                t.push(ts);
                v.push(round_trip_ms);
            }
        }),
        _ => store.for_each_packet(|r| {
            if let Some(x) = point_value(series, r, dir) {
                t.push(secs(r.t_ns));
                v.push(x);
            }
        }),
    }
    t.shrink_to_fit();
    v.shrink_to_fit();
    PointColumn::new(t, v)
}

/// The SACK-adjusted pipe of `dir` (`Series::Pipe`): at each data segment with a
/// bytes-in-flight value, that value less the bytes SACKed by the peer's most recent
/// ACK above its cumulative ACK (tshark subtracts the blocks of the last ACK: RFC 2018
/// §4 lets the receiver repeat the most recent blocks in every ACK). A peer ACK
/// without SACK blocks clears them. SACK rows are matched to the ACK that carried
/// them by time and direction (store.rs writes them together).
fn pipe(store: &ConnStore, dir: u8, t: &mut Vec<f64>, v: &mut Vec<f64>) {
    let mut sacks: Vec<(i64, i64, i64)> = Vec::new();
    store.for_each_sack(|t_ns, d, l, r| {
        if d != dir {
            sacks.push((t_ns, l, r));
        }
    });
    let (mut next, mut blocks): (usize, Vec<(i64, i64)>) = (0, Vec::new());
    let mut una = i64::MIN;
    store.for_each_packet(|r| {
        if r.dir != dir {
            let Some(a) = r.ack else { return };
            una = una.max(a);
            while next < sacks.len() && sacks[next].0 < r.t_ns {
                next += 1; // blocks of a packet the store did not keep
            }
            blocks.clear();
            while next < sacks.len() && sacks[next].0 == r.t_ns {
                blocks.push((sacks[next].1, sacks[next].2));
                next += 1;
            }
            return;
        }
        let Some(f) = r.in_flight else { return };
        let sacked: i64 = blocks.iter().map(|&(l, rr)| (rr - l.max(una)).max(0)).sum();
        t.push(secs(r.t_ns));
        v.push((f as i64 - sacked).max(0) as f64);
    });
}

/// The value packet `r` gives point series `series` of sender `dir` (see [`points`]),
/// None when it gives none. Only packets of `dir` give inflight and sequence values,
/// only the peer's give rwnd, ack and windowEdge values.
#[inline(always)]
pub fn point_value(series: Series, r: &PacketRow, dir: u8) -> Option<f64> {
    match series {
        Series::Inflight if r.dir == dir => r.in_flight.map(|f| f as f64),
        Series::Sequence if r.dir == dir && r.len > 0 => Some(r.seq as f64),
        Series::Rwnd if r.dir != dir && r.flags & SYN as u32 == 0 => r.win.map(|w| w as f64),
        Series::Ack if r.dir != dir => r.ack.map(|a| a as f64),
        Series::WindowEdge if r.dir != dir && r.flags & SYN as u32 == 0 => r.ack.zip(r.win).map(|(a, w)| a as f64 + w as f64),
        _ => None,
    }
}

/// Points drawn apart (see `response::Points::markers`), sorted by time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MarkerColumn {
    pub t: Vec<f64>,
    pub v: Vec<f64>,
    pub flags: Vec<u32>,
    pub frame: Vec<u32>,
}

/// Sequence: marked segments of `dir` ([`MARKER_FLAGS`]); RTT: excluded samples.
pub fn markers(store: &ConnStore, series: Series, dir: u8, round_trips: &RoundTripRule) -> MarkerColumn {
    let mut m = MarkerColumn::default();
    if series == Series::Rtt {
        round_trips.for_each(store, &mut |ts, d, _, round_trip_ms, kind| {
            if d == dir && kind & EXCLUDED != 0 {
                m.t.push(ts);
                m.v.push(round_trip_ms);
                // The stored kind bits only (FOLLOWED is the rule's, not the sample's).
                m.flags.push(u32::from(kind & !FOLLOWED));
                m.frame.push(0);
            }
        });
    } else {
        store.for_each_packet(|r| m.push_sequence_marker(r, dir));
    }
    m.sorted()
}

impl MarkerColumn {
    /// Adds `r` if it is a segment of `dir` the sequence graph marks.
    pub fn push_sequence_marker(&mut self, r: &PacketRow, dir: u8) {
        if r.dir == dir && r.len > 0 && r.flags & MARKER_FLAGS != 0 {
            self.t.push(secs(r.t_ns));
            self.v.push(r.seq as f64);
            self.flags.push(r.flags);
            self.frame.push(r.frame);
        }
    }

    /// Adds `r` if it carries an ECN signal of sender `dir` ([`ecn_bits`]): at its
    /// sequence number (the sender's) or its ACK (the peer's ECE).
    pub fn push_ecn_marker(&mut self, r: &PacketRow, dir: u8, ce: bool) {
        let bits = ecn_bits(r, dir, ce);
        let v = if r.dir == dir { Some(r.seq as f64) } else { r.ack.map(|a| a as f64) };
        if let (true, Some(v)) = (bits != 0, v) {
            self.t.push(secs(r.t_ns));
            self.v.push(v);
            self.flags.push(bits);
            self.frame.push(r.frame);
        }
    }

    /// Sorted by time (a stable sort: equal times keep capture order).
    pub fn sorted(self) -> MarkerColumn {
        let mut m = self;
        if !m.t.windows(2).all(|w| w[0] <= w[1]) {
        let mut order: Vec<usize> = (0..m.t.len()).collect();
        order.sort_by(|&a, &b| m.t[a].total_cmp(&m.t[b]));
        m = MarkerColumn {
            t: order.iter().map(|&i| m.t[i]).collect(),
            v: order.iter().map(|&i| m.v[i]).collect(),
            flags: order.iter().map(|&i| m.flags[i]).collect(),
            frame: order.iter().map(|&i| m.frame[i]).collect(),
        };
    }
        m
    }
}

/// Events of a rate series with the running byte total: `cum[i]` = bytes of the
/// events before i, so the bytes of any time range are one subtraction after two
/// binary searches (rates.rs). Sorted by time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CumColumn {
    /// Possibly shared with the connection's other series (times.rs).
    pub t: Times,
    /// len = t.len() + 1, cum[0] = 0.
    pub cum: Vec<u64>,
}

impl CumColumn {
    pub fn bytes(&self) -> usize {
        self.t.base_bytes() + 8 * self.cum.capacity()
    }
}

/// - throughput: payload bytes of every segment of `dir` (retransmissions too: the
///   summary's bins count them, analysis/rates/throughput.rs);
/// - wire: frame bytes of every packet of `dir`;
/// - goodput: bytes newly acknowledged by the peer's cumulative ACK, at the ACK's
///   time (DESIGN.md "Throughput"). The first ACK only sets the baseline (a capture
///   starting mid-flow must not count old data); the SYN and FIN each occupy one
///   sequence number, counted too (negligible; same rule as the first-round chart).
pub fn cumulative(store: &ConnStore, series: Series, dir: u8) -> CumColumn {
    let (mut t, mut b): (Vec<f64>, Vec<u64>) = (Vec::new(), Vec::new());
    let mut goodput = GoodputState::default();
    let mut ce = CeCursor::new(store);
    store.for_each_packet(|r| {
        let marked = ce.next_row();
        if let Some(bytes) = event_bytes(series, r, dir, marked, &mut goodput) {
            t.push(secs(r.t_ns));
            b.push(bytes);
        }
    });
    t.shrink_to_fit();
    CumColumn::from_events(Times::owned(t), b)
}

/// The highest cumulative ACK seen so far (goodput's baseline).
#[derive(Clone, Copy, Debug, Default)]
pub struct GoodputState {
    highest: Option<i64>,
}

/// Which rows are CE-marked (store.rs `ce_rows`, ascending): one cursor walks them
/// alongside `for_each_packet`, which gives the rows in order.
pub struct CeCursor<I: Iterator<Item = u32>> {
    rows: std::iter::Peekable<I>,
    row: u32,
}

impl<'a> CeCursor<Box<dyn Iterator<Item = u32> + 'a>> {
    pub fn new(store: &'a ConnStore) -> Self {
        CeCursor { rows: (Box::new(store.ce_rows()) as Box<dyn Iterator<Item = u32> + 'a>).peekable(), row: 0 }
    }
}

impl<I: Iterator<Item = u32>> CeCursor<I> {
    /// Whether the next row arrived CE-marked: call once per row, in order.
    #[inline(always)]
    pub fn next_row(&mut self) -> bool {
        let row = self.row;
        self.row += 1;
        let mut marked = false;
        while let Some(&r) = self.rows.peek().filter(|&&r| r <= row) {
            marked |= r == row;
            self.rows.next();
        }
        marked
    }
}

/// Markers bits of the `ecn` series (`response::Markers::flags`).
pub const ECN_CE: u32 = 1;
pub const ECN_ECE: u32 = 2;
pub const ECN_CWR: u32 = 4;

/// The `ecn` markers bits of packet `r` for sender `dir` (see `Series::Ecn`): 0 = none.
/// `ce`: the row is CE-marked ([`CeCursor`]). SYNs are left out as ecn.rs counts them
/// (their ECE and CWR negotiate ECN, RFC 3168 §6.1.1).
#[inline(always)]
pub fn ecn_bits(r: &PacketRow, dir: u8, ce: bool) -> u32 {
    if r.flags & SYN as u32 != 0 {
        return 0;
    }
    if r.dir == dir {
        (if ce && r.len > 0 { ECN_CE } else { 0 }) | (if r.flags & CWR as u32 != 0 { ECN_CWR } else { 0 })
    } else if r.flags & ECE as u32 != 0 {
        ECN_ECE
    } else {
        0
    }
}

/// The bytes packet `r` adds to rate series `series` of sender `dir` (see
/// [`cumulative`]), None when it is not an event of the series. `ce`: the row arrived
/// CE-marked ([`CeCursor`]). Goodput keeps its baseline in `goodput`: call it for every
/// packet in capture order.
#[inline(always)]
pub fn event_bytes(series: Series, r: &PacketRow, dir: u8, ce: bool, goodput: &mut GoodputState) -> Option<u64> {
    match series {
        Series::Throughput if r.dir == dir && r.len > 0 => Some(r.len as u64),
        Series::Wire if r.dir == dir => Some(r.wire_len as u64),
        // Event series: one per flagged packet (the counts of the report's
        // retransmissions / duplicateAcks / zeroWindows, binned).
        Series::Retransmissions if r.dir == dir && r.flags & fb::ANY_RETRANSMISSION != 0 => Some(1),
        Series::DuplicateAcks if r.dir != dir && r.flags & fb::DUPLICATE_ACK != 0 => Some(1),
        Series::ZeroWindows if r.dir != dir && r.flags & fb::ZERO_WINDOW != 0 => Some(1),
        // ECN (analysis/track/ecn.rs counts the same segments: `direction.ecn`).
        Series::CeMarks if ecn_bits(r, dir, ce) & ECN_CE != 0 => Some(1),
        Series::Ece if ecn_bits(r, dir, ce) & ECN_ECE != 0 => Some(1),
        Series::Cwr if ecn_bits(r, dir, ce) & ECN_CWR != 0 => Some(1),
        Series::Goodput if r.dir != dir => match (r.ack, goodput.highest) {
            (Some(a), None) => {
                goodput.highest = Some(a);
                None
            }
            (Some(a), Some(h)) if a > h => {
                goodput.highest = Some(a);
                Some((a - h) as u64)
            }
            _ => None,
        },
        _ => None,
    }
}

impl CumColumn {
    /// From events in capture order (`t` may be shared, times.rs): sorted by time
    /// when the capture's clock went backwards, then the running totals.
    pub fn from_events(t: Times, mut b: Vec<u64>) -> CumColumn {
        let t = if t.windows(2).all(|w| w[0] <= w[1]) {
            t
        } else {
            // The capture's clock went backwards: a stable sort keeps equal times in order.
            let mut order: Vec<u32> = (0..t.len() as u32).collect();
            order.sort_by(|&x, &y| t[x as usize].total_cmp(&t[y as usize]));
            b = order.iter().map(|&i| b[i as usize]).collect();
            Times::owned(order.iter().map(|&i| t[i as usize]).collect())
        };
        // Running totals in place: b becomes cum (one leading 0; in place when b has
        // room for it, as packet_series.rs leaves it).
        b.insert(0, 0);
        for i in 1..b.len() {
            b[i] = b[i - 1].saturating_add(b[i]);
        }
        b.shrink_to_fit();
        CumColumn { t, cum: b }
    }
}
