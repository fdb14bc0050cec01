import { describe, expect, it } from 'vitest';
import {
  formatBitrate, formatBytes, formatBytesSI, formatDuration, formatMs, formatPercent, formatRate,
  formatTime, formatTimestamp, num,
} from './format.mjs';

// Same cases as wasm/src/analysis/format.rs: the Rust text and the UI must agree.
describe('format', () => {
  it('rounds: one decimal below 10, whole numbers from 10', () => {
    expect(num(2.8)).toBe('2.8');
    expect(num(5)).toBe('5');
    expect(num(9.96)).toBe('10');
    expect(num(12.5)).toBe('13');
    expect(num(186.55)).toBe('187');
  });

  it('bit rates use SI prefixes', () => {
    // 64 KiB / 2.8 ms = 187,245,714 bit/s (DESIGN.md's 802.11ac story).
    expect(formatBitrate((65536 * 8) / 0.0028)).toBe('187 Mbit/s');
    expect(formatBitrate((32768 * 8) / 0.0028)).toBe('94 Mbit/s');
    expect(formatBitrate(533e6)).toBe('533 Mbit/s');
    expect(formatBitrate(1.25e9)).toBe('1.3 Gbit/s');
    expect(formatBitrate(12.5e9)).toBe('13 Gbit/s');
    expect(formatBitrate(9_960)).toBe('10 kbit/s');
    expect(formatBitrate(999_700)).toBe('1 Mbit/s');
    expect(formatBitrate(12)).toBe('12 bit/s');
    expect(formatBitrate(0)).toBe('0 bit/s');
    expect(formatBitrate(NaN)).toBe('–');
    expect(formatRate).toBe(formatBitrate);
  });

  it('bytes use IEC prefixes (and SI for file sizes)', () => {
    expect(formatBytes(65536)).toBe('64 KiB');
    expect(formatBytes(32768)).toBe('32 KiB');
    expect(formatBytes(1448)).toBe('1.4 KiB');
    expect(formatBytes(500)).toBe('500 B');
    expect(formatBytes(186_550)).toBe('182 KiB');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3 MiB');
    expect(formatBytes(16 * 1024 * 1024)).toBe('16 MiB');
    expect(formatBytes(1024 * 1024 - 10)).toBe('1 MiB');
    expect(formatBytesSI(12_345_678)).toBe('12 MB');
    expect(formatBytesSI(1_500)).toBe('1.5 kB');
  });

  it('durations, timestamps, percentages', () => {
    expect(formatDuration(0.0028)).toBe('2.8 ms');
    expect(formatDuration(0.04)).toBe('40 ms');
    expect(formatDuration(0.0005)).toBe('500 µs');
    expect(formatDuration(1.2)).toBe('1.2 s');
    expect(formatDuration(0.9999)).toBe('1 s');
    expect(formatDuration(0)).toBe('0 s');
    expect(formatTimestamp(1.2344)).toBe('1.234 s');
    expect(formatTime(1.2345678)).toBe('1.234568 s');
    expect(formatPercent(0.912)).toBe('91 %');
  });

  it('formats RTTs given in ms', () => {
    expect(formatMs(2.8)).toBe('2.8 ms');
    expect(formatMs(40)).toBe('40 ms');
    expect(formatMs(0.02)).toBe('20 µs');
    expect(formatMs(1500)).toBe('1.5 s');
    expect(formatMs(null)).toBe('–');
    expect(formatMs(undefined)).toBe('–');
  });
});

// One way on both sides of the boundary (issue 40 item 2): the engine's sentences
// (wasm/src/analysis/format.rs) and this formatter give the same string for each value
// of the table the engine writes (wasm/src/boundary/format_samples.rs).
import samples from '../worker/generated/format-samples.json';

describe('the engine and the page write numbers the same way', () => {
  const cases: [keyof typeof samples, (v: number) => string][] = [
    ['bytes', formatBytes], ['rate', formatBitrate], ['duration', formatDuration], ['percent', formatPercent],
  ];
  for (const [kind, format] of cases) {
    it(`${kind}: every sample of format-samples.json`, () => {
      const table = samples[kind] as [number, string][];
      expect(table.length).toBeGreaterThan(9);
      expect(table.map(([v]) => [v, format(v)])).toEqual(table);
    });
  }
});
