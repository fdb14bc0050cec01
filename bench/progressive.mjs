// `node bench/progressive.mjs FILE [--port 4176] [--runs 3]`: the progressive view's
// numbers (issue 41), in headless Chromium on dist/ (build it first). Prints one JSON
// line:
//   readMs             the file's bytes merely read in a worker, 16 MiB slices (quickest of 3)
//   on / off           the page loaded with progressive display on and off
//                      (?progressive=off: no partial table, no partial chart), the median
//                      of `runs` loads each, alternating on/off so both see the same machine:
//     firstTableMs     drop → the partial connection table shown (on only)
//     firstChartMs     drop → the first partial throughput chart drawn with bars (on only)
//     updatesPerS      partial chart redraws per second between the first and the report
//     readyMs          drop → data-state="ready" (the finished charts drawn)
//     pushMs, extraMs  the worker's decoding + analysis, and its time building partial
//                      tables and in turns between pieces (partial queries answered);
//                      extraShare = extraMs ÷ pushMs: the display's cost in the worker
//   readyOnVsOff       readyMs on ÷ off (issue 41 target ≤ 1.1)
//   firstChartVsRead, readyVsRead: against readMs
// Informational only: nothing fails on time (the machine is shared; the load average
// goes with it).
import { chromium } from '@playwright/test';
import { statSync } from 'node:fs';
import { READER_PATH, readAllMs, requireDist, serveDist } from './serve.mjs';
import { loadavg } from 'node:os';

const args = process.argv.slice(2);
const file = args.find((a, i) => !a.startsWith('--') && !['--port', '--runs'].includes(args[i - 1]));
const opt = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const port = opt('--port', 4176);
const runs = Math.max(1, opt('--runs', 3));
if (!file) {
  console.error('usage: node bench/progressive.mjs FILE [--port N] [--runs N]');
  process.exit(2);
}
requireDist('bench/progressive.mjs');
const server = await serveDist(port);
const browser = await chromium.launch({
  executablePath: process.env.TCPSCOPE_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

/** One load of FILE in a fresh page: drop → first partial chart, redraws, ready. */
async function load(progressive) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.setDefaultTimeout(600_000);
  try {
    await page.goto(`http://127.0.0.1:${port}/${progressive ? '' : '?progressive=off'}`);
    await page.locator('.app[data-state="idle"]').waitFor();
    await page.evaluate(() => {
      const b = (window.__bench = {});
      document.querySelector('[data-testid=file-input]').addEventListener('change', () => { b.start = performance.now(); }, { capture: true });
      const app = document.querySelector('.app');
      new MutationObserver(() => {
        if (b.start && !b.report && b.sawProgress && !document.querySelector('[data-testid=progress]')) {
          b.report = performance.now();
          b.updatesAtReport = window.__tcpscopePartial?.updates ?? 0;
        }
        if (document.querySelector('[data-testid=progress]')) b.sawProgress = true;
        if (b.start && !b.table && document.querySelector('[data-testid=partial-table]')) b.table = performance.now();
        if (app.dataset.state === 'ready' && b.start && !b.ready) b.ready = performance.now();
        if (app.dataset.state === 'error') b.error = true;
      }).observe(app, { attributes: true, attributeFilter: ['data-state'], childList: true, subtree: true });
    });
    await page.getByTestId('file-input').setInputFiles(file);
    await page.waitForFunction(() => window.__bench.ready || window.__bench.error, null, { polling: 100 });
    const b = await page.evaluate(() => ({ ...window.__bench, partial: window.__tcpscopePartial ?? null, phases: window.__tcpscope?.loadPhases?.last ?? null }));
    if (b.error) throw new Error('the app reported an error state');
    const first = b.partial?.firstDrawnMs != null ? b.partial.firstDrawnMs - b.start : null;
    const span = first != null && b.report ? (b.report - b.partial.firstDrawnMs) / 1000 : 0;
    // The worker's own cost of the progressive display, less disturbed by a loaded
    // machine than wall times: building the partial tables, and its turns between pieces
    // (the partial queries answered), against decoding + analysis (push).
    const ph = b.phases ?? {};
    const extraMs = (ph.partialMs ?? 0) + (ph.turnsMs ?? 0);
    return { firstTableMs: b.table ? b.table - b.start : null, firstChartMs: first, pushMs: ph.pushMs ?? null, extraMs, extraShare: ph.pushMs ? extraMs / ph.pushMs : null, updatesPerS: span > 0 ? (b.updatesAtReport - 1) / span : null, readyMs: b.ready - b.start };
  } finally {
    await page.close();
  }
}

const median = (xs) => {
  const v = xs.filter((x) => x != null).sort((a, b) => a - b);
  return v.length ? v[Math.floor((v.length - 1) / 2)] : null;
};
const round = (x, d = 0) => (x == null ? null : +x.toFixed(d));
const result = { file: file.split('/').pop(), bytes: statSync(file).size, load: loadavg()[0] };
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
  const on = [], off = [];
  for (let i = 0; i < runs; i++) {
    on.push(await load(true));
    off.push(await load(false));
  }
  const summary = (xs) => ({ pushMs: round(median(xs.map((x) => x.pushMs))), extraMs: round(median(xs.map((x) => x.extraMs))), extraShare: round(median(xs.map((x) => x.extraShare)), 3), firstTableMs: round(median(xs.map((x) => x.firstTableMs))), firstChartMs: round(median(xs.map((x) => x.firstChartMs))), updatesPerS: round(median(xs.map((x) => x.updatesPerS)), 1), readyMs: round(median(xs.map((x) => x.readyMs))) });
  result.readMs = round(result.readMs);
  result.on = summary(on);
  result.off = summary(off);
  result.runs = { on: on.map((x) => round(x.readyMs)), off: off.map((x) => round(x.readyMs)) };
  result.readyOnVsOff = round(result.on.readyMs / result.off.readyMs, 3);
  result.firstChartVsRead = round(result.on.firstChartMs / result.readMs, 2);
  result.readyVsRead = { on: round(result.on.readyMs / result.readMs, 2), off: round(result.off.readyMs / result.readMs, 2) };
} finally {
  await browser.close();
  server.close();
}
console.log(JSON.stringify(result));
