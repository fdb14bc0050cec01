//! The rate the path delivered: how fast the receiver's reports of what it holds
//! advanced. A receiver acknowledges every byte that reached it, cumulatively or in
//! a SACK block (RFC 9293 §3.4, RFC 2018 §3), so the highest byte its ACKs name
//! grows at the rate the bottleneck let through, whatever the sender put on the
//! wire: the delivery rate of BBR (draft-cheng-iccrg-delivery-rate-estimation §1)
//! and Linux's `tcp_rate.c`, measured here from the capture.
//!
//! Why not the data segments' own rate: at a sender-side capture that is the rate
//! the sender *offered*. A BBR sender in startup paces at 2.89× its estimate, and
//! every sender bursts into the bottleneck's queue, so its best 100 ms bins there
//! run above the link (128 Mbit/s on a 100 Mbit/s link, while its receiver-side
//! twin shows 95): a flow at the link's rate then looks 27 % short of its "best".
//! At a receiver-side capture the two agree, less the retransmitted bytes, which
//! deliver nothing new.

use crate::analysis::rows::columns::{PacketColumns, SackSource};
use crate::analysis::rates::throughput::Bins;

/// The data direction's delivered rate over bins (see [`delivered_rates`]), bit/s;
/// NaN where fewer than 7 bins saw delivery.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeliveredRates {
    /// The sustained best: p90 of the bins, the first and last left out (a transfer
    /// starts and ends inside them).
    pub best_bps: f64,
    /// The mean of the bins from the first that reached 90 % of the best to the last
    /// but one: the rate once the start-up ramp (slow start, BBR's startup) was over,
    /// which is all loss can hold down. A flow that ramps up over a few of its bins
    /// and then runs at its best is not "short of its best".
    pub steady_mean_bps: f64,
}

/// Share of the best a bin must reach for the steady part to begin.
const STEADY_FROM: f64 = 0.9;

/// The delivered rate of the data direction `d` over bins of 4 path RTTs (at least
/// 100 ms; 100 ms with the RTT unknown), from [`for_each_delivery`]'s credits.
pub fn delivered_rates(p: &PacketColumns, sacks: &dyn SackSource, d: u8, rtt: f64) -> DeliveredRates {
    let mut bins = Bins::new(if rtt > 0.0 { (4.0 * rtt).max(0.1) } else { 0.1 });
    for_each_delivery(p, sacks, d, &mut |t, bytes| bins.add(t, bytes.min(f64::from(u32::MAX)) as u32));
    let rates = bins.rates_bps();
    if rates.len() < 7 {
        return DeliveredRates { best_bps: f64::NAN, steady_mean_bps: f64::NAN };
    }
    let inner = &rates[1..rates.len() - 1];
    let mut sorted = inner.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let best = sorted[((sorted.len() - 1) as f64 * 0.9).round() as usize];
    let from = inner.iter().position(|&r| r >= STEADY_FROM * best).unwrap_or(0);
    let steady = &inner[from..];
    DeliveredRates { best_bps: best, steady_mean_bps: steady.iter().sum::<f64>() / steady.len() as f64 }
}

/// Calls `credit(t, bytes)` for each report of data direction `d` that the receiver
/// holds more: bytes are credited when the ACK or SACK block that first reports them
/// held is seen (capture time of the peer's packet). The packet rows and the SACK
/// blocks are merged by time (a block after the rows up to its ACK's time): exact for
/// a capture in time order; where the clock steps back a block may be taken before its
/// own ACK's row and bounded by an older `sent_end`, which can only credit less.
///
/// What the receiver holds is its cumulative ACK plus the bytes its SACK blocks name
/// above it (RFC 2018 §3: each block is a contiguous range received; the bytes between
/// blocks and below the first are not): the scoreboard of RFC 6675 §3, and what Linux's
/// `tcp_rate.c` counts as delivered (packets cumulatively or selectively acknowledged).
/// Not the highest byte a block names: behind a full queue that drops every other
/// segment its right edge runs at twice the rate anything arrived (realjimmy
/// `redundant_stream1.pcapng` connection 4: 1.9 Mbit/s "delivered" while its segments
/// reached the receiver, one every 10.1 ms, at 1.14 Mbit/s). The bytes of a hole are
/// credited when its repair arrives, and never beyond the highest byte the capture saw
/// sent by then (a corrupt or forged ACK far ahead delivers nothing).
pub fn for_each_delivery(p: &PacketColumns, sacks: &dyn SackSource, d: u8, credit: &mut dyn FnMut(f64, f64)) {
    let mut delivered = Delivered::default();
    let mut row = 0;
    // `!(t > until)`, not `t <= until`: a row whose time is NaN is taken at once, not
    // left to block every row after it.
    let mut step_rows = |until: f64, delivered: &mut Delivered, credit: &mut dyn FnMut(f64, f64)| {
        while row < p.t.len() && !(p.t[row] > until) {
            delivered.row(p, row, d, credit);
            row += 1;
        }
    };
    sacks.for_each_sack_block(&mut |t, dir, left, right| {
        if dir == d {
            return;
        }
        // The rows up to this block's ACK first: its cumulative ACK and the data
        // sent before it bound the block.
        step_rows(t, &mut delivered, credit);
        delivered.selective(t, left, right, credit);
    });
    step_rows(f64::INFINITY, &mut delivered, credit);
}

/// SACKed ranges above the cumulative ACK kept at most: beyond it the two closest
/// merge (the gap between them is credited early, as the highest byte named would).
/// A queue dropping every other segment of a window of W segments leaves W/2 ranges
/// until the repairs come: 1,024 is a 2,048-segment window's worth (16 KiB here).
const MAX_RANGES: usize = 1024;

/// The running state: the highest byte sent so far and what the receiver reported held.
#[derive(Default)]
struct Delivered {
    /// End of the highest data segment of the data direction seen so far.
    sent_end: Option<f64>,
    /// The receiver's cumulative ACK; None before its first ACK.
    cumulative: Option<f64>,
    /// SACKed ranges above `cumulative`, sorted and disjoint, and their bytes.
    sacked: Vec<(f64, f64)>,
    sacked_bytes: f64,
    /// Bytes held (`cumulative` plus `sacked_bytes`) as last credited.
    credited: f64,
}

impl Delivered {
    fn row(&mut self, p: &PacketColumns, i: usize, d: u8, credit: &mut dyn FnMut(f64, f64)) {
        if p.dir[i] == d {
            let end = p.seq[i] + f64::from(p.len[i]);
            if end.is_finite() && self.sent_end.is_none_or(|s| end > s) {
                self.sent_end = Some(end);
            }
        } else if p.ack[i].is_finite() {
            self.cumulative(p.t[i], p.ack[i], credit);
        }
    }

    /// The highest byte a report may name: what was sent (or what is held already).
    fn bound(&self, held: f64) -> f64 {
        self.sent_end.unwrap_or(held).max(held)
    }

    /// The receiver's cumulative ACK `byte` at `t`.
    fn cumulative(&mut self, t: f64, byte: f64, credit: &mut dyn FnMut(f64, f64)) {
        // The first ACK only sets where delivery starts (the handshake's, or the
        // first one the capture holds mid-transfer): nothing before it is credited,
        // and it too lies within what was sent, if anything was.
        let Some(held) = self.cumulative else {
            let start = self.sent_end.map_or(byte, |s| byte.min(s));
            (self.cumulative, self.credited) = (Some(start), start);
            return;
        };
        let now = byte.min(self.bound(held));
        if now > held {
            self.cumulative = Some(now);
            // The ranges it passed (they lie at the front) leave the scoreboard.
            let passed = self.sacked.partition_point(|r| r.1 <= now);
            self.sacked_bytes -= self.sacked.drain(..passed).map(|r| r.1 - r.0).sum::<f64>();
            if let Some(r) = self.sacked.first_mut().filter(|r| r.0 < now) {
                self.sacked_bytes -= now - r.0;
                r.0 = now;
            }
            self.credit(t, credit);
        }
    }

    /// A SACK block [`left`, `right`) at `t`: bytes received above the cumulative ACK.
    fn selective(&mut self, t: f64, left: f64, right: f64, credit: &mut dyn FnMut(f64, f64)) {
        let Some(held) = self.cumulative else { return };
        if !(left.is_finite() && right.is_finite()) {
            return;
        }
        let (l, r) = (left.max(held), right.min(self.bound(held)));
        if !(r > l) {
            return;
        }
        // Insert, merging every range it touches.
        let v = &mut self.sacked;
        let first = v.partition_point(|x| x.1 < l);
        let last = v.partition_point(|x| x.0 <= r);
        if first < last {
            let merged = (v[first].0.min(l), v[last - 1].1.max(r));
            let before: f64 = v[first..last].iter().map(|x| x.1 - x.0).sum();
            v.splice(first..last, [merged]);
            self.sacked_bytes += merged.1 - merged.0 - before;
        } else {
            v.insert(first, (l, r));
            self.sacked_bytes += r - l;
        }
        if v.len() > MAX_RANGES {
            let k = (1..v.len()).min_by(|&a, &b| (v[a].0 - v[a - 1].1).total_cmp(&(v[b].0 - v[b - 1].1))).unwrap_or(1);
            self.sacked_bytes += v[k].0 - v[k - 1].1;
            v[k - 1].1 = v[k].1;
            v.remove(k);
        }
        self.credit(t, credit);
    }

    /// Credits what is held beyond what was credited.
    fn credit(&mut self, t: f64, credit: &mut dyn FnMut(f64, f64)) {
        let held = self.cumulative.unwrap_or(0.0) + self.sacked_bytes;
        if held > self.credited {
            credit(t, held - self.credited);
            self.credited = held;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::rows::columns::SackColumns;

    /// Rows of (time, direction, seq, payload length, ack) as columns, sorted by time.
    fn in_time_order(mut rows: Vec<(f64, u8, f64, u32, f64)>) -> PacketColumns {
        let mut p = PacketColumns::default();
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (t, dir, seq, len, ack) in rows {
            p.t.push(t);
            p.dir.push(dir);
            p.seq.push(seq);
            p.len.push(len);
            p.ack.push(ack);
            p.flags.push(0);
        }
        p
    }

    /// A sender (dir 0) offering 1,000 B every 1 ms (8 Mbit/s) through a 4 Mbit/s
    /// bottleneck: the receiver's ACK of each segment comes 2 ms per segment later.
    fn offered_twice_the_link(seconds: f64) -> PacketColumns {
        let n = (seconds * 1000.0) as usize;
        let mut rows: Vec<(f64, u8, f64, u32, f64)> = Vec::new();
        for k in 0..n {
            rows.push((k as f64 * 0.001, 0, 1.0 + 1000.0 * k as f64, 1000, f64::NAN));
            // Delivered at the bottleneck's pace; only those inside the capture (half
            // a step off the bins' edges, so f64 rounding puts none in the wrong bin).
            let at = 0.0105 + k as f64 * 0.002;
            if at < seconds {
                rows.push((at, 1, 1.0, 0, 1.0 + 1000.0 * (k + 1) as f64));
            }
        }
        rows.push((0.0, 1, 1.0, 0, 1.0)); // the handshake's ACK: delivery starts at byte 1
        in_time_order(rows)
    }

    #[test]
    fn a_sender_offering_twice_the_link_delivers_the_links_rate() {
        // 2 s: 20 bins of 100 ms. The receiver's ACKs advance 1,000 B per 2 ms =
        // 4 Mbit/s in every whole bin, though the data left at 8 Mbit/s.
        let p = offered_twice_the_link(2.0);
        let best = delivered_rates(&p, &SackColumns::default(), 0, f64::NAN).best_bps;
        assert!((best - 4.0e6).abs() < 1.0, "{best}");
    }

    #[test]
    fn the_steady_mean_leaves_out_the_start_up_ramp() {
        // ACKs every 2 ms (half a step off the bin edges) advancing 500 B each until
        // 0.5 s (2 Mbit/s: the ramp), then 1,000 B each (4 Mbit/s) to 2 s; the data was
        // all sent at 0 (one row, so nothing bounds the ACKs). The mean over the whole
        // transfer is short of the 4 Mbit/s best, but not from the first bin at 90 % of
        // it: the steady mean is the best itself.
        let mut p = PacketColumns { t: vec![0.0], dir: vec![0], seq: vec![1.0], len: vec![4_000_000], ack: vec![f64::NAN], flags: vec![0], ..Default::default() };
        let mut held = 1.0;
        for k in 0..1000 {
            let t = 0.0005 + 0.002 * k as f64;
            held += if t < 0.5 { 500.0 } else { 1000.0 };
            p.t.push(t);
            p.dir.push(1);
            p.seq.push(1.0);
            p.len.push(0);
            p.ack.push(held);
            p.flags.push(0);
        }
        let r = delivered_rates(&p, &SackColumns::default(), 0, f64::NAN);
        assert!((r.best_bps - 4.0e6).abs() < 1.0, "{r:?}");
        assert!((r.steady_mean_bps - 4.0e6).abs() < 1.0, "{r:?}");
    }

    #[test]
    fn sack_blocks_credit_delivery_the_cumulative_ack_holds_back() {
        // A segment lost 20 ms before each of 9 bin edges (0.2, 0.4, … 1.8 s) and
        // repaired 50 ms later: the cumulative ACK stands still across the edge and
        // then jumps, which alone would move 10 segments out of the bin before each
        // edge into the one after it (9 of 18 bins at 4.8 Mbit/s, the p90 among
        // them). The SACK blocks keep the pace: each reports its range held, and the
        // hole's 1,000 B are credited when its repair arrives, 50 ms later, in the bin
        // after the edge: 51,000 B there (4.08 Mbit/s, the p90), since this receiver got
        // the repair on top of its 50 segments a bin (on a real link the repair takes
        // one of those slots).
        let mut p = offered_twice_the_link(2.0);
        let mut sacks = SackColumns::default();
        for edge in 1..10 {
            let (from, to) = (0.2 * edge as f64 - 0.02, 0.2 * edge as f64 + 0.03);
            let first = p.t.iter().zip(&p.dir).position(|(&t, &d)| d == 1 && t >= from).unwrap();
            let hole = p.ack[first] - 1000.0;
            for i in first..p.t.len() {
                if p.dir[i] == 1 && p.t[i] < to {
                    sacks.t.push(p.t[i]);
                    sacks.dir.push(1);
                    sacks.left.push(hole + 1000.0);
                    sacks.right.push(p.ack[i]);
                    p.ack[i] = hole;
                }
            }
        }
        let cumulative_only = delivered_rates(&p, &SackColumns::default(), 0, f64::NAN).best_bps;
        assert!((cumulative_only - 4.8e6).abs() < 1.0, "{cumulative_only}");
        let best = delivered_rates(&p, &sacks, 0, f64::NAN).best_bps;
        assert!((best - 4.08e6).abs() < 1.0, "{best}");
    }

    #[test]
    fn a_queue_dropping_every_other_segment_delivers_what_arrived() {
        // A sender offering 1,000 B every 1 ms into a link that delivers one segment
        // every 2 ms (4 Mbit/s) from a full queue that drops the other: segments 0, 2, 4,
        // … arrive, 1, 3, 5, … are lost. The receiver's cumulative ACK stays at the first
        // hole (byte 1,001) and each ACK's SACK block reaches the segment just arrived:
        // the right edge advances 2,000 B per 2 ms (8 Mbit/s, as realjimmy
        // `redundant_stream1.pcapng` connection 4 read 1.9 Mbit/s behind a 1.14 Mbit/s
        // link), while what the receiver holds grows 1,000 B per 2 ms: 4 Mbit/s in
        // every whole bin of 100 ms (RFC 2018 §3: the bytes between blocks never came).
        let mut sacks = SackColumns::default();
        let mut rows: Vec<(f64, u8, f64, u32, f64)> = vec![(0.0, 1, 1.0, 0, 1.0)];
        for k in 0..2000usize {
            rows.push((k as f64 * 0.001, 0, 1.0 + 1000.0 * k as f64, 1000, f64::NAN));
        }
        for j in 0..1000usize {
            let at = 0.0105 + j as f64 * 0.002;
            let seg = 2 * j; // the segment that arrived
            rows.push((at, 1, 1.0, 0, 1001.0));
            if seg > 0 {
                sacks.t.push(at);
                sacks.dir.push(1);
                // One block over every segment that arrived since the first hole would
                // name the holes too; the receiver's blocks are the arrivals themselves.
                sacks.left.push(1.0 + 1000.0 * seg as f64);
                sacks.right.push(1.0 + 1000.0 * (seg + 1) as f64);
            }
        }
        let p = in_time_order(rows);
        let best = delivered_rates(&p, &sacks, 0, f64::NAN).best_bps;
        assert!((best - 4.0e6).abs() < 1.0, "{best}");
    }

    #[test]
    fn an_ack_beyond_everything_sent_delivers_nothing_yet() {
        // A forged ACK 1 GB ahead at 1.05 s: without the bound, that bin alone would
        // read 80 Gbit/s; with it, the ACKs that follow are credited as before.
        let mut p = offered_twice_the_link(2.0);
        let i = p.t.iter().position(|&t| t >= 1.05).unwrap();
        p.t.insert(i, 1.05);
        p.dir.insert(i, 1);
        p.seq.insert(i, 1.0);
        p.len.insert(i, 0);
        p.ack.insert(i, 1e9);
        p.flags.insert(i, 0);
        let best = delivered_rates(&p, &SackColumns::default(), 0, f64::NAN).best_bps;
        assert!(best < 8.1e6, "{best}");
    }
}
