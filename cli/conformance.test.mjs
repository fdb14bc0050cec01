// The CLI's JSON (`tcpscope analyze --json`, the wasm module under Node) against
// tshark's numbers in each NAME.oracle.json (../shared/captures, made by
// make_oracle.py; fields defined in its docstring) and in wasm/tests/examples-oracle
// for the repo's own recordings. The full field-by-field comparison, with the
// documented differences, is wasm/tests/conformance.rs (same engine, natively); this
// test proves the CLI's JSON carries the same numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInProcess } from './testing/in-process.mjs';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const shared = process.env.TCPSCOPE_SHARED ?? join(root, '..', 'shared');

// Captures where tcpscope finds a TCP stream tshark does not (wasm/tests/conformance.rs ALLOWED).
const EXTRA_STREAMS = new Set(['MALFORMED_bad_record_caplen__ssh', 'tcpdump__bigtcp-ipv6']);
// Captures holding the same frame twice (same IPv4 ID, seq, ack, 100–130 µs apart): tshark
// counts each copy as a packet (and calls it a retransmission / duplicate ACK), tcpscope
// counts it once and reports capture.duplicateFrames (wasm/tests/conformance.rs ALLOWED).
const DUPLICATE_FRAMES = new Map([['tcpdump__pptp', 8]]);

// IPv6 captures at snaplen 96 whose ACKs end inside their SACK option: tshark stops
// dissecting those frames there and flags no duplicate ACK (wasm/tests/conformance.rs CUT_SACK).
const CUT_SACK = new Set(['rx-ipv6-loss']);

// Segments tshark calls retransmissions that the sender's IPv4 numbering and the clock show
// were originals overtaken on the way (wasm/tests/conformance.rs OVERTAKEN_FIN): per
// capture and direction, how many fewer tcpscope counts.
const OVERTAKEN = new Map([['pcap-parser__err-buffertoosmall', { 'B->A': 1 }]]);

// MPTCP recordings: the client's pure ACK echoing the server's ADD_ADDR repeats its previous
// ACK; tshark leaves it unflagged after an MPTCP operation, tcpscope counts it a duplicate
// ACK (wasm/tests/conformance.rs MPTCP_ADD_ADDR_ECHO): per capture, stream and direction,
// how many more tcpscope counts.
const ADD_ADDR_ECHO = new Map([['mptcp-two-paths', { 0: { 'A->B': 1 } }], ['mptcp-join-refused', { 0: { 'A->B': 1 } }]]);

function pairs(captureDir, oracleDir) {
  return readdirSync(captureDir)
    .filter((f) => /\.pcap(ng)?$/.test(f))
    .map((f) => ({ file: join(captureDir, f), stem: f.replace(/\.pcap(ng)?$/, '') }))
    .map((p) => ({ ...p, oracle: join(oracleDir, `${p.stem}.oracle.json`) }))
    .filter((p) => existsSync(p.oracle));
}

/** tshark's scale multiplier: 2^shift, -1 unknown (no handshake), -2 not negotiated. */
const multiplier = (d) => (d.windowScale !== null ? 2 ** d.windowScale : d.windowScaleUnknown ? -1 : -2);

/** `tcpscope analyze FILE --json`, run in this process (cli/testing/in-process.mjs, the
 * command's own function: ~75 captures); with `spawn`, also by bin/tcpscope.mjs in a
 * child process, which must print the same. */
async function analyzeJson(stem, file, spawn) {
  const run = await runInProcess('analyze', file, '--json');
  assert.ok(run.code === 0 || run.code === 1, `${stem}: exit ${run.code} ${run.stderr}`);
  if (spawn) {
    const child = spawnSync(process.execPath, [...NODE_ARGS, join(root, 'bin', 'tcpscope.mjs'), 'analyze', file, '--json'], { encoding: 'utf8' });
    assert.deepEqual({ code: child.status, stdout: child.stdout, stderr: child.stderr }, run, `${stem}: bin/tcpscope.mjs prints the same`);
  }
  return JSON.parse(run.stdout);
}

async function compare(stem, file, oracle, spawn = false) {
  const report = await analyzeJson(stem, file, spawn);
  assert.equal(report.schemaVersion, 1);
  assert.equal(report.capture.packets, oracle.frames_total, `${stem}: packets`);
  if (EXTRA_STREAMS.has(stem)) return;
  if (DUPLICATE_FRAMES.has(stem)) {
    assert.equal(report.capture.duplicateFrames, DUPLICATE_FRAMES.get(stem), `${stem}: duplicate frames`);
    return;
  }
  assert.equal(report.capture.duplicateFrames, 0, `${stem}: no duplicate frames`);
  assert.equal(report.connections.length, oracle.tcp_streams.length, `${stem}: streams`);
  for (const stream of oracle.tcp_streams) {
    const conn = report.connections[stream.stream];
    ['A->B', 'B->A'].forEach((name, i) => {
      const theirs = stream.directions[name];
      const ours = conn.directions[i];
      const where = `${stem} stream ${stream.stream} ${name}`;
      assert.equal(ours.packets, theirs.packets, `${where}: packets`);
      assert.equal(ours.payloadBytes, theirs.payload_bytes, `${where}: payload bytes`);
      const rw = theirs.rwnd_advertised;
      if (rw.min !== null) assert.deepEqual([ours.receiveWindow.min, ours.receiveWindow.max], [rw.min, rw.max], `${where}: rwnd`);
      if (rw.window_scale_factors_seen.length === 1) assert.equal(multiplier(ours), rw.window_scale_factors_seen[0], `${where}: scale`);
      assert.equal(ours.zeroWindows, theirs.analysis_counts.zero_window, `${where}: zero windows`);
      const echoes = ADD_ADDR_ECHO.get(stem)?.[stream.stream]?.[name] ?? 0;
      if (!CUT_SACK.has(stem)) assert.equal(ours.duplicateAcks, theirs.analysis_counts.duplicate_ack + echoes, `${where}: duplicate ACKs`);
      const overtaken = OVERTAKEN.get(stem)?.[name] ?? 0;
      assert.ok(ours.retransmissions + overtaken >= theirs.analysis_counts.retransmission, `${where}: retransmissions ≥ tshark's`);
    });
  }
}

const sharedCaptures = join(shared, 'captures');
test('CLI JSON agrees with tshark on the shared reference captures', { skip: !existsSync(sharedCaptures) && 'no ../shared/captures' }, async () => {
  const list = pairs(sharedCaptures, sharedCaptures);
  assert.ok(list.length > 20);
  for (const [i, { stem, file, oracle }] of list.entries()) await compare(stem, file, JSON.parse(readFileSync(oracle, 'utf8')), i === 0);
});

test('CLI JSON agrees with tshark on the recorded examples', async () => {
  const list = pairs(join(root, 'public', 'examples'), join(root, 'wasm', 'tests', 'examples-oracle'));
  assert.ok(list.length >= 9);
  for (const [i, { stem, file, oracle }] of list.entries()) await compare(stem, file, JSON.parse(readFileSync(oracle, 'utf8')), i === 0);
});
