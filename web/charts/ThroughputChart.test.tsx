// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { DEFAULT_TOGGLES, ThroughputChart, drawThroughput, rateSpecs } from './ThroughputChart';
import { engineFor } from './testEngine';
import { fullView, hoverAt, largest, newSvg, num } from './testUtil';
import type { ChartView } from './frame';

describe('throughput chart (healthy.pcap, engine answers)', () => {
  const { report, source } = engineFor('healthy.pcap');
  const summary = largest(report.connections);
  const d = summary.dataDirection;
  const view = fullView(summary, 800, 220);
  const model = async (toggles = DEFAULT_TOGGLES, binMs: number | null = null, others = report.connections) => {
    const specs = rateSpecs(summary, d, view, binMs, toggles, others);
    return { specs, answers: await Promise.all(specs.map((s) => source.query(s.query))), average: toggles.average, summary, direction: d, source };
  };

  it('draws the payload area and moving average; its fullest bar is the summary peak', async () => {
    const svg = newSvg();
    const m = await model();
    drawThroughput(svg, m, view);
    const payload = svg.querySelector('path[data-series="payload"]')!;
    // The summary's bin by default (binMs null): the very bins the peak came from.
    expect(Number(payload.getAttribute('data-bin'))).toBe(summary.directions[d].throughput.binSeconds);
    expect(Number(payload.getAttribute('data-max-bps'))).toBe(summary.directions[d].throughput.peakBps);
    expect(svg.querySelectorAll('path[data-series="average"]').length).toBe(1);
    const ticks = [...svg.querySelectorAll('.tcps-axis-y .tick text')].map((t) => t.textContent);
    expect(ticks.some((t) => t!.endsWith('Mbit/s'))).toBe(true);
    expect(svg.getAttribute('aria-label')).toMatch(/^Throughput\. Payload rate/);
  });

  it('adds wire, goodput, reverse and overlay series when toggled', async () => {
    const svg = newSvg();
    const other = report.connections.find((c) => c.id !== summary.id);
    const m = await model({ ...DEFAULT_TOGGLES, wire: true, goodput: true, reverse: true, overlays: other ? [other.id] : [] },
      10, report.connections.filter((c) => c.id !== summary.id));
    drawThroughput(svg, m, view);
    const keys = [...svg.querySelectorAll('path.tcps-rate')].map((p) => p.getAttribute('data-series'));
    expect(keys).toEqual(['payload', 'wire', 'goodput', 'reverse', ...(other ? [`other-${other.id}`] : []), 'average']);
  });

  it('a 1 µs bin over the whole connection is raised, and the answer says so', async () => {
    const m = await model(DEFAULT_TOGGLES, 0.001);
    const a = m.answers[0]!;
    expect(a.clamped.join(' ')).toMatch(/^bin raised from 1 µs to .*: at most 4 bins per pixel column$/);
    expect(a.kind === 'bins' && a.bps.length).toBeLessThanOrEqual(4 * 704);
  });

  it('the tooltip names the bin under the pointer with the engine\'s rate and bytes', async () => {
    const svg = newSvg();
    drawThroughput(svg, await model(), view);
    const tip = hoverAt(svg, 350);
    expect(tip).toMatch(/payload .*: [\d.]+ [kMG]?bit\/s \([\d.]+ [KMG]?i?B\)/);
  });

  it('renders as a React component and resets the range on double-click', async () => {
    const host = document.createElement('div');
    document.body.append(host);
    const onRangeChange = vi.fn();
    const root = createRoot(host);
    const zoomed: ChartView = { ...view, range: [view.full[0] + 0.1, view.full[0] + 0.3] };
    const onDrawn = vi.fn();
    await act(async () => {
      root.render(<ThroughputChart source={source} summary={summary} direction={d} view={zoomed} binMs={null} toggles={DEFAULT_TOGGLES} onRangeChange={onRangeChange} onDrawn={onDrawn} />);
    });
    await vi.waitFor(() => expect(onDrawn).toHaveBeenCalled());
    await vi.waitFor(() => expect(num(host, 'svg path[data-series="payload"]', 'data-points')).toBeGreaterThan(0));
    expect(host.querySelectorAll('.tcps-legend li').length).toBe(2);
    host.querySelector('g.tcps-interact')!.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
    expect(onRangeChange).toHaveBeenCalledWith(view.full);
    host.querySelector('g.tcps-interact')!.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, ctrlKey: true, clientX: 0, bubbles: true, cancelable: true }));
    const [a, b] = onRangeChange.mock.calls[1][0];
    expect(b - a).toBeLessThan(0.2);
    expect(a).toBeCloseTo(zoomed.range[0], 9);
    await act(async () => root.unmount());
  });
});

describe('throughput chart of an MPTCP subflow (mptcp-two-paths.pcap, engine answers)', () => {
  it('draws the MPTCP connection\'s data-level rate as a line beside the subflow\'s own payload', async () => {
    const { report, source } = engineFor('mptcp-two-paths.pcap');
    // Subflow 1 (path 2): 676,104 bytes of payload of its own (retransmissions included).
    const summary = report.connections.find((c) => c.id === 1)!;
    const d = summary.dataDirection;
    const view = fullView(summary, 800, 220);
    const specs = rateSpecs(summary, d, view, 50, DEFAULT_TOGGLES);
    expect(specs.map((s) => [s.key, s.label])).toEqual([['payload', expect.any(String)], ['mptcp', 'MPTCP connection (all subflows)']]);
    const answers = await Promise.all(specs.map((s) => source.query(s.query)));
    const svg = newSvg();
    drawThroughput(svg, { specs, answers, average: false, summary, direction: d, source }, view);
    const line = svg.querySelector('path[data-series="mptcp"]')!;
    expect(line.getAttribute('class')).toContain('tcps-s-mptcp');
    expect(Number(line.getAttribute('data-points'))).toBeGreaterThan(10);
    // The connection's line tops the subflow's own area: it carries the three subflows' data.
    expect(Number(line.getAttribute('data-max-bps'))).toBeGreaterThan(Number(svg.querySelector('path[data-series="payload"]')!.getAttribute('data-max-bps')));
    // Plain TCP asks no such series.
    const plain = engineFor('healthy.pcap').report.connections[1];
    expect(rateSpecs(plain, plain.dataDirection, fullView(plain, 800, 220), null, DEFAULT_TOGGLES).map((s) => s.key)).toEqual(['payload']);
  });
});
