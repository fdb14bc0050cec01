// `tcpscope analyze CAPTURE --shards N` (issue 43, item 2): one capture's connections
// analysed by N worker threads. Each shard (cli/shard-worker.mjs) decodes the whole
// capture and analyses the connections whose 4-tuple hashes to it (wasm/src/shard.rs);
// the engine's plan interleaves their rows into exactly the one-session report, or
// refuses when something the analysis computes across connections differs by shard —
// then the capture is analysed in one session (the caller's path), with a note on stderr.
// docs/FLEET.md "One capture on several cores" says what it costs.
import { Worker } from 'node:worker_threads';
import { compiledModule } from './pool.mjs';
import { writeReport } from './rows.mjs';

const WORKER = new URL('./shard-worker.mjs', import.meta.url);
/** Rows a shard serialises per request; the next batch is asked as one arrives. */
const BATCH_ROWS = 2048;

/**
 * Analyses capture `name` in `shards` threads and writes its report to `sink` in
 * `format`; resolves `{ damaged }`, `{ refused: why }` (nothing written: analyse it in
 * one session) or `{ unreadable: why }`.
 */
export async function analyzeSharded(wasm, name, { shards, stallMs, format }, sink) {
  const module = compiledModule();
  const workers = Array.from({ length: shards }, (_, index) => new Worker(WORKER, { workerData: { module, name, stallMs, index, count: shards } }));
  // Each worker's messages in order, awaited one at a time.
  const inboxes = workers.map((worker) => inbox(worker));
  try {
    const first = await Promise.all(inboxes.map((box) => box.next()));
    const unreadable = first.find((m) => m.type === 'unreadable');
    if (unreadable) return { unreadable: unreadable.message };
    const reply = JSON.parse(wasm.shardPlan(`[${first.map((m) => m.facts).join(',')}]`));
    if (reply.refused) return { refused: reply.refused };
    const { order, header } = reply.plan;
    // Each shard's connections' merged ids, in the shard's order.
    const ids = workers.map(() => []);
    order.forEach(([s], id) => ids[s].push(id));
    workers.forEach((w, s) => w.postMessage({ type: 'renumber', ids: Uint32Array.from(ids[s]) }));
    const source = {
      header: wasm.shardHeader(first[header].header, order.length),
      row: rowsInOrder(workers, inboxes, order, ids.map((v) => v.length)),
    };
    return { damaged: await writeReport(source, name, format, sink) };
  } finally {
    for (const w of workers) w.postMessage({ type: 'close' });
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** `row(ask, id)` for ids asked in order: each shard's rows fetched in batches, the next
 * batch asked as soon as one arrives, so the shards serialise while the main thread writes. */
function rowsInOrder(workers, inboxes, order, totals) {
  const buffers = workers.map(() => ({ rows: [], at: 0, pending: null, asked: 0 }));
  const ask = (s, kind) => {
    const b = buffers[s];
    if (b.pending || b.asked >= totals[s]) return;
    workers[s].postMessage({ type: 'rows', ask: kind, rows: BATCH_ROWS, total: totals[s] });
    b.asked += BATCH_ROWS;
    b.pending = inboxes[s].next();
  };
  return async (kind, id) => {
    const [s] = order[id];
    const b = buffers[s];
    if (b.at >= b.rows.length) {
      ask(s, kind);
      const reply = await b.pending;
      b.pending = null;
      if (reply.type !== 'rows') throw new Error(`shard ${s}: ${reply.message ?? reply.type}`);
      b.rows = reply.rows;
      b.at = 0;
      ask(s, kind);
    }
    return b.rows[b.at++];
  };
}

/** A worker's messages as a queue: `next()` resolves the next one (an error or an exit
 * before it rejects). */
function inbox(worker) {
  const queue = [];
  const waiting = [];
  let failure = null;
  const put = (m) => (waiting.length ? waiting.shift().resolve(m) : queue.push(m));
  const fail = (error) => {
    failure ??= error;
    while (waiting.length) waiting.shift().reject(failure);
  };
  worker.on('message', put);
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`a shard stopped (exit code ${code})`)));
  return {
    next: () => (queue.length ? Promise.resolve(queue.shift()) : failure ? Promise.reject(failure) : new Promise((resolve, reject) => waiting.push({ resolve, reject }))),
  };
}
