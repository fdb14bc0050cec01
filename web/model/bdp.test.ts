import { describe, expect, it } from 'vitest';
import { KiB, seedFromEvidence } from './bdp';
import type { DiagnosisEvidence } from './types';

describe('seedFromEvidence: the calculator starts from the numbers the headline used', () => {
  const evidence = (over: Partial<DiagnosisEvidence> = {}): DiagnosisEvidence => ({
    rttMs: 2.8, windowBytes: 65536, windowInferred: false, rateBps: 169e6, capBps: (65536 * 8) / 0.0028,
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
