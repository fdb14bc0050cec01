// @vitest-environment jsdom
// The progress bar says what the worker is doing: reading and decoding, then, with every
// byte read, the end-of-capture analysis (≈ 1.5 s on 10^7 packets) instead of a bar
// stuck at 100 % under "Decoding".
import { describe, expect, it } from 'vitest';
import { ProgressBar } from './ProgressBar';
import { render } from './testUtil';

const progress = (bytesRead: number) => ({ generation: 1, bytesRead, totalBytes: 252_450_532, packets: 1_234_567, elapsedMs: 500 });

describe('ProgressBar', () => {
  it('while reading: bytes of bytes, the rate and the packets, a determinate bar', () => {
    const el = render(<ProgressBar name="bulk.pcap" progress={progress(126_225_266)} onCancel={() => {}} />);
    expect(el.querySelector('p')!.textContent).toBe('Decoding bulk.pcap: 126 MB of 252 MB (50 %) at 252 MB/s · 1,234,567 packets');
    expect(el.querySelector('progress')!.getAttribute('value')).toBe('0.5');
  });

  it('every byte read: it says the analysis runs, and the bar is indeterminate', () => {
    const el = render(<ProgressBar name="bulk.pcap" progress={progress(252_450_532)} onCancel={() => {}} />);
    expect(el.querySelector('[data-testid="progress-analysing"]')!.textContent).toBe(
      'Analysing bulk.pcap: all 252 MB read, 1,234,567 packets so far · finding retransmissions, stalls and their causes',
    );
    expect(el.querySelector('progress')!.hasAttribute('value')).toBe(false);
    expect(el.querySelector('[data-testid="cancel"]')).not.toBeNull(); // still cancellable
  });

  it('a download of unannounced size: the bytes read, no "of 0 B", an indeterminate bar', () => {
    const el = render(<ProgressBar name="endless.pcap" progress={{ bytesRead: 3_000_000, totalBytes: 0, packets: 12, elapsedMs: 1000 }} onCancel={() => {}} />);
    expect(el.querySelector('p')!.textContent).toBe('Decoding endless.pcap: 3 MB read at 3 MB/s · 12 packets');
    expect(el.querySelector('progress')!.hasAttribute('value')).toBe(false);
  });

  it('before the first progress message: nothing read, no division by zero', () => {
    const el = render(<ProgressBar name="x.pcap" progress={null} onCancel={() => {}} />);
    expect(el.querySelector('p')!.textContent).toContain('Decoding x.pcap');
    expect(el.querySelector('progress')!.getAttribute('value')).toBe('0');
  });
});
