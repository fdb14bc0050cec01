// Pure numeric helpers over the typed-array columns of web/model/types.ts:
// direction selection, time binning (throughput, wire rate, goodput), moving average,
// nearest-point lookup and min/max decimation for drawing dense series.
// No DOM, no D3: everything here is unit-tested with exact numbers (series.test.ts).

import type { PacketColumns } from './types';

export type Dir = 0 | 1;
export const peerOf = (d: Dir): Dir => (d === 0 ? 1 : 0);

type Num = ArrayLike<number>;

/** Row indices (capture order) of packets sent in direction `d`, optionally filtered. */
export function rowsOf(p: Pick<PacketColumns, 'dir'>, d: Dir, keep?: (row: number) => boolean): Uint32Array {
  const out: number[] = [];
  for (let i = 0; i < p.dir.length; i++) if (p.dir[i] === d && (!keep || keep(i))) out.push(i);
  return Uint32Array.from(out);
}

/** `src[rows[k]]` for every k, as a Float64Array (so that decimation and bisect see a dense array). */
export function gather(src: Num, rows: ArrayLike<number>): Float64Array {
  const out = new Float64Array(rows.length);
  for (let k = 0; k < rows.length; k++) out[k] = src[rows[k]];
  return out;
}

/** First k in [lo, hi) with t[k] >= x (t sorted ascending; capture order is). */
export function lowerBound(t: Num, x: number, lo = 0, hi = t.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** Index of the element of sorted `t` nearest to x; -1 when t is empty. */
export function nearestIndex(t: Num, x: number): number {
  const n = t.length;
  if (n === 0) return -1;
  const k = lowerBound(t, x);
  if (k === 0) return 0;
  if (k === n) return n - 1;
  return x - t[k - 1] <= t[k] - x ? k - 1 : k;
}

// ---------------------------------------------------------------- binning

/** Rates per time bin. Bin i covers [t0 + i·binSeconds, t0 + (i+1)·binSeconds). */
export interface Bins {
  t0: number;
  binSeconds: number;
  /** bit/s in each bin. */
  bps: Float64Array;
}

export const binStart = (b: Bins, i: number): number => b.t0 + i * b.binSeconds;

/**
 * Sum `bytes[k]` of events at times `t[k]` into bins from t0 to t1 and convert to bit/s
 * (DESIGN.md "Throughput": bytes per bin × 8 / bin length). Events outside [t0, t1] are
 * ignored. E.g. 3 × 1000 B inside the first 100 ms bin → 3000 × 8 / 0.1 = 240 kbit/s.
 */
export function binRate(t: Num, bytes: Num, t0: number, t1: number, binSeconds: number): Bins {
  if (!(binSeconds > 0)) throw new RangeError(`bin size must be positive, got ${binSeconds}`);
  // The epsilon keeps an event exactly on a bin edge (0.3 s / 0.1 s = 2.9999…) in the later bin.
  const binOf = (x: number) => Math.floor((x - t0) / binSeconds + 1e-9);
  const n = Math.max(1, binOf(t1) + 1);
  const bps = new Float64Array(n);
  for (let k = 0; k < t.length; k++) {
    const x = t[k];
    if (!(x >= t0 && x <= t1)) continue;
    const b = binOf(x);
    if (b >= 0 && b < n) bps[b] += bytes[k];
  }
  for (let i = 0; i < n; i++) bps[i] = (bps[i] * 8) / binSeconds;
  return { t0, binSeconds, bps };
}

/**
 * Bytes newly acknowledged for the data sent in direction `d`: every ACK of the reverse
 * direction that raises the highest cumulative ACK seen so far contributes the increase
 * (DESIGN.md "goodput": bytes newly acknowledged by the peer's cumulative ACK). The first
 * ACK only sets the baseline, so a capture starting mid-flow does not count old data.
 * The SYN and FIN each occupy one sequence number; that byte is counted too (negligible).
 */
export function ackedBytes(p: Pick<PacketColumns, 't' | 'dir' | 'ack'>, d: Dir): { t: Float64Array; bytes: Float64Array } {
  const peer = peerOf(d);
  const ts: number[] = [];
  const bs: number[] = [];
  let highest = NaN;
  for (let i = 0; i < p.t.length; i++) {
    if (p.dir[i] !== peer) continue;
    const a = p.ack[i];
    if (Number.isNaN(a)) continue;
    if (Number.isNaN(highest)) { highest = a; continue; }
    if (a > highest) { ts.push(p.t[i]); bs.push(a - highest); highest = a; }
  }
  return { t: Float64Array.from(ts), bytes: Float64Array.from(bs) };
}

export type RateKind = 'payload' | 'wire' | 'goodput';

/** Throughput series of direction `d` (payload, wire or goodput) binned over [t0, t1]. */
export function throughputBins(p: PacketColumns, d: Dir, kind: RateKind, t0: number, t1: number, binSeconds: number): Bins {
  if (kind === 'goodput') {
    const acked = ackedBytes(p, d);
    return binRate(acked.t, acked.bytes, t0, t1, binSeconds);
  }
  const rows = rowsOf(p, d);
  const sizes = kind === 'payload' ? p.len : p.wireLen;
  return binRate(gather(p.t, rows), gather(sizes, rows), t0, t1, binSeconds);
}

/**
 * Centred moving average over `window` samples (clipped at the ends; NaN samples skipped).
 * Centred rather than trailing so that the smoothed curve does not lag the bars it summarises.
 */
export function movingAverage(values: Num, window: number): Float64Array {
  const n = values.length;
  const w = Math.max(1, Math.floor(window));
  const before = Math.floor((w - 1) / 2);
  const after = w - 1 - before;
  const out = new Float64Array(n);
  // Prefix sums over finite values make this O(n) for any window.
  const sum = new Float64Array(n + 1);
  const cnt = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const ok = Number.isFinite(v);
    sum[i + 1] = sum[i] + (ok ? v : 0);
    cnt[i + 1] = cnt[i] + (ok ? 1 : 0);
  }
  for (let i = 0; i < n; i++) {
    const lo = Math.max(0, i - before);
    const hi = Math.min(n, i + after + 1);
    const c = cnt[hi] - cnt[lo];
    out[i] = c > 0 ? (sum[hi] - sum[lo]) / c : NaN;
  }
  return out;
}

// ---------------------------------------------------------------- decimation

/**
 * Indices of the points of (t, y) worth drawing in the time window [x0, x1] on a plot
 * `pixels` columns wide. With few points, every point in the window is kept; otherwise,
 * per pixel column, the first, minimum, maximum and last point (the "M4" variant of
 * min/max decimation), so that a line or step drawn through the kept points covers
 * exactly the same pixels as one drawn through all of them. One point either side of
 * the window is kept so lines run to the plot edges. NaN y values are skipped.
 * `t` must be sorted ascending. Result is ascending.
 */
export function decimateMinMax(t: Num, y: Num, x0: number, x1: number, pixels: number): Uint32Array {
  const n = t.length;
  if (n === 0) return new Uint32Array(0);
  const first = Math.max(0, lowerBound(t, x0) - 1);
  const last = Math.min(n - 1, lowerBound(t, x1, first) /* first index with t >= x1 */);
  const cols = Math.max(1, Math.floor(pixels));
  const keep: number[] = [];
  if (last - first + 1 <= 4 * cols || !(x1 > x0)) {
    for (let i = first; i <= last; i++) if (!Number.isNaN(y[i])) keep.push(i);
    return Uint32Array.from(keep);
  }
  const scale = cols / (x1 - x0);
  let col = NaN;
  let cFirst = -1, cMin = -1, cMax = -1, cLast = -1;
  const flush = () => {
    if (cFirst < 0) return;
    // Emit the (up to) four distinct indices in time order.
    const four = [cFirst, cMin, cMax, cLast].sort((a, b) => a - b);
    for (let k = 0; k < 4; k++) if (k === 0 || four[k] !== four[k - 1]) keep.push(four[k]);
  };
  for (let i = first; i <= last; i++) {
    const v = y[i];
    if (Number.isNaN(v)) continue;
    // Points outside the window get their own columns (-1 and cols) so they are kept.
    const c = t[i] < x0 ? -1 : t[i] >= x1 ? cols : Math.min(cols - 1, Math.floor((t[i] - x0) * scale));
    if (c !== col) {
      flush();
      col = c; cFirst = cMin = cMax = cLast = i;
    } else {
      cLast = i;
      if (v < y[cMin]) cMin = i;
      if (v > y[cMax]) cMax = i;
    }
  }
  flush();
  return Uint32Array.from(keep);
}

/**
 * For scatter marks (dots, segment bars): indices of points in [x0, x1] keeping one point
 * per occupied (pixel column, pixel row) cell, where `yPixel(v)` maps a value to its pixel
 * row. Drawing the kept points looks the same as drawing all of them.
 */
export function decimatePixelGrid(t: Num, y: Num, x0: number, x1: number, pixels: number, yPixel: (v: number) => number): Uint32Array {
  const n = t.length;
  const first = lowerBound(t, x0);
  const end = lowerBound(t, x1 + Number.EPSILON * Math.abs(x1) + 1e-12, first);
  if (end - first <= 2 * pixels) {
    const all: number[] = [];
    for (let i = first; i < end && i < n; i++) if (!Number.isNaN(y[i])) all.push(i);
    return Uint32Array.from(all);
  }
  const scale = Math.max(1, Math.floor(pixels)) / (x1 - x0 || 1);
  // t is sorted, so columns only ever increase: a cell (column, row) can only repeat
  // within the current column. Rows seen in the current column are marked in a reused
  // table with a per-column stamp (no hashing, no per-call allocation; this loop runs
  // over every point in view on every pan/zoom frame).
  const keep = new Uint32Array(Math.max(0, end - first));
  let kept = 0;
  let col = NaN;
  let stamp = 0;
  for (let i = first; i < end; i++) {
    const v = y[i];
    if (Number.isNaN(v)) continue;
    const c = Math.floor((t[i] - x0) * scale);
    if (c !== col) { col = c; stamp = nextStamp(); }
    const row = Math.round(yPixel(v)) & 0xffff;
    if (rowStamps[row] !== stamp) { rowStamps[row] = stamp; keep[kept++] = i; }
  }
  return keep.slice(0, kept);
}

const rowStamps = new Uint32Array(65536);
let lastStamp = 0;
function nextStamp(): number {
  if (lastStamp === 0xffffffff) { rowStamps.fill(0); lastStamp = 0; }
  return ++lastStamp;
}

/**
 * A plain function computing exactly what a D3 linear scale with a two-number domain and
 * range computes (d3-scale's normalize, then interpolateNumber), without the scale's
 * indirections: for loops over every point in view (decimatePixelGrid's yPixel).
 */
export function linearMap(domain: readonly [number, number] | number[], range: readonly [number, number] | number[]): (v: number) => number {
  let a = +domain[0], b = +domain[1], r0 = +range[0], r1 = +range[1];
  if (b < a) { [a, b] = [b, a]; [r0, r1] = [r1, r0]; } // as d3's bimap does for a descending domain
  const span = b - a;
  if (!span) {
    const t = Number.isNaN(span) ? NaN : 0.5;
    return () => r0 * (1 - t) + r1 * t;
  }
  return (v) => {
    const t = (v - a) / span;
    return r0 * (1 - t) + r1 * t;
  };
}

// ---------------------------------------------------------------- range extent

const BLOCK = 256;

/** Per-block minimum and maximum of the finite values of `v` (blocks of BLOCK elements). */
interface Blocks { min: Float64Array; max: Float64Array }
const blockCache = new WeakMap<ArrayLike<number>, Blocks>();

function blocksOf(v: Num): Blocks {
  let b = blockCache.get(v);
  if (!b) {
    const n = Math.ceil(v.length / BLOCK);
    b = { min: new Float64Array(n).fill(Infinity), max: new Float64Array(n).fill(-Infinity) };
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (!Number.isFinite(x)) continue;
      const k = (i / BLOCK) | 0;
      if (x < b.min[k]) b.min[k] = x;
      if (x > b.max[k]) b.max[k] = x;
    }
    blockCache.set(v, b);
  }
  return b;
}

/**
 * Minimum and maximum of the finite values v[a..b) ([Infinity, -Infinity] when there are
 * none). Whole blocks of 256 use per-block extremes computed once per array (cached), so
 * a query over a million points visits a few thousand numbers. `v` must not be mutated
 * after the first query.
 */
export function rangeExtent(v: Num, a: number, b: number): [number, number] {
  let lo = Infinity, hi = -Infinity;
  a = Math.max(0, a); b = Math.min(v.length, b);
  const scan = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const x = v[i];
      if (!Number.isFinite(x)) continue;
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  };
  if (b - a < 4 * BLOCK) { scan(a, b); return [lo, hi]; }
  const k0 = Math.ceil(a / BLOCK), k1 = Math.floor(b / BLOCK);
  scan(a, k0 * BLOCK);
  const blocks = blocksOf(v);
  for (let k = k0; k < k1; k++) {
    if (blocks.min[k] < lo) lo = blocks.min[k];
    if (blocks.max[k] > hi) hi = blocks.max[k];
  }
  scan(k1 * BLOCK, b);
  return [lo, hi];
}

/**
 * Vertical intervals [lo, hi] at times t (sequence-graph segments, SACK blocks) merged
 * per pixel column when there are more than two per column in [x0, x1]: each column
 * keeps one interval from its lowest `lo` to its highest `hi`, at the time of its first
 * interval. Adjacent segments of a steady transfer overlap on screen anyway, so the
 * picture is the same with at most `pixels` bars. Returns indices when not merging.
 */
export function mergeIntervalsPerColumn(
  t: Num, lo: Num, hi: Num, x0: number, x1: number, pixels: number,
): { merged: false; idx: Uint32Array } | { merged: true; t: Float64Array; lo: Float64Array; hi: Float64Array } {
  const first = lowerBound(t, x0);
  const end = lowerBound(t, x1 + 1e-12, first);
  const cols = Math.max(1, Math.floor(pixels));
  if (end - first <= 2 * cols || !(x1 > x0)) {
    const idx = new Uint32Array(end - first);
    for (let k = 0; k < idx.length; k++) idx[k] = first + k;
    return { merged: false, idx };
  }
  const scale = cols / (x1 - x0);
  const ts: number[] = [], los: number[] = [], his: number[] = [];
  let col = -1;
  for (let i = first; i < end; i++) {
    const c = Math.min(cols - 1, Math.floor((t[i] - x0) * scale));
    if (c !== col) { col = c; ts.push(t[i]); los.push(lo[i]); his.push(hi[i]); continue; }
    const k = ts.length - 1;
    if (lo[i] < los[k]) los[k] = lo[i];
    if (hi[i] > his[k]) his[k] = hi[i];
  }
  return { merged: true, t: Float64Array.from(ts), lo: Float64Array.from(los), hi: Float64Array.from(his) };
}
