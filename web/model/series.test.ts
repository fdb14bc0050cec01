import { describe, expect, it } from 'vitest';
import {
  ackedBytes, binRate, decimateMinMax, decimatePixelGrid, gather, lowerBound, movingAverage,
  mergeIntervalsPerColumn, nearestIndex, rowsOf, throughputBins,
} from './series';
import { connectionData } from '../charts/fixtures';

describe('binRate', () => {
  it('3 segments of 1000 B in the first 100 ms bin → 240 kbit/s', () => {
    const b = binRate([0.01, 0.02, 0.09], [1000, 1000, 1000], 0, 0.25, 0.1);
    expect(b.bps.length).toBe(3);
    expect(Array.from(b.bps)).toEqual([240_000, 0, 0]);
  });

  it('puts an event exactly on a bin edge into the later bin and ignores events outside', () => {
    const b = binRate([0.3, 0.1, -1, 9], [125, 125, 999, 999], 0, 0.35, 0.1);
    // 125 B × 8 / 0.1 s = 10 kbit/s in bins 1 and 3
    expect(Array.from(b.bps)).toEqual([0, 10_000, 0, 10_000]);
  });

  it('aligns bins to t0 and scales with bin size', () => {
    const b = binRate([5.0005, 5.0015], [1500, 1500], 5, 5.002, 0.001);
    expect(Array.from(b.bps)).toEqual([12_000_000, 12_000_000, 0]);
  });

  it('rejects a non-positive bin', () => {
    expect(() => binRate([], [], 0, 1, 0)).toThrow(RangeError);
  });
});

describe('goodput', () => {
  const data = connectionData({
    rows: [
      { t: 0, dir: 0, seq: 1, len: 1000 },
      { t: 0.01, dir: 1, ack: 1 },        // baseline: nothing newly acknowledged
      { t: 0.02, dir: 1, ack: 1001 },     // +1000
      { t: 0.03, dir: 1, ack: 1001 },     // duplicate: +0
      { t: 0.04, dir: 1, ack: 501 },      // old ACK reordered: +0
      { t: 0.15, dir: 1, ack: 3001 },     // +2000
      { t: 0.16, dir: 1 },                // no ACK flag
    ],
  });

  it('counts increases of the highest cumulative ACK of the reverse direction', () => {
    const a = ackedBytes(data.packets, 0);
    expect(Array.from(a.t)).toEqual([0.02, 0.15]);
    expect(Array.from(a.bytes)).toEqual([1000, 2000]);
  });

  it('bins goodput, payload and wire rates', () => {
    const g = throughputBins(data.packets, 0, 'goodput', 0, 0.16, 0.1);
    expect(Array.from(g.bps)).toEqual([80_000, 160_000]);
    const p = throughputBins(data.packets, 0, 'payload', 0, 0.16, 0.1);
    expect(Array.from(p.bps)).toEqual([80_000, 0]);
    const w = throughputBins(data.packets, 0, 'wire', 0, 0.16, 0.1);
    expect(w.bps[0]).toBeCloseTo(((1000 + 66) * 8) / 0.1, 6);
  });
});

describe('movingAverage', () => {
  it('is centred and clipped at the ends', () => {
    expect(Array.from(movingAverage([3, 6, 9, 12], 3))).toEqual([4.5, 6, 9, 10.5]);
  });
  it('window 1 is the identity; NaN samples are skipped', () => {
    expect(Array.from(movingAverage([1, 2, 3], 1))).toEqual([1, 2, 3]);
    expect(Array.from(movingAverage([2, NaN, 4], 3))).toEqual([2, 3, 4]);
  });
  it('even windows lean right by one sample', () => {
    expect(Array.from(movingAverage([0, 4, 8, 12], 2))).toEqual([2, 6, 10, 12]);
  });
});

describe('lookup', () => {
  it('lowerBound and nearestIndex bisect sorted times', () => {
    const t = [0, 1, 2, 3];
    expect(lowerBound(t, 1.5)).toBe(2);
    expect(nearestIndex(t, 1.4)).toBe(1);
    expect(nearestIndex(t, 1.6)).toBe(2);
    expect(nearestIndex(t, -5)).toBe(0);
    expect(nearestIndex(t, 50)).toBe(3);
    expect(nearestIndex([], 1)).toBe(-1);
  });
  it('rowsOf and gather select a direction', () => {
    const rows = rowsOf({ dir: Uint8Array.from([0, 1, 0, 1]) }, 1);
    expect(Array.from(rows)).toEqual([1, 3]);
    expect(Array.from(gather([10, 11, 12, 13], rows))).toEqual([11, 13]);
  });
});

describe('decimateMinMax', () => {
  it('keeps every point when there are few, plus one either side of the window', () => {
    const t = [0, 1, 2, 3, 4, 5];
    const y = [0, 1, NaN, 3, 4, 5];
    expect(Array.from(decimateMinMax(t, y, 1.5, 3.5, 100))).toEqual([1, 3, 4]);
  });

  it('keeps first, min, max and last per pixel column', () => {
    // 1000 points over [0, 10), 2 pixel columns → columns [0,5) and [5,10).
    const n = 1000;
    const t = Float64Array.from({ length: n }, (_, i) => i / 100);
    const y = Float64Array.from({ length: n }, (_, i) => (i === 123 ? 50 : i === 777 ? -50 : i === 400 ? -7 : i % 10));
    const kept = Array.from(decimateMinMax(t, y, 0, 10, 2));
    // column 0: first 0, min 400 (-7), max 123 (50), last 499; column 1: first 500, min 777, max 509 (first 9), last 999
    expect(kept).toEqual([0, 123, 400, 499, 500, 509, 777, 999]);
  });

  it('bounds the output to about 4 points per pixel for a million points', () => {
    const n = 1_000_000;
    const t = new Float64Array(n), y = new Float64Array(n);
    for (let i = 0; i < n; i++) { t[i] = i * 1e-5; y[i] = Math.sin(i / 1000) * 1000 + (i % 7); }
    const started = performance.now();
    const kept = decimateMinMax(t, y, 0, 10, 800);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(kept.length).toBeLessThanOrEqual(4 * 800 + 2);
    expect(kept.length).toBeGreaterThan(800);
    let max = -Infinity, maxKept = -Infinity;
    for (let i = 0; i < n; i++) max = Math.max(max, y[i]);
    for (const i of kept) maxKept = Math.max(maxKept, y[i]);
    expect(maxKept).toBe(max); // the extremes survive
  });

  it('decimatePixelGrid keeps one point per occupied pixel cell', () => {
    const n = 10_000;
    const t = Float64Array.from({ length: n }, (_, i) => i / n);
    const y = Float64Array.from({ length: n }, (_, i) => i % 2);
    const kept = decimatePixelGrid(t, y, 0, 1, 10, (v) => v * 100);
    expect(kept.length).toBe(20); // 10 columns × 2 rows
  });
});

describe('mergeIntervalsPerColumn', () => {
  it('returns the indices in range when sparse', () => {
    const r = mergeIntervalsPerColumn([0, 1, 2, 3], [0, 10, 20, 30], [10, 20, 30, 40], 0.5, 2.5, 100);
    expect(r.merged).toBe(false);
    if (!r.merged) expect(Array.from(r.idx)).toEqual([1, 2]);
  });
  it('merges a dense run into one bar per pixel column', () => {
    const n = 1000;
    const t = Float64Array.from({ length: n }, (_, i) => i / 1000);   // [0, 1)
    const lo = Float64Array.from({ length: n }, (_, i) => i * 100);
    const hi = Float64Array.from({ length: n }, (_, i) => i * 100 + 100);
    const r = mergeIntervalsPerColumn(t, lo, hi, 0, 1, 4);
    expect(r.merged).toBe(true);
    if (r.merged) {
      expect(Array.from(r.t)).toEqual([0, 0.25, 0.5, 0.75]);
      expect(Array.from(r.lo)).toEqual([0, 25_000, 50_000, 75_000]);
      expect(Array.from(r.hi)).toEqual([25_000, 50_000, 75_000, 100_000]);
    }
  });
});
