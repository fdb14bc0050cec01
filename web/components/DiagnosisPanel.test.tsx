// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { DiagnosisPanel } from './DiagnosisPanel';
import { BdpCalculator } from './BdpCalculator';
import type { ConnectionSummary, DirectionSummary, Stall } from '../model/types';
import { directionSummary } from '../charts/fixtures';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const dir = (over: Partial<DirectionSummary>): DirectionSummary =>
  directionSummary({ from: '10.0.0.1:5001', to: '10.0.0.2:40000', windowScale: null, ...over });

const stalls: Stall[] = [
  { start: 1.015, duration: 0.185, cause: 'retransmission-timeout', frameBefore: 5, frameAfter: 7, endedBy: 'retransmission of 1448 bytes at 1.200 s' },
  { start: 3.4, duration: 0.5001, cause: 'zero-window', frameBefore: 12, frameAfter: 15, endedBy: 'window update to 64 KiB' },
];

// The 802.11ac story: 64 KiB window, 2.8 ms, 169 Mbit/s average.
const summary: ConnectionSummary = {
  id: 3, endpoints: ['10.0.0.1:5001', '10.0.0.2:40000'], handshakeSeen: true, packets: 1000, start: 0, end: 5,
  dataDirection: 0,
  directions: [
    dir({ rtt: { minMs: 2.8, medianMs: 3 }, throughput: { meanBps: 169e6, peakBps: 186e6, binSeconds: 0.1 }, stalls }),
    dir({ from: '10.0.0.2:40000', to: '10.0.0.1:5001', receiveWindow: { min: 1000, max: 65536 } }),
  ],
  diagnosis: {
    limit: 'receive-window',
    text: 'The receiver never advertised more than 64 KiB.',
    shares: { receiveWindow: 0.91, loss: 0.02, application: 0, stalled: 0.05, other: 0.02 },
  },
};

function render(node: React.ReactNode) {
  const el = document.createElement('div');
  document.body.append(el);
  const root = createRoot(el);
  act(() => root.render(node));
  return el;
}

describe('DiagnosisPanel', () => {
  it('shows the headline, text, shares and the stall table', () => {
    const el = render(<DiagnosisPanel summary={summary} />);
    const root = el.querySelector('[data-testid="diagnosis"]')!;
    expect(root.getAttribute('data-limit')).toBe('receive-window');
    expect(root.querySelector('h2')!.textContent).toContain('Limited by the receive window');
    expect(el.querySelector('[data-testid="diagnosis-text"]')!.textContent).toBe(summary.diagnosis.text);
    const bar = el.querySelector('[data-testid="diagnosis-shares"]')!;
    expect(bar.getAttribute('aria-label')).toContain('receive window 91 %');
    expect((bar.querySelector('[data-share="receiveWindow"]') as HTMLElement).style.width).toBe('91%');
    expect(bar.querySelector('[data-share="application"]')).toBeNull(); // 0 % is not drawn
    const rows = [...el.querySelectorAll('[data-testid="stall-table"] tbody tr')];
    expect(rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent))).toEqual([
      ['retransmission timeout', '1.015 s', '185 ms', 'retransmission of 1448 bytes at 1.200 s', '5–7'],
      ['zero window', '3.400 s', '500 ms', 'window update to 64 KiB', '12–15'],
    ]);
    expect(el.querySelector('caption')!.textContent).toBe('2 stalls, 685 ms in total');
  });

  it('takes a stalls override and reports the chosen stall', () => {
    const onSelect = vi.fn();
    const el = render(<DiagnosisPanel summary={summary} stalls={[stalls[1]]} onSelectStall={onSelect} />);
    const buttons = el.querySelectorAll('[data-testid="stall-table"] button');
    expect(buttons.length).toBe(1);
    act(() => (buttons[0] as HTMLButtonElement).click());
    expect(onSelect).toHaveBeenCalledWith(3.4, 0.5001);
    const many = render(<DiagnosisPanel summary={summary} stalls={Array.from({ length: 600 }, (_, i) => ({ ...stalls[0], frameBefore: i, frameAfter: i + 1 }))} />);
    expect(many.querySelectorAll('[data-testid="stall-table"] tbody tr').length).toBe(501);
    expect(many.querySelector('[data-testid="stall-table"] tbody tr:last-child')!.textContent).toBe('… and 100 more (first 500 shown)');
    const none = render(<DiagnosisPanel summary={summary} stalls={[]} />);
    expect(none.querySelector('[data-testid="no-stalls"]')).not.toBeNull();
  });
});

describe('BdpCalculator', () => {
  it('is seeded from the connection and shows the window caps', () => {
    const el = render(<BdpCalculator summary={summary} />);
    const input = (name: string) => el.querySelector(`input[name="${name}"]`) as HTMLInputElement;
    expect(input('rtt').value).toBe('2.8');
    expect(input('window').value).toBe('64');
    expect(input('link').value).toBe('186');
    expect(el.querySelector('[data-testid="bdp-cap"]')!.textContent).toContain('A 64 KiB window at 2.8 ms caps throughput at 187 Mbit/s');
    const rows = [...el.querySelectorAll('[data-testid="bdp-table"] tbody tr')].map((r) => r.textContent);
    expect(rows.length).toBe(10);
    expect(rows[0]).toBe('32 KiB94 Mbit/s94 Mbit/s');
    expect(rows[9]).toContain('16 MiB');
  });

  it('recomputes when the link rate changes (533 Mbit/s: 186,550 B, 256 KiB fills it)', () => {
    const el = render(<BdpCalculator summary={summary} />);
    const link = el.querySelector('input[name="link"]') as HTMLInputElement;
    act(() => {
      const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      set.call(link, '533');
      link.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(el.querySelector('[data-testid="bdp-need"]')!.textContent).toContain('186,550 bytes');
    expect(el.querySelector('[data-testid="bdp-need"]')!.textContent).toContain('fills the link is 256 KiB');
    const rows = [...el.querySelectorAll('[data-testid="bdp-table"] tbody tr')].map((r) => r.textContent);
    expect(rows[3]).toBe('256 KiB749 Mbit/s533 Mbit/s (full rate)');
  });
});
