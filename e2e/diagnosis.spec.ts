// One story on the page (issue 13, "Done when"): on the receiver-side fixture and on the
// unknown-window-scale fixture, the bandwidth-delay calculator starts from exactly the
// numbers the diagnosis headline used (diagnosis.evidence: path RTT, effective window,
// link estimate or sustained rate) and, untouched, gives the headline's verdict; the
// page says where the capture was taken. The numbers are read from the page (data
// attributes of the diagnosis panel and of the calculator) and cross-checked against
// the CLI's JSON for the same capture (the same wasm module, under Node). Every wait is
// on the app root's data-state, never a sleep.
//
// FIXTURES: public/examples/rx-bulk.pcap (a bulk transfer captured at the receiver,
// linkemu CAPNS=pv_b) and public/examples/no-handshake.pcap (the handshake cut off, so
// the window scale is unknown; scripts/fixtures/transform.py), see
// public/examples/README.md.
import { expect, test, type Locator, type Page } from './warm';
import { cliReport as cli, examples } from './cli';
import { existsSync } from 'node:fs';
import { formatBytes, formatMs } from '../web/model/format.mjs';
import { expectState } from './state';

/** The verdict the calculator may give for each headline limit. */
const VERDICT_FOR_LIMIT: Record<string, string> = {
  'receive-window': 'window',
  'zero-window': 'window',
  path: 'link',
  loss: 'loss',
  application: 'application',
  stalls: 'stalls',
  'too-short': 'unknown',
  'one-direction': 'unknown',
};
/** The words of each verdict (web/components/BdpCalculator.tsx VERDICT_TEXT). */
const VERDICT_WORDS: Record<string, string> = {
  window: 'the window is the limit',
  link: 'the link is the limit',
  loss: 'packet loss is the limit',
  application: 'the sending application is the limit',
  stalls: 'stalls are the limit',
  unknown: 'cannot tell what the limit is',
};

async function openExample(page: Page, file: string) {
  expect(existsSync(`${examples}${file}`), `fixture public/examples/${file} is recorded (issue 13 item 8)`).toBe(true);
  await page.goto(`/#ex=${encodeURIComponent(file)}`);
  await expectState(page, 'ready');
  await expect(page.getByTestId('diagnosis')).toBeVisible();
}

const numberAttr = async (el: Locator, name: string): Promise<number | null> => {
  const v = await el.getAttribute(name);
  return v === null ? null : Number(v);
};

/** Input values are the seed rounded to 4 significant digits (BdpCalculator seedText). */
function expectRounded(inputValue: string, exact: number, unit: number) {
  expect(inputValue).not.toBe('');
  expect(Math.abs(Number(inputValue) * unit - exact)).toBeLessThanOrEqual(Math.abs(exact) * 5e-4);
}

interface Headline {
  connection: number; limit: string; verdict: string; text: string;
  rttMs: number | null; windowBytes: number | null; windowInferred: boolean; rateBps: number | null; linkBps: number | null;
}

async function headline(page: Page): Promise<Headline> {
  const diag = page.getByTestId('diagnosis');
  await expect(diag).toHaveAttribute('data-verdict', /.+/); // the report carries diagnosis.evidence
  return {
    connection: Number(await page.getByTestId('connection').getAttribute('data-connection')),
    limit: (await diag.getAttribute('data-limit'))!,
    verdict: (await diag.getAttribute('data-verdict'))!,
    text: (await page.getByTestId('diagnosis-text').textContent()) ?? '',
    rttMs: await numberAttr(diag, 'data-rtt-ms'),
    windowBytes: await numberAttr(diag, 'data-window-bytes'),
    windowInferred: (await diag.getAttribute('data-window-inferred')) === 'true',
    rateBps: await numberAttr(diag, 'data-rate-bps'),
    linkBps: await numberAttr(diag, 'data-link-bps'),
  };
}

/** The calculator's seeded inputs and verdict equal the headline's numbers and verdict. */
async function expectCalculatorMatches(page: Page, h: Headline) {
  const calc = page.getByTestId('bdp-calculator');
  const link = h.linkBps ?? h.rateBps;
  // The exact seeds.
  expect(await numberAttr(calc, 'data-seed-rtt-ms')).toBe(h.rttMs);
  expect(await numberAttr(calc, 'data-seed-window-bytes')).toBe(h.windowBytes);
  expect(await numberAttr(calc, 'data-seed-link-bps')).toBe(link);
  // What the inputs show.
  if (h.rttMs !== null) expectRounded(await page.getByTestId('bdp-rtt').inputValue(), h.rttMs, 1);
  else await expect(page.getByTestId('bdp-rtt-hint')).toHaveText('no path RTT could be measured');
  if (h.windowBytes !== null) expectRounded(await page.getByTestId('bdp-window').inputValue(), h.windowBytes, 1024);
  if (link !== null) expectRounded(await page.getByTestId('bdp-link').inputValue(), link, 1e6);
  if (h.linkBps === null && link !== null) await expect(page.getByTestId('bdp-link-hint')).toContainText("sustained rate (the window hides the link's capacity)");
  if (h.windowInferred) await expect(page.getByTestId('bdp-window-hint')).toContainText('(window scale unknown)');
  // Untouched, the calculator's verdict is the headline's, in words that match it.
  const verdict = page.getByTestId('bdp-verdict');
  await expect(verdict).toHaveAttribute('data-source', 'diagnosis');
  await expect(verdict).toHaveAttribute('data-verdict', h.verdict);
  await expect(verdict).toContainText(VERDICT_WORDS[h.verdict]);
  expect(VERDICT_FOR_LIMIT[h.limit], `headline limit ${h.limit} and verdict ${h.verdict} tell the same story`).toBe(h.verdict);
  // A window-limited headline quotes the window and the RTT the calculator starts from.
  if (h.verdict === 'window' && h.windowBytes !== null && h.rttMs !== null) {
    expect(h.text).toContain(formatBytes(h.windowBytes));
    expect(h.text).toContain(formatMs(h.rttMs));
  }
  // Never the peak bin.
  const peakText = await page.getByTestId('rates').textContent();
  expect(peakText).toContain("mean over the connection's duration");
}

/** The page's numbers are the report's (CLI JSON of the same capture). */
function expectReport(file: string, h: Headline) {
  const conn = cli(file).connections.find((c: { id: number }) => c.id === h.connection);
  expect(conn, `connection ${h.connection} in the CLI report`).toBeTruthy();
  const e = conn.diagnosis.evidence;
  expect({ rttMs: e.rttMs, windowBytes: e.windowBytes, windowInferred: e.windowInferred, rateBps: e.rateBps, linkBps: e.linkRateBps, verdict: e.verdict })
    .toEqual({ rttMs: h.rttMs, windowBytes: h.windowBytes, windowInferred: h.windowInferred, rateBps: h.rateBps, linkBps: h.linkBps, verdict: h.verdict });
  expect(e.rttMs).toBe(conn.pathRttMs);
  return conn;
}

test('receiver-side capture: captured at the receiver, and the calculator starts from the headline\'s numbers', async ({ page }) => {
  await openExample(page, 'rx-bulk.pcap');
  const h = await headline(page);
  // Where the capture was taken, said on the page.
  await expect(page.getByTestId('diagnosis')).toHaveAttribute('data-vantage', 'receiver');
  await expect(page.getByTestId('vantage')).toContainText('receiver');
  // The path RTT, not the receiver's local ACK delay (which is well under 1 ms here).
  expect(h.rttMs).not.toBeNull();
  expect(h.rttMs!).toBeGreaterThan(1);
  await expect(page.getByTestId('path-rtt')).toHaveText(formatMs(h.rttMs));
  await expectCalculatorMatches(page, h);
  const conn = expectReport('rx-bulk.pcap', h);
  expect(conn.vantage).toBe('receiver');
});

test('unknown window scale: the calculator uses the inferred lower bound the headline used', async ({ page }) => {
  await openExample(page, 'no-handshake.pcap');
  const h = await headline(page);
  expect(h.windowInferred).toBe(true);
  expect(h.windowBytes).not.toBeNull();
  await expectCalculatorMatches(page, h);
  expectReport('no-handshake.pcap', h);
});

test('edited, the calculator recomputes its verdict from its inputs', async ({ page }) => {
  await openExample(page, 'rx-bulk.pcap');
  const h = await headline(page);
  test.skip(h.rttMs === null, 'no path RTT in this capture');
  // A window far above the link's BDP: the link is the limit; far below: the window.
  await page.getByTestId('bdp-window').fill('1048576');
  await expect(page.getByTestId('bdp-verdict')).toHaveAttribute('data-source', 'inputs');
  await expect(page.getByTestId('bdp-verdict')).toHaveAttribute('data-verdict', 'link');
  await page.getByTestId('bdp-window').fill('0.001');
  await expect(page.getByTestId('bdp-verdict')).toHaveAttribute('data-verdict', 'window');
});

test('a server capture with TSO shows the kernel\'s segment counts beside the frames', async ({ page }) => {
  // tso-loss.pcap: 77 retransmitted frames hold 1254 segments; the sender's kernel
  // counted TcpRetransSegs 1254, TCPFastRetrans 1242, TCPSlowStartRetrans 11
  // (wasm/tests/examples-truth/tso-loss.json).
  await openExample(page, 'tso-loss.pcap');
  const row = page.getByTestId('direction-stats').locator('tr', { hasText: 'Retransmitted segments' });
  await expect(row).toContainText('1254 (1242, 11)');
  await expect(page.getByTestId('diagnosis-text')).toContainText('1254 segments, re-sent in 77 of 2949 data frames');
});

test('a client capture without timestamps says the queue beyond it cannot show', async ({ page }) => {
  // rx-bufferbloat-nots.pcap: the sender waited a median 84 ms behind the queue, but
  // nothing at the client times that part of the round trip (rtt.followedSamples 0).
  await openExample(page, 'rx-bufferbloat-nots.pcap');
  await expect(page.getByTestId('diagnosis')).toHaveAttribute('data-vantage', 'receiver');
  await expect(page.getByTestId('diagnosis-text')).toContainText('a queue on the sender\'s side would not show in these RTTs');
  await expect(page.getByTestId('rtt-stats')).toContainText('known only by its minimum');
});

test('a client capture of a lost last segment shows the datagram the sender\'s numbering skipped', async ({ page }) => {
  // rx-tail-loss.pcap: the FIN segment was dropped before the client; its re-send came
  // 242 ms later as if new. The server's IPv4 Identification skipped one number
  // (docs/ANALYSIS.md `direction.unseenDatagrams`), so the gap is a timeout, not an
  // idle server (wasm/tests/examples-truth/rx-tail-loss.json: TCPLossProbes 1).
  await openExample(page, 'rx-tail-loss.pcap');
  const row = page.getByTestId('direction-stats').locator('tr', { hasText: 'Sent, not captured' });
  // Direction 0 is the client (its request and ACKs, nothing skipped), 1 the server.
  await expect(row.locator('td')).toHaveText(['0', '1']);
  await expect(page.getByTestId('diagnosis-text')).toContainText('Loss cost 47 % of the time (242 ms of it waiting on 1 tail loss probe)');
});

test('at desktop width the per-direction table of an IPv6 connection shows both columns without a sideways scroll', async ({ page }) => {
  // Held to 900 px, the table of an IPv6 connection (two long [address]:port headers)
  // put its data column, the one the diagnosis is about, behind a sideways scroll.
  await page.setViewportSize({ width: 1400, height: 1000 });
  await openExample(page, 'ipv6-bulk.pcap');
  const region = page.getByRole('region', { name: 'Per direction' });
  expect(await region.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  const data = page.getByTestId('direction-stats').locator('th.data-dir');
  await expect(data).toContainText('(data)');
  const [box, regionBox] = [(await data.boundingBox())!, (await region.boundingBox())!];
  expect(box.x + box.width).toBeLessThanOrEqual(regionBox.x + regionBox.width + 0.5);
});
