import { describe, expect, it } from 'vitest';
import { KiB, MiB, WINDOW_SIZES, attainable, bdp, cap, inputVerdict, seedFromEvidence, windowFor, windowTable } from './bdp';
import { formatBitrate } from './format';
import type { DiagnosisEvidence } from './types';

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

describe('seedFromEvidence: the calculator starts from the numbers the headline used', () => {
  const evidence = (over: Partial<DiagnosisEvidence> = {}): DiagnosisEvidence => ({
    rttMs: 2.8, windowBytes: 65536, windowInferred: false, rateBps: 169e6, capBps: cap(65536, 0.0028),
    linkRateBps: null, verdict: 'window', ...over,
  });

  it('window-limited: path RTT, the window, and the sustained rate as the link (the window hides the link)', () => {
    expect(seedFromEvidence(evidence())).toEqual({
      rttMs: 2.8, rttS: 0.0028, windowBytes: 65536, windowInferred: false, linkBps: 169e6, linkIsSustainedRate: true, rateBps: 169e6, verdict: 'window',
    });
  });

  it('path-limited: the diagnosis\'s link estimate', () => {
    const s = seedFromEvidence(evidence({ linkRateBps: 37e6, rateBps: 36e6, verdict: 'link' }));
    expect(s.linkBps).toBe(37e6);
    expect(s.linkIsSustainedRate).toBe(false);
    expect(s.verdict).toBe('link');
  });

  it('unknown scale: the inferred lower bound is kept as such', () => {
    const s = seedFromEvidence(evidence({ windowBytes: 512 * KiB, windowInferred: true }));
    expect(s.windowBytes).toBe(512 * KiB);
    expect(s.windowInferred).toBe(true);
  });

  it('no path RTT, no evidence', () => {
    expect(seedFromEvidence(evidence({ rttMs: null, verdict: 'unknown' })).rttS).toBeNull();
    expect(seedFromEvidence(evidence({ rttMs: 0 })).rttS).toBeNull();
    expect(seedFromEvidence(null)).toEqual({
      rttMs: null, rttS: null, windowBytes: null, windowInferred: false, linkBps: null, linkIsSustainedRate: false, rateBps: null, verdict: 'unknown',
    });
  });
});

describe('inputVerdict', () => {
  it('the window when its cap is below the link rate, else the link', () => {
    expect(inputVerdict(64 * KiB, RTT, LINK)).toBe('window'); // 187 < 533 Mbit/s
    expect(inputVerdict(256 * KiB, RTT, LINK)).toBe('link'); // 749 > 533 Mbit/s
    expect(inputVerdict(null, RTT, LINK)).toBe('unknown');
    expect(inputVerdict(64 * KiB, null, LINK)).toBe('unknown');
    expect(inputVerdict(64 * KiB, RTT, null)).toBe('unknown');
  });
});
