// The compare view's share link: a permalink when both captures are reachable by
// address, else two snapshots (one per side, each made by its own worker with the
// existing share code) within half the 8 KB link budget each.
import { describe, expect, it } from 'vitest';
import { DEFAULT_VIEW, parseView, type ViewState } from '../state/url';
import type { ConnectionSummary } from '../model/types';
import type { ShareSpec } from '../worker/protocol';
import { compareLink, type ShareSide } from './compareShare';

const BASE = 'https://tcpscope.example/';
const summary = (id: number, start: number) => ({ id, start, end: start + 2 }) as ConnectionSummary;
const view = (patch: Partial<ViewState>): ViewState => ({ ...DEFAULT_VIEW, charts: [...DEFAULT_VIEW.charts], ...patch });

/** A side whose worker makes a snapshot of `chars` characters and records the spec. */
function side(id: number, start: number, letter: string, chars: number, specs: ShareSpec[]): ShareSide {
  return {
    summary: summary(id, start), name: `${letter}.pcap`,
    make: async (spec) => { specs.push(spec); return { snapshot: letter.repeat(Math.min(chars, spec.maxLinkChars!)), columns: spec.columns, bytes: 0 }; },
  };
}

describe('compare share link', () => {
  it('captures reachable by address: the permalink is the link', async () => {
    const v = parseView('url=https%3A%2F%2Fx.org%2Fa.pcap&compare=1,2&compare-url=https%3A%2F%2Fx.org%2Fb.pcap');
    const specs: ShareSpec[] = [];
    const got = await compareLink(BASE, v, [side(1, 0, 'A', 10, specs), side(2, 0, 'B', 10, specs)], 700, 0.1);
    expect(got).toEqual({ link: `${BASE}#url=https%3A%2F%2Fx.org%2Fa.pcap&compare=1,2&compare-url=https%3A%2F%2Fx.org%2Fb.pcap` });
    expect(specs).toEqual([]);
  });

  it('two captures: one snapshot per side, each asked over its own times within half the budget', async () => {
    const v = view({ source: { kind: 'example', file: 'healthy.pcap' }, conn: 1, range: [3, 4],
      compare: { conns: [1, 1], with: { kind: 'example', file: 'rwnd-limited.pcap' }, range: [0.5, 1.5] } });
    const specs: ShareSpec[] = [];
    const got = await compareLink(BASE, v, [side(1, 0.031544, 'A', 100, specs), side(1, 0.031224, 'B', 200, specs)], 704, 0.1);
    expect(got).toEqual({ link: `${BASE}#compare=1,1&compare-snap=${'B'.repeat(200)}&compare-t=0.5,1.5&snap=${'A'.repeat(100)}` });
    // The link's view without the snapshots: 8192 − its length, halved.
    const prefix = `${BASE}#compare=1,1&compare-t=0.5,1.5&compare-snap=&snap=`;
    const budget = Math.floor((8192 - prefix.length) / 2);
    expect(specs.map((s) => [s.connection, s.t0, s.t1, s.binSeconds, s.columns, s.maxLinkChars, s.charts.join()])).toEqual([
      [1, 0.031544 + 0.5, 0.031544 + 1.5, 0.1, 704, budget, 'throughput,inflight'],
      [1, 0.031224 + 0.5, 0.031224 + 1.5, 0.1, 704, budget, 'throughput,inflight'],
    ]);
  });

  it('unzoomed: each side is asked over the range the compare charts draw, padding included', async () => {
    // Both connections last 2 s: the shared axis is fullRange(0, 2) = [−0.02, 2.02] s
    // (1 % each side) from each one's first packet, the columns the receiver asks for.
    const v = view({ source: { kind: 'example', file: 'healthy.pcap' }, conn: 1,
      compare: { conns: [1, 1], with: { kind: 'example', file: 'rwnd-limited.pcap' }, range: null } });
    const specs: ShareSpec[] = [];
    await compareLink(BASE, v, [side(1, 0.031544, 'A', 100, specs), side(1, 0.031224, 'B', 200, specs)], 704, 0.1);
    expect(specs.map((s) => [s.t0, s.t1])).toEqual([[0.031544 - 0.02, 0.031544 + 2.02], [0.031224 - 0.02, 0.031224 + 2.02]]);
  });

  it('a side opened from a link is re-shared as it is; a link past 8 KB is refused with its size', async () => {
    const v = view({ conn: 0, compare: { conns: [0, 3], with: { kind: 'snapshot', data: 'old' }, range: null } });
    const opened = (id: number, snapshot: string): ShareSide => ({ summary: summary(id, 0), name: 'x', snapshot });
    expect(await compareLink(BASE, v, [opened(0, 'AAA'), opened(3, 'BBB')], 700, 0.1))
      .toEqual({ link: `${BASE}#compare=0,3&compare-snap=BBB&snap=AAA` });
    expect(await compareLink(BASE, v, [opened(0, 'A'.repeat(5000)), opened(3, 'B'.repeat(5000))], 700, 0.1))
      .toEqual({ error: 'This compare view is too large for a link (10 KB).' });
  });

  it('the merged view of two vantage points: made first, its part in the link, the snapshots sharing what it leaves', async () => {
    const v = view({ source: { kind: 'example', file: 'twin-nat.pcap' }, conn: 1,
      compare: { conns: [1, 1], with: { kind: 'example', file: 'twin-nat-server.pcap' }, range: null } });
    const specs: ShareSpec[] = [];
    const asked: [number, number][] = [];
    const twin = { make: async (columns: number, maxChars: number) => { asked.push([columns, maxChars]); return { snapshot: 'T'.repeat(2000), columns: 128, cap: null }; } };
    const got = await compareLink(BASE, v, [side(1, 0, 'A', 100, specs), side(1, 0, 'B', 200, specs)], 704, 0.1, twin);
    expect(got).toEqual({ link: `${BASE}#compare=1,1&compare-snap=${'B'.repeat(200)}&twin-snap=${'T'.repeat(2000)}&snap=${'A'.repeat(100)}` });
    expect(asked).toEqual([[704, Math.floor(8192 / 2)]]);
    // The snapshots store the view without the merged view, and share the budget it leaves.
    const prefix = `${BASE}#compare=1,1&compare-snap=&snap=&twin-snap=${'T'.repeat(2000)}`;
    expect(specs.map((s) => [s.view, s.maxLinkChars])).toEqual([['compare=1,1', Math.floor((8192 - prefix.length) / 2)], ['compare=1,1', Math.floor((8192 - prefix.length) / 2)]]);
  });

  it('a link\'s own merged view is re-shared as it is; one that cannot be made says why', async () => {
    const v = view({ conn: 0, compare: { conns: [0, 3], with: { kind: 'snapshot', data: 'old' }, range: null, twin: 'TTT' } });
    const opened = (id: number, snapshot: string): ShareSide => ({ summary: summary(id, 0), name: 'x', snapshot });
    expect(await compareLink(BASE, v, [opened(0, 'AAA'), opened(3, 'BBB')], 700, 0.1, { snapshot: 'TTT' }))
      .toEqual({ link: `${BASE}#compare=0,3&compare-snap=BBB&twin-snap=TTT&snap=AAA` });
    expect(await compareLink(BASE, v, [opened(0, 'AAA'), opened(3, 'BBB')], 700, 0.1, { make: async () => ({ error: 'it does not fit' }) }))
      .toEqual({ error: 'No link could be made of the merged view: it does not fit' });
  });

  it('snapshots above their budget: the merged view gets the room they leave, or the link goes without it and says so', async () => {
    const v = view({ source: { kind: 'example', file: 'a.pcap' }, conn: 1,
      compare: { conns: [1, 1], with: { kind: 'example', file: 'b.pcap' }, range: null } });
    // Each snapshot has a floor of 3800 characters, above the ~2700 it is asked for.
    const floor = (letter: string): ShareSide => ({ summary: summary(1, 0), name: `${letter}.pcap`, make: async (spec) => ({ snapshot: letter.repeat(3800), columns: spec.columns, bytes: 0 }) });
    const withoutTwin = `${BASE}#compare=1,1&compare-snap=${'B'.repeat(3800)}&snap=${'A'.repeat(3800)}`;
    const room = 8192 - withoutTwin.length - '&twin-snap='.length;
    const asked: number[] = [];
    const shrinks = { make: async (_: number, maxChars: number) => { asked.push(maxChars); return { snapshot: 'T'.repeat(Math.min(2000, maxChars)), columns: 16, cap: 4 }; } };
    expect(await compareLink(BASE, v, [floor('A'), floor('B')], 700, 0.1, shrinks))
      .toEqual({ link: `${BASE}#compare=1,1&compare-snap=${'B'.repeat(3800)}&twin-snap=${'T'.repeat(room)}&snap=${'A'.repeat(3800)}` });
    expect(asked).toEqual([Math.floor(8192 / 2), room]);
    const big = { make: async (_: number, maxChars: number) => (maxChars >= 2000 ? { snapshot: 'T'.repeat(2000), columns: 128, cap: null } : { error: 'it does not fit' }) };
    expect(await compareLink(BASE, v, [floor('A'), floor('B')], 700, 0.1, big)).toEqual({
      link: withoutTwin,
      note: `The merged view of the two vantage points did not fit in the link beside the two snapshots (${room} characters were left); the link opens the compare view without it.`,
    });
  });

  it('a worker that cannot make a link says so', async () => {
    const v = view({ conn: 0, compare: { conns: [0, 1], with: { kind: 'same' }, range: null } });
    const failing: ShareSide = { summary: summary(0, 0), name: 'a.pcap', make: async () => ({ error: 'no connection 0' }) };
    const specs: ShareSpec[] = [];
    expect(await compareLink(BASE, v, [failing, side(1, 0, 'B', 5, specs)], 700, 0.1))
      .toEqual({ error: 'No link could be made of a.pcap: no connection 0' });
  });
});
