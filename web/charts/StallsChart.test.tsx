// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { StallsChart, drawStalls } from './StallsChart';
import { intervalsOf } from './intervalMarks';
import { engineFor } from './testEngine';
import { ask, fullView, largest, newSvg, tipAt } from './testUtil';

describe('stalls chart (stalls.pcap, engine answers)', () => {
  const { report, source } = engineFor('stalls.pcap');
  const summary = largest(report.connections);
  const d = summary.dataDirection;
  const view = fullView(summary, 800, 110);

  it('one band per stall of the summary, with its cause', async () => {
    const stalls = summary.directions[d].stalls;
    expect(stalls.length).toBeGreaterThanOrEqual(5); // 5 application pauses + the RTO
    const svg = newSvg();
    drawStalls(svg, { stalls: intervalsOf(await source.query(ask(summary, view, 'stalls'))), summary, direction: d, source }, view);
    const bands = [...svg.querySelectorAll('rect.tcps-stall')];
    expect(bands.map((b) => b.getAttribute('data-cause'))).toEqual(stalls.map((s) => s.cause));
    expect(bands.map((b) => b.querySelector('title')!.textContent)).toContain(bands[0].querySelector('title')!.textContent);
    const tip = await tipAt(svg, Number(bands[0].getAttribute('x')) + 1, 20);
    expect(tip).toMatch(/stall: [\d.]+ m?s/);
  });

  it('a 1 ns threshold is raised and the chart says what was clamped', async () => {
    const host = document.createElement('div');
    document.body.append(host);
    const root = createRoot(host);
    await act(async () => root.render(<StallsChart source={source} summary={summary} direction={d} view={view} stallMs={0.000001} />));
    await vi.waitFor(() => expect(host.querySelector('[data-testid="clamped"]')).not.toBeNull());
    expect(host.querySelector('[data-testid="clamped"]')!.textContent).toMatch(/stall threshold raised/);
    await act(async () => root.unmount());
  });
});
