//! What happened to each datagram between the two points (docs/ANALYSIS.md
//! `twin.lostBetween` and its neighbours), per direction: the side that sees it leave
//! is "near", the other "far".
//!
//! - **delivered**: seen at both (matching.rs), with its one-way delay;
//! - **lost between**: seen leaving, never arriving, and the hosts agree. Principle 1 of
//!   DESIGN.md: absence at the far capture is one signal, the kernels' behaviour the
//!   independent one: the sender resent the range (RFC 9293 §3.8.1, RFC 5681 §3.2,
//!   RFC 8985), or the receiver acknowledged below it while telling of data beyond it
//!   (SACK, RFC 2018; duplicate ACKs after later data arrived), or the range's first
//!   arrival at the far capture is a later datagram. A datagram without data (an ACK, a
//!   window update) is never resent (RFC 9293 §3.8.4), so nothing but its absence can
//!   tell: it counts as lost unless the receiver proves it arrived by echoing a TSval
//!   that only it carried (RFC 7323 §4.3);
//! - **not seen at the receiver side**: seen leaving, not arriving, yet the receiver's
//!   cumulative ACK covers it before any other copy arrived: it got there, the
//!   receiver-side capture missed it;
//! - **undecided**: seen leaving, not arriving, and nothing tells;
//! - **reordered**: arrived after a datagram sent later had arrived (RFC 4737 §3.3);
//! - **duplicated**: a further copy at the far side of one datagram sent once;
//! - **not seen at the sender side**: seen arriving, never leaving: a capture drop at
//!   the near side, or a resend made below that capture (TSO/NIC);
//! - **outside**: not certainly due at the other capture while it ran (one capture cut
//!   shorter than the other; `LateBound`): not judged.
//! Counts are wire segments: a datagram of a TSO sender counts ⌈len / SMSS⌉, SMSS being
//! the largest payload of the direction in the capture that shows the smaller one.

use std::collections::{HashMap, HashSet};

use super::clock::Clock;
use super::collect::{Dgram, HAS_SACK};
use super::matching::{Matching, COPY, EXACT, PIECE, SLACK_NS};
use super::report::{TwinDirection, TwinEvent};
use super::MAX_EVENTS;

/// A datagram's fate (`Fates::code`).
pub const DELIVERED: u8 = 1;
pub const LOST: u8 = 2;
pub const AT_RECEIVER: u8 = 3;
pub const UNDECIDED: u8 = 4;
pub const OUTSIDE: u8 = 5;
pub const ARRIVED: u8 = 6;
pub const COPIED: u8 = 7;
pub const NOT_AT_SENDER: u8 = 8;

/// Datagrams scanned after a missing one for the evidence that judges it: bounds the
/// work per datagram (the evidence comes within a few round trips).
const MAX_SCAN: usize = 100_000;
/// Datagrams scanned for all the missing ones of a pair together: a capture that
/// missed most of the other's datagrams is judged up to this much work, the rest left
/// `undecided` (never lost without evidence).
const MAX_WORK: u64 = 200_000_000;

pub struct Fates {
    pub code: [Vec<u8>; 2],
    pub dirs: [TwinDirection; 2],
    pub events: Vec<TwinEvent>,
    /// Per direction: (send time on the merged axis, one-way delay), ns.
    pub delays: [Vec<(f64, f64)>; 2],
    /// Each direction's first sequence number (relative numbers in events start there).
    pub base: [u32; 2],
}

pub struct Ctx<'a> {
    /// Datagrams scanned so far by `judge` (`MAX_WORK`).
    pub work: std::cell::Cell<u64>,
    pub d: [&'a [Dgram]; 2],
    /// The frames each capture held twice (collect.rs `Collected::copies`).
    pub copies: [&'a [Dgram]; 2],
    pub m: &'a Matching,
    pub clock: &'a Clock,
    /// The input that sees direction r leave.
    pub near: [usize; 2],
    /// Each input's first and last packet on the merged axis, ns.
    pub spans: [(f64, f64); 2],
}

fn rel(seq: u32, base: u32) -> i64 {
    i64::from(seq.wrapping_sub(base) as i32)
}

impl Ctx<'_> {
    fn at(&self, side: usize, x: &Dgram) -> f64 {
        self.clock.at(side, x.t_ns)
    }

    fn event(&self, f: &mut Fates, r: usize, side: usize, i: usize, kind: &'static str) {
        if f.events.len() >= MAX_EVENTS {
            return;
        }
        let x = &self.d[side][i];
        let other = self.m.partner[side][i];
        let frames = [Some(x.frame), (other != u32::MAX).then(|| self.d[1 - side][other as usize].frame)];
        let sender_is = |k: usize| k == 1 - self.clock.receiver;
        let (sf, rf) = if sender_is(side) { (frames[0], frames[1]) } else { (frames[1], frames[0]) };
        let capture = if sender_is(side) { "sender-side" } else { "receiver-side" };
        let ack = (r == 1).then(|| rel(x.ack, f.base[0]));
        f.events.push(TwinEvent { t: self.at(side, x) / 1e9, direction: r as u8, kind, sender_side_frame: sf, receiver_side_frame: rf, seq: rel(x.seq, f.base[r]), len: x.len, capture, ack, due: None });
    }

    /// The fate of a datagram seen leaving (at `near`, index i) and not arriving, or of
    /// the bytes `[s, e)` of it (relative to `base`) that did not arrive.
    fn judge(&self, r: usize, i: usize, (s, e): (i64, i64), base: u32, floor: f64, echo: &mut Option<(HashSet<u32>, HashSet<u32>)>) -> u8 {
        let (ns, fs) = (self.near[r], 1 - self.near[r]);
        let x = &self.d[ns][i];
        if self.work.get() > MAX_WORK {
            return UNDECIDED;
        }
        let step = || self.work.set(self.work.get() + 1);
        if x.seq_len() == 0 {
            let Some(v) = x.ts() else { return LOST };
            let (carried, echoed) = echo.get_or_insert_with(|| {
                let far = self.d[fs].iter();
                let carried = far.clone().filter(|y| usize::from(y.dir()) == r).filter_map(|y| y.ts()).collect();
                let echoed = far.filter(|y| usize::from(y.dir()) != r && y.ts().is_some()).map(|y| y.tsecr).collect();
                (carried, echoed)
            });
            return if !carried.contains(&v) && echoed.contains(&v) { AT_RECEIVER } else { LOST };
        }
        let expected = self.at(ns, x) + floor;
        let far = self.d[fs];
        let start = far.partition_point(|y| self.clock.at(fs, y.t_ns) < expected - SLACK_NS);
        let resent = || {
            self.d[ns].iter().skip(i + 1).take(MAX_SCAN).inspect(|_| step()).any(|y| {
                usize::from(y.dir()) == r && y.seq_len() > 0 && rel(y.seq, base) < e && rel(y.seq, base) + i64::from(y.seq_len()) > s
            })
        };
        // A range the receiver had acknowledged before this copy could arrive (a
        // needless resend): its ACKs cannot tell whether the copy arrived.
        let acked_before = far[..start].iter().rev().take(MAX_SCAN).inspect(|_| step()).find(|y| usize::from(y.dir()) != r && y.has_ack()).is_some_and(|y| rel(y.ack, base) >= e);
        if acked_before {
            return if resent() { LOST } else { UNDECIDED };
        }
        let (mut later_arrived, mut sacked_around) = (false, false);
        for y in far.iter().skip(start).take(MAX_SCAN) {
            step();
            if usize::from(y.dir()) == r {
                let (ys, ye) = (rel(y.seq, base), rel(y.seq, base) + i64::from(y.seq_len()));
                if ys <= s && ye >= e {
                    return LOST; // the range's first arrival is a later datagram
                }
                later_arrived |= ys >= e;
            } else if y.has_ack() {
                let a = rel(y.ack, base);
                if a >= e {
                    return AT_RECEIVER;
                }
                let sack_beyond = y.bits & HAS_SACK != 0 && rel(y.sack_right, base) >= e;
                sacked_around |= a <= s && (sack_beyond || later_arrived);
            }
        }
        if sacked_around || resent() {
            LOST
        } else {
            UNDECIDED
        }
    }
}

/// Matched datagrams on each side of a moment whose delays bound the delay of that
/// moment (`LateBound`).
const NEARBY: usize = 8;

/// The longest a datagram of one direction sent at a given moment could take to
/// arrive, from the delays of the matched datagrams: the largest of the `NEARBY`
/// sent just before and just after it, and at least the direction's 95th percentile.
/// The neighbours follow the queue of the moment; the percentile covers the delay of a
/// datagram whose neighbours that arrived were the fast ones (near the end of a cut
/// capture, the slow ones are those missing). A datagram missing at the far side is
/// judged only if it should have arrived within this bound before the far capture
/// ended (docs/ANALYSIS.md `twin.outsideOtherCapture`): a capture cut a fraction of a
/// millisecond after a datagram's expected arrival proves nothing about it.
struct LateBound {
    /// (send time, delay) sorted by send time, ns.
    by_time: Vec<(f64, f64)>,
    p95: f64,
}

impl LateBound {
    fn new(delays: &[(f64, f64)], floor: f64) -> Self {
        let mut by_time = delays.to_vec();
        by_time.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut d: Vec<f64> = delays.iter().map(|q| q.1).collect();
        d.sort_by(f64::total_cmp);
        let p95 = super::delay::percentile(&d, 0.95).unwrap_or(floor).max(floor);
        LateBound { by_time, p95 }
    }

    fn at(&self, t: f64) -> f64 {
        let k = self.by_time.partition_point(|q| q.0 < t);
        let near = &self.by_time[k.saturating_sub(NEARBY)..(k + NEARBY).min(self.by_time.len())];
        near.iter().map(|q| q.1).fold(self.p95, f64::max)
    }
}

/// The parts of `range` that none of `pieces` covers.
fn uncovered(range: (i64, i64), pieces: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut sorted = pieces.to_vec();
    sorted.sort_unstable();
    let (mut at, mut out) = (range.0, Vec::new());
    for (s, e) in sorted {
        if s > at {
            out.push((at, s.min(range.1)));
        }
        at = at.max(e);
    }
    if at < range.1 {
        out.push((at, range.1));
    }
    out.retain(|g| g.1 > g.0);
    out
}

/// Every datagram's fate, per direction (module doc).
pub fn fates(c: &Ctx) -> Fates {
    let mut f = Fates {
        code: [vec![0; c.d[0].len()], vec![0; c.d[1].len()]],
        dirs: Default::default(),
        events: Vec::new(),
        delays: [Vec::new(), Vec::new()],
        base: [0; 2],
    };
    for r in 0..2 {
        let (ns, fs) = (c.near[r], 1 - c.near[r]);
        let of_r = |side: usize| c.d[side].iter().enumerate().filter(move |(_, x)| usize::from(x.dir()) == r);
        f.base[r] = of_r(ns).chain(of_r(fs)).next().map_or(0, |(_, x)| x.seq);
        let largest = |side: usize| of_r(side).map(|(_, x)| x.len).max().unwrap_or(0);
        let smss = match (largest(ns), largest(fs)) {
            (0, b) => b,
            (a, 0) => a,
            (a, b) => a.min(b),
        }
        .max(1);
        let segs = |x: &Dgram| u64::from(x.len.div_ceil(smss).max(1));
        // Arrivals: delays, reordering, copies, datagrams the near side never saw.
        // The byte ranges of a large datagram (TSO at the near side) that arrived in pieces.
        let mut covered: HashMap<u32, Vec<(i64, i64)>> = HashMap::new();
        for (j, y) in of_r(fs) {
            let n = c.m.partner[fs][j];
            if matches!(c.m.how[fs][j], EXACT | PIECE) {
                let x = &c.d[ns][n as usize];
                let t = c.at(ns, x);
                f.delays[r].push((t, c.at(fs, y) - t));
                if x.len > y.len {
                    let at = rel(y.seq, f.base[r]);
                    covered.entry(n).or_default().push((at, at + i64::from(y.len)));
                }
            }
        }
        let floor = f.delays[r].iter().map(|q| q.1).fold(f64::INFINITY, f64::min);
        let floor = if floor.is_finite() { floor } else { c.clock.uncertainty };
        let late = LateBound::new(&f.delays[r], floor);
        let mut latest_sent: i64 = -1;
        for (j, y) in of_r(fs) {
            let n = c.m.partner[fs][j];
            let dir = &mut f.dirs[r];
            match c.m.how[fs][j] {
                EXACT | PIECE => {
                    f.code[fs][j] = ARRIVED;
                    if i64::from(n) < latest_sent {
                        dir.reordered += segs(y);
                        c.event(&mut f, r, fs, j, "reordered");
                    }
                    latest_sent = latest_sent.max(i64::from(n));
                }
                COPY => {
                    f.code[fs][j] = COPIED;
                    dir.duplicated += segs(y);
                    c.event(&mut f, r, fs, j, "duplicated");
                }
                _ => {
                    // Certainly sent while the near capture ran: at the latest one
                    // floor before it arrived, at the earliest the delay of the
                    // moment before (`LateBound`).
                    let arrived = c.at(fs, y);
                    let inside = arrived - late.at(arrived - floor) >= c.spans[ns].0 + SLACK_NS && arrived - floor + SLACK_NS <= c.spans[ns].1;
                    if inside {
                        f.code[fs][j] = NOT_AT_SENDER;
                        dir.not_seen_at_sender_side += segs(y);
                        c.event(&mut f, r, fs, j, "not-seen-at-sender-side");
                    } else {
                        f.code[fs][j] = OUTSIDE;
                        dir.outside_other_capture += segs(y);
                    }
                }
            }
        }
        // Copies the capture held twice at the receiving side beyond those at the
        // sending side were made on the way.
        let copies = |side: usize| c.copies[side].iter().filter(|x| usize::from(x.dir()) == r);
        let made = copies(fs).count().saturating_sub(copies(ns).count());
        for x in copies(fs).skip(copies(fs).count() - made) {
            f.dirs[r].duplicated += segs(x);
            if f.events.len() < MAX_EVENTS {
                let sender_side = fs == 1 - c.clock.receiver;
                let frame = Some(x.frame);
                let (sf, rf) = if sender_side { (frame, None) } else { (None, frame) };
                let capture = if sender_side { "sender-side" } else { "receiver-side" };
                let ack = (r == 1).then(|| rel(x.ack, f.base[0]));
                f.events.push(TwinEvent { t: c.clock.at(fs, x.t_ns) / 1e9, direction: r as u8, kind: "duplicated", sender_side_frame: sf, receiver_side_frame: rf, seq: rel(x.seq, f.base[r]), len: x.len, capture, ack, due: None });
            }
        }
        // Departures: delivered, or judged.
        let mut echo = None;
        for (i, x) in of_r(ns) {
            let how = c.m.how[ns][i];
            let whole = (rel(x.seq, f.base[r]), rel(x.seq, f.base[r]) + i64::from(x.seq_len()));
            // What did not arrive: all of it, nothing, or the gaps between its pieces.
            let gaps: Vec<(i64, i64)> = match how {
                EXACT => Vec::new(),
                PIECE => covered.get(&(i as u32)).map_or_else(Vec::new, |pieces| uncovered(whole, pieces)),
                _ => vec![whole],
            };
            let bytes = |g: &(i64, i64)| u64::try_from(g.1 - g.0).unwrap_or(0);
            let missing = if how == EXACT || how == PIECE { gaps.iter().map(|g| bytes(g).div_ceil(u64::from(smss))).sum() } else { segs(x) };
            let delivered = segs(x).saturating_sub(missing);
            // Judged only if it certainly arrived, had it not been lost, while the far
            // capture ran: no sooner than one floor after it left, no later than the
            // delay of the moment (`LateBound`), each with the matching slack.
            let sent = c.at(ns, x);
            let inside = sent + floor >= c.spans[fs].0 + SLACK_NS && sent + late.at(sent) + SLACK_NS <= c.spans[fs].1;
            if delivered == 0 && !inside {
                f.code[ns][i] = OUTSIDE;
                f.dirs[r].outside_other_capture += missing;
                continue;
            }
            let dir = &mut f.dirs[r];
            dir.sent += delivered + missing;
            dir.delivered += delivered;
            f.code[ns][i] = DELIVERED;
            for gap in gaps {
                let fate = c.judge(r, i, gap, f.base[r], floor, &mut echo);
                let count = if delivered == 0 { missing } else { bytes(&gap).div_ceil(u64::from(smss)) };
                let (counter, kind) = match fate {
                    LOST => (&mut f.dirs[r].lost_between, "lost-between"),
                    AT_RECEIVER => (&mut f.dirs[r].not_seen_at_receiver_side, "not-seen-at-receiver-side"),
                    _ => (&mut f.dirs[r].undecided, "undecided"),
                };
                *counter += count;
                if fate == LOST && x.seq_len() == 0 {
                    f.dirs[r].lost_between_without_data += count;
                }
                if delivered == 0 {
                    f.code[ns][i] = fate;
                }
                c.event(&mut f, r, ns, i, kind);
            }
        }
    }
    f.events.sort_by(|a, b| a.t.total_cmp(&b.t));
    f
}
