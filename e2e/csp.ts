// Every CSP violation a page reports, collected from the start of each document of a
// context (the `securitypolicyviolation` event), for the tests that assert none.
import type { BrowserContext, Page } from '@playwright/test';

export async function watchCsp(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
}

export const cspViolations = (page: Page) => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
