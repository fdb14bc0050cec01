// A capture of 100,000 connections (issue 16 item 2): bench/gen-large.py's unanswered
// SYNs at a tenth of the 10^6-SYN benchmark file. The page lists them through the
// worker's connection table: only the rows in view are rendered, the search box asks
// the worker for the matching rows, and sorting is the worker's. Waits are on the
// app's state attribute and on what the table says, never sleeps.
import { expect, test } from './warm';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

test('100,000 connections open with a virtual, searchable table', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const dir = testInfo.outputPath('syn');
  execFileSync('python3', [`${root}bench/gen-large.py`], { env: { ...process.env, BENCH_SCALE: '0.1', BENCH_DIR: dir, BENCH_FILES: 'syn-1m' }, stdio: 'ignore' });
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(`${dir}/syn-1m.pcap`);
  await expect(page.locator('.app')).toHaveAttribute('data-state', /ready|error/, { timeout: 90_000 });
  const count = page.getByTestId('connection-count');
  await expect(count).toHaveText('100,000 TCP connections');
  const rows = page.getByTestId('connections').locator('tbody tr');
  await expect(rows.first()).toBeVisible();
  expect(await rows.count()).toBeLessThan(60); // a screenful and the overscan, not 100,000

  // Port 51023 is the last of each client address's 50,000 (gen_syns): two connections.
  await page.getByTestId('connection-search').fill(':51023');
  await expect(count).toHaveText('100,000 TCP connections, 2 matching “:51023”');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('10.2.0.2:51023 → 10.0.0.1:80');
  // The page holds the summaries of the largest 64 only (protocol.ts); choosing another
  // fetches its summary from the worker and shows it.
  await rows.nth(0).click();
  await expect(page.getByTestId('connection')).toHaveAttribute('data-connection', '49999');

  // Sorting by id, descending, is answered by the worker: the last connection first.
  await page.getByTestId('connection-search').fill('');
  // The search is debounced: wait until the table lists all again, or the sort below
  // could be answered for the 2 matches (99999 first too) and the scroll clamped to them.
  await expect(count).toHaveText('100,000 TCP connections');
  await page.getByRole('button', { name: /^#/ }).click();
  await page.getByRole('button', { name: /^#/ }).click();
  await expect(rows.first()).toHaveAttribute('data-connection', '99999');
  // Scrolling far down renders the rows there (fetched as a page from the worker).
  await page.getByRole('region', { name: 'TCP connections' }).evaluate((el) => { el.scrollTop = 32 * 50_000; });
  await expect(rows.first()).toHaveAttribute('data-connection', /^(4|5)\d{4}$/);
  expect(await rows.count()).toBeLessThan(60);
});
