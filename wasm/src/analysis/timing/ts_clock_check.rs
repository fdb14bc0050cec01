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
/// How far a capture gap must outrun the host's clock (upper pairs), ns.
pub const MIN_EXCESS_NS: i64 = 100_000_000;
/// How far each side's bound must lie from that rate.
pub const SIDE_FACTOR: f64 = 3.0;
/// Candidates kept per kind and host (the best by the bound without the margin).
const KEEP: usize = 8;
/// Distinct TSvals of each host remembered for the echo lookup (an echo names a segment
/// of about one round trip before: 1,024 ticks of a 1 ms clock cover a 1 s RTT).
const RECENT: usize = 1024;

/// One bound on a host's tick: the capture gap (ns, before the margin) and the ticks
/// of the host's clock it is divided by, and the frames (A1, q, A2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    pub gap_ns: i64,
    pub ticks: u32,
    /// TSval(A2) − TSval(A1): what the host's clock moved.
    pub moved: u32,
    pub frames: [u32; 3],
}

impl Pair {
    /// The bound on the tick, ns: `margin_ns` of capture jitter taken off an upper
    /// pair's gap (a lower bound on τ) and added to a lower pair's (an upper bound).
    fn bound(&self, margin_ns: i64, lower_on_tick: bool) -> f64 {
        let g = if lower_on_tick { self.gap_ns - margin_ns } else { self.gap_ns + margin_ns };
        g.max(0) as f64 / f64::from(self.ticks.max(1))
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Last {
    t_ns: i64,
    tsval: u32,
    frame: u32,
    /// The capture time and frame of the peer's segment its echo named.
    echo: Option<(i64, u32)>,
}

/// One host's (one direction's) state.
#[derive(Debug, Default)]
struct Host {
    last: Option<Last>,
    /// Its new TSvals in capture order, each with the first capture time and frame.
    recent: std::collections::VecDeque<(u32, i64, u32)>,
    /// Lower bounds on its tick (capture gap too long) and upper bounds (too short).
    too_long: Vec<Pair>,
    too_short: Vec<Pair>,
    first: Option<(i64, u32)>,
}

/// Both hosts of a connection; boxed in the connection from its first timestamped segment.
#[derive(Debug, Default)]
pub struct TsClockCheck {
    hosts: [Host; 2],
}

impl TsClockCheck {
    /// A segment of direction `d` (its sender is host `d`) captured at `t_ns`.
    pub fn note(check: &mut Option<Box<TsClockCheck>>, d: usize, seg: &TcpSegment, t_ns: i64) {
        let Some((tsval, tsecr)) = seg.options.timestamp else { return };
        let c = check.get_or_insert_with(Box::default);
        let frame = u32::try_from(seg.packet_index + 1).unwrap_or(u32::MAX);
        let echo = if tsecr == 0 { None } else { c.hosts[1 - d].first_capture_of(tsecr) };
        let h = &mut c.hosts[d];
        h.first.get_or_insert((t_ns, tsval));
        if h.recent.back().is_none_or(|&(v, _, _)| (tsval.wrapping_sub(v) as i32) > 0) {
            if h.recent.len() == RECENT {
                h.recent.pop_front();
            }
            h.recent.push_back((tsval, t_ns, frame));
        }
        if let Some(prev) = h.last {
            let moved = tsval.wrapping_sub(prev.tsval);
            // A clock that stepped back (a reordered segment) or jumped by half its range
            // (a SYN proxy's TSvals, then the server's) bounds nothing.
            if (moved as i32) >= 0 && moved < 1 << 30 {
                if let Some((tq, fq)) = echo.filter(|&(tq, _)| tq > prev.t_ns) {
                    keep(&mut h.too_long, Pair { gap_ns: tq - prev.t_ns, ticks: moved + 1, moved, frames: [prev.frame, fq, frame] }, true);
                }
                if let (Some((tq, fq)), true) = (prev.echo, moved >= 2) {
                    keep(&mut h.too_short, Pair { gap_ns: (t_ns - tq).max(0), ticks: moved - 1, moved, frames: [prev.frame, fq, frame] }, false);
                }
            }
        }
        h.last = Some(Last { t_ns, tsval, frame, echo });
    }

    /// The host whose clock contradicts the capture's most, if any does ([`judge`]).
    pub fn verdict(&self, margin_ns: i64) -> Option<Contradiction> {
        (0..2).filter_map(|d| judge(&self.hosts[d], margin_ns).map(|c| Contradiction { host: d, ..c })).max_by(|a, b| a.ratio.total_cmp(&b.ratio))
    }
}

impl Host {
    fn first_capture_of(&self, tsval: u32) -> Option<(i64, u32)> {
        self.recent.iter().rev().find(|r| r.0 == tsval).map(|r| (r.1, r.2))
    }
}

/// Keep the [`KEEP`] pairs with the largest (`high`) or smallest bound, without margin.
fn keep(v: &mut Vec<Pair>, p: Pair, high: bool) {
    let b = |x: &Pair| x.bound(0, high);
    if v.len() == KEEP {
        let worst = if high { v.iter().enumerate().min_by(|a, c| b(a.1).total_cmp(&b(c.1))) } else { v.iter().enumerate().max_by(|a, c| b(a.1).total_cmp(&b(c.1))) };
        let Some((i, w)) = worst else { return };
        if (high && b(&p) <= b(w)) || (!high && b(&p) >= b(w)) {
            return;
        }
        v.swap_remove(i);
    }
    v.push(p);
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
    let mut lo: Vec<(f64, Pair)> = h.too_long.iter().map(|p| (p.bound(margin_ns, true), *p)).collect();
    let mut hi: Vec<(f64, Pair)> = h.too_short.iter().map(|p| (p.bound(margin_ns, false), *p)).collect();
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
    let ticks_per_s = match (h.first, h.last) {
        (Some((t0, v0)), Some(last)) if last.t_ns - t0 >= MIN_SPAN_NS => Some(f64::from(last.tsval.wrapping_sub(v0)) / ((last.t_ns - t0) as f64 / 1e9)).filter(|r| *r > 0.0),
        _ => None,
    };
    let tick_ns = ticks_per_s.map(|r| 1e9 / r);
    if tick_ns.is_some_and(|t| !(l > SIDE_FACTOR * t && u * SIDE_FACTOR < t)) {
        return None;
    }
    // The pairs shown: the longest capture gap for the clock and the shortest (against the
    // clock's rate where known, else the extreme bounds).
    let t = tick_ns.unwrap_or((l * u).sqrt());
    let excess = |p: &Pair| p.gap_ns as f64 - f64::from(p.ticks) * t;
    // A host's own clock may stall for tens of ms and catch up (a virtual machine's lost
    // ticks: realjimmy TIPC-over-TCP sim-withd.pcap, a 10 ms clock still for 40 ms): the
    // capture's gaps must outrun the clock by [`MIN_EXCESS_NS`], [`REPEAT`] times.
    if lo.iter().filter(|x| excess(&x.1) >= MIN_EXCESS_NS as f64).count() < REPEAT {
        return None;
    }
    let too_long = lo.iter().map(|x| x.1).max_by(|a, b| excess(a).total_cmp(&excess(b)))?;
    let too_short = hi.iter().map(|x| x.1).min_by(|a, b| excess(a).total_cmp(&excess(b)))?;
    Some(Contradiction { host: 0, too_long, too_short, ratio: l / u.max(1.0), ticks_per_s })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::track::testseg::Seg;

    /// Feed (direction, capture ms, TSval, TSecr) in order, frames numbered from 1.
    fn run(pkts: &[(usize, f64, u32, u32)]) -> TsClockCheck {
        let mut c = None;
        for (i, &(d, ms, v, e)) in pkts.iter().enumerate() {
            let mut s = if d == 0 { Seg::a_to_b(ms / 1e3) } else { Seg::b_to_a(ms / 1e3) }.ts(v, e).build();
            s.packet_index = i as u64;
            TsClockCheck::note(&mut c, d, &s, (ms * 1e6) as i64);
        }
        *c.unwrap()
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
        assert_eq!((c.too_long.moved, c.too_long.gap_ns / 1_000_000), (10, 999));
        // The shortest: 60 ticks in 0.03 ms of capture.
        assert_eq!(c.too_short.moved, 60);
    }
}
