// The temporary snapshot bridge (removed by issue 15) must draw what the engine draws:
// same pixel columns, same bins, same stalls, on the columns a snapshot carries.
import { describe, expect, it } from 'vitest';
import { connectionData } from '../worker/columns';
import { engineFor } from '../charts/testEngine';
import { largest } from '../charts/testUtil';
import { snapshotViewSource } from './legacyViewSource';

describe('snapshot view source (bridge until issue 15)', () => {
  it('answers with the engine\'s columns, bins and stalls on stalls.pcap', async () => {
    const { report, source, session } = engineFor('stalls.pcap');
    const summary = largest(report.connections);
    const bridge = snapshotViewSource(connectionData(session, summary));
    const base = { connection: summary.id, t0: summary.start + 0.2, t1: summary.start + 1.4, columns: 640 };
    for (const series of ['inflight', 'rwnd', 'sequence', 'ack', 'windowEdge', 'rtt'] as const) {
      const [e, b] = await Promise.all([source.query({ ...base, series }), bridge.query({ ...base, series })]);
      if (e.kind !== 'points' || b.kind !== 'points') throw new Error(series);
      expect([...b.column], series).toEqual([...e.column]);
      expect([...b.max], series).toEqual([...e.max]);
      expect(b.markers?.t.length ?? 0, series).toBe(e.markers?.t.length ?? 0);
    }
    const [e, b] = await Promise.all([source.query({ ...base, series: 'throughput' }), bridge.query({ ...base, series: 'throughput' })]);
    if (e.kind !== 'bins' || b.kind !== 'bins') throw new Error('bins');
    expect([...b.bps]).toEqual([...e.bps]);
    const [es, bs] = await Promise.all([source.query({ ...base, series: 'stalls' }), bridge.query({ ...base, series: 'stalls' })]);
    if (es.kind !== 'intervals' || bs.kind !== 'intervals') throw new Error('stalls');
    expect(bs.intervals.map((i) => [i.start, i.end, i.cause])).toEqual(es.intervals.map((i) => [i.start, i.end, i.cause]));
  });
});
