// The second engine (issue 18): the built app in Debian's Firefox ESR, driven by
// puppeteer-core over WebDriver BiDi (Playwright's own Firefox build cannot be
// downloaded here). It serves dist/ with `vite preview` on its own port, so it runs
// beside the Playwright suite. Waits are on data-state, never sleeps.
//   node --test e2e/firefox/        (after `npx vite build`)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import puppeteer from 'puppeteer-core';

const FIREFOX = process.env.TCPSCOPE_FIREFOX ?? '/usr/bin/firefox-esr';
// Another port when several checkouts run this suite at once (each serves its own dist/).
const PORT = Number(process.env.TCPSCOPE_FIREFOX_PORT ?? 4175);
const BASE = `http://127.0.0.1:${PORT}`;
const root = new URL('../../', import.meta.url);

let server;
let browser;

async function waitForServer() {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(BASE)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`vite preview did not answer on ${BASE}`);
}

before(async () => {
  server = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(PORT), '--strictPort'], {
    cwd: root, stdio: 'ignore', detached: true,
  });
  await waitForServer();
  browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    protocol: 'webDriverBiDi',
    extraPrefsFirefox: { 'browser.shell.checkDefaultBrowser': false, 'datareporting.policy.dataSubmissionEnabled': false },
  });
});

after(async () => {
  await browser?.close();
  try {
    if (server) process.kill(-server.pid);
  } catch {
    // already gone (it exits at once when another server holds the port)
  }
});

/** A fresh page that records uncaught errors and CSP violations. */
async function open(url) {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content-Security-Policy|Content Security Policy/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  await page.setViewport({ width: 1200, height: 900 });
  // A new tab may open behind the last one; a background tab's rendering is throttled.
  await page.bringToFront();
  await page.goto(url);
  return { page, problems };
}

/** What a page that did not reach a state shows: its state, visible text and errors. */
async function describe(page, selector, problems) {
  const shown = await page.evaluate((sel) => ({
    state: document.querySelector(sel)?.dataset.state ?? '(no element)',
    visibility: document.visibilityState,
    text: (document.body?.innerText ?? '').replace(/\s+/g, ' ').slice(0, 400),
    dbg: globalThis.__dbg, now: Math.round(performance.timeOrigin + performance.now()) % 1000000,
  }), selector).catch((e) => ({ state: `(page unreachable: ${e.message})` }));
  return JSON.stringify({ ...shown, problems });
}

const state = (page, selector) => page.$eval(selector, (el) => el.dataset.state);

async function waitForState(page, selector, wanted, timeout = 60_000, problems = []) {
  try {
    await page.waitForFunction(
      (sel, want) => document.querySelector(sel)?.dataset.state === want || document.querySelector(sel)?.dataset.state === 'error',
      { timeout, polling: 100 }, selector, wanted,
    );
  } catch (error) {
    throw new Error(`${selector} did not reach data-state=${wanted} in ${timeout} ms: ${await describe(page, selector, problems)}`, { cause: error });
  }
  assert.equal(await state(page, selector), wanted, `${selector} ended in ${await describe(page, selector, problems)}`);
}

const STACK = ['throughput', 'inflight', 'stalls', 'sequence', 'rtt', 'events'];

test('Firefox: a dropped capture is decoded, diagnosed and charted, and its share link opens', { skip: !existsSync(FIREFOX) && `no ${FIREFOX}` }, async () => {
  const { page, problems } = await open(`${BASE}/`);
  await waitForState(page, '.app', 'idle');
  // Drop a capture on the drop zone, as a person would: a File in a DataTransfer.
  await page.evaluate(async (url) => {
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const dataTransfer = new DataTransfer();
    dataTransfer.items.add(new File([bytes], 'rwnd-limited.pcap'));
    const zone = document.querySelector('[data-testid="drop"]');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer, bubbles: true, cancelable: true }));
  }, `${BASE}/examples/rwnd-limited.pcap`);
  await waitForState(page, '.app', 'ready');
  const charts = await page.$$eval('svg[data-chart]', (els) => els.map((e) => e.getAttribute('data-chart')));
  assert.deepEqual(charts, STACK, 'every chart of the stack is drawn');
  const diagnosis = await page.$eval('[data-testid="diagnosis-text"]', (el) => el.textContent ?? '');
  // The same engine as in Chromium: rwnd-limited.pcap is receive-window limited.
  assert.match(diagnosis, /never advertised more than 41 KiB.*window-limited 84 %/);

  await page.click('[data-testid="share"]');
  await page.waitForSelector('[data-testid="share-url"]', { timeout: 30_000 });
  const link = await page.$eval('[data-testid="share-url"]', (el) => el.value);
  assert.ok(link.length <= 8192, `link of ${link.length} characters`);
  const shared = await open(link);
  await waitForState(shared.page, '.app', 'ready');
  const sharedCharts = await shared.page.$$eval('svg[data-chart]', (els) => els.map((e) => e.getAttribute('data-chart')));
  assert.deepEqual(sharedCharts, STACK, 'the link draws the stack');
  assert.deepEqual([...problems, ...shared.problems], []);
  await shared.page.close();
  await page.close();
});

/** Drops the example `file` on the app's drop zone, as a person would (a File in a DataTransfer). */
async function drop(page, file) {
  await page.evaluate(async (url, name) => {
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const dataTransfer = new DataTransfer();
    dataTransfer.items.add(new File([bytes], name));
    // The drop zone before the first capture; the whole page takes drops after it.
    const zone = document.querySelector('[data-testid="drop"]') ?? document.querySelector('.app');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer, bubbles: true, cancelable: true }));
  }, `${BASE}/examples/${file}`, file);
}

test('Firefox: captures opened one after another are each read to the end', { skip: !existsSync(FIREFOX) && `no ${FIREFOX}` }, async () => {
  // The reader worker of one load serves the next (web/worker/chunks.ts). Firefox ESR
  // sometimes never returned from a nested `new Worker()` made right after the
  // previous reader's terminate(), and the load hung after its last byte; the page
  // now starts the reader (client.ts startReader), no worker is made inside a worker.
  const { page, problems } = await open(`${BASE}/`);
  await waitForState(page, '.app', 'idle', 60_000, problems);
  for (const [file, words] of [['rwnd-limited.pcap', /never advertised more than 41 KiB/], ['healthy.pcap', /^Neither the receive window/], ['zero-window.pcap', /^The receiver's window fell to zero/]]) {
    await drop(page, file);
    await page.waitForFunction((name) => document.body.innerText.includes(name), { timeout: 30_000 }, file);
    await waitForState(page, '.app', 'ready', 60_000, problems);
    const diagnosis = await page.$eval('[data-testid="diagnosis-text"]', (el) => el.textContent ?? '');
    assert.match(diagnosis, words, file);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('Firefox: opening a small capture while a large one loads: only the small one is shown', { skip: !existsSync(FIREFOX) && `no ${FIREFOX}` }, async () => {
  // As e2e/hostile.spec.ts in Chromium. Opening a capture mid-load terminates the
  // decoder worker and its reader while a slice is being read, and starts both again
  // (web/worker/client.ts): the path where Firefox ESR once hung (a reader made inside
  // the decoder worker; the page starts it now, chunks.ts useReader).
  const { page, problems } = await open(`${BASE}/`);
  await waitForState(page, '.app', 'idle', 60_000, problems);
  // ~105 MB, made in the page (not sent over the protocol): rwnd-limited.pcap's records
  // 120 times over, 3 s apart (2 connections); stalls.pcap kept ready to drop at once.
  await page.evaluate(async (base) => {
    const [bytes, small] = await Promise.all(['rwnd-limited.pcap', 'stalls.pcap'].map(async (f) => new Uint8Array(await (await fetch(`${base}/examples/${f}`)).arrayBuffer())));
    const view = new DataView(bytes.buffer);
    const little = view.getUint32(0, true) === 0xa1b2c3d4 || view.getUint32(0, true) === 0xa1b23c4d;
    const records = [];
    for (let at = 24; at + 16 <= bytes.length; at += 16 + view.getUint32(at + 8, little)) records.push(at);
    const parts = [bytes.subarray(0, 24)];
    for (let k = 0; k < 120; k++) {
      const copy = bytes.slice(24);
      const v = new DataView(copy.buffer);
      for (const r of records) v.setUint32(r - 24, v.getUint32(r - 24, little) + 3 * k, little);
      parts.push(copy);
    }
    window.__large = new File(parts, 'large.pcap');
    window.__small = new File([small], 'stalls.pcap');
  }, BASE);
  // Drops `window[key]` on the page, as a person would; synchronous from here to the drop.
  const dropNow = (key) => page.evaluate((k) => {
    const dataTransfer = new DataTransfer();
    dataTransfer.items.add(window[k]);
    const zone = document.querySelector('[data-testid="drop"]') ?? document.querySelector('.app');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer, bubbles: true, cancelable: true }));
    return { state: document.querySelector('.app')?.dataset.state, read: document.querySelector('progress[aria-label="bytes read"]')?.value ?? null };
  }, key);
  await dropNow('__large');
  // The large capture is being read (its first bytes counted) when the small one is dropped.
  try {
    await page.waitForFunction(() => document.querySelector('progress[aria-label="bytes read"]')?.value > 0, { timeout: 60_000, polling: 50 });
  } catch (error) {
    throw new Error(`the large capture's reading never showed: ${await describe(page, '.app', problems)}`, { cause: error });
  }
  console.error('DBG-OK', JSON.stringify(await page.evaluate(() => globalThis.__dbg)));
  const atDrop = await dropNow('__small');
  assert.equal(atDrop.state, 'loading', `the large capture was still loading when the small one was dropped: ${JSON.stringify(atDrop)}`);
  assert.ok(atDrop.read > 0 && atDrop.read < 1, `the large capture was part read when the small one was dropped: ${JSON.stringify(atDrop)}`);
  await waitForState(page, '.app', 'ready', 60_000, problems);
  const text = async (testid) => page.$eval(`[data-testid="${testid}"]`, (el) => el.textContent ?? '');
  const capture = await text('capture');
  assert.match(capture, /stalls\.pcap/);
  assert.doesNotMatch(capture, /large\.pcap/);
  const rows = await page.$$eval('[data-testid="connections"] tbody tr', (els) => els.map((e) => e.textContent ?? ''));
  assert.equal(rows.length, 1, `one connection: ${JSON.stringify(rows)}`);
  assert.match(rows[0], /:9000/);
  const charts = await page.$$eval('svg[data-chart]', (els) => els.map((e) => e.getAttribute('data-chart')));
  assert.deepEqual(charts, STACK, 'every chart of the stack is drawn');
  assert.match(await text('connection'), /:9000/);
  assert.deepEqual(problems, []);
  await page.evaluate(() => { delete window.__large; delete window.__small; });
  await page.close();
});

test('Firefox: the embed page draws and reports ready', { skip: !existsSync(FIREFOX) && `no ${FIREFOX}` }, async () => {
  const { page, problems } = await open(`${BASE}/embed.html#ex=healthy.pcap`);
  await waitForState(page, '.embed', 'ready', 60_000, problems);
  assert.ok((await page.$$('[data-chart]')).length >= 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test('Firefox: a refused link says why in one line', { skip: !existsSync(FIREFOX) && `no ${FIREFOX}` }, async () => {
  const { page } = await open(`${BASE}/#url=javascript%3Aalert(1)`);
  await page.waitForSelector('[data-testid="refused"]', { timeout: 30_000 });
  const text = await page.$eval('[data-testid="refused"]', (el) => el.textContent ?? '');
  assert.equal(text, '#url=javascript:alert(1) was ignored: only https: addresses can be opened, not javascript:.');
  await page.close();
});
