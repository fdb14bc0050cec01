// Issue 46 item 3: at a receiver-side capture the in-flight chart draws the sender's
// bytes in flight as the engine estimates them (series senderInflight,
// wasm/src/analysis/timing/sender_flight.rs), labelled with its error bound; the capture
// point's own value stays in the tooltip. Every wait is on data-state or a locator.
//
// FIXTURES: public/examples/rx-bulk-twin.pcap (a CUBIC download captured at the client)
// and rx-bulk-twin-server.pcap (the same transfer at the server); README there.
import { expect, test } from './warm';
import { fileURLToPath } from 'node:url';
import { expectState } from './state';

const examples = fileURLToPath(new URL('../public/examples/', import.meta.url));

test('a receiver-side capture draws the sender\'s in flight, labelled as an estimate with its bound', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(`${examples}rx-bulk-twin.pcap`);
  await expectState(page, 'ready');
  const chart = page.locator('figure[data-chart="inflight"]');
  // ± 28,960 B: the bound nine points in ten keep (wasm/tests/sender_inflight.rs).
  await expect(chart.getByTestId('sender-inflight-label')).toHaveText("sender's in flight (estimate ± 28 KiB)");
  await expect(chart.locator('path.tcps-sender-estimate')).toHaveCount(1);
  expect(Number(await chart.locator('path.tcps-sender-estimate').getAttribute('data-points'))).toBeGreaterThan(100);
  // The capture point's value is still there, in the tooltip (asked of the engine at the
  // pointer), and the legend says so; it is not drawn, so a share link holds one
  // in-flight series and keeps the detail the page draws.
  await expect(chart.locator('path.tcps-inflight-capture')).toHaveCount(0);
  await expect(chart.locator('.tcps-legend')).toContainText('in flight at the capture point: in the tooltip');
});

test('a sender-side capture draws its own bytes in flight, no estimate', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(`${examples}rx-bulk-twin-server.pcap`);
  await expectState(page, 'ready');
  const chart = page.locator('figure[data-chart="inflight"]');
  await expect(chart.locator('.tcps-legend')).toContainText('bytes in flight');
  await expect(chart.getByTestId('sender-inflight-label')).toHaveCount(0);
  await expect(chart.locator('path.tcps-inflight-capture')).toHaveCount(0);
});

test('a share link of a receiver-side capture draws the same estimate with its bound', async ({ page, browser }) => {
  await page.goto('/#ex=rx-bulk-twin.pcap');
  await expectState(page, 'ready');
  await page.getByTestId('share').click();
  const input = page.getByTestId('share-url');
  await expect(input).toHaveValue(/#.*snap=[A-Za-z0-9_-]+$/);
  const link = await input.inputValue();
  // A fresh context: everything comes from the link (wasm/src/share: series senderInflight
  // with its error bound, on the in-flight chart's value grid).
  const context = await browser.newContext();
  const shared = await context.newPage();
  await shared.goto(link);
  await expectState(shared, 'ready');
  const chart = shared.locator('figure[data-chart="inflight"]');
  await expect(chart.getByTestId('sender-inflight-label')).toHaveText("sender's in flight (estimate ± 28 KiB)");
  await expect(chart.locator('path.tcps-sender-estimate')).toHaveCount(1);
  expect(Number(await chart.locator('path.tcps-sender-estimate').getAttribute('data-points'))).toBeGreaterThan(100);
  await context.close();
});
