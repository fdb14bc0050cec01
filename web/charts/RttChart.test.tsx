// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { connectionData, makeFixture } from './fixtures';
import { drawRtt, rttModel } from './RttChart';
import { fullView, hoverAt, newSvg, num } from './testUtil';

describe('RTT chart', () => {
  it('draws one dot per sample and the minimum line', () => {
    const data = makeFixture();
    const svg = newSvg();
    const m = rttModel(data, 0);
    drawRtt(svg, m, fullView(data, 800, 200));
    expect(m.all.t.length).toBe(data.rtt.t.length);
    expect(num(svg, 'path.tcps-rtt-kind-0', 'data-points')).toBe(m.all.t.length);
    const min = svg.querySelector('line.tcps-rtt-min')!;
    expect(min.getAttribute('y1')).toBe(min.getAttribute('y2'));
    expect(svg.querySelector('.tcps-rtt-min-label')!.textContent).toBe('min RTT 10.00 ms');
    const ticks = [...svg.querySelectorAll('.tcps-axis-y .tick text')].map((t) => t.textContent);
    expect(ticks.every((t) => t!.endsWith(' ms'))).toBe(true);
  });

  it('separates timestamp samples and names the completing frame', () => {
    const data = connectionData({
      rows: [
        { t: 0, dir: 0, seq: 1, len: 100 },
        { t: 0.004, dir: 1, ack: 101 },
        { t: 0.010, dir: 0, seq: 101, len: 100 },
        { t: 0.016, dir: 1, ack: 201 },
      ],
      rtt: [{ t: 0.004, dir: 0, rttMs: 4 }, { t: 0.016, dir: 0, rttMs: 6, kind: 1 }, { t: 0.016, dir: 1, rttMs: 99 }],
    });
    const svg = newSvg();
    const view = { range: [0, 0.02] as [number, number], full: [0, 0.02] as [number, number], width: 500, height: 200 };
    drawRtt(svg, rttModel(data, 0), view);
    expect(num(svg, 'path.tcps-rtt-kind-0', 'data-points')).toBe(1);
    expect(num(svg, 'path.tcps-rtt-kind-1', 'data-points')).toBe(1);
    const tip = hoverAt(svg, (0.015 / 0.02) * 404);
    expect(tip).toContain('RTT 6.000 ms (TCP timestamps)');
    expect(tip).toContain('completed by frame 4');
    expect(tip).toContain('1.50 × minimum');
  });
});
