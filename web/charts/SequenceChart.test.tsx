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

  it('bursts-outage.pcap: each retransmission drawn in the colour of its kind', async () => {
    // The 4-timeout backoff chain at 21.42–26.63 s (wasm/tests/retrans_kinds_captures.rs):
    // over 21.3–26.64 s at 800 columns every marker has its own column: 4 timeouts,
    // the last one spurious (a D-SACK reported it), no other kind.
    const { report, source } = engineFor('bursts-outage.pcap');
    const summary = largest(report.connections);
    const full = fullView(summary, 800, 300);
    const view = { ...full, range: [21.3, 26.64] as [number, number] };
    const segments = await source.query(ask(summary, view, 'sequence'));
    const svg = newSvg();
    drawSequence(svg, { segments: pointsOf(segments), ack: null, edge: null, summary, direction: summary.dataDirection, source }, view);
    const kinds = Object.fromEntries([...svg.querySelectorAll('path.tcps-retx-kind')].map((p) => [p.getAttribute('data-kind'), Number(p.getAttribute('data-count'))]));
    expect(kinds).toEqual({ rto: 4, tlp: 0, fast: 0, 'slow-start': 0, spurious: 1 });
    expect(num(svg, 'path.tcps-retransmissions', 'data-count')).toBe(4);
  });
});
