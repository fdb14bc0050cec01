// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { HandshakePanel } from './HandshakePanel';
import type { Handshake } from '../model/types';
import { render } from './testUtil';

// rwnd-limited.pcap connection 1, as `tcpscope analyze --json` reports it.
const negotiated: Handshake = {
  syn: { from: '10.77.0.1:44320', mss: 1460, windowScale: 10, sackPermitted: true, timestamps: true, ecn: false, accecn: false, tfo: false, mptcp: false },
  synAck: { from: '10.77.0.2:5201', mss: 1460, windowScale: 7, sackPermitted: true, timestamps: true, ecn: false, accecn: false, tfo: false, mptcp: false },
  windowScaling: 'negotiated',
};

const cells = (el: HTMLElement) =>
  [...el.querySelectorAll('tbody tr')].map((r) => [...r.children].map((c) => c.textContent));

describe('HandshakePanel', () => {
  it('shows each side\'s options and the scaling state', () => {
    const el = render(<HandshakePanel handshake={negotiated} />);
    expect(el.querySelector('[data-testid="handshake"]')!.getAttribute('data-window-scaling')).toBe('negotiated');
    expect(el.querySelector('thead')!.textContent).toContain('SYN/ACK from 10.77.0.2:5201');
    expect(cells(el)).toEqual([
      ['MSS', '1460 B', '1460 B'],
      ['Window scale', '10 (×1024)', '7 (×128)'],
      ['SACK permitted', 'yes', 'yes'],
      ['Timestamps', 'yes', 'yes'],
      ['ECN', 'no', 'no'],
      ['TCP Fast Open', 'no', 'no'],
    ]);
  });

  it('says when the handshake was not captured', () => {
    const el = render(<HandshakePanel handshake={{ syn: null, synAck: null, windowScaling: 'not-captured' }} />);
    expect(el.querySelector('[data-testid="handshake-scaling"]')!.textContent).toContain('unknown');
    expect(cells(el)[0]).toEqual(['MSS', 'not captured', 'not captured']);
  });
});
