// A capture that reaches the decoder worker as it arrives (#url=: the page reads the
// response body and posts its chunks, protocol.ts `openStream`), read like a dropped
// file: the same CaptureChunks into the same session, gzip inflated as a stream with
// the compressed count handed to the caps (wasm/src/inflate.rs), as chunks.ts does for
// a Blob. Memory: the page sends at most STREAM_WINDOW_BYTES ahead of what the decoder
// took (`onTaken` below tells it), so a server faster than the decoder waits.

import type { CaptureChunk } from './chunks';

/** Compressed bytes handed to the inflater at a time (as chunks.ts GZIP_SLICE_BYTES). */
const GZIP_PIECE_BYTES = 64 * 1024;

/** The chunks the page posted for one streamed capture, in order, until `end()`. */
export class StreamInbox {
  private queue: Uint8Array[] = [];
  private ended = false;
  private wake: (() => void) | null = null;

  /** `onTaken(n)`: n more bytes went to the decoder (the page may send that much more). */
  constructor(private readonly onTaken: (bytes: number) => void) {}

  push(bytes: Uint8Array) {
    this.queue.push(bytes);
    this.wake?.();
  }

  /** The body ended, or the page stopped it (a cap, a network failure): no more chunks. */
  end() {
    this.ended = true;
    this.wake?.();
  }

  async *pieces(): AsyncGenerator<Uint8Array> {
    for (;;) {
      while (this.queue.length === 0 && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
      const bytes = this.queue.shift();
      if (!bytes) return;
      this.onTaken(bytes.byteLength);
      if (bytes.byteLength > 0) yield bytes;
    }
  }
}

/** The capture's bytes in order from `pieces`; `onRead(n)`: n bytes (compressed, for
 * gzip) received so far. Gzip (magic 1f 8b, RFC 1952) is told by its first two bytes,
 * as chunks.ts isGzip tells a file. Leaving the loop early stops reading `pieces`. */
export async function* streamedChunks(pieces: AsyncGenerator<Uint8Array>, onRead: (bytesRead: number) => void): AsyncGenerator<CaptureChunk> {
  // The first two bytes may come in two chunks.
  const head: Uint8Array[] = [];
  let headBytes = 0;
  while (headBytes < 2) {
    const next = await pieces.next();
    if (next.done) break;
    head.push(next.value);
    headBytes += next.value.byteLength;
  }
  const first = head.flatMap((bytes) => Array.from(bytes.subarray(0, 2))).slice(0, 2);
  const gzip = first[0] === 0x1f && first[1] === 0x8b;
  async function* all(): AsyncGenerator<Uint8Array> {
    yield* head;
    yield* pieces;
  }
  let read = 0;
  if (!gzip) {
    for await (const bytes of all()) {
      read += bytes.byteLength;
      onRead(read);
      yield { bytes, compressedBytes: null };
    }
    return;
  }
  // Compressed bytes go to the inflater GZIP_PIECE_BYTES at a time, only as fast as it
  // asks for them, so the count the caps see is close to what was inflated.
  const source = all();
  let pending: Uint8Array = new Uint8Array();
  const compressed = new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (pending.byteLength === 0) {
        const next = await source.next();
        if (next.done) return controller.close();
        pending = next.value;
      }
      const piece = pending.subarray(0, GZIP_PIECE_BYTES);
      pending = pending.subarray(piece.byteLength);
      read += piece.byteLength;
      controller.enqueue(piece);
    },
  }, { highWaterMark: 0 });
  const reader = compressed.pipeThrough(new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onRead(read);
      yield { bytes: value, compressedBytes: read };
    }
  } finally {
    await reader.cancel().catch(() => {});
    void source.return(undefined);
  }
}
