// Formatting used by the charts: the app-wide conventions of web/model/format.ts
// (DESIGN.md: rates in bit/s with SI prefixes, "120 Mbit/s"; windows and sequence
// offsets in IEC bytes, "64 KiB"; durations "2.8 ms"; capture times with µs precision).
// Re-exported here so chart code has one import site for units.

export { formatBitrate, formatBytes, formatDuration, formatTime } from '../model/format.mjs';

// One formatter, made once: Number#toLocaleString builds a new one per call (slow in
// the per-draw histogram titles).
const INTEGER = new Intl.NumberFormat('en-US');
/** 12,345 (en-US grouping), as `n.toLocaleString('en-US')`. */
export const formatCount = (n: number): string => INTEGER.format(n);
