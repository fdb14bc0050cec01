import { describe, expect, it } from 'vitest';
import { refusalOf } from './fetchCapture';
import { MAX_ECHO_CHARS } from './url';

const page = 'https://tcpscope.example';

describe('fetchCapture refusals (issue 18, item 3)', () => {
  it.each([
    ['https://other.example/a.pcap', null],
    ['https://tcpscope.example/examples/a.pcap', null],
    ['http://other.example/a.pcap', 'http://other.example/a.pcap was not opened: captures from other sites are fetched over https: only.'],
    ['javascript:alert(1)', 'javascript:alert(1) was not opened: only https: addresses can be fetched, not javascript:.'],
    ['data:application/octet-stream,AAAA', 'data:application/octet-stream,AAAA was not opened: only https: addresses can be fetched, not data:.'],
    ['file:///etc/passwd', 'file:///etc/passwd was not opened: only https: addresses can be fetched, not file:.'],
  ])('%s', (url, expected) => {
    expect(refusalOf(url, page)).toBe(expected);
  });

  it('accepts http: from the page\'s own origin (local preview)', () => {
    expect(refusalOf('http://127.0.0.1:4173/examples/a.pcap', 'http://127.0.0.1:4173')).toBeNull();
  });

  it('cuts a 1 MB address to a one-line message', () => {
    const huge = `javascript:${'x'.repeat(1_000_000)}`;
    const message = refusalOf(huge, page)!;
    expect(message.length).toBeLessThan(MAX_ECHO_CHARS + 200);
    expect(message).not.toContain('\n');
  });
});
