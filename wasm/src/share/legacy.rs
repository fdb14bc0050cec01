//! Format 1: the first round's per-packet snapshots (web/share/columns.ts and
//! rttColumns.ts as of issue 14), so links made before issue 15 still open. The
//! columns are read back exactly as that writer defined them and answered as the
//! live engine answers a capture: the same point, rate and span columns
//! (view/sources.rs definitions) over the snapshot's packets.

use crate::view::times::Times;
use super::bytes::Reader;
use super::meta::Meta;
use super::session::Entry;
use crate::analysis::columns::PacketColumns;
use crate::analysis::{diagnosis_shares, Stall, StallCause};
use crate::decode::tcp_flags::SYN;
use crate::error::DecodeError;
use crate::view::intervals::SpanList;
use crate::view::pyramid::PointColumn;
use crate::view::sources::{CumColumn, MarkerColumn, MARKER_FLAGS};
use crate::view::Series;
use std::collections::HashMap;

/// RTT samples of a format-1 snapshot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rtt {
    pub t: Vec<f64>,
    pub dir: Vec<u8>,
    pub rtt_ms: Vec<f64>,
    pub kind: Vec<u8>,
}

pub struct Legacy {
    pub meta: Meta,
    pub packets: PacketColumns,
    pub rtt: Rtt,
}

const MAX_SAFE: u64 = (1 << 53) - 1;

/// Most packets (and RTT samples) a format-1 snapshot may hold (issue 45, item 9): the
/// first round's links held a connection's packets, a few bytes each after deflate, so
/// an 80 KB link unpacked to 6 M packets and 870 MB in a tab. 500,000 packets are about
/// 75 MB opened (≈ 150 B a packet: the columns and the view summaries over them);
/// docs/DEPLOY.md "Share links" lists this cap with the others.
pub const MAX_PACKETS: usize = 500_000;

fn count(r: &mut Reader, expected: Option<usize>, what: &str) -> Result<usize, DecodeError> {
    let n = r.uvarint(what)?;
    if n > MAX_PACKETS as u64 {
        return Err(r.fail(format!("column {what} claims {n} values, more than the {MAX_PACKETS} a first-round link may hold")));
    }
    let n = n as usize;
    if let Some(e) = expected.filter(|&e| e != n) {
        return Err(r.fail(format!("column {what} has {n} values but its table has {e} rows")));
    }
    if n > r.remaining() {
        return Err(r.fail(format!("column {what} claims {n} values, more than the data holds")));
    }
    Ok(n)
}

fn uvarint(r: &mut Reader, what: &str) -> Result<u64, DecodeError> {
    let v = r.uvarint(what)?;
    if v > MAX_SAFE {
        return Err(r.fail(format!("{what} is too large")));
    }
    Ok(v)
}

fn unzigzag(z: u64) -> i64 {
    if z.is_multiple_of(2) {
        (z / 2) as i64
    } else {
        -(z.div_ceil(2) as i64)
    }
}

/// columns.ts `readNumbers`: RAW f64s, or DELTA varints (0 = NaN) per group.
fn numbers(r: &mut Reader, expected: Option<usize>, what: &str, groups: Option<&[u8]>) -> Result<Vec<f64>, DecodeError> {
    let n = count(r, expected, what)?;
    let mut out = Vec::with_capacity(n);
    match r.byte(what)? {
        1 => {
            for _ in 0..n {
                out.push(r.f64(what)?);
            }
        }
        0 => {
            let digits = r.byte(what)?;
            if digits > 9 {
                return Err(r.fail(format!("column {what} has an invalid scale")));
            }
            let scale = 10f64.powi(digits as i32);
            let mut last = [0i64; 256];
            for i in 0..n {
                let tag = uvarint(r, what)?;
                if tag == 0 {
                    out.push(f64::NAN);
                    continue;
                }
                let g = groups.map_or(0, |g| g[i] as usize);
                last[g] = last[g].saturating_add(unzigzag(tag - 1));
                out.push(last[g] as f64 / scale);
            }
        }
        m => return Err(r.fail(format!("column {what} has an unknown encoding ({m})"))),
    }
    Ok(out)
}

fn uints(r: &mut Reader, n: usize, what: &str, delta: bool) -> Result<Vec<u32>, DecodeError> {
    count(r, Some(n), what)?;
    let mut out = Vec::with_capacity(n);
    let mut prev = 0i64;
    for _ in 0..n {
        let v = if delta { prev.saturating_add(unzigzag(uvarint(r, what)?)) } else { uvarint(r, what)? as i64 };
        if !(0..=u32::MAX as i64).contains(&v) {
            return Err(r.fail(format!("column {what} holds an out-of-range value")));
        }
        out.push(v as u32);
        prev = v;
    }
    Ok(out)
}

fn raw_bytes(r: &mut Reader, n: usize, what: &str) -> Result<Vec<u8>, DecodeError> {
    count(r, Some(n), what)?;
    Ok(r.bytes(n, what)?.to_vec())
}

/// Reads the columns after the meta (format 1 payload).
pub fn read(r: &mut Reader, meta: Meta) -> Result<Legacy, DecodeError> {
    let t = numbers(r, None, "packets.t", None)?;
    let n = t.len();
    let dir = raw_bytes(r, n, "packets.dir")?;
    let frame = uints(r, n, "packets.frame", true)?;
    let len = uints(r, n, "packets.len", false)?;
    count(r, Some(n), "packets.wireLen")?;
    let mut wire_len = Vec::with_capacity(n);
    for &l in &len {
        let v = l as i64 + unzigzag(uvarint(r, "packets.wireLen")?);
        if !(0..=u32::MAX as i64).contains(&v) {
            return Err(r.fail("column packets.wireLen holds an out-of-range value"));
        }
        wire_len.push(v as u32);
    }
    // Predictors (columns.ts): a segment starts where its direction's previous one
    // ended; in flight is (highest end sent) − (highest ACK from the peer).
    let residual_seq = r.byte("packets.seq")? == 1;
    let mut seq = numbers(r, Some(n), "packets.seq", (!residual_seq).then_some(&dir))?;
    if residual_seq {
        let mut next = [0f64; 256];
        for i in 0..n {
            let d = dir[i] as usize;
            seq[i] += next[d];
            if !seq[i].is_nan() {
                next[d] = seq[i] + len[i] as f64;
            }
        }
    }
    let ack = numbers(r, Some(n), "packets.ack", Some(&dir))?;
    let win = numbers(r, Some(n), "packets.win", Some(&dir))?;
    let residual_in_flight = r.byte("packets.inFlight")? == 1;
    let mut in_flight = numbers(r, Some(n), "packets.inFlight", (!residual_in_flight).then_some(&dir))?;
    if residual_in_flight {
        let (mut end_hi, mut ack_hi) = ([0f64; 2], [0f64; 2]);
        for i in 0..n {
            let d = (dir[i] & 1) as usize;
            let end = seq[i] + len[i] as f64;
            if end > end_hi[d] {
                end_hi[d] = end;
            }
            in_flight[i] += end_hi[d] - ack_hi[1 - d];
            if ack[i] > ack_hi[d] {
                ack_hi[d] = ack[i];
            }
        }
    }
    let flags = uints(r, n, "packets.flags", false)?;
    let packets = PacketColumns { t, dir, frame, seq, len, wire_len, ack, win, in_flight, flags };
    // SACK blocks: not drawn from the view engine; read past.
    let st = numbers(r, None, "sack.t", None)?;
    let sdir = raw_bytes(r, st.len(), "sack.dir")?;
    numbers(r, Some(st.len()), "sack.left", Some(&sdir))?;
    numbers(r, Some(st.len()), "sack.right", Some(&sdir))?;
    let rtt = read_rtt(r, &packets)?;
    Ok(Legacy { meta, packets, rtt })
}

/// rttColumns.ts: each sample refers to the answering packet and the measured one.
fn read_rtt(r: &mut Reader, p: &PacketColumns) -> Result<Rtt, DecodeError> {
    let n = count(r, None, "rtt")?;
    let mut tags = Vec::with_capacity(n);
    for _ in 0..n {
        tags.push(uvarint(r, "rtt")?);
    }
    let matched = tags.iter().filter(|&&t| t != 0).count();
    let mut residuals = Vec::with_capacity(matched);
    for _ in 0..matched {
        residuals.push(unzigzag(uvarint(r, "rtt")?));
    }
    let explicit_t = numbers(r, Some(n - matched), "rtt.t", None)?;
    let explicit_ms = numbers(r, Some(n - matched), "rtt.rttMs", None)?;
    let dir = raw_bytes(r, n, "rtt.dir")?;
    let kind = raw_bytes(r, n, "rtt.kind")?;
    let q: Vec<f64> = p.t.iter().map(|t| (t * 1e6).round()).collect();
    let mut ending_at: [HashMap<u64, usize>; 2] = [HashMap::new(), HashMap::new()];
    for i in 0..p.t.len() {
        if p.len[i] > 0 {
            ending_at[(p.dir[i] & 1) as usize].insert((p.seq[i] + p.len[i] as f64).to_bits(), i);
        }
    }
    let mut out = Rtt { dir, kind, ..Default::default() };
    let (mut previous, mut m, mut e) = (0i64, 0usize, 0usize);
    for (i, &tag) in tags.iter().enumerate() {
        if tag == 0 {
            out.t.push(explicit_t[e]);
            out.rtt_ms.push(explicit_ms[e]);
            e += 1;
            continue;
        }
        let answer = previous.saturating_add(unzigzag(tag - 1));
        let in_table = |row: i64| row >= 0 && (row as usize) < p.t.len();
        if !in_table(answer) {
            return Err(r.fail("an RTT sample refers to a packet that is not in the snapshot"));
        }
        let guess = ending_at[(out.dir[i] & 1) as usize].get(&p.ack[answer as usize].to_bits()).map_or(answer, |&g| g as i64);
        let measured = guess.saturating_sub(residuals[m]);
        m += 1;
        if !in_table(measured) {
            return Err(r.fail("an RTT sample refers to a packet that is not in the snapshot"));
        }
        out.t.push(p.t[answer as usize]);
        out.rtt_ms.push((q[answer as usize] - q[measured as usize]) / 1000.0);
        previous = answer;
    }
    Ok(out)
}

fn cause(name: &str) -> StallCause {
    match name {
        "zero-window" => StallCause::ZeroWindow,
        "window-limited" => StallCause::WindowLimited,
        "retransmission-timeout" => StallCause::RetransmissionTimeout,
        "application-idle" => StallCause::ApplicationIdle,
        "ack-wait" => StallCause::AckWait,
        "delayed-ack" => StallCause::DelayedAck,
        "loss-recovery" => StallCause::LossRecovery,
        "tail-loss-probe" => StallCause::TailLossProbe,
        _ => StallCause::Unknown,
    }
}

/// The summary's stalls of `dir` as the analysis's own type.
fn stalls(meta: &Meta, dir: u8) -> Vec<Stall> {
    let list = meta.summary()["directions"][dir as usize]["stalls"].as_array().cloned().unwrap_or_default();
    list.iter()
        .map(|s| Stall {
            start: s["start"].as_f64().unwrap_or(0.0),
            duration: s["duration"].as_f64().unwrap_or(0.0),
            cause: cause(s["cause"].as_str().unwrap_or("")),
            frame_before: s["frameBefore"].as_u64().unwrap_or(0) as u32,
            frame_after: s["frameAfter"].as_u64().unwrap_or(0) as u32,
            ended_by: s["endedBy"].as_str().unwrap_or("").to_string(),
        })
        .collect()
}

/// A series of direction `dir` from the packets, as view/sources.rs defines it.
pub fn entry(l: &Legacy, series: Series, dir: u8) -> Result<Entry, String> {
    let p = &l.packets;
    let rows = 0..p.t.len();
    let lag_s = l.meta.summary()["directions"][dir as usize]["senderLagMs"].as_f64().unwrap_or(0.0) / 1e3;
    Ok(match series {
        Series::Throughput | Series::Wire | Series::Goodput => {
            let (mut t, mut cum) = (Vec::new(), vec![0u64]);
            let mut highest: Option<f64> = None;
            for i in rows {
                let bytes = match series {
                    Series::Throughput if p.dir[i] == dir && p.len[i] > 0 => p.len[i] as u64,
                    Series::Wire if p.dir[i] == dir => p.wire_len[i] as u64,
                    Series::Goodput if p.dir[i] != dir && p.ack[i].is_finite() => match highest {
                        None => {
                            highest = Some(p.ack[i]);
                            continue;
                        }
                        Some(h) if p.ack[i] > h => {
                            highest = Some(p.ack[i]);
                            (p.ack[i] - h) as u64
                        }
                        _ => continue,
                    },
                    _ => continue,
                };
                t.push(p.t[i]);
                let last = cum[cum.len() - 1];
                cum.push(last.saturating_add(bytes));
            }
            Entry::Rates { cum: CumColumn { t: Times::owned(t), cum }, stored: None }
        }
        Series::Inflight | Series::Rwnd | Series::Sequence | Series::Ack | Series::WindowEdge => {
            let (mut t, mut v) = (Vec::new(), Vec::new());
            for i in rows {
                let x = match series {
                    Series::Inflight if p.dir[i] == dir => p.in_flight[i],
                    Series::Sequence if p.dir[i] == dir && p.len[i] > 0 => p.seq[i],
                    Series::Rwnd if p.dir[i] != dir && p.flags[i] & SYN as u32 == 0 => p.win[i],
                    Series::Ack if p.dir[i] != dir => p.ack[i],
                    Series::WindowEdge if p.dir[i] != dir && p.flags[i] & SYN as u32 == 0 => p.ack[i] + p.win[i],
                    _ => f64::NAN,
                };
                if x.is_finite() {
                    t.push(p.t[i]);
                    v.push(x);
                }
            }
            let markers = (series == Series::Sequence).then(|| {
                let mut m = MarkerColumn::default();
                for i in 0..p.t.len() {
                    if p.dir[i] == dir && p.len[i] > 0 && p.flags[i] & MARKER_FLAGS != 0 {
                        m.t.push(p.t[i]);
                        m.v.push(p.seq[i]);
                        m.flags.push(p.flags[i]);
                        m.frame.push(p.frame[i]);
                    }
                }
                (sorted(m), None)
            });
            Entry::Points { col: PointColumn::new(t, v), counts: None, markers, total: None }
        }
        Series::Rtt => {
            // Format 1 stored the measured part; the engine draws full round trips
            // (+ the other part, `rtt.offsetMs`, when the summary has it). Such a link
            // predates analysis/timing/round_trips.rs's latest-sample rule and may hold one
            // direction's samples only: its constant offset is what its page drew.
            let offset = l.meta.summary()["directions"][dir as usize]["rtt"]["offsetMs"].as_f64().unwrap_or(0.0);
            let (mut t, mut v, mut m) = (Vec::new(), Vec::new(), MarkerColumn::default());
            for i in 0..l.rtt.t.len() {
                if l.rtt.dir[i] != dir || !l.rtt.rtt_ms[i].is_finite() {
                    continue;
                }
                if l.rtt.kind[i] & 2 == 0 {
                    t.push(l.rtt.t[i]);
                    v.push(l.rtt.rtt_ms[i] + offset);
                } else {
                    m.t.push(l.rtt.t[i]);
                    m.v.push(l.rtt.rtt_ms[i] + offset);
                    m.flags.push(l.rtt.kind[i] as u32);
                    m.frame.push(0);
                }
            }
            Entry::Points { col: PointColumn::new(t, v), counts: None, markers: Some((sorted(m), None)), total: None }
        }
        Series::WindowLimited => {
            let (spans, active) = diagnosis_shares::window_limited_spans(p, dir, &stalls(&l.meta, dir), lag_s, false);
            Entry::Spans { list: SpanList::new(spans, Vec::new()), total: None, active: Some(active) }
        }
        Series::Stalls => return Err("stalls come from the summary".into()),
        Series::Pipe | Series::Retransmissions | Series::DuplicateAcks | Series::ZeroWindows | Series::Wifi | Series::CeMarks | Series::Ece | Series::Cwr | Series::Ecn | Series::SenderInflight | Series::MptcpData => {
            return Err("first-round links do not hold this series".into())
        }
    })
}

/// Markers by time (a capture's clock may step back; m4::markers searches by time).
fn sorted(m: MarkerColumn) -> MarkerColumn {
    if m.t.windows(2).all(|w| w[0] <= w[1]) {
        return m;
    }
    let mut order: Vec<usize> = (0..m.t.len()).collect();
    order.sort_by(|&a, &b| m.t[a].total_cmp(&m.t[b]));
    MarkerColumn {
        t: order.iter().map(|&i| m.t[i]).collect(),
        v: order.iter().map(|&i| m.v[i]).collect(),
        flags: order.iter().map(|&i| m.flags[i]).collect(),
        frame: order.iter().map(|&i| m.frame[i]).collect(),
    }
}
