import { defineConfig } from '@playwright/test';
import { fileURLToPath } from 'node:url';

// Debian's Chromium (apt `chromium-headless-shell`, else `chromium`: e2e/chromium.sh); `npx playwright install` cannot download here.
// TCPSCOPE_E2E_PORT: another port, so several checkouts can run their e2e at once
// (reuseExistingServer would otherwise test someone else's build on 4173).
const port = Number(process.env.TCPSCOPE_E2E_PORT ?? 4173);
export default defineConfig({
  testDir: './e2e',
  // e2e/firefox/ is the Firefox suite, run by node --test (puppeteer-core over BiDi).
  testIgnore: ['**/firefox/**'],
  reporter: 'list',
  // Two workers, every test on whichever is free (a file's tests too: share.spec.ts is a
  // fifth of the suite). One worker kept the two cores 83 % busy (the whole suite: 640
  // CPU-s in 385 s); two keep them busy (516 CPU-s in 266 s; issue 42, item 1). With the
  // browser flags below and cheaper share and CLI steps, the whole suite took 331 CPU-s
  // where 8b36a4b took 591 (cgroup CPU of everything it started, both on the same loaded
  // machine: 317 s and 505 s). A file whose tests depend on one another says so
  // (test.describe.configure, progressive.spec.ts).
  workers: 2,
  fullyParallel: true,
  timeout: 60_000,
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: 'chromium',
    launchOptions: {
      // Debian's chromium-headless-shell or chromium (or $TCPSCOPE_CHROMIUM) through e2e/chromium.sh, which joins our
      // --disable-features to Playwright's (Chromium keeps only the last one given).
      executablePath: fileURLToPath(new URL('./e2e/chromium.sh', import.meta.url)),
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run',
        // A new page is a new window, and new windows started renderers for the omnibox
        // popup's WebUI (chrome://omnibox-popup.top-chrome) in a headless browser that
        // never shows an omnibox: 4.9 of the 22 CPU-s ten new pages with an example took
        // (issue 42, item 1; with this, 13.6 CPU-s).
        '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup',
        // Wasm compiled by V8's baseline compiler (Liftoff) only, never by TurboFan: each
        // new document's decoder compiled its hot functions again (the engine's warm-up,
        // wasm/src/warm_up.rs, makes it do so at once), which the suite's small captures
        // never paid back: ten page loads of examples 13.4 → 8.1 CPU-s, and the longest
        // loads (progressive.spec's 10⁷ packets, url-stream.spec's 2 GiB, the gzip bomb,
        // 10⁵ connections) 71 CPU-s either way. The same module, the same results.
        '--js-flags=--liftoff-only'],
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
