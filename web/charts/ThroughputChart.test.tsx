// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { connectionData, makeFixture } from './fixtures';
import { DEFAULT_TOGGLES, ThroughputChart, drawThroughput, throughputModel } from './ThroughputChart';
import { fullRange } from './timeRange';
import type { ChartView } from './frame';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const svgNS = 'http://www.w3.org/2000/svg';
const newSvg = () => {
  const svg = document.createElementNS(svgNS, 'svg') as SVGSVGElement;
  document.body.append(svg);
  return svg;
};

describe('throughput chart', () => {
  const data = makeFixture();
  const full = fullRange(data.summary.start, data.summary.end);
  const view: ChartView = { range: full, full, width: 800, height: 220 };

  it('draws the payload area, the moving average and bit/s ticks', () => {
    const svg = newSvg();
    const m = throughputModel(data, 0, 100, DEFAULT_TOGGLES);
    drawThroughput(svg, m, view);
    expect(svg.querySelectorAll('path[data-series="payload"]').length).toBe(1);
    expect(svg.querySelectorAll('path[data-series="average"]').length).toBe(1);
    const nBins = m.series[0].bins.bps.length;
    expect(Number(svg.querySelector('path[data-series="payload"]')!.getAttribute('data-points'))).toBe(nBins);
    const ticks = [...svg.querySelectorAll('.tcps-axis-y .tick text')].map((t) => t.textContent);
    expect(ticks.some((t) => t!.endsWith('Mbit/s'))).toBe(true);
    expect(svg.getAttribute('aria-label')).toMatch(/^Throughput\. Payload rate/);
    expect(svg.querySelector('desc')!.textContent).toContain(`${nBins} bins`);
    expect(svg.getAttribute('data-chart')).toBe('throughput');
  });

  it('adds wire, goodput, reverse and overlay series when toggled', () => {
    const other = makeFixture({ id: 7, rwnd: 4000 });
    const svg = newSvg();
    const m = throughputModel(data, 0, 10, { ...DEFAULT_TOGGLES, wire: true, goodput: true, reverse: true, overlays: [7] }, [other]);
    drawThroughput(svg, m, view);
    const keys = [...svg.querySelectorAll('path.tcps-rate')].map((p) => p.getAttribute('data-series'));
    expect(keys).toEqual(['payload', 'wire', 'goodput', 'reverse', 'other-7', 'average']);
  });

  it('reports the 240 kbit/s bin of three 1000-byte segments in the tooltip with frame numbers', () => {
    const small = connectionData({
      rows: [
        { t: 0, dir: 0, seq: 1, len: 1000 }, { t: 0.02, dir: 0, seq: 1001, len: 1000 },
        { t: 0.05, dir: 0, seq: 2001, len: 1000 }, { t: 0.25, dir: 1, ack: 3001 },
      ],
    });
    const svg = newSvg();
    const f = fullRange(0, 0.25);
    drawThroughput(svg, throughputModel(small, 0, 100, DEFAULT_TOGGLES), { range: f, full: f, width: 600, height: 200 });
    const interact = svg.querySelector('g.tcps-interact')!;
    // jsdom has no layout: d3.pointer falls back to clientX relative to a zero rect, i.e. plot x.
    interact.dispatchEvent(new MouseEvent('pointermove', { clientX: 60, clientY: 50, bubbles: true }));
    const tip = svg.querySelector('.tcps-tooltip')!.textContent!;
    expect(tip).toContain('240 kbit/s');
    expect(tip).toContain('frames 1–3 (3 packets)');
  });

  it('renders as a React component and resets the range on double-click', async () => {
    const host = document.createElement('div');
    document.body.append(host);
    const onRangeChange = vi.fn();
    const root = createRoot(host);
    const zoomed: ChartView = { ...view, range: [full[0] + 0.1, full[0] + 0.3] };
    await act(async () => {
      root.render(<ThroughputChart data={data} direction={0} view={zoomed} binMs={100} toggles={DEFAULT_TOGGLES} onRangeChange={onRangeChange} />);
    });
    expect(host.querySelector('svg path[data-series="payload"]')).not.toBeNull();
    expect(host.querySelectorAll('.tcps-legend li').length).toBe(2);
    host.querySelector('g.tcps-interact')!.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
    expect(onRangeChange).toHaveBeenCalledWith(full);
    // Ctrl + wheel zooms in about the pointer.
    host.querySelector('g.tcps-interact')!.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, ctrlKey: true, clientX: 0, bubbles: true, cancelable: true }));
    const [a, b] = onRangeChange.mock.calls[1][0];
    expect(b - a).toBeLessThan(0.2);
    expect(a).toBeCloseTo(zoomed.range[0], 9);
    await act(async () => root.unmount());
  });
});
