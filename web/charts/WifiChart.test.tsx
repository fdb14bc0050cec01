// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { drawWifi } from './WifiChart';
import { engineFor } from './testEngine';
import { fullView, newSvg, tipAt } from './testUtil';
import type { ViewAnswer } from '../worker/viewAnswer';

// The generated radiotap capture of e2e/links.spec.ts (wasm/tests/view_wifi.rs): five
// VHT frames at 866.7 Mbit/s from 100 ms, five HT frames at 65 Mbit/s from 200 ms,
// one MAC retry among each five.
describe('Wi-Fi strip (engine answers)', () => {
  const { report, source } = engineFor('../../e2e/fixtures/wifi-radiotap.pcap');
  const summary = report.connections[0];
  const view = fullView(summary, 800, 140);

  it('draws the rate line and one retry bar per bin with retries, at 100 ms bins', async () => {
    const a = await source.query({ connection: summary.id, series: 'wifi', direction: 1, t0: view.range[0], t1: view.range[1], columns: 700, binSeconds: 0.1 });
    expect(a.kind).toBe('wifi');
    const svg = newSvg();
    drawWifi(svg, { wifi: wifiOf(a), summary, direction: 1 }, view);
    expect(svg.querySelector('path.tcps-wifi-retry')!.getAttribute('data-bins')).toBe('2');
    expect(svg.querySelector('path.tcps-wifi-rate')!.getAttribute('data-bins')).toBe('3');
    const tip = await tipAt(svg, 400, 20);
    expect(tip).toMatch(/866.7|867 Mbit\/s/);
    expect(tip).toMatch(/retried 17 %/);
  });
});

function wifiOf(a: ViewAnswer) {
  if (a.kind !== 'wifi' || a.binSeconds == null) throw new Error('not a wifi answer');
  return { ...a, binSeconds: a.binSeconds };
}
