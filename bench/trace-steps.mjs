// The first chart's path read from a Chromium trace (bench/progressive.mjs --trace, issue 41):
// the page's, the decoder worker's and the reader worker's performance marks
// (web/worker/marks.ts, category blink.user_timing) on the trace's one clock, each
// thread's busy time in the window, and how the wasm module was compiled (Chromium's
// devtools.timeline events v8.wasm.*: streamed from the response, compiled, or taken
// from the code cache).

/** The categories the trace records (few, so that tracing itself costs little). */
export const TRACE_CATEGORIES = ['blink.user_timing', 'devtools.timeline', 'toplevel', 'v8.wasm', '__metadata'];

/**
 * `trace`: the JSON of browser.stopTracing(). Returns, in ms from the page's
 * `tcpscope:open-posted` mark (the drop handed to the worker):
 *   steps   every tcpscope mark or measure, [thread, name, at, duration] in time order
 *           (a measure's `at` is its start)
 *   busy    each thread's time in top-level tasks between the drop and the first bar
 *           drawn (`tcpscope:chart-drawn`), and the window's length (`until`: another
 *           page mark ends the window: `prepared` for a whole load, whose busy time is
 *           then also given before and after `pushed-all`, the decoder's last byte pushed)
 *   wasm    the v8.wasm.* events (streamed, compiled, cached) with their times
 */
export function traceSteps(trace, until = 'chart-drawn') {
  const events = (typeof trace === 'string' ? JSON.parse(trace) : trace).traceEvents ?? [];
  const names = new Map();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args?.name ?? '?');
  const marks = [];
  const open = new Map();
  for (const e of events) {
    if (!e.name?.startsWith('tcpscope:') || !String(e.cat).includes('blink.user_timing')) continue;
    const key = `${e.pid}:${e.tid}`;
    if (e.ph === 'b') open.set(`${key}:${e.name}:${e.id2?.local ?? e.id ?? ''}`, e);
    else if (e.ph === 'e') {
      const k = `${key}:${e.name}:${e.id2?.local ?? e.id ?? ''}`;
      const b = open.get(k);
      if (b) marks.push({ key: `${b.pid}:${b.tid}`, name: e.name.slice(9), ts: b.ts, dur: e.ts - b.ts });
      open.delete(k);
    } else if (e.ph === 'X') marks.push({ key, name: e.name.slice(9), ts: e.ts, dur: e.dur ?? 0 });
    else marks.push({ key, name: e.name.slice(9), ts: e.ts, dur: 0 });
  }
  // Name the threads by what they marked: two dedicated workers look alike otherwise.
  const role = new Map();
  for (const m of marks) {
    if (m.name === 'read') role.set(m.key, 'reader');
    else if (['open-received', 'push', 'wasm-init', 'worker-start'].includes(m.name)) role.set(m.key, 'decoder');
    else if (['open-posted', 'chart-drawn', 'view-asked'].includes(m.name)) role.set(m.key, 'page');
  }
  const threadOf = (key) => role.get(key) ?? names.get(key) ?? key;
  // The last load's drop (a trace may hold an earlier load's marks: cleared in the
  // buffer, not in the trace).
  const drops = marks.filter((m) => m.name === 'open-posted').map((m) => m.ts);
  const zero = drops.length ? Math.max(...drops) : null;
  if (zero == null) return { error: 'no tcpscope:open-posted mark in the trace' };
  const drawn = marks.find((m) => m.name === until && m.ts >= zero)?.ts ?? null;
  // (A whole load, --trace-ready: the busy time is also split at the last byte pushed.)
  const pushedAll = until === 'chart-drawn' ? null : marks.find((m) => m.name === 'pushed-all' && m.ts >= zero)?.ts ?? null;
  const ms = (ts) => +((ts - zero) / 1000).toFixed(1);
  const steps = marks.filter((m) => m.ts + m.dur >= zero - 5e6)
    .sort((a, b) => a.ts - b.ts)
    .map((m) => [threadOf(m.key), m.name, ms(m.ts), +(m.dur / 1000).toFixed(1)]);
  // Busy: top-level tasks (RunTask and the like, category toplevel) clipped to the window.
  const busyIn = (start, end) => {
    const busy = {};
    for (const e of events) {
      if (e.ph !== 'X' || !String(e.cat).split(',').includes('toplevel') || !e.dur) continue;
      const from = Math.max(e.ts, start), to = Math.min(e.ts + e.dur, end);
      if (to <= from) continue;
      const t = threadOf(`${e.pid}:${e.tid}`);
      busy[t] = (busy[t] ?? 0) + (to - from) / 1000;
    }
    for (const k of Object.keys(busy)) busy[k] = +busy[k].toFixed(1);
    return busy;
  };
  const busy = drawn != null ? busyIn(zero, drawn) : {};
  const wasm = events.filter((e) => e.name?.startsWith('v8.wasm.'))
    .map((e) => [threadOf(`${e.pid}:${e.tid}`), e.name.slice(8), ms(e.ts), e.dur != null ? +(e.dur / 1000).toFixed(1) : null, e.args?.data?.url ? undefined : e.args?.data]);
  const split = pushedAll != null && drawn != null ? { pushedAllMs: ms(pushedAll), busyUntilPushed: busyIn(zero, pushedAll), busyAfterPushed: busyIn(pushedAll, drawn) } : {};
  return { windowMs: drawn != null ? ms(drawn) : null, busy, ...split, steps, wasm };
}
