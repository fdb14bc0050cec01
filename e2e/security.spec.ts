// Security policy, service worker and refusals (issue 18, items 1–3): the headers
// `vite preview` sends (defined once in web/security/policy.ts), zero CSP violations
// on the app with a capture, a shared view and the embed; only embed.html can be
// framed; the service worker keeps the app shell and never a capture; a link the
// page will not follow says why in one line. Waits are on data-state, never sleeps.
import { test as isolatedTest } from '@playwright/test';
import { expect, test } from './warm';
import { cspViolations, watchCsp } from './csp';
import { servedElsewhere } from './elsewhere';
import { expectState } from './state';

const directives = (csp: string) => new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v] as const));

test('every response carries the security headers; only the embed page may be framed', async ({ request, page }) => {
  await page.goto('/');
  const worker = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).find((n) => /\/assets\/.*\.js$/.test(n)));
  for (const [path, ancestors] of [['/', "'none'"], ['/index.html', "'none'"], ['/embed.html', '*'], ['/sw.js', "'none'"], [new URL(worker!).pathname, "'none'"]] as const) {
    const response = await request.get(path);
    expect(response.status(), path).toBe(200);
    const headers = response.headers();
    const csp = directives(headers['content-security-policy'] ?? '');
    expect(csp.get('frame-ancestors'), path).toEqual([ancestors]);
    expect(csp.get('script-src'), path).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(csp.get('worker-src'), path).toEqual(["'self'"]);
    expect(csp.get('connect-src'), path).toEqual(["'self'", 'https:']);
    expect(headers['content-security-policy'], path).not.toMatch(/'unsafe-inline'|'unsafe-eval'/);
    expect(headers['x-content-type-options'], path).toBe('nosniff');
  }
});

// A context of its own (warm.ts): what a first load from the server logs.
isolatedTest('Chromium understands every header: nothing logged about them on a load with a capture', async ({ page }) => {
  const logged: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') logged.push(m.text()); });
  await page.goto('/#ex=healthy.pcap');
  await expectState(page, 'ready');
  // Was "Error with Permissions-Policy header: Unrecognized feature: 'bluetooth'."
  expect(logged.filter((t) => /Permissions-Policy|Content-Security-Policy|header/i.test(t))).toEqual([]);
});

test('another site can frame embed.html but not the app', async ({ page, baseURL }) => {
  await page.goto(await servedElsewhere(`<!doctype html><title>blog</title>
    <iframe id="app" src="${baseURL}/" width="600" height="300"></iframe>
    <iframe id="embed" src="${baseURL}/embed.html#ex=healthy.pcap" width="600" height="300"></iframe>`));
  const embed = page.frameLocator('#embed');
  await expect(embed.locator('.embed')).toHaveAttribute('data-state', 'ready');
  // frame-ancestors 'none': the app's document is replaced by an error page, so its root never exists.
  const appFrame = page.frames().find((f) => f.url().startsWith(baseURL!) && !f.url().includes('embed'));
  expect(await appFrame?.locator('.app').count() ?? 0).toBe(0);
});

// A context of its own (warm.ts): an init script on its context collects CSP reports.
isolatedTest('zero CSP violations: the app with a capture, a shared view, the embed', async ({ page, context }) => {
  await watchCsp(context);
  await page.goto('/#ex=rwnd-limited.pcap');
  await expectState(page, 'ready');
  await expect(page.locator('[data-chart]').first()).toBeVisible();
  expect(await cspViolations(page)).toEqual([]);
  // A small connection, so that the view fits in a link.
  await page.goto('/#ex=rx-zero-window-dead.pcap');
  await page.reload();
  await expectState(page, 'ready');
  await page.getByTestId('share').click();
  const link = await page.getByTestId('share-url').inputValue();
  const shared = await context.newPage();
  await shared.goto(link);
  await expectState(shared, 'ready');
  expect(await cspViolations(shared)).toEqual([]);
  await page.goto('/embed.html#ex=healthy.pcap');
  await expectState(page, 'ready', { root: '.embed' });
  expect(await cspViolations(page)).toEqual([]);
});

// A context of its own (warm.ts): a first visit, and everything its service worker cached.
isolatedTest('the service worker keeps the app shell, never a capture', async ({ page }) => {
  await page.goto('/');
  await expectState(page, 'idle');
  const registered = await page.evaluate(async () => Boolean(await navigator.serviceWorker?.getRegistration()));
  test.skip(!registered, 'no service worker registered (web/main.tsx imports ./sw-register)');
  await expect(page.locator('html')).toHaveAttribute('data-offline', 'ready');
  // An example (same origin) and a capture named by #url= (same origin, so http: is allowed).
  await page.goto('/#ex=healthy.pcap');
  await page.reload(); // a new fragment alone does not reload the page
  await expectState(page, 'ready');
  await page.goto(`/#url=${encodeURIComponent(new URL('/examples/stalls.pcap', page.url()).href)}`);
  await page.reload();
  await expectState(page, 'ready');
  const cached = await page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) for (const r of await (await caches.open(name)).keys()) urls.push(r.url);
    return urls;
  });
  expect(cached.some((u) => u.endsWith('.wasm')), cached.join('\n')).toBe(true);
  expect(cached.filter((u) => /\/examples\/|\.pcap|\.pcapng|\.gz$/.test(u))).toEqual([]);
});

test('a link the page will not follow says why, in one line cut to 200 characters', async ({ page }) => {
  await page.goto('/#url=javascript%3Aalert(1)');
  await expect(page.getByTestId('refused')).toHaveText('#url=javascript:alert(1) was ignored: only https: addresses can be opened, not javascript:.');
  await expectState(page, 'idle');
  // Opened as a new document (a same-document hash change is followed too, see load.spec.ts).
  await page.goto('about:blank');
  await page.goto(`/#url=data:${'A'.repeat(1_000_000)}`);
  const message = await page.getByTestId('refused').innerText();
  expect(message).toContain('only https: addresses can be opened, not data:');
  expect(message.length).toBeLessThan(400);
  await page.goto('about:blank');
  await page.goto('/#url=http%3A%2F%2Fcaptures.example%2Fa.pcap');
  await expectState(page, 'error');
  await expect(page.getByTestId('error')).toContainText('http://captures.example/a.pcap was not opened: captures from other sites are fetched over https: only.');
});
