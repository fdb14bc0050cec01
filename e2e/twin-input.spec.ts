// Two vantage points, the ways in (issue 44 item 1): "+ other end…" on an open connection
// opens the capture taken at the other end as the compare view's side B, with the merged
// view showing the pair of the connection that was open (not the largest); the compare
// charts below the merged view show the pair chosen in its select; a pcapng whose two
// interfaces are the two ends (mergecap -I none of twin-forward-loss.pcap and its
// -server.pcap, wasm/tests/fixtures) is offered "Merge the two vantage points", which
// opens its two interfaces as two captures, merged exactly as the two original files (the
// CLI's `analyze A --other-end B --json`). Every wait is on a data-state or a value.
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from './warm';
import { dropped } from './drop';
import { expectState } from './state';
import { cliTwin, examples, root } from './cli';
import { formatMs } from '../web/model/format.mjs';

const mergecapFixture = `${root}wasm/tests/fixtures/twin-forward-loss-mergecap.pcapng.gz`;
const field = (page: Page, name: string) => page.locator(`[data-testid="twin-panel"] [data-field="${name}"]`);

async function open(page: Page, name: string) {
  await page.goto('/');
  await page.locator('.app').dispatchEvent('drop', { dataTransfer: await dropped(page, [name]) });
  await expectState(page, 'ready');
}

async function mergedReady(page: Page) {
  await expect(page.getByTestId('twin')).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
  await expect(page.getByTestId('compare')).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
}

test('"+ other end" on connection #2: the merged view and the compare charts show #2\'s pair, not the largest', async ({ page }) => {
  // twin-rr-loss: 12 request/response connections at each end, each found in both (the
  // CLI pairs #k with #k); the largest is #4 (105,000 B), and #2 carried 70,000 B.
  const cli = cliTwin('twin-rr-loss.pcap', 'twin-rr-loss-server.pcap');
  const k = cli.pairs.findIndex((p: { senderSide: { input: number; connection: number }; receiverSide: { connection: number } }) =>
    (p.senderSide.input === 0 ? p.senderSide : p.receiverSide).connection === 2);
  expect(k).toBeGreaterThanOrEqual(0);
  await open(page, 'twin-rr-loss.pcap');
  await page.locator('tr[data-connection="2"]').click();
  await expect(page.getByTestId('connection')).toHaveAttribute('data-connection', '2');
  const bar = page.getByTestId('other-end');
  await expect(bar.locator('label.file-picker')).toHaveText('+ other end…');
  await bar.locator('input[type="file"]').setInputFiles(`${examples}twin-rr-loss-server.pcap`);
  await mergedReady(page);
  await expect(page.getByTestId('twin-pair')).toHaveValue(String(k));
  await expect(page.getByTestId('compare')).toHaveAttribute('data-connections', '2,2');
  await expect(field(page, 'senderSide')).toContainText('#2');
  await expect(field(page, 'receiverSide')).toContainText('#2');
  await expect(page.getByTestId('twin-not-paired')).toHaveCount(0);
  await expect(field(page, 'offset')).toHaveText(formatMs(cli.pairs[k].clock.offsetMs));
});

test('"+ other end" as a drop target: the file dropped on it is the other end', async ({ page }) => {
  await open(page, 'twin-nat.pcap');
  await page.locator('tr[data-connection="1"]').click();
  await expect(page.getByTestId('connection')).toHaveAttribute('data-connection', '1');
  await page.getByTestId('other-end').dispatchEvent('drop', { dataTransfer: await dropped(page, ['twin-nat-server.pcap']) });
  await mergedReady(page);
  // Through the NAT the pair is found by its ISNs; #1 here is #1 at the server's end.
  await expect(page.getByTestId('twin-pair')).toHaveValue('1');
  await expect(page.getByTestId('compare')).toHaveAttribute('data-connections', '1,1');
  await expect(field(page, 'matchedBy')).toHaveAttribute('data-value', 'isn');
  // The app's capture is still the one opened first.
  await expect(page.getByTestId('compare-side-a')).toContainText('twin-nat.pcap #1');
});

test('the compare charts follow the pair chosen in the merged view, and the merged view follows the pickers', async ({ page }) => {
  await page.goto('/');
  await page.locator('.app').dispatchEvent('drop', { dataTransfer: await dropped(page, ['twin-rr-loss.pcap', 'twin-rr-loss-server.pcap']) });
  await mergedReady(page);
  const select = page.getByTestId('twin-pair');
  // Dropped together, A is the client file's largest connection (#4) and the pair shown is its.
  await expect(page.getByTestId('compare')).toHaveAttribute('data-connections', '4,4');
  await expect(select).toHaveValue('4');
  await select.selectOption('7');
  await expect(page.getByTestId('compare')).toHaveAttribute('data-connections', '7,7');
  await expect(page.getByTestId('compare')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('compare-pick-a')).toHaveValue('7');
  await expect(page.getByTestId('compare-pick-b')).toHaveValue('7');
  await expect(field(page, 'senderSide')).toContainText('#7');
  // Both pickers set to pair 9's connections: the merged view shows pair 9.
  await page.getByTestId('compare-pick-a').selectOption('9');
  await page.getByTestId('compare-pick-b').selectOption('9');
  await expect(page.getByTestId('compare')).toHaveAttribute('data-connections', '9,9');
  await expect(select).toHaveValue('9');
  await expect(field(page, 'senderSide')).toContainText('#9');
});

test('a pcapng whose interfaces are the two ends: offered, and merged as the two files', async ({ page }) => {
  const cli = cliTwin('twin-forward-loss.pcap', 'twin-forward-loss-server.pcap');
  await page.goto('/');
  const gz = readFileSync(mergecapFixture).toString('base64');
  const dt = await page.evaluateHandle((b64) => {
    const d = new DataTransfer();
    d.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'twin-forward-loss-mergecap.pcapng.gz'));
    return d;
  }, gz);
  await page.locator('.app').dispatchEvent('drop', { dataTransfer: dt });
  await expectState(page, 'ready');
  await expect(page.getByTestId('vantage-probe')).toHaveAttribute('data-state', 'offered', { timeout: 20_000 });
  await expect(page.getByTestId('vantage-offer')).toContainText('interface 0 and interface 1 carry the same TCP segments');
  await page.getByTestId('vantage-merge').click();
  await mergedReady(page);
  // Interface 0 is the client's capture (the first given to mergecap), interface 1 the server's.
  await expect(page.getByTestId('compare-side-a')).toContainText('twin-forward-loss-mergecap.interface-0.pcapng');
  await expect(page.getByTestId('compare-side-b')).toContainText('twin-forward-loss-mergecap.interface-1.pcapng');
  const pair = cli.pairs[0];
  await expect(field(page, 'matchedBy')).toHaveAttribute('data-value', pair.matchedBy);
  await expect(field(page, 'offset')).toHaveText(formatMs(pair.clock.offsetMs));
  await expect(field(page, 'offsetUncertainty')).toHaveText(formatMs(pair.clock.uncertaintyMs));
  for (const [k, d] of pair.directions.entries()) {
    await expect(page.locator(`[data-testid="twin-panel"] tr[data-direction="${k}"] [data-field="lostBetween"]`)).toHaveText(String(d.lostBetween));
    await expect(page.locator(`[data-testid="twin-panel"] tr[data-direction="${k}"] [data-field="delivered"]`)).toHaveText(d.delivered.toLocaleString('en-US'));
  }
  expect(pair.directions.map((d: { lostBetween: number }) => d.lostBetween)).toEqual([47, 0]);
});

test('a pcapng of one vantage point and a pcap are not offered a merge', async ({ page }) => {
  await open(page, 'pcapng-zero-window.pcapng');
  await expect(page.getByTestId('vantage-probe')).toHaveAttribute('data-state', 'not-offered', { timeout: 20_000 });
  await expect(page.getByTestId('vantage-offer')).toHaveCount(0);
  await open(page, 'healthy.pcap');
  // A pcap names no interface per packet: nothing is asked.
  await expect(page.getByTestId('vantage-probe')).toHaveCount(0);
  await expect(page.getByTestId('other-end')).toBeVisible();
});
