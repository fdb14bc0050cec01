// Waiting for a page's data-state (the app root's, the embed's) without the back-off of
// Playwright's assertions: `expect(locator).toHaveAttribute` retries after 0, 20, 50,
// 100, 100 ms and then every 500 ms, so a state reached at 1.0 s is seen at 1.27 s, on
// average a quarter of a second late for each wait longer than 0.27 s (issue 42, item 1:
// a few hundred such waits in the suite). Here the page checks on every animation frame
// and answers as soon as the condition holds; the assertion after it is the same as
// before (it passes at once, or fails with Playwright's own message), and the whole wait
// is no longer than the assertion's own timeout.
import { expect, type Page } from '@playwright/test';

/** Playwright's default assertion timeout (playwright.config.ts sets none). */
const EXPECT_TIMEOUT = 5_000;

/**
 * Resolves once `predicate(arg)` is true in the page (checked each animation frame), or
 * after `timeout` ms without saying so: the caller's assertion then reports what it saw.
 * Returns the ms left of `timeout`, for that assertion.
 */
export async function untilInPage<A>(page: Page, predicate: (arg: A) => boolean, arg: A, timeout = EXPECT_TIMEOUT): Promise<number> {
  const started = Date.now();
  await page.waitForFunction(predicate as (arg: unknown) => boolean, arg as unknown, { polling: 'raf', timeout }).catch(() => undefined);
  return Math.max(1, timeout - (Date.now() - started));
}

/**
 * Waits until `root` (the app root by default) has data-state="`state`", then asserts it.
 * `timeout` bounds the whole wait as `toHaveAttribute`'s own timeout did.
 */
export async function expectState(page: Page, state: string, options: { root?: string; timeout?: number; message?: string } = {}) {
  const { root = '.app', timeout = EXPECT_TIMEOUT, message } = options;
  const left = await untilInPage(page, ([selector, wanted]: readonly [string, string]) => document.querySelector(selector)?.getAttribute('data-state') === wanted, [root, state] as const, timeout);
  await expect(page.locator(root), message).toHaveAttribute('data-state', state, { timeout: left });
}
