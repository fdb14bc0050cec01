// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { connectionData, makeFixture } from './fixtures';
import { drawStalls, stallsModel } from './StallsChart';
import { fullView, hoverAt, newSvg } from './testUtil';
import type { Stall } from '../model/types';

const stall = (start: number, duration: number, cause: Stall['cause']): Stall =>
  ({ start, duration, cause, frameBefore: 1, frameAfter: 2, endedBy: 'test' });

describe('stalls chart', () => {
  const rows = Array.from({ length: 20 }, (_, i) => ({ t: i < 10 ? i * 0.001 : 0.5 + i * 0.001, dir: 0 as const, seq: 1 + i * 100, len: 100 }));
  rows.push({ t: 2, dir: 0, seq: 2001, len: 100 });
  const data = connectionData({
    rows,
    directions: [{ stalls: [stall(0.009, 0.501, 'retransmission-timeout'), stall(0.519, 1.481, 'application-idle')], rtt: { minMs: 1, medianMs: 1 } }, {}],
  });

  it('draws one band per stall, coloured by cause', () => {
    const svg = newSvg();
    drawStalls(svg, stallsModel(data, 0), fullView(data, 800, 240));
    const bands = [...svg.querySelectorAll('rect.tcps-stall')];
    expect(bands.length).toBe(data.summary.directions[0].stalls.length);
    expect(bands.map((b) => b.getAttribute('data-cause'))).toEqual(['retransmission-timeout', 'application-idle']);
    expect(bands[0].classList.contains('tcps-cause-retransmission-timeout')).toBe(true);
    expect(Number(bands[1].getAttribute('width'))).toBeGreaterThan(Number(bands[0].getAttribute('width')));
  });

  it('draws a log-scale histogram of inter-packet gaps with the threshold', () => {
    const svg = newSvg();
    const m = stallsModel(data, 0);
    drawStalls(svg, m, fullView(data, 800, 240));
    // 20 gaps: 18 of 1 ms, one of 0.501 s, one of 1.481 s.
    expect(m.gaps.gap.length).toBe(20);
    const bars = [...svg.querySelectorAll('rect.tcps-gap-bar')];
    expect(bars.length).toBe(20); // 1 ms … 10 s: 4 decades × 5 bins
    const counts = bars.map((b) => Number(b.querySelector('title')!.textContent!.split(' ')[0]));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(20);
    expect(svg.querySelectorAll('rect.tcps-gap-stall').length).toBeGreaterThan(0);
    const labels = [...svg.querySelectorAll('.tcps-axis-gap .tick text')].map((t) => t.textContent);
    expect(labels).toEqual(['1 ms', '10 ms', '100 ms', '1 s', '10 s']);
    expect(svg.querySelector('.tcps-threshold-label')!.textContent).toBe('stall threshold 10 ms');
  });

  it('adds unclassified stalls below the decoder threshold and drops shorter ones above it', () => {
    expect(stallsModel(data, 0, 1000).stalls.map((s) => s.cause)).toEqual(['application-idle']);
    const low = stallsModel(data, 0, 0.5).stalls;
    expect(low.length).toBe(20); // every 1 ms gap now counts; 18 of them unclassified
    expect(low.filter((s) => s.cause === 'unknown').length).toBe(18);
  });

  it('names the stall under the pointer', () => {
    const f = makeFixture();
    const svg = newSvg();
    drawStalls(svg, stallsModel(f, 0), fullView(f));
    const s = f.summary.directions[0].stalls[0];
    const x = ((s.start + s.duration / 2 - fullView(f).range[0]) / (fullView(f).range[1] - fullView(f).range[0])) * (800 - 96);
    const tip = hoverAt(svg, x, 20);
    expect(tip).toContain('retransmission timeout stall: 200 ms');
    expect(tip).toContain(`frames ${s.frameBefore} → ${s.frameAfter}`);
  });
});
