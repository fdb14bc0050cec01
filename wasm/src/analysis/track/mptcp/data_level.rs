//! The data level (RFC 8684 §3.3; the parent module's doc): payload mapped through the
//! DSS mappings to data sequence ranges, ranges merged and compared across subflows, and
//! the new data-level bytes over time.

use super::{extend32, Mapping, Subflow, SubflowDir, MAX_RANGES};

/// New data-level bytes over time: at `t[i]` (s since the first packet of the file),
/// `bytes[i]` bytes of data sequence space no subflow had carried before (docs/ANALYSIS.md
/// "MPTCP connection-level rate"). Sorted by time; Σ bytes = `dataBytes` unless capped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DataArrivals {
    pub t: Vec<f64>,
    pub bytes: Vec<u64>,
    /// `MAX_ARRIVALS` was reached: data after that point is missing.
    pub capped: bool,
}

/// Data-level ranges [start, end) of the payload at relative subflow sequence `start`,
/// `len` bytes long, through the most recent mapping that covers each part.
pub(super) fn map_payload(recent: &[Mapping], start: u32, len: u32) -> [Option<(u64, u64)>; 2] {
    let mut out = [None, None];
    let mut n = 0;
    let end = u64::from(start) + u64::from(len);
    for m in recent.iter().rev() {
        let m_end = m.len.map_or(u64::MAX, |l| u64::from(m.ssn) + u64::from(l));
        let (a, b) = (u64::from(start).max(u64::from(m.ssn)), end.min(m_end));
        if a < b && n < out.len() {
            let offset = a - u64::from(m.ssn);
            out[n] = Some((m.dsn.wrapping_add(offset), m.dsn.wrapping_add(offset + (b - a))));
            n += 1;
            if a == u64::from(start) && b == end {
                break;
            }
        }
    }
    out
}

/// Add [a, b) to a subflow's ranges, merged with the last one when they touch.
pub(super) fn add_range(ranges: &mut Vec<(u64, u64)>, a: u64, b: u64, total: &mut usize, capped: &mut bool) {
    if let Some(last) = ranges.last_mut() {
        if a <= last.1 && b >= last.0 {
            last.0 = last.0.min(a);
            last.1 = last.1.max(b);
            return;
        }
    }
    if *total >= MAX_RANGES {
        *capped = true;
        return;
    }
    *total += 1;
    ranges.push((a, b));
}

/// Bytes covered by exactly k of the subflows' range lists, k = 1.. (index k − 1).
pub(super) fn coverage(lists: &[Vec<(u64, u64)>]) -> Vec<u64> {
    let mut events: Vec<(u64, i32, usize)> = Vec::new();
    for (s, list) in lists.iter().enumerate() {
        for &(a, b) in list {
            events.push((a, 1, s));
            events.push((b, -1, s));
        }
    }
    events.sort_unstable_by_key(|&(x, delta, _)| (x, delta));
    let mut per = vec![0i32; lists.len()];
    let mut on = 0usize;
    let mut out = vec![0u64; lists.len()];
    let mut at = 0u64;
    for (x, delta, s) in events {
        if on > 0 {
            out[on - 1] += x - at;
        }
        at = x;
        let before = per[s] > 0;
        per[s] += delta;
        match (before, per[s] > 0) {
            (false, true) => on += 1,
            (true, false) => on -= 1,
            _ => {}
        }
    }
    while out.len() > 1 && out.last() == Some(&0) {
        out.pop();
    }
    out
}

/// The MPTCP connection-level rate's events (docs/ANALYSIS.md "MPTCP connection-level
/// rate", view series `mptcpData`): every mapped piece of MPTCP direction `md` on any
/// subflow, in time order, counts only the data sequence bytes no piece before it
/// covered. A subflow's own retransmission and a redundant copy on another subflow
/// map to data already counted and add nothing (RFC 8684 §3.3.1: a DSN names one byte
/// of the connection's stream, whatever subflow carries it); so the bytes add up to
/// `directions[md].dataBytes`, the union of the ranges.
pub(super) fn data_arrivals(subflows: &[Subflow], members: &[(usize, u8)], md: usize, idsn: Option<u64>, capped: bool) -> DataArrivals {
    let mut pieces: Vec<(i64, u64, u64)> = Vec::new();
    for &(p, client_dir) in members {
        for (tcp_d, dir) in subflows[p].dirs.iter().enumerate() {
            if usize::from(tcp_d as u8 != client_dir) == md {
                let shift = shift_of(dir, idsn);
                pieces.extend(dir.arrivals.iter().map(|&(t, a, b)| (t, a.wrapping_add(shift), b.wrapping_add(shift))));
            }
        }
    }
    // Stable: pieces of one instant keep their subflow order.
    pieces.sort_by_key(|p| p.0);
    // Data covered so far: start → end, disjoint, merged when they touch.
    let mut covered: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    let mut out = DataArrivals { capped, ..Default::default() };
    for (t, a, b) in pieces {
        if b <= a {
            continue;
        }
        let (mut lo, mut hi, mut new) = (a, b, b - a);
        // Every covered range that overlaps or touches [a, b): take out the overlap, merge.
        let first = covered.range(..=a).next_back().map(|(&s, _)| s).unwrap_or(a);
        let touching: Vec<(u64, u64)> = covered.range(first..=b).map(|(&s, &e)| (s, e)).filter(|&(s, e)| e >= a && s <= b).collect();
        for (s, e) in touching {
            new -= e.min(b).saturating_sub(s.max(a));
            lo = lo.min(s);
            hi = hi.max(e);
            covered.remove(&s);
        }
        covered.insert(lo, hi);
        if new > 0 {
            let secs = t as f64 / 1e9;
            if out.t.last() == Some(&secs) {
                *out.bytes.last_mut().unwrap() += new;
            } else {
                out.t.push(secs);
                out.bytes.push(new);
            }
        }
    }
    out.t.shrink_to_fit();
    out.bytes.shrink_to_fit();
    out
}

/// 4-octet DSNs were kept in the subflow's own space: the shift to the connection's
/// (nearest its IDSN) once that is known; 0 for 8-octet ones.
pub(super) fn shift_of(dir: &SubflowDir, idsn: Option<u64>) -> u64 {
    match (dir.recent.first().map(|m| m.dsn_32), dir.ranges.first().map(|r| r.0).or(dir.fin_dsn), idsn) {
        (Some(true), Some(a), Some(base)) => extend32(a as u32, base).wrapping_sub(a),
        _ => 0,
    }
}

/// The DATA_FIN's data sequence number in MPTCP direction `md`, if one was sent.
pub(super) fn fin_at(subflows: &[Subflow], members: &[(usize, u8)], md: usize, idsn: Option<u64>) -> Option<u64> {
    members
        .iter()
        .flat_map(|&(p, client_dir)| subflows[p].dirs.iter().enumerate().filter(move |(tcp_d, _)| usize::from(*tcp_d as u8 != client_dir) == md))
        .filter_map(|(_, dir)| dir.fin_dsn.map(|f| f.wrapping_add(shift_of(dir, idsn))))
        .max()
}
