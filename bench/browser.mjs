// `node bench/browser.mjs FILE [--port 4175]`: the headless-Chromium part of the
// benchmark (issue 7). Serves dist/ (build it first: scripts/build-wasm.sh, then
// `npx vite build`), opens the app, and prints one JSON line with:
//   readMs       the time Chromium needs merely to read the file's bytes: 16 MiB
//                Blob.slice(...).arrayBuffer() calls in a worker, as the decoder's worker
//                reads, the quickest of three (readRunsMs); readPageMs: the same in the
//                page, once (the baseline before session 11)
//   readyMs      drop (the file input's change event) to the app's data-state="ready"
//                plus two animation frames (the charts of the largest connection drawn)
//   readyVsRead  readyMs / readMs (issue 7 target: ≤ 2)
//   progressive  the growing view while the capture loads (issue 41): firstChartMs, drop →
//                the first throughput chart drawn with bars (target ≤ 500), firstChartVsRead,
//                updatesPerS, its redraws per second until the report (target ≥ 2); ready
//                with the display off against on: bench/progressive.mjs
//   phases       the worker's time: waiting for the reader's slices, decoding + per-packet
//                analysis (push), end-of-capture analysis (finish), the report, building
//                the shown connection's chart columns while the page renders (prepare),
//                and the view queries the charts asked before ready
//   frames       requestAnimationFrame deltas while zooming (Ctrl + wheel) and panning
//                (mouse drag) on the throughput chart, ≥ 60 of each (issue 14 targets:
//                p95 ≤ 16.7 ms, max ≤ 50 ms)
//   framesStack  the same gestures with the chart stack scrolled to the top of the
//                1400 × 1000 window (chartsOnScreen charts redrawn each frame)
//   query        worker view queries for random (t0, t1, 1600 columns) on the largest
//                connection: time inside the worker (wasm query, packed answer) and
//                the page's round trip, p50/p95/max (target: worker p95 ≤ 2 ms)
//   memory       proportional set size (PSS) of every Chromium process before the drop and
//                after the first chart and the gestures, per packet (target ≤ 100 B), each
//                taken after a full garbage collection in the page and its workers
//                (Chromium runs with --js-flags=--expose-gc): what the tab keeps, not when
//                V8 gets round to the 16 MiB read slices, which are garbage once decoded
//                and came and went by up to 120 MB between runs. The same figure without
//                the collections: bytesPerPacketBeforeGc.
//   peakPssMiB   the largest PSS sum over Chromium's processes, sampled every 100 ms
//   cpu          CPU time (user + system) of every Chromium process while merely reading
//                the bytes (readCoreMs) and from drop to ready (loadCoreMs), and
//                floorReadyMs = loadCoreMs ÷ cores: the best drop → ready this much work
//                allows on this machine, whatever the threads (floorVsRead > 2: only
//                less work per packet can meet the target here)
// The read baseline runs first so both measurements see the same (warm) page cache.
// BENCH_CPU_PROFILE=FILE.cpuprofile: also records the page's main thread with the
// DevTools Profiler during the gestures (open the file in Chrome DevTools), and prints
// the functions with the most self time to stderr.
// BENCH_LOAD_PROFILE=FILE.cpuprofile: the same for the page's main thread from the drop
// to the charts drawn (what the page does while the worker decodes and prepares).
// BENCH_SHADOW_READ=1: at the drop, a second worker reads the same file (as readMs
// does) while the app loads it, and shadowReadMs says when that read ended. It answers
// what a first chart of the whole capture drawn before the analysis ends would cost:
// such a chart needs every byte read once more beside the load, or the whole file
// held in memory until the decoder catches up (bench/README.md, session 20). It slows
// the load it runs beside, so its readyMs is not comparable with a run without it.
import { chromium } from '@playwright/test';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { findProcess, treeCpuMs, treePss } from './pss.mjs';
import { availableParallelism } from 'node:os';
import { READER_PATH, readAllMs, requireDist, serveDist } from './serve.mjs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
const port = Number(args[args.indexOf('--port') + 1] || 4175) || 4175;
if (!file) {
  console.error('usage: node bench/browser.mjs FILE [--port N]');
  process.exit(2);
}
requireDist('bench/browser.mjs');
// A tiny static server (bench/serve.mjs): no dev-server start-up in the numbers.
const server = await serveDist(port);

// A tag on the browser's command line finds its process; its descendants are the
// renderers, the GPU and utility processes.
const tag = `--tcpscope-bench=${process.pid}`;
const browser = await chromium.launch({
  executablePath: process.env.TCPSCOPE_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--js-flags=--expose-gc', tag],
});

/** Sum of PSS over the browser's process tree (bench/pss.mjs), bytes; `byProcess`
 * (an array) also gets each process's type and PSS. */
let browserPid = null;
function chromiumPss(byProcess = null) {
  browserPid ??= findProcess(tag);
  return treePss(browserPid, { byProcess });
}
/** MB per Chromium process type, from chromiumPss's `byProcess` list. */
const pssByType = (list) => {
  const mb = {};
  for (const p of list) mb[p.type] = +((mb[p.type] ?? 0) + p.pss / 1e6).toFixed(1);
  return mb;
};
/** Saves a DevTools CPU profile and prints the 15 functions with the most self time. */
function writeProfile(profile, path) {
  writeFileSync(path, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.error(`main-thread profile (${path}), ${total.toFixed(0)} ms sampled; most self time:`);
  for (const [k, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.error(`  ${ms.toFixed(0).padStart(6)} ms ${(100 * ms / total).toFixed(1).padStart(5)} %  ${k}`);
}
/** A full garbage collection in the page and each of its workers (the decoder). */
async function collectGarbage(page) {
  for (const target of [page, ...page.workers()]) await target.evaluate(() => globalThis.gc?.()).catch(() => {});
}
const quantiles = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const q = (p) => +(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0).toFixed(2);
  return { count: xs.length, p50: q(0.5), p95: q(0.95), max: +(sorted[sorted.length - 1] ?? 0).toFixed(2) };
};
const result = { file: file.split('/').pop(), bytes: statSync(file).size };
// Peak memory of all Chromium processes (issue 16: the 10^6-SYN capture ≤ 1 GB),
// sampled every 100 ms from the page load to the end.
let peakPss = 0;
const sampler = setInterval(() => { peakPss = Math.max(peakPss, chromiumPss() ?? 0); }, 100);
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.setDefaultTimeout(600_000);
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.locator('.app[data-state="idle"]').waitFor();

  // 1. Baseline: read the bytes, nothing else.
  await page.evaluate(() => {
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'bench-read';
    input.style.display = 'none';
    document.body.append(input);
  });
  await page.locator('#bench-read').setInputFiles(file);
  browserPid ??= findProcess(tag);
  // Three reads in a worker of its own, 16 MiB slices as the decoder's worker reads,
  // and the quickest is the baseline: one read right after the page opened ran beside
  // the decoder worker's warm-up (wasm/src/warm_up.rs) and took up to twice as long
  // (585–954 ms against 233–322 ms for the same 252 MB; bench/README.md, session 11),
  // which flattered ready ÷ read. The page's own read (readPageMs) is kept beside it.
  const readRuns = [];
  let readCoreMs = null;
  for (let run = 0; run < 3; run++) {
    const cpuBeforeRead = treeCpuMs(browserPid);
    const ms = await page.evaluate((url) => new Promise((resolve, reject) => {
      const worker = new Worker(url);
      worker.onmessage = (e) => { worker.terminate(); resolve(e.data); };
      worker.onerror = (e) => reject(new Error(`the read worker failed: ${e.message ?? 'refused'}`));
      worker.postMessage(document.querySelector('#bench-read').files[0]);
    }), READER_PATH);
    const cpu = treeCpuMs(browserPid) - cpuBeforeRead;
    if (!(ms >= result.readMs)) (result.readMs = ms), (readCoreMs = cpu);
    readRuns.push(Math.round(ms));
  }
  result.readRunsMs = readRuns;
  result.readPageMs = Math.round(await page.evaluate(`(${readAllMs})(document.querySelector('#bench-read').files[0])`));
  await page.evaluate(() => document.querySelector('#bench-read').remove());

  // Memory before the capture: the page, the idle worker.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const pssBeforeNoGc = chromiumPss();
  await collectGarbage(page);
  const before = [];
  const pssBefore = chromiumPss(before);

  // 2. Drop to ready: timestamps taken in the page (no Playwright round trips).
  await page.evaluate(() => {
    const b = (window.__bench = {});
    document.querySelector('[data-testid=file-input]').addEventListener('change', () => { b.start = performance.now(); }, { capture: true });
    const app = document.querySelector('.app');
    new MutationObserver(() => {
      // The progress bar goes when the report is here (decode + analysis done); the
      // charts' first answers come after it.
      if (b.start && !b.report && b.sawProgress && !document.querySelector('[data-testid=progress]')) {
        b.report = performance.now();
        b.updatesAtReport = window.__tcpscopePartial?.updates ?? 0;
      }
      if (document.querySelector('[data-testid=progress]')) b.sawProgress = true;
      if (app.dataset.state === 'ready' && b.start && !b.ready) {
        b.ready = performance.now();
        requestAnimationFrame(() => requestAnimationFrame(() => { b.painted = performance.now(); }));
      }
      if (app.dataset.state === 'error') b.error = true;
    }).observe(app, { attributes: true, attributeFilter: ['data-state'], childList: true, subtree: true });
  });
  const loadProfiler = process.env.BENCH_LOAD_PROFILE ? await page.context().newCDPSession(page) : null;
  if (loadProfiler) {
    await loadProfiler.send('Profiler.enable');
    await loadProfiler.send('Profiler.setSamplingInterval', { interval: 200 });
    await loadProfiler.send('Profiler.start');
  }
  const cpuBeforeLoad = treeCpuMs(browserPid);
  if (process.env.BENCH_SHADOW_READ === '1') {
    await page.evaluate((url) => {
      document.querySelector('[data-testid=file-input]').addEventListener('change', (event) => {
        const started = performance.now();
        const worker = new Worker(url);
        worker.onmessage = () => { window.__bench.shadowRead = performance.now() - started; worker.terminate(); };
        worker.postMessage(event.target.files[0]);
      }, { capture: true });
    }, READER_PATH);
  }
  await page.getByTestId('file-input').setInputFiles(file);
  await page.waitForFunction(() => window.__bench.painted || window.__bench.error, null, { polling: 100 });
  const loadCoreMs = treeCpuMs(browserPid) - cpuBeforeLoad;
  if (loadProfiler) writeProfile((await loadProfiler.send('Profiler.stop')).profile, process.env.BENCH_LOAD_PROFILE);
  const b = await page.evaluate(() => window.__bench);
  if (b.error) throw new Error('the app reported an error state');
  result.readyMs = b.painted - b.start;
  result.stateReadyMs = b.ready - b.start;
  if (b.shadowRead != null) {
    result.shadowReadMs = Math.round(b.shadowRead);
    result.shadowReadVsRead = +(b.shadowRead / result.readMs).toFixed(2);
  }
  if (b.report) result.reportMs = +(b.report - b.start).toFixed(0);
  result.readyVsRead = +(result.readyMs / result.readMs).toFixed(2);
  // The progressive view (issue 41; this load has it on, as the page does): drop → the
  // first throughput chart drawn with bars while loading, and its redraws per second
  // until the report. Ready with it off: bench/progressive.mjs (npm run bench's next step).
  const partial = await page.evaluate(() => window.__tcpscopePartial ?? null);
  if (partial?.firstDrawnMs != null) {
    const first = partial.firstDrawnMs - b.start;
    const span = b.report ? (b.report - partial.firstDrawnMs) / 1000 : 0;
    result.progressive = { firstChartMs: Math.round(first), firstChartVsRead: +(first / result.readMs).toFixed(2), updatesPerS: span > 0 ? +((b.updatesAtReport - 1) / span).toFixed(1) : null };
  } else {
    result.progressive = { firstChartMs: null, firstChartVsRead: null, updatesPerS: null };
  }
  // The CPU the browser spent (all its processes, user + system): merely reading the
  // bytes, and drop → ready. loadCoreMs ÷ cores is the fastest drop → ready could be
  // with this much work spread perfectly over every core: when floorVsRead > 2, no
  // arrangement of threads meets the ≤ 2× target on this machine, only less work does.
  if (readCoreMs != null && loadCoreMs != null) {
    const cores = availableParallelism();
    result.cpu = { cores, readCoreMs, loadCoreMs, readCores: +(readCoreMs / result.readMs).toFixed(2), loadCores: +(loadCoreMs / result.readyMs).toFixed(2),
      floorReadyMs: Math.round(loadCoreMs / cores), floorVsRead: +(loadCoreMs / cores / result.readMs).toFixed(2) };
  }
  // Where the time went: the worker's load phases and its view queries before ready
  // (the charts' first answers), so a target not met comes with its own profile.
  result.phases = await page.evaluate(() => {
    const { loadPhases, viewTimings } = window.__tcpscope;
    const round = (x) => +x.toFixed(0);
    const p = loadPhases.last ?? {};
    return { ...Object.fromEntries(Object.entries(p).map(([k, v]) => [k, round(v)])), firstViewQueriesMs: round(viewTimings.reduce((a, x) => a + x, 0)) };
  });

  // 3. Zoom (Ctrl + wheel) and pan (drag) on the throughput chart; frame times from
  // requestAnimationFrame, recorded in the page.
  // The middle of the throughput chart, where it is now (the stack may have scrolled).
  const chartCentre = async () => {
    const b = await page.locator('svg[data-chart="throughput"]').boundingBox();
    return [b.x + b.width / 2, b.y + b.height / 2];
  };
  await page.mouse.move(...(await chartCentre()));
  // Idle frames first: what the headless compositor gives with nothing to redraw.
  result.idleFrameMs = await page.evaluate(() => new Promise((done) => {
    const d = [];
    let last = performance.now();
    const tick = (now) => {
      d.push(now - last);
      last = now;
      if (d.length < 30) requestAnimationFrame(tick);
      else done(+(d.slice(1).reduce((s, x) => s + x, 0) / (d.length - 1)).toFixed(1));
    };
    requestAnimationFrame(tick);
  }));
  const record = () => page.evaluate(() => {
    const f = (window.__frames = { deltas: [], on: true });
    let last = performance.now();
    const tick = (now) => {
      f.deltas.push(now - last);
      last = now;
      if (f.on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const stop = () => page.evaluate(() => { window.__frames.on = false; return window.__frames.deltas.slice(1); });
  const nextFrame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  const profiler = process.env.BENCH_CPU_PROFILE ? await page.context().newCDPSession(page) : null;
  if (profiler) {
    await profiler.send('Profiler.enable');
    await profiler.send('Profiler.setSamplingInterval', { interval: 200 });
    await profiler.send('Profiler.start');
  }
  // The gestures on the throughput chart: ≥ 60 Ctrl + wheel zoom frames, ≥ 60 drag pan frames.
  const gestures = async () => {
    const [x, y] = await chartCentre();
    await page.mouse.move(x, y);
    await record();
    await page.keyboard.down('Control');
    for (let i = 0; i < 70; i++) {
      await page.mouse.wheel(0, i < 35 ? -120 : 100);
      await nextFrame();
    }
    await page.keyboard.up('Control');
    const wheel = await stop();
    await record();
    await page.mouse.move(x, y);
    await page.mouse.down();
    for (let i = 0; i < 70; i++) {
      await page.mouse.move(x + 8 * Math.sin(i / 6) * 20, y);
      await nextFrame();
    }
    await page.mouse.up();
    const drag = await stop();
    const deltas = [...wheel, ...drag];
    const fq = quantiles(deltas);
    return {
      wheelFrames: wheel.length, dragFrames: drag.length, count: deltas.length,
      meanMs: +(deltas.reduce((s, v) => s + v, 0) / Math.max(1, deltas.length)).toFixed(1),
      p50Ms: fq.p50, p95Ms: fq.p95, maxMs: fq.max,
      over16ms: deltas.filter((v) => v > 16.7).length,
    };
  };
  result.frames = await gestures();
  if (profiler) writeProfile((await profiler.send('Profiler.stop')).profile, process.env.BENCH_CPU_PROFILE);
  // The same with the chart stack scrolled to the top of the window, so that every chart
  // that fits is on screen and redrawn each frame (charts out of view wait while a
  // gesture is under way, web/charts/useD3.ts: the first figure has one chart to draw).
  await page.locator('section.tcps-charts').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await nextFrame();
  const chartsOnScreen = await page.evaluate(() => [...document.querySelectorAll('figure.tcps-chart')]
    .filter((f) => { const r = f.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; }).length);
  result.framesStack = { chartsOnScreen, ...(await gestures()) };

  // 4. Worker queries for (t0, t1, 1600 columns) on the largest connection, throughput
  // and in flight, random spans from 1 ms to the whole connection.
  result.query = await page.evaluate(async () => {
    const { viewSource, viewTimings } = window.__tcpscope;
    const source = viewSource();
    const first = await source.query({ connection: 0, series: 'throughput', t0: 0, t1: 0, columns: 1 });
    const conn = first.connection;
    const full = await source.query({ connection: conn, series: 'inflight', t0: -1e9, t1: 1e9, columns: 1 });
    const [s, e] = [full.tFirst?.[0] ?? 0, full.tLast?.[0] ?? 1];
    viewTimings.length = 0;
    const roundTrip = [];
    let seed = 1;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let i = 0; i < 200; i++) {
      const span = (e - s) * 10 ** (-4 * rnd());
      const t0 = s + (e - s - span) * rnd();
      const t0w = performance.now();
      await source.query({ connection: conn, series: i % 2 ? 'inflight' : 'throughput', t0, t1: t0 + span, columns: 1600 });
      roundTrip.push(performance.now() - t0w);
    }
    return { worker: [...viewTimings], roundTrip };
  }).then(({ worker, roundTrip }) => ({ workerMs: quantiles(worker), roundTripMs: quantiles(roundTrip) }));

  const pssAfterNoGc = chromiumPss();
  await collectGarbage(page);
  const after = [];
  const pssAfter = chromiumPss(after);
  const meta = (() => { try { return JSON.parse(readFileSync(file.replace(/\.pcap$/, '.json'), 'utf8')); } catch { return null; } })();
  if (pssBefore != null && pssAfter != null) {
    result.memory = { pssBeforeMB: +(pssBefore / 1e6).toFixed(1), pssAfterMB: +(pssAfter / 1e6).toFixed(1), beforeByType: pssByType(before), afterByType: pssByType(after) };
    if (meta?.packets) {
      result.memory.bytesPerPacket = +((pssAfter - pssBefore) / meta.packets).toFixed(1);
      if (pssBeforeNoGc != null && pssAfterNoGc != null) result.memory.bytesPerPacketBeforeGc = +((pssAfterNoGc - pssBeforeNoGc) / meta.packets).toFixed(1);
    }
  }
  result.readMs = +result.readMs.toFixed(0);
  result.readyMs = +result.readyMs.toFixed(0);
  result.stateReadyMs = +result.stateReadyMs.toFixed(0);
} catch (e) {
  result.error = String(e?.message ?? e).split('\n')[0];
} finally {
  clearInterval(sampler);
  result.peakPssMiB = Math.round(peakPss / 2 ** 20);
  await browser.close();
  server.close();
}
console.log(JSON.stringify(result));
process.exit(result.error ? 1 : 0);
