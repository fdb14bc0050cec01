// Per-chart series derived from one connection's columns (web/model/types.ts):
// receive window and window-limited spans, zero windows, sequence-graph marks, RTT
// samples, inter-packet gaps and their log histogram, stalls at a chosen threshold.
// Pure functions; the charts only map these to pixels.

import { FLAG, type ConnectionData, type PacketColumns, type Stall } from './types';
import { gather, peerOf, rowsOf, type Dir } from './series';

/** Rows plus their times, ready for bisect/decimation. */
export interface RowSeries {
  rows: Uint32Array;
  t: Float64Array;
}

function series(p: PacketColumns, rows: Uint32Array): RowSeries {
  return { rows, t: gather(p.t, rows) };
}

export const RETRANSMITTED = FLAG.RETRANSMISSION | FLAG.FAST_RETRANSMISSION | FLAG.SPURIOUS_RETRANSMISSION;

// ---------------------------------------------------------------- window

/**
 * Multiplier applied to the raw window column when the peer's scale is unknown. The win
 * column is already scaled when the scale is known; otherwise it is the raw field, and
 * the analysis may infer a lower bound 2^N from bytes in flight (DESIGN.md "Advertised
 * receive window"); drawing raw × 2^N shows that lower bound.
 */
export function windowMultiplier(data: ConnectionData, d: Dir): number {
  const peer = data.summary.directions[peerOf(d)];
  if (!peer.windowScaleUnknown) return 1;
  return 2 ** (peer.windowScaleLowerBound ?? 0);
}

export interface WindowSeries extends RowSeries {
  /** Advertised receive window in bytes (after `multiplier`), one per reverse packet. */
  win: Float64Array;
  multiplier: number;
  scaleUnknown: boolean;
  lowerBoundShift: number | null;
}

/** The peer's advertised window as seen by the data sender of direction `d`. */
export function receiveWindow(data: ConnectionData, d: Dir): WindowSeries {
  const p = data.packets;
  const rows = rowsOf(p, peerOf(d), (i) => Number.isFinite(p.win[i]));
  const multiplier = windowMultiplier(data, d);
  const win = gather(p.win, rows);
  if (multiplier !== 1) for (let k = 0; k < win.length; k++) win[k] *= multiplier;
  const peer = data.summary.directions[peerOf(d)];
  return { ...series(p, rows), win, multiplier, scaleUnknown: peer.windowScaleUnknown, lowerBoundShift: peer.windowScaleLowerBound };
}

/** Data segments of direction `d` that carry a bytes-in-flight value. */
export function inFlightSeries(p: PacketColumns, d: Dir): RowSeries & { inFlight: Float64Array } {
  const rows = rowsOf(p, d, (i) => !Number.isNaN(p.inFlight[i]));
  return { ...series(p, rows), inFlight: gather(p.inFlight, rows) };
}

/** Median payload of the data segments (the sender's usual segment size, robust to GRO/TSO outliers). */
export function typicalSegmentSize(p: PacketColumns, d: Dir): number {
  const lens: number[] = [];
  const step = Math.max(1, Math.floor(p.len.length / 4096));
  for (let i = 0; i < p.len.length; i += step) if (p.dir[i] === d && p.len[i] > 0) lens.push(p.len[i]);
  if (lens.length === 0) return 0;
  lens.sort((a, b) => a - b);
  return lens[lens.length >> 1];
}

/**
 * Time spans during which bytes in flight had reached the advertised window: a data
 * segment is window-limited when another full segment would not have fit
 * (inFlight + typical segment > rwnd), when it carries Wireshark's "window full" flag,
 * or when the window is zero. A span runs from the first limited segment to the next
 * segment that is not limited (or to the last limited one at the end of the data).
 * Not computed when the scale is unknown and no lower bound was inferred, because the
 * raw window would make every segment look limited.
 */
export function windowLimitedSpans(data: ConnectionData, d: Dir): [number, number][] {
  const p = data.packets;
  const peer = peerOf(d);
  const s = data.summary.directions[peer];
  if (s.windowScaleUnknown && s.windowScaleLowerBound == null) return [];
  const mult = windowMultiplier(data, d);
  const smss = typicalSegmentSize(p, d);
  const spans: [number, number][] = [];
  let rwnd = NaN;
  let start = NaN;
  let lastLimited = NaN;
  for (let i = 0; i < p.t.length; i++) {
    if (p.dir[i] === peer) {
      if (Number.isFinite(p.win[i])) rwnd = p.win[i] * mult;
      continue;
    }
    const f = p.inFlight[i];
    if (Number.isNaN(f)) continue;
    const limited = (p.flags[i] & FLAG.WINDOW_FULL) !== 0 || (Number.isFinite(rwnd) && (rwnd === 0 || f + smss > rwnd));
    if (limited) {
      if (Number.isNaN(start)) start = p.t[i];
      lastLimited = p.t[i];
    } else if (!Number.isNaN(start)) {
      spans.push([start, p.t[i]]);
      start = NaN;
    }
  }
  if (!Number.isNaN(start)) spans.push([start, lastLimited]);
  return spans;
}

/** Packets of the peer (receiver of direction `d`) advertising a zero window. */
export function zeroWindowRows(p: PacketColumns, d: Dir): RowSeries {
  return series(p, rowsOf(p, peerOf(d), (i) => (p.flags[i] & FLAG.ZERO_WINDOW) !== 0));
}

// ---------------------------------------------------------------- sequence graph

export interface SequenceSeries {
  /** Data segments (payload > 0) not flagged as retransmissions, and those that are. */
  segments: RowSeries;
  retransmissions: RowSeries;
  /** Reverse-direction packets with an ACK: the cumulative ACK and the window edge ack + win. */
  acks: RowSeries & { ack: Float64Array; edge: Float64Array };
  duplicateAcks: RowSeries & { ack: Float64Array };
  /** SACK blocks sent by the receiver, in the data sender's sequence space. */
  sack: { t: Float64Array; left: Float64Array; right: Float64Array };
}

export function sequenceSeries(data: ConnectionData, d: Dir): SequenceSeries {
  const p = data.packets;
  const peer = peerOf(d);
  const mult = windowMultiplier(data, d);
  const isData = (i: number) => p.len[i] > 0;
  const segments = series(p, rowsOf(p, d, (i) => isData(i) && (p.flags[i] & RETRANSMITTED) === 0));
  const retransmissions = series(p, rowsOf(p, d, (i) => isData(i) && (p.flags[i] & RETRANSMITTED) !== 0));
  const ackRows = rowsOf(p, peer, (i) => !Number.isNaN(p.ack[i]));
  const ack = gather(p.ack, ackRows);
  const edge = new Float64Array(ackRows.length);
  for (let k = 0; k < ackRows.length; k++) edge[k] = ack[k] + p.win[ackRows[k]] * mult; // NaN win → gap in line
  const dupRows = rowsOf(p, peer, (i) => (p.flags[i] & FLAG.DUPLICATE_ACK) !== 0 && !Number.isNaN(p.ack[i]));
  const sk = data.sack;
  const sackIdx: number[] = [];
  for (let i = 0; i < sk.t.length; i++) if (sk.dir[i] === peer) sackIdx.push(i);
  return {
    segments,
    retransmissions,
    acks: { ...series(p, ackRows), ack, edge },
    duplicateAcks: { ...series(p, dupRows), ack: gather(p.ack, dupRows) },
    sack: { t: gather(sk.t, sackIdx), left: gather(sk.left, sackIdx), right: gather(sk.right, sackIdx) },
  };
}

// ---------------------------------------------------------------- RTT

export interface RttSeries {
  /** Indices into data.rtt of the samples for data sent in direction d. */
  idx: Uint32Array;
  t: Float64Array;
  rttMs: Float64Array;
  kind: Uint8Array;
  minMs: number | null;
}

export function rttSeries(data: ConnectionData, d: Dir): RttSeries {
  const r = data.rtt;
  const idx: number[] = [];
  for (let i = 0; i < r.t.length; i++) if (r.dir[i] === d && Number.isFinite(r.rttMs[i])) idx.push(i);
  const rttMs = gather(r.rttMs, idx);
  let min = Infinity;
  for (const v of rttMs) if (v < min) min = v;
  const kind = new Uint8Array(idx.length);
  idx.forEach((i, k) => (kind[k] = r.kind[i]));
  return {
    idx: Uint32Array.from(idx), t: gather(r.t, idx), rttMs, kind,
    minMs: data.summary.directions[d].rtt.minMs ?? (Number.isFinite(min) ? min : null),
  };
}

// ---------------------------------------------------------------- gaps and stalls

/** Time between consecutive packets of direction `d`, with the frame after each gap. */
export function interPacketGaps(p: PacketColumns, d: Dir): { gap: Float64Array; tEnd: Float64Array; rowAfter: Uint32Array } {
  const rows = rowsOf(p, d);
  const n = Math.max(0, rows.length - 1);
  const gap = new Float64Array(n), tEnd = new Float64Array(n), rowAfter = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    gap[k] = p.t[rows[k + 1]] - p.t[rows[k]];
    tEnd[k] = p.t[rows[k + 1]];
    rowAfter[k] = rows[k + 1];
  }
  return { gap, tEnd, rowAfter };
}

export interface LogBin { x0: number; x1: number; count: number }

/**
 * Histogram on logarithmic bins, `perDecade` bins per power of ten, from the decade of
 * the smallest positive value (but not below `floor`) to the decade above the largest.
 * Values below the first edge (including zero gaps from coarse capture clocks) fall
 * into the first bin.
 */
export function logHistogram(values: ArrayLike<number>, perDecade = 5, floor = 1e-6): LogBin[] {
  let min = Infinity, max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v > 0 && v < min) min = v;
    if (v > max) max = v;
  }
  if (!(max > 0)) return [];
  const lo = Math.floor(Math.log10(Math.max(min, floor)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(max) + 1e-12));
  const nBins = (hi - lo) * perDecade;
  const bins: LogBin[] = [];
  for (let b = 0; b < nBins; b++) bins.push({ x0: 10 ** (lo + b / perDecade), x1: 10 ** (lo + (b + 1) / perDecade), count: 0 });
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!(v >= 0)) continue;
    const b = v <= 0 ? 0 : Math.floor((Math.log10(v) - lo) * perDecade + 1e-9);
    bins[Math.min(nBins - 1, Math.max(0, b))].count++;
  }
  return bins;
}

const log10Cache = new WeakMap<Float64Array, Float64Array>();

/** Math.log10 of every element, computed once per array (the array must not change). */
function log10Of(values: Float64Array): Float64Array {
  let logs = log10Cache.get(values);
  if (!logs) {
    logs = new Float64Array(values.length);
    for (let i = 0; i < values.length; i++) logs[i] = Math.log10(values[i]);
    log10Cache.set(values, logs);
  }
  return logs;
}

/**
 * `logHistogram(values.subarray(a, b), perDecade, floor)`, the same bins and counts, but
 * with the logarithms of `values` computed once per array and reused by later calls (the
 * gap histogram is redrawn for every visible range while panning and zooming).
 */
export function logHistogramRange(values: Float64Array, a: number, b: number, perDecade = 5, floor = 1e-6): LogBin[] {
  a = Math.max(0, a); b = Math.min(values.length, b);
  let min = Infinity, max = -Infinity;
  for (let i = a; i < b; i++) {
    const v = values[i];
    if (v > 0 && v < min) min = v;
    if (v > max) max = v;
  }
  if (!(max > 0)) return [];
  const logs = log10Of(values);
  const lo = Math.floor(Math.log10(Math.max(min, floor)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(max) + 1e-12));
  const nBins = (hi - lo) * perDecade;
  const counts = new Float64Array(nBins);
  for (let i = a; i < b; i++) {
    const v = values[i];
    if (!(v >= 0)) continue;
    const k = v <= 0 ? 0 : Math.floor((logs[i] - lo) * perDecade + 1e-9);
    counts[Math.min(nBins - 1, Math.max(0, k))]++;
  }
  const bins: LogBin[] = [];
  for (let k = 0; k < nBins; k++) bins.push({ x0: 10 ** (lo + k / perDecade), x1: 10 ** (lo + (k + 1) / perDecade), count: counts[k] });
  return bins;
}

/**
 * The threshold the decoder's stalls were found with (summary.stallThresholdMs), else the
 * DESIGN.md default: the larger of 10 ms and 4 × the minimum RTT.
 */
export function defaultStallSeconds(data: ConnectionData, d: Dir): number {
  const reported = data.summary.stallThresholdMs;
  if (reported != null && reported > 0) return reported / 1000;
  const minMs = data.summary.directions[d].rtt.minMs;
  return Math.max(0.01, minMs != null ? (4 * minMs) / 1000 : 0);
}

/**
 * Stalls of direction `d` at a user-chosen threshold. The decoder classified the stalls
 * at its own threshold (summary.directions[d].stalls); those at least `thresholdSeconds`
 * long are kept as they are. Gaps between packets of the direction that exceed the
 * threshold but were not reported (a threshold lower than the decoder's) are added with
 * cause "unknown", since classifying them needs the decoder's sequence state.
 */
export function stallsAtThreshold(data: ConnectionData, d: Dir, thresholdSeconds?: number): Stall[] {
  const reported = data.summary.directions[d].stalls;
  if (thresholdSeconds == null) return reported;
  const kept = reported.filter((s) => s.duration >= thresholdSeconds);
  const p = data.packets;
  const { gap, tEnd, rowAfter } = interPacketGaps(p, d);
  const extra: Stall[] = [];
  for (let k = 0; k < gap.length; k++) {
    if (!(gap[k] >= thresholdSeconds)) continue;
    const start = tEnd[k] - gap[k];
    // Overlap by more than 1 µs (capture timestamp resolution), so touching gaps are distinct.
    const known = reported.some((s) => s.start < tEnd[k] - 1e-6 && s.start + s.duration > start + 1e-6);
    if (known) continue;
    const before = rowsBefore(p, rowAfter[k], d);
    extra.push({
      start, duration: gap[k], cause: 'unknown',
      frameBefore: before >= 0 ? p.frame[before] : 0, frameAfter: p.frame[rowAfter[k]],
      endedBy: 'below the decoder’s stall threshold: not classified',
    });
  }
  return [...kept, ...extra].sort((a, b) => a.start - b.start);
}

function rowsBefore(p: PacketColumns, row: number, d: Dir): number {
  for (let i = row - 1; i >= 0; i--) if (p.dir[i] === d) return i;
  return -1;
}
