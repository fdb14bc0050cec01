// Loading the wasm package (wasm/pkg, built by scripts/build-wasm.sh) in Node and
// streaming a file into it: shared by the CLI (bin/tcpscope.mjs) and the benchmark
// (bench/run-wasm.mjs), so both run the engine exactly the way the browser worker does.
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { Readable, pipeline } from 'node:stream';
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

/** Push every chunk of `chunks` (an async iterable of bytes: a stream, or of
 * `{ bytes, compressedBytes }` from `openCapture`) into `engine` (WasmSession or
 * WasmDecoder) until it stops. Inflated gzip input goes through `pushInflated`, which
 * applies the caps on inflated size and ratio (wasm/src/inflate.rs) exactly as the
 * browser worker does. Leaving the loop early closes the source (for await … break
 * calls its `return`). */
export async function pushStream(engine, chunks) {
  for await (const chunk of chunks) {
    const more = chunk.compressedBytes != null
      ? engine.pushInflated(chunk.bytes, chunk.compressedBytes)
      : engine.push(chunk.bytes ?? chunk);
    if (!more) break;
  }
}

/** Smallest chunk handed to the engine: pipes deliver 64 KiB and gunzip 16 KiB at a
 * time, and each push has a fixed cost (crossing into wasm, a copy of the carried-over
 * partial record), so small reads are gathered first. */
const MIN_PUSH_BYTES = 1 << 20;

/** A capture as an async iterable of `{ bytes, compressedBytes }`, gunzipped when it
 * starts with the gzip magic (RFC 1952 §2.3.1), for `pushStream`; `compressedBytes`
 * (compressed bytes read so far) is null for input that is not gzip. `path` is a file, a FIFO, a device
 * such as /dev/stdin, or `-` for standard input: everything is read as a stream, never
 * by position, so pipes work (`curl … | tcpscope analyze -`). Shared by `analyze` and
 * `series`. Read errors (EACCES, EISDIR, a damaged gzip stream) are thrown from the
 * iteration. */
export async function* openCapture(path, chunkBytes = CHUNK_BYTES) {
  const source = path === '-' ? process.stdin : createReadStream(path, { highWaterMark: chunkBytes });
  try {
    const reader = source[Symbol.asyncIterator]();
    // Enough bytes to tell gzip from pcap (one read, unless a pipe hands over 1 byte).
    let head = Buffer.alloc(0);
    while (head.length < 2) {
      const next = await reader.next();
      if (next.done) break;
      head = head.length ? Buffer.concat([head, next.value]) : next.value;
    }
    if (head.length === 0) return;
    let compressedRead = 0;
    async function* raw() {
      compressedRead = head.length;
      yield head;
      for (let next = await reader.next(); !next.done; next = await reader.next()) {
        compressedRead += next.value.length;
        yield next.value;
      }
    }
    const gzip = head[0] === 0x1f && head[1] === 0x8b;
    // pipeline() forwards a read error of the source into the gunzip stream we iterate.
    const bytes = gzip ? pipeline(Readable.from(raw(), { objectMode: false }), createGunzip({ chunkSize: 1 << 20 }), () => {}) : raw();
    for await (const chunk of gathered(bytes)) yield { bytes: chunk, compressedBytes: gzip ? compressedRead : null };
  } finally {
    if (source !== process.stdin) source.destroy();
  }
}

/** Re-chunks `chunks` so every chunk but the last has at least MIN_PUSH_BYTES. */
async function* gathered(chunks) {
  let pending = [];
  let size = 0;
  for await (const chunk of chunks) {
    if (size === 0 && chunk.length >= MIN_PUSH_BYTES) {
      yield chunk;
      continue;
    }
    pending.push(chunk);
    size += chunk.length;
    if (size >= MIN_PUSH_BYTES) {
      yield Buffer.concat(pending, size);
      pending = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(pending, size);
}
