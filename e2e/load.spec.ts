// Loading captures in a real Chromium: file input, drag and drop, an example link,
// and bad input. Every wait is on the app root's data-state, never a sleep.
import { expect, test } from './warm';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expectState } from './state';

const examplesDir = fileURLToPath(new URL('../public/examples/', import.meta.url));
const examples: { file: string; title: string }[] = JSON.parse(readFileSync(`${examplesDir}index.json`, 'utf8'));
const firstExample = examples[0].file;

test('a capture chosen with the file input is decoded in the worker and its connections listed', async ({ page }) => {
  await page.goto('/');
  await expectState(page, 'idle');
  await page.getByTestId('file-input').setInputFiles(`${examplesDir}${firstExample}`);
  await expectState(page, 'ready');
  const rows = page.getByTestId('connections').locator('tbody tr');
  expect(await rows.count()).toBeGreaterThanOrEqual(1);
  // The largest connection is selected and its numbers are shown.
  await expect(page.getByTestId('connection')).toBeVisible();
  await expect(page.getByTestId('capture')).toContainText(firstExample);
});

test('a capture dropped on the page is decoded', async ({ page }) => {
  await page.goto('/');
  // The bytes cross evaluate() as base64: as a list of numbers, the 0.9 MB capture took
  // seconds to serialise.
  const base64 = readFileSync(`${examplesDir}${firstExample}`).toString('base64');
  const dataTransfer = await page.evaluateHandle(([b64, name]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
    return dt;
  }, [base64, firstExample] as const);
  await page.getByTestId('drop').dispatchEvent('dragover', { dataTransfer });
  await page.getByTestId('drop').dispatchEvent('drop', { dataTransfer });
  await expectState(page, 'ready');
  await expect(page.getByTestId('connections').locator('tbody tr').first()).toBeVisible();
});

test('an example opens from the list and the permalink names it', async ({ page }) => {
  await page.goto('/');
  await page.locator(`[data-example="${firstExample}"]`).click();
  await expectState(page, 'ready');
  await expect.poll(() => new URL(page.url()).hash).toContain(`ex=${firstExample}`);
  // Reloading the permalink restores the same capture.
  await page.reload();
  await expectState(page, 'ready');
  await expect(page.getByTestId('capture')).toContainText(firstExample);
});

test('an address edited by hand is followed: another example opens, another connection is shown, a bad key is refused', async ({ page }) => {
  // healthy.pcap has two connections (#0 the control connection, #1 the bulk one).
  await page.goto('/#ex=healthy.pcap');
  await expectState(page, 'ready');
  await expect(page.getByTestId('connection')).toHaveAttribute('data-connection', '1');
  // A view change on the same capture: no reload, another connection.
  await page.evaluate(() => { window.location.hash = '#ex=healthy.pcap&c=0'; });
  await expect(page.getByTestId('connection')).toHaveAttribute('data-connection', '0');
  // Another capture: it is opened (as a page load with that address would).
  await page.evaluate(() => { window.location.hash = '#ex=stalls.pcap&bin=oops'; });
  await expect(page.getByTestId('capture')).toContainText('stalls.pcap');
  await expectState(page, 'ready');
  await expect(page.getByTestId('refused')).toContainText('#bin=oops was ignored');
});

test('a file that is not a capture gives a readable error, not a blank page', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles({
    name: 'notes.pcap', mimeType: 'application/octet-stream', buffer: Buffer.from('<!doctype html><p>not a capture</p>'),
  });
  await expectState(page, 'error');
  await expect(page.getByTestId('error')).toContainText('notes.pcap');
  await expect(page.getByTestId('error')).toContainText(/pcap/i);
  // The page still works: another file can be opened.
  await page.getByTestId('file-input').setInputFiles(`${examplesDir}${firstExample}`);
  await expectState(page, 'ready');
});
