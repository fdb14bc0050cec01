//! Which capture is near which host, and the two clocks (docs/ANALYSIS.md "Two vantage
//! points": offset, drift, uncertainty).
//!
//! Take a datagram seen at both points, at t_A by capture A's clock and t_B by B's, and
//! u = t_B − t_A. Write θ for B's clock minus A's. A datagram that passes A first
//! has u = θ + (its transit, ≥ 0); one that passes B first has u = θ − (its transit).
//! Transit is never negative, so with A near host X every datagram X sent has u ≥ θ
//! and every datagram its peer sent has u ≤ θ:
//! - **sides** (`orient`): within any short window of time, the smallest u of one
//!   host's datagrams lies above the largest u of the other's; the host whose
//!   datagrams have the larger u sent them past A first, so A is near it. No clock
//!   needs to be right for this. Windows are short (≤ 1 s) so that a drifting clock
//!   moves little inside one; the side most windows vote for wins. Where no window
//!   has both hosts' datagrams, the captures' own round trips decide: the part of the
//!   round trip towards a host (its data to the first ACK covering it) is smallest at
//!   the capture next to the host that answers (timing/vantage.rs).
//! - **offset** (`estimate`), as NTP bounds it (RFC 5905 §8, Mills): with d_fwd the
//!   data sender's datagrams' t_receiver-side − t_sender-side and d_rev the receiver's
//!   datagrams' t_sender-side − t_receiver-side, min d_fwd = θ + (fastest forward
//!   transit) and min d_rev = −θ + (fastest return transit), so
//!   θ = (min d_fwd − min d_rev) / 2 ± (min d_fwd + min d_rev) / 2: the uncertainty is
//!   half the fastest round trip between the points, and it is exact only if the two
//!   fastest transits were equal (the one assumption, as in NTP).
//! - **drift**: over a long capture θ moves (crystal clocks differ by tens of ppm). The
//!   lower envelope of d_fwd over time is θ(t) + the forward floor, and the upper
//!   envelope of −d_rev is θ(t) − the return floor: two parallel lines. Each slope is
//!   read through the fastest datagram of each of 20 windows of the span (Theil–Sen,
//!   robust to windows on a standing queue; a hull edge rests on two points and says
//!   nothing of its error), its uncertainty from the scatter of those minima about the
//!   line (`floor_slope`); the drift weighs the two by their inverse variances. A drift
//!   not above its uncertainty is not measured (rate taken as one); the offset is then
//!   bounded as above on the points with the drift taken out.
//! - **obviously not synchronised**: by the raw clocks a datagram arrived before it was
//!   sent (`arrived_before_sent`).

use super::collect::Dgram;
use super::DRIFT_MIN_SPAN_S;
use crate::analysis::format::{format_duration, plural};

/// One datagram seen at both points: its direction (0: sent by the data sender) and
/// its time in each capture, by input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Anchor {
    pub dir: u8,
    pub t: [i64; 2],
}

/// What `orient` found.
#[derive(Clone, Debug, PartialEq)]
pub enum Sides {
    /// The input near the data sender, and why, in words.
    Told(usize, String),
    /// Both hosts' datagrams show the same time difference at each moment (`one_point`):
    /// one vantage point.
    SamePoint,
    Unknown(String),
}

/// Tells the sides (module doc). `turnaround[k]`: the smallest part of the round trip
/// towards the data receiver measured at input k (data → its first ACK), ns.
pub fn orient(anchors: &[Anchor], turnaround: [Option<i64>; 2]) -> Sides {
    let u = |a: &Anchor| a.t[1].saturating_sub(a.t[0]);
    let (lo, hi) = anchors.iter().fold((i64::MAX, i64::MIN), |(l, h), a| (l.min(u(a)), h.max(u(a))));
    if !anchors.is_empty() && (hi - lo <= 1_000 || one_point(anchors)) {
        return Sides::SamePoint;
    }
    let (t_lo, t_hi) = anchors.iter().fold((i64::MAX, i64::MIN), |(l, h), a| (l.min(a.t[0]), h.max(a.t[0])));
    let width = ((t_hi.saturating_sub(t_lo)) / 64).clamp(10_000_000, 1_000_000_000).max(1);
    // Per window: (min u, max u) of each direction.
    let mut windows: std::collections::BTreeMap<i64, [(i64, i64); 2]> = std::collections::BTreeMap::new();
    for a in anchors {
        let w = windows.entry(a.t[0].saturating_sub(t_lo) / width).or_insert([(i64::MAX, i64::MIN); 2]);
        let e = &mut w[usize::from(a.dir)];
        *e = (e.0.min(u(a)), e.1.max(u(a)));
    }
    let (mut near0, mut near1, mut both) = (0u32, 0u32, 0u32);
    for w in windows.values() {
        let ([f_lo, f_hi], [r_lo, r_hi]) = ([w[0].0, w[0].1], [w[1].0, w[1].1]);
        if f_lo == i64::MAX || r_lo == i64::MAX {
            continue;
        }
        both += 1;
        near0 += u32::from(f_lo > r_hi);
        near1 += u32::from(f_hi < r_lo);
    }
    if near0 != near1 {
        let (side, votes) = if near0 > near1 { (0, near0) } else { (1, near1) };
        return Sides::Told(
            side,
            format!(
                "one-way transit is never negative: in {votes} of {both} windows of time every datagram of the data sender passed capture {} earlier, against the receiver's datagrams, than capture {}, so capture {} is near the sender",
                side + 1,
                2 - side,
                side + 1
            ),
        );
    }
    match turnaround {
        [Some(a), Some(b)] if a != b => {
            let side = usize::from(a < b);
            Sides::Told(side, format!("capture {} sees the receiver answer its data sooner ({} against {}), so it is the one near the receiver", 2 - side, format_duration(a.min(b) as f64 / 1e9), format_duration(a.max(b) as f64 / 1e9)))
        }
        _ => Sides::Unknown("Which capture is near which host cannot be told: no datagram of both hosts was seen at both points within one window, and the round trips do not differ.".into()),
    }
}

/// Timestamps of one clock compared with another's agree to this (ns) when both are the
/// same instant: a microsecond file's rounding on each side.
const SAME_INSTANT_NS: f64 = 2_000.0;
/// The fastest two crystal clocks drift apart (1000 ppm, as `estimate` bounds the drift).
const MAX_RATE: f64 = 1e-3;

/// One vantage point twice, its copy's clock shifted and drifting: wherever one host's
/// datagram is followed, in time, by the other host's, the two show the same
/// difference u between the captures (within `SAME_INSTANT_NS` and what `MAX_RATE`
/// moves the clock between them). Two points a path apart never do: those two u differ
/// by both directions' transit together, at least the fastest round trip between the
/// points. The offset is taken per neighbouring pair, so a drift of any size a clock
/// can have does not hide it. False without such a neighbouring pair.
fn one_point(anchors: &[Anchor]) -> bool {
    let mut order: Vec<&Anchor> = anchors.iter().collect();
    order.sort_by_key(|a| a.t[0]);
    let u = |a: &Anchor| a.t[1].saturating_sub(a.t[0]) as f64;
    let mut turns = order.windows(2).filter(|w| w[0].dir != w[1].dir).peekable();
    turns.peek().is_some() && turns.all(|w| (u(w[1]) - u(w[0])).abs() <= SAME_INSTANT_NS + MAX_RATE * w[1].t[0].saturating_sub(w[0].t[0]) as f64)
}

/// The smallest time from a data segment (new data only: a resend's ACK may answer
/// its original, Karn) to the first ACK of the peer covering it, at one capture, ns.
pub fn turnaround(list: &[Dgram], data_dir: u8) -> Option<i64> {
    let mut best: Option<i64> = None;
    for_each_turnaround(list, data_dir, |took| best = Some(best.map_or(took, |b| b.min(took))));
    best
}

/// Each time from a data segment of `data_dir` (new data only, Karn: the ACKs of what
/// a resend covers answer it or its original, so neither is timed) to the first ACK
/// of the peer covering it, at one capture, ns: the host's turnaround (the clock's
/// orientation takes the smallest, the RTT split the median).
pub fn for_each_turnaround(list: &[Dgram], data_dir: u8, mut took: impl FnMut(i64)) {
    let mut pending: std::collections::VecDeque<(u32, i64)> = std::collections::VecDeque::new();
    let mut highest: Option<u32> = None;
    for x in list {
        if x.dir() == data_dir && x.seq_len() > 0 {
            let end = x.seq.wrapping_add(x.seq_len());
            if highest.map_or(true, |h| (x.seq.wrapping_sub(h) as i32) >= 0) {
                pending.push_back((end, x.t_ns));
                highest = Some(end);
            } else {
                pending.retain(|&(e, _)| (e.wrapping_sub(x.seq) as i32) <= 0);
            }
        } else if x.dir() != data_dir && x.has_ack() {
            while let Some(&(end, t)) = pending.front() {
                if (x.ack.wrapping_sub(end) as i32) < 0 {
                    break;
                }
                took(x.t_ns.saturating_sub(t));
                pending.pop_front();
            }
        }
    }
}

/// The clocks of a pair (module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Clock {
    /// The merged axis' origin: the sender-side capture's first packet, ns (its clock).
    pub t0: i64,
    /// The input near the data receiver.
    pub receiver: usize,
    /// Receiver-side clock minus sender-side clock at t0, ns.
    pub theta0: f64,
    /// Its rate of change (drift), dimensionless.
    pub rho: f64,
    pub uncertainty: f64,
    /// (ppm, ± ppm) where measured.
    pub drift: Option<(f64, f64)>,
    pub samples: [u64; 2],
    pub arrived_before_sent: u64,
    pub inconsistent: bool,
}

impl Clock {
    /// A timestamp of input `side` on the merged axis: ns since t0, sender-side clock.
    pub fn at(&self, side: usize, t_ns: i64) -> f64 {
        let x = t_ns.saturating_sub(self.t0) as f64;
        if side == self.receiver {
            (x - self.theta0) / (1.0 + self.rho)
        } else {
            x
        }
    }

    pub fn text(&self) -> String {
        let ms = |ns: f64| format_duration(ns / 1e9);
        let ahead = if self.theta0 >= 0.0 { "ahead of" } else { "behind" };
        let mut s = format!(
            "The receiver-side clock is {} {ahead} the sender side's (± {}: half the fastest round trip between the two points)",
            ms(self.theta0.abs()),
            ms(self.uncertainty)
        );
        match self.drift {
            Some((ppm, unc)) if ppm.abs() <= unc => s += &format!("; no measurable drift (< {:.1} ppm).", ppm.abs() + unc),
            Some((ppm, unc)) => s += &format!(", {} {:.1} ppm (± {unc:.1}).", if ppm >= 0.0 { "gaining" } else { "losing" }, ppm.abs()),
            None => s += "; drift not measured (a capture shorter than 5 s, or datagrams not spread across it).",
        }
        if self.arrived_before_sent > 0 {
            let n = self.arrived_before_sent;
            s += &format!(" The clocks are obviously not synchronised: by the raw clocks {} arrived before {} sent.", plural(n, "datagram"), if n == 1 { "it was" } else { "they were" });
        } else {
            s += " By the raw clocks no datagram arrives before it was sent: they may be synchronised to within the uncertainty.";
        }
        if self.inconsistent {
            s += " Even the best offset leaves a datagram arriving before it was sent (a clock that jumped?): the one-way delays are not trustworthy.";
        }
        s
    }
}

/// Windows the capture's span is cut into for the drift: each direction's fastest
/// datagram per window samples its floor line.
const DRIFT_WINDOWS: usize = 20;
/// Windows that must hold a datagram of a direction for its floor to give a slope:
/// a line needs support across the span, not two points at its ends.
const DRIFT_SUPPORT: usize = 15;

/// The floor line of one direction's points (time, value; its lower envelope) over
/// `span`: the slope through the fastest point of each of `DRIFT_WINDOWS` windows,
/// read robustly (Theil–Sen, the median of the slopes between every two windows'
/// minima: a window whose minimum sits on a standing queue does not tilt it), and its
/// uncertainty from the scatter of those minima about the line: twice the standard
/// error of a least-squares slope with that scatter (1.4826 × the median absolute
/// residual, the scatter of the floor's jitter), about a 95 % bound. `None` without
/// `DRIFT_SUPPORT` windows.
fn floor_slope(p: &[(f64, f64)], span: (f64, f64)) -> Option<(f64, f64)> {
    let width = (span.1 - span.0) / DRIFT_WINDOWS as f64;
    let mut minima: Vec<Option<(f64, f64)>> = vec![None; DRIFT_WINDOWS];
    for &q in p {
        let k = (((q.0 - span.0) / width) as usize).min(DRIFT_WINDOWS - 1);
        if minima[k].map_or(true, |m| q.1 < m.1) {
            minima[k] = Some(q);
        }
    }
    let m: Vec<(f64, f64)> = minima.into_iter().flatten().collect();
    if m.len() < DRIFT_SUPPORT {
        return None;
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
    };
    let pairs = m.iter().enumerate().flat_map(|(i, a)| m[i + 1..].iter().filter(move |b| b.0 > a.0).map(move |b| (b.1 - a.1) / (b.0 - a.0)));
    let slope = median(pairs.collect());
    let intercept = median(m.iter().map(|q| q.1 - slope * q.0).collect());
    let scatter = 1.4826 * median(m.iter().map(|q| (q.1 - intercept - slope * q.0).abs()).collect());
    let mean = m.iter().map(|q| q.0).sum::<f64>() / m.len() as f64;
    let spread = m.iter().map(|q| (q.0 - mean).powi(2)).sum::<f64>().sqrt();
    let mut r: Vec<f64> = m.iter().map(|q| q.1 - intercept - slope * q.0).collect();
    r.sort_by(f64::total_cmp);
    let band = r[r.len() * 9 / 10] - r[r.len() / 10];
    let reach = m[m.len() - 1].0 - m[0].0;
    Some((slope, (2.0 * scatter / spread).max(band / reach)))
}

/// Offset, drift and uncertainty from the anchors (module doc); `sender` is the input
/// near the data sender, `t0` the merged axis' origin.
pub fn estimate(anchors: &[Anchor], sender: usize, t0: i64) -> Clock {
    let receiver = 1 - sender;
    // (t since t0 on the sender side's clock, t_receiver − t_sender), ns.
    let mut pts: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    let mut early = 0u64;
    for a in anchors {
        let d = a.t[receiver].saturating_sub(a.t[sender]);
        early += u64::from(if a.dir == 0 { d < 0 } else { d > 0 });
        pts[usize::from(a.dir)].push((a.t[sender].saturating_sub(t0) as f64, d as f64));
    }
    for p in &mut pts {
        p.sort_by(|x, y| x.0.total_cmp(&y.0));
    }
    let span = pts.iter().flatten().fold((f64::MAX, f64::MIN), |(l, h), q| (l.min(q.0), h.max(q.0)));
    let long = span.1 - span.0 >= DRIFT_MIN_SPAN_S * 1e9 && pts.iter().all(|p| p.len() >= 16);
    let slopes = if long {
        let up: Vec<(f64, f64)> = pts[1].iter().map(|q| (q.0, -q.1)).collect();
        [floor_slope(&pts[0], span), floor_slope(&up, span).map(|(s, u)| (-s, u))]
    } else {
        [None, None]
    };
    // Both floors are the same line θ(t) shifted: two slopes that agree within their
    // uncertainties are weighed by their inverse variances, so the direction whose
    // floor is sampled all along (usually the ACKs, never held in a standing queue of
    // the data) counts most; two that do not agree cannot both be a floor, and the one
    // with the smaller scatter is taken alone (the other's minima rode a queue).
    let drift = match slopes {
        [Some((a, ua)), Some((b, ub))] if (a - b).abs() > ua + ub => Some(if ua <= ub { (a, ua) } else { (b, ub) }),
        [Some((a, ua)), Some((b, ub))] if ua > 0.0 && ub > 0.0 => {
            let (wa, wb) = (ua.powi(-2), ub.powi(-2));
            Some(((a * wa + b * wb) / (wa + wb), (wa + wb).sqrt().recip()))
        }
        [Some((a, ua)), Some((b, ub))] => Some(if ua <= ub { (a, ua) } else { (b, ub) }),
        [Some(a), None] | [None, Some(a)] => Some(a),
        _ => None,
    }
    .filter(|(rho, _)| rho.abs() < 1e-3);
    // A drift not above its uncertainty is not measured: the clocks are merged as
    // running at one rate (`Clock::text` says "no measurable drift").
    let rho = drift.filter(|(r, u)| r.abs() > *u).map_or(0.0, |d| d.0);
    let bounds = |rho: f64| {
        let lower = pts[0].iter().map(|q| q.1 - rho * q.0).fold(f64::MAX, f64::min);
        let upper = pts[1].iter().map(|q| q.1 - rho * q.0).fold(f64::MIN, f64::max);
        (lower, upper)
    };
    let (mut lower, mut upper) = bounds(rho);
    // One direction alone bounds θ from one side only: the offset is then that bound,
    // with no uncertainty to state, and the delays are marked untrustworthy.
    let one_sided = pts.iter().any(|p| p.is_empty());
    if pts[1].is_empty() {
        upper = lower;
    }
    if pts[0].is_empty() {
        lower = upper;
    }
    let (theta0, uncertainty) = ((lower + upper) / 2.0, ((lower - upper) / 2.0).max(0.0));
    Clock {
        t0,
        receiver,
        theta0,
        rho,
        uncertainty,
        drift: drift.map(|(r, u)| (r * 1e6, u * 1e6)),
        samples: [pts[0].len() as u64, pts[1].len() as u64],
        arrived_before_sent: early,
        inconsistent: lower < upper || one_sided,
    }
}
