// Sharing without a server, in a real Chromium: a snapshot link opened in a fresh
// browser context reproduces the charts and diagnosis; the embed snippet and the
// postMessage API work in a host page; exports download and parse; tampered links
// give a readable message and never run script. Every wait is on a data-state
// attribute (or a download/message event), never a sleep.
import { expect, test, type Browser, type FrameLocator, type Page } from '@playwright/test';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { makeFixture } from '../web/charts/fixtures';
import { servedElsewhere } from './elsewhere';
import { DEFAULT_VIEW } from '../web/state/url';
import { encodeSnapshot, snapshotLink } from '../web/share/snapshot';

const examplesDir = fileURLToPath(new URL('../public/examples/', import.meta.url));
// The first example of the list (the same one load.spec.ts uses); while the list is
// being recorded, the first capture in the folder.
const firstExample: string = existsSync(`${examplesDir}index.json`)
  ? JSON.parse(readFileSync(`${examplesDir}index.json`, 'utf8'))[0].file
  : readdirSync(examplesDir).filter((f) => /\.pcap(ng)?$/.test(f)).sort()[0];

const INJECTION = '<img src=x onerror=window.__pwned=1>';

interface Marks { chart: string | null; points: number; marks: number }

/** Drawn marks per chart: the data-points the charts report and the shapes they drew. */
function marks(scope: Page | FrameLocator): Promise<Marks[]> {
  return scope.locator('svg[data-chart]').evaluateAll((svgs) => svgs.map((svg) => ({
    chart: svg.getAttribute('data-chart'),
    points: [...svg.querySelectorAll('[data-points]')].reduce((sum, el) => sum + Number(el.getAttribute('data-points')), 0),
    marks: svg.querySelectorAll('.tcps-content path, .tcps-content circle, .tcps-content rect').length,
  })));
}

async function openExample(page: Page) {
  await page.goto(`/#ex=${encodeURIComponent(firstExample)}`);
  await expect(page.locator('.app')).toHaveAttribute('data-state', 'ready');
  await expect(page.locator('svg[data-chart]')).toHaveCount(DEFAULT_VIEW.charts.length);
}

/**
 * Zoom the chart stack in with the keyboard (each '+' shows 1/1.5 of the span): a whole
 * example connection (5,000–12,000 packets) makes a snapshot larger than a link may be,
 * so the link shares the zoomed span, as the too-large message suggests.
 */
async function zoomIn(page: Page, steps = 4) {
  await page.locator('section.tcps-charts').focus();
  for (let i = 0; i < steps; i++) await page.keyboard.press('+');
  await expect.poll(() => new URL(page.url()).hash).toMatch(/(^#|&)t=[-\d.]+,[-\d.]+/);
}

async function shareLink(page: Page): Promise<string> {
  await page.getByTestId('share').click();
  const input = page.getByTestId('share-url');
  await expect(input).toHaveValue(/#.*snap=[A-Za-z0-9_-]+$/);
  return input.inputValue();
}

async function openInFreshContext(browser: Browser, url: string) {
  // A new context has no storage, cache or file: everything must come from the link.
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  return { context, page };
}

/** A snapshot link whose text fields carry markup, to prove it is shown as text. */
async function hostileLink(base: string): Promise<string> {
  const data = makeFixture({ rounds: 5 });
  data.summary.stallThresholdMs ??= 40;
  data.summary.diagnosis.text = INJECTION;
  data.summary.endpoints = [INJECTION, '10.0.0.2:5201'];
  const report = {
    schemaVersion: 1, capture: { format: 'pcap' as const, linkTypes: ['ethernet'], packets: 10, bytes: 1000, duration: 1 },
    error: null, warnings: [], connections: [data.summary],
  };
  const bytes = await encodeSnapshot({ name: INJECTION, report, data, view: DEFAULT_VIEW });
  return snapshotLink(base, DEFAULT_VIEW, bytes);
}

test('a whole example connection is too large for a link: the page says so and offers the file', async ({ page }) => {
  await openExample(page);
  await page.getByTestId('share').click();
  await expect(page.locator('[data-testid="share-url"], [data-testid="share-too-large"]')).toHaveCount(1);
  if (await page.getByTestId('share-url').count()) return; // a small example: the link is fine
  await expect(page.getByTestId('share-too-large')).toContainText(
    /This view is too large for a link \(\d+ KB\); download the snapshot file instead, or zoom in to share a shorter span/,
  );
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('share-too-large').getByRole('button').click()]);
  expect(file.suggestedFilename()).toMatch(/\.tcpscope\.json$/);
});

test('a shared link reproduces the charts and the diagnosis in a fresh browser context', async ({ page, browser }) => {
  await openExample(page);
  await zoomIn(page);
  const link = await shareLink(page);
  expect(link.length).toBeLessThan(16 * 1024 + 200);
  expect(new URL(link).hash).toMatch(/(^#|&)t=/);
  const { context, page: other } = await openInFreshContext(browser, link);
  await expect(other.locator('.app')).toHaveAttribute('data-state', 'ready');
  await expect(other.locator('svg[data-chart]')).toHaveCount(DEFAULT_VIEW.charts.length);
  // Both pages draw at the same width; the shared one settles to the original's picture.
  const drawn = await marks(page);
  await expect.poll(() => marks(other)).toEqual(drawn);
  expect(drawn.every((m) => m.marks > 0)).toBe(true);
  expect(drawn.find((m) => m.chart === 'throughput')!.points).toBeGreaterThan(0);
  await expect(other.getByTestId('diagnosis')).toHaveText((await page.getByTestId('diagnosis').textContent())!);
  // The shared page keeps the snapshot in its address bar (it can be shared again).
  expect(new URL(other.url()).hash).toContain('snap=');
  await context.close();
});

test('the embed snippet renders in a host page', async ({ page, baseURL }) => {
  await openExample(page);
  await zoomIn(page);
  await page.getByTestId('embed').click();
  const snippet = await page.getByTestId('embed-code').inputValue();
  expect(snippet).toMatch(/^<iframe src="[^"]*\/embed\.html#[^"]*snap=[^"]+" width="100%" height="420" style="border:0" loading="lazy" title="tcpscope: [^"]+"><\/iframe>$/);
  const host = await page.context().newPage();
  await host.goto(await servedElsewhere(`<!doctype html><body>${snippet.replace(/src="https?:\/\/[^/]+\//, `src="${baseURL}/`)}</body>`));
  const frame = host.frameLocator('iframe');
  await expect(frame.locator('.embed')).toHaveAttribute('data-state', 'ready');
  await expect(frame.locator('svg[data-chart]')).toHaveCount(DEFAULT_VIEW.charts.length);
  await expect(frame.getByTestId('open-in-tcpscope')).toHaveAttribute('href', /^index\.html#.*snap=/);
  // One chart only.
  await page.getByTestId('embed-chart').selectOption('inflight');
  const single = await page.getByTestId('embed-code').inputValue();
  expect(single).toContain('charts=inflight');
  await host.goto(await servedElsewhere(`<!doctype html><body>${single.replace(/src="https?:\/\/[^/]+\//, `src="${baseURL}/`)}</body>`));
  await expect(host.frameLocator('iframe').locator('.embed')).toHaveAttribute('data-state', 'ready');
  await expect(host.frameLocator('iframe').locator('svg[data-chart]')).toHaveCount(1);
  await expect(host.frameLocator('iframe').locator('svg[data-chart="inflight"]')).toHaveCount(1);
});

test('the embed answers PING and draws a capture or a snapshot posted to it', async ({ page, baseURL }) => {
  await page.goto(await servedElsewhere(`<!doctype html><body><iframe src="${baseURL}/embed.html" width="900" height="420"></iframe></body>`));
  const frame = page.frameLocator('iframe');
  await expect(frame.locator('.embed')).toHaveAttribute('data-state', 'idle');

  /** Post a message to the embed and resolve with its first reply. */
  const post = (message: unknown) => page.evaluate((m) => new Promise<unknown>((resolve) => {
    window.addEventListener('message', (e) => resolve(e.data), { once: true });
    const body = (m as { tcpscope: unknown }).tcpscope as Record<string, unknown>;
    // Byte arrays cross evaluate() as number lists; post them as real ArrayBuffers.
    if (body && Array.isArray(body.buffer)) body.buffer = new Uint8Array(body.buffer as number[]).buffer;
    if (body && Array.isArray(body.snapshot)) body.snapshot = new Uint8Array(body.snapshot as number[]);
    document.querySelector('iframe')!.contentWindow!.postMessage(m, '*');
  }), message);

  expect(await post({ tcpscope: 'PING' })).toEqual({ tcpscope: 'PONG' });

  const capture = [...readFileSync(`${examplesDir}${firstExample}`)];
  expect(await post({ tcpscope: { buffer: capture, title: firstExample } })).toEqual({ tcpscope: 'READY' });
  await expect(frame.locator('.embed')).toHaveAttribute('data-state', 'ready');
  await expect(frame.locator('svg[data-chart]')).toHaveCount(DEFAULT_VIEW.charts.length);
  await expect(frame.getByTestId('embed-title')).toContainText(firstExample);

  const link = await hostileLink(`${baseURL}/`);
  const snapshot = [...Buffer.from(new URL(link).hash.split('snap=')[1], 'base64url')];
  expect(await post({ tcpscope: { snapshot, title: INJECTION } })).toEqual({ tcpscope: 'READY' });
  await expect(frame.getByTestId('embed-title')).toContainText(INJECTION);
  expect(await frame.locator('.embed').evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();

  const reply = await post({ tcpscope: { snapshot: [1, 2, 3, 4], title: 'x' } });
  expect(reply).toMatchObject({ tcpscope: 'ERROR', message: expect.stringContaining('not a tcpscope snapshot') });
  await expect(frame.getByTestId('error')).toContainText('not a tcpscope snapshot');
});

test('exports: SVG, PNG, CSV, JSON and the snapshot file download and parse', async ({ page }) => {
  await openExample(page);
  const download = async (testId: string) => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
    return { name: file.suggestedFilename(), bytes: readFileSync((await file.path())!) };
  };
  await page.getByTestId('export-chart').selectOption('inflight');
  const svg = await download('export-svg');
  expect(svg.name).toMatch(/-inflight\.svg$/);
  expect(svg.bytes.toString('utf8')).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  expect(svg.bytes.toString('utf8')).toContain('data-chart="inflight"');
  // Dense dots drawn on the page's canvas layer travel as an embedded bitmap.
  if (await page.locator('svg[data-chart="inflight"] [data-canvas="true"]').count()) {
    expect(svg.bytes.toString('utf8')).toContain('href="data:image/png;base64,');
  }

  const png = await download('export-png');
  expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  // Scale 2: the PNG is twice the chart's size.
  const width = png.bytes.readUInt32BE(16);
  const chartWidth = Number(await page.locator('svg[data-chart="inflight"]').getAttribute('width'));
  expect(width).toBe(chartWidth * 2);

  const csv = (await download('export-csv')).bytes.toString('utf8').trimEnd().split('\n');
  expect(csv[0]).toBe('t,dir,frame,seq,len,wireLen,ack,win,inFlight,flags');
  expect(csv.length).toBeGreaterThan(2);
  expect(csv[1].split(',')).toHaveLength(10);

  const json = JSON.parse((await download('export-json')).bytes.toString('utf8'));
  expect(json.schemaVersion).toBe(1);
  expect(json.connections.length).toBeGreaterThanOrEqual(1);

  const snapshot = await download('download-snapshot');
  expect(snapshot.name).toMatch(/\.tcpscope\.json$/);
  expect(JSON.parse(snapshot.bytes.toString('utf8'))).toMatchObject({ tcpscope: 'snapshot', version: 1, data: expect.any(String) });
});

test('tampered and newer links give a readable message and run no script', async ({ page, baseURL }) => {
  await page.goto('/#snap=AAAA');
  await expect(page.locator('.app')).toHaveAttribute('data-state', 'error');
  await expect(page.getByTestId('error')).toContainText('This is not a tcpscope snapshot');

  const link = await hostileLink(`${baseURL}/`);
  const bytes = Buffer.from(new URL(link).hash.split('snap=')[1], 'base64url');
  bytes[4] = 2; // snapshot format 2
  await page.goto(`/#snap=${bytes.toString('base64url')}`);
  await page.reload(); // a fragment-only navigation does not reload the app
  await expect(page.locator('.app')).toHaveAttribute('data-state', 'error');
  await expect(page.getByTestId('error')).toContainText(
    'This link was made by a newer tcpscope (snapshot format 2); this page reads format 1',
  );

  // Markup in every text field is shown as text, in the app and in the embed.
  await page.goto(link);
  await page.reload();
  await expect(page.locator('.app')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('diagnosis')).toContainText(INJECTION);
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  const embed = await page.context().newPage();
  await embed.goto(link.replace(/\/#/, '/embed.html#'));
  await expect(embed.locator('.embed')).toHaveAttribute('data-state', 'ready');
  await expect(embed.getByTestId('embed-title')).toContainText(INJECTION);
  expect(await embed.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  await embed.goto('/embed.html#snap=AAAA');
  await embed.reload();
  await expect(embed.locator('.embed')).toHaveAttribute('data-state', 'error');
  await expect(embed.getByTestId('error')).toContainText('This is not a tcpscope snapshot');
});
