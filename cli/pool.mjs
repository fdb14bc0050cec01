// `tcpscope analyze A B C …|DIR` over a pool of worker threads (issue 43, item 1): each
// worker (cli/analyze-worker.mjs) has its own wasm instance and analyses one capture at a
// time; rows reach stdout as captures finish, each naming its file.
//
// Backpressure and memory: a worker hands over one batch of rows (~1 MiB) and waits
// until the main thread has written it, which waits for 'drain' when stdout is full;
// so a slow reader stops the workers instead of queueing rows, and the peak is
// `jobs` × (one capture's analysis + one batch) — docs/FLEET.md "Memory".
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { write } from './output.mjs';
import { unreadableRow } from './rows.mjs';
import { escapeUnsafe } from './outsideText.mjs';

/** Default `--jobs`: the cores Node may use (os.availableParallelism()). */
export const defaultJobs = () => availableParallelism();

const WORKER = new URL('./analyze-worker.mjs', import.meta.url);

/** The compiled wasm module, shared by the workers (compiled once, not once per worker;
 * kept for the next pool or shards of the same process). */
let compiled = null;
export function compiledModule() {
  const file = fileURLToPath(new URL('../wasm/pkg/tcpscope_core_bg.wasm', import.meta.url));
  compiled ??= new WebAssembly.Module(readFileSync(file));
  return compiled;
}

/**
 * Analyses `captures` with `jobs` workers, writing rows to `out` and one line per
 * capture that failed to `err`; resolves to the exit status: 0, or 1 when a capture was
 * damaged, unreadable or hit an internal error (its error row is written; the others go on).
 */
export async function analyzeInPool(captures, { jobs, stallMs, format }, out, err) {
  const module = compiledModule();
  const queue = [...captures];
  let status = 0;

  const failed = async (name, message) => {
    err.write(`tcpscope: ${escapeUnsafe(message)}\n`);
    await write(out, unreadableRow(name, message));
    status = 1;
  };

  // One lane: a worker taking captures from the queue until it is empty; a worker whose
  // capture hit an internal error (or that died) is replaced by a fresh one.
  const lane = async () => {
    while (queue.length > 0) {
      const worker = new Worker(WORKER, { workerData: { module, stallMs, format } });
      try {
        const healthy = await serve(worker);
        if (healthy) return;
      } finally {
        await worker.terminate();
      }
    }
  };

  /** Feeds `worker` captures; resolves true when the queue is empty, false when the worker must be replaced. */
  const serve = (worker) => new Promise((resolve) => {
    let current;
    let ended = false;
    const next = () => {
      current = queue.shift();
      if (current === undefined) {
        ended = true;
        resolve(true);
      } else worker.postMessage({ type: 'analyze', name: current });
    };
    const broken = async (message) => {
      if (ended) return;
      ended = true;
      if (current !== undefined) await failed(current, `internal error in '${current}': ${message}`);
      resolve(false);
    };
    worker.on('message', async (message) => {
      if (message.type === 'rows') {
        await write(out, message.text);
        worker.postMessage({ type: 'more' });
      } else if (message.type === 'done') {
        if (message.unreadable) await failed(current, `cannot read '${current}': ${message.unreadable}`);
        else if (message.internal) return broken(message.internal);
        status = Math.max(status, message.status);
        next();
      }
    });
    worker.on('error', (error) => broken(error?.message ?? String(error)));
    worker.on('exit', (code) => broken(`the worker stopped (exit code ${code})`));
    next();
  });

  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, captures.length)) }, lane));
  return status;
}
