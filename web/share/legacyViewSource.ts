// TEMPORARY BRIDGE — removed by issue 15 (snapshots that hold view answers).
//
// A shared snapshot still carries one connection's per-packet columns (columns.ts),
// not view answers, and there is no capture for the engine to analyse. This source
// answers the charts' questions from those columns so shared links and embeds keep
// working until issue 15 lands: M4 per pixel column and bins on the file grid (the
// rules of wasm/src/view/m4.rs and rates.rs), the summary's stalls, and no
// window-limited spans (their rule lives in Rust only; the chart says so). Nothing
// else uses it: a capture's charts always ask the Rust engine.
import { FLAG, type ConnectionData } from '../model/types';
import type { Series, ViewAt } from '../worker/generated/view';
import type { ViewAnswer, ViewHeader, PackedMarkers, PackedPoints } from '../worker/viewAnswer';
import type { ViewAtQuery, ViewQuery, ViewSource } from '../worker/viewSource';

const MARKED = FLAG.RETRANSMISSION | FLAG.FAST_RETRANSMISSION | FLAG.SPURIOUS_RETRANSMISSION | FLAG.LOST_SEGMENT | FLAG.OUT_OF_ORDER;
const BINS_PER_COLUMN = 4;

type Cols = { t: number[]; v: number[]; flags?: number[] };

/** The points of a series, in time order (view/sources.rs `points`). */
function pointsOf(data: ConnectionData, series: Series, dir: number, marked: boolean): Cols {
  const out: Cols = { t: [], v: [], flags: [] };
  if (series === 'rtt') {
    const r = data.rtt;
    const offset = 'offsetMs' in data.summary.directions[dir].rtt ? data.summary.directions[dir].rtt.offsetMs ?? 0 : 0;
    for (let i = 0; i < r.t.length; i++) {
      if (r.dir[i] !== dir || ((r.kind[i] & 2) !== 0) !== marked) continue;
      out.t.push(r.t[i]); out.v.push(r.rttMs[i] + offset); out.flags!.push(r.kind[i]);
    }
    return out;
  }
  const p = data.packets;
  for (let i = 0; i < p.t.length; i++) {
    const own = p.dir[i] === dir;
    const syn = (p.flags[i] & FLAG.SYN) !== 0;
    let v = NaN;
    if (series === 'inflight' && own) v = p.inFlight[i];
    else if (series === 'sequence' && own && p.len[i] > 0 && (!marked || (p.flags[i] & MARKED) !== 0)) v = p.seq[i];
    else if (series === 'rwnd' && !own && !syn) v = p.win[i];
    else if (series === 'ack' && !own) v = p.ack[i];
    else if (series === 'windowEdge' && !own && !syn) v = p.ack[i] + p.win[i];
    if (Number.isFinite(v)) { out.t.push(p.t[i]); out.v.push(v); out.flags!.push(p.flags[i]); }
  }
  return out;
}

const lowerBound = (t: number[], x: number) => { let lo = 0, hi = t.length; while (lo < hi) { const m = (lo + hi) >>> 1; if (t[m] < x) lo = m + 1; else hi = m; } return lo; };
const upperBound = (t: number[], x: number) => { let lo = 0, hi = t.length; while (lo < hi) { const m = (lo + hi) >>> 1; if (t[m] <= x) lo = m + 1; else hi = m; } return lo; };
const edge = (t0: number, t1: number, columns: number, c: number) => (c >= columns ? t1 : t0 + (t1 - t0) * (c / columns));

/** Per pixel column [lo, hi) row ranges of [t0, t1] (view/m4.rs). */
function columnsOf(t: number[], t0: number, t1: number, columns: number, each: (c: number, lo: number, hi: number) => void) {
  const end = upperBound(t, t1);
  let lo = lowerBound(t, t0);
  for (let c = 0; c < columns && lo < end; c++) {
    const hi = c + 1 === columns ? end : Math.min(end, Math.max(lo, lowerBound(t, edge(t0, t1, columns, c + 1))));
    if (hi > lo) each(c, lo, hi);
    lo = hi;
  }
}

function m4(s: Cols, t0: number, t1: number, columns: number): PackedPoints {
  const acc = { column: [] as number[], count: [] as number[], tFirst: [] as number[], first: [] as number[], tLast: [] as number[], last: [] as number[], min: [] as number[], max: [] as number[] };
  columnsOf(s.t, t0, t1, columns, (c, lo, hi) => {
    let mn = Infinity, mx = -Infinity;
    for (let i = lo; i < hi; i++) { mn = Math.min(mn, s.v[i]); mx = Math.max(mx, s.v[i]); }
    acc.column.push(c); acc.count.push(hi - lo); acc.tFirst.push(s.t[lo]); acc.first.push(s.v[lo]);
    acc.tLast.push(s.t[hi - 1]); acc.last.push(s.v[hi - 1]); acc.min.push(mn); acc.max.push(mx);
  });
  const start = lowerBound(s.t, t0), end = upperBound(s.t, t1);
  return {
    column: Uint32Array.from(acc.column), count: Uint32Array.from(acc.count),
    tFirst: Float64Array.from(acc.tFirst), first: Float64Array.from(acc.first), tLast: Float64Array.from(acc.tLast),
    last: Float64Array.from(acc.last), min: Float64Array.from(acc.min), max: Float64Array.from(acc.max),
    before: start > 0 ? [s.t[start - 1], s.v[start - 1]] : null,
    after: end < s.t.length ? [s.t[end], s.v[end]] : null,
    total: end - start, markers: null,
  };
}

function markers(s: Cols, t0: number, t1: number, columns: number): PackedMarkers {
  const k: number[] = [], count: number[] = [];
  columnsOf(s.t, t0, t1, columns, (_c, lo, hi) => { k.push(lo); count.push(hi - lo); });
  return {
    t: Float64Array.from(k, (i) => s.t[i]), v: Float64Array.from(k, (i) => s.v[i]), flags: Uint32Array.from(k, (i) => s.flags![i]),
    frame: new Uint32Array(k.length), count: Uint32Array.from(count),
  };
}

/** Bytes per bin on the file grid (view/rates.rs), without the moving average's clipping subtleties. */
function bins(data: ConnectionData, series: Series, dir: number, t0: number, t1: number, bin: number) {
  const p = data.packets;
  const k0 = Math.floor(t0 / bin), k1 = Math.max(k0, Math.floor(t1 / bin));
  const bytes = new Float64Array(k1 - k0 + 1);
  let highest = NaN;
  for (let i = 0; i < p.t.length; i++) {
    let b = 0;
    if (series === 'goodput') {
      if (p.dir[i] === dir || Number.isNaN(p.ack[i])) continue;
      if (Number.isNaN(highest)) { highest = p.ack[i]; continue; }
      if (p.ack[i] > highest) { b = p.ack[i] - highest; highest = p.ack[i]; }
    } else if (p.dir[i] === dir) b = series === 'wire' ? p.wireLen[i] : p.len[i];
    const k = Math.floor(p.t[i] / bin);
    if (b > 0 && k >= k0 && k <= k1) bytes[k - k0] += b;
  }
  const bps = bytes.map((x) => (x * 8) / bin);
  const w = Math.max(5, Math.round(1 / bin)), before = Math.floor((w - 1) / 2), after = w - 1 - before;
  const averageBps = bps.map((_, i) => {
    let sum = 0, n = 0;
    for (let j = Math.max(0, i - before); j <= Math.min(bps.length - 1, i + after); j++) { sum += bps[j]; n++; }
    return sum / n;
  });
  return { start: k0 * bin, bytes, bps, averageBps, averageBins: w };
}

export function snapshotViewSource(data: ConnectionData): ViewSource {
  const summary = data.summary;
  const answer = (q: ViewQuery): ViewAnswer => {
    const dir = q.direction ?? summary.dataDirection;
    const columns = Math.min(8192, Math.max(1, Math.floor(q.columns) || 1600));
    const [t0, t1] = q.t0 <= q.t1 ? [q.t0, q.t1] : [q.t1, q.t0];
    const header: ViewHeader = {
      schemaVersion: 1, generation: 0, connection: q.connection, series: q.series, direction: dir, t0, t1, columns,
      binSeconds: null, stallThresholdMs: null, clamped: [], notes: [], error: q.connection === summary.id ? null : `connection ${q.connection} is not in this snapshot`,
    };
    if (header.error) return { ...header, kind: 'none' };
    switch (q.series) {
      case 'throughput': case 'wire': case 'goodput': {
        const asked = q.binSeconds ?? summary.directions[dir].throughput.binSeconds;
        let bin = asked > 0 ? asked : 0.1;
        while ((Math.floor(t1 / bin) - Math.floor(t0 / bin) + 1) > BINS_PER_COLUMN * columns) bin *= 2;
        if (bin !== asked) header.clamped.push(`bin raised to ${bin} s: at most ${BINS_PER_COLUMN} bins per pixel column`);
        return { ...header, binSeconds: bin, kind: 'bins', ...bins(data, q.series, dir, t0, t1, bin) };
      }
      case 'windowLimited':
        return { ...header, kind: 'intervals', intervals: [], more: 0, coverage: null, totalSeconds: 0, activeSeconds: null, notes: ['window-limited spans are not in shared snapshots yet'] };
      case 'stalls': {
        const list = summary.directions[dir].stalls.filter((s) => s.start + s.duration >= t0 && s.start <= t1);
        const intervals = list.map((s) => ({ start: s.start, end: s.start + s.duration, cause: s.cause, frameBefore: s.frameBefore, frameAfter: s.frameAfter, endedBy: s.endedBy }));
        const total = summary.directions[dir].stalls.reduce((a, s) => a + s.duration, 0);
        return { ...header, stallThresholdMs: summary.stallThresholdMs ?? null, kind: 'intervals', intervals, more: 0, coverage: null, totalSeconds: total, activeSeconds: null };
      }
      default: {
        const points = m4(pointsOf(data, q.series, dir, false), t0, t1, columns);
        if (q.series === 'sequence' || q.series === 'rtt') points.markers = markers(pointsOf(data, q.series, dir, true), t0, t1, columns);
        return { ...header, kind: 'points', ...points };
      }
    }
  };
  return {
    query: async (q) => answer(q),
    at: async (q: ViewAtQuery): Promise<ViewAt | null> => {
      const a = answer({ connection: q.connection, series: q.series, direction: q.direction, t0: q.t - 1e-3, t1: q.t + 1e-3, columns: 1 });
      if (a.kind !== 'points' || a.column.length === 0) return null;
      return { generation: 0, found: true, t: a.tFirst[0], tEnd: null, value: a.first[0], bytes: null, cause: null, frameBefore: null, frameAfter: null, error: null };
    },
  };
}
