// The CLI's JSON report of an example capture (the same wasm module as the page, under
// Node): what e2e tests compare the page's numbers with.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const examples = `${root}public/examples/`;

/** `tcpscope analyze public/examples/<file> --json`, parsed. */
export function cliReport(file: string) {
  return JSON.parse(execFileSync(process.execPath, [`${root}bin/tcpscope.mjs`, 'analyze', `${examples}${file}`, '--json'], { encoding: 'utf8' }));
}

/** `tcpscope analyze public/examples/<a> --other-end public/examples/<b> --json` (issue 44), parsed.
 * The pretty-printed report with its per-pair series (one-way delay, time-sequence: up to
 * 2 × 2,000 and 2 × 2 × 1,000 bins) passes Node's default 1 MiB output buffer
 * (twin-sender-pause: 1.24 MB); 64 MiB bounds it still. */
export function cliTwin(a: string, b: string) {
  return JSON.parse(execFileSync(process.execPath, [`${root}bin/tcpscope.mjs`, 'analyze', `${examples}${a}`, '--other-end', `${examples}${b}`, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
}
