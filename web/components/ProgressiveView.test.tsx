// @vitest-environment jsdom
// The page while a capture loads (issue 41): the table so far with the biggest selected,
// the loading state in words, the charts that wait for the end saying so, and the
// time axis the growing chart draws into.
import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ProgressiveView } from './ProgressiveView';
import { loadingRange } from './PartialThroughputChart';
import { estimatedLength } from './ProgressiveView';
import { render } from './testUtil';
import type { PartialRow, PartialTable } from '../worker/generated/view';
import type { ViewSource } from '../worker/viewSource';

const row = (id: number, bytes: number, start = 0, end = 4): PartialRow => ({
  id, endpoints: [`10.0.0.${id}:40000`, '10.0.0.99:80'], packets: 10 * id, payloadBytes: [bytes, 0], dataDirection: 0, start, end,
});
const table: PartialTable = { connections: 3, settledT: 4, decodedT: 5, rows: [row(2, 9_000_000), row(0, 5_000), row(1, 10)] };
// A source that never answers: the view's own text is what is checked here.
const silent: ViewSource = { query: () => new Promise(() => {}) };

describe('ProgressiveView', () => {
  it('lists the largest connections so far, the biggest selected, and says how much is read', () => {
    const el = render(<ProgressiveView partial={table} progress={{ bytesRead: 43, totalBytes: 100, packets: 5, elapsedMs: 10 }} source={silent} />);
    expect(el.querySelector('[data-testid="progressive-state"]')!.textContent).toBe('loading — 43 % read: 3 TCP connections so far');
    const rows = [...el.querySelectorAll('[data-testid="partial-table"] tbody tr')];
    expect(rows.map((r) => r.getAttribute('data-id'))).toEqual(['2', '0', '1']);
    expect(rows[0].getAttribute('aria-selected')).toBe('true');
    expect(rows[0].textContent).toContain('10.0.0.2:40000 → 10.0.0.99:80');
    expect(rows[0].textContent).toContain('8.6 MiB');
    expect(el.querySelector('[data-testid="partial-throughput"]')!.getAttribute('data-fraction')).toBe('0.4300');
    expect(el.querySelector('[data-testid="after-the-load"]')!.textContent).toContain('loading — 43 % read');
    expect(el.querySelector('[data-testid="diagnosis-waiting"]')!.textContent).toContain('waits for the end of the load');
  });
});

describe('ProgressiveView selection', () => {
  it('a row picked while loading is charted and handed to the page (the finished view opens on it)', async () => {
    const picked: number[] = [];
    const el = render(<ProgressiveView partial={table} progress={null} source={silent} onSelect={(id) => picked.push(id)} />);
    const second = el.querySelector<HTMLElement>('[data-testid="partial-table"] tbody tr[data-id="0"]')!;
    await act(async () => { second.click(); });
    expect(picked).toEqual([0]);
    expect(second.getAttribute('aria-selected')).toBe('true');
    expect(el.querySelector('[data-testid="progressive-state"]')!.textContent).toBe('loading: 3 TCP connections so far');
  });
});

describe('the bin in progress', () => {
  it('is drawn apart from the settled bars, as a floor with the time it is counted to', async () => {
    // Two settled 100 ms bins, then the bin in progress: 500 B so far (40 kbit/s at least).
    const answer = {
      schemaVersion: 1, generation: 1, connection: 2, series: 'throughput', direction: 0, t0: -0.2, t1: 20.2, columns: 800,
      binSeconds: 0.1, stallThresholdMs: null, clamped: [], notes: [], error: null, errorBound: null,
      kind: 'bins', start: 0, bytes: Float64Array.of(3000, 1000), bps: Float64Array.of(240_000, 80_000), averageBps: Float64Array.of(NaN, NaN), averageBins: 10,
      loading: { index: 2, bytes: 500, bps: 40_000, settledTo: 0.25 },
    };
    const source = { query: async () => answer } as unknown as ViewSource;
    let el!: HTMLElement;
    await act(async () => { el = render(<ProgressiveView partial={table} progress={null} source={source} />); });
    await act(async () => { await new Promise((r) => setTimeout(r, 0)); });
    const chart = el.querySelector('[data-testid="partial-throughput"]')!;
    expect(chart.getAttribute('data-points')).toBe('2');
    // (The svg is drawn by useD3 after the render: wait for it, never sleep.)
    await vi.waitFor(() => expect(chart.querySelector('[data-series="loading-bin"]')).not.toBeNull(), { timeout: 10_000 });
    const open = chart.querySelector('[data-series="loading-bin"]')!;
    expect(open.getAttribute('data-bps')).toBe('40000');
    expect(open.textContent).toContain('at least');
    expect(chart.querySelector('[data-series="payload"]')!.getAttribute('data-max-bps')).toBe('240000');
    const probe = (window as unknown as { __tcpscopePartial: { firstDrawnMs: number | null; firstSettledMs: number | null } }).__tcpscopePartial;
    expect(probe.firstDrawnMs).not.toBeNull();
    expect(probe.firstSettledMs).not.toBeNull();
  });
});

describe('loadingRange', () => {
  it('a connection still sending is drawn into the capture’s estimated length', () => {
    expect(loadingRange(row(1, 1, 0, 4), 4, 20)).toEqual([-0.2, 20.2]);
  });
  it('a connection that ended stays its own length', () => {
    expect(loadingRange(row(1, 1, 0, 1), 4, 20)).toEqual([-0.01, 1.01]);
  });
  it('the length is where the decoder is ÷ the share decoded: no jump at the end', () => {
    // 4 s decoded at 20 % of the file: about 20 s of capture.
    expect(estimatedLength({ ...table, decodedT: 4 }, 0.2)).toBeCloseTo(20, 12);
    // The whole file decoded, the analysis settled to 4 s (the timeline holds the rest for
    // sorting): the capture's 5 s, not the 4 s the settled time ÷ bytes read said.
    expect(estimatedLength(table, 1)).toBe(5);
    const [, end] = loadingRange(row(1, 1, 0, 4), 4, estimatedLength(table, 1));
    expect(end).toBeCloseTo(5.05, 12);
    expect(estimatedLength(table, null)).toBeNull();
    expect(estimatedLength({ ...table, decodedT: null }, 0.5)).toBeNull();
  });
});
