// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { drawEvents, EVENT_SERIES, eventTotals } from './EventsChart';
import { binsOf } from './ThroughputChart';
import { engineFor } from './testEngine';
import { ask, fullView, largest, newSvg, num, tipAt } from './testUtil';

// What the strip draws adds up to the report's counts: over the whole connection the
// bars of each row stand for exactly the events the report counts (the engine bins
// Wireshark's analysis flags, wasm/tests/view_issue17.rs), at the 1600 columns of a
// wide screen as well as at 800.
describe('events strip (engine answers)', () => {
  async function drawn(file: string, columns = 800) {
    const { report, source } = engineFor(file);
    const summary = largest(report.connections);
    const view = fullView(summary, columns + 96, 130);
    const answers = await Promise.all(EVENT_SERIES.map((s) => source.query(ask(summary, view, s))));
    const svg = newSvg();
    drawEvents(svg, { events: answers.map(binsOf), summary, direction: summary.dataDirection, source }, view);
    const drawnOf = (series: string) => num(svg, `path[data-series="${series}"]`, 'data-events');
    return { svg, summary, drawnOf };
  }

  it.each([800, 1600])('bursts-outage.pcap at %i columns: 38 retransmissions and every duplicate ACK, as the report', async (columns) => {
    const { svg, summary, drawnOf } = await drawn('bursts-outage.pcap', columns);
    const totals = eventTotals(summary, summary.dataDirection);
    // The sender re-sent 38 segments through the outage (the report's retransmissions,
    // every kind); the receiver's duplicate ACKs asked for them; no zero window.
    expect(totals.retransmissions).toBe(38);
    expect(drawnOf('retransmissions')).toBe(38);
    expect(drawnOf('duplicateAcks')).toBe(totals.duplicateAcks);
    expect(totals.duplicateAcks).toBeGreaterThan(0);
    expect(drawnOf('zeroWindows')).toBe(0);
    expect(num(svg, 'path[data-series="retransmissions"]', 'data-bins')).toBeGreaterThan(0);
    expect(svg.querySelector('path[data-series="retransmissions"]')!.getAttribute('d')).toMatch(/^M/);
    // The text alternative carries the totals.
    expect(svg.querySelector('desc')!.textContent).toContain('(38 in the connection)');
    expect(svg.getAttribute('data-chart')).toBe('events');
  });

  it('zero-window.pcap: the receiver\'s zero-window advertisements, as the report', async () => {
    const { summary, drawnOf } = await drawn('zero-window.pcap');
    const totals = eventTotals(summary, summary.dataDirection);
    // The report counts 4 zero-window advertisements by the stalled receiver.
    expect(totals.zeroWindows).toBe(4);
    expect(drawnOf('zeroWindows')).toBe(4);
  });

  it('the tooltip gives the engine\'s counts of the bin under the pointer', async () => {
    const { svg } = await drawn('bursts-outage.pcap');
    const tip = await tipAt(svg, 400);
    expect(tip).toMatch(/retransmissions: \d+/);
    expect(tip).toMatch(/duplicate ACKs: \d+/);
    expect(tip).toMatch(/zero windows: 0/);
  });

  it('rwnd-limited.pcap: no loss and no zero window (the report: 0, 0, 0), and the strip says so', async () => {
    const { svg, drawnOf } = await drawn('rwnd-limited.pcap');
    for (const s of EVENT_SERIES) expect(drawnOf(s)).toBe(0);
    expect(svg.querySelector('.tcps-empty')!.textContent).toMatch(/No retransmissions/);
  });
});
