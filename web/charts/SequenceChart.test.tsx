// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { drawSequence } from './SequenceChart';
import { pointsOf } from './InflightChart';
import { engineFor } from './testEngine';
import { ask, fullView, largest, newSvg, num, tipAt } from './testUtil';

describe('time-sequence chart (engine answers)', () => {
  it('loss-1pct.pcap: segments per column, retransmissions marked, ACK and window edge lines', async () => {
    const { report, source } = engineFor('loss-1pct.pcap');
    const summary = largest(report.connections);
    const view = fullView(summary, 800, 300);
    const [segments, ack, edge] = await Promise.all((['sequence', 'ack', 'windowEdge'] as const).map((s) => source.query(ask(summary, view, s))));
    const svg = newSvg();
    drawSequence(svg, { segments: pointsOf(segments), ack: pointsOf(ack), edge: pointsOf(edge), summary, direction: summary.dataDirection, source }, view);
    expect(num(svg, 'path.tcps-segments', 'data-count')).toBe(pointsOf(segments)!.column.length);
    expect(num(svg, 'path.tcps-segments', 'data-total')).toBeGreaterThan(1000);
    expect(summary.directions[summary.dataDirection].retransmissions).toBeGreaterThan(0);
    expect(num(svg, 'path.tcps-retransmissions', 'data-count')).toBeGreaterThan(0);
    for (const cls of ['tcps-seq-ack', 'tcps-seq-window']) expect(svg.querySelector(`path.${cls}`)!.getAttribute('d')).toMatch(/^M/);
    // The window edge is never below the ACK it starts from.
    const a = pointsOf(ack)!, e = pointsOf(edge)!;
    expect(Math.max(...e.max)).toBeGreaterThanOrEqual(Math.max(...a.max));
    expect(await tipAt(svg, 400)).toMatch(/segment at [\d.]+ s: seq [\d,]+/);
  });
});
