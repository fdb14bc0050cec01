// A phone-sized screen (390 px, an iPhone 12–15): the page reflows within it. Wide
// tables scroll inside their own box, controls wrap, nothing widens the document.
import { expect, test } from './warm';
import { expectState } from './state';

test.use({ viewport: { width: 390, height: 844 } });

test('at 390 px the page with a capture is no wider than the screen', async ({ page }) => {
  await page.goto('/#ex=stalls.pcap');
  await expectState(page, 'ready');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  // What used to stick out: the compare bar's example list, the chart checkboxes, and the
  // diagnosis's rate and RTT numbers (pushed right by their long labels).
  for (const selector of ['[data-testid="compare-example"]', '.tcps-chart-toggles', '[data-testid="rates"]', '[data-testid="rtt-stats"]']) {
    const box = (await page.locator(selector).first().boundingBox())!;
    expect(box.x + box.width, selector).toBeLessThanOrEqual(390);
  }
  // The per-direction table is wider than the screen: it scrolls in its own box.
  const region = page.getByRole('region', { name: 'Per direction' });
  expect(await region.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  expect((await region.boundingBox())!.width).toBeLessThanOrEqual(390);
});

test('at 390 px the compare view stacks its two sides within the screen', async ({ page }) => {
  await page.goto('/#ex=healthy.pcap&compare=1,0');
  await expectState(page, 'ready');
  await expect(page.getByTestId('compare-headline')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
