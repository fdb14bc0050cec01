// Reads a Blob/File as a sequence of chunks without ever holding the whole file:
// plain captures through Blob.slice (tens of MiB at a time), gzip-compressed ones
// (.pcap.gz, magic 1f 8b, RFC 1952) inflated as a stream by the platform's
// DecompressionStream. Inflated chunks carry the compressed bytes read so far, so the
// session can apply the caps on inflated size and ratio (wasm/src/inflate.rs) and
// stop a gzip bomb after a bounded amount of work.

export const SLICE_BYTES = 16 * 1024 * 1024;
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
  // One slice is read ahead while the caller decodes the current one: the platform
  // reads a Blob on its own I/O thread, so reading and decoding overlap (issue 14:
  // sequential, the worker waited for every 16 MiB read — a third of the load of a
  // 250 MB capture). At most two slices are held.
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
