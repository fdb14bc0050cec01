// Save for Wireshark (issue 42, item 6): connections' packets of a capture as a pcapng
// (one, or the compare view's pair in one pass), sliced by the wasm module
// (wasm/src/slice.rs) in a worker of its own, so the decoder worker keeps answering the
// charts meanwhile. The capture is read in slices (chunks.ts, gzip inflated as it comes,
// under the inflate caps the analysis applies: wasm/src/inflate.rs): never held whole;
// only the output (the connections' own packets) is kept, as the Blob the page saves.
import init, { WasmSlicer } from 'tcpscope-wasm';
import { captureChunks } from './chunks';

export interface SliceAsk { capture: Blob; requests: { connection: number; from: number | null; to: number | null }[] }
export type SliceAnswer =
  | { ok: true; file: Blob; packetsKept: number; packetsRead: number; kept: number[] }
  | { ok: false; message: string };

self.onmessage = async (event: MessageEvent<SliceAsk>) => {
  const { capture, requests } = event.data;
  const post = (answer: SliceAnswer) => (self as unknown as Worker).postMessage(answer);
  const bound = (s: number | null) => s ?? Number.NaN;
  try {
    await init();
    const [first, ...more] = requests;
    const slicer = new WasmSlicer(first.connection, bound(first.from), bound(first.to));
    try {
      for (const r of more) slicer.also(r.connection, bound(r.from), bound(r.to));
      const parts: BlobPart[] = [];
      for await (const chunk of captureChunks(capture, () => {})) {
        const out = chunk.compressedBytes === null ? slicer.push(chunk.bytes) : slicer.pushInflated(chunk.bytes, chunk.compressedBytes);
        if (out.length) parts.push(out as Uint8Array<ArrayBuffer>);
      }
      const stats = JSON.parse(slicer.finish()) as { packetsKept: number; packetsRead: number; kept: number[] };
      post({ ok: true, file: new Blob(parts, { type: 'application/octet-stream' }), ...stats });
    } finally {
      slicer.free();
    }
  } catch (error) {
    post({ ok: false, message: error instanceof Error ? error.message : String(error) });
  }
};
