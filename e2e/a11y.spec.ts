// Accessibility (issue 18, item 6): axe-core finds no serious or critical violation on
// the main page with a capture loaded (both themes), a shared view and the embed; the
// charts have accessible names and text alternatives; the controls can be reached by
// keyboard. Waits are on data-state, never sleeps.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from './warm';
import { expectState } from './state';

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(' | ')}`);
}

for (const theme of ['light', 'dark'] as const) {
  test(`the main page with a capture (${theme} theme): no serious or critical violation`, async ({ page }) => {
    await page.goto(`/#ex=rwnd-limited.pcap&theme=${theme}`);
    await expectState(page, 'ready');
    await expect(page.locator('svg[data-chart]').first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
}

test('a lossy capture with the pipe line and the events strip drawn: no serious or critical violation', async ({ page }) => {
  await page.goto('/#ex=loss-1pct.pcap&pipe=1');
  await expectState(page, 'ready');
  await expect(page.locator('svg[data-chart="inflight"] path.tcps-pipe')).toHaveAttribute('d', /^M/);
  await expect(page.locator('svg[data-chart="events"] path[data-series="retransmissions"]')).not.toHaveAttribute('data-events', '0');
  expect(await seriousViolations(page)).toEqual([]);
});

test('the landing page: no serious or critical violation', async ({ page }) => {
  await page.goto('/');
  await expectState(page, 'idle');
  expect(await seriousViolations(page)).toEqual([]);
});

test('a shared view: no serious or critical violation', async ({ page, context }) => {
  await page.goto('/#ex=rx-zero-window-dead.pcap');
  await expectState(page, 'ready');
  await page.getByTestId('share').click();
  const link = await page.getByTestId('share-url').inputValue();
  const shared = await context.newPage();
  await shared.goto(link);
  await expectState(shared, 'ready');
  expect(await seriousViolations(shared)).toEqual([]);
});

test('the embed: no serious or critical violation', async ({ page }) => {
  await page.goto('/embed.html#ex=healthy.pcap');
  await expectState(page, 'ready', { root: '.embed' });
  expect(await seriousViolations(page)).toEqual([]);
});

test('every chart has an accessible name and a text alternative', async ({ page }) => {
  await page.goto('/#ex=rwnd-limited.pcap');
  await expectState(page, 'ready');
  const charts = page.locator('svg[data-chart]');
  await expect(charts.first()).toBeVisible();
  for (const chart of await charts.all()) {
    const name = await chart.evaluate((svg) => svg.getAttribute('aria-label') ?? svg.querySelector('title')?.textContent ?? '');
    expect(name, await chart.getAttribute('data-chart') ?? '').not.toBe('');
    const described = await chart.evaluate((svg) => {
      const ids = (svg.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
      return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim()
        || svg.querySelector('desc')?.textContent?.trim() || '';
    });
    expect(described, `text alternative of ${await chart.getAttribute('data-chart')}`).toMatch(/\d/);
  }
});

test('the controls are reachable by keyboard, with a visible focus', async ({ page }) => {
  await page.goto('/#ex=rwnd-limited.pcap');
  await expectState(page, 'ready');
  const seen = new Set<string>();
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const focus = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return null;
      const style = getComputedStyle(el);
      const visible = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0 || style.boxShadow !== 'none';
      return { key: el.dataset.testid ?? el.getAttribute('aria-label') ?? el.tagName.toLowerCase(), visible };
    });
    if (!focus) continue;
    expect(focus.visible, `focus ring on ${focus.key}`).toBe(true);
    seen.add(focus.key);
  }
  // The share button and the connection list are among what Tab reaches.
  expect([...seen]).toContain('share');
});
