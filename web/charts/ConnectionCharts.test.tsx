// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { ConnectionCharts, type ConnectionChartsProps } from '../components/ConnectionCharts';
import { engineFor } from './testEngine';
import { largest } from './testUtil';
import { fullRange } from './timeRange';
import './testUtil';

let root: Root | null = null;
let host: HTMLDivElement;

async function render(props: ConnectionChartsProps) {
  host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host);
  await act(async () => root!.render(<ConnectionCharts width={900} {...props} />));
  return host;
}
afterEach(async () => {
  await act(async () => root?.unmount());
  host.remove();
  root = null;
});

const key = async (el: Element, k: string) =>
  act(async () => { el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true })); });

describe('ConnectionCharts', () => {
  const { report, source } = engineFor('stalls.pcap');
  const summary = largest(report.connections);
  const data = { summary, source };
  const full = fullRange(summary.start, summary.end);

  it('stacks the six charts, each with an accessible svg', async () => {
    const el = await render(data);
    const ids = [...el.querySelectorAll('figure.tcps-chart')].map((f) => f.getAttribute('data-chart'));
    expect(ids).toEqual(['throughput', 'inflight', 'stalls', 'sequence', 'rtt', 'events']);
    for (const id of ids) {
      const svg = el.querySelector(`svg[data-chart="${id}"]`)!;
      expect(svg.getAttribute('role')).toBe('img');
      expect(svg.querySelector('title')!.textContent!.length).toBeGreaterThan(3);
      expect(svg.querySelector('desc')!.textContent!.length).toBeGreaterThan(20);
      expect(Number(svg.getAttribute('width'))).toBe(900);
    }
  });

  it('draws every chart on the same controlled time range', async () => {
    const el = await render({ ...data, timeRange: [0.2, 0.4] });
    const firstTicks = [...el.querySelectorAll('svg')].map((svg) =>
      [...svg.querySelectorAll('.tcps-axis-x .tick text')].map((t) => t.textContent).join(' '));
    expect(new Set(firstTicks).size).toBe(1);
    expect(firstTicks[0]).toMatch(/^0.20 .* 0.40$/);
    expect(el.querySelector('.tcps-range')!.textContent).toContain('200 ms from 0.200000 s');
  });

  it('names keys 1 to 6 where the capture has no Wi-Fi chart, and announces the range once it is still', async () => {
    vi.useFakeTimers();
    try {
      const el = await render(data);
      const stack = el.querySelector('section.tcps-charts')!;
      expect(stack.getAttribute('aria-label')).toContain('1 to 6 focus a chart');
      const announcement = el.querySelector('[data-testid=range-announcement]')!;
      expect(announcement.getAttribute('aria-live')).toBe('polite');
      await key(stack, '+');
      await key(stack, '+');
      // Mid-gesture the visible text follows, the live region does not (no announcement per frame).
      expect(announcement.textContent).not.toBe(`Showing ${el.querySelector('.tcps-range')!.textContent}`);
      await act(async () => { vi.advanceTimersByTime(1000); });
      expect(announcement.textContent).toBe(`Showing ${el.querySelector('.tcps-range')!.textContent}`);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keyboard: + zooms, arrows pan, 0 resets (as null), 1–6 focus a chart', async () => {
    const onTimeRangeChange = vi.fn();
    const el = await render({ ...data, onTimeRangeChange });
    const stack = el.querySelector('section.tcps-charts')!;
    await key(stack, '+');
    const [a, b] = onTimeRangeChange.mock.calls[0][0];
    expect(b - a).toBeCloseTo((full[1] - full[0]) / 1.5, 9);
    // Uncontrolled: the stack applied the zoom itself.
    expect(el.querySelector('.tcps-range')!.textContent).not.toContain(`from ${full[0].toFixed(6)}`);
    await key(stack, 'ArrowRight');
    const [a2] = onTimeRangeChange.mock.calls[1][0];
    expect(a2).toBeGreaterThan(a);
    await key(stack, '0');
    expect(onTimeRangeChange.mock.calls[2][0]).toBeNull();
    await key(stack, '3');
    expect(document.activeElement?.getAttribute('data-chart')).toBe('stalls');
    await key(stack, '6');
    expect(document.activeElement?.getAttribute('data-chart')).toBe('events');
  });

  it('opens on the engine\'s data view; 0 shows the whole connection as a range, and the data view is null again', async () => {
    // A data view as the engine reports one for a connection that idled (analysis/run/opening_view.rs).
    const dataView: [number, number] = [summary.start + 0.1, summary.start + 0.3];
    const onTimeRangeChange = vi.fn();
    const el = await render({ ...data, summary: { ...summary, dataView }, onTimeRangeChange });
    const shown = el.querySelector('.tcps-range')!;
    expect(Number(shown.getAttribute('data-t0'))).toBeCloseTo(dataView[0], 12);
    expect(Number(shown.getAttribute('data-t1'))).toBeCloseTo(dataView[1], 12);
    expect(onTimeRangeChange).not.toHaveBeenCalled();
    await key(el.querySelector('section.tcps-charts')!, '0');
    // The whole connection is not the opening view here: reported as a range.
    expect(onTimeRangeChange.mock.calls[0][0]).toEqual(full);
    expect(Number(shown.getAttribute('data-t0'))).toBeCloseTo(full[0], 12);
  });

  it('reports bin size, stall threshold and chart visibility changes', async () => {
    const onBinMsChange = vi.fn(), onStallMsChange = vi.fn(), onChartsChange = vi.fn();
    const el = await render({ ...data, binMs: 100, onBinMsChange, onStallMsChange, onChartsChange, charts: ['throughput', 'rtt'] });
    expect([...el.querySelectorAll('figure')].map((f) => f.getAttribute('data-chart'))).toEqual(['throughput', 'rtt']);
    const [dirSelect, binSelect] = el.querySelectorAll('select');
    expect(dirSelect.value).toBe('0');
    await act(async () => {
      binSelect.value = '10';
      binSelect.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(onBinMsChange).toHaveBeenCalledWith(10);
    const boxes = [...el.querySelectorAll<HTMLInputElement>('.tcps-chart-toggles input')];
    await act(async () => boxes[2].click()); // stalls
    expect(onChartsChange).toHaveBeenCalledWith(['throughput', 'stalls', 'rtt']);
    const stall = el.querySelector<HTMLInputElement>('.tcps-stall-input')!;
    expect(stall.placeholder).toBe(`auto: ${summary.stallThresholdMs!.toFixed(1)}`); // the summary's threshold
    // React listens for 'input' on text-like fields; set the value through the native setter.
    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(stall, '25');
      stall.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(onStallMsChange).toHaveBeenCalledWith(25);
  });

  it('overlays another connection from the legend toggle and follows the theme', async () => {
    const two = engineFor('rwnd-limited.pcap'); // 2 connections
    const main = largest(two.report.connections);
    const other = two.report.connections.find((c) => c.id !== main.id)!;
    const el = await render({ summary: main, source: two.source, others: two.report.connections, theme: 'dark' });
    expect(el.querySelector('section')!.getAttribute('data-theme')).toBe('dark');
    const overlay = [...el.querySelectorAll('.tcps-chart-controls label')].find((l) => l.textContent!.startsWith(`#${other.id}`))!;
    await act(async () => overlay.querySelector('input')!.click());
    await vi.waitFor(() => expect(el.querySelector(`path[data-series="other-${other.id}"]`)).not.toBeNull());
  });

  it('the pipe line: off by default, toggled from the in-flight chart controls, drawn when on', async () => {
    const onPipeChange = vi.fn();
    const el = await render({ ...data, onPipeChange });
    const toggle = el.querySelector<HTMLInputElement>('[data-testid="pipe-toggle"]')!;
    expect(toggle.checked).toBe(false);
    expect(el.querySelector('path.tcps-pipe')).toBeNull();
    await act(async () => toggle.click());
    expect(onPipeChange).toHaveBeenCalledWith(true);
    // Uncontrolled: the stack shows it itself, with a legend entry and in the text alternative.
    await vi.waitFor(() => expect(el.querySelector('path.tcps-pipe')).not.toBeNull());
    expect(el.querySelector('figure[data-chart="inflight"] .tcps-legend')!.textContent).toContain('SACK-adjusted pipe');
    expect(el.querySelector('svg[data-chart="inflight"] desc')!.textContent).toContain('SACK-adjusted pipe (RFC 6675)');
  });

  it('names the process behind the connection in every chart title (PKTAP capture)', async () => {
    const pktap = engineFor('../../e2e/fixtures/pktap-processes.pcap');
    const withProcess = pktap.report.connections.find((c) => c.process)!;
    const el = await render({ summary: withProcess, source: pktap.source });
    const label = `${withProcess.process!.name} (pid ${withProcess.process!.pid})`;
    for (const svg of el.querySelectorAll('svg[data-chart]')) {
      expect(svg.querySelector('title')!.textContent).toContain(` — ${label}`);
      expect(svg.querySelector('.tcps-title')!.textContent).toContain(label);
    }
    for (const figure of el.querySelectorAll('figure[data-chart]')) expect(figure.getAttribute('aria-label')).toContain(label);
  });

  it('keeps the plain titles when the capture has no process', async () => {
    const el = await render(data);
    expect(el.querySelector('svg[data-chart="throughput"] title')!.textContent).toBe('Throughput');
  });

  it('says it is ready once every shown chart has drawn an answer', async () => {
    const onReady = vi.fn();
    await render({ ...data, onReady });
    await vi.waitFor(() => expect(onReady).toHaveBeenCalledTimes(1));
  });
});
