//! Every per-packet series of one sender direction, built in ONE pass over the
//! compact store (decoding the store costs more than anything done per row), with
//! shared time arrays: the times of the sender's packets and of the peer's packets
//! are each kept once, and a series whose points are a run of consecutive packets of
//! its side (on a bulk transfer: in flight, sequence, throughput and wire on the
//! sender's; rwnd, ack, window edge and goodput on the peer's, after the handshake)
//! holds a window into them (times.rs). Anything else gets times of its own, so the
//! columns are exactly those sources.rs builds one series at a time
//! (tests/view_query.rs checks it).

use super::pyramid::PointColumn;
use super::request::Series;
use super::sources::{event_bytes, point_value, CeCursor, CumColumn, GoodputState, MarkerColumn};
use super::times::Times;
use crate::analysis::store::{secs, PacketRow};
use crate::analysis::ConnStore;
use std::sync::Arc;

/// The point series built here (RTT comes from the RTT samples, not the packets).
pub const POINT_SERIES: [Series; 5] = [Series::Inflight, Series::Sequence, Series::Rwnd, Series::Ack, Series::WindowEdge];
/// The rate series built here.
pub const RATE_SERIES: [Series; 3] = [Series::Throughput, Series::Wire, Series::Goodput];
/// The event counts built here too (one event per flagged packet, usually few: their
/// own growing arrays, not a window into the side's times). In the same pass because
/// each pass over the store costs ~90 ms per million packets in the browser: three more
/// passes were a fifth of the time from the report to the charts (issue 14).
pub const EVENT_SERIES: [Series; 6] = [Series::Retransmissions, Series::DuplicateAcks, Series::ZeroWindows, Series::CeMarks, Series::Ece, Series::Cwr];

/// The series of sender `dir`, and the sequence graph's markers.
#[derive(Debug, Default)]
pub struct PacketSeries {
    pub points: Vec<(Series, PointColumn)>,
    pub rates: Vec<(Series, CumColumn)>,
    pub sequence_markers: MarkerColumn,
    /// The `ecn` series' markers (sources.rs `push_ecn_marker`).
    pub ecn_markers: MarkerColumn,
}

impl PacketSeries {
    pub fn point(&self, series: Series) -> Option<&PointColumn> {
        self.points.iter().find(|p| p.0 == series).map(|p| &p.1)
    }

    pub fn rate(&self, series: Series) -> Option<&CumColumn> {
        self.rates.iter().find(|p| p.0 == series).map(|p| &p.1)
    }

    /// Heap bytes, each time array counted once.
    pub fn bytes(&self) -> usize {
        let mut bases: Vec<(usize, usize)> = Vec::new();
        let mut other = 24 * (self.sequence_markers.t.capacity() + self.ecn_markers.t.capacity());
        for (t, rest) in self.points.iter().map(|p| (&p.1.t, p.1.bytes_besides_times())).chain(self.rates.iter().map(|r| (&r.1.t, 8 * r.1.cum.capacity()))) {
            other += rest;
            if !bases.iter().any(|b| b.0 == t.base_id()) {
                bases.push((t.base_id(), t.base_bytes()));
            }
        }
        other + bases.iter().map(|b| b.1).sum::<usize>()
    }
}

/// Where a series' times are while the pass runs: a window `[start, start + len)` of
/// its side's times, or (once its points stop being consecutive packets) a copy.
#[derive(Default)]
struct Follow {
    start: usize,
    len: usize,
    own: Option<Vec<f64>>,
}

impl Follow {
    /// Row `i` of the side (times `side[..=i]`) has a point of this series; the side
    /// has at most `side_rows` rows (the copy's capacity, so it never grows by doubling).
    #[inline(always)]
    fn point(&mut self, side: &[f64], i: usize, side_rows: usize) {
        // The common case inline (a run of consecutive packets grows), the rest in a call:
        // up to eight series take this step for every row.
        if self.own.is_none() && self.len > 0 && self.start + self.len == i {
            self.len += 1;
        } else {
            self.point_otherwise(side, i, side_rows);
        }
    }

    #[inline(never)]
    fn point_otherwise(&mut self, side: &[f64], i: usize, side_rows: usize) {
        match &mut self.own {
            Some(own) => own.push(side[i]),
            None if self.len == 0 => (self.start, self.len) = (i, 1),
            None if self.start + self.len == i => self.len += 1,
            None => {
                let mut own = Vec::with_capacity(self.len + side_rows.saturating_sub(i).max(1));
                own.extend_from_slice(&side[self.start..self.start + self.len]);
                own.push(side[i]);
                self.own = Some(own);
            }
        }
    }

    fn times(self, side: &Arc<Vec<f64>>) -> Times {
        match self.own {
            Some(mut own) => {
                own.shrink_to_fit();
                Times::owned(own)
            }
            None => Times::window(side, self.start, self.len),
        }
    }
}

/// One series being built: its times and values (point series) or the running byte
/// total of its events (rates: `cum` as [`CumColumn`] holds it, a leading 0 then the
/// total after each event; kept while the pass runs, so that a time-ordered capture
/// needs no second pass over the events).
#[derive(Default)]
struct Building {
    follow: Follow,
    values: Vec<f64>,
    cum: Vec<u64>,
}

/// `cum` (a leading 0, then running totals) with `x` added. The totals never saturate
/// (payload and frame lengths are u32 and rows at most u32::MAX, so their sum is below
/// 2^64; goodput's increments add up to the last ACK less the first; events are ones),
/// so the differences of consecutive totals are exactly the events' bytes (`rate_column`).
#[inline(always)]
fn add_event(cum: &mut Vec<u64>, x: u64) {
    let total = cum.last().map_or(0, |&c| c).saturating_add(x);
    cum.push(total);
}

/// The rate column from its event times and running totals. `ordered`: the pass saw
/// every row's time in order, so the events are sorted; otherwise `CumColumn::from_events`
/// sorts them as `sources::cumulative` does (from the events' bytes, the totals'
/// differences).
fn rate_column(t: Times, mut cum: Vec<u64>, ordered: bool) -> CumColumn {
    debug_assert_eq!(cum.first(), Some(&0), "build starts every total with its leading 0");
    if ordered {
        cum.shrink_to_fit();
        return CumColumn { t, cum };
    }
    let bytes = cum.windows(2).map(|w| w[1] - w[0]).collect();
    CumColumn::from_events(t, bytes)
}

/// `side_rows`: packets of the sender and of the peer in the store, or an upper bound
/// (the summary's counts): every array is allocated once at that size and shrunk in
/// place at the end, so building never holds an array twice (a doubling Vec would,
/// and wasm's linear memory keeps its high-water mark; issue 14's memory target).
pub fn build(store: &ConnStore, dir: u8, side_rows: [usize; 2]) -> PacketSeries {
    let rows = side_rows.map(|r| r.min(store.packet_count()));
    let peer_side = |s: Series| usize::from(matches!(s, Series::Rwnd | Series::Ack | Series::WindowEdge | Series::Goodput));
    // sides[0] = the sender's packet times, sides[1] = the peer's.
    let mut sides: [Vec<f64>; 2] = rows.map(Vec::with_capacity);
    // Arrays, not Vecs: the loops below over them and the constant series lists then
    // have a length known when compiling, are unrolled, and each `point_value` /
    // `event_bytes` match folds to its one series (a third of the pass, natively).
    let mut points: [Building; POINT_SERIES.len()] = POINT_SERIES.map(|s| Building { values: Vec::with_capacity(rows[peer_side(s)]), ..Building::default() });
    let mut rates: [Building; RATE_SERIES.len()] = RATE_SERIES.map(|s| {
        let mut cum = Vec::with_capacity(rows[peer_side(s)] + 1);
        cum.push(0);
        Building { cum, ..Building::default() }
    });
    let mut goodput = GoodputState::default();
    let mut markers = MarkerColumn::default();
    let mut ecn_markers = MarkerColumn::default();
    let mut ce = CeCursor::new(store);
    let mut events: [(Vec<f64>, Vec<u64>); EVENT_SERIES.len()] = std::array::from_fn(|_| (Vec::new(), vec![0]));
    // Whether every row's time is at or after the previous row's: then the sides'
    // times, and every series' (a subsequence of them), are sorted, and the columns
    // are made without checking it again (those scans re-read every array: a quarter
    // of the build, natively).
    let (mut ordered, mut last_ns) = (true, i64::MIN);
    store.for_each_packet(|r: &PacketRow| {
        ordered &= r.t_ns >= last_ns;
        last_ns = r.t_ns;
        let marked = ce.next_row();
        for ((t, b), &s) in events.iter_mut().zip(&EVENT_SERIES) {
            // Event series keep no state (goodput's is the only one).
            if let Some(x) = event_bytes(s, r, dir, marked, &mut GoodputState::default()) {
                t.push(secs(r.t_ns));
                add_event(b, x);
            }
        }
        let k = usize::from(r.dir != dir);
        let side = &mut sides[k];
        side.push(secs(r.t_ns));
        let i = side.len() - 1;
        for (b, &s) in points.iter_mut().zip(&POINT_SERIES) {
            if let Some(x) = point_value(s, r, dir) {
                b.follow.point(side, i, rows[k]);
                b.values.push(x);
            }
        }
        for (b, &s) in rates.iter_mut().zip(&RATE_SERIES) {
            if let Some(x) = event_bytes(s, r, dir, marked, &mut goodput) {
                b.follow.point(side, i, rows[k]);
                add_event(&mut b.cum, x);
            }
        }
        markers.push_sequence_marker(r, dir);
        ecn_markers.push_ecn_marker(r, dir, marked);
    });
    let sides = sides.map(|mut s| {
        s.shrink_to_fit();
        Arc::new(s)
    });
    // Which side each series' points come from (point_value / event_bytes).
    let side_of = |s: Series| &sides[peer_side(s)];
    PacketSeries {
        points: POINT_SERIES
            .iter()
            .zip(points)
            .map(|(&s, mut b)| {
                b.values.shrink_to_fit();
                let t = b.follow.times(side_of(s));
                // Values are integers as f64 (point_value): always finite.
                (s, if ordered && t.len() == b.values.len() { PointColumn::with_sorted_times(t, b.values) } else { PointColumn::with_times(t, b.values) })
            })
            .collect(),
        rates: RATE_SERIES
            .iter()
            .zip(rates)
            .map(|(&s, b)| (s, rate_column(b.follow.times(side_of(s)), b.cum, ordered)))
            .chain(EVENT_SERIES.iter().zip(events).map(|(&s, (mut t, b))| {
                t.shrink_to_fit();
                (s, rate_column(Times::owned(t), b, ordered))
            }))
            .collect(),
        sequence_markers: markers.sorted(),
        ecn_markers: ecn_markers.sorted(),
    }
}
