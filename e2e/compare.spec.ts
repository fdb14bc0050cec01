// The compare view in a real Chromium (issue 17 item 9): two connections of one capture
// picked in the connection table, or two captures ("before/after": healthy.pcap against
// rwnd-limited.pcap, the same 10 ms path with the receive buffer capped), drawn on one
// time axis from each one's start, with both diagnoses exactly as each connection's own
// view shows them; the permalink reopens the same compare view; Share of a two-capture
// compare carries two snapshots and opens, drawn, in a fresh context; two captures
// dropped together open compared; the view has chart names and text alternatives.
// Every wait is on a data-state attribute or a value, never a sleep.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Browser, type Page } from './warm';
import { dropped } from './drop';
import { expectState } from './state';

const MAX_LINK = 8192;

async function ready(page: Page) {
  await expectState(page, 'ready');
}

async function compareReady(page: Page) {
  await expect(page.getByTestId('compare')).toHaveAttribute('data-state', 'ready');
  await ready(page);
}

/** What each connection's own view says: its diagnosis text and limit. */
async function ownDiagnosis(page: Page, fragment: string): Promise<{ text: string; limit: string }> {
  await page.goto('about:blank'); // a new document: a change of fragment alone is no reload
  await page.goto(`/#${fragment}`);
  await ready(page);
  const panel = page.getByTestId('connection').getByTestId('diagnosis');
  return { text: (await panel.getByTestId('diagnosis-text').textContent())!, limit: (await panel.getAttribute('data-limit'))! };
}

/** Both series are drawn on each compare chart. */
async function expectBothDrawn(page: Page) {
  for (const [chart, series] of [['compare-throughput', ['A', 'B']], ['compare-inflight', ['A-inflight', 'A-rwnd', 'B-inflight', 'B-rwnd']]] as const) {
    for (const key of series) {
      const points = await page.locator(`svg[data-chart="${chart}"] path[data-series="${key}"]`).getAttribute('data-points');
      expect(Number(points), `${chart} ${key}`).toBeGreaterThan(0);
    }
  }
}

async function compareDiagnoses(page: Page) {
  return Promise.all(['a', 'b'].map(async (k) => {
    const panel = page.getByTestId(`compare-side-${k}`).getByTestId('diagnosis');
    return { text: (await panel.getByTestId('diagnosis-text').textContent())!, limit: (await panel.getAttribute('data-limit'))! };
  }));
}

test('two connections of one capture, picked in the table: compared, and exit keeps the selection', async ({ page }) => {
  const own = [await ownDiagnosis(page, 'ex=healthy.pcap&c=1'), await ownDiagnosis(page, 'ex=healthy.pcap&c=0')];
  await page.goto('about:blank');
  await page.goto('/#ex=healthy.pcap&c=1');
  await ready(page);
  await page.locator('tr[data-connection="0"] [data-testid="compare-row"]').click();
  await compareReady(page);
  await expect(page.getByTestId('compare')).toHaveAttribute('data-connections', '1,0');
  await expectBothDrawn(page);
  expect(await compareDiagnoses(page)).toEqual(own);
  expect(new URL(page.url()).hash).toBe('#ex=healthy.pcap&compare=1,0');
  // One zoom for both charts, in s from each one's start, kept in the address.
  await page.locator('section.tcps-charts[aria-label^="Compared charts"]').focus();
  await page.keyboard.press('+');
  await expect.poll(() => new URL(page.url()).hash).toMatch(/&compare-t=0\.\d+,1\.\d+$/);
  const domains = await page.locator('svg[data-chart^="compare-"] .tcps-axis-x .tick text').allTextContents();
  expect(domains.slice(0, domains.length / 2)).toEqual(domains.slice(domains.length / 2)); // the same ticks on both
  await page.getByTestId('compare-exit').click();
  await expect(page.getByTestId('connection')).toHaveAttribute('data-connection', '1');
  await expect(page.getByTestId('compare')).toHaveCount(0);
  await expect.poll(() => new URL(page.url()).hash).toBe('#ex=healthy.pcap&c=1');
});

test('two captures, before/after: both drawn, the same diagnoses and headline numbers as their own views; the permalink reopens it', async ({ page, context }) => {
  const before = await ownDiagnosis(page, 'ex=healthy.pcap&c=1');
  const after = await ownDiagnosis(page, 'ex=rwnd-limited.pcap&c=1');
  await page.goto('about:blank');
  await page.goto('/#ex=healthy.pcap&c=1');
  await ready(page);
  await page.getByTestId('compare-example').selectOption('rwnd-limited.pcap');
  await compareReady(page);
  // B is the second capture's largest connection (#1, the iperf3 data connection).
  await expect(page.getByTestId('compare')).toHaveAttribute('data-connections', '1,1');
  await expectBothDrawn(page);
  expect(await compareDiagnoses(page)).toEqual([before, after]);
  // The limits side by side: the path (link) before, the receive window after.
  await expect(page.locator('tr[data-side="A"] [data-headline="limit"]')).toHaveText('Limited by the path (link or congestion window)');
  await expect(page.locator('tr[data-side="B"] [data-headline="limit"]')).toHaveText('Limited by the receive window');
  await expect(page.locator('tr[data-side="B"] [data-headline="retransmissions"]')).toHaveText('0');
  await expect(page.locator('svg[data-chart="compare-throughput"] path[data-series="B"]')).toHaveAttribute('data-max-bps', '32251520');

  await expect.poll(() => new URL(page.url()).hash).toBe('#ex=healthy.pcap&compare=1,1&compare-ex=rwnd-limited.pcap');
  const again = await context.newPage();
  await again.goto(page.url());
  await compareReady(again);
  await expect(again.getByTestId('compare')).toHaveAttribute('data-connections', '1,1');
  await expectBothDrawn(again);
  expect(await compareDiagnoses(again)).toEqual([before, after]);
});

async function openFresh(browser: Browser, url: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  return { context, page };
}

test('Share of a two-capture compare: two snapshots in one link of ≤ 8 KB, drawn in a fresh context', async ({ page, browser }) => {
  await page.goto('/#ex=healthy.pcap&compare=1,1&compare-ex=rwnd-limited.pcap&compare-t=0.5,1.5');
  await compareReady(page);
  const shown = await compareDiagnoses(page);
  await page.getByTestId('compare-share').click();
  const link = await page.getByTestId('compare-share-url').inputValue();
  expect(link.length).toBeLessThanOrEqual(MAX_LINK);
  expect(link).toMatch(/#compare=1,1&compare-snap=[A-Za-z0-9_-]+&compare-t=0\.5,1\.5&snap=[A-Za-z0-9_-]+$/);

  const { context, page: shared } = await openFresh(browser, link);
  await compareReady(shared);
  await expect(shared.getByTestId('compare')).toHaveAttribute('data-connections', '1,1');
  await expectBothDrawn(shared);
  expect(await compareDiagnoses(shared)).toEqual(shown);
  // Re-shared as it is: the same two snapshots.
  await shared.getByTestId('compare-share').click();
  await expect(shared.getByTestId('compare-share-url')).toHaveValue(link.replace(/^[^#]*/, new URL(shared.url()).origin + new URL(shared.url()).pathname));
  await context.close();
});

test('a capture dropped on the compare bar is compared with the open one', async ({ page }) => {
  await page.goto('/#ex=rx-zero-window-dead.pcap');
  await ready(page);
  await page.getByTestId('compare-bar').dispatchEvent('drop', { dataTransfer: await dropped(page, ['nagle-delack.pcap']) });
  await compareReady(page);
  await expect(page.getByTestId('compare-side-a')).toContainText('A: rx-zero-window-dead.pcap');
  await expect(page.getByTestId('compare-side-b')).toContainText('B: nagle-delack.pcap');
  await expectBothDrawn(page);
});

test('two captures dropped together open compared', async ({ page }) => {
  await page.goto('/');
  await page.locator('.app').dispatchEvent('drop', { dataTransfer: await dropped(page, ['nagle-delack.pcap', 'rx-zero-window-dead.pcap']) });
  await compareReady(page);
  await expect(page.getByTestId('compare-side-a')).toContainText('A: nagle-delack.pcap');
  await expect(page.getByTestId('compare-side-b')).toContainText('B: rx-zero-window-dead.pcap');
  await expectBothDrawn(page);
  // A local file cannot be reopened by a link: the address names it, and says so on reload.
  expect(new URL(page.url()).hash).toMatch(/compare-file=rx-zero-window-dead\.pcap/);
});

test('the compare view: chart names, text alternatives, no serious or critical axe violation', async ({ page }) => {
  await page.goto('/#ex=healthy.pcap&compare=1,1&compare-ex=rwnd-limited.pcap');
  await compareReady(page);
  for (const chart of await page.locator('svg[data-chart^="compare-"]').all()) {
    const id = (await chart.getAttribute('data-chart'))!;
    expect(await chart.getAttribute('aria-label'), id).toMatch(/compared\./);
    expect(await chart.locator('desc').textContent(), id).toMatch(/A: healthy\.pcap #1 .*\d.*B: rwnd-limited\.pcap #1 .*\d/);
  }
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(' | ')}`);
  expect(serious).toEqual([]);
});

test('a refused compare link says why in one line and shows the plain view', async ({ page }) => {
  await page.goto('/#ex=healthy.pcap&compare=1,1&compare-ex=..%2Fsecret');
  await ready(page);
  await expect(page.getByTestId('refused')).toHaveText('#compare-ex=../secret was ignored: an example is named by its file name (letters, digits, . _ -).');
  await expect(page.getByTestId('connection')).toBeVisible();
});
