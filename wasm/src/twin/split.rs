//! The round trip cut in four, and the data sender's bytes sent, not yet acknowledged
//! (docs/ANALYSIS.md `twin.rttSplit`, `twin.inFlight`).
//!
//! A round trip of the data leaves the sender, crosses the forward path, waits in the
//! receiver until it is acknowledged, crosses the return path, and waits in the sender
//! until the sender answers. Each capture times the part next to it: the receiver-side
//! capture the receiver's (a data segment's arrival → the first ACK covering it; first
//! transmissions only, as Karn's rule, RFC 6298 §3), the sender-side capture the
//! sender's (a receiver datagram's arrival → the sender's first datagram echoing its
//! TSval, RFC 7323 §4.3, the same part vantage.rs reads at one capture); the paths are
//! the one-way delays (delay.rs). Medians, so that the four need not come from the same
//! round trip; the two paths' split is good to the clock's uncertainty, their sum is
//! exact.

use std::collections::HashMap;

use super::collect::Dgram;
use super::delay::percentile;
use super::matching::{Matching, EXACT};
use super::report::{InFlightCheck, RttSplit};
use crate::analysis::sender_flight::sender_in_flight;
use crate::analysis::Analysis;

fn median_ms(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    percentile(&v, 0.5).map(|x| x / 1e6)
}

/// Receiver host: data (direction 0) arriving → the first ACK covering it, ns.
fn receiver_turnarounds(list: &[Dgram]) -> Vec<f64> {
    let mut out = Vec::new();
    super::clock::for_each_turnaround(list, 0, |took| out.push(took as f64));
    out
}

/// Sender host: a receiver datagram (direction 1) arriving with TSval v → the sender's
/// first datagram echoing v, ns.
fn sender_turnarounds(list: &[Dgram]) -> Vec<f64> {
    let mut first_seen: HashMap<u32, i64> = HashMap::new();
    let mut out = Vec::new();
    for x in list {
        match (x.dir(), x.ts()) {
            (1, Some(v)) => {
                first_seen.entry(v).or_insert(x.t_ns);
            }
            (0, Some(_)) => {
                if let Some(t) = first_seen.remove(&x.tsecr) {
                    out.push(x.t_ns.saturating_sub(t) as f64);
                }
            }
            _ => {}
        }
    }
    out
}

/// The four parts (module doc); `sender`/`receiver`: the inputs' datagram lists,
/// `delays`: each direction's one-way delays (ns), `uncertainty`: the clock's, ns.
pub fn rtt_split(sender: &[Dgram], receiver: &[Dgram], delays: &[Vec<(f64, f64)>; 2], uncertainty: f64) -> RttSplit {
    let path = |r: usize| median_ms(delays[r].iter().map(|q| q.1).collect());
    RttSplit {
        sender_host_ms: median_ms(sender_turnarounds(sender)),
        forward_path_ms: path(0),
        receiver_host_ms: median_ms(receiver_turnarounds(receiver)),
        return_path_ms: path(1),
        path_uncertainty_ms: uncertainty / 1e6,
    }
}

/// One side of the in-flight check: its analysis, the connection's position there, and
/// the data sender's endpoint as that capture names it.
pub struct Seen<'a> {
    pub analysis: &'a Analysis,
    pub connection: usize,
    pub data_sender: &'a str,
}

/// The sender's bytes sent, not yet acknowledged (its own capture's analysis, `inflight` at each data
/// segment) beside the receiver-side capture's estimate of them
/// (analysis/timing/sender_flight.rs `sender_in_flight`), segment by segment.
/// `to_sender[i]`: the receiver-side datagram i's partner at the sender side.
pub fn in_flight(s: Seen, r: Seen, d: [&[Dgram]; 2], m: &Matching, receiver_input: usize) -> Option<InFlightCheck> {
    fn dir_of<'a>(seen: &Seen<'a>) -> Option<(&'a crate::analysis::ConnectionSummary, u8)> {
        let c = seen.analysis.connections.get(seen.connection)?;
        let k = c.directions.iter().position(|x| x.from == seen.data_sender)?;
        Some((c, k as u8))
    }
    let ((_, ks), (cr, kr)) = (dir_of(&s)?, dir_of(&r)?);
    let mut truth: HashMap<u32, f64> = HashMap::new();
    s.analysis.stores.get(s.connection)?.for_each_packet(|row| {
        if row.dir == ks && row.len > 0 {
            if let Some(f) = row.in_flight {
                truth.insert(row.frame, f as f64);
            }
        }
    });
    let store = r.analysis.stores.get(r.connection)?;
    let est = sender_in_flight(store, kr, cr.sender_lag_ms / 1e3);
    let (ri, si) = (receiver_input, 1 - receiver_input);
    let index: HashMap<u32, usize> = d[ri].iter().enumerate().map(|(i, x)| (x.frame, i)).collect();
    let (mut sent, mut seen, mut close) = (Vec::new(), Vec::new(), 0u64);
    let mut k = 0;
    store.for_each_packet(|row| {
        if row.dir != kr || row.len == 0 {
            return;
        }
        let e = est.v.get(k).copied();
        k += 1;
        let Some(&i) = index.get(&row.frame) else { return };
        if m.how[ri][i] != EXACT {
            return;
        }
        let frame = d[si][m.partner[ri][i] as usize].frame;
        if let (Some(&t), Some(e)) = (truth.get(&frame), e) {
            close += u64::from((e - t).abs() <= 0.1 * t);
            sent.push(t);
            seen.push(e);
        }
    });
    let stat = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (percentile(&v, 0.5), v.last().copied())
    };
    let compared = sent.len() as u64;
    let ((sm, sx), (em, ex)) = (stat(sent), stat(seen));
    Some(InFlightCheck { compared, sender_median_bytes: sm, sender_max_bytes: sx, receiver_estimate_median_bytes: em, receiver_estimate_max_bytes: ex, within_ten_percent: close })
}
