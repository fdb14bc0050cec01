// One pcapng whose interfaces are two vantage points (issue 44 item 1): the page's side of
// worker/vantage.worker.ts, like mergeCaptures.ts for two files. Each question runs in a
// worker of its own, terminated when answered or cancelled.
import type { VantageAnswer, VantageAsk } from '../worker/vantage.worker';
import type { VantageInterfaces } from '../worker/generated/view';

function ask(question: VantageAsk): { answer: Promise<Extract<VantageAnswer, { ok: true }>>; cancel: () => void } {
  const worker = new Worker(new URL('../worker/vantage.worker.ts', import.meta.url), { type: 'module' });
  const answer = new Promise<Extract<VantageAnswer, { ok: true }>>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<VantageAnswer>) => {
      const a = event.data;
      if (a.ok) resolve(a);
      else reject(new Error(a.message));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message || 'the worker failed to start'));
    };
    worker.postMessage(question);
  }).finally(() => worker.terminate());
  return { answer, cancel: () => worker.terminate() };
}

/** Whether two of the capture's interfaces are two vantage points (the engine's answer). */
export function probeInterfaces(capture: Blob): { found: Promise<VantageInterfaces>; cancel: () => void } {
  const run = ask({ kind: 'probe', capture });
  return { found: run.answer.then((a) => (a.kind === 'probe' ? a.found : Promise.reject(new Error('not a probe answer')))), cancel: run.cancel };
}

/** The capture's packets of interface `sides[0]` and of `sides[1]` as two pcapng files,
 *  named after `name` and their interface (`trace.pcapng` → `trace.interface-0.pcapng`). */
export async function splitInterfaces(capture: Blob, name: string, found: VantageInterfaces): Promise<{ files: [File, File]; notes: string[] }> {
  const sides = found.sides;
  if (!sides) throw new Error(found.text);
  const a = await ask({ kind: 'split', capture, sides }).answer;
  if (a.kind !== 'split') throw new Error('not a split answer');
  const stem = name.replace(/\.gz$/i, '').replace(/\.(pcapng|pcap|cap|dmp)$/i, '');
  const files = sides.map((i, k) => new File([a.sides[k]], `${stem}.interface-${i}.pcapng`)) as [File, File];
  return { files, notes: a.notes };
}
