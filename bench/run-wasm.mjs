// `node bench/run-wasm.mjs FILE [--decode-only]`: reads FILE through the wasm engine
// the way the worker does (16 MiB chunks pushed into one session) and prints one JSON
// line: packets, connections, seconds (and finishSeconds, the end-of-capture
// analysis), the wasm linear memory at the end (wasmMemoryBytes: its high-water mark,
// since wasm memory never shrinks; afterPushBytes: the same before `finish`) and, when
// the build exports it, the live heap
// (heapBytes: what the analysis actually retains after finish). `--prepare` also
// builds the largest connection's first chart columns as the worker does after the
// report (viewPrepare; prepareSeconds) and then asks its first full-range queries
// (firstQueriesSeconds: the throughput chart's and the in-flight chart's, 1600 columns).
// `--cold` skips the warm-up the worker runs at start (wasm/src/warm_up.rs), to show its effect.
import { createReadStream } from 'node:fs';
import { CHUNK_BYTES, loadWasm, pushStream } from '../cli/wasm.mjs';
import { ask } from '../web/worker/ask.mjs';

const [file, mode] = process.argv.slice(2).filter((a) => a !== '--cold');
const loaded = await loadWasm();
if (!loaded) throw new Error('wasm/pkg is not built: run `bash scripts/build-wasm.sh`');
const { wasm, exports } = loaded;
// As the worker does when it starts (wasm/src/warm_up.rs): the load below then runs
// V8's optimised code, not its baseline compiler's. `--cold` leaves it out.
if (!process.argv.includes('--cold')) while (wasm.warmUpStep());

const started = performance.now();
const decodeOnly = mode === '--decode-only';
const prepare = mode === '--prepare';
const engine = decodeOnly ? new wasm.WasmDecoder() : new wasm.WasmSession(Number.NaN);
await pushStream(engine, createReadStream(file, { highWaterMark: CHUNK_BYTES }));
const pushed = performance.now();
const afterPushBytes = exports.memory.buffer.byteLength;
engine.finish();
const finishSeconds = (performance.now() - pushed) / 1000;
const heapBytes = typeof wasm.heapBytes === 'function' ? wasm.heapBytes() : null;
let connections = null;
// The header line of the CLI's --ndjson: the count without building the whole report
// as one JSON string (150 MB at 100 k connections), as the CLI never does either.
if (!decodeOnly) connections = ask(engine, { ask: 'header' }).connectionCount;
let prepareSeconds = null;
let firstQueriesSeconds = null;
if (prepare) {
  // The largest connection by bytes, as the page shows first (its table sorts by bytes).
  const count = ask(engine, { ask: 'header' }).connectionCount;
  let best = null;
  for (let id = 0; id < count; id++) {
    const c = ask(engine, { ask: 'connection', index: id });
    const bytes = c.directions[0].bytes + c.directions[1].bytes;
    if (!best || bytes > best.bytes) best = { id, bytes, start: c.start, end: c.end, dir: c.dataDirection };
  }
  if (best) {
    const t = performance.now();
    wasm.viewPrepare(engine, 1, best.id);
    prepareSeconds = (performance.now() - t) / 1000;
    const q = performance.now();
    for (const series of ['throughput', 'inflight', 'rwnd', 'sequence', 'ack', 'windowEdge', 'rtt', 'retransmissions']) {
      const packed = engine.askPacked(JSON.stringify({ ask: 'view', request: { generation: 1, connection: best.id, series, t0: best.start, t1: best.end, columns: 1600 } }));
      packed.free();
    }
    firstQueriesSeconds = (performance.now() - q) / 1000;
  }
}
const seconds = (performance.now() - started) / 1000;
const packets = engine.packets();
const wasmMemoryBytes = exports.memory.buffer.byteLength;
const out = { packets, connections, seconds, finishSeconds, wasmMemoryBytes, bytesPerPacket: +(wasmMemoryBytes / packets).toFixed(1), afterPushBytes };
if (prepare) Object.assign(out, { prepareSeconds, firstQueriesSeconds, wasmMemoryBytesAfterPrepare: exports.memory.buffer.byteLength });
if (heapBytes !== null) Object.assign(out, { heapBytes, heapBytesPerPacket: +(heapBytes / packets).toFixed(1) });
console.log(JSON.stringify(out));
