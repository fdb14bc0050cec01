// `node bench/run-wasm.mjs FILE [--decode-only]`: reads FILE through the wasm engine
// the way the worker does (16 MiB chunks pushed into one session) and prints one JSON
// line: packets, connections, seconds, and the wasm linear memory at the end (what
// the analysis retained: columns and summaries; the file is never held whole).
import { createReadStream, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [file, mode] = process.argv.slice(2);
const pkg = fileURLToPath(new URL('../wasm/pkg/', import.meta.url));
const wasm = await import(`${pkg}tcpscope_core.js`);
const exports = wasm.initSync({ module: readFileSync(`${pkg}tcpscope_core_bg.wasm`) });

const started = performance.now();
const decodeOnly = mode === '--decode-only';
const engine = decodeOnly ? new wasm.WasmDecoder() : new wasm.WasmSession(Number.NaN);
for await (const chunk of createReadStream(file, { highWaterMark: 16 * 1024 * 1024 })) {
  if (!engine.push(chunk)) break;
}
engine.finish();
let connections = null;
if (!decodeOnly) connections = JSON.parse(engine.reportJson()).connections.length;
const seconds = (performance.now() - started) / 1000;
const packets = engine.packets();
const wasmMemoryBytes = exports.memory.buffer.byteLength;
console.log(JSON.stringify({ packets, connections, seconds, wasmMemoryBytes, bytesPerPacket: +(wasmMemoryBytes / packets).toFixed(1) }));
