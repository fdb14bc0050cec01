// `tcpscope analyze` in pipelines (issue 16): output cut short by the reader, output
// larger than a pipe's buffer, standard input, FIFOs, NDJSON, fleets, unreadable input.
// Each test runs the real CLI as a child process through a shell pipe.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'tcpscope.mjs');
const examples = join(root, 'public', 'examples');
const tmp = mkdtempSync(join(tmpdir(), 'tcpscope-pipes-'));
const stalls = join(examples, 'stalls.pcap');
let manyConnections; // 500 short connections: ~1.8 MB of --json

before(() => {
  // bench/gen-large.py at 1/200 of its size: 500 request/response connections.
  execFileSync('python3', [join(root, 'bench', 'gen-large.py')], { env: { ...process.env, BENCH_SCALE: '0.005', BENCH_DIR: tmp }, stdio: 'ignore' });
  manyConnections = join(tmp, 'short-conns.pcap');
});

/** Runs a bash pipeline; `$TCPSCOPE` is the CLI. Returns stdout (a Buffer), stderr and
 * every stage's exit status (PIPESTATUS). */
function shell(script, input) {
  const r = spawnSync('bash', ['-c', `${script}; echo "status \${PIPESTATUS[*]}" >&2`], {
    env: { ...process.env, TCPSCOPE: `${process.execPath} ${NODE_ARGS.join(' ')} ${bin}` },
    input,
    maxBuffer: 1 << 30,
  });
  const stderr = r.stderr.toString();
  const statuses = stderr.match(/status ([\d ]+)\n$/)[1].trim().split(' ').map(Number);
  return { stdout: r.stdout, stderr: stderr.replace(/status [\d ]+\n$/, ''), statuses };
}

test('| head -c 100: the CLI stops quietly when the reader goes away', () => {
  // ~1.8 MB of NDJSON, far more than a pipe's 64 KiB buffer: the reader is gone while
  // the CLI still writes, which is when EPIPE happens.
  const r = shell(`$TCPSCOPE analyze '${manyConnections}' --ndjson | head -c 100`);
  assert.equal(r.stdout.length, 100);
  assert.equal(r.stderr, '', 'no stack trace, no message');
  assert.deepEqual(r.statuses, [0, 0]);
});

test('more than 1 MB of --json through a pipe arrives whole and parses', () => {
  const r = shell(`$TCPSCOPE analyze '${manyConnections}' --json | cat`);
  assert.ok(r.stdout.length > 1e6, `${r.stdout.length} bytes`);
  const report = JSON.parse(r.stdout.toString());
  assert.equal(report.connections.length, 500, 'gen-large.py wrote 500 connections');
  assert.deepEqual(r.statuses, [0, 0]);
});

test('standard input, /dev/stdin, a FIFO and gzip give the same report as the file', () => {
  const fromFile = shell(`$TCPSCOPE analyze '${stalls}' --json`).stdout.toString();
  assert.equal(JSON.parse(fromFile).connections.length, 1);
  const same = (r, how) => {
    assert.equal(r.stderr, '', how);
    assert.equal(r.stdout.toString(), fromFile, how);
  };
  same(shell('$TCPSCOPE analyze - --json', readFileSync(stalls)), '- (stdin)');
  same(shell(`cat '${stalls}' | $TCPSCOPE analyze - --json`), 'a pipe into -');
  same(shell(`gzip -c '${stalls}' | $TCPSCOPE analyze /dev/stdin --json`), 'gzip through /dev/stdin');
  const fifo = join(tmp, 'capture.fifo');
  same(shell(`mkfifo '${fifo}' && (cat '${stalls}' > '${fifo}' &) && $TCPSCOPE analyze '${fifo}' --json`), 'a FIFO');
});

test('--ndjson=full: a header line with the capture, then one line per connection, the --json report\'s', () => {
  const r = shell(`$TCPSCOPE analyze '${manyConnections}' --ndjson=full`);
  const lines = r.stdout.toString().trimEnd().split('\n').map((line) => JSON.parse(line));
  const [header, ...rows] = lines;
  assert.equal(header.record, 'capture');
  assert.equal(header.file, manyConnections);
  assert.equal(header.capture.packets, 5250, 'gen-large.py: 500 connections of 10-11 packets');
  assert.equal(header.connectionCount, 500);
  assert.equal(rows.length, 500);
  const whole = JSON.parse(shell(`$TCPSCOPE analyze '${manyConnections}' --json`).stdout.toString());
  rows.forEach((row, i) => {
    const { record, file, ...connection } = row;
    assert.equal(record, 'connection');
    assert.equal(file, manyConnections);
    assert.deepEqual(connection, whole.connections[i], `line ${i + 2} is connection ${i} of --json`);
  });
  // --ndjson alone: the same header, and the compact row of each connection
  // (docs/FLEET.md "The compact row"), its fields copied from the full row.
  const compact = shell(`$TCPSCOPE analyze '${manyConnections}' --ndjson`).stdout.toString().trimEnd().split('\n').map((line) => JSON.parse(line));
  assert.deepEqual(compact[0], header);
  assert.equal(compact.length, 501);
  compact.slice(1).forEach((row, i) => {
    const c = whole.connections[i];
    const d = c.directions[c.dataDirection];
    assert.deepEqual([row.record, row.file, row.id, row.from, row.to, row.dataBytes, row.retrans.total, row.limit],
      ['connection', manyConnections, c.id, d.from, d.to, d.payloadBytes, d.retransmissions, c.diagnosis.limit]);
  });
});

test('several captures or a directory: NDJSON rows carrying each capture\'s name', () => {
  const dir = join(tmp, 'fleet');
  mkdirSync(join(dir, 'site-b'), { recursive: true });
  copyFileSync(join(examples, 'rwnd-limited.pcap'), join(dir, 'a.pcap'));
  writeFileSync(join(dir, 'site-b', 'z.pcap.gz'), gzipSync(readFileSync(join(examples, 'zero-window.pcap'))));
  writeFileSync(join(dir, 'notes.txt'), 'not a capture');
  // One worker: the captures in the walk's order (with more, in the order they finish).
  const rows = shell(`$TCPSCOPE analyze '${dir}' --jobs 1`).stdout.toString().trimEnd().split('\n').map((l) => JSON.parse(l));
  // rwnd-limited.pcap: 2 connections; zero-window.pcap: 1 (public/examples/README.md).
  assert.deepEqual(rows.map((r) => [r.record, r.file]), [
    ['capture', join(dir, 'a.pcap')], ['connection', join(dir, 'a.pcap')], ['connection', join(dir, 'a.pcap')],
    ['capture', join(dir, 'site-b', 'z.pcap.gz')], ['connection', join(dir, 'site-b', 'z.pcap.gz')],
  ]);
  const two = shell(`$TCPSCOPE analyze '${join(dir, 'a.pcap')}' '${stalls}'`).stdout.toString().trimEnd().split('\n');
  assert.equal(two.length, 5, 'two captures: 2 headers + 2 + 1 connections');
  assert.match(shell(`$TCPSCOPE analyze '${dir}' --json`).stderr, /--json takes one capture/);
});

test('unreadable input: one line on stderr, then where to look; exit 1, no stack trace', () => {
  const oneLine = (r, pattern) => {
    assert.match(r.stderr, pattern);
    assert.deepEqual(r.stderr.trimEnd().split('\n').slice(1), ['try: tcpscope help analyze'], r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    assert.equal(r.statuses[0], 1);
  };
  oneLine(shell(`$TCPSCOPE analyze '${join(tmp, 'missing.pcap')}'`), /cannot open .*missing\.pcap': no such file/);
  const empty = join(tmp, 'empty-dir');
  mkdirSync(empty);
  oneLine(shell(`$TCPSCOPE analyze '${empty}'`), /no capture files .* in directory/);
  const badGzip = join(tmp, 'cut.pcap.gz');
  writeFileSync(badGzip, gzipSync(readFileSync(stalls)).subarray(0, 1000));
  oneLine(shell(`$TCPSCOPE analyze '${badGzip}'`), /cannot read .*cut\.pcap\.gz': damaged gzip data/);
});
