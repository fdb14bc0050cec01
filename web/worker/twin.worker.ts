// Two vantage points (issue 44): the two captures merged by the wasm module
// (wasm/src/twin through bindings.rs `WasmTwin`) in a worker of its own, so the decoder
// workers keep answering the compare view's charts meanwhile. Each capture is read in
// slices (chunks.ts, gzip inflated under the inflate caps), and kept by the merge up to
// twin/stream.rs `MAX_TWIN_CAPTURE_BYTES` (256 MiB) each; the bytes never leave the
// machine. The answer is the TwinReport as the engine writes it.
import init, { WasmTwin } from 'tcpscope-wasm';
import { captureChunks } from './chunks';
import type { TwinReport } from './generated/view';

export interface TwinAsk { captures: [Blob, Blob] }
export type TwinAnswer = { ok: true; report: TwinReport } | { ok: false; message: string };

self.onmessage = async (event: MessageEvent<TwinAsk>) => {
  const post = (answer: TwinAnswer) => (self as unknown as Worker).postMessage(answer);
  try {
    await init();
    const twin = new WasmTwin(Number.NaN);
    try {
      for (const [which, capture] of event.data.captures.entries()) {
        for await (const chunk of captureChunks(capture, () => {})) {
          const more = chunk.compressedBytes === null ? twin.push(which, chunk.bytes) : twin.pushInflated(which, chunk.bytes, chunk.compressedBytes);
          if (!more) break;
        }
      }
      post({ ok: true, report: JSON.parse(twin.finish()) as TwinReport });
    } finally {
      twin.free();
    }
  } catch (error) {
    post({ ok: false, message: error instanceof Error ? error.message : String(error) });
  }
};
