// The first chart's path marks (marks.ts) and the benchmark's reading of them from a
// Chromium trace (bench/trace-steps.mjs): names, order, threads and the busy window.
import { describe, expect, it } from 'vitest';
import { clearMarks, mark, measure } from './marks';
// @ts-expect-error: a plain .mjs of the benchmark, no types
import { traceSteps } from '../../bench/trace-steps.mjs';

describe('marks', () => {
  it('marks and measures under tcpscope:, and a new load clears only those', () => {
    performance.mark('someone-else');
    mark('open-posted');
    measure('push', performance.now() - 5);
    const ours = () => performance.getEntries().filter((e) => e.name.startsWith('tcpscope:')).map((e) => e.name).sort();
    expect(ours()).toEqual(['tcpscope:open-posted', 'tcpscope:push']);
    clearMarks();
    expect(ours()).toEqual([]);
    expect(performance.getEntriesByName('someone-else')).toHaveLength(1);
    performance.clearMarks('someone-else');
  });
});

describe('traceSteps', () => {
  // Three threads: the page (1), the decoder (2) and the reader (3); ts in µs.
  const ev = (tid: number, name: string, ts: number, extra: object = {}) => ({ pid: 9, tid, name, ts, cat: 'blink.user_timing', ph: 'R', ...extra });
  const trace = {
    traceEvents: [
      { pid: 9, tid: 1, ph: 'M', name: 'thread_name', args: { name: 'CrRendererMain' } },
      { pid: 9, tid: 2, ph: 'M', name: 'thread_name', args: { name: 'DedicatedWorker thread' } },
      { pid: 9, tid: 3, ph: 'M', name: 'thread_name', args: { name: 'DedicatedWorker thread' } },
      ev(2, 'tcpscope:worker-start', 500_000),
      ev(1, 'tcpscope:open-posted', 1_000_000),
      ev(2, 'tcpscope:open-received', 1_002_000),
      ev(3, 'tcpscope:read', 1_003_000, { ph: 'b', id2: { local: '0x1' } }),
      ev(3, 'tcpscope:read', 1_013_000, { ph: 'e', id2: { local: '0x1' } }),
      ev(2, 'tcpscope:push', 1_020_000, { ph: 'b', id2: { local: '0x2' } }),
      ev(2, 'tcpscope:push', 1_050_000, { ph: 'e', id2: { local: '0x2' } }),
      ev(1, 'tcpscope:chart-drawn', 1_200_000),
      // A task of the decoder straddling the drop: only its part inside the window counts.
      { pid: 9, tid: 2, ph: 'X', cat: 'toplevel', name: 'RunTask', ts: 990_000, dur: 60_000 },
      { pid: 9, tid: 2, ph: 'X', cat: 'v8.wasm', name: 'wasm.StartStreamingCompilation', ts: 600_000, dur: 0 },
    ],
  };
  it('lines up the marks of the three threads from the drop, with the busy time to the first bar', () => {
    const t = traceSteps(trace);
    expect(t.windowMs).toBe(200);
    expect(t.steps).toEqual([
      ['decoder', 'worker-start', -500, 0],
      ['page', 'open-posted', 0, 0],
      ['decoder', 'open-received', 2, 0],
      ['reader', 'read', 3, 10],
      ['decoder', 'push', 20, 30],
      ['page', 'chart-drawn', 200, 0],
    ]);
    // 990–1050 ms clipped to 1000–1050: 50 ms.
    expect(t.busy).toEqual({ decoder: 50 });
  });
  it('says so when the trace has no drop', () => {
    expect(traceSteps({ traceEvents: [] }).error).toMatch(/open-posted/);
  });
});
