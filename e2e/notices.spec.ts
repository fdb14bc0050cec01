// Issue 42, item 2: every refusal and error of the page is said at the top, inside the
// first screen, in a live region, and stays until dismissed or replaced. A refused
// `#url=javascript:…` used to render below the example list, 2,866 px down.
import { expect, test, type Locator, type Page } from './warm';
import { expectState } from './state';

/** The message is on the first screen (no scrolling): its box lies inside the viewport. */
async function expectInFirstScreen(page: Page, message: Locator) {
  await expect(message).toBeVisible();
  expect(await page.evaluate(() => window.scrollY), 'the page was not scrolled').toBe(0);
  const box = (await message.boundingBox())!;
  const viewport = page.viewportSize()!;
  expect(box.y, 'top inside the first screen').toBeGreaterThanOrEqual(0);
  expect(box.y + box.height, 'bottom inside the first screen').toBeLessThanOrEqual(viewport.height);
  // Said in the live region (aria-live="assertive"), so a screen reader announces it.
  await expect(page.locator('[aria-live="assertive"]').filter({ has: message })).toHaveCount(1);
}

// Each form a #url= can be refused in: by the address parser (refused) or at fetch (error).
const REFUSED: { hash: string; testId: 'refused' | 'error'; says: string | RegExp }[] = [
  { hash: '#url=javascript%3Aalert(1)', testId: 'refused', says: 'only https: addresses can be opened, not javascript:' },
  { hash: `#url=data:${'A'.repeat(100_000)}`, testId: 'refused', says: 'only https: addresses can be opened, not data:' },
  { hash: '#url=file%3A%2F%2F%2Fetc%2Fpasswd', testId: 'refused', says: 'only https: addresses can be opened, not file:' },
  { hash: '#url=ftp%3A%2F%2Fexample.org%2Fa.pcap', testId: 'refused', says: 'only https: addresses can be opened, not ftp:' },
  { hash: '#url=captures%2Fa.pcap', testId: 'refused', says: 'it is not an absolute address' },
  { hash: '#url=http%3A%2F%2Fcaptures.example%2Fa.pcap', testId: 'error', says: 'captures from other sites are fetched over https: only' },
];

for (const { hash, testId, says } of REFUSED) {
  test(`a refused ${hash.slice(0, 40)} says why inside the first screen`, async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.goto(`/${hash}`);
    await expectState(page, testId === 'error' ? 'error' : 'idle');
    const message = page.getByTestId(testId);
    await expect(message).toContainText(says);
    await expectInFirstScreen(page, message);
  });
}

test('a refusal stays until dismissed, and a new address replaces it', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto('/#url=javascript%3Aalert(1)');
  const refused = page.getByTestId('refused');
  await expect(refused).toContainText('not javascript:');
  // Another refused address: its message replaces the first, at the same place.
  await page.evaluate(() => { window.location.hash = '#url=ftp%3A%2F%2Fexample.org%2Fa.pcap'; });
  await expect(refused).toHaveText('#url=ftp://example.org/a.pcap was ignored: only https: addresses can be opened, not ftp:.');
  await expectInFirstScreen(page, refused);
  // Opening an example does not hide the refusal (it was about the address, still there)…
  await page.locator('[data-example]').first().click();
  await expectState(page, 'ready');
  await expect(refused).toBeVisible();
  // …the Dismiss button does.
  await page.getByRole('button', { name: 'Dismiss this message' }).click();
  await expect(refused).toHaveCount(0);
  await expect(page.getByTestId('page-notices')).toBeHidden();
});

test('an error raised far down the page (an export) is shown in view, at the top of the window', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/#ex=stalls.pcap&charts=throughput');
  await expectState(page, 'ready');
  // The sequence chart is not shown: exporting it fails, down at the share panel.
  await page.getByTestId('export-chart').selectOption('sequence');
  await page.getByTestId('export-svg').scrollIntoViewIfNeeded();
  await page.getByTestId('export-svg').click();
  const error = page.getByTestId('share-error');
  await expect(error).toHaveText('The Time-sequence chart is not on the page; show it first.');
  // Sticky: inside the window although the page is scrolled to the share panel.
  const box = (await error.boundingBox())!;
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height).toBeLessThanOrEqual(800);
});
