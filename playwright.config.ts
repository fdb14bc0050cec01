import { defineConfig } from '@playwright/test';

// Debian's Chromium (apt `chromium`); `npx playwright install` cannot download here.
// TCPSCOPE_E2E_PORT: another port, so several checkouts can run their e2e at once
// (reuseExistingServer would otherwise test someone else's build on 4173).
const port = Number(process.env.TCPSCOPE_E2E_PORT ?? 4173);
export default defineConfig({
  testDir: './e2e',
  // e2e/firefox/ is the Firefox suite, run by node --test (puppeteer-core over BiDi).
  testIgnore: ['**/firefox/**'],
  reporter: 'list',
  // Two workers, every test on whichever is free (a file's tests too: share.spec.ts is a
  // third of the suite). One worker kept the two cores 83 % busy (the whole suite: 640
  // CPU-s in 385 s); two keep them busy (516 CPU-s in 266 s; issue 42, item 1). A file
  // whose tests depend on one another says so (test.describe.configure, progressive.spec.ts).
  workers: 2,
  fullyParallel: true,
  timeout: 60_000,
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.TCPSCOPE_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  webServer: {
    // scripts/test.sh builds dist/ first.
    command: `npx vite preview --host 127.0.0.1 --port ${port} --strictPort`,
    url: `http://127.0.0.1:${port}`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
