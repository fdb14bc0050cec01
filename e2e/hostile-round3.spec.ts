// Hostile input, round three (issue 45), in the page and the embed, as an attacker would
// do it: a sibling iframe from a third origin posting its own data into the embed, a
// process name with a right-to-left override, a 60,000-character name in a link, an
// unknown chart id. Each failed on main (5d30630).
import { expect, test } from './warm';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedElsewhere } from './elsewhere';
import { expectState } from './state';
import { tcpscope } from './cli';

const root = fileURLToPath(new URL('..', import.meta.url));
const link = (capture: string, connection: number) =>
  tcpscope(['share', join(root, 'public', 'examples', capture), '--connection', String(connection)]).trim();
const snapOf = (l: string) => new URLSearchParams(l.split('#')[1]).get('snap')!;

test('2. a sibling iframe from a third origin cannot take over the embed', async ({ page, baseURL }) => {
  const own = snapOf(link('rwnd-limited.pcap', 1));
  const attacker = snapOf(link('stalls.pcap', 0));
  // The ad: another origin than the blog's (localhost vs 127.0.0.1) and than tcpscope's.
  const ad = (await servedElsewhere(`<!doctype html><script>
    const bytes = Uint8Array.from(atob('${Buffer.from(attacker, 'base64url').toString('base64')}'), (c) => c.charCodeAt(0));
    const post = () => parent.frames[0].postMessage({ tcpscope: { snapshot: bytes, title: 'Official results (verified)' } }, '*');
    setInterval(post, 200);
  </script>`)).replace('127.0.0.1', 'localhost');
  const blog = await servedElsewhere(`<!doctype html><body>
    <iframe id="e" src="${baseURL}/embed.html#c=1&snap=${own}" width="900" height="420"></iframe>
    <iframe src="${ad}" width="300" height="100"></iframe></body>`);
  await page.goto(blog);
  const embed = page.frameLocator('#e');
  await expect(embed.locator('.embed')).toHaveAttribute('data-state', 'ready');
  // Give the ad's messages (every 200 ms) time to arrive; the embed must not change.
  await page.waitForTimeout(1000);
  await expect(embed.getByTestId('embed-title')).not.toContainText('Official results');
  await expect(embed.getByTestId('embed-title')).toContainText('connection 1');
  await expect(embed.getByTestId('open-in-tcpscope')).toBeVisible();
});

test('11. an unknown chart id in the embed: the default charts, and a notice', async ({ page }) => {
  const snap = snapOf(link('rwnd-limited.pcap', 1));
  await page.goto(`/embed.html#c=1&charts=zzz&snap=${snap}`);
  await expectState(page, 'ready', { root: '.embed' });
  expect(await page.locator('svg[data-chart]').count()).toBeGreaterThan(0);
  await expect(page.getByTestId('refused')).toContainText('unknown chart zzz dropped; showing the default charts');
});

test('12. a right-to-left override in a process name is shown escaped; a 60,000-character name does not widen the page', async ({ page }) => {
  // e2e/fixtures/pktap-processes.pcap with Safari's 20-byte command field rewritten:
  // U+202E (RLO) then "gnp.exe" — shown raw, it reads "exe.png".
  const bytes = readFileSync(join(root, 'e2e', 'fixtures', 'pktap-processes.pcap'));
  const field = Buffer.alloc(20);
  field.write('Safari', 'latin1');
  const hostile = Buffer.alloc(20);
  Buffer.concat([Buffer.from([0xe2, 0x80, 0xae]), Buffer.from('gnp.exe', 'latin1')]).copy(hostile);
  for (let i = bytes.indexOf(field); i >= 0; i = bytes.indexOf(field, i + 1)) hostile.copy(bytes, i);
  const dir = mkdtempSync(join(tmpdir(), 'tcpscope-e2e-'));
  const path = join(dir, 'rlo.pcap');
  writeFileSync(path, bytes);
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(path);
  await expectState(page, 'ready');
  const tag = page.getByTestId('process').first();
  await expect(tag).toHaveText('\\u{202E}gnp.exe (pid 512)');
  expect(await tag.innerHTML()).toContain('<bdi>');

  // A link naming a 60,000-character local file for the compare view.
  await page.goto(`/#ex=rwnd-limited.pcap&compare=1,1&compare-file=${'W'.repeat(60_000)}`);
  await expectState(page, 'ready');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  const viewport = page.viewportSize()!.width;
  expect(width).toBeLessThanOrEqual(viewport + 2);
});
