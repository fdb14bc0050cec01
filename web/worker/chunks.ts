// Reads a Blob/File as a sequence of chunks without ever holding the whole file:
// plain captures through Blob.slice (tens of MiB at a time), gzip-compressed ones
// (.pcap.gz, magic 1f 8b, RFC 1952) through the platform's DecompressionStream.

export const SLICE_BYTES = 16 * 1024 * 1024;

export async function isGzip(blob: Blob): Promise<boolean> {
  const head = new Uint8Array(await blob.slice(0, 2).arrayBuffer());
  return head.length === 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** Yields the capture's bytes in order; `onRead(n)` reports compressed bytes consumed. */
export async function* captureChunks(blob: Blob, onRead: (bytesRead: number) => void): AsyncGenerator<Uint8Array> {
  if (await isGzip(blob)) {
    let compressedRead = 0;
    const counting = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        compressedRead += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const reader = blob.stream().pipeThrough(counting).pipeThrough(new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onRead(compressedRead);
      yield value;
    }
  }
  for (let offset = 0; offset < blob.size; offset += SLICE_BYTES) {
    const end = Math.min(blob.size, offset + SLICE_BYTES);
    const chunk = new Uint8Array(await blob.slice(offset, end).arrayBuffer());
    onRead(end);
    yield chunk;
  }
}
