// @vitest-environment jsdom
// The renderer draws any chart of the stack by its id (the registry is ConnectionCharts),
// from the real engine's answers, and returns the page's standalone SVG export of it.
import { describe, expect, it } from 'vitest';
import { engineFor } from '../charts/testEngine';
import { largest } from '../charts/testUtil';
import { CHART_IDS, renderChartSvg } from './renderChart';

// The renderer runs React as the CLI does, outside act() (testUtil turns act on).
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;

describe('renderChartSvg', () => {
  const { report, source } = engineFor('stalls.pcap');
  const summary = largest(report.connections);

  it.each([...CHART_IDS])('%s: one standalone svg of that chart, at the asked size, with its title', async (chart) => {
    const svg = await renderChartSvg({ summary, source, chart, width: 640, height: 200, theme: 'light' });
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    const root = doc.documentElement;
    expect(root.localName).toBe('svg');
    expect(root.getAttribute('data-chart')).toBe(chart);
    expect([root.getAttribute('width'), root.getAttribute('height')]).toEqual(['640', '200']);
    expect(root.querySelector('title')?.textContent?.length).toBeGreaterThan(2);
    expect(root.querySelector('.tcps-export-background')).not.toBeNull();
    expect(root.querySelectorAll('path').length).toBeGreaterThan(1);
    expect(root.querySelector('.tcps-interact, .tcps-overlay')).toBeNull();
    // Rendered in a host that is removed again: nothing is left in the document.
    expect(document.querySelectorAll('svg[data-chart]').length).toBe(0);
  });

  it('stack: every asked chart nested in order on one time axis, under the diagnosis headline (issue 42, item 4)', async () => {
    const charts = ['throughput', 'stalls', 'rtt'] as const;
    const svg = await renderChartSvg({ summary, source, chart: 'stack', charts: [...charts], range: [0.5, 1.5], width: 640, theme: 'light' });
    const root = new DOMParser().parseFromString(svg, 'image/svg+xml').documentElement;
    const nested = [...root.querySelectorAll(':scope > svg')];
    expect(nested.map((n) => n.getAttribute('data-chart'))).toEqual(charts);
    // Stacked: each starts where the one above ends, under the 50 px title block.
    const ys = nested.map((n) => Number(n.getAttribute('y')));
    const heights = nested.map((n) => Number(n.getAttribute('height')));
    expect(ys).toEqual([50, 50 + heights[0], 50 + heights[0] + heights[1]]);
    expect(Number(root.getAttribute('height'))).toBe(50 + heights.reduce((a, h) => a + h, 0));
    // One time axis: the same x ticks (positions and labels) on every chart.
    const ticks = nested.map((n) => [...n.querySelectorAll('.tcps-axis-x .tick')].map((t) => `${t.getAttribute('transform')} ${t.textContent}`).join('|'));
    expect(new Set(ticks).size).toBe(1);
    // The title line is the diagnosis panel's heading: stalls.pcap's limit is packet loss, as the page and `tcpscope analyze` say.
    const titles = [...root.querySelectorAll(':scope > text.tcps-export-title')].map((t) => t.textContent);
    expect(titles[0]).toBe(`Why was it slow? Limited by packet loss`);
    expect(titles[1]).toBe(`Connection ${summary.id}: ${summary.endpoints[0]} ⇄ ${summary.endpoints[1]}`);
  });

  it('draws the asked time range and refuses an unknown chart', async () => {
    const svg = await renderChartSvg({ summary, source, chart: 'rtt', range: [0.5, 1], width: 640, theme: 'dark' });
    const ticks = [...new DOMParser().parseFromString(svg, 'image/svg+xml').querySelectorAll('.tcps-axis-x .tick text')].map((t) => Number(t.textContent));
    expect(ticks[0]).toBeGreaterThanOrEqual(0.5);
    expect(ticks.at(-1)).toBeLessThanOrEqual(1);
    await expect(renderChartSvg({ summary, source, chart: 'pie' as never, width: 640, theme: 'light' })).rejects.toThrow(/unknown chart 'pie'; the charts are .*, stack/);
  });
});
