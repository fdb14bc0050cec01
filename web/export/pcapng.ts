// Save for Wireshark (issue 42, item 6): the page's side. The slice is made in a worker
// of its own (worker/slice.worker.ts, wasm/src/slice.rs), from the capture as a Blob
// (the dropped file itself; a capture opened by address is fetched again: the browser
// keeps a large response body on disk, not in this page's memory).
import type { SliceAnswer, SliceAsk } from '../worker/slice.worker';

export interface SliceRequest { connection: number; from: number | null; to: number | null }

/** The pcapng of `request`'s packets of `capture`; throws the decoder's sentence, or
 *  says that the connection has no packet in the range. */
export function sliceCapture(capture: Blob, request: SliceRequest): Promise<Blob> {
  const worker = new Worker(new URL('../worker/slice.worker.ts', import.meta.url), { type: 'module' });
  return new Promise<Blob>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<SliceAnswer>) => {
      const answer = event.data;
      if (!answer.ok) reject(new Error(`The capture could not be sliced: ${answer.message}`));
      else if (answer.packetsKept === 0) reject(new Error(`Connection ${request.connection} has no packet in the shown range; nothing to save.`));
      else resolve(answer.file);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`The capture could not be sliced: ${event.message || 'the slicing worker failed to start'}`));
    };
    worker.postMessage({ capture, ...request } satisfies SliceAsk);
  }).finally(() => worker.terminate());
}

/** The file name: the capture's stem, the connection and the range if one is shown. */
export function sliceFileName(stem: string, request: SliceRequest): string {
  const range = request.from !== null && request.to !== null ? `-${request.from.toFixed(3)}s-${request.to.toFixed(3)}s` : '';
  return `${stem}-connection-${request.connection}${range}.pcapng`;
}
