// The progressive view (issue 41): a large capture, generated here (bench/bulk-capture.mjs,
// never committed), shows its throughput chart with data and a "loading — N % read"
// state while it is read, long before the end; the finished chart's bins equal the
// growing chart's on the same grid, and the finished chart's fullest bin is the summary's
// peak; and a capture, a link or a compare pair opened meanwhile shows only itself, never
// a partial answer of the big one. Waits are on attributes the page sets, never sleeps.
import { expect, test, type Page, type TestInfo } from './warm';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBulkCapture } from '../bench/bulk-capture.mjs';
import { expectState } from './state';
import { dropped } from './drop';

const examplesDir = fileURLToPath(new URL('../public/examples/', import.meta.url));
/** 10^7 packets (~1 GB) as the issue asks; fewer for a quick local run. */
const PACKETS = Number(process.env.TCPSCOPE_E2E_PROGRESSIVE_PACKETS ?? 10_000_000);

/** The large capture, written once for both tests (writing 10^7 packets is ~1 GB to
 * disk and seconds of CPU; the second test used to write another 3·10^6), removed after. */
let bulk: string | null = null;
function bulkCapture(testInfo: TestInfo): string {
  if (bulk === null) {
    const path = join(testInfo.project.outputDir, `progressive-bulk-${PACKETS}.pcap`);
    writeBulkCapture(path, PACKETS);
    bulk = path;
  }
  return bulk;
}
// Both tests read the one file, written by the first to need it: one worker, in order
// (playwright.config.ts runs tests in parallel; two workers would write it twice, at once).
test.describe.configure({ mode: 'default' });
test.afterAll(() => {
  if (bulk !== null) rmSync(bulk, { force: true });
  bulk = null;
});

interface Last { connection: number; direction: number; t0: number; t1: number; columns: number; binSeconds: number; start: number; bytes: number[]; fraction: number }

/** The share of the file read when the partial throughput chart first drew bars. */
async function firstChartFraction(page: Page): Promise<number> {
  const handle = await page.waitForFunction(() => {
    const fig = document.querySelector('[data-testid=partial-throughput]');
    const path = fig?.querySelector('path[data-series=payload]');
    const state = document.querySelector('[data-testid=progressive-state]')?.textContent ?? '';
    // "With data": bytes in a drawn bin (a finished one, or the bin in progress), not just
    // bins — a connection starting at the file's first packet has an empty padded bin at once.
    const open = fig?.querySelector('[data-series=loading-bin]');
    const bytesDrawn = Number(path?.getAttribute('data-max-bps') ?? 0) > 0 || Number(open?.getAttribute('data-bps') ?? 0) > 0;
    if (!fig || !path || !bytesDrawn || !/loading — \d+ % read/.test(state)) return false;
    if (!path.getAttribute('d')) return false;
    return Number(fig.getAttribute('data-fraction'));
  }, undefined, { timeout: 120_000, polling: 'raf' });
  return (await handle.jsonValue()) as number;
}

test('a large capture draws its throughput while it loads, and the finished chart agrees', async ({ page }, testInfo) => {
  test.setTimeout(300_000);
  const file = bulkCapture(testInfo);
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(file);
  const fraction = await firstChartFraction(page);
  testInfo.annotations.push({ type: 'first partial chart at', description: `${(fraction * 100).toFixed(1)} % of ${PACKETS} packets read` });
  console.log(`progressive: first partial chart at ${(fraction * 100).toFixed(1)} % read`);
  // A chart with data and the loading state before a quarter of the bytes were read.
  expect(fraction).toBeLessThan(0.25);
  await expect(page.getByTestId('diagnosis-waiting')).toBeVisible();
  await expect(page.getByTestId('after-the-load')).toContainText('loading');
  await expect(page.getByTestId('partial-table').locator('tbody tr')).toHaveCount(1);
  await expectState(page, 'ready', { timeout: 240_000 });
  await expect(page.getByTestId('progressive')).toHaveCount(0);
  // The last partial answer against the finished engine, same question: every bin it
  // drew is the final bin (same start, same width, same bytes).
  const { last, updates, final } = await page.evaluate(async () => {
    const w = window as unknown as { __tcpscopePartial: { last: Last; updates: number }; __tcpscope: { viewSource: () => { query: (q: unknown) => Promise<{ start: number; binSeconds: number; bytes: Float64Array }> } } };
    const l = w.__tcpscopePartial.last;
    const a = await w.__tcpscope.viewSource().query({ connection: l.connection, series: 'throughput', direction: l.direction, t0: l.t0, t1: l.t1, columns: l.columns, binSeconds: l.binSeconds });
    return { last: l, updates: w.__tcpscopePartial.updates, final: { start: a.start, binSeconds: a.binSeconds, bytes: Array.from(a.bytes) } };
  });
  expect(updates).toBeGreaterThan(1);
  expect(last.bytes.length).toBeGreaterThan(0);
  expect(final.start).toBe(last.start);
  expect(final.binSeconds).toBe(last.binSeconds);
  expect(final.bytes.slice(0, last.bytes.length)).toEqual(last.bytes);
  // The finished chart draws on that grid: the summary's bin is the running 100 ms.
  const payload = page.locator('[data-chart=throughput] path[data-series=payload]').first();
  await expect(payload).toHaveAttribute('data-bin', String(last.binSeconds));
  // The finished chart's bins are the summary's: its fullest bin is the summary's peak
  // (as wasm/tests/view_agreement.rs checks on the examples), and no bar the growing
  // chart drew was above it.
  const summary = await page.evaluate(async (id) => {
    const w = window as unknown as { __tcpscope: { summary: (id: number) => Promise<{ start: number; end: number; directions: { throughput: { peakBps: number; binSeconds: number } }[] } | null> } };
    return w.__tcpscope.summary(id);
  }, last.connection);
  const peak = summary!.directions[last.direction].throughput;
  expect(peak.binSeconds).toBe(last.binSeconds);
  expect(Number(await payload.getAttribute('data-max-bps'))).toBe(peak.peakBps);
  expect(Math.max(...last.bytes) * 8 / last.binSeconds).toBeLessThanOrEqual(peak.peakBps * (1 + 1e-12));
  // The axis: the growing chart ran to the connection's expected end (time settled ÷ share
  // analysed), the finished one opens on its whole span (charts/timeRange.ts fullRange: 1 %
  // margins): for a steady transfer the right edge moves by under 1 % of the span (the
  // share of bytes read left it 8.5 % short: 22.2 of 24.2 s at 3·10^6 packets).
  const span = summary!.end - summary!.start;
  console.log(`progressive: last partial axis to ${last.t1.toFixed(3)} s at ${(last.fraction * 100).toFixed(1)} % read; finished ${(summary!.end + 0.01 * span).toFixed(3)} s`);
  expect(Math.abs(last.t1 - (summary!.end + 0.01 * span)) / span).toBeLessThan(0.01);
});

/**
 * From the moment `event` fires (the new capture's file chosen, the address edited, two
 * files dropped), records anything of the big capture the page still shows: its
 * connection (10.0.0.1:40000, bench/bulk-capture.mjs) in the loading table or the
 * finished one, and a partial chart drawn with a bar above 400 Mbit/s (the big capture
 * runs at 1 Gbit/s; the examples opened instead peak at ≤ 50 Mbit/s, and one of them,
 * rx-zero-window-dead, lasts 25 s like the big one). Read back with `oldShown`.
 */
async function watchForTheBigCapture(page: Page, event: 'change' | 'hashchange' | 'drop') {
  await page.evaluate((ev) => {
    const w = window as unknown as { __old: string[]; __switched?: boolean; __probeBefore?: unknown; __tcpscopePartial?: { last: { bytes: number[]; binSeconds: number } | null } };
    w.__old = [];
    // The big capture is the page's until the page starts the next load (App's
    // startLoading replaces the probe): what it draws before that is no mix of captures.
    w.__probeBefore = w.__tcpscopePartial;
    const target = ev === 'change' ? document.querySelector('[data-testid=file-input]')! : ev === 'drop' ? document.querySelector('.app')! : window;
    target.addEventListener(ev, () => { w.__switched = true; }, { capture: true, once: true });
    const check = () => {
      if (!w.__switched || w.__tcpscopePartial === w.__probeBefore) return;
      for (const el of document.querySelectorAll('[data-testid=progressive] tbody tr, [data-testid=connections] tbody tr, [data-testid=capture]')) {
        if ((el.textContent ?? '').includes('10.0.0.1:40000')) w.__old.push(`row: ${el.textContent}`);
      }
      const last = w.__tcpscopePartial?.last;
      const peak = last ? Math.max(0, ...last.bytes) * 8 / last.binSeconds : 0;
      if (peak > 4e8) w.__old.push(`partial chart at ${(peak / 1e6).toFixed(0)} Mbit/s`);
    };
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  }, event);
}
const oldShown = (page: Page) => page.evaluate(() => (window as unknown as { __old: string[] }).__old);

test('a capture opened while a large one draws progressively shows only itself', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  // The same large capture: the test leaves it after its first partial chart.
  const file = bulkCapture(testInfo);
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(file);
  await firstChartFraction(page);
  await watchForTheBigCapture(page, 'change');
  // The small capture, opened while the big one is still being read.
  await page.getByTestId('file-input').setInputFiles(`${examplesDir}rwnd-limited.pcap`);
  await expectState(page, 'ready', { timeout: 60_000 });
  await expect(page.getByTestId('progressive')).toHaveCount(0);
  await expect(page.getByTestId('capture')).toContainText('rwnd-limited.pcap');
  await expect(page.getByTestId('connections').locator('tbody tr')).toHaveCount(2);
  await expect(page.getByTestId('connection')).toContainText('10.77.0.1');
  // Nothing of the big capture was kept: any partial answer since is the small one's
  // (its connections last 2.1 s; the big one's 10+ s).
  const last = await page.evaluate(() => (window as unknown as { __tcpscopePartial?: { last: Last | null } }).__tcpscopePartial?.last ?? null);
  if (last) expect(last.t1).toBeLessThan(3);
  await expect(page.locator('svg[data-chart=throughput]')).toHaveCount(1);
  expect(await oldShown(page)).toEqual([]);
});

test('a link opened while a large capture draws progressively shows only its capture', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const file = bulkCapture(testInfo);
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(file);
  await firstChartFraction(page);
  await watchForTheBigCapture(page, 'hashchange');
  // The address edited to another capture's link (as a person pastes one).
  await page.evaluate(() => { window.location.hash = '#ex=rwnd-limited.pcap&c=0'; });
  await expectState(page, 'ready', { timeout: 60_000 });
  await expect(page.getByTestId('progressive')).toHaveCount(0);
  await expect(page.getByTestId('capture')).toContainText('rwnd-limited.pcap');
  await expect(page.getByTestId('connections').locator('tbody tr')).toHaveCount(2);
  await expect(page.getByTestId('connection')).toContainText('10.77.0.1');
  await expect(page.locator('svg[data-chart=throughput]')).toHaveCount(1);
  expect(await oldShown(page)).toEqual([]);
});

test('a compare link or two captures dropped while a large capture draws progressively show only the pair', async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  const file = bulkCapture(testInfo);
  const compareReady = async () => {
    await expect(page.getByTestId('compare')).toHaveAttribute('data-state', 'ready', { timeout: 60_000 });
    await expectState(page, 'ready', { timeout: 60_000 });
    await expect(page.getByTestId('progressive')).toHaveCount(0);
  };
  // A compare link (two example captures) typed while the big one draws.
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(file);
  await firstChartFraction(page);
  await watchForTheBigCapture(page, 'hashchange');
  await page.evaluate(() => { window.location.hash = '#ex=healthy.pcap&compare=1,1&compare-ex=rwnd-limited.pcap'; });
  await compareReady();
  await expect(page.getByTestId('compare-side-a')).toContainText('A: healthy.pcap');
  await expect(page.getByTestId('compare-side-b')).toContainText('B: rwnd-limited.pcap');
  expect(await oldShown(page)).toEqual([]);
  // Two captures dropped together while the big one draws: the first opened, the second compared.
  await page.goto('about:blank');
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(file);
  await firstChartFraction(page);
  await watchForTheBigCapture(page, 'drop');
  await page.locator('.app').dispatchEvent('drop', { dataTransfer: await dropped(page, ['nagle-delack.pcap', 'rx-zero-window-dead.pcap']) });
  await compareReady();
  await expect(page.getByTestId('compare-side-a')).toContainText('A: nagle-delack.pcap');
  await expect(page.getByTestId('compare-side-b')).toContainText('B: rx-zero-window-dead.pcap');
  expect(await oldShown(page)).toEqual([]);
});
