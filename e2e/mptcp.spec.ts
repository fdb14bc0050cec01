// Issue 46 item 1 on the page: an MPTCP recording opened from the examples shows the
// MPTCP connection's sentences in the diagnosis of its subflow (wasm analysis/track/mptcp.rs
// `text`) and, on the throughput chart, the connection's data-level rate over all
// subflows beside the subflow's own (view series mptcpData). Every wait is on
// data-state or a locator, never a sleep.
//
// FIXTURE: public/examples/mptcp-two-paths.pcap (a 4,000,000-byte Linux MPTCP upload
// over three subflows on two paths; README there).
import { expect, test } from './warm';
import { expectState } from './state';

test('an MPTCP subflow shows its connection\'s sentences and the connection-level rate line', async ({ page }) => {
  await page.goto('/#ex=mptcp-two-paths.pcap');
  await expectState(page, 'ready');
  // One row for the MPTCP connection, with its own numbers: the 4,000,000 bytes written.
  const row = page.locator('tr[data-mptcp-connection="0"]');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('mptcp-toggle')).toHaveText('▸ MPTCP · 3 subflows');
  await expect(row.getByTestId('bytes')).toHaveText('3.8 MiB · 19 Mbit/s');
  // The sentence, in the diagnosis of the subflow shown (the largest: connection 0).
  await expect(page.getByTestId('connection')).toHaveAttribute('data-connection', '0');
  await expect(page.getByTestId('mptcp-text')).toContainText('MPTCP connection of 3 subflows (connections 0, 1, 2): 3.8 MiB of data from 10.81.0.1:43506 to 10.81.0.2:5201 at 19 Mbit/s, on 3 of them.');
  const chart = page.locator('figure[data-chart="throughput"]');
  const line = chart.locator('path[data-series="mptcp"]');
  await expect(line).toHaveCount(1);
  expect(Number(await line.getAttribute('data-points'))).toBeGreaterThan(10);
  await expect(chart.locator('.tcps-legend')).toContainText('MPTCP connection (all subflows)');
  // Another subflow: the same sentence and line.
  await page.evaluate(() => { window.location.hash = '#ex=mptcp-two-paths.pcap&c=2'; });
  await expect(page.getByTestId('connection')).toHaveAttribute('data-connection', '2');
  await expect(page.getByTestId('mptcp-text')).toContainText('MPTCP connection of 3 subflows');
  await expect(page.locator('figure[data-chart="throughput"] path[data-series="mptcp"]')).toHaveCount(1);
});
