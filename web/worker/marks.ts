// Performance marks on the path from a drop to the first partial chart (issue 41): the
// page, the decoder worker and the reader worker each mark their steps with the User
// Timing API, so that a Chromium trace (bench/progressive.mjs --trace, category
// blink.user_timing) lines them up on one clock with what else each thread did (V8's
// compiles, the page's scripts, layout and paint). Every name starts with "tcpscope:".
// Only the first load of a worker, the first second of each load and its end-of-capture
// steps (`pushed-all`, `finish`, `report`, `prepare`, the page's `prepared`: where the
// time after the read goes, bench/progressive.mjs --trace-ready) are marked (a handful of
// entries a load); the User Timing buffer is cleared at each new load.

const PREFIX = 'tcpscope:';

/** Whether `performance.mark` exists here (older engines, Node's tests without it). */
const can = typeof performance !== 'undefined' && typeof performance.mark === 'function' && typeof performance.measure === 'function';

/** A point in time: `tcpscope:NAME`. */
export function mark(name: string): void {
  if (can) performance.mark(PREFIX + name);
}

/** A span from `start` (performance.now()) to now: `tcpscope:NAME`. */
export function measure(name: string, start: number): void {
  if (can) performance.measure(PREFIX + name, { start, end: performance.now() });
}

/** Forget the earlier loads' entries (the buffer would grow with every load). */
export function clearMarks(): void {
  if (!can || typeof performance.getEntriesByType !== 'function') return;
  for (const e of performance.getEntriesByType('mark')) if (e.name.startsWith(PREFIX)) performance.clearMarks(e.name);
  for (const e of performance.getEntriesByType('measure')) if (e.name.startsWith(PREFIX)) performance.clearMeasures(e.name);
}
