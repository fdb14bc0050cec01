// Save for Wireshark on the page (issue 42, item 6): the button saves the connection's
// packets (of the zoomed range when one is shown) as a pcapng, the very file
// `tcpscope slice` writes (both are wasm/src/slice.rs; cli/slice.test.mjs checks that
// tshark analyses it as the whole file's connection).
import { expect, test } from './warm';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { examples, tcpscope } from './cli';
import { expectState } from './state';

const CASES = [
  { file: 'loss-1pct.pcap', range: null },
  { file: 'pcapng-zero-window.pcapng', range: null },
  { file: 'stalls.pcap', range: [0.5, 1] },
] as const;

for (const c of CASES) {
  test(`Save for Wireshark: ${c.file}${c.range ? ` ${c.range.join('–')} s` : ''} is the file tcpscope slice writes`, async ({ page }) => {
    await page.goto(`/#ex=${c.file}${c.range ? `&t=${c.range.join(',')}` : ''}`);
    await expectState(page, 'ready');
    const connection = Number(await page.getByTestId('connection').getAttribute('data-connection'));
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('save-pcapng').click()]);
    const stem = c.file.replace(/\.[^.]+$/, '');
    expect(download.suggestedFilename()).toBe(`${stem}-connection-${connection}${c.range ? `-${c.range[0].toFixed(3)}s-${c.range[1].toFixed(3)}s` : ''}.pcapng`);
    const saved = readFileSync((await download.path())!);
    const out = join(mkdtempSync(join(tmpdir(), 'tcpscope-slice-')), 'cli.pcapng');
    tcpscope(['slice', `${examples}${c.file}`, '--connection', String(connection),
      ...(c.range ? ['--from', String(c.range[0]), '--to', String(c.range[1])] : []), '--out', out]);
    const expected = readFileSync(out);
    expect(saved.length).toBeGreaterThan(1000);
    expect(saved.equals(expected), `${saved.length} bytes saved, ${expected.length} from the CLI`).toBe(true);
    await expect(page.getByTestId('share-error')).toHaveCount(0);
  });
}

test('Save for Wireshark from a dropped file: the file itself is read again, in slices', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('file-input').first().setInputFiles(`${examples}sll2-any.pcap`);
  await expectState(page, 'ready');
  const connection = Number(await page.getByTestId('connection').getAttribute('data-connection'));
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('save-pcapng').click()]);
  const out = join(mkdtempSync(join(tmpdir(), 'tcpscope-slice-')), 'cli.pcapng');
  tcpscope(['slice', `${examples}sll2-any.pcap`, '--connection', String(connection), '--out', out]);
  expect(readFileSync((await download.path())!).equals(readFileSync(out))).toBe(true);
});

// The compare view's pair: of one capture, the file `tcpscope slice` writes with both
// --connection values (one pass, one section); of two captures, each side's own slice,
// the two joined as two pcapng sections (web/export/pcapng.ts slicePair).
test('Save pair for Wireshark: two connections of one capture, as tcpscope slice --connection A --connection B writes them', async ({ page }) => {
  const cli = (file: string, ids: number[], range: [number, number] | null = null) => {
    const out = join(mkdtempSync(join(tmpdir(), 'tcpscope-slice-')), 'cli.pcapng');
    tcpscope(['slice', `${examples}${file}`, ...ids.flatMap((id) => ['--connection', String(id)]),
      ...(range ? ['--from', String(range[0]), '--to', String(range[1])] : []), '--out', out]);
    return readFileSync(out);
  };
  await page.goto('/#ex=sll2-any.pcap&compare=0,1');
  await expect(page.getByTestId('compare')).toHaveAttribute('data-state', 'ready');
  const ids = (await page.getByTestId('compare').getAttribute('data-connections'))!.split(',').map(Number);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('compare-save-pcapng').click()]);
  expect(download.suggestedFilename()).toBe(`sll2-any-connection-${ids[0]}-vs-sll2-any-connection-${ids[1]}.pcapng`);
  const saved = readFileSync((await download.path())!);
  const expected = cli('sll2-any.pcap', ids);
  expect(saved.length).toBeGreaterThan(1000);
  expect(saved.equals(expected), `${saved.length} bytes saved, ${expected.length} from the CLI`).toBe(true);

  // Two captures: A's slice then B's, two sections.
  await page.goto('about:blank');
  await page.goto('/#ex=healthy.pcap&compare=1,1&compare-ex=rwnd-limited.pcap');
  await expect(page.getByTestId('compare')).toHaveAttribute('data-state', 'ready');
  const [a, b] = (await page.getByTestId('compare').getAttribute('data-connections'))!.split(',').map(Number);
  const [two] = await Promise.all([page.waitForEvent('download'), page.getByTestId('compare-save-pcapng').click()]);
  const joined = Buffer.concat([cli('healthy.pcap', [a]), cli('rwnd-limited.pcap', [b])]);
  expect(readFileSync((await two.path())!).equals(joined)).toBe(true);
  await expect(page.getByTestId('compare-share-message')).toHaveCount(0);
});
