// `node bench/browser.mjs FILE [--port 4175]`: the headless-Chromium part of the
// benchmark (issue 7). Serves dist/ (build it first: scripts/build-wasm.sh, then
// `npx vite build`), opens the app, and prints one JSON line with:
//   readMs       the time Chromium needs merely to read the file's bytes (16 MiB
//                Blob.slice(...).arrayBuffer() calls in the page, as the worker reads)
//   readyMs      drop (the file input's change event) to the app's data-state="ready"
//                plus two animation frames (the charts of the largest connection drawn)
//   readyVsRead  readyMs / readMs (issue 7 target: ≤ 2)
//   peakRssMiB   the largest sum of memory (PSS) over Chromium's processes (browser,
//                renderer, GPU, utility: its whole process tree, sampled every 100 ms
//                from /proc), from page load to the end of the zoom test
//   frames       requestAnimationFrame deltas while zooming and panning with the
//                keyboard on the focused chart stack (target: ≤ 16 ms per frame)
// The read baseline runs first so both measurements see the same (warm) page cache.
import { chromium } from '@playwright/test';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
const port = Number(args[args.indexOf('--port') + 1] || 4175) || 4175;
if (!file) {
  console.error('usage: node bench/browser.mjs FILE [--port N]');
  process.exit(2);
}
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
if (!existsSync(join(dist, 'index.html'))) {
  console.error('bench/browser.mjs: dist/ is not built (bash scripts/build-wasm.sh && npx vite build)');
  process.exit(2);
}

// A tiny static server: no dev-server start-up in the numbers, correct wasm MIME type.
const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png' };
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  let target = normalize(join(dist, path.endsWith('/') ? `${path}index.html` : path));
  if (!target.startsWith(resolve(dist)) || !existsSync(target) || statSync(target).isDirectory()) target = join(dist, 'index.html');
  res.writeHead(200, { 'content-type': types[extname(target)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
  createReadStream(target).pipe(res);
});
await new Promise((ok, fail) => server.once('error', fail).listen(port, '127.0.0.1', ok));

const browser = await chromium.launch({
  executablePath: process.env.TCPSCOPE_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const result = { file: file.split('/').pop(), bytes: statSync(file).size };

/** Proportional set size (PSS: each shared page split among the processes sharing
 * it, so shared libraries count once) of the descendants of `root`, from Linux /proc:
 * Playwright starts Chromium as a child of this process, so these are Chromium's. */
function treeMemoryBytes(root) {
  const parent = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(+name, +stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch { /* exited meanwhile */ }
  }
  let total = 0;
  for (const pid of parent.keys()) {
    let p = parent.get(pid) ?? 0;
    while (p > 1 && p !== root) p = parent.get(p) ?? 0;
    if (p !== root) continue;
    try {
      const pss = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      total += pss ? +pss[1] * 1024 : 0;
    } catch { /* exited meanwhile */ }
  }
  return total;
}
let peakRss = 0;
const sampler = setInterval(() => { peakRss = Math.max(peakRss, treeMemoryBytes(process.pid)); }, 100);
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
  result.readMs = await page.evaluate(async () => {
    const f = document.querySelector('#bench-read').files[0];
    const t0 = performance.now();
    let sum = 0;
    for (let at = 0; at < f.size; at += 16 << 20) {
      const buf = await f.slice(at, at + (16 << 20)).arrayBuffer();
      sum += new Uint8Array(buf)[0] ?? 0; // touch it
    }
    document.querySelector('#bench-read').remove();
    return performance.now() - t0 + sum * 0;
  });

  // 2. Drop to ready: timestamps taken in the page (no Playwright round trips).
  await page.evaluate(() => {
    const b = (window.__bench = {});
    document.querySelector('[data-testid=file-input]').addEventListener('change', () => { b.start = performance.now(); }, { capture: true });
    const app = document.querySelector('.app');
    new MutationObserver(() => {
      if (app.dataset.state === 'ready' && b.start && !b.ready) {
        b.ready = performance.now();
        requestAnimationFrame(() => requestAnimationFrame(() => { b.painted = performance.now(); }));
      }
      if (app.dataset.state === 'error') b.error = true;
    }).observe(app, { attributes: true, attributeFilter: ['data-state'] });
  });
  await page.getByTestId('file-input').setInputFiles(file);
  await page.waitForFunction(() => window.__bench.painted || window.__bench.error, null, { polling: 100 });
  const b = await page.evaluate(() => window.__bench);
  if (b.error) throw new Error('the app reported an error state');
  result.readyMs = b.painted - b.start;
  result.stateReadyMs = b.ready - b.start;
  result.readyVsRead = +(result.readyMs / result.readMs).toFixed(2);

  // 3. Zoom and pan with the keyboard; frame times from requestAnimationFrame.
  const charts = page.locator('.tcps-charts');
  await charts.focus();
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
  await page.evaluate(() => {
    const f = (window.__frames = { deltas: [], on: true });
    let last = performance.now();
    const tick = (now) => {
      f.deltas.push(now - last);
      last = now;
      if (f.on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const keys = ['+', '+', '+', 'ArrowRight', 'ArrowRight', '+', '+', 'ArrowLeft', '-', '-', '+', 'ArrowRight', '-', '-', '-', '0'];
  for (let round = 0; round < 3; round++) {
    for (const k of keys) await page.keyboard.press(k);
  }
  const deltas = await page.evaluate(() => {
    window.__frames.on = false;
    return window.__frames.deltas.slice(1);
  });
  const sorted = [...deltas].sort((x, y) => x - y);
  const q = (p) => +(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0).toFixed(1);
  result.frames = {
    keys: keys.length * 3,
    count: deltas.length,
    meanMs: +(deltas.reduce((s, x) => s + x, 0) / Math.max(1, deltas.length)).toFixed(1),
    p50Ms: q(0.5),
    p95Ms: q(0.95),
    maxMs: +(sorted[sorted.length - 1] ?? 0).toFixed(1),
    over16ms: deltas.filter((x) => x > 16.7).length,
  };
  result.readMs = +result.readMs.toFixed(0);
  result.readyMs = +result.readyMs.toFixed(0);
  result.stateReadyMs = +result.stateReadyMs.toFixed(0);
} catch (e) {
  result.error = String(e?.message ?? e).split('\n')[0];
} finally {
  clearInterval(sampler);
  result.peakRssMiB = Math.round(peakRss / 2 ** 20);
  await browser.close();
  server.close();
}
console.log(JSON.stringify(result));
process.exit(result.error ? 1 : 0);
