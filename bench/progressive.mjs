// `node bench/progressive.mjs FILE [--port 4176] [--runs 3] [--variant QUERY | --dist-b DIR] [--first-only] [--trace | --trace-ready]`: the progressive view's
// numbers (issue 41), in headless Chromium on dist/ (build it first). Prints one JSON
// line:
//   readMs             the file's bytes merely read in a worker, 16 MiB slices (quickest of 3)
//   on / off           the page loaded with progressive display on and off
//                      (?progressive=off: no partial table, no partial chart), the median
//                      of `runs` loads each, alternating on/off so both see the same machine:
//     firstTableMs     drop → the partial connection table shown (on only)
//     firstChartMs     drop → the first partial throughput chart drawn with a bar (on only):
//                      a settled bin or the bin in progress (wasm view/partial.rs LoadingBin)
//     firstSettledMs   drop → the first settled bar drawn (older builds: = firstChartMs)
//     updatesPerS      partial chart redraws per second between the first and the report
//     readyMs          drop → data-state="ready" (the finished charts drawn)
//     pushMs, extraMs  the worker's decoding + analysis, and its time building partial
//                      tables and in turns between pieces (partial queries answered);
//                      extraShare = extraMs ÷ pushMs: the display's cost in the worker
//   readyOnVsOff       readyMs on ÷ off (issue 41 target ≤ 1.1)
//   firstChartVsRead, readyVsRead: against readMs
// `--trace`: (with --first-only) each load is recorded in a Chromium trace from the page's
// start to its first bar, and the first chart's path is printed from it (bench/trace-steps.mjs):
// the page's, decoder's and reader's performance marks (web/worker/marks.ts) in ms from the
// drop handed to the worker, each thread's busy time until the first bar, how the wasm
// module was compiled (streamed, cached); `--trace-out DIR` keeps the trace files.
// Informational only: nothing fails on time (the machine is shared; the load average
// goes with it).
import { chromium } from '@playwright/test';
import { statSync } from 'node:fs';
import { READER_PATH, readAllMs, requireDist, serveDist } from './serve.mjs';
import { loadavg } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { TRACE_CATEGORIES, traceSteps } from './trace-steps.mjs';

const args = process.argv.slice(2);
const file = args.find((a, i) => !a.startsWith('--') && !['--port', '--runs', '--variant', '--dist-b', '--trace-out'].includes(args[i - 1]));
const opt = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const port = opt('--port', 4176);
const runs = Math.max(1, opt('--runs', 3));
// `--variant QUERY` (e.g. warmer=off): a third load per round, progressive on with ?QUERY,
// alternated with the others so that all see the same machine.
const variant = args.includes('--variant') ? args[args.indexOf('--variant') + 1] : args.includes('--dist-b') ? 'dist-b' : null;
// `--first-only`: progressive on only, each load stopped at its first partial chart
// (prints firstChartMs, firstTableMs and the share of the file read by then).
// `--trace-ready`: whole loads traced from the page's start to the first connection's
// `prepare` (the charts' data ready): where the time between the read and ready goes, each
// thread's busy time before and after the last byte pushed (issue 41 item 4's profile).
const traceReady = args.includes('--trace-ready');
const firstOnly = (args.includes('--first-only') || args.includes('--trace')) && !traceReady;
const tracing = args.includes('--trace') || traceReady;
const traceOut = args.includes('--trace-out') ? args[args.indexOf('--trace-out') + 1] : null;
let traces = 0;
// `--dist-b DIR`: the variant's loads come from another build (e.g. the main branch's,
// `npx vite build --outDir DIR --emptyOutDir`), served on port + 1: two builds
// compared on the same machine in the same run.
const distB = args.includes('--dist-b') ? args[args.indexOf('--dist-b') + 1] : null;
if (!file) {
  console.error('usage: node bench/progressive.mjs FILE [--port N] [--runs N]');
  process.exit(2);
}
requireDist('bench/progressive.mjs');
const server = await serveDist(port);
const serverB = distB ? await serveDist(port + 1, distB) : null;
const browser = await chromium.launch({
  executablePath: process.env.TCPSCOPE_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

/** One load of FILE in a fresh page: drop → first partial chart, redraws, ready. */
async function load(progressive, query = '') {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.setDefaultTimeout(600_000);
  // From before the page loads: the worker's start and the wasm compile are in it.
  if (tracing) await browser.startTracing(page, { categories: TRACE_CATEGORIES });
  try {
    const at = query === 'dist-b' ? `http://127.0.0.1:${port + 1}/` : `http://127.0.0.1:${port}/${progressive ? (query ? `?${query}` : '') : '?progressive=off'}`;
    await page.goto(at);
    await page.locator('.app[data-state="idle"]').waitFor();
    await page.evaluate(() => {
      const b = (window.__bench = {});
      document.querySelector('[data-testid=file-input]').addEventListener('change', () => { b.start = performance.now(); b.startAbs = performance.timeOrigin + b.start; }, { capture: true });
      const app = document.querySelector('.app');
      new MutationObserver(() => {
        if (b.start && !b.report && b.sawProgress && !document.querySelector('[data-testid=progress]')) {
          b.report = performance.now();
          b.updatesAtReport = window.__tcpscopePartial?.updates ?? 0;
        }
        if (document.querySelector('[data-testid=progress]')) b.sawProgress = true;
        if (b.start && !b.table && document.querySelector('[data-testid=partial-table]')) b.table = performance.now();
        // The first bar as drawn, read from the chart itself (any build): a settled bin
        // with bytes (the payload path's data-max-bps > 0), or the bin in progress.
        if (b.start && !b.barSettled) {
          const path = document.querySelector('[data-testid=partial-throughput] [data-series=payload]');
          if (Number(path?.getAttribute('data-max-bps') ?? 0) > 0) b.barSettled = performance.now();
        }
        if (b.start && !b.bar && (b.barSettled || document.querySelector('[data-testid=partial-throughput] [data-series=loading-bin]'))) b.bar = performance.now();
        if (app.dataset.state === 'ready' && b.start && !b.ready) b.ready = performance.now();
        if (app.dataset.state === 'error') b.error = true;
      }).observe(app, { attributes: true, attributeFilter: ['data-state'], childList: true, subtree: true });
    });
    await page.getByTestId('file-input').setInputFiles(file);
    if (firstOnly) {
      // Only drop → the first partial chart (a capture too large to load whole here, or
      // a quick look): the page is closed then, and with it the load.
      // (A build whose probe has `firstSettledMs` drew the bin in progress first: wait for
      // its first settled bar too; an older build's first bar was a settled one.)
      // (Read from the chart as drawn, so that builds whose probe counted a chart of
      // empty bins as the first chart are measured alike: the first bar, and the first
      // settled bar with bytes.)
      await page.waitForFunction(() => window.__bench.barSettled || window.__bench.error, null, { polling: 20 });
      const f = await page.evaluate(() => ({ ...window.__bench, probeFirst: window.__tcpscopePartial?.firstDrawnMs }));
      if (f.error) throw new Error('the app reported an error state');
      let trace;
      if (tracing) {
        const buffer = await browser.stopTracing();
        if (traceOut) {
          mkdirSync(traceOut, { recursive: true });
          writeFileSync(`${traceOut}/load-${++traces}.json`, buffer);
        }
        trace = traceSteps(buffer.toString('utf8'));
        if (process.env.BENCH_VERBOSE) console.error(JSON.stringify(trace));
      }
      return { trace, firstTableMs: f.table ? f.table - f.start : null, firstChartMs: f.bar - f.start, firstSettledMs: f.barSettled - f.start, probeFirstMs: f.probeFirst - f.start };
    }
    await page.waitForFunction(() => window.__bench.ready || window.__bench.error, null, { polling: 100 });
    const b = await page.evaluate(() => ({ ...window.__bench, partial: window.__tcpscopePartial ?? null, phases: window.__tcpscope?.loadPhases?.last ?? null }));
    if (b.error) throw new Error('the app reported an error state');
    let trace;
    if (tracing) {
      const buffer = await browser.stopTracing();
      if (traceOut) {
        mkdirSync(traceOut, { recursive: true });
        writeFileSync(`${traceOut}/load-${++traces}-${progressive ? 'on' : 'off'}.json`, buffer);
      }
      trace = traceSteps(buffer.toString('utf8'), 'prepared');
      if (process.env.BENCH_VERBOSE) console.error(JSON.stringify(trace));
    }
    const first = b.partial?.firstDrawnMs != null ? b.partial.firstDrawnMs - b.start : null;
    const settledAt = b.partial?.firstSettledMs ?? b.partial?.firstDrawnMs;
    const firstSettled = settledAt != null ? settledAt - b.start : null;
    const span = first != null && b.report ? (b.report - b.partial.firstDrawnMs) / 1000 : 0;
    // The worker's own cost of the progressive display, less disturbed by a loaded
    // machine than wall times: building the partial tables, and its turns between pieces
    // (the partial queries answered), against decoding + analysis (push).
    const ph = b.phases ?? {};
    const extraMs = (ph.partialMs ?? 0) + (ph.turnsMs ?? 0);
    // The first chart's path in the worker (ms from the worker's start of the load; the
    // page's `open` message waited openWaitMs before it): first slice in hand, first
    // table listing a connection posted, first partial view answered, first with bars.
    // (The worker's start of the load, ms after the drop.)
    const path = { startMs: ph.startedAt != null ? ph.startedAt - b.startAbs : null, openWaitMs: ph.openWaitMs, firstSliceMs: ph.firstSliceMs, firstListedMs: ph.firstListedMs, firstViewMs: ph.firstViewMs, firstBarsMs: ph.firstBarsMs, barsMB: ph.barsBytes != null ? +(ph.barsBytes / 1e6).toFixed(1) : null, settledBarsMB: ph.settledBarsBytes != null ? +(ph.settledBarsBytes / 1e6).toFixed(1) : null, warmMs: ph.warmMs, atListed: ph.atListed, warmSteps: ph.warmSteps?.map(([at, ms]) => [Math.round(at - b.startAbs), Math.round(ms)]) };
    if (process.env.BENCH_VERBOSE) console.error(JSON.stringify({ progressive, firstTableMs: b.table - b.start, firstChartMs: first, path }));
    return { trace, phases: ph, path, firstTableMs: b.table ? b.table - b.start : null, firstChartMs: first, firstSettledMs: firstSettled, pushMs: ph.pushMs ?? null, extraMs, extraShare: ph.pushMs ? extraMs / ph.pushMs : null, updatesPerS: span > 0 ? (b.updatesAtReport - 1) / span : null, readyMs: b.ready - b.start };
  } finally {
    await page.close();
  }
}

/** The traced loads' path, each step's median over the loads: the first time each
 *  mark is hit (ms after the drop handed to the worker) and, for measures, the sum of
 *  their durations up to the first bar; the busy time of each thread; the wasm events. */
function traceSummary(ts) {
  if (!ts.length) return null;
  const keys = [];
  const per = ts.map((t) => {
    const m = new Map();
    for (const [thread, name, at, dur] of t.steps) {
      if (t.windowMs != null && at > t.windowMs) continue;
      const k = `${thread} ${name}`;
      if (!keys.includes(k)) keys.push(k);
      const v = m.get(k) ?? { first: at, n: 0, total: 0 };
      v.n += 1;
      v.total += dur;
      m.set(k, v);
    }
    return m;
  });
  const steps = keys.map((k) => {
    const vs = per.map((m) => m.get(k)).filter(Boolean);
    return [k, round(median(vs.map((v) => v.first)), 1), vs.length === ts.length ? vs[0].n : `${vs.length}/${ts.length} loads`, round(median(vs.map((v) => v.total)), 1)];
  }).sort((a, b) => a[1] - b[1]);
  const busy = {};
  for (const t of ts) for (const [k, v] of Object.entries(t.busy)) (busy[k] ??= []).push(v);
  return {
    note: 'steps: [thread step, first at ms after the drop (median), count in the first load, total ms of its spans (median)]',
    windowMs: round(median(ts.map((t) => t.windowMs)), 1),
    busyMs: Object.fromEntries(Object.entries(busy).map(([k, v]) => [k, round(median(v), 1)])),
    steps,
    wasm: ts[0].wasm,
  };
}

const median = (xs) => {
  const v = xs.filter((x) => x != null).sort((a, b) => a - b);
  return v.length ? v[Math.floor((v.length - 1) / 2)] : null;
};
const round = (x, d = 0) => (x == null ? null : +x.toFixed(d));
const result = { file: file.split('/').pop(), bytes: statSync(file).size, load: +loadavg()[0].toFixed(2) };
const loadAtEnd = () => { result.loadEnd = +loadavg()[0].toFixed(2); };
try {
  // The read baseline, quickest of three.
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.evaluate(() => {
    const input = Object.assign(document.createElement('input'), { type: 'file', id: 'bench-read' });
    document.body.append(input);
  });
  await page.locator('#bench-read').setInputFiles(file);
  for (let i = 0; i < 3; i++) {
    const ms = await page.evaluate((url) => new Promise((ok) => {
      const w = new Worker(url);
      w.onmessage = (e) => { w.terminate(); ok(e.data); };
      w.postMessage(document.querySelector('#bench-read').files[0]);
    }), READER_PATH);
    result.readMs = Math.min(result.readMs ?? Infinity, ms);
  }
  await page.close();
  const on = [], off = [], alt = [];
  if (firstOnly) {
    for (let i = 0; i < runs; i++) {
      on.push(await load(true));
      if (variant) alt.push(await load(true, variant));
    }
    const firsts = (xs) => ({ firstChartMs: round(median(xs.map((x) => x.firstChartMs))), firstSettledMs: round(median(xs.map((x) => x.firstSettledMs))), firstTableMs: round(median(xs.map((x) => x.firstTableMs))), runs: xs.map((x) => round(x.firstChartMs)), settledRuns: xs.map((x) => round(x.firstSettledMs)), probeFirstMs: xs.map((x) => round(x.probeFirstMs)) });
    result.firstOnly = firsts(on);
    if (tracing) result.firstOnly.trace = traceSummary(on.map((x) => x.trace).filter((t) => t && !t.error));
    if (variant) result.variant = { query: variant, ...firsts(alt) };
  }
  for (let i = 0; i < (firstOnly ? 0 : runs); i++) {
    on.push(await load(true));
    if (variant) alt.push(await load(true, variant));
    off.push(await load(false));
  }
  const pathOf = (xs) => Object.fromEntries(['startMs', 'openWaitMs', 'firstSliceMs', 'firstListedMs', 'firstViewMs', 'firstBarsMs', 'barsMB', 'settledBarsMB', 'warmMs'].map((k) => [k, round(median(xs.map((x) => x.path?.[k] ?? null)))]));
  const summary = (xs) => ({ path: pathOf(xs), pushMs: round(median(xs.map((x) => x.pushMs))), extraMs: round(median(xs.map((x) => x.extraMs))), extraShare: round(median(xs.map((x) => x.extraShare)), 3), firstTableMs: round(median(xs.map((x) => x.firstTableMs))), firstChartMs: round(median(xs.map((x) => x.firstChartMs))), firstSettledMs: round(median(xs.map((x) => x.firstSettledMs))), updatesPerS: round(median(xs.map((x) => x.updatesPerS)), 1), readyMs: round(median(xs.map((x) => x.readyMs))) });
  result.readMs = round(result.readMs);
  if (!firstOnly) {
    result.on = summary(on);
    result.off = summary(off);
    if (variant) result.variant = { query: variant, ...summary(alt), runs: alt.map((x) => round(x.readyMs)) };
    if (traceReady) {
      // Per mode: the worker's phases (median ms) and the traced threads' busy time.
      const phasesOf = (xs) => Object.fromEntries(['readWaitMs', 'pushMs', 'turnsMs', 'partialMs', 'warmMs', 'finishMs', 'reportMs', 'prepareMs'].map((k) => [k, round(median(xs.map((x) => x.phases?.[k] ?? null)))]));
      const busyOf = (xs, key) => {
        const all = {};
        for (const x of xs) for (const [k, v] of Object.entries(x.trace?.[key] ?? {})) (all[k] ??= []).push(v);
        return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, round(median(v))]));
      };
      const traced = (xs) => ({ phases: phasesOf(xs), pushedAllMs: round(median(xs.map((x) => x.trace?.pushedAllMs ?? null))), preparedMs: round(median(xs.map((x) => x.trace?.windowMs ?? null))), busyUntilPushed: busyOf(xs, 'busyUntilPushed'), busyAfterPushed: busyOf(xs, 'busyAfterPushed') });
      result.traceReady = { note: 'ms: the worker phases (median), the drop → last byte pushed and → prepared (trace), each thread\'s busy time before / after the last byte pushed', on: traced(on), off: traced(off) };
    }
    result.runs = { on: on.map((x) => round(x.readyMs)), off: off.map((x) => round(x.readyMs)) };
    result.readyOnVsOff = round(result.on.readyMs / result.off.readyMs, 3);
    result.firstChartVsRead = round(result.on.firstChartMs / result.readMs, 2);
    result.readyVsRead = { on: round(result.on.readyMs / result.readMs, 2), off: round(result.off.readyMs / result.readMs, 2) };
  }
} finally {
  await browser.close();
  server.close();
  serverB?.close();
  loadAtEnd();
}
console.log(JSON.stringify(result));
