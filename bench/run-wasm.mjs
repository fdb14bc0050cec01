// `node bench/run-wasm.mjs FILE [--decode-only]`: reads FILE through the wasm engine
// the way the worker does (16 MiB chunks pushed into one session) and prints one JSON
// line: packets, connections, seconds (and finishSeconds, the end-of-capture
// analysis), the wasm linear memory at the end (wasmMemoryBytes: its high-water mark,
// since wasm memory never shrinks; afterPushBytes: the same before `finish`) and, when
// the build exports it, the live heap
// (heapBytes: what the analysis actually retains after finish).
import { createReadStream } from 'node:fs';
import { CHUNK_BYTES, loadWasm, pushStream } from '../cli/wasm.mjs';

const [file, mode] = process.argv.slice(2);
const loaded = await loadWasm();
if (!loaded) throw new Error('wasm/pkg is not built: run `bash scripts/build-wasm.sh`');
const { wasm, exports } = loaded;

const started = performance.now();
const decodeOnly = mode === '--decode-only';
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
if (!decodeOnly) connections = JSON.parse(engine.headerJson()).connectionCount;
const seconds = (performance.now() - started) / 1000;
const packets = engine.packets();
const wasmMemoryBytes = exports.memory.buffer.byteLength;
const out = { packets, connections, seconds, finishSeconds, wasmMemoryBytes, bytesPerPacket: +(wasmMemoryBytes / packets).toFixed(1), afterPushBytes };
if (heapBytes !== null) Object.assign(out, { heapBytes, heapBytesPerPacket: +(heapBytes / packets).toFixed(1) });
console.log(JSON.stringify(out));
