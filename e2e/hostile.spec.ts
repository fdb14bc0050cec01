// Hostile and broken input, and a strict page (issue 8): a capture cut mid-packet
// still gives charts plus a "damaged after packet N" banner; a gzip-compressed capture
// loads like the plain one; opening a local file makes no network request beyond the
// app's own assets; the built pages carry a strict CSP and break none of it; and the
// app still opens offline once it has been loaded. Waits are on the app's state
// attributes only, never sleeps.
import { test as isolatedTest } from '@playwright/test';
import { expect, test, type Page } from './warm';
import { cspViolations, watchCsp } from './csp';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { expectState } from './state';

const root = fileURLToPath(new URL('..', import.meta.url));
const examples = `${root}public/examples/`;

/** Offsets of the records of a little- or big-endian classic pcap file. */
function pcapRecords(bytes: Buffer): number[] {
  const big = bytes.readUInt32LE(0) === 0xd4c3b2a1 || bytes.readUInt32LE(0) === 0x4d3cb2a1;
  const offsets: number[] = [];
  for (let at = 24; at + 16 <= bytes.length; ) {
    offsets.push(at);
    at += 16 + (big ? bytes.readUInt32BE(at + 8) : bytes.readUInt32LE(at + 8));
  }
  return offsets;
}

async function openBuffer(page: Page, name: string, buffer: Buffer) {
  await page.getByTestId('file-input').setInputFiles({ name, mimeType: 'application/octet-stream', buffer });
}

async function dropBuffer(page: Page, name: string, buffer: Buffer) {
  const dataTransfer = await page.evaluateHandle(([b64, n]) => {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], n));
    return dt;
  }, [buffer.toString('base64'), name] as const);
  await page.getByTestId('drop').dispatchEvent('dragover', { dataTransfer });
  await page.getByTestId('drop').dispatchEvent('drop', { dataTransfer });
}

test('a capture cut mid-packet: charts of everything before the cut and a banner naming the packet', async ({ page }) => {
  const full = readFileSync(`${examples}stalls.pcap`);
  const records = pcapRecords(full);
  const kept = Math.floor(records.length / 2);
  const cut = full.subarray(0, records[kept] + 40); // 40 bytes into record `kept`
  await page.goto('/');
  await expectState(page, 'idle');
  await dropBuffer(page, 'stalls-cut.pcap', cut);
  await expectState(page, 'ready');
  const banner = page.getByTestId('damaged-banner');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText(`The capture is damaged after packet ${kept.toLocaleString('en-US')}`);
  // The decoder's own words: which packet, where in the file.
  await expect(banner).toContainText(`ends in the middle of packet ${kept + 1}`);
  await expect(banner).toContainText(`starting at byte ${records[kept]}`);
  // Everything before the cut is analysed and drawn.
  await expect(page.getByTestId('capture')).toContainText(`${kept.toLocaleString('en-US')} packets`);
  await expect(page.locator('svg[data-chart]').first()).toBeVisible();
  expect(await page.locator('svg[data-chart]').count()).toBeGreaterThanOrEqual(3);
  await expect(page.getByTestId('error')).toHaveCount(0);
});

test('a gzip-compressed capture loads the same as the plain one', async ({ page }) => {
  const plain = readFileSync(`${examples}stalls.pcap`);
  const facts = async () => ({
    capture: (await page.getByTestId('capture').innerText()).replace(/^\S+?: /, ''),
    connections: await page.getByTestId('connections').locator('tbody tr').count(),
    diagnosis: await page.getByTestId('diagnosis-text').innerText(),
  });
  await page.goto('/');
  await openBuffer(page, 'stalls.pcap', plain);
  await expectState(page, 'ready');
  const expected = await facts();
  await page.goto('/');
  await expectState(page, 'idle');
  await openBuffer(page, 'stalls.pcap.gz', gzipSync(plain));
  await expectState(page, 'ready');
  await expect(page.getByTestId('capture')).toContainText('stalls.pcap.gz');
  expect(await facts()).toEqual(expected);
  await expect(page.getByTestId('damaged-banner')).toHaveCount(0);
  await expect(page.locator('svg[data-chart]').first()).toBeVisible();
});

// A context of its own (warm.ts): it lists every request its context makes, and its CSP reports.
isolatedTest('opening and using a local capture makes no network request but the app\'s own assets', async ({ page, context, baseURL }) => {
  await watchCsp(context);
  const requests: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  await page.goto('/');
  await expectState(page, 'idle');
  await openBuffer(page, 'capture.pcap', readFileSync(`${examples}loss-1pct.pcap`));
  await expectState(page, 'ready');
  // Use it: other connections, a zoom reset, the stall threshold; each re-renders.
  const rows = page.getByTestId('connections').locator('tbody tr');
  for (let i = 0; i < Math.min(3, await rows.count()); i++) {
    await rows.nth(i).click();
    await expectState(page, 'ready');
    await expect(page.locator('svg[data-chart]').first()).toBeVisible();
  }
  const origin = new URL(baseURL!).origin;
  const allowed = /^\/(index\.html|favicon\.svg|sw\.js|examples\/index\.json|assets\/[\w.-]+)?$/;
  const foreign = requests.filter((u) => {
    const url = new URL(u);
    if (url.protocol === 'blob:' || url.protocol === 'data:') return false;
    return url.origin !== origin || !allowed.test(url.pathname);
  });
  expect(foreign, `requests: ${requests.join('\n')}`).toEqual([]);
  expect(requests.some((u) => u.endsWith('.wasm'))).toBe(true); // the list really is complete
  expect(await cspViolations(page)).toEqual([]);
});

// A context of its own (warm.ts): an init script on its context collects CSP reports.
isolatedTest('the built app and embed pages carry a strict CSP, and nothing breaks it', async ({ page, context }) => {
  for (const file of ['index.html', 'embed.html']) {
    const html = readFileSync(`${root}dist/${file}`, 'utf8');
    const meta = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)"/);
    expect(meta, `${file} has a CSP meta`).not.toBeNull();
    const directives = new Map(meta![1].split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v] as const));
    const script = directives.get('script-src') ?? directives.get('default-src')!;
    expect(script, `${file} script-src`).not.toContain("'unsafe-eval'");
    expect(script, `${file} script-src`).not.toContain("'unsafe-inline'");
    expect(script.some((s) => s === '*' || s === 'https:' || s === 'http:' || s === 'data:' || s === 'blob:'), `${file} script-src ${script}`).toBe(false);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'self'"]);
    // No inline script for the policy to have to allow.
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag, `${file}: ${tag}`).toMatch(/\bsrc=/);
    expect(html).not.toMatch(/\son[a-z]+=/i); // no inline event handlers
  }
  // At run time: the app and the embed page load and work with no violation.
  await watchCsp(context);
  await page.goto('/');
  await openBuffer(page, 'rwnd.pcap', readFileSync(`${examples}rwnd-limited.pcap`));
  await expectState(page, 'ready');
  expect(await cspViolations(page)).toEqual([]);
  await page.goto('/embed.html');
  await expect(page.locator('body')).toBeVisible();
  expect(await cspViolations(page)).toEqual([]);
});

// A context of its own (warm.ts): a first visit registers the service worker; then offline.
isolatedTest('once loaded, the app opens offline', async ({ page, context }) => {
  await page.goto('/');
  await expectState(page, 'idle');
  const registered = await page.evaluate(async () => Boolean(await navigator.serviceWorker?.getRegistration()));
  test.skip(!registered, "no service worker is registered: web/main.tsx needs `import './sw-register';` (offline needs public/sw.js)");
  // The registration marks <html data-offline="ready"> once the app's files are cached.
  await expect(page.locator('html')).toHaveAttribute('data-offline', 'ready');
  await context.setOffline(true);
  await page.reload();
  await expectState(page, 'idle');
  await expect(page.getByTestId('file-input')).toBeAttached();
  // ... and decodes a capture offline (worker and wasm from the cache).
  await openBuffer(page, 'offline.pcap', readFileSync(`${examples}healthy.pcap`));
  await expectState(page, 'ready');
  await expect(page.locator('svg[data-chart]').first()).toBeVisible();
  await context.setOffline(false);
});

// ---- Hostile views (issue 14, "Bounded everywhere"): a packet a year late, a timestamp
// with its top bit flipped, absurd bins and stall thresholds. The page is never blank,
// a message says what the engine clamped, and what is drawn stays sized by pixels.

/** Offset of the TCP payload length of a record (Ethernet / IPv4 / TCP), or 0. */
function payloadOf(bytes: Buffer, record: number): number {
  const ip = record + 16 + 14;
  if (bytes.readUInt16BE(record + 16 + 12) !== 0x0800) return 0;
  const ihl = (bytes[ip] & 0x0f) * 4;
  const tcpHeader = (bytes[ip + ihl + 12] >> 4) * 4;
  return bytes.readUInt16BE(ip + 2) - ihl - tcpHeader;
}

/** stalls.pcap with one data record changed by `edit` (or appended again, edited). */
function editedCapture(edit: (record: Buffer) => void, append: boolean): Buffer {
  const bytes = Buffer.from(readFileSync(`${examples}stalls.pcap`));
  const records = pcapRecords(bytes);
  const data = records.filter((r) => payloadOf(bytes, r) > 0);
  const at = data[Math.floor(data.length / 2)];
  const length = 16 + bytes.readUInt32LE(at + 8);
  if (!append) {
    edit(bytes.subarray(at, at + length));
    return bytes;
  }
  const copy = Buffer.from(bytes.subarray(at, at + length));
  edit(copy);
  return Buffer.concat([bytes, copy]);
}

/** Every chart is drawn (no render error), bounded by its pixel columns, and the page's heap stays small. */
async function expectBoundedCharts(page: Page) {
  await expectState(page, 'ready');
  await expect(page.locator('svg[data-chart]')).toHaveCount(6);
  await expect(page.getByTestId('render-error')).toHaveCount(0);
  await expect(page.locator('.tcps-failure')).toHaveCount(0);
  const drawn = await page.locator('svg[data-chart]').evaluateAll((svgs) => svgs.map((svg) => ({
    width: Number(svg.getAttribute('width')),
    points: Math.max(0, ...[...svg.querySelectorAll('[data-points]')].map((el) => Number(el.getAttribute('data-points')))),
  })));
  // At most 4 bins (or one M4 column) per pixel: never sized by time span, bin or threshold.
  for (const d of drawn) expect(d.points).toBeLessThanOrEqual(4 * d.width);
  const heap = await page.evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0);
  expect(heap).toBeLessThan(150e6);
}

test('a data packet repeated one year late: charts drawn, the bin raised and said so', async ({ page }) => {
  const late = editedCapture((r) => r.writeUInt32LE(r.readUInt32LE(0) + 365 * 86_400, 0), true);
  await page.goto('/');
  await openBuffer(page, 'year-late.pcap', late);
  await expectBoundedCharts(page);
  await expect(page.getByTestId('clamped').first()).toContainText(/bin raised from .* to .*: at most 4 bins per pixel column/);
});

test('a timestamp with its top bit flipped (68 years late): one packet moved, charts drawn, the banner says so', async ({ page }) => {
  const flipped = editedCapture((r) => r.writeUInt32LE((r.readUInt32LE(0) | 0x8000_0000) >>> 0, 0), false);
  await page.goto('/');
  await openBuffer(page, 'flipped-bit.pcap', flipped);
  await expectBoundedCharts(page);
  // A lone outlier (docs/ANALYSIS.md "Time going backwards", rule 1): analysed at the
  // time of the packet before it, so the capture keeps its real length (stalls.pcap:
  // a few seconds, not 68 years) and only the step back after it is counted.
  await expect(page.getByTestId('time-backwards-banner')).toContainText('1 packet whose timestamp is earlier than the one before');
  await expect(page.getByTestId('capture')).not.toContainText(/\d{5,} s\./);
});

test('#bin=0.000001 (1 ns): the engine raises the bin and the chart says so', async ({ page }) => {
  await page.goto('/#ex=stalls.pcap&bin=0.000001');
  await expectBoundedCharts(page);
  await expect(page.locator('figure[data-chart="throughput"] [data-testid="clamped"]').first())
    .toContainText(/bin raised from 1 ns to 1 µs: the smallest bin/);
});

test('#stall=0.000001 (1 ns): the engine raises the threshold and the chart says so', async ({ page }) => {
  await page.goto('/#ex=stalls.pcap&stall=0.000001');
  await expectBoundedCharts(page);
  await expect(page.locator('figure[data-chart="stalls"] [data-testid="clamped"]').first()).toContainText(/stall threshold raised/);
});

test('opening a small capture while a large one loads: only the small one is shown', async ({ page }, testInfo) => {
  // ~150 MB: rwnd-limited.pcap's records 120 times over, 3 s apart (2 connections).
  const base = readFileSync(`${examples}rwnd-limited.pcap`);
  const records = pcapRecords(base);
  const body = base.subarray(records[0]);
  const copies = [base.subarray(0, records[0])];
  for (let k = 0; k < 120; k++) {
    const copy = Buffer.from(body);
    for (const r of records) copy.writeUInt32LE(copy.readUInt32LE(r - records[0]) + 3 * k, r - records[0]);
    copies.push(copy);
  }
  const large = testInfo.outputPath('large.pcap');
  writeFileSync(large, Buffer.concat(copies));
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(large);
  await expect(page.getByTestId('progress')).toBeVisible();
  await page.getByTestId('file-input').setInputFiles(`${examples}stalls.pcap`);
  await expectState(page, 'ready');
  await expect(page.getByTestId('capture')).toContainText('stalls.pcap');
  const rows = page.getByTestId('connections').locator('tbody tr');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(':9000');
  await expect(page.locator('svg[data-chart]')).toHaveCount(6);
  await expect(page.getByTestId('connection')).toContainText(':9000');
  await expect(page.getByTestId('capture')).not.toContainText('large.pcap');
});
