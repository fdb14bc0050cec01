// The connection table (the question `table`, wasm/src/table.rs) as the worker asks
// it: a query in, one page out, never the whole report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWasm, openCapture, pushStream } from './wasm.mjs';
import { ask, RefusedQuestion } from '../web/worker/ask.mjs';

const examples = fileURLToPath(new URL('../public/examples/', import.meta.url));

test('the table question answers a sorted, filtered page from the wasm session', async () => {
  const { wasm } = await loadWasm();
  const session = new wasm.WasmSession(Number.NaN);
  assert.throws(() => ask(session, { ask: 'table', query: {} }), (e) => e instanceof RefusedQuestion && /not analysed yet/.test(e.message));
  await pushStream(session, openCapture(join(examples, 'rwnd-limited.pcap')));
  session.finish();
  // rwnd-limited.pcap: connection 0 is iperf3's control connection, 1 the 7.60 MB upload.
  const page = ask(session, { ask: 'table', query: { sort: 'bytes', descending: true, count: 1 } });
  assert.deepEqual([page.total, page.matched, page.rows.length, page.rows[0].id], [2, 2, 1, 1]);
  assert.equal(page.rows[0].limit, 'receive-window');
  const none = ask(session, { ask: 'table', query: { text: '192.0.2.', count: 10 } });
  assert.deepEqual([none.matched, none.rows.length], [0, 0]);
  session.free();
});
