// Loading the wasm package (wasm/pkg, built by scripts/build-wasm.sh) in Node and
// streaming a file into it: shared by the CLI (bin/tcpscope.mjs) and the benchmark
// (bench/run-wasm.mjs), so both run the engine exactly the way the browser worker does.
import { existsSync, readFileSync } from 'node:fs';
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
