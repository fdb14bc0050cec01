// Browser memory bounds (issue 16 item 7): a gzip bomb — 8 GiB of zeros after a valid
// pcap header, ~8 MB compressed — is inflated as a stream in the worker and stopped at
// the ratio cap of wasm/src/inflate.rs with a one-line message, and the Chromium
// processes' memory (PSS over the whole tree: renderer, worker, GPU, utility) stays
// within 500 MB of what it was before the file was opened. Waits are on the app's
// state attribute, the memory is sampled every 50 ms meanwhile.
import { expect, test } from '@playwright/test';
import { treePss } from '../bench/pss.mjs';
import { writeGzipBomb } from './gzip-bomb';
import { expectState } from './state';

test('an 8 GiB gzip bomb stops at the cap with one line, and costs the page ≤ 500 MB', async ({ page }, testInfo) => {
  test.setTimeout(120_000); // the wait below allows 60 s for the inflate on a loaded machine
  // ~8 MB, written for the test (e2e/gzip-bomb.ts: a few ms; its 8 GiB exist only as a stream).
  const bomb = testInfo.outputPath('bomb-8gib.pcap.gz');
  writeGzipBomb(bomb, 8 * 2 ** 30);
  await page.goto('/');
  await expectState(page, 'idle');
  // The browser is a child of this test worker process: its tree is everything Chromium uses.
  const pss = () => treePss(process.pid, { includeRoot: false });
  const before = pss();
  let peak = before ?? 0;
  const sampler = setInterval(() => { peak = Math.max(peak, pss() ?? 0); }, 50);
  const started = Date.now();
  try {
    await page.getByTestId('file-input').setInputFiles(bomb);
    await expect(page.locator('.app')).toHaveAttribute('data-state', /ready|error/, { timeout: 60_000 });
  } finally {
    clearInterval(sampler);
  }
  const message = page.getByTestId('error');
  await expect(message).toContainText(/The gzip stream inflates more than 200:1 \(\d+ MiB from \d+ KiB compressed\)/);
  expect((await message.innerText()).split('\n').filter(Boolean)).toHaveLength(1);
  const seconds = (Date.now() - started) / 1000;
  testInfo.annotations.push({ type: 'memory', description: `PSS before ${Math.round((before ?? 0) / 2 ** 20)} MiB, peak ${Math.round(peak / 2 ** 20)} MiB; cap reached in ${seconds.toFixed(1)} s` });
  console.log(`gzip bomb: PSS before ${Math.round((before ?? 0) / 2 ** 20)} MiB, peak ${Math.round(peak / 2 ** 20)} MiB, ${seconds.toFixed(1)} s`);
  if (before != null) expect(peak - before).toBeLessThan(500 * 2 ** 20);
});
