// Two vantage points (issue 44): the page's side of the merge. It runs in a worker of its
// own (worker/twin.worker.ts) over the two captures as Blobs (the dropped files
// themselves, or an example fetched again); the report is the engine's TwinReport.
import type { TwinAnswer, TwinAsk } from '../worker/twin.worker';
import type { TwinReport } from '../worker/generated/view';

/** The merge of `a` and `b` (either order gives the same report, by role); throws when
 *  the worker fails. A refused merge is a report with `refusal` set, not a throw. */
export function mergeCaptures(a: Blob, b: Blob): { report: Promise<TwinReport>; cancel: () => void } {
  const worker = new Worker(new URL('../worker/twin.worker.ts', import.meta.url), { type: 'module' });
  const report = new Promise<TwinReport>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<TwinAnswer>) => {
      const answer = event.data;
      if (answer.ok) resolve(answer.report);
      else reject(new Error(`The two captures could not be merged: ${answer.message}`));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`The two captures could not be merged: ${event.message || 'the merging worker failed to start'}`));
    };
    worker.postMessage({ captures: [a, b] } satisfies TwinAsk);
  }).finally(() => worker.terminate());
  return { report, cancel: () => worker.terminate() };
}
