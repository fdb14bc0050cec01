// Mac and Wi-Fi captures (issue 17 items 1 and 3): the process behind each connection
// in the table and the connection's header, and the Wi-Fi strip on a radiotap capture.
// Every wait is on the app root's data-state (or a locator assertion), never a sleep.
//
// FIXTURES (written by the Rust synth generator; tests fail when they are stale):
// e2e/fixtures/pktap-processes.pcap (wasm/tests/decode_links.rs `pktap_capture`: Apple
// PKTAP, Safari pid 512 on en0 and curl pid 77 on pdp_ip0), e2e/fixtures/wifi-radiotap.pcap
// (wasm/tests/view_wifi.rs: VHT then HT frames, two MAC retries).
import { expect, test, type Page } from '@playwright/test';
import { fileURLToPath } from 'node:url';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

async function open(page: Page, file: string) {
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(`${fixtures}${file}`);
  await expect(page.locator('.app')).toHaveAttribute('data-state', 'ready');
}

test('the process of each connection is in the table and the connection header', async ({ page }) => {
  await open(page, 'pktap-processes.pcap');
  const table = page.getByTestId('connections');
  await expect(table.locator('tr[data-connection="0"]').getByTestId('process')).toHaveText('Safari (pid 512)');
  await expect(table.locator('tr[data-connection="1"]').getByTestId('process')).toHaveText('curl (pid 77)');
  await table.locator('tr[data-connection="1"]').click();
  await expect(page.getByTestId('connection-process')).toContainText('curl (pid 77)');
});

test('a radiotap capture gets a Wi-Fi strip with PHY rate and retries on the shared time axis', async ({ page }) => {
  await open(page, 'wifi-radiotap.pcap');
  const strip = page.locator('figure[data-chart="wifi"]');
  await expect(strip).toBeVisible();
  // Two MAC retries, in two different bins; every bin with frames states a rate.
  await expect(strip.locator('path.tcps-wifi-retry')).toHaveAttribute('data-bins', '2');
  await expect(strip.locator('path.tcps-wifi-rate')).not.toHaveAttribute('data-bins', '0');
  await expect(strip.locator('svg')).toHaveAttribute('aria-label', /^Wi-Fi\. PHY rate and retry share/);
  // Captures without radio headers have no strip.
  await open(page, 'pktap-processes.pcap');
  await expect(page.locator('figure[data-chart="wifi"]')).toHaveCount(0);
});
