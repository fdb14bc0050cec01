//! The data sender's bytes in flight, rebuilt from a receiver-side capture
//! (docs/ANALYSIS.md "The sender's bytes in flight at a receiver-side capture").
//!
//! DESIGN.md's bytes in flight are the sender's SND.NXT − SND.UNA (RFC 9293 §3.3.1).
//! At the sender's own capture that is the highest sequence sent less the highest ACK
//! received. At the receiver the capture sees the data when it arrives and the ACKs
//! when they leave, so the same subtraction there gives what the receiver has not yet
//! acknowledged: kilobytes, where the sender had a whole window out. So the sender's
//! view is rebuilt. Call F the part of the round trip between the capture and the
//! sender (vantage.rs, "to the sender and back"): an ACK that leaves the capture at u
//! reaches the sender, which sends new data, and that data is back at the capture at
//! u + F. The data segment seen at t therefore left the sender when it had heard the
//! receiver's ACKs up to those that left at u = t − F, and had sent everything up to
//! that segment's end (new data leaves in sequence order):
//!
//!   flight(t) = (highest sequence seen by t) − (highest ACK the receiver sent by u).
//!
//! u is read from TCP timestamps where the sender offers them. Each data segment echoes
//! (TSecr) TS.Recent, the TSval of the latest receiver segment the sender took in
//! (RFC 7323 §4.3; a pure ACK at RCV.NXT updates it, Linux `tcp_replace_ts_recent`).
//! The first segment that echoes a TSval (rtt.rs `TsRtt`, a timestamp sample of the
//! receiver's direction) says: the sender had heard the receiver's first segment with
//! that TSval, sent at u_k; and TS.Recent only grows, so until the next first echo it
//! had not heard the first segment of the next echoed TSval, sent at u_k+1 (the path
//! keeps ACKs in order). The sender's u lies in [u_k, u_k+1). Within it the estimate
//! takes u = t − F_k, F_k = the far part that echo measured: the sender goes on hearing
//! the ACKs in the pace they left. F changes with the queue on the path (a bulk
//! transfer's own queue adds tens of ms to a 20 ms path), and the echoes measure it
//! all along, so a held burst or a queue cannot shift the estimate out of the interval.
//!
//! The error bound of a point is the farthest the flight could be from the estimate
//! with u anywhere in [u_k, u_k+1): a hard bound where timestamps are on. Before the
//! first echo, and on a connection without timestamps, u = t − the far part's minimum
//! (`direction.senderLagMs`, sender_view.rs shifts the same way) with no bound: while a
//! queue holds the data the sender had heard fewer ACKs and the estimate is low.

use crate::analysis::rows::store::{secs, ConnStore};

/// Kind bit of an RTT sample timed by a TCP timestamp echo (columns.rs `RttColumns::kind`).
const TIMESTAMP: u8 = 1;

/// The estimate at each data segment of the sender, time order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderFlight {
    pub t: Vec<f64>,
    /// Estimated bytes the sender had in flight when it sent the segment seen at `t`.
    pub v: Vec<f64>,
    /// ± bytes: how far the flight can be from `v` (module comment); None before the
    /// first echo and without timestamps.
    pub bound: Vec<Option<f64>>,
    /// Echoes the shift was read from (0: the far part's minimum throughout).
    pub echoes: usize,
}

/// For each first echo of one of the receiver's TSvals by the sender: (time of the
/// echoing segment, time of the receiver's first segment with that TSval), ns.
fn echoes(store: &ConnStore, dir: u8) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    store.for_each_rtt(|t, d, ns, kind| {
        if d != dir && kind & TIMESTAMP != 0 && ns >= 0 && out.last().map_or(true, |&(prev, _)| t >= prev) {
            out.push((t, t - ns));
        }
    });
    out
}

/// The sender's bytes in flight at each data segment of `dir` (a capture at the
/// receiver of `dir`'s data: `connection.vantage` "receiver"). `lag_s`: the far part's
/// minimum, the shift where no echo tells it.
pub fn sender_in_flight(store: &ConnStore, dir: u8, lag_s: f64) -> SenderFlight {
    let echoes = echoes(store, dir);
    // The receiver's cumulative ACK as it rose: (t ns, highest ACK by then).
    let mut acks: Vec<(i64, i64)> = Vec::new();
    store.for_each_packet(|r| {
        if let Some(a) = r.ack.filter(|&a| r.dir != dir && acks.last().map_or(true, |l| a > l.1)) {
            acks.push((r.t_ns, a));
        }
    });
    let acked_by = |u: i64| acks.partition_point(|x| x.0 <= u).checked_sub(1).map(|i| acks[i].1);
    let lag = if lag_s.is_finite() && lag_s > 0.0 { (lag_s * 1e9) as i64 } else { 0 };
    let mut out = SenderFlight { echoes: echoes.len(), ..Default::default() };
    let (mut high, mut low) = (i64::MIN, i64::MAX);
    store.for_each_packet(|r| {
        if r.dir != dir || r.len == 0 {
            return;
        }
        high = high.max(r.seq + i64::from(r.len));
        low = low.min(r.seq);
        // Before the peer's first ACK the sender's SND.UNA is its first byte.
        let flight = |u: i64| (high - acked_by(u).map_or(low, |a| a.max(low))).max(0);
        let k = echoes.partition_point(|e| e.0 <= r.t_ns);
        let next = echoes.get(k).map(|e| e.1 - 1);
        let (v, bound) = match k.checked_sub(1).map(|i| echoes[i]) {
            Some((te, ue)) => {
                let until = next.unwrap_or(i64::MAX).max(ue);
                let v = flight((r.t_ns - (te - ue)).clamp(ue, until));
                let (most, least) = (flight(ue), flight(until));
                (v, Some((most - v).max(v - least)))
            }
            None => (flight((r.t_ns - lag).min(next.unwrap_or(i64::MAX))), None),
        };
        out.t.push(secs(r.t_ns));
        out.v.push(v as f64);
        out.bound.push(bound.map(|b| b as f64));
    });
    out
}

impl SenderFlight {
    /// The bound the chart's label states, bytes: the bound that nine points in ten
    /// keep (90th percentile of the points' bounds; a few points where the ACKs jumped
    /// inside one tick of the receiver's clock, a hole filled, are far wider). None
    /// without timestamps (no bound is known) or without points.
    pub fn label_bound(&self) -> Option<f64> {
        if self.echoes == 0 {
            return None;
        }
        let mut b: Vec<f64> = self.bound.iter().flatten().copied().collect();
        if b.is_empty() {
            return None;
        }
        b.sort_by(f64::total_cmp);
        Some(b[((b.len() - 1) as f64 * 0.9).round() as usize])
    }
}
