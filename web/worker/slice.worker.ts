// Save for Wireshark (issue 42, item 6): one connection's packets of a capture as a
// pcapng, sliced by the wasm module (wasm/src/slice.rs) in a worker of its own, so the
// decoder worker keeps answering the charts meanwhile. The capture is read in slices
// (chunks.ts, gzip inflated as it comes): never held whole; only the output (the
// connection's own packets) is kept, as the Blob the page saves.
import init, { WasmSlicer } from 'tcpscope-wasm';
import { captureChunks } from './chunks';

export interface SliceAsk { capture: Blob; connection: number; from: number | null; to: number | null }
export type SliceAnswer =
  | { ok: true; file: Blob; packetsKept: number; packetsRead: number }
  | { ok: false; message: string };

self.onmessage = async (event: MessageEvent<SliceAsk>) => {
  const { capture, connection, from, to } = event.data;
  const post = (answer: SliceAnswer) => (self as unknown as Worker).postMessage(answer);
  try {
    await init();
    const slicer = new WasmSlicer(connection, from ?? Number.NaN, to ?? Number.NaN);
    try {
      const parts: BlobPart[] = [];
      for await (const chunk of captureChunks(capture, () => {})) {
        const out = slicer.push(chunk.bytes);
        if (out.length) parts.push(out as Uint8Array<ArrayBuffer>);
      }
      const stats = JSON.parse(slicer.finish()) as { packetsKept: number; packetsRead: number };
      post({ ok: true, file: new Blob(parts, { type: 'application/octet-stream' }), ...stats });
    } finally {
      slicer.free();
    }
  } catch (error) {
    post({ ok: false, message: error instanceof Error ? error.message : String(error) });
  }
};
