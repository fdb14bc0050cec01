//! Whether the capture's clock follows the packets, told by each host's own TCP
//! timestamp clock (docs/ANALYSIS.md "A capture clock the hosts' clocks contradict";
//! issue 39, review AF class C-BATCHED-CAPTURE-CLOCK).
//!
//! A host stamps every segment it sends with its TS clock (RFC 7323 §3, §5.4: monotone,
//! one tick 1 ms – 1 s, roughly proportional to real time) and echoes in TSecr the TSval
//! of a segment it has received (§4.3). Wherever on the path the capture was taken, a
//! segment passes it after its host sent it and before the other host receives it. So
//! two consecutive segments A1, A2 of host A bound A's tick τ, in nanoseconds of capture
//! time, whatever the path's delays (queues, radio holds, a paused application):
//!
//! - **upper pair** (the capture's gap too long for A's clock): A2 echoes the TSval of
//!   B's segment q, captured after A1. A sent A1 before the capture stamped it, received
//!   q after the capture stamped it and sent A2 after that, within (A2 − A1 + 1) ticks
//!   of its clock: τ ≥ (t(q) − t(A1)) / (TSval(A2) − TSval(A1) + 1).
//! - **lower pair** (the capture's gap too short): A1 echoes q (so A sent A1 after q
//!   passed the capture), and A2 left A at least (A2 − A1 − 1) ticks after A1, before the
//!   capture stamped it: τ ≤ (t(A2) − t(q)) / (TSval(A2) − TSval(A1) − 1).
//!
//! "q" is the first captured segment of B carrying that TSval (the one that first
//! reached A). Only deltas of one host within one connection are compared (Linux
//! randomises each connection's TSval offset), and no tick is assumed: a host whose
//! clock ticks 10 ms or 100 ms has every bound scaled alike. On a capture whose stamps
//! are the packets' times, every lower bound is at most every upper bound. When the
//! [`REPEAT`]-th largest lower bound exceeds [`FACTOR`] × the [`REPEAT`]-th smallest upper
//! bound, no clock rate explains what the capture says: the capture stamped the packets
//! in batches, not as they passed (Apple's rvictl remote virtual interface rvi0: an
//! iPhone's packets relayed over USB; Mamaril-Jeremy CPE400-Project clash_data.pcapng
//! connection 23: the phone's clock moves 68 ms where the capture shows 1.002 s, frames
//! 1888 → 1894, and 869 ms where it shows 26 ms, frames 1902 → 2293).

use crate::decode::TcpSegment;
use std::collections::VecDeque;

/// How many contradicting pairs of each kind are needed: one is a capture clock step or
/// one misread echo; two of each, both ways, is a clock that does not follow the packets
/// (clash_data.pcapng connection 23 has two batch gaps).
pub const REPEAT: usize = 2;
/// How far apart the bounds must lie: ten times, far beyond a tick's rounding (the ±1
/// tick is already in the bounds), a clock's skew (≤ 0.1 %) and capture jitter ([`margin_ns`]).
pub const FACTOR: f64 = 10.0;
/// The capture's own jitter allowed on every gap: 2 ms (a software stamp taken after
/// interrupt coalescing), or twice the capture clock's tick when coarser (clock.rs).
pub const MARGIN_NS: i64 = 2_000_000;

/// The margin for a connection stamped by a clock of `own_tick_ns` in a capture of
/// `resolution_ns` (capture/clock.rs).
pub fn margin_ns(own_tick_ns: Option<i64>, resolution_ns: Option<i64>) -> i64 {
    MARGIN_NS.max(2 * own_tick_ns.unwrap_or(0)).max(2 * resolution_ns.unwrap_or(0))
}

/// Shortest span of a host's segments that measures its clock's rate, ns.
const MIN_SPAN_NS: i64 = 1_000_000_000;
/// How far a capture gap must outrun the host's clock (upper pairs), ns. A capture gap
/// shorter than this can never do so, so no such pair is kept.
pub const MIN_EXCESS_NS: i64 = 100_000_000;
/// How far each side's bound must lie from that rate.
pub const SIDE_FACTOR: f64 = 3.0;
/// Candidates kept per host of capture gaps too long for its clock (the best by the
/// bound), made at the first gap of at least [`MIN_EXCESS_NS`]; of gaps too short, the
/// [`REPEAT`] best, inline (a short connection pays no allocation for them).
const KEEP: usize = 8;
/// A host's TSvals not yet echoed by its peer, remembered for the echo lookup: the
/// peer echoes TS.Recent, which only moves forward (RFC 7323 §4.3), so a value older than
/// its latest echo is never looked up again and is dropped; what stays is about one round
/// trip of the host's distinct TSvals. Past this many the oldest is dropped (an echo of it
/// then bounds nothing).
const MAX_UNECHOED: usize = 64;

/// One bound on a host's tick: the capture gap (ns, before the margin), what the host's
/// clock moved over it, TSval(A2) − TSval(A1), and the frames (A1, q, A2).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pair {
    pub gap_ns: i64,
    pub moved: u32,
    pub frames: [u32; 3],
}

impl Pair {
    /// The ticks of the host's clock the gap is divided by: moved + 1 for a gap too
    /// long (a lower bound on the tick), moved − 1 for one too short (an upper bound).
    fn ticks(&self, lower_on_tick: bool) -> u32 {
        if lower_on_tick {
            self.moved.saturating_add(1)
        } else {
            self.moved.saturating_sub(1)
        }
    }

    /// The bound on the tick, ns: `margin_ns` of capture jitter taken off an upper
    /// pair's gap (a lower bound on τ) and added to a lower pair's (an upper bound).
    fn bound(&self, margin_ns: i64, lower_on_tick: bool) -> f64 {
        let g = if lower_on_tick { self.gap_ns - margin_ns } else { self.gap_ns + margin_ns };
        g.max(0) as f64 / f64::from(self.ticks(lower_on_tick).max(1))
    }
}

/// The `K` pairs with the largest (`high`) or smallest bound, ranked with the least
/// margin ([`MARGIN_NS`]).
#[derive(Clone, Copy, Debug)]
struct Kept<const K: usize> {
    pairs: [Pair; K],
    n: u8,
}

impl<const K: usize> Default for Kept<K> {
    fn default() -> Self {
        Kept { pairs: [Pair::default(); K], n: 0 }
    }
}

impl<const K: usize> Kept<K> {
    fn as_slice(&self) -> &[Pair] {
        &self.pairs[..usize::from(self.n)]
    }

    fn keep(&mut self, p: Pair, high: bool) {
        let b = |x: &Pair| x.bound(MARGIN_NS, high);
        let n = usize::from(self.n);
        if n < K {
            self.pairs[n] = p;
            self.n += 1;
            return;
        }
        let worst = if high { self.pairs.iter().enumerate().min_by(|a, c| b(a.1).total_cmp(&b(c.1))) } else { self.pairs.iter().enumerate().max_by(|a, c| b(a.1).total_cmp(&b(c.1))) };
        let Some((i, w)) = worst else { return };
        if (high && b(&p) > b(w)) || (!high && b(&p) < b(w)) {
            self.pairs[i] = p;
        }
    }
}

/// One host's (one direction's) state: about 170 B, and the boxed gaps too long for its
/// clock once there is one.
#[derive(Debug)]
struct Host {
    /// Its last segment: capture time, TSval, frame; the capture time and frame of the
    /// peer's segment its echo named (`echo_t` i64::MIN: none found).
    last_t: i64,
    echo_t: i64,
    last_tsval: u32,
    last_frame: u32,
    echo_frame: u32,
    seen: bool,
    /// Its first segment's capture time and TSval (the clock's rate over the connection).
    first_t: i64,
    first_tsval: u32,
    /// Its new TSvals in capture order not yet echoed, each with the first capture time
    /// and frame ([`MAX_UNECHOED`]).
    unechoed: VecDeque<(u32, u32, i64)>,
    /// Lower bounds on its tick (capture gap too long) and upper bounds (too short).
    too_long: Option<Box<Kept<KEEP>>>,
    too_short: Kept<REPEAT>,
}

impl Default for Host {
    fn default() -> Self {
        Host { last_t: 0, echo_t: i64::MIN, last_tsval: 0, last_frame: 0, echo_frame: 0, seen: false, first_t: 0, first_tsval: 0, unechoed: VecDeque::new(), too_long: None, too_short: Kept::default() }
    }
}

/// Both hosts of a connection, made at its first timestamped segment.
#[derive(Debug, Default)]
pub struct TsClockCheck {
    hosts: [Host; 2],
}

/// The trackers of a capture's connections, by connection index (run/analyzer.rs): a
/// side table, so a connection without TCP timestamps pays one empty slot.
#[derive(Debug, Default)]
pub struct TsClockChecks {
    by_conn: Vec<Option<Box<TsClockCheck>>>,
}

impl TsClockChecks {
    /// A segment of connection `index`, direction `d`, captured at `t_ns`.
    #[inline]
    pub fn note(&mut self, index: usize, d: usize, seg: &TcpSegment, t_ns: i64) {
        let Some((tsval, tsecr)) = seg.options.timestamp else { return };
        if self.by_conn.len() <= index {
            self.by_conn.resize_with(index + 1, || None);
        }
        let frame = u32::try_from(seg.packet_index + 1).unwrap_or(u32::MAX);
        self.by_conn[index].get_or_insert_with(Box::default).note(d, tsval, tsecr, frame, t_ns);
    }

    /// Connection `index`'s tracker, once (`finish`).
    pub fn take(&mut self, index: usize) -> Option<Box<TsClockCheck>> {
        self.by_conn.get_mut(index).and_then(Option::take)
    }
}

impl TsClockCheck {
    /// A segment of direction `d` (its sender is host `d`), frame `frame`, captured at `t_ns`.
    pub fn note(&mut self, d: usize, tsval: u32, tsecr: u32, frame: u32, t_ns: i64) {
        let echo = if tsecr == 0 { None } else { self.hosts[1 - d].echoed(tsecr) };
        let h = &mut self.hosts[d];
        if !h.seen {
            (h.first_t, h.first_tsval) = (t_ns, tsval);
        }
        if h.unechoed.back().is_none_or(|&(v, _, _)| (tsval.wrapping_sub(v) as i32) > 0) && (!h.seen || (tsval.wrapping_sub(h.last_tsval) as i32) > 0) {
            if h.unechoed.len() == MAX_UNECHOED {
                h.unechoed.pop_front();
            }
            crate::lean::push_back(&mut h.unechoed, (tsval, frame, t_ns));
        }
        if h.seen {
            let moved = tsval.wrapping_sub(h.last_tsval);
            // A clock that stepped back (a reordered segment) or jumped by half its range
            // (a SYN proxy's TSvals, then the server's) bounds nothing.
            if (moved as i32) >= 0 && moved < 1 << 30 {
                if let Some((tq, fq)) = echo.filter(|&(tq, _)| tq > h.last_t) {
                    let gap_ns = tq - h.last_t;
                    if gap_ns >= MIN_EXCESS_NS {
                        h.too_long.get_or_insert_with(Box::default).keep(Pair { gap_ns, moved, frames: [h.last_frame, fq, frame] }, true);
                    }
                }
                if h.echo_t != i64::MIN && moved >= 2 {
                    h.too_short.keep(Pair { gap_ns: (t_ns - h.echo_t).max(0), moved, frames: [h.last_frame, h.echo_frame, frame] }, false);
                }
            }
        }
        (h.last_t, h.last_tsval, h.last_frame, h.seen) = (t_ns, tsval, frame, true);
        (h.echo_t, h.echo_frame) = echo.unwrap_or((i64::MIN, 0));
    }

    /// The host whose clock contradicts the capture's most, if any does ([`judge`]).
    pub fn verdict(&self, margin_ns: i64) -> Option<Contradiction> {
        (0..2).filter_map(|d| judge(&self.hosts[d], margin_ns).map(|c| Contradiction { host: d, ..c })).max_by(|a, b| a.ratio.total_cmp(&b.ratio))
    }
}

impl Host {
    /// The peer echoed `tsval`: the capture time and frame of this host's first segment
    /// carrying it, if remembered. Older values are dropped: the echo only moves forward.
    fn echoed(&mut self, tsval: u32) -> Option<(i64, u32)> {
        while let Some(&(v, f, t)) = self.unechoed.front() {
            let d = tsval.wrapping_sub(v) as i32;
            if d < 0 {
                return None;
            }
            if d == 0 {
                return Some((t, f));
            }
            self.unechoed.pop_front();
        }
        None
    }
}

/// What [`TsClockCheck::verdict`] found: the host (direction), the pair whose capture gap
/// was longest for its clock and the one whose was shortest, how far apart the
/// [`REPEAT`]-th bounds lie, and the host's clock rate over the connection (ticks per s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contradiction {
    pub host: usize,
    pub too_long: Pair,
    pub too_short: Pair,
    pub ratio: f64,
    pub ticks_per_s: Option<f64>,
}

fn judge(h: &Host, margin_ns: i64) -> Option<Contradiction> {
    let mut lo: Vec<(f64, Pair)> = h.too_long.as_deref()?.as_slice().iter().map(|p| (p.bound(margin_ns, true), *p)).collect();
    let mut hi: Vec<(f64, Pair)> = h.too_short.as_slice().iter().map(|p| (p.bound(margin_ns, false), *p)).collect();
    lo.sort_by(|a, b| b.0.total_cmp(&a.0));
    hi.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (l, u) = (lo.get(REPEAT - 1)?.0, hi.get(REPEAT - 1)?.0);
    if !(l > FACTOR * u) {
        return None;
    }
    // The host's clock over the connection (first to last segment, at least
    // [`MIN_SPAN_NS`]: a batch's delay is a small part of it). Where known, the capture
    // must disagree with it both ways, each by [`SIDE_FACTOR`]: its gaps too long for the
    // clock somewhere and too short elsewhere, as a batching capture's are.
    let ticks_per_s = (h.seen && h.last_t - h.first_t >= MIN_SPAN_NS)
        .then(|| f64::from(h.last_tsval.wrapping_sub(h.first_tsval)) / ((h.last_t - h.first_t) as f64 / 1e9))
        .filter(|r| *r > 0.0);
    let tick_ns = ticks_per_s.map(|r| 1e9 / r);
    if tick_ns.is_some_and(|t| !(l > SIDE_FACTOR * t && u * SIDE_FACTOR < t)) {
        return None;
    }
    // The pairs shown: the longest capture gap for the clock and the shortest (against the
    // clock's rate where known, else the extreme bounds).
    let t = tick_ns.unwrap_or((l * u).sqrt());
    let excess_by = |p: &Pair, lower_on_tick: bool| p.gap_ns as f64 - f64::from(p.ticks(lower_on_tick)) * t;
    let excess = |p: &Pair| excess_by(p, true);
    // A host's own clock may stall for tens of ms and catch up (a virtual machine's lost
    // ticks: realjimmy TIPC-over-TCP sim-withd.pcap, a 10 ms clock still for 40 ms): the
    // capture's gaps must outrun the clock by [`MIN_EXCESS_NS`], [`REPEAT`] times.
    if lo.iter().filter(|x| excess(&x.1) >= MIN_EXCESS_NS as f64).count() < REPEAT {
        return None;
    }
    let too_long = lo.iter().map(|x| x.1).max_by(|a, b| excess(a).total_cmp(&excess(b)))?;
    let too_short = hi.iter().map(|x| x.1).min_by(|a, b| excess_by(a, false).total_cmp(&excess_by(b, false)))?;
    Some(Contradiction { host: 0, too_long, too_short, ratio: l / u.max(1.0), ticks_per_s })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::track::testseg::Seg;

    /// Feed (direction, capture ms, TSval, TSecr) in order, frames numbered from 1.
    /// Capture times are rounded to the ns: `ms * 1e6` of a sum of 0.02s is a hair
    /// below the whole ms it stands for, and truncating it made a 1 s gap read 999 ms.
    fn run(pkts: &[(usize, f64, u32, u32)]) -> TsClockCheck {
        let mut c = TsClockChecks::default();
        for (i, &(d, ms, v, e)) in pkts.iter().enumerate() {
            let mut s = if d == 0 { Seg::a_to_b(ms / 1e3) } else { Seg::b_to_a(ms / 1e3) }.ts(v, e).build();
            s.packet_index = i as u64;
            c.note(0, d, &s, (ms * 1e6).round() as i64);
        }
        *c.take(0).expect("timestamped")
    }

    /// A request/response exchange at a 1 ms clock, `rtt` ms each way round, `n` times:
    /// host 0 sends at its clock's pace, host 1 answers `rtt` later; the capture at host 0.
    fn honest(n: u32, rtt: f64, jitter: impl Fn(u32) -> f64) -> Vec<(usize, f64, u32, u32)> {
        let mut v = Vec::new();
        let (mut t, mut a, mut b) = (0.0, 1000u32, 5000u32);
        for i in 0..n {
            v.push((0, t, a, b));
            let arrive = t + rtt + jitter(i);
            b += (rtt + jitter(i)) as u32;
            v.push((1, arrive, b, a));
            t = arrive + 0.2;
            a = 1000 + t as u32;
        }
        v
    }

    #[test]
    fn an_honest_capture_with_radio_jitter_contradicts_nothing() {
        // Holds of up to 900 ms on the path (a radio's retries): the hosts' clocks move
        // with the capture's, so every lower bound on the tick stays ≤ 1 ms ≤ every upper one.
        let c = run(&honest(40, 50.0, |i| f64::from(i % 5) * 225.0));
        assert_eq!(c.verdict(1_000_000), None);
    }

    /// An honest capture, simulated (ms of real time): host 0 (A) a request, host 1 (B)
    /// an answer of 1–3 segments, A's ACK, then A's next request after up to `think` ms
    /// (an idle sender); clocks of `ticks` ms each with a random offset (RFC 7323 §5.4;
    /// Linux randomises it per connection), wrapping; the capture 0.05 ms from A, B's
    /// way each segment 20 ms plus up to `hold` ms (a radio's retries, a queue, a
    /// cellular scheduler); every stamp late by up to `late` ms (interrupt coalescing,
    /// a receive-offload batch); TSecr the last TSval received (TS.Recent, §4.3). With
    /// `batch`, the capture stamps each packet at the end of its `batch`-ms period instead
    /// (rvictl's remote virtual interface delivers about a second of packets at once).
    fn simulate(seed: u64, ticks: [f64; 2], hold: f64, late: f64, think: f64, batch: Option<f64>) -> Vec<(usize, f64, u32, u32)> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let off = [(rnd() * 4e9) as u32, (rnd() * 4e9) as u32];
        let ts = |h: usize, r: f64| off[h].wrapping_add((r / ticks[h]) as u32);
        let (mut v, mut r, mut recent) = (Vec::new(), 0.0, [0u32; 2]);
        let send = |h: usize, at: f64, pass: f64, v: &mut Vec<(usize, f64, u32, u32)>, recent: &mut [u32; 2], late: f64| {
            let stamp = batch.map_or(pass + late, |b| (pass / b).ceil() * b + pass * 1e-6);
            v.push((h, stamp, ts(h, at), recent[h]));
            ts(h, at)
        };
        for _ in 0..60 {
            // A's request: captured 0.05 ms after it left A, at B 20 ms + a hold later.
            let l = rnd() * late;
            let sent = send(0, r, r + 0.05, &mut v, &mut recent, l);
            let at_b = r + 0.05 + 20.0 + rnd() * hold;
            recent[1] = sent;
            let mut t = at_b + 0.1;
            for _ in 0..1 + (rnd() * 3.0) as u32 {
                let way = 20.0 + rnd() * hold;
                let l = rnd() * late;
                let sent = send(1, t, t + way, &mut v, &mut recent, l);
                recent[0] = sent;
                t = t + way + 0.05; // at A
            }
            let l = rnd() * late;
            send(0, t + 0.01, t + 0.06, &mut v, &mut recent, l);
            r = t + 0.1 + rnd() * think;
        }
        v.sort_by(|a, b| a.1.total_cmp(&b.1));
        v
    }

    #[test]
    fn honest_clocks_of_any_tick_with_holds_late_stamps_and_idle_senders_contradict_nothing() {
        // 1 ms clocks (Linux, macOS), 10 ms and 4 ms (older Linux HZ=100 / HZ=250), a
        // 100 ms one, and a 1 ms host against a 10 ms one; holds of up to 900 ms on B's
        // way, stamps up to 1 ms late, up to 5 s between requests: every pair bounds the
        // true tick, so no verdict, on 20 random connections each.
        for ticks in [[1.0, 1.0], [10.0, 4.0], [100.0, 100.0], [1.0, 10.0]] {
            for seed in 1..=20 {
                let c = run(&simulate(seed, ticks, 900.0, 1.0, 5_000.0, None));
                assert_eq!(c.verdict(MARGIN_NS), None, "ticks {ticks:?} seed {seed}");
            }
        }
    }

    #[test]
    fn the_same_exchanges_stamped_in_one_second_batches_are_judged() {
        // The simulation above with 50 ms holds and up to 300 ms between requests, each
        // packet stamped at the end of its second (a packet's stamp also keeps its order):
        // every one of 20 connections contradicts a host's clock both ways.
        for seed in 1..=20 {
            let c = run(&simulate(seed, [1.0, 1.0], 50.0, 0.0, 300.0, Some(1_000.0)));
            assert!(c.verdict(MARGIN_NS).is_some(), "seed {seed}");
        }
    }

    #[test]
    fn a_batched_capture_contradicts_the_senders_clock_both_ways() {
        // Host 0's clock runs 1 ms per tick, but the capture stamps its packets in
        // batches: 1 s of capture between two segments 10 ticks apart (each answering the
        // peer's segment of the previous batch), then 5 exchanges within 0.1 ms of capture
        // while its clock moves 60 ticks each.
        let mut v = Vec::new();
        let (mut t, mut a, mut b) = (0.0, 1000u32, 9000u32);
        for _ in 0..4 {
            v.push((0, t, a, b));
            t += 1000.0; // the batch gap: the peer's answer stamped 1 s later
            b += 10;
            v.push((1, t, b, a));
            a += 10; // host 0 answered 10 ms after its last segment by its own clock
            for _ in 0..5 {
                v.push((0, t + 0.01, a, b));
                b += 60;
                v.push((1, t + 0.02, b, a));
                a += 60;
                t += 0.02;
            }
        }
        let c = run(&v).verdict(1_000_000).expect("contradiction");
        assert_eq!(c.host, 0);
        // The longest gap for its clock: 1 s of capture while it moved 10 ticks.
        assert_eq!((c.too_long.moved, c.too_long.gap_ns), (10, 1_000_000_000));
        // The shortest: 60 ticks in 0.03 ms of capture.
        assert_eq!(c.too_short.moved, 60);
    }
}
