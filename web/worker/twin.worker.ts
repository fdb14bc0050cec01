// Two vantage points (issue 44): the two captures merged by the wasm module
// (wasm/src/twin through bindings.rs `WasmTwin`) in a worker of its own, so the decoder
// workers keep answering the compare view's charts meanwhile. Each capture is read in
// slices (chunks.ts, gzip inflated under the inflate caps), and kept by the merge up to
// twin/stream.rs `MAX_TWIN_CAPTURE_BYTES` (256 MiB) each; the bytes never leave the
// machine. The answer is the TwinReport as the engine writes it.
// The same worker, started afresh, makes a share link's merged view of a report and
// reads one back (`twinLink`, wasm/src/share/twin.rs `answer`): a worker that merged two
// captures has grown its memory to hold them, and is not kept for that.
import init, { WasmTwin, twinLink } from 'tcpscope-wasm';
import { captureChunks } from './chunks';
import type { TwinReport } from './generated/view';

/** The merged view's link part: `{snapshot, columns, cap}`, or why it cannot be made. */
export type TwinShared = { snapshot: string; columns: number; cap: number | null } | { error: string };

export type TwinAsk =
  | { captures: [Blob, Blob] }
  /** Pair `pair` of `report` (its JSON) as a link part of at most `maxChars`, cut to `columns`. */
  | { share: { report: string; pair: number; columns: number; maxChars: number } }
  /** A link's `twin-snap=` value read back. */
  | { open: string };
export type TwinAnswer = { ok: true; report: TwinReport } | { ok: true; shared: TwinShared } | { ok: false; message: string };

async function merge(captures: [Blob, Blob]): Promise<TwinReport> {
  const twin = new WasmTwin(Number.NaN);
  try {
    for (const [which, capture] of captures.entries()) {
      for await (const chunk of captureChunks(capture, () => {})) {
        const more = chunk.compressedBytes === null ? twin.push(which, chunk.bytes) : twin.pushInflated(which, chunk.bytes, chunk.compressedBytes);
        if (!more) break;
      }
    }
    return JSON.parse(twin.finish()) as TwinReport;
  } finally {
    twin.free();
  }
}

self.onmessage = async (event: MessageEvent<TwinAsk>) => {
  const post = (answer: TwinAnswer) => (self as unknown as Worker).postMessage(answer);
  try {
    await init();
    const ask = event.data;
    if ('captures' in ask) post({ ok: true, report: await merge(ask.captures) });
    else if ('share' in ask) {
      // The report's JSON as it is (not parsed again here): the engine reads its numbers.
      const { report, pair, columns, maxChars } = ask.share;
      post({ ok: true, shared: JSON.parse(twinLink(`{"share":{"report":${report},"pair":${pair},"columns":${columns},"maxChars":${maxChars}}}`)) as TwinShared });
    } else {
      const answer = JSON.parse(twinLink(JSON.stringify({ open: `twin-snap=${ask.open}` }))) as { report: TwinReport } | { error: string };
      post('error' in answer ? { ok: false, message: answer.error } : { ok: true, report: answer.report });
    }
  } catch (error) {
    post({ ok: false, message: error instanceof Error ? error.message : String(error) });
  }
};
