// One wasm instance, many sessions one after another (the CLI's in-process runs, a
// worker that opens a second capture): each session's view answers are its own. The
// view cache (wasm/src/bindings.rs with_views) was keyed by the session's address, and
// the next session allocated after one was freed often got the same address: it was
// then answered from the freed session's cached series (3 of 12 examples here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadWasm } from './wasm.mjs';

const dir = fileURLToPath(new URL('../public/examples/', import.meta.url));

test('a session opened after another was freed gets its own view answers, not the freed one\'s', async () => {
  const loaded = await loadWasm();
  assert.ok(loaded, 'wasm/pkg is built (scripts/build-wasm.sh)');
  const { wasm } = loaded;
  const files = readdirSync(dir).filter((f) => f.endsWith('.pcap')).sort().slice(0, 12);
  const question = JSON.stringify({ ask: 'view', request: { generation: 1, connection: 0, series: 'throughput', t0: 0, t1: 5, columns: 50 } });
  const open = (f) => {
    const s = new wasm.WasmSession(NaN);
    s.push(readFileSync(dir + f));
    s.finish();
    return s;
  };
  // The right answers: all sessions alive at once (no address is reused), each asked once.
  const alive = files.map(open);
  const right = alive.map((s) => s.ask(question));
  for (const s of alive) s.free();
  // Then one at a time, each freed before the next is opened.
  for (const [i, f] of files.entries()) {
    const s = open(f);
    assert.equal(s.ask(question), right[i], `${f}: answered from another session's cache`);
    s.free();
  }
});
