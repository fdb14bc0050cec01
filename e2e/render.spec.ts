// `tcpscope render` draws what the page draws (issue 15, item 5): the page's SVG export
// of a chart and the CLI's render of the same view (example, connection, time range,
// width, height, theme) have the same element tree (tag + class, in order), the same
// path data and the same texts. Both go through web/export/svg.ts `svgToString`; the
// page draws in Chromium, the CLI in jsdom (web/render/node.tsx), so this checks that
// the chart code draws the same thing in both, and that the export's inlined styles
// (computed by Chromium on the page; in jsdom from charts.css, svg.ts `inheritedValue`)
// are the same attributes with the same values. Only the order of attributes may differ.
import { expect, test } from './warm';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JSDOM } from 'jsdom';
import { expectState } from './state';
import { tcpscope } from './cli';

const root = fileURLToPath(new URL('..', import.meta.url));

interface Shape { tree: string[]; paths: string[]; texts: string[]; attributes: string[]; canvas: number }

/** What must match: tags with classes in document order, path `d` strings, texts, every attribute. */
function shape(svg: string): Shape {
  const doc = new JSDOM(svg, { contentType: 'image/svg+xml' }).window.document;
  const all = [doc.documentElement, ...doc.documentElement.querySelectorAll('*')];
  return {
    tree: all.map((el) => `${el.localName}${el.getAttribute('class') ? `.${el.getAttribute('class')!.trim().split(/\s+/).join('.')}` : ''}`),
    paths: all.filter((el) => el.localName === 'path').map((el) => el.getAttribute('d') ?? ''),
    texts: all.filter((el) => el.localName === 'text' || el.localName === 'title' || el.localName === 'desc').map((el) => el.textContent ?? ''),
    attributes: all.map((el) => [...el.attributes].map((a) => `${a.name}="${a.value}"`).sort().join(' ')),
    canvas: all.filter((el) => el.getAttribute('data-canvas') === 'true').length,
  };
}

// Every chart of the stack, both themes, whole connections and zoomed ranges. Each has
// fewer dots than canvasLayer.ts CANVAS_MIN_MARKS, so every mark is in the page's SVG
// too (denser series go to a canvas on the page, vector paths in Node: docs/FIGURES.md).
const CASES = [
  { file: 'stalls.pcap', chart: 'rtt', theme: 'light', range: null },
  { file: 'stalls.pcap', chart: 'throughput', theme: 'dark', range: [0.5, 1.5] },
  { file: 'zero-window.pcap', chart: 'stalls', theme: 'light', range: null },
  { file: 'rwnd-limited.pcap', chart: 'inflight', theme: 'dark', range: [1, 1.2] },
  { file: 'loss-1pct.pcap', chart: 'sequence', theme: 'light', range: null },
] as const;

for (const c of CASES) {
  test(`render ${c.file} ${c.chart} (${c.theme}${c.range ? `, ${c.range.join('–')} s` : ''}) = the page's SVG export`, async ({ page }) => {
    await page.setViewportSize({ width: 1100, height: 900 });
    const t = c.range ? `&t=${c.range.join(',')}` : '';
    await page.goto(`/#ex=${c.file}&charts=${c.chart}&theme=${c.theme}${t}`);
    await expectState(page, 'ready');
    const svgEl = page.locator(`svg[data-chart="${c.chart}"]`);
    const width = Number(await svgEl.getAttribute('width'));
    const height = Number(await svgEl.getAttribute('height'));
    const conn = await page.locator('h2').filter({ hasText: /Connection \d+:/ }).textContent();
    const connection = Number(/Connection (\d+)/.exec(conn ?? '')?.[1]);
    await page.getByTestId('export-chart').selectOption(c.chart);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-svg').click()]);
    const exported = readFileSync((await download.path())!, 'utf8');

    const out = join(mkdtempSync(join(tmpdir(), 'tcpscope-render-')), 'fig.svg');
    tcpscope([
      'render', `${root}public/examples/${c.file}`, '--connection', String(connection),
      '--chart', c.chart, '--width', String(width), '--height', String(height), '--theme', c.theme,
      ...(c.range ? ['--from', String(c.range[0]), '--to', String(c.range[1])] : []), '--out', out,
    ]);
    const rendered = readFileSync(out, 'utf8');
    const [a, b] = [shape(exported), shape(rendered)];
    expect(a.canvas, 'every mark is in the page SVG (no canvas layer)').toBe(0);
    expect(b.tree).toEqual(a.tree);
    expect(b.paths).toEqual(a.paths);
    expect(b.texts).toEqual(a.texts);
    expect(b.attributes).toEqual(a.attributes);
  });
}

// Issue 42, item 4: the whole stack as one figure. The page's "Whole stack" export and
// `tcpscope render --chart stack` of the same view: the same charts nested in the same
// order under the same title lines (the diagnosis headline first), every element,
// path, text and attribute the same.
const STACKS = [
  { file: 'stalls.pcap', theme: 'light', range: null, charts: null },
  { file: 'rwnd-limited.pcap', theme: 'dark', range: [1, 1.2], charts: 'throughput,inflight,rtt' },
] as const;

for (const c of STACKS) {
  test(`render ${c.file} --chart stack (${c.theme}${c.range ? `, ${c.range.join('–')} s` : ''}${c.charts ? `, ${c.charts}` : ''}) = the page's stack export`, async ({ page }) => {
    await page.setViewportSize({ width: 1100, height: 900 });
    const view = `theme=${c.theme}${c.range ? `&t=${c.range.join(',')}` : ''}${c.charts ? `&charts=${c.charts}` : ''}`;
    await page.goto(`/#ex=${c.file}&${view}`);
    await expectState(page, 'ready');
    const width = Number(await page.locator('svg[data-chart]').first().getAttribute('width'));
    const connection = Number(await page.getByTestId('connection').getAttribute('data-connection'));
    const headline = (await page.locator('.diagnosis h2, [data-testid="diagnosis"] h2').first().textContent())?.trim();
    await page.getByTestId('export-chart').selectOption('stack');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-svg').click()]);
    const exported = readFileSync((await download.path())!, 'utf8');

    const out = join(mkdtempSync(join(tmpdir(), 'tcpscope-render-')), 'stack.svg');
    tcpscope([
      'render', `${root}public/examples/${c.file}`, '--connection', String(connection),
      '--chart', 'stack', '--width', String(width), '--view', view, '--out', out,
    ]);
    const rendered = readFileSync(out, 'utf8');
    const [a, b] = [shape(exported), shape(rendered)];
    const shown = await page.locator('.tcps-charts svg[data-chart]').evaluateAll((els) => els.map((e) => e.getAttribute('data-chart')));
    // Each shown chart once, in the page's order, nested in the one figure.
    const nested = new JSDOM(rendered, { contentType: 'image/svg+xml' }).window.document.documentElement;
    expect([...nested.querySelectorAll(':scope > svg')].map((s) => s.getAttribute('data-chart'))).toEqual(shown);
    expect(shown.length).toBe(c.charts ? 3 : 6);
    // The title line is the diagnosis headline, as the panel's heading says it.
    expect(b.texts.slice(0, 2)).toEqual([expect.stringContaining(headline!), headline]);
    expect(a.canvas, 'every mark is in the page SVG (no canvas layer)').toBe(0);
    expect(b.tree).toEqual(a.tree);
    expect(b.paths).toEqual(a.paths);
    expect(b.texts).toEqual(a.texts);
    expect(b.attributes).toEqual(a.attributes);
  });
}
