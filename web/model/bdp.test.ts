import { describe, expect, it } from 'vitest';
import { KiB, MiB, WINDOW_SIZES, attainable, bdp, cap, seedFromSummary, windowFor, windowTable } from './bdp';
import { formatBitrate } from './format';
import type { ConnectionSummary, DirectionSummary } from './types';
import { directionSummary } from '../charts/fixtures';

const RTT = 0.0028; // 2.8 ms
const LINK = 533e6; // iperf over the 802.11ac link

describe('bdp: the 802.11ac write-up (DESIGN.md)', () => {
  it('533 Mbit/s × 2.8 ms = 186,550 bytes', () => {
    expect(bdp(LINK, RTT)).toBe(186_550);
  });

  it('window caps at 2.8 ms: 32 KiB → 94, 64 KiB → 187, 128 KiB → 374 Mbit/s', () => {
    expect(Math.round(cap(32 * KiB, RTT) / 1e6)).toBe(94);
    expect(Math.round(cap(64 * KiB, RTT) / 1e6)).toBe(187);
    expect(Math.round(cap(128 * KiB, RTT) / 1e6)).toBe(374);
    expect(formatBitrate(cap(64 * KiB, RTT))).toBe('187 Mbit/s');
  });

  it('256 KiB reaches the full link rate (capped by 533 Mbit/s)', () => {
    expect(cap(256 * KiB, RTT)).toBeGreaterThan(LINK);
    expect(attainable(256 * KiB, RTT, LINK)).toBe(LINK);
    expect(attainable(64 * KiB, RTT, LINK)).toBe(cap(64 * KiB, RTT));
    expect(windowFor(LINK, RTT)).toBe(256 * KiB); // smallest table size ≥ 186,550 B
  });

  it('table of windows 32 KiB … 16 MiB', () => {
    expect(WINDOW_SIZES.length).toBe(10);
    expect(WINDOW_SIZES[0]).toBe(32 * KiB);
    expect(WINDOW_SIZES[9]).toBe(16 * MiB);
    const rows = windowTable(RTT, LINK);
    expect(rows.map((r) => Math.round(r.rateBps / 1e6)).slice(0, 4)).toEqual([94, 187, 374, 533]);
    expect(rows.map((r) => r.limitedBy)).toEqual(['window', 'window', 'window', ...Array(7).fill('link')]);
    // Without a link rate only the window caps: 16 MiB / 2.8 ms ≈ 47.9 Gbit/s.
    expect(formatBitrate(windowTable(RTT)[9].rateBps)).toBe('48 Gbit/s');
  });
});

describe('seedFromSummary', () => {
  const dir = (over: Partial<DirectionSummary>): DirectionSummary =>
    directionSummary({ from: 'a', to: 'b', windowScale: null, ...over });

  it('takes the sender RTT/rate and the receiver window', () => {
    const s = {
      dataDirection: 1,
      directions: [
        dir({ receiveWindow: { min: 1000, max: 65535 } }),
        dir({ rtt: { minMs: 2.8, medianMs: 3.1 }, throughput: { meanBps: 169e6, peakBps: 186e6, binSeconds: 0.1 } }),
      ],
    } as unknown as ConnectionSummary;
    expect(seedFromSummary(s)).toEqual({ rttS: 0.0028, windowBytes: 65535, rateBps: 169e6, peakBps: 186e6 });
  });
});
