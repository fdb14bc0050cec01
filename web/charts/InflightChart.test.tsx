// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { connectionData, makeFixture } from './fixtures';
import { drawInflight, inflightModel, mergeSpans } from './InflightChart';
import { fullView, hoverAt, newSvg, num } from './testUtil';
import { countMarks } from './paths';
import { FLAG } from '../model/types';

describe('in-flight vs window chart', () => {
  it('draws one dot per data segment, the window step line, limited spans and zero windows', () => {
    const data = makeFixture();
    const svg = newSvg();
    const m = inflightModel(data, 0);
    const view = fullView(data);
    drawInflight(svg, m, view);
    const dataSegments = Array.from(data.packets.len).filter((l, i) => l > 0 && data.packets.dir[i] === 0).length;
    expect(dataSegments).toBe(321); // 40 rounds × 8 + 1 retransmission
    expect(num(svg, 'path.tcps-dots', 'data-points')).toBe(321);
    expect(countMarks(svg.querySelector('path.tcps-dots')!.getAttribute('d'))).toBe(321);
    const win = svg.querySelector('path.tcps-window')!;
    expect(win.getAttribute('stroke-dasharray')).toBeNull();
    expect(win.getAttribute('d')).toMatch(/^M[\d.]+,[\d.]+H/);
    expect(num(svg, 'g.tcps-limited', 'data-count')).toBe(m.limited.length);
    expect(m.limited.length).toBeGreaterThan(30); // every round ends pinned at the window
    // Spans less than a pixel apart are merged into one shaded rectangle.
    const rects = svg.querySelectorAll('g.tcps-limited rect').length;
    expect(rects).toBe(mergeSpans(m.limited, (view.range[1] - view.range[0]) / (800 - 96)).length);
    expect(rects).toBeLessThan(m.limited.length);
    expect(mergeSpans([[0, 1], [1.5, 2], [5, 6]], 1)).toEqual([[0, 2], [5, 6]]);
    expect(svg.querySelectorAll('g.tcps-zero-window path').length).toBe(1);
    const ticks = [...svg.querySelectorAll('.tcps-axis-y .tick text')].map((t) => t.textContent);
    expect(ticks.some((t) => /KiB$/.test(t!))).toBe(true);
    expect(svg.querySelector('desc')!.textContent).toMatch(/321 data segments/);
  });

  it('draws a step line instead of dots on request', () => {
    const data = makeFixture({ rounds: 5 });
    const svg = newSvg();
    drawInflight(svg, inflightModel(data, 0), fullView(data), 'step');
    expect(svg.querySelector('path.tcps-dots')).toBeNull();
    expect(svg.querySelector('path.tcps-inflight-step')!.getAttribute('d')).toContain('H');
  });

  it('draws the window dashed with a note when the scale is unknown', () => {
    const data = makeFixture({ windowScaleUnknown: true });
    const svg = newSvg();
    const m = inflightModel(data, 0);
    drawInflight(svg, m, fullView(data));
    expect(svg.querySelector('path.tcps-window')!.getAttribute('stroke-dasharray')).toBe('6 4');
    expect(svg.querySelector('path.tcps-window')!.classList.contains('tcps-dashed')).toBe(true);
    const note = svg.querySelector('text.tcps-note')!.textContent!;
    expect(note).toBe('window scale unknown: handshake not captured; inferred ≥ 2^2 from bytes in flight');
    // The raw window × 2^2 is the lower bound drawn.
    expect(m.window.multiplier).toBe(4);
    expect(Math.max(...m.window.win)).toBe(8000);
  });

  it('shows frame, in flight and window of the nearest segment in the tooltip', () => {
    const data = connectionData({
      rows: [
        { t: 0, dir: 1, ack: 1, win: 4000 },
        { t: 0.1, dir: 0, seq: 1, len: 1000, inFlight: 1000 },
        { t: 0.2, dir: 0, seq: 1001, len: 1000, inFlight: 2000 },
        { t: 0.3, dir: 1, ack: 2001, win: 0, flags: FLAG.ACK | FLAG.ZERO_WINDOW },
      ],
    });
    const svg = newSvg();
    const view = { range: [0, 0.4] as [number, number], full: [0, 0.4] as [number, number], width: 500, height: 200 };
    drawInflight(svg, inflightModel(data, 0), view);
    // plot width 500 - 78 - 18 = 404 px for 0.4 s: t = 0.19 s at x ≈ 192
    const tip = hoverAt(svg, 192);
    expect(tip).toContain('frame 3');
    expect(tip).toContain('in flight: 2,000 B');
    expect(tip).toContain('receive window: 4,000 B');
    expect(svg.querySelectorAll('g.tcps-zero-window path').length).toBe(1);
  });
});
