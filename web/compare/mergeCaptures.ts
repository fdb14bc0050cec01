// Two vantage points (issue 44): the page's side of the merge. It runs in a worker of its
// own (worker/twin.worker.ts) over the two captures as Blobs (the dropped files
// themselves, or an example fetched again); the report is the engine's TwinReport. The
// same worker makes a share link's merged view of a report and reads one back
// (wasm/src/share/twin.rs), each in a fresh worker.
import type { TwinAnswer, TwinAsk, TwinShared } from '../worker/twin.worker';
import type { TwinReport } from '../worker/generated/view';

export type { TwinShared };

/** One question to a fresh twin worker; `what` starts the message of a failure (null: the
 *  engine's sentence says it all). */
function askTwin(ask: TwinAsk, what: string | null): { answer: Promise<TwinAnswer & { ok: true }>; cancel: () => void } {
  const worker = new Worker(new URL('../worker/twin.worker.ts', import.meta.url), { type: 'module' });
  const answer = new Promise<TwinAnswer & { ok: true }>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<TwinAnswer>) => {
      const a = event.data;
      if (a.ok) resolve(a);
      else reject(new Error(what === null ? a.message : `${what}: ${a.message}`));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`${what ?? 'The merged view cannot be shown'}: ${event.message || 'the merging worker failed to start'}`));
    };
    worker.postMessage(ask);
  }).finally(() => worker.terminate());
  return { answer, cancel: () => worker.terminate() };
}

function reportOf(a: TwinAnswer & { ok: true }): TwinReport {
  if (!('report' in a)) throw new Error('The merging worker answered another question.');
  return a.report;
}

/** The merge of `a` and `b` (either order gives the same report, by role); throws when
 *  the worker fails. A refused merge is a report with `refusal` set, not a throw. */
export function mergeCaptures(a: Blob, b: Blob): { report: Promise<TwinReport>; cancel: () => void } {
  const run = askTwin({ captures: [a, b] }, 'The two captures could not be merged');
  return { report: run.answer.then(reportOf), cancel: run.cancel };
}

/** A share link's merged view (`twin-snap=`) read back: a report of its one pair; throws
 *  the engine's sentence when the link's part is damaged. */
export function openSharedTwin(data: string): { report: Promise<TwinReport>; cancel: () => void } {
  const run = askTwin({ open: data }, null);
  return { report: run.answer.then(reportOf), cancel: run.cancel };
}

/** Pair `pair` of `report` as a link's `twin-snap=` of at most `maxChars` characters,
 *  its series cut to `columns` or fewer. */
export async function shareTwin(report: TwinReport, pair: number, columns: number, maxChars: number): Promise<TwinShared> {
  const a = await askTwin({ share: { report: JSON.stringify(report), pair, columns, maxChars } }, 'The merged view could not be shared').answer;
  if (!('shared' in a)) throw new Error('The merging worker answered another question.');
  return a.shared;
}
