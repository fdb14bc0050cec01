// How each connection ended, on the page (issue 39 item 6; wasm analysis/track/ending.rs,
// docs/ANALYSIS.md "How the connection ended"): the connection table's "Ended" column
// and the connection header. healthy.pcap: tshark shows the control connection (#0)
// closed by a FIN each way and iperf3's data connection (#1) ended by 63 resets from
// port 5201, the first at 2.086016 s, with no FIN. Every wait is on data-state.
import { expect, test } from './warm';
import { expectState } from './state';

test('the table has an "Ended" column and the header says how the shown connection ended', async ({ page }) => {
  await page.goto('/#ex=healthy.pcap');
  await expectState(page, 'ready');
  const table = page.getByTestId('connections');
  await expect(table.locator('thead th').nth(7)).toHaveText('Ended');
  await expect(table.locator('tr[data-connection="0"] [data-testid="ended"]')).toHaveText('FIN both');
  await expect(table.locator('tr[data-connection="1"] [data-testid="ended"]')).toHaveText('reset by server');
  // The bulk connection is shown first: its header names the reset and the bytes it left unacknowledged.
  const ending = page.getByTestId('connection-ending');
  await expect(ending).toHaveAttribute('data-kind', 'reset');
  await expect(ending).toContainText('Ended: reset by server.');
  await expect(ending).toContainText('The connection was reset by 10.77.0.2:5201 at 2.086 s');
  await expect(ending).toContainText('88 KiB (89,776 bytes)');
});
