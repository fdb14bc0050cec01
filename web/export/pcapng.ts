// Save for Wireshark (issue 42, item 6): the page's side. The slice is made in a worker
// of its own (worker/slice.worker.ts, wasm/src/slice.rs), from the capture as a Blob
// (the dropped file itself; a capture opened by address is fetched again: the browser
// keeps a large response body on disk, not in this page's memory).
import type { SliceAnswer, SliceAsk } from '../worker/slice.worker';

export interface SliceRequest { connection: number; from: number | null; to: number | null }

/** The pcapng of `request`'s packets of `capture` (several requests: one pass, one
 *  section); throws the decoder's sentence, or says which connection has no packet in
 *  the range. */
export function sliceCapture(capture: Blob, request: SliceRequest | SliceRequest[]): Promise<Blob> {
  const requests = Array.isArray(request) ? request : [request];
  const worker = new Worker(new URL('../worker/slice.worker.ts', import.meta.url), { type: 'module' });
  return new Promise<Blob>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<SliceAnswer>) => {
      const answer = event.data;
      const empty = answer.ok ? requests.filter((_, k) => !(answer.kept[k] > 0)) : [];
      if (!answer.ok) reject(new Error(`The capture could not be sliced: ${answer.message}`));
      else if (empty.length) reject(new Error(`Connection ${empty.map((r) => r.connection).join(' and ')} has no packet in the shown range; nothing to save.`));
      else resolve(answer.file);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`The capture could not be sliced: ${event.message || 'the slicing worker failed to start'}`));
    };
    worker.postMessage({ capture, requests } satisfies SliceAsk);
  }).finally(() => worker.terminate());
}

/** One side of the compare view's pair: its capture and its connection's request. */
export interface PairSide { capture: () => Promise<Blob>; request: SliceRequest }

/**
 * The compare view's pair as one pcapng. Both of one capture: one pass, one section,
 * the packets in the capture's order. Of two captures: each sliced alone and the two
 * files joined: a pcapng may hold several sections, each with its own header and
 * interfaces (draft-ietf-opsawg-pcapng §3.1), and Wireshark reads them in turn.
 */
export async function slicePair(sides: [PairSide, PairSide], sameCapture: boolean): Promise<Blob> {
  if (sameCapture) return sliceCapture(await sides[0].capture(), sides.map((s) => s.request));
  const parts: Blob[] = [];
  for (const side of sides) parts.push(await sliceCapture(await side.capture(), side.request));
  return new Blob(parts, { type: 'application/octet-stream' });
}

/** The file name: the capture's stem, the connection and the range if one is shown. */
export function sliceFileName(stem: string, request: SliceRequest): string {
  const range = request.from !== null && request.to !== null ? `-${request.from.toFixed(3)}s-${request.to.toFixed(3)}s` : '';
  return `${stem}-connection-${request.connection}${range}.pcapng`;
}

/** The pair's file name: each side's stem and connection ("a-connection-1-vs-b-connection-3.pcapng"). */
export function pairFileName(stems: [string, string], requests: [SliceRequest, SliceRequest]): string {
  return `${stems[0]}-connection-${requests[0].connection}-vs-${stems[1]}-connection-${requests[1].connection}.pcapng`;
}
