// Minimal SI formatting for chart axes and tooltips.
// web/model/format.ts (owned by the app side) is the canonical formatter; it was not in
// the tree when the charts were written, so the charts carry this small fallback.
// DESIGN.md: rates in bit/s with SI prefixes (kbit/s, Mbit/s, Gbit/s); sizes in IEC
// bytes (KiB, MiB) like the diagnosis text ("rwnd ≤ 64 KiB").

const SI = ['', 'k', 'M', 'G', 'T'];
const IEC = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** Three significant digits, trailing zeros dropped: 120, 12.5, 1.25. */
function sig3(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return String(Number(v.toFixed(digits)));
}

/** 120e6 → "120 Mbit/s"; 0 → "0 bit/s". */
export function formatBitrate(bps: number): string {
  if (!Number.isFinite(bps)) return '–';
  let i = 0;
  let v = bps;
  while (Math.abs(v) >= 1000 && i < SI.length - 1) { v /= 1000; i++; }
  // 999.96 kbit/s rounds to "1000 kbit/s": step up instead.
  if (Math.abs(Number(sig3(v))) >= 1000 && i < SI.length - 1) { v /= 1000; i++; }
  return `${sig3(v)} ${SI[i]}bit/s`;
}

/** 65536 → "64 KiB"; 1448 → "1.41 KiB"; 900 → "900 B". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '–';
  let i = 0;
  let v = bytes;
  while (Math.abs(v) >= 1024 && i < IEC.length - 1) { v /= 1024; i++; }
  return i === 0 ? `${Math.round(v)} B` : `${sig3(v)} ${IEC[i]}`;
}

/** Seconds → "850 µs", "2.8 ms", "1.25 s", "2 min 5 s". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '–';
  const a = Math.abs(seconds);
  if (a === 0) return '0 s';
  if (a < 1e-3) return `${sig3(seconds * 1e6)} µs`;
  if (a < 1) return `${sig3(seconds * 1e3)} ms`;
  if (a < 120) return `${sig3(seconds)} s`;
  const min = Math.floor(a / 60);
  return `${seconds < 0 ? '-' : ''}${min} min ${Math.round(a - min * 60)} s`;
}

/** Capture-relative timestamp with µs precision, as Wireshark shows frame.time_relative. */
export function formatTime(seconds: number): string {
  return Number.isFinite(seconds) ? `${seconds.toFixed(6)} s` : '–';
}

/** Compact axis tick for bit/s: "120M" style is ambiguous, so keep the unit: "120 Mbit/s". */
export const formatBitrateTick = formatBitrate;
