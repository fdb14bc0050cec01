// One browser context per worker for the tests that ask nothing of their context but
// pages (issue 42, item 1). Playwright's `page` fixture opens a new context for every
// test, and the first page load in a new context took ~3.1 CPU-s in a Chromium trace (a
// new renderer process, the app's JavaScript compiled without a code cache) against ~1.9
// for a new page in a context that had loaded the app (a11y, charts, load, diagnosis:
// 105 CPU-s before, 90 after, means of 4 runs each).
// Each test still gets a page of its own, opened for it and closed after it (its
// viewport set from the `viewport` option, as test.use gives it), and every page
// it opens in the context is closed after it too. What the pages share is what one
// browser profile keeps between visits: the HTTP cache, the service worker and its
// cache of the app's files (never a capture: security.spec.ts). A test that adds to
// its context (init scripts, request listeners, offline, routes) or needs a first
// visit takes Playwright's own `test`, with a context of its own.
import { test as base, type BrowserContext } from '@playwright/test';

export { expect, type Browser, type Locator, type Page, type TestInfo } from '@playwright/test';

export const test = base.extend<object, { warmContext: BrowserContext }>({
  warmContext: [async ({ browser }, use, workerInfo) => {
    const { baseURL } = workerInfo.project.use;
    const context = await browser.newContext({ baseURL });
    await use(context);
    await context.close();
  }, { scope: 'worker' }],
  context: async ({ warmContext }, use) => {
    await use(warmContext);
  },
  page: async ({ warmContext, viewport }, use) => {
    const page = await warmContext.newPage();
    if (viewport) await page.setViewportSize(viewport);
    await use(page);
    // The test's pages, this one and any it opened, close with it.
    await Promise.all(warmContext.pages().map((p) => p.close()));
  },
});
