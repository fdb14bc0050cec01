// Loading the wasm package (wasm/pkg, built by scripts/build-wasm.sh) in Node and
// streaming a file into it: shared by the CLI (bin/tcpscope.mjs) and the benchmark
// (bench/run-wasm.mjs), so both run the engine exactly the way the browser worker does.
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { fileURLToPath } from 'node:url';

/** Chunk size of file reads, as the worker's Blob.slice size (web/worker/chunks.ts). */
export const CHUNK_BYTES = 16 * 1024 * 1024;

/** The initialised wasm module and its raw exports; null when wasm/pkg is not built. */
export async function loadWasm() {
  const pkg = fileURLToPath(new URL('../wasm/pkg/', import.meta.url));
  if (!existsSync(`${pkg}tcpscope_core_bg.wasm`)) return null;
  const wasm = await import(new URL('../wasm/pkg/tcpscope_core.js', import.meta.url).href);
  const exports = wasm.initSync({ module: readFileSync(`${pkg}tcpscope_core_bg.wasm`) });
  return { wasm, exports };
}

/** Push every chunk of `stream` into `engine` (WasmSession or WasmDecoder) until it stops. */
export async function pushStream(engine, stream) {
  for await (const chunk of stream) {
    if (!engine.push(chunk)) break;
  }
  stream.destroy();
}

/** A capture file as a stream of 16 MiB chunks, gunzipped when it starts with the
 * gzip magic (RFC 1952 §2.3.1), for `pushStream`. Shared by `analyze` and `series`. */
export async function openCapture(path) {
  const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  return (await isGzip(path)) ? stream.pipe(createGunzip()) : stream;
}

async function isGzip(path) {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}
