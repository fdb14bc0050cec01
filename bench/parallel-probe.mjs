// How much parallelism the machine gives right now (bench/fleet.sh): the same CPU work
// (a fixed loop) done by one worker thread, then split over two. On an idle 2-core
// machine two take half the time; when other work holds the cores they do not, and the
// `--jobs 2` ÷ `--jobs 1` ratio beside it must be read with that in mind.
// Prints {"oneMs", "twoMs", "speedup"}.
import { Worker, isMainThread, workerData, parentPort } from 'node:worker_threads';

const LOOP = 3e8;

async function timed(threads) {
  const start = performance.now();
  await Promise.all(Array.from({ length: threads }, () => new Promise((resolve, reject) => {
    new Worker(new URL(import.meta.url), { workerData: LOOP / threads }).on('exit', resolve).on('error', reject);
  })));
  return performance.now() - start;
}

if (isMainThread) {
  const oneMs = await timed(1);
  const twoMs = await timed(2);
  console.log(JSON.stringify({ oneMs: Math.round(oneMs), twoMs: Math.round(twoMs), speedup: +(oneMs / twoMs).toFixed(2) }));
} else {
  let x = 0;
  for (let i = 0; i < workerData; i++) x += i % 7;
  parentPort.postMessage(x);
}
