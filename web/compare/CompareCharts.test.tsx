// @vitest-environment jsdom
// The compare charts draw both sides' engine answers on one time axis from each one's
// first packet: healthy.pcap #1 (A) against rwnd-limited.pcap #1 (B), the before/after
// pair of public/examples — the same 10 ms path, B's receive buffer limited to 41 KiB.
import { describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { engineFor } from '../charts/testEngine';
import { newSvg, num, tipAt } from '../charts/testUtil';
import { MARGIN } from '../charts/frame';
import { summaryTable } from '../components/ConnectionTable';
import { drawCompareThroughput } from './CompareThroughputChart';
import { drawCompareInflight } from './CompareInflightChart';
import { CompareView } from './CompareView';
import { compareBinSeconds, compareFull, sideQuery, type CompareSide } from './sides';

const healthy = engineFor('healthy.pcap');
const rwnd = engineFor('rwnd-limited.pcap');
const side = (letter: 'A' | 'B', e: typeof healthy, name: string): CompareSide =>
  ({ letter, name, summary: e.report.connections.find((c) => c.id === 1)!, source: e.source });
const sides: [CompareSide, CompareSide] = [side('A', healthy, 'healthy.pcap'), side('B', rwnd, 'rwnd-limited.pcap')];
const full = compareFull(sides);
const view = { range: full, full, width: 800, height: 240 };
const inner = 800 - MARGIN.left - MARGIN.right;
const xOf = (t: number) => ((t - full[0]) / (full[1] - full[0])) * inner;

describe('compare throughput chart', () => {
  it('draws both payload rates, each shifted by its own start', async () => {
    // Both summaries bin at 100 ms (throughput.rs auto_bin of a ~2 s connection), so
    // the shared bin is 100 ms and each fullest bar is its own summary's peak.
    const binSeconds = compareBinSeconds(sides, null);
    expect(binSeconds).toBe(0.1);
    const answers = await Promise.all(sides.map((s) => s.source.query(sideQuery(s, view, 'throughput', { binSeconds }))));
    const svg = newSvg();
    drawCompareThroughput(svg, { sides, answers }, view);
    const [a, b] = ['A', 'B'].map((k) => svg.querySelector(`path[data-series="${k}"]`)!);
    // A starts 31.544 ms into healthy.pcap, B 31.224 ms into rwnd-limited.pcap (their SYNs).
    expect(Number(a.getAttribute('data-offset'))).toBe(0.031544);
    expect(Number(b.getAttribute('data-offset'))).toBe(0.031224);
    // Peaks 49.35 Mbit/s (healthy) and 32.25 Mbit/s (the 41 KiB window's cap at 10 ms).
    expect(Number(a.getAttribute('data-max-bps'))).toBe(49_347_840);
    expect(Number(b.getAttribute('data-max-bps'))).toBe(32_251_520);
    // Bins lie on multiples of 100 ms from the capture's start: each side's first bin
    // begins at its capture's t = 0, i.e. its own start earlier on the shared axis.
    expect(Number(a.getAttribute('data-first-x'))).toBeCloseTo(xOf(-0.031544), 6);
    expect(Number(b.getAttribute('data-first-x'))).toBeCloseTo(xOf(-0.031224), 6);
    // Each side is asked over the shared axis from its own start: A over 0.0108 – 2.1255 s
    // of healthy.pcap, B over 0.0105 – 2.1252 s of rwnd-limited.pcap; 22 bins of 100 ms each.
    expect([num(svg, 'path[data-series="A"]', 'data-points'), num(svg, 'path[data-series="B"]', 'data-points')]).toEqual([22, 22]);
    // Under the pointer, 1 s after each start: each side's own bin there (1.0 – 1.1 s of its capture).
    expect(await tipAt(svg, xOf(1))).toMatch(/^1(\.0+)? s from each one's start(A|B): [\d.]+ Mbit\/s \([\d.]+ [KM]i?B in 100 ms\)(A|B): /);
    expect(svg.getAttribute('data-chart')).toBe('compare-throughput');
    expect(svg.getAttribute('aria-label')).toMatch(/A: healthy\.pcap #1 .*mean 37 Mbit\/s, peak 49 Mbit\/s, 22 bins of 100 ms in view\. B: rwnd-limited\.pcap #1 .*: mean 30 Mbit\/s, peak 32 Mbit\/s/);
  });

  it('the shared axis runs from 0 to the longer connection\'s duration', () => {
    // healthy #1 lasts 2.07326 s, rwnd-limited #1 2.050426 s; 1 % margin each side.
    expect(full[0]).toBeCloseTo(-0.0207326, 9);
    expect(full[1]).toBeCloseTo(2.0939926, 9);
  });
});

describe('compare in-flight chart', () => {
  it('draws in flight and the window of both sides', async () => {
    const answers = await Promise.all(sides.map((s) => Promise.all([s.source.query(sideQuery(s, view, 'inflight')), s.source.query(sideQuery(s, view, 'rwnd'))])));
    const svg = newSvg();
    drawCompareInflight(svg, { sides, answers }, view);
    const series = [...svg.querySelectorAll('path[data-series]')].map((p) => p.getAttribute('data-series'));
    expect(series).toEqual(['A-inflight', 'A-rwnd', 'B-inflight', 'B-rwnd']);
    for (const key of series) expect(num(svg, `path[data-series="${key}"]`, 'data-points'), key!).toBeGreaterThan(0);
    expect(svg.getAttribute('aria-label')).toMatch(/B: rwnd-limited\.pcap #1 .*: max in flight 41 KiB, window 31 KiB to 41 KiB\.$/);
    // The tooltip asks each side's engine at its own time, 1 s after each start: healthy
    // has 123,080 B out under its 706,560 B window (the link, not the window, limits it);
    // rwnd-limited 39,216 B under the 42,112 B its receiver never exceeds.
    const tip = await tipAt(svg, xOf(1));
    expect(tip).toMatch(/^1(\.0+)? s from each one's start/);
    expect(tip).toContain('A: 123,080 B in flight, window 706,560 B (at 1.031282 s of healthy.pcap)');
    expect(tip).toContain('B: 39,216 B in flight, window 42,112 B (at 1.031313 s of rwnd-limited.pcap)');
  });
});

describe('compare view', () => {
  it('draws both charts, then says ready, with both diagnoses and headline rows', async () => {
    const host = document.createElement('div');
    document.body.append(host);
    const onReady = vi.fn();
    const root = createRoot(host);
    await act(async () => {
      root.render(<CompareView sides={sides} tables={[summaryTable(healthy.report.connections), summaryTable(rwnd.report.connections)]}
        choices={[healthy.report.connections, rwnd.report.connections]} onPick={() => {}} range={null} onRange={() => {}}
        binMs={null} onBinMs={() => {}} theme="light" onReady={onReady} onExit={() => {}} share={async () => ({ error: 'no' })} />);
    });
    await vi.waitFor(() => expect(onReady).toHaveBeenCalled());
    expect(host.querySelector('[data-testid="compare"]')!.getAttribute('data-state')).toBe('ready');
    expect([...host.querySelectorAll('[data-testid="diagnosis"]')].map((d) => d.getAttribute('data-limit'))).toEqual(['path', 'receive-window']);
    await vi.waitFor(() => expect(host.querySelector('tr[data-side="B"] [data-headline="retransmissions"]')!.textContent).not.toBe('…'));
    // rwnd-limited #1: 7.6 MB (7.2 MiB) in 2.050426 s (table.rs duration; shown as 2.1 s), no
    // retransmission (the window, not loss, limited it); healthy #1 averaged 37 Mbit/s.
    expect(host.querySelector('tr[data-side="B"] [data-headline="bytes"]')!.textContent).toBe('7.2 MiB');
    expect(host.querySelector('tr[data-side="B"] [data-headline="duration"]')!.textContent).toBe('2.1 s');
    expect(host.querySelector('tr[data-side="A"] [data-headline="mean"]')!.textContent).toBe('37 Mbit/s');
    expect(host.querySelector('tr[data-side="B"] [data-headline="retransmissions"]')!.textContent).toBe('0');
    await act(async () => root.unmount());
  });
});
