// `tcpscope analyze MERGED.pcapng --vantage-by-interface` (issue 44 item 1, cli/vantage.mjs):
// one pcapng holding both ends of a transfer, split by interface and merged. The fixture
// is `mergecap -I none` of twin-forward-loss.pcap and its -server.pcap
// (wasm/tests/twin_interfaces.rs gives the recipe): its merge must be the two files' merge
// (`analyze CLIENT --other-end SERVER --json`), field for field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInProcess } from './testing/in-process.mjs';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const examples = join(root, 'public', 'examples');
const merged = join(root, 'wasm', 'tests', 'fixtures', 'twin-forward-loss-mergecap.pcapng.gz');
const client = join(examples, 'twin-forward-loss.pcap');
const server = join(examples, 'twin-forward-loss-server.pcap');

test('the merged pcapng gives the two files\' merge, field for field', async () => {
  const one = await runInProcess('analyze', merged, '--vantage-by-interface', '--json');
  assert.equal(one.code, 0, one.stderr);
  const two = await runInProcess('analyze', client, '--other-end', server, '--json');
  assert.equal(two.code, 0, two.stderr);
  assert.deepEqual(JSON.parse(one.stdout), JSON.parse(two.stdout));
  // The forward path's 47 drops, as the emulator counted them (examples-truth).
  assert.deepEqual(JSON.parse(one.stdout).pairs[0].directions.map((d) => d.lostBetween), [47, 0]);
});

test('the human summary names each side by its interface and says how they were found', async () => {
  const r = await runInProcess('analyze', merged, '--vantage-by-interface');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /twin-forward-loss-mergecap\.pcapng\.gz interface 0 \+ .*twin-forward-loss-mergecap\.pcapng\.gz interface 1: 1 connection merged/);
  assert.match(r.stdout, /data sender's side: .*interface 1 #0; receiver's side: .*interface 0 #0/);
  assert.match(r.stdout, /lost between 47/);
  assert.match(r.stderr, /note: interface 0 and interface 1 carry the same TCP segments \(1000 or more seen on both\)/);
});

test('a capture that is not two vantage points is refused with why, exit 1', () => {
  // Through a real process: the exit status and the two-line failure.
  const one = spawnSync(process.execPath, [...NODE_ARGS, join(root, 'bin', 'tcpscope.mjs'), 'analyze', client, '--vantage-by-interface'], { encoding: 'utf8' });
  assert.equal(one.status, 1);
  assert.equal(one.stdout, '');
  assert.match(one.stderr, /is not two vantage points: The file is not a pcapng/);
  const ng = spawnSync(process.execPath, [...NODE_ARGS, join(root, 'bin', 'tcpscope.mjs'), 'analyze', join(examples, 'pcapng-zero-window.pcapng'), '--vantage-by-interface', '--json'], { encoding: 'utf8' });
  assert.equal(ng.status, 1);
  assert.match(ng.stderr, /It describes one interface.*mergecap joins identical interfaces into one unless it is given -I none/s);
});

test('usage: one capture, not with --other-end, not from standard input', async () => {
  const usage = async (args, pattern) => {
    const r = await runInProcess('analyze', ...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
  };
  await usage([merged, '--vantage-by-interface', '--other-end', server], /say one of them/);
  await usage([merged, client, '--vantage-by-interface'], /splits one capture: give one CAPTURE/);
  await usage([merged, '--vantage-by-interface', '--ndjson'], /prints a summary or, with --json/);
  await usage(['-', '--vantage-by-interface'], /standard input cannot be read again/);
  const help = spawnSync(process.execPath, [...NODE_ARGS, join(root, 'bin', 'tcpscope.mjs'), 'help', 'analyze'], { encoding: 'utf8' });
  assert.match(help.stdout, /--vantage-by-interface\n\s+one pcapng holding both ends/);
  assert.match(help.stdout, /mergecap -I none -w MERGED\.pcapng CLIENT\.pcap\s+SERVER\.pcap/);
});
