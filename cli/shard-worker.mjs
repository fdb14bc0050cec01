// One shard of a capture analysed by several threads (cli/shards.mjs, wasm/src/shard.rs):
// its own wasm instance decodes the whole capture and analyses the connections whose
// 4-tuple hashes to this shard; then it gives the main thread its facts, takes the merged
// ids, and hands out its rows in batches, in its own order (which is the merged order
// restricted to this shard).
import { parentPort, workerData } from 'node:worker_threads';
import { openCapture, pushStream } from './wasm.mjs';
import { isReadError, reason } from './rows.mjs';
import { askText } from '../web/worker/ask.mjs';

/** Read size, as a fleet's workers read (cli/analyze-worker.mjs). */
const READ_BYTES = 4 << 20;

const wasm = await import(new URL('../wasm/pkg/tcpscope_core.js', import.meta.url).href);
wasm.initSync({ module: workerData.module });
const { name, stallMs, index, count } = workerData;

const session = new wasm.WasmSession(stallMs);
session.shard(index, count);
let next = 0;
try {
  await pushStream(session, openCapture(name, READ_BYTES));
  session.finishRowsOnly();
  parentPort.postMessage({ type: 'facts', facts: session.shardFacts(), header: askText(session, { ask: 'header' }) });
} catch (error) {
  if (!isReadError(error)) throw error;
  parentPort.postMessage({ type: 'unreadable', message: reason(error) });
}

parentPort.on('message', (message) => {
  if (message.type === 'renumber') session.shardRenumber(message.ids);
  else if (message.type === 'rows') {
    // The next `rows` connections of this shard, as `ask` (compactRow or connection).
    const end = Math.min(next + message.rows, message.total);
    const rows = [];
    for (; next < end; next++) rows.push(askText(session, { ask: message.ask, index: next }));
    parentPort.postMessage({ type: 'rows', rows });
  } else if (message.type === 'close') {
    session.free();
    parentPort.close();
  }
});
