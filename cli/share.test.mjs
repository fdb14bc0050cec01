// Tests of `tcpscope share` (cli/share.mjs) through a real child process: the link of
// an example connection is ≤ 8 KB, and `tcpscope series` reads it back with the
// same answer as from the capture, to the link's quantization (wasm/src/share).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'tcpscope.mjs');
const capture = join(root, 'public', 'examples', 'loss-1pct.pcap');
const skip = !existsSync(capture) && 'no examples';

function run(...args) {
  const r = spawnSync(process.execPath, [...NODE_ARGS, bin, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('share prints a link of at most 8 KB that series reads like the capture', { skip }, () => {
  const made = run('share', capture, '--connection', '1', '--columns', '1000');
  assert.equal(made.code, 0, made.stderr);
  const link = made.stdout.trim();
  assert.ok(link.length <= 8192, `link of ${link.length} bytes`);
  assert.match(link, /#c=1&snap=[A-Za-z0-9_-]+$/);
  const ask = (source) => JSON.parse(run('series', source, '--connection', '1', '--series', 'throughput', '--json', '--columns', '1000').stdout);
  const live = ask(capture);
  const shared = ask(link);
  assert.equal(shared.binSeconds, live.binSeconds);
  assert.equal(shared.bytes.length, live.bytes.length);
  const peak = Math.max(...live.bytes);
  shared.bytes.forEach((b, i) => assert.ok(Math.abs(b - live.bytes[i]) <= peak / 256, `bin ${i}: ${b} vs ${live.bytes[i]}`));
  // A file holding the link works too.
  const file = join(mkdtempSync(join(tmpdir(), 'tcpscope-')), 'link.txt');
  writeFileSync(file, `${link}\n`);
  assert.deepEqual(ask(file).bytes, shared.bytes);
});

test('share --pipe: the link holds the pipe line and says #pipe=1, as the page\'s Share does', { skip }, () => {
  const made = run('share', capture, '--connection', '1', '--pipe');
  assert.equal(made.code, 0, made.stderr);
  const link = made.stdout.trim();
  assert.ok(link.length <= 8192, `link of ${link.length} bytes`);
  assert.match(link, /#c=1&pipe=1&snap=/);
  const pipe = run('series', link, '--connection', '1', '--series', 'pipe', '--json');
  assert.equal(pipe.code, 0, pipe.stderr);
  assert.ok(JSON.parse(pipe.stdout).column.length > 100);
  // Without --pipe the link does not hold it, and says so.
  const plain = run('series', run('share', capture, '--connection', '1').stdout.trim(), '--connection', '1', '--series', 'pipe', '--json');
  assert.match(plain.stderr + plain.stdout, /does not hold the pipe/);
});

test('a damaged link is a message and exit status 1', { skip }, () => {
  const r = run('series', 'https://x/#c=1&snap=VENQUwIBAAAAAAAA', '--connection', '1', '--series', 'rtt', '--csv');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /snapshot is damaged/);
});

test('share usage errors exit 2, a capture that cannot be read 1 (issue 42, item 3)', () => {
  assert.equal(run('share', capture).code, 2);
  assert.equal(run('share', '/no/such.pcap', '--connection', '0').code, 1);
});
