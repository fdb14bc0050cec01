// The README's picture (docs/screenshot.png): the page on rwnd-limited.pcap at 1280 px
// wide, the upload connection, once its charts are drawn (data-state="ready"). Needs a
// built app (`npx vite build`); serves dist/ itself on a free port.
//   node scripts/screenshot.mjs [OUT]      default docs/screenshot.png
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] ?? `${root}docs/screenshot.png`;
const port = 4890 + Math.floor(Math.random() * 100);
const server = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], { cwd: root, stdio: 'ignore' });
try {
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (await fetch(base).then((r) => r.ok, () => false)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const browser = await chromium.launch({ executablePath: process.env.TCPSCOPE_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
  // rwnd-limited.pcap: connection 1 is the 7.60 MB upload (connection 0 iperf3's control).
  await page.goto(`${base}/#ex=rwnd-limited.pcap&c=1`);
  await page.locator('.app[data-state="ready"]').waitFor({ timeout: 60_000 });
  await page.screenshot({ path: out });
  await browser.close();
  console.log(`wrote ${out}`);
} finally {
  server.kill();
}
