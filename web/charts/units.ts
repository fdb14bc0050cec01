// Formatting used by the charts: the app-wide conventions of web/model/format.ts
// (DESIGN.md: rates in bit/s with SI prefixes, "120 Mbit/s"; windows and sequence
// offsets in IEC bytes, "64 KiB"; durations "2.8 ms"; capture times with µs precision).
// Re-exported here so chart code has one import site for units.

export { formatBitrate, formatBytes, formatDuration, formatTime } from '../model/format';
