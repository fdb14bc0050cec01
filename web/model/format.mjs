// Number formatting, one way everywhere (issue 40 item 2): the page, the embed, share
// views and `tcpscope render` (web/), and the CLI's text (cli/format.mjs) import this one
// module, written in plain JavaScript so Node runs it without a build (types: format.d.mts).
// The Rust side writes the diagnosis sentences with the same rules
// (wasm/src/analysis/format.rs); web/model/format.test.ts checks both give the
// same strings on a table of values the engine generates (format-samples.json).
// - bit rates with SI prefixes (DESIGN.md "Throughput"): "187 Mbit/s";
// - data a connection carries or holds (payload, windows, bytes in flight, buffers) with
//   IEC binary prefixes, as the diagnosis sentences write them: "64 KiB", "3 MiB"
//   (formatBytes) — in the table, the details, the compare view and the CLI alike;
// - a file's size and bytes read from it, where people expect decimal as their file
//   manager writes it, with SI prefixes: "12.3 MB" (formatBytesSI; banner, progress);
// - durations: "2.8 ms", "40 ms", "500 µs", "1.2 s"; capture timestamps: "1.234 s";
// - below 10 one decimal (trailing ".0" dropped), from 10 up whole numbers.

/** "1 packet", "12,345 packets": a count with its noun, never "1 packets". */
/** @param {number} n @param {string} noun */
export function countOf(n, noun) {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

/** One decimal below 10, whole numbers from 10, no trailing ".0" (rounded first, so 9.96 → "10"). */
/** @param {number} v */
export function num(v) {
  const r1 = Math.round(v * 10) / 10;
  if (Math.abs(r1) < 10) return String(Number(r1.toFixed(1)));
  return String(Math.round(v));
}

/** @param {number} v @param {number} base @param {readonly string[]} units */
function scaled(v, base, units) {
  if (!Number.isFinite(v)) return '–';
  let x = v;
  let k = 0;
  // Step up a prefix once the *rounded* value reaches the base: 1023.7 KiB → "1 MiB".
  while (k + 1 < units.length && Math.round(Math.abs(x)) >= base) {
    x /= base;
    k++;
  }
  return `${num(x)} ${units[k]}`;
}

const RATE_UNITS = ['bit/s', 'kbit/s', 'Mbit/s', 'Gbit/s', 'Tbit/s'];
const IEC_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
const SI_BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];

/** Bit rate with SI prefixes: 187_245_714 → "187 Mbit/s"; 1.25e9 → "1.3 Gbit/s". */
/** @param {number} bps */
export function formatBitrate(bps) {
  return scaled(bps, 1000, RATE_UNITS);
}
/** Alias of formatBitrate. */
export const formatRate = formatBitrate;

/** Bytes with IEC prefixes: 65536 → "64 KiB"; 1448 → "1.4 KiB"; 900 → "900 B". */
/** @param {number} bytes */
export function formatBytes(bytes) {
  return scaled(bytes, 1024, IEC_UNITS);
}

/** Bytes with decimal SI prefixes (file sizes): 12_345_678 → "12 MB". */
/** @param {number} bytes */
export function formatBytesSI(bytes) {
  return scaled(bytes, 1000, SI_BYTE_UNITS);
}

/** Duration in seconds: 0.0028 → "2.8 ms"; 0.0005 → "500 µs"; 2.5 → "2.5 s". */
/** @param {number} seconds */
export function formatDuration(seconds) {
  if (!Number.isFinite(seconds)) return '–';
  const a = Math.abs(seconds);
  if (a === 0) return '0 s';
  if (a < 0.0009995) return `${num(seconds * 1e6)} µs`;
  if (a < 0.9995) return `${num(seconds * 1e3)} ms`;
  return `${num(seconds)} s`;
}

/** A point on the capture's time axis (s since the first packet): "1.234 s" (ms precision). */
/** @param {number} seconds */
export function formatTimestamp(seconds) {
  return Number.isFinite(seconds) ? `${seconds.toFixed(3)} s` : '–';
}

/** Capture-relative time with µs precision, like Wireshark's frame.time_relative: "1.234567 s". */
/** @param {number} seconds */
export function formatTime(seconds) {
  return Number.isFinite(seconds) ? `${seconds.toFixed(6)} s` : '–';
}

/** A share 0..1 as a whole percentage: 0.912 → "91 %". */
/** @param {number} share */
export function formatPercent(share) {
  return Number.isFinite(share) ? `${Math.round(share * 100)} %` : '–';
}

/** A round-trip time given in ms (the report's unit): 2.8 → "2.8 ms", 0.02 → "20 µs"; null → "–". */
/** @param {number | null | undefined} ms */
export function formatMs(ms) {
  return ms == null ? '–' : formatDuration(ms / 1000);
}
