// @vitest-environment jsdom
// The calculator is seeded only from diagnosis.evidence and, untouched, says what the
// headline says (issue 13 item 6); edited, it recomputes the verdict from its inputs.
import { describe, expect, it } from 'vitest';
import { BdpCalculator } from './BdpCalculator';
import type { ConnectionSummary } from '../model/types';
import { receiverSide, render, typeInto, dir } from './testUtil';
import { bdpCalculator } from '../charts/testEngine';

// The real calculator (analysis/rates/bdp.rs through the wasm module), answering synchronously.
const calculate = bdpCalculator();

const input = (el: HTMLElement, name: string) => el.querySelector(`[data-testid="bdp-${name}"]`) as HTMLInputElement;
const verdict = (el: HTMLElement) => el.querySelector('[data-testid="bdp-verdict"]')!;
const hint = (el: HTMLElement, name: string) => el.querySelector(`[data-testid="bdp-${name}-hint"]`)?.textContent;

// The 802.11ac story (DESIGN.md): 64 KiB window, 2.8 ms, 169 Mbit/s sustained; the peak
// bin (400 Mbit/s) must not become the link rate.
const wifi = receiverSide({
  path: { vantage: 'sender', pathRttMs: 2.8, baseRttMs: 2.8 },
  evidence: { rttMs: 2.8, windowBytes: 65536, windowInferred: false, rateBps: 169e6, capBps: (65536 * 8) / 0.0028, linkRateBps: null, verdict: 'window' },
});
(wifi.directions[0].throughput as { peakBps: number }).peakBps = 400e6;

describe('BdpCalculator seeding', () => {
  it('takes RTT, window and rate from the evidence, never the peak bin', () => {
    const el = render(<BdpCalculator summary={wifi} calculate={calculate} />);
    expect(input(el, 'rtt').value).toBe('2.8');
    expect(input(el, 'window').value).toBe('64');
    expect(input(el, 'link').value).toBe('169');
    expect(hint(el, 'link')).toBe("sustained rate (the window hides the link's capacity): 169 Mbit/s");
    expect(hint(el, 'window')).toBe('largest advertised: 64 KiB');
    const section = el.querySelector('[data-testid="bdp-calculator"]')!;
    expect(section.getAttribute('data-seed-rtt-ms')).toBe('2.8');
    expect(section.getAttribute('data-seed-window-bytes')).toBe('65536');
    expect(section.getAttribute('data-seed-link-bps')).toBe('169000000');
    expect(el.textContent).not.toContain('400 Mbit/s');
    expect(el.querySelector('[data-testid="bdp-cap"]')!.textContent).toContain('A 64 KiB window at 2.8 ms caps throughput at 187 Mbit/s');
    const rows = [...el.querySelectorAll('[data-testid="bdp-table"] tbody tr')].map((r) => r.textContent);
    expect(rows.length).toBe(10);
    expect(rows[0]).toBe('32 KiB94 Mbit/s94 Mbit/s');
  });

  it('uses the diagnosis\'s link estimate when it has one', () => {
    const el = render(<BdpCalculator summary={receiverSide({ evidence: { linkRateBps: 37e6, rateBps: 36e6, verdict: 'link' } })} calculate={calculate} />);
    expect(input(el, 'link').value).toBe('37');
    expect(hint(el, 'link')).toBe('the link rate the diagnosis estimated: 37 Mbit/s');
    expect(verdict(el).getAttribute('data-verdict')).toBe('link');
    expect(verdict(el).textContent).toContain('the link is the limit');
  });

  it('unknown window scale: the inferred lower bound, said so', () => {
    const el = render(<BdpCalculator summary={receiverSide()} calculate={calculate} />);
    expect(input(el, 'window').value).toBe('512');
    expect(hint(el, 'window')).toBe('inferred ≥ 512 KiB (window scale unknown)');
    expect(input(el, 'rtt').value).toBe('25');
    expect(hint(el, 'rtt')).toBe('the path RTT the diagnosis used: 25 ms');
  });

  it('no path RTT: says so, and no caps', () => {
    const el = render(<BdpCalculator summary={receiverSide({ evidence: { rttMs: null, capBps: null, verdict: 'unknown' } })} calculate={calculate} />);
    expect(input(el, 'rtt').value).toBe('');
    expect(hint(el, 'rtt')).toBe('no path RTT could be measured');
    expect(el.textContent).not.toContain('no RTT samples');
    expect(el.querySelector('[data-testid="bdp-no-rtt"]')!.textContent).toBe('No path RTT could be measured: enter a round-trip time to compute the caps.');
    expect(el.querySelector('[data-testid="bdp-cap"]')).toBeNull();
  });

  it('a report without evidence (older snapshot) seeds nothing', () => {
    const old = {
      id: 1, endpoints: ['a', 'b'], handshakeSeen: true, packets: 10, start: 0, end: 1, dataDirection: 0,
      directions: [dir({ rtt: { minMs: 2.8, medianMs: 3 }, throughput: { meanBps: 1e6, peakBps: 9e6, binSeconds: 0.1 } }), dir({})],
      diagnosis: { limit: 'path', text: '', shares: { receiveWindow: 0, loss: 0, application: 0, stalled: 0, other: 1 } },
    } as ConnectionSummary;
    const el = render(<BdpCalculator summary={old} calculate={calculate} />);
    expect(['rtt', 'window', 'link'].map((n) => input(el, n).value)).toEqual(['', '', '']);
    expect(verdict(el).getAttribute('data-verdict')).toBe('unknown');
  });
});

describe('BdpCalculator verdict', () => {
  it.each([
    ['window', 'the window is the limit'],
    ['link', 'the link is the limit'],
    ['loss', 'packet loss is the limit'],
    ['application', 'the sending application is the limit'],
    ['stalls', 'stalls are the limit'],
    ['unknown', 'cannot tell'],
  ] as const)('untouched, it is the headline\'s verdict: %s', (v, words) => {
    const el = render(<BdpCalculator summary={receiverSide({ evidence: { verdict: v } })} calculate={calculate} />);
    expect(verdict(el).getAttribute('data-verdict')).toBe(v);
    expect(verdict(el).getAttribute('data-source')).toBe('diagnosis');
    expect(verdict(el).textContent).toContain(words);
  });

  it('edited, it is recomputed from the inputs; typed back, it is the headline\'s again', () => {
    const el = render(<BdpCalculator summary={wifi} calculate={calculate} />);
    expect(verdict(el).getAttribute('data-verdict')).toBe('window');
    typeInto(input(el, 'window'), '256'); // 256 KiB / 2.8 ms = 749 Mbit/s > 169 Mbit/s
    expect(verdict(el).getAttribute('data-verdict')).toBe('link');
    expect(verdict(el).getAttribute('data-source')).toBe('inputs');
    expect(verdict(el).textContent).toBe('With these inputs: the link is the limit.');
    typeInto(input(el, 'link'), '533'); // 749 > 533: still the link; 186,550 B BDP
    expect(el.querySelector('[data-testid="bdp-need"]')!.textContent).toContain('186,550 bytes');
    expect(el.querySelector('[data-testid="bdp-need"]')!.textContent).toContain('fills the link is 256 KiB');
    const rows = [...el.querySelectorAll('[data-testid="bdp-table"] tbody tr')].map((r) => r.textContent);
    expect(rows[3]).toBe('256 KiB749 Mbit/s533 Mbit/s (full rate)');
    typeInto(input(el, 'window'), '64'); // 187 < 533: the window
    expect(verdict(el).getAttribute('data-verdict')).toBe('window');
    typeInto(input(el, 'link'), '169'); // back to the seed
    expect(verdict(el).getAttribute('data-source')).toBe('diagnosis');
    expect(verdict(el).textContent).toBe('As the diagnosis found: the window is the limit.');
  });
});
