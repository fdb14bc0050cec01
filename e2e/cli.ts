// The CLI as the e2e tests run it, and its JSON report of an example capture (the same
// wasm module as the page, under Node): what e2e tests compare the page's numbers with.
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const examples = `${root}public/examples/`;

/**
 * Runs `tcpscope ARGS…` (bin/tcpscope.mjs) and returns its standard output. Node runs it
 * with V8's baseline wasm compiler only, as the browser does (playwright.config.ts): the
 * optimising compiler's work on the engine's hot functions cost more than it saved on
 * the examples (issue 42, item 1: `analyze` of stalls.pcap 0.70 → 0.18 CPU-s, `render`
 * of one chart 1.74 → 1.07). The same module, the same output.
 */
export function tcpscope(args: string[], options: ExecFileSyncOptions = {}): string {
  return execFileSync(process.execPath, ['--liftoff-only', `${root}bin/tcpscope.mjs`, ...args], { encoding: 'utf8', ...options }) as string;
}

/** `tcpscope analyze public/examples/<file> --json`, parsed. */
export function cliReport(file: string) {
  return JSON.parse(tcpscope(['analyze', `${examples}${file}`, '--json']));
}

/** `tcpscope analyze public/examples/<a> --other-end public/examples/<b> --json` (issue 44), parsed.
 * The pretty-printed report with its per-pair series (one-way delay, time-sequence: up to
 * 2 × 2,000 and 2 × 2 × 1,000 bins) passes Node's default 1 MiB output buffer
 * (twin-sender-pause: 1.24 MB); 64 MiB bounds it still. */
export function cliTwin(a: string, b: string) {
  return JSON.parse(tcpscope(['analyze', `${examples}${a}`, '--other-end', `${examples}${b}`, '--json'], { maxBuffer: 64 << 20 }));
}
