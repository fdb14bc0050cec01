// Caps on gzip input in the CLI (issue 16 item 7): a gzip bomb streamed into
// `tcpscope analyze -` stops at the ratio cap of wasm/src/inflate.rs with the same
// one-line message as the browser, keeps what was decoded, and never inflates the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipBomb } from '../scripts/fixtures/gzip-bomb.mjs';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'tcpscope.mjs');

test('an 8 GiB gzip bomb on standard input stops at the ratio cap with a one-line message', async () => {
  const cli = spawn(process.execPath, [...NODE_ARGS, bin, 'analyze', '-', '--json'], { stdio: ['pipe', 'pipe', 'pipe'] });
  // Streamed: the generator is stopped by EPIPE once the CLI has stopped reading.
  const bomb = gzipBomb(8 * 2 ** 30);
  bomb.pipe(cli.stdin);
  cli.stdin.on('error', () => {});
  let stdout = '';
  let stderr = '';
  cli.stdout.on('data', (d) => (stdout += d));
  cli.stderr.on('data', (d) => (stderr += d));
  const status = await new Promise((resolve) => cli.on('close', resolve));
  bomb.unpipe();
  bomb.destroy();
  assert.equal(stderr, '');
  assert.equal(status, 1, 'exit status 1: the input was cut short, the partial result printed');
  const report = JSON.parse(stdout);
  assert.equal(report.error.kind, 'too-large');
  assert.equal(report.error.layer, 'capture');
  // The cap is judged past 64 MiB inflated; zeros deflate ~1032:1, above 200:1.
  assert.match(report.error.message, /^The gzip stream inflates more than 200:1 \(6\d MiB from \d+ KiB compressed\)/);
  assert.ok(!report.error.message.includes('\n'));
  // Everything before the cap was decoded: 64 MiB of empty 16-byte records.
  assert.ok(report.capture.packets >= 4_000_000, `${report.capture.packets} packets`);
});
