// One worker of `tcpscope analyze`'s pool (cli/pool.mjs): its own wasm instance, one
// capture at a time. Rows go to the main thread in batches of about 1 MiB, and the next
// batch waits until the main thread has written the last one to stdout ("more"), so a
// slow reader holds at most one batch per worker in memory, never a whole capture's rows.
import { parentPort, workerData } from 'node:worker_threads';
import { openCapture, pushStream } from './wasm.mjs';
import { isReadError, reason, writeCapture } from './rows.mjs';
import { escapeUnsafe } from './outsideText.mjs';

/** Size at which a batch of rows is handed over (as BatchedWriter's writes, cli/output.mjs). */
const BATCH_CHARS = 1 << 20;
/** Read size: a quarter of the one-capture path's 16 MiB (cli/wasm.mjs CHUNK_BYTES), since
 * every worker holds its read buffers and their copy in its wasm memory at once; the
 * engine still gets ≥ 1 MiB per push. */
const READ_BYTES = 4 << 20;

// The module is compiled once in the main thread and shared (workerData.module).
const wasm = await import(new URL('../wasm/pkg/tcpscope_core.js', import.meta.url).href);
wasm.initSync({ module: workerData.module });

let resumeWriting = null;

/** Rows collected into batches; `flush` resolves once the main thread wrote the batch. */
class PortSink {
  pending = '';

  async add(text) {
    this.pending += text;
    if (this.pending.length >= BATCH_CHARS) await this.flush();
  }

  flush() {
    const text = this.pending;
    this.pending = '';
    if (!text) return Promise.resolve();
    return new Promise((resolve) => {
      resumeWriting = resolve;
      parentPort.postMessage({ type: 'rows', text });
    });
  }
}

/** Analyses capture `name`; tells the main thread `done` with its status: 0 fine,
 * 1 damaged (rows written, `error` set), `unreadable` (a reason), or `internal` (a bug:
 * the main thread replaces this worker, whose wasm state may be broken). */
async function analyze(name) {
  const session = new wasm.WasmSession(workerData.stallMs);
  try {
    // A worker's own process.stdin is empty: '-' is the process's standard input by name.
    await pushStream(session, openCapture(name === '-' ? '/dev/stdin' : name, READ_BYTES));
    // Rows only: the charts' packet rows are dropped as each connection is summarised.
    session.finishRowsOnly();
    const damaged = await writeCapture(session, name, workerData.format, new PortSink());
    parentPort.postMessage({ type: 'done', status: damaged ? 1 : 0 });
  } catch (error) {
    if (isReadError(error)) parentPort.postMessage({ type: 'done', status: 1, unreadable: escapeUnsafe(reason(error)) });
    else parentPort.postMessage({ type: 'done', status: 1, internal: escapeUnsafe(error?.message ?? String(error)) });
  } finally {
    // After a panic the instance may refuse even this; the worker is replaced then.
    try {
      session.free();
    } catch {}
  }
}

parentPort.on('message', (message) => {
  if (message.type === 'more') resumeWriting?.();
  else if (message.type === 'analyze') analyze(message.name);
});
