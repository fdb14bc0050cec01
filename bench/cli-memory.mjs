// Where the CLI's memory goes (issue 43 item 4): `node bench/cli-memory.mjs FILE [--ndjson-full]`
// runs `tcpscope analyze FILE --ndjson`'s own path (cli/wasm.mjs openCapture with the CLI's
// 4 MiB reads, pushStream, finishRowsOnly, cli/rows.mjs writeCapture into a sink that drops
// the text) and prints, after each stage, the wasm linear memory (its size is its
// high-water: a wasm memory never shrinks, and the pages its allocator reused are the
// same pages), the process's RSS and V8's external memory (the wasm memory plus Node's
// buffers not yet collected). The native probe (wasm/examples/memprobe.rs) counts live
// 64-bit bytes; this one shows what the CLI process holds (bench/README.md "Session 39").
import { loadWasm, openCapture, pushStream } from '../cli/wasm.mjs';
import { writeCapture } from '../cli/rows.mjs';
import { askText } from '../web/worker/ask.mjs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node bench/cli-memory.mjs FILE [--ndjson-full]');
  process.exit(2);
}
const format = process.argv.includes('--ndjson-full') ? 'ndjson-full' : 'ndjson';
const READ_BYTES = 4 << 20; // as cli/analyze.mjs
const mib = (b) => Math.round(b / 1048576 * 10) / 10;
const loaded = await loadWasm();
if (!loaded) throw new Error('wasm/pkg is not built: npm run build:wasm');
const { wasm, exports } = loaded;
const stage = (name) => {
  const m = process.memoryUsage();
  console.log(JSON.stringify({ stage: name, wasmMiB: mib(exports.memory.buffer.byteLength), rssMiB: mib(m.rss), externalMiB: mib(m.external), v8HeapMiB: mib(m.heapUsed) }));
};
stage('loaded');
const session = new wasm.WasmSession(NaN);
await pushStream(session, openCapture(file, READ_BYTES));
stage('read');
session.finishRowsOnly();
stage('finished');
let bytes = 0;
await writeCapture(session, file, format, { add: (text) => { bytes += text.length; }, flush: () => {} });
stage('rows written');
console.log(JSON.stringify({ rowsMB: Math.round(bytes / 1e5) / 10, connections: JSON.parse(askText(session, { ask: 'header' })).connectionCount }));
// A build with a memory trace (a scratch probe, not in the product) prints it.
if (typeof wasm.memoryTrace === 'function') console.log(wasm.memoryTrace());
session.free();
