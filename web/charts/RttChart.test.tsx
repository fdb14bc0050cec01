// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { drawRtt } from './RttChart';
import { pointsOf } from './InflightChart';
import { engineFor } from './testEngine';
import { ask, fullView, largest, newSvg, num, tipAt } from './testUtil';
import { rttStats } from '../model/types';

/** The largest connection of an example capture, its RTT chart drawn from the engine's answer. */
async function drawnFor(capture: string) {
  const { report, source } = engineFor(capture);
  const summary = largest(report.connections);
  const view = fullView(summary, 800, 190);
  const samples = pointsOf(await source.query(ask(summary, view, 'rtt')));
  const svg = newSvg();
  drawRtt(svg, { samples, summary, direction: summary.dataDirection, source }, view);
  return { summary, samples, svg };
}

describe('RTT chart (engine answers)', () => {
  it('draws the samples per pixel column with the minimum line at the summary minimum', async () => {
    const { summary, samples, svg } = await drawnFor('delay-spikes.pcap');
    const r = rttStats(summary.directions[summary.dataDirection].rtt);
    expect(num(svg, 'path.tcps-rtt-kind-0', 'data-points')).toBe(samples!.column.length);
    // Every sample drawn is a trusted one: the smallest is the summary's minimum.
    expect(Math.min(...samples!.min)).toBeCloseTo(r.minMs!, 6);
    expect(svg.querySelector('.tcps-rtt-min-label')!.textContent).toMatch(/^min RTT [\d.]+ ms$/);
    expect(await tipAt(svg, 300)).toMatch(/^RTT [\d.]+ ms at [\d.]+ s/);
  });

  it('scales to the counted samples; a left-out outlier sits on the top edge, said in the note', async () => {
    // outage-in-recovery.pcap: one ACK sample times the 5 s repair of a hole (its
    // segment was SACKed long before: docs/ANALYSIS.md "RTT"); counted samples reach 100 ms.
    const { svg } = await drawnFor('outage-in-recovery.pcap');
    const ticks = [...svg.querySelectorAll('.tick text')].map((t) => parseFloat(t.textContent!)).filter((v) => Number.isFinite(v));
    expect(Math.max(...ticks)).toBeLessThan(200);
    expect(svg.querySelector('.tcps-rtt-min-label')!.textContent).toMatch(/^min RTT 80\.29 ms · \d+ left-out samples? above the scale \(up to 5027\.1 ms\)$/);
  });

  it('says when the far part of the round trip is only its minimum (client-side, no TCP timestamps)', async () => {
    // rx-bufferbloat-nots.pcap: a download behind a 120 ms queue captured at a client
    // that offered no timestamps; nothing times the far part after its first measure
    // (rtt.followedSamples 0), so the flat ~10 ms line must not read as "no queue".
    const { svg } = await drawnFor('rx-bufferbloat-nots.pcap');
    // (The 9 left-out marks above the scale are samples taken while holes were repaired.)
    expect(svg.querySelector('.tcps-rtt-min-label')!.textContent).toBe(
      'min RTT 10.24 ms · 9 left-out samples above the scale (up to 128.9 ms) · far part: minimum only, a queue beyond the capture point does not show',
    );
    // With timestamps the far part follows the queue, and the note is the plain minimum.
    const ts = await drawnFor('rx-bufferbloat.pcap');
    expect(ts.svg.querySelector('.tcps-rtt-min-label')!.textContent).not.toContain('far part');
  });
});
