// `tcpscope analyze CAPTURE --shards N` (issue 43, item 2; cli/shards.mjs,
// wasm/src/shard.rs): the output is byte for byte the one-thread output on every example
// capture and on a generated capture of many connections (which must really be sharded,
// not refused), in each format; a capture the shards cannot merge says so on stderr.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_ARGS } from './testing/node.mjs';
import { runAnalyze } from './analyze.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'tcpscope.mjs');
const examples = join(root, 'public', 'examples');

function run(args) {
  const r = spawnSync(process.execPath, [...NODE_ARGS, bin, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `analyze ARGS` in this process (a child per run made the example test take minutes). */
async function runHere(args) {
  const sink = () => ({ text: '', write(t) { this.text += t; return true; } });
  const [out, err] = [sink(), sink()];
  await runAnalyze(args, out, err);
  const code = process.exitCode ?? 0;
  process.exitCode = undefined;
  return { code, stdout: out.text, stderr: err.text };
}

test('every example capture: --shards 2 and 3 write what one thread writes (--ndjson=full)', async () => {
  const names = readdirSync(examples).filter((n) => /\.pcap(ng)?$/.test(n)).sort();
  assert.ok(names.length > 50);
  let sharded = 0;
  for (const name of names) {
    const file = join(examples, name);
    const one = await runHere([file, '--ndjson=full']);
    for (const shards of ['2', '3']) {
      const r = await runHere([file, '--ndjson=full', '--shards', shards]);
      assert.equal(r.code, one.code, `${name} --shards ${shards}: ${r.stderr}`);
      assert.ok(r.stdout === one.stdout, `${name} --shards ${shards}: the output differs`);
      if (!r.stderr.includes('analysed in one thread')) sharded++;
    }
  }
  // Most examples are merged from their shards, not analysed again in one thread.
  assert.ok(sharded > names.length, `${sharded} sharded runs of ${2 * names.length}`);
});

test('a capture of 3,000 connections is sharded, and every format is the same', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tcpscope-shards-'));
  const gen = spawnSync('python3', [join(root, 'bench', 'gen-large.py')], {
    env: { ...process.env, BENCH_DIR: dir, BENCH_SCALE: '0.03', BENCH_FILES: 'short-conns' },
    encoding: 'utf8',
  });
  assert.equal(gen.status, 0, gen.stderr);
  const file = join(dir, 'short-conns.pcap');
  for (const format of [['--ndjson'], ['--ndjson=full'], ['--json'], []]) {
    const one = await runHere([file, ...format]);
    assert.equal(one.code, 0, one.stderr);
    for (const shards of ['2', '4']) {
      const r = await runHere([file, ...format, '--shards', shards]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '', `${format} --shards ${shards}: refused`);
      assert.ok(r.stdout === one.stdout, `${format} --shards ${shards}: the output differs`);
    }
  }
  const lines = (await runHere([file, '--ndjson', '--shards', '2'])).stdout.trimEnd().split('\n');
  assert.equal(lines.length, 3001);
});

test('a capture the shards cannot merge exactly is analysed in one thread, with a note', () => {
  const file = join(examples, 'mptcp-two-paths.pcap');
  const one = run(['analyze', file, '--json']);
  const r = run(['analyze', file, '--json', '--shards', '2']);
  assert.equal(r.stdout, one.stdout);
  assert.match(r.stderr, /--shards 2: analysed in one thread, as the shards would not give the same report \(MPTCP\)/);
});

test('--shards: usage', () => {
  assert.equal(run(['analyze', examples, '--shards', '2']).code, 2);
  assert.equal(run(['analyze', join(examples, 'healthy.pcap'), '--shards', '0']).code, 2);
  const piped = spawnSync(process.execPath, [...NODE_ARGS, bin, 'analyze', '-', '--shards', '2', '--ndjson'], { input: Buffer.alloc(0), encoding: 'utf8' });
  assert.match(piped.stderr, /not a regular file/);
});
