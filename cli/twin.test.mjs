// `tcpscope analyze CLIENT --other-end SERVER` (issue 44, cli/twin.mjs) on the twin
// recordings of public/examples: the same transfer captured at both ends, through the
// link emulator (scripts/fixtures/record.sh TWIN=1), whose drop counts are the truth
// (wasm/tests/examples-truth/twin-*.json). One run through a real child process checks
// the exit status and the two-line failure; the rest run in process (cli/testing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInProcess } from './testing/in-process.mjs';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const examples = join(root, 'public', 'examples');
const client = join(examples, 'twin-forward-loss.pcap');
const server = join(examples, 'twin-forward-loss-server.pcap');

const json = async (...args) => {
  const r = await runInProcess('analyze', ...args, '--json');
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};

test('forward loss: lost between 47 on the way to the client, 0 back, as the emulator dropped', async () => {
  const report = await json(client, '--other-end', server);
  assert.equal(report.refusal, null);
  assert.equal(report.pairs.length, 1);
  const [pair] = report.pairs;
  // The server (10.77.0.1) sends the data; the emulator dropped 2 % of a→b (truth file:
  // 47 data segments, none of b→a), every one resent, so the hosts agree each was lost.
  assert.equal(pair.matchedBy, 'four-tuple');
  assert.deepEqual(pair.directions.map((d) => d.lostBetween), [47, 0]);
  assert.equal(pair.senderSide.input, 1, 'the server capture is given second and is near the data sender');
  // Both captures ran on one machine's clock (network namespaces): the offset is within
  // the uncertainty the merge states.
  assert.ok(Math.abs(pair.clock.offsetMs) <= Math.max(0.2, pair.clock.uncertaintyMs));
});

test('swapped inputs give the same numbers; only what names an input changes', async () => {
  const a = await json(client, '--other-end', server);
  const b = await json(server, '--other-end', client);
  // `input`, `unpaired` (per input) and `sidesToldBy` (words naming "capture 1") follow
  // the argument order; everything else is named by role.
  const byRole = (r) => JSON.parse(JSON.stringify(r, (k, v) => (['input', 'unpaired', 'sidesToldBy'].includes(k) ? undefined : v)));
  assert.deepEqual(byRole(b), byRole(a));
  assert.deepEqual(b.unpaired, [...a.unpaired].reverse());
  assert.deepEqual([a.pairs[0].senderSide.input, b.pairs[0].senderSide.input], [1, 0]);
});

test('the human summary words the merge', async () => {
  const r = await runInProcess('analyze', client, '--other-end', server);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /1 connection merged/);
  assert.match(r.stdout, /matched by same addresses and ports/);
  assert.match(r.stdout, /forward 10\.77\.0\.1:9231 -> 10\.77\.0\.2:36178: sent 1725, delivered 1678, lost between 47, reordered 0, duplicated 0/);
  assert.match(r.stdout, /return {2}10\.77\.0\.2:36178 -> 10\.77\.0\.1:9231: sent 1153, delivered 1153, lost between 0/);
  assert.match(r.stdout, /clock: offset .* ± 10 ms/);
  // Each path beside the clock's ± 10.056 ms (forward 10.482, return 10.108 ms: the split
  // is good to that, not to the µs); SND.NXT − SND.UNA named for what it is, not "true
  // in flight": its max 151,552 B (148 KiB) counts SACKed and lost bytes of a recovery.
  assert.match(r.stdout, /RTT split: sender host 21 µs \+ forward path 10 ms ± 10 ms \+ receiver host 46 µs \+ return path 10 ms ± 10 ms/);
  assert.match(r.stdout, /sent, not yet acknowledged \(data sender's capture\): median 11 KiB, max 148 KiB; receiver-side estimate median 11 KiB, within 10 % at 1518 of 1675/);
  assert.match(r.stdout, /queued: neither/);
});

test('pauses below the stall threshold: the summary names both thresholds', async () => {
  const args = [join(examples, 'twin-sender-pause.pcap'), '--other-end', join(examples, 'twin-sender-pause-server.pcap')];
  // The 50 ms SIGSTOPs leave 15–34 ms gaps, below max(10 ms, 4 × the ~20.3 ms min RTT).
  const [pair] = (await json(...args)).pairs;
  assert.deepEqual([pair.stalls.length, pair.stallThresholdMs], [0, [81.38, 81.112]]);
  const r = await runInProcess('analyze', ...args);
  assert.match(r.stdout, /stalls: 0 \(no gap reached the stall threshold: sender side 81 ms, receiver side 81 ms; --stall-ms N places shorter ones\)/);
});

test('a gap both captures saw is counted once: the summary counts the engine\'s distinct stalls', async () => {
  const args = [join(examples, 'a44-fast-rxpause.pcap'), '--other-end', join(examples, 'a44-fast-rxpause-server.pcap')];
  // The client's program was stopped three times for 80 ms (truth file: receiver_stop /
  // receiver_cont); each pause made two gaps in the data (ACKs withheld until the
  // sender's loss probe, then the full window), each listed by both captures: 12 rows,
  // 6 gaps (docs/ANALYSIS.md `twin.distinctStalls`), all in the receiver's host.
  const [pair] = (await json(...args)).pairs;
  assert.deepEqual([pair.stalls.length, pair.distinctStalls.length], [12, 6]);
  const r = await runInProcess('analyze', ...args);
  assert.match(r.stdout, /stalls: 6 \(0 in the sender's host, 0 in the network, 6 in the receiver's host, 0 not placed, by the data's sender and receiver\); 6 seen by both captures, each counted once \(12 rows in the two captures' reports\)/);
  assert.match(r.stdout, /forward 36 ms at 0\.368 s: in the receiver's host \(seen by both captures\)/);
});

test('through a NAT: matched by the ISNs, both connections paired', async () => {
  const report = await json(join(examples, 'twin-nat.pcap'), '--other-end', join(examples, 'twin-nat-server.pcap'));
  // Two transfers through an address and port rewrite; the truth file's drops: 41 and 43.
  assert.deepEqual(report.pairs.map((p) => [p.matchedBy, p.rewritten]), [['isn', true], ['isn', true]]);
  assert.deepEqual(report.pairs.map((p) => p.directions[0].lostBetween), [41, 43]);
});

test('the same file twice is refused with its message, exit 1 (also under another name)', () => {
  const copy = join(mkdtempSync(join(tmpdir(), 'tcpscope-twin-')), 'copy.pcap');
  copyFileSync(client, copy);
  const r = spawnSync(process.execPath, [...NODE_ARGS, join(root, 'bin', 'tcpscope.mjs'), 'analyze', client, '--other-end', copy], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'tcpscope: The two captures are the same file (identical bytes): one vantage point, not two. Give the capture taken at the other end.\ntry: tcpscope help analyze\n');
});

test('--json of a refused merge still prints the report, with the refusal', async () => {
  const r = await runInProcess('analyze', client, '--other-end', client, '--json');
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.stdout).refusal.kind, 'same-capture');
  assert.match(r.stderr, /^tcpscope: The two captures are the same file/);
});

test('usage errors exit 2; an unreadable capture exits 1', async () => {
  const usage = async (args, message) => {
    const r = await runInProcess('analyze', ...args);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.match(r.stderr, /try: tcpscope help analyze\n$/);
  };
  await usage([client, '--other-end'], /--other-end needs the capture taken at the other end/);
  await usage([client, server, '--other-end', server], /give one CAPTURE and the one --other-end/);
  await usage([client, '--other-end', server, '--ndjson'], /--ndjson is for several captures/);
  await usage([client, '--other-end', '-'], /standard input cannot be one of them/);
  await usage([examples, '--other-end', server], /is a directory/);
  const missing = await runInProcess('analyze', client, '--other-end', join(examples, 'nope.pcap'));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot open '.*nope\.pcap'/);
});
