// Reads a Blob/File as a sequence of chunks without ever holding the whole file:
// plain captures through Blob.slice (tens of MiB at a time), gzip-compressed ones
// (.pcap.gz, magic 1f 8b, RFC 1952) inflated as a stream by the platform's
// DecompressionStream. Inflated chunks carry the compressed bytes read so far, so the
// session can apply the caps on inflated size and ratio (wasm/src/inflate.rs) and
// stop a gzip bomb after a bounded amount of work.

import type { FromReader, ToReader } from './reader.worker';

export const SLICE_BYTES = 16 * 1024 * 1024;
/** The reader's first read (it doubles from there up to SLICE_BYTES, reader.worker.ts). */
export const FIRST_SLICE_BYTES = 1024 * 1024;
/** Compressed bytes read at a time from a gzip capture. */
const GZIP_SLICE_BYTES = 64 * 1024;

/** A piece of the capture; `compressedBytes` is null unless it was inflated from gzip. */
export interface CaptureChunk { bytes: Uint8Array; compressedBytes: number | null }

export async function isGzip(blob: Blob): Promise<boolean> {
  const head = new Uint8Array(await blob.slice(0, 2).arrayBuffer());
  return head.length === 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** Yields the capture's bytes in order; `onRead(n)` reports compressed bytes consumed.
 * Leaving the loop early cancels the inflation (nothing more is read). */
export async function* captureChunks(blob: Blob, onRead: (bytesRead: number) => void): AsyncGenerator<CaptureChunk> {
  if (await isGzip(blob)) {
    // The compressed bytes are pulled GZIP_SLICE_BYTES at a time, only as fast as the
    // inflater asks for them, so the count handed to the caps is close to what was
    // inflated (Blob.stream() would read megabytes ahead: 200:1 of those is a lot).
    let compressedRead = 0;
    const compressed = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (compressedRead >= blob.size) return controller.close();
        const end = Math.min(blob.size, compressedRead + GZIP_SLICE_BYTES);
        const bytes = new Uint8Array(await blob.slice(compressedRead, end).arrayBuffer());
        compressedRead = end;
        controller.enqueue(bytes);
      },
    }, { highWaterMark: 0 });
    const reader = compressed.pipeThrough(new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        onRead(compressedRead);
        yield { bytes: value, compressedBytes: compressedRead };
      }
    } finally {
      await reader.cancel().catch(() => {});
    }
  }
  yield* reader && !reader.failed ? slicesFromReader(reader, blob, onRead) : slicesInThisThread(blob, onRead);
}

/** Slices waiting in the reader worker besides the one being decoded (memory: at most
 * (READ_AHEAD + 1) × SLICE_BYTES in flight). */
const READ_AHEAD = 2;

type Reader = { port: MessagePort; failed: string | null; onFailure: ((message: string) => void) | null };
/** The capture reader of this worker (reader.worker.ts), through the port the page gave
 * it (useReader); null where there is none: the slices are then read in this thread. */
let reader: Reader | null = null;
/** Numbers the loads, so that the reader's messages of an earlier load are ignored. */
let loads = 0;

/** The reader worker the page started for this worker, reached through `port`, reads
 * the slices of every load from now on. It is not made here: Firefox ESR sometimes
 * never returned from a `new Worker()` made inside a worker — right after terminate()
 * of the reader before it, and at the decoder worker's start too — and the whole
 * worker hung with it, its load with no byte read (e2e/firefox, about 1 run in 25). */
export function useReader(port: MessagePort) {
  reader = { port, failed: null, onFailure: null };
}

/** The page says the reader's script did not load: the slices are read here from now
 * on (a load that had none from it yet is read here from its start). */
export function readerFailed(message: string) {
  if (!reader) return;
  reader.failed = message;
  reader.onFailure?.(message);
}

/** The slices, read by reader.worker.ts on its own thread while the caller decodes.
 * Where that reader fails before its first slice (its script not loaded, the first
 * read refused) the slices are read here instead. */
async function* slicesFromReader(r: Reader, blob: Blob, onRead: (bytesRead: number) => void): AsyncGenerator<CaptureChunk> {
  const load = ++loads;
  const inbox: FromReader[] = [];
  let wake: (() => void) | null = null;
  const deliver = (m: FromReader) => {
    inbox.push(m);
    wake?.();
  };
  // Slices of an earlier load the reader served may still come: not ours.
  r.port.onmessage = (event: MessageEvent<FromReader>) => event.data.load === load && deliver(event.data);
  const onFailure = (message: string) => deliver({ type: 'error', load, message });
  r.onFailure = onFailure;
  r.port.postMessage({ type: 'start', load, blob, firstSliceBytes: FIRST_SLICE_BYTES, sliceBytes: SLICE_BYTES, ahead: READ_AHEAD } satisfies ToReader);
  let received = 0;
  try {
    for (;;) {
      while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const m = inbox.shift()!;
      if (m.type === 'end') return;
      if (m.type === 'error') {
        if (received > 0) throw new Error(`reading the capture: ${m.message}`);
        break; // no slice from the reader: read here
      }
      received = m.end;
      r.port.postMessage({ type: 'more', load } satisfies ToReader);
      onRead(m.end);
      yield { bytes: new Uint8Array(m.buffer), compressedBytes: null };
    }
  } finally {
    // The reader serves the next load, whether this one read the whole file or was
    // abandoned for another (reader.worker.ts drops what was queued for this one; the
    // next load ignores this one's late slices).
    if (r.onFailure === onFailure) r.onFailure = null;
  }
  yield* slicesInThisThread(blob, onRead);
}

/** The slices read in this thread, one ahead of the one the caller decodes. */
async function* slicesInThisThread(blob: Blob, onRead: (bytesRead: number) => void): AsyncGenerator<CaptureChunk> {
  const read = (offset: number) => blob.slice(offset, Math.min(blob.size, offset + SLICE_BYTES)).arrayBuffer();
  let next = blob.size > 0 ? read(0) : null;
  for (let offset = 0; next; offset += SLICE_BYTES) {
    const bytes = new Uint8Array(await next);
    const end = Math.min(blob.size, offset + SLICE_BYTES);
    next = end < blob.size ? read(end) : null;
    onRead(end);
    yield { bytes, compressedBytes: null };
  }
}
