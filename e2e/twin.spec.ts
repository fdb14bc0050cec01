// Two vantage points (issue 44): the two captures of a twin recording (the same transfer
// captured at each end through the link emulator, public/examples/twin-*.pcap and
// rx-rr-twin*.pcap) dropped on the page together open the compare view with the merged
// view above it: the panel's numbers are the CLI's `analyze A --other-end B --json`
// (the same engine under Node), formatted by web/model/format.mjs; both captures'
// time-sequence charts with the datagrams lost between marked; a one-way delay chart per
// direction; each stall placed. Dropped in the other order, the panel is the same.
import { expect, test, type Page } from '@playwright/test';
import { dropped } from './drop';
import { cliTwin } from './cli';
import { formatBytes, formatMs } from '../web/model/format.mjs';

async function dropTwo(page: Page, names: [string, string]) {
  await page.goto('/');
  await page.locator('.app').dispatchEvent('drop', { dataTransfer: await dropped(page, names) });
  await expect(page.getByTestId('compare')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('twin')).toHaveAttribute('data-state', 'ready');
}

const count = (n: number) => n.toLocaleString('en-US');
const field = (page: Page, scope: string, name: string) => page.locator(`${scope} [data-field="${name}"]`);

/** Every number of the panel equals the CLI's report of the same pair. */
async function expectPanelIsCli(page: Page, pair: ReturnType<typeof cliTwin>['pairs'][number]) {
  const panel = '[data-testid="twin-panel"]';
  await expect(field(page, panel, 'matchedBy')).toHaveAttribute('data-value', pair.matchedBy);
  await expect(field(page, panel, 'offset')).toHaveText(formatMs(pair.clock.offsetMs));
  await expect(field(page, panel, 'offsetUncertainty')).toHaveText(formatMs(pair.clock.uncertaintyMs));
  for (const [k, d] of pair.directions.entries()) {
    const row = `${panel} tr[data-direction="${k}"]`;
    for (const name of ['sent', 'delivered', 'lostBetween', 'reordered', 'duplicated', 'notSeenAtSenderSide', 'notSeenAtReceiverSide']) {
      await expect(field(page, row, name), `${name} of direction ${k}`).toHaveText(count(d[name]));
    }
    await expect(field(page, row, 'delayMedian')).toHaveText(formatMs(d.delay?.medianMs));
    await expect(field(page, row, 'delayP95')).toHaveText(formatMs(d.delay?.p95Ms));
  }
  await expect(field(page, panel, 'queued')).toHaveText(pair.queued === 'too-few-samples' ? 'too few samples to tell' : pair.queued);
  for (const [name, ms] of [['senderHost', pair.rttSplit.senderHostMs], ['forwardPath', pair.rttSplit.forwardPathMs], ['receiverHost', pair.rttSplit.receiverHostMs], ['returnPath', pair.rttSplit.returnPathMs]]) {
    await expect(field(page, panel, name as string)).toHaveText(formatMs(ms as number));
  }
  // Each path of the split printed with the clock's uncertainty beside it (the split is
  // good to that, not to the µs); the sender's SND.NXT − SND.UNA named for what it is.
  await expect(page.locator(`${panel} p`).filter({ hasText: 'Queued:' })).toContainText(`forward path ${formatMs(pair.rttSplit.forwardPathMs)} ± ${formatMs(pair.rttSplit.pathUncertaintyMs)}`);
  await expect(field(page, panel, 'pathUncertainty')).toHaveText(formatMs(pair.rttSplit.pathUncertaintyMs));
  if (pair.inFlight) {
    await expect(page.getByTestId('twin-in-flight')).toContainText('Sent, not yet acknowledged');
    await expect(field(page, panel, 'sentNotAcked')).toHaveText(formatBytes(pair.inFlight.senderMedianBytes));
  }
  // Each stall placed as the engine placed it, in its order.
  const places = await page.locator(`${panel} [data-testid="twin-stalls"] li`).evaluateAll((li) => li.map((e) => e.getAttribute('data-place')));
  expect(places).toEqual(pair.stalls.map((s: { place: string }) => s.place));
}

/** One one-way delay chart per direction, each with its bins drawn and its stalls as bands. */
async function expectDelayCharts(page: Page, pair: ReturnType<typeof cliTwin>['pairs'][number]) {
  const charts = page.locator('svg[data-chart="one-way-delay"]');
  await expect(charts).toHaveCount(2);
  for (const k of [0, 1]) {
    const chart = page.locator(`svg[data-chart="one-way-delay"][data-direction="${k}"]`);
    await expect(chart.locator('g.tcps-twin-delay')).toHaveAttribute('data-bins', String(pair.directions[k].delaySeries.length));
    await expect(chart.locator('rect.tcps-twin-stall')).toHaveCount(pair.stalls.filter((s: { direction: number }) => s.direction === k).length);
  }
}

/** Both captures' time-sequence charts drawn on the merged axis, each with its bins; the
 * segments lost between marked on both, per direction as many as the panel's and the
 * CLI's lostBetween: where they left (on the chart of the capture near that direction's
 * sender) and where they never arrived (on the other). */
async function expectSequenceCharts(page: Page, pair: ReturnType<typeof cliTwin>['pairs'][number]) {
  await expect(page.locator('svg[data-chart="twin-sequence"]')).toHaveCount(2);
  const chart = (capture: string) => page.locator(`svg[data-chart="twin-sequence"][data-capture="${capture}"]`);
  for (const [capture, side] of [['sender-side', pair.sequence.senderSide], ['receiver-side', pair.sequence.receiverSide]]) {
    await expect(chart(capture)).toHaveAttribute('data-state', 'ready');
    await expect(chart(capture).locator('path.tcps-segments:not(.tcps-twin-resent)')).toHaveAttribute('data-bins', String(side.bins.length));
  }
  for (const k of [0, 1]) {
    const lost = pair.directions[k].lostBetween;
    await expect(field(page, `[data-testid="twin-panel"] tr[data-direction="${k}"]`, 'lostBetween')).toHaveText(count(lost));
    const [leaving, arriving] = k === 0 ? ['sender-side', 'receiver-side'] : ['receiver-side', 'sender-side'];
    for (const [capture, seen] of [[leaving, 'here'], [arriving, 'absent']]) {
      const marks = chart(capture).locator(`path[data-kind="lost-between"][data-direction="${k}"][data-seen="${seen}"]`);
      if (lost === 0) await expect(marks).toHaveCount(0);
      else await expect(marks, `lost between, direction ${k}, ${seen} on the ${capture} chart`).toHaveAttribute('data-count', String(lost));
    }
  }
}

test('forward loss: the merged panel is the CLI\'s, lost between 47 / 0, in either drop order', async ({ page }) => {
  const cli = cliTwin('twin-forward-loss.pcap', 'twin-forward-loss-server.pcap');
  expect(cli.pairs.map((p: { directions: { lostBetween: number }[] }) => p.directions.map((d) => d.lostBetween))).toEqual([[47, 0]]);
  await dropTwo(page, ['twin-forward-loss.pcap', 'twin-forward-loss-server.pcap']);
  await expect(field(page, '[data-testid="twin"]', 'pairs')).toHaveText('1');
  await expectPanelIsCli(page, cli.pairs[0]);
  await expectDelayCharts(page, cli.pairs[0]);
  // twin-forward-loss: the emulator's 47 drops server → client, none back.
  await expectSequenceCharts(page, cli.pairs[0]);
  const first = await page.getByTestId('twin-panel').innerText();
  // Both sides' charts as the compare view draws them, below.
  await expect(page.locator('svg[data-chart="compare-throughput"]')).toHaveCount(1);

  await dropTwo(page, ['twin-forward-loss-server.pcap', 'twin-forward-loss.pcap']);
  await expectPanelIsCli(page, cli.pairs[0]);
  await expectSequenceCharts(page, cli.pairs[0]);
  expect(await page.getByTestId('twin-panel').innerText()).toBe(first);
});

test('request/response with losses: every stall placed as the engine placed it', async ({ page }) => {
  const cli = cliTwin('rx-rr-twin.pcap', 'rx-rr-twin-server.pcap');
  expect(cli.pairs).toHaveLength(1);
  expect(cli.pairs[0].stalls.length).toBeGreaterThan(0);
  await dropTwo(page, ['rx-rr-twin-server.pcap', 'rx-rr-twin.pcap']);
  await expectPanelIsCli(page, cli.pairs[0]);
  await expectDelayCharts(page, cli.pairs[0]);
  await expectSequenceCharts(page, cli.pairs[0]);
  const placed = page.locator('[data-testid="twin-stalls"] li');
  // Each place in words as the engine placed it: here every stall in the network (the
  // answers' timeouts; the client's gaps between requests, its 20 ms think time against
  // exchanges of 22–312 ms: wasm/tests/twin_placement.rs).
  const network = cli.pairs[0].stalls.filter((s: { place: string }) => s.place === 'network').length;
  expect(network).toBeGreaterThan(0);
  await expect(placed.filter({ hasText: 'in the network' })).toHaveCount(network);
  // A stall of the return direction names the capture by that direction: the pair's
  // sender-side capture is near the return direction's receiver.
  const ret = cli.pairs[0].stalls.findIndex((s: { direction: number; capture: string }) => s.direction === 1 && s.capture === 'sender-side');
  if (ret >= 0) await expect(placed.nth(ret)).toContainText('return, at the capture near its receiver');
  // The heading counts a gap both captures listed once (docs/ANALYSIS.md
  // `twin.distinctStalls`): the engine's 106 of the 210 rows, as the CLI's summary.
  await expect(page.locator('[data-testid="twin-panel"] [data-field="stallCount"]')).toHaveText(String(cli.pairs[0].distinctStalls.length));
  expect(cli.pairs[0].distinctStalls.length).toBeLessThan(cli.pairs[0].stalls.length);
  await expect(page.getByTestId('twin-stalls-once')).toContainText(`${cli.pairs[0].stalls.length} rows of the two captures' reports below, ${cli.pairs[0].distinctStalls.length} gaps`);
});

test('pauses below the stall threshold: the panel names both thresholds', async ({ page }) => {
  const cli = cliTwin('twin-sender-pause.pcap', 'twin-sender-pause-server.pcap');
  expect(cli.pairs[0].stalls).toHaveLength(0);
  await dropTwo(page, ['twin-sender-pause.pcap', 'twin-sender-pause-server.pcap']);
  const [sender, receiver] = cli.pairs[0].stallThresholdMs;
  await expect(page.getByTestId('twin-no-stall')).toContainText(`No gap in either capture reached its stall threshold (sender side ${formatMs(sender)}, receiver side ${formatMs(receiver)})`);
});

test('two unrelated captures: the compare view alone, and one line says why', async ({ page }) => {
  await page.goto('/');
  await page.locator('.app').dispatchEvent('drop', { dataTransfer: await dropped(page, ['healthy.pcap', 'twin-forward-loss.pcap']) });
  await expect(page.getByTestId('compare')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('twin')).toHaveAttribute('data-state', 'refused');
  await expect(page.getByTestId('twin-refusal')).toHaveAttribute('data-kind', 'no-match');
  await expect(page.getByTestId('twin-panel')).toHaveCount(0);
});
