// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { drawInflight, pointsOf } from './InflightChart';
import { intervalsOf } from './intervalMarks';
import { engineFor } from './testEngine';
import { ask, fullView, largest, newSvg, num, tipAt } from './testUtil';
import { countMarks } from './paths';
import { rttStats } from '../model/types';

describe('in-flight vs window chart (engine answers)', () => {
  async function drawn(file: string, mode: 'dots' | 'step' = 'dots', withPipe = false) {
    const { report, source } = engineFor(file);
    const summary = largest(report.connections);
    const view = fullView(summary);
    const [inflight, rwnd, limited, pipe] = await Promise.all(['inflight', 'rwnd', 'windowLimited', 'pipe'].map((s) => source.query(ask(summary, view, s as 'rwnd'))));
    const svg = newSvg();
    const m = {
      inflight: pointsOf(inflight), rwnd: pointsOf(rwnd), limited: intervalsOf(limited), pipe: withPipe ? pointsOf(pipe) : null,
      summary, direction: summary.dataDirection, source,
    };
    drawInflight(svg, m, view, mode);
    return { svg, m, summary };
  }

  it('rwnd-limited.pcap: a mark per pixel column, the window step line, and the shaded share is the diagnosis share', async () => {
    const { svg, m, summary } = await drawn('rwnd-limited.pcap');
    const columns = m.inflight!.column.length;
    expect(columns).toBeGreaterThan(500); // 8,700 data segments over 704 columns
    expect(columns).toBeLessThanOrEqual(704);
    expect(num(svg, 'path.tcps-dots', 'data-points')).toBe(columns);
    expect(countMarks(svg.querySelector('path.tcps-dots')!.getAttribute('d'))).toBe(columns);
    expect(svg.querySelector('path.tcps-window')!.getAttribute('d')).toMatch(/^M[\d.]+,[\d.]+H/);
    // "window-limited 84 % of the time": the shaded seconds over the active seconds are
    // the diagnosis's receive-window share (the spans the shares bar adds up).
    const g = svg.querySelector('g.tcps-limited')!;
    const share = Number(g.getAttribute('data-total-seconds')) / Number(g.getAttribute('data-active-seconds'));
    expect(share).toBeCloseTo(summary.diagnosis.shares.receiveWindow, 9);
    expect(num(svg, 'g.tcps-limited', 'data-count')).toBeGreaterThan(5);
    expect(svg.querySelector('g.tcps-limited path.tcps-interval-spans')!.getAttribute('d')).toMatch(/^M/);
    const ticks = [...svg.querySelectorAll('.tcps-axis-y .tick text')].map((t) => t.textContent);
    expect(ticks.some((t) => /KiB$/.test(t!))).toBe(true);
    expect(rttStats(summary.directions[summary.dataDirection].rtt).minMs).not.toBeNull();
  });

  it('zero-window.pcap: zero windows are marked where the engine says the window was 0', async () => {
    const { svg, m } = await drawn('zero-window.pcap', 'step');
    const zeroColumns = Array.from(m.rwnd!.min).filter((v) => v === 0).length;
    expect(zeroColumns).toBeGreaterThan(0);
    expect(num(svg, 'g.tcps-zero-window', 'data-count')).toBe(zeroColumns);
    expect(svg.querySelector('path.tcps-dots')).toBeNull();
    expect(svg.querySelector('path.tcps-inflight-step')!.getAttribute('d')).toMatch(/^M/);
  });

  it('the tooltip asks the engine for the point under the pointer', async () => {
    const { svg } = await drawn('rwnd-limited.pcap');
    const tip = await tipAt(svg, 300);
    expect(tip).toMatch(/in flight at [\d.]+ s: [\d,]+ B/);
    expect(tip).toMatch(/receive window at [\d.]+ s: [\d,]+ B/);
  });

  it('no-handshake.pcap: with the window scale unknown the tooltip puts "≥" before the raw window', async () => {
    // The handshake was cut off, so the scale is unknown and the raw field is a lower
    // bound. It read "receive window at 1.2 s: 0 B (0 B) ≥, scale unknown".
    const { svg } = await drawn('no-handshake.pcap');
    const tip = await tipAt(svg, 300);
    expect(tip).toMatch(/receive window at [\d.]+ s: ≥ [\d,]+ B \([^)]*\), scale unknown/);
  });

  it('loss-1pct.pcap: the SACK-adjusted pipe as a second line, below the outstanding bytes where SACKs arrived', async () => {
    const { svg, m } = await drawn('loss-1pct.pcap', 'dots', true);
    // One M4 column per non-empty pixel column, like the in-flight marks (same segments:
    // wasm/tests/view_issue17.rs, 8,302 values at the same times).
    expect(num(svg, 'path.tcps-pipe', 'data-points')).toBe(m.pipe!.column.length);
    expect(m.pipe!.column.length).toBe(m.inflight!.column.length);
    expect(svg.querySelector('path.tcps-pipe')!.getAttribute('d')).toMatch(/^M/);
    // Never above SND.NXT − SND.UNA (RFC 6675 pipe ≤ outstanding), lower in some columns.
    const lower = Array.from(m.pipe!.min).filter((v, k) => v < m.inflight!.min[k]).length;
    expect(Array.from(m.pipe!.max).every((v, k) => v <= m.inflight!.max[k])).toBe(true);
    expect(lower).toBeGreaterThan(0);
    expect(svg.querySelector('desc')!.textContent).toContain('SACK-adjusted pipe');
    const tip = await tipAt(svg, 300);
    expect(tip).toMatch(/SACK-adjusted pipe at [\d.]+ s: [\d,]+ B/);
  });

  it('without the pipe line nothing of it is drawn', async () => {
    const { svg } = await drawn('loss-1pct.pcap');
    expect(svg.querySelector('path.tcps-pipe')).toBeNull();
    expect(svg.querySelector('desc')!.textContent).not.toContain('pipe');
  });
});
