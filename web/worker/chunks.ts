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
  yield* typeof Worker === 'function' ? slicesFromReader(blob, onRead) : slicesInThisThread(blob, onRead);
}

/** Slices waiting in the reader worker besides the one being decoded (memory: at most
 * (READ_AHEAD + 1) × SLICE_BYTES in flight). */
const READ_AHEAD = 2;

/** A reader started before it is needed (prestartReader), taken by the next load. */
let spareReader: { worker: Worker; failed: string | null } | null = null;
/** Numbers the loads, so that a kept reader's messages of an earlier load are ignored. */
let loads = 0;
const startReader = () => new Worker(new URL('./reader.worker.ts', import.meta.url), { type: 'module' });

/** Start the reader worker of the next load now, while nothing is read: starting a
 * worker and loading its script takes tens of milliseconds, which a drop would
 * otherwise wait for before its first slice. */
export function prestartReader() {
  if (spareReader || typeof Worker !== 'function') return;
  try {
    keepSpare(startReader());
  } catch {
    spareReader = null; // no nested workers here: the slices are read in this thread
  }
}

/** `worker` waits for the next load. A script that fails to load says so before
 * anyone listens: keep the message. */
function keepSpare(worker: Worker) {
  const spare = { worker, failed: null as string | null };
  worker.onmessage = null;
  worker.onerror = (event) => {
    event.preventDefault();
    spare.failed = event.message || 'the capture reader did not start';
  };
  spareReader = spare;
}

/** The slices, read by reader.worker.ts on its own thread while the caller decodes.
 * Where that worker cannot start (no nested workers, its script not loaded) the
 * slices are read here instead. */
async function* slicesFromReader(blob: Blob, onRead: (bytesRead: number) => void): AsyncGenerator<CaptureChunk> {
  const spare = spareReader;
  spareReader = null;
  const reader = spare?.worker ?? startReader();
  const load = ++loads;
  const inbox: FromReader[] = [];
  let wake: (() => void) | null = null;
  const deliver = (m: FromReader) => {
    inbox.push(m);
    wake?.();
  };
  // Slices of an earlier load this reader served may still come: not ours.
  reader.onmessage = (event: MessageEvent<FromReader>) => event.data.load === load && deliver(event.data);
  let failed = false;
  reader.onerror = (event) => {
    event.preventDefault();
    failed = true;
    deliver({ type: 'error', load, message: event.message || 'the capture reader did not start' });
  };
  if (spare?.failed) {
    failed = true;
    deliver({ type: 'error', load, message: spare.failed });
  }
  reader.postMessage({ type: 'start', load, blob, firstSliceBytes: FIRST_SLICE_BYTES, sliceBytes: SLICE_BYTES, ahead: READ_AHEAD } satisfies ToReader);
  let received = 0;
  try {
    for (;;) {
      while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const m = inbox.shift()!;
      if (m.type === 'end') return;
      if (m.type === 'error') {
        failed = true;
        if (received > 0) throw new Error(`reading the capture: ${m.message}`);
        break; // the reader never started: read here
      }
      received = m.end;
      reader.postMessage({ type: 'more', load } satisfies ToReader);
      onRead(m.end);
      yield { bytes: new Uint8Array(m.buffer), compressedBytes: null };
    }
  } finally {
    // The reader serves the next load, whether this one read the whole file or was
    // abandoned for another (reader.worker.ts drops what was queued for this one; the
    // next load ignores this one's late slices). Not a new worker: Firefox ESR
    // sometimes never returned from a nested `new Worker()` made right after
    // `terminate()` of the one before, and the load hung after its last byte
    // (e2e/firefox, 1 run in 6). A reader that failed is let go.
    if (!failed && !spareReader) keepSpare(reader);
    else reader.terminate();
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
