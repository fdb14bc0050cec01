// Mac and Wi-Fi captures (issue 17 items 1, 3 and 7): the process behind each connection
// in the table, the connection's header and every chart title, the Wi-Fi strip on a
// radiotap capture, the SACK-adjusted pipe line and the events strip on a lossy example.
// Every wait is on the app root's data-state (or a locator assertion), never a sleep.
//
// FIXTURES (written by the Rust synth generator; tests fail when they are stale):
// e2e/fixtures/pktap-processes.pcap (wasm/tests/decode_links.rs `pktap_capture`: Apple
// PKTAP, Safari pid 512 on en0 and curl pid 77 on pdp_ip0), e2e/fixtures/wifi-radiotap.pcap
// (wasm/tests/view_wifi.rs: VHT then HT frames, two MAC retries).
import { expect, test, type Page } from './warm';
import { fileURLToPath } from 'node:url';
import { cliReport } from './cli';
import { expectState } from './state';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

async function open(page: Page, file: string) {
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(`${fixtures}${file}`);
  await expectState(page, 'ready');
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
  // It is a chart of the stack: hidden with its toggle (and then gone from #charts=),
  // shown again by a permalink that names it.
  await page.getByRole('checkbox', { name: 'Wi-Fi PHY rate and retries' }).uncheck();
  await expect(strip).toHaveCount(0);
  await expect.poll(() => decodeURIComponent(new URL(page.url()).hash)).toContain('charts=throughput,inflight,stalls,sequence,rtt,events');
  await page.evaluate(() => { window.location.hash = '#charts=wifi,rtt'; });
  await expect(page.locator('svg[data-chart]')).toHaveCount(2);
  await expect(strip).toBeVisible();
  // Captures without radio headers have no Wi-Fi chart, nor its toggle.
  await open(page, 'pktap-processes.pcap');
  await expect(page.locator('figure[data-chart="wifi"]')).toHaveCount(0);
  await expect(page.getByRole('checkbox', { name: 'Wi-Fi PHY rate and retries' })).toHaveCount(0);
});

test('every chart title names the process, and the figures say it to screen readers', async ({ page }) => {
  await open(page, 'pktap-processes.pcap');
  // The largest connection is selected: Safari's.
  await expect(page.getByTestId('connection-process')).toContainText('Safari (pid 512)');
  const titles = page.locator('svg[data-chart] text.tcps-title');
  await expect(titles).toHaveCount(6);
  for (const title of await titles.all()) await expect(title).toHaveText(/ — Safari \(pid 512\)$/);
  await expect(page.locator('figure[data-chart="throughput"]')).toHaveAttribute('aria-label', 'Throughput — Safari (pid 512)');
  // A capture without process metadata keeps the plain titles (a new document: the
  // app opens #ex= on load).
  await page.goto('about:blank');
  await page.goto('/#ex=loss-1pct.pcap');
  await expectState(page, 'ready');
  await expect(page.locator('svg[data-chart="throughput"] text.tcps-title')).toHaveText('Throughput');
});

test('loss-1pct.pcap: the SACK-adjusted pipe is toggled on the in-flight chart and lands in the permalink', async ({ page }) => {
  await page.goto('/#ex=loss-1pct.pcap');
  await expectState(page, 'ready');
  const chart = page.locator('figure[data-chart="inflight"]');
  await expect(chart.locator('path.tcps-pipe')).toHaveCount(0);
  await chart.getByTestId('pipe-toggle').check();
  const pipe = chart.locator('path.tcps-pipe');
  await expect(pipe).toHaveAttribute('d', /^M[\d.]+,[\d.]+/);
  await expect(pipe).not.toHaveAttribute('data-points', '0');
  await expect(chart.locator('.tcps-legend')).toContainText("SACK-adjusted pipe (Wireshark's bytes in flight)");
  await expect(chart.locator('svg desc')).toContainText('SACK-adjusted pipe (RFC 6675)');
  await expect(page).toHaveURL(/[#&]pipe=1(&|$)/);
  // The permalink reopens with the line drawn.
  await page.reload();
  await expectState(page, 'ready');
  await expect(page.locator('figure[data-chart="inflight"] path.tcps-pipe')).toHaveAttribute('d', /^M/);
});

test('loss-1pct.pcap: the events strip draws as many retransmissions and duplicate ACKs as the report counts', async ({ page }) => {
  const report = cliReport('loss-1pct.pcap');
  const conn = report.connections.reduce((a: any, b: any) => (b.packets > a.packets ? b : a));
  const sender = conn.directions[conn.dataDirection], receiver = conn.directions[1 - conn.dataDirection];
  // 1 % random loss over 12,289 packets: 82 retransmissions, 1,308 duplicate ACKs asking for them.
  expect([sender.retransmissions, receiver.duplicateAcks, receiver.zeroWindows]).toEqual([82, 1308, 0]);
  await page.goto('/#ex=loss-1pct.pcap');
  await expectState(page, 'ready');
  const strip = page.locator('figure[data-chart="events"]');
  await expect(strip.locator('path[data-series="retransmissions"]')).toHaveAttribute('data-events', String(sender.retransmissions));
  await expect(strip.locator('path[data-series="duplicateAcks"]')).toHaveAttribute('data-events', String(receiver.duplicateAcks));
  await expect(strip.locator('path[data-series="zeroWindows"]')).toHaveAttribute('data-events', '0');
  await expect(strip.locator('.tcps-legend')).toContainText('retransmissions: 82');
  await expect(strip.locator('svg desc')).toContainText('(82 in the connection)');
  // Hideable, and hidden in the permalink's #charts=.
  await page.locator('.tcps-chart-toggles label', { hasText: 'Events' }).locator('input').uncheck();
  await expect(strip).toHaveCount(0);
  // (The Wi-Fi chart stays chosen: it shows wherever the capture has radio headers.)
  await expect(page).toHaveURL(/charts=throughput,inflight,stalls,sequence,rtt,wifi(&|$)/);
});
