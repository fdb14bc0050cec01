// The page's entry point for outside text (issue 45, items 1 and 12): a report built from a
// capture whose process name holds terminal escapes and a right-to-left override, and a
// link's 60,000-character endpoint, reach the components sanitized.
import { describe, expect, it } from 'vitest';
import type { ConnectionSummary, Report } from '../model/types';
import { processLabel } from '../model/types';
import { chartTitle } from '../charts/common';
import { sanitizeReport, sanitizeTablePage } from './sanitizeReport';

const hostile = '\x1b]0;owned\x07\u202egnp.exe';
const summary = {
  id: 3, endpoints: ['W'.repeat(60_000), '10.0.0.2:80'], process: { name: hostile, pid: 512 },
  directions: [{ from: 'a\nb', to: 'c', stalls: [{ endedBy: '\u202e' }] }, { from: 'c', to: 'a', stalls: [] }],
  diagnosis: { text: 'limited\x1b[31m', episodes: [{ text: '\u2066x' }] },
} as unknown as ConnectionSummary;
const report = { capture: { linkTypes: ['eth\x00'] }, error: { message: 'bad\x07' }, warnings: [{ kind: 'k', count: 1, message: 'w\x1b' }], connections: [summary] } as unknown as Report;

describe('outside text enters the page sanitized', () => {
  const safe = sanitizeReport(report);
  const s = safe.connections[0];
  it('process names: escapes visible, no raw control or bidi character', () => {
    expect(s.process?.name).toBe('\\x1b]0;owned\\x07\\u{202E}gnp.exe');
    expect(processLabel(s.process!)).toBe('\\x1b]0;owned\\x07\\u{202E}gnp.exe (pid 512)');
    expect(processLabel(summary.process!)).toBe(processLabel(s.process!)); // idempotent: raw or sanitized, the same label
    expect(chartTitle('Throughput', s)).toBe('Throughput — \\x1b]0;owned\\x07\\u{202E}gnp.exe (pid 512)');
  });
  it('lengths capped; every other string a user reads sanitized', () => {
    expect(Array.from(s.endpoints[0]).length).toBe(120);
    expect(s.directions[0].from).toBe('a\\nb');
    expect(s.directions[0].stalls[0].endedBy).toBe('\\u{202E}');
    expect(s.diagnosis.text).toBe('limited\\x1b[31m');
    expect(safe.capture.linkTypes).toEqual(['eth\\x00']);
    expect(safe.error?.message).toBe('bad\\x07');
    expect(safe.warnings[0].message).toBe('w\\x1b');
    // eslint-disable-next-line no-control-regex
    expect(JSON.stringify(safe)).not.toMatch(/\\u00(0|1)[0-9a-f]|[\u202a-\u202e\u2066-\u2069]/);
  });
  it('table rows', () => {
    const page = sanitizeTablePage({ total: 1, matched: 1, offset: 0, rows: [{ id: 0, from: '\u202ex', to: 'y', start: 0, duration: 1, bytes: 1, retransmissions: 0, stalls: 0, limit: 'path' }] } as never);
    expect(page.rows[0].from).toBe('\\u{202E}x');
  });
});
