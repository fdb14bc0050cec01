// The chart stack in a real Chromium, on the repo's recorded examples: every chart is
// drawn, the in-flight curve sits on the window on the receive-window-limited example,
// and the stall bands line up with the stalls the CLI reports.
import { expect, test, type Page } from './warm';
import { cliReport as cli, examples } from './cli';
import { expectState } from './state';

const CHARTS = ['throughput', 'inflight', 'stalls', 'sequence', 'rtt', 'events'];

async function open(page: Page, file: string) {
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(`${examples}${file}`);
  await expectState(page, 'ready');
}

test('all six charts are drawn for the selected connection', async ({ page }) => {
  await open(page, 'rwnd-limited.pcap');
  for (const chart of CHARTS) {
    const svg = page.locator(`svg[data-chart="${chart}"]`);
    await expect(svg).toBeVisible();
    await expect(svg.locator('.tcps-axis-label, text').first()).toBeVisible();
  }
  // Throughput: a payload series with marks and an SI-prefixed axis.
  await expect(page.locator('svg[data-chart="throughput"]')).toContainText('Mbit/s');
  // Time-sequence: thousands of data segments (merged per pixel column when dense).
  const segments = Number(await page.locator('svg[data-chart="sequence"] path.tcps-segments').first().getAttribute('data-count'));
  expect(segments).toBeGreaterThan(100);
});

test('receive-window-limited example: in flight sits on the window line, window-limited spans are shaded', async ({ page }) => {
  const report = cli('rwnd-limited.pcap');
  const main = report.connections.reduce((a: any, b: any) => (b.packets > a.packets ? b : a));
  await open(page, 'rwnd-limited.pcap');
  const inflight = page.locator('svg[data-chart="inflight"]');
  await expect(inflight.locator('path.tcps-window')).toHaveCount(1);
  // 84 % of the time window-limited (the diagnosis): many shaded spans.
  const spans = Number(await inflight.locator('g.tcps-limited').getAttribute('data-count'));
  expect(spans).toBeGreaterThan(5);
  await expect(page.getByTestId('diagnosis')).toHaveAttribute('data-limit', 'receive-window');
  expect(main.diagnosis.limit).toBe('receive-window');
});

test('stalls example: one band per stall the CLI reports, at the same times, with the same causes', async ({ page }) => {
  const report = cli('stalls.pcap');
  const conn = report.connections.reduce((a: any, b: any) => (b.packets > a.packets ? b : a));
  const stalls: { start: number; duration: number; cause: string }[] = conn.directions[conn.dataDirection].stalls;
  expect(stalls.length).toBeGreaterThanOrEqual(5); // 5 application pauses + the RTO at 1.727 s
  await open(page, 'stalls.pcap');
  const bands = page.locator('svg[data-chart="stalls"] rect.tcps-stall');
  await expect(bands).toHaveCount(stalls.length);
  const drawn = await bands.evaluateAll((rects) => rects.map((r) => ({
    x: Number(r.getAttribute('x')), width: Number(r.getAttribute('width')), cause: r.getAttribute('data-cause'),
  })));
  // Pixel positions are a linear function of the CLI's times: fit it on the first and
  // last band, then every band must sit within a pixel of where its stall starts.
  const first = 0;
  const last = stalls.length - 1;
  const pxPerSecond = (drawn[last].x - drawn[first].x) / (stalls[last].start - stalls[first].start);
  stalls.forEach((s, i) => {
    expect(drawn[i].cause).toBe(s.cause);
    expect(Math.abs(drawn[first].x + (s.start - stalls[first].start) * pxPerSecond - drawn[i].x)).toBeLessThan(1);
    expect(Math.abs(Math.max(1.5, s.duration * pxPerSecond) - drawn[i].width)).toBeLessThan(1);
  });
  expect(drawn.map((d) => d.cause)).toContain('retransmission-timeout');
});

test('zooming one chart zooms them all and lands in the permalink', async ({ page }) => {
  await open(page, 'stalls.pcap');
  const stack = page.locator('.tcps-charts');
  await stack.focus();
  // Each zoom step reaches the permalink on its own: wait for the first, then for the
  // second to replace it (reading after two presses could catch the first step's range
  // while the second was still on its way, as a loaded fresh-clone CI run did).
  const zoomInUrl = () => new URLSearchParams(new URL(page.url()).hash.slice(1)).get('t');
  await page.keyboard.press('+');
  await expect.poll(zoomInUrl).toMatch(/^[\d.]+,[\d.]+$/);
  const once = zoomInUrl();
  await page.keyboard.press('+');
  await expect.poll(zoomInUrl).not.toBe(once);
  const range = zoomInUrl()!.split(',').map(Number);
  expect(range[1]).toBeGreaterThan(range[0]);
  // Reloading the permalink restores the zoom.
  await page.reload();
  await expectState(page, 'idle');
  await page.getByTestId('file-input').setInputFiles(`${examples}stalls.pcap`);
  await expectState(page, 'ready');
  const restored = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('t')!.split(',').map(Number);
  expect(restored).toEqual(range);
});
