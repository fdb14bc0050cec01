// The scaffold every chart draws into: persistent layers inside the chart's <svg>
// (content is redrawn on every render; the interaction layer survives so that a drag in
// progress keeps its element), title/description for accessibility, the shared time
// axis and a y axis. All charts use the same horizontal margins so their time axes line up.

import * as d3 from 'd3';
import type { TimeRange } from './timeRange';
import { pixelOffset, writeAxis } from './axes';
import type { ChartId } from '../worker/generated/vocabulary';

export const MARGIN = { top: 26, right: 18, bottom: 34, left: 78 } as const;

export { CHART_IDS, type ChartId } from '../worker/generated/vocabulary';

/** Where and how large to draw: the shared time range and the outer size of the svg. */
export interface ChartView {
  range: TimeRange;
  /** Full extent of the connection (zoom-out limit). */
  full: TimeRange;
  width: number;
  height: number;
}

export type Svg = d3.Selection<SVGSVGElement, unknown, null, undefined>;
export type G = d3.Selection<SVGGElement, unknown, null, undefined>;

export interface Frame {
  svg: Svg;
  /** Cleared on every draw; translated to the plot origin. */
  content: G;
  /** Clipped to the plot rectangle (for marks that must not spill over axes). */
  plot: G;
  /** Persistent, above content: the time and y axes, updated in place on every draw. */
  axes: G;
  /** Persistent: zoom/brush/hover targets (see interaction.ts). */
  interact: G;
  /** Persistent, drawn above everything: crosshair and tooltip. */
  overlay: G;
  x: d3.ScaleLinear<number, number>;
  innerWidth: number;
  innerHeight: number;
}

let uid = 0;

function layer(svg: Svg, cls: string): G {
  let g = svg.select<SVGGElement>(`:scope > g.${cls}`);
  if (g.empty()) g = svg.append('g').attr('class', cls);
  return g as unknown as G;
}

export interface FrameSpec {
  /** The chart of the stack (the Wi-Fi one is shown on radio captures only). */
  chart: ChartId;
  title: string;
  /** Screen-reader summary of what the chart shows, in numbers. */
  description: string;
  view: ChartView;
  /** Height of the time-axis plot area when it is not the whole chart (stalls chart). */
  plotHeight?: number;
}

/** Prepare `svgEl` for a fresh draw and return its layers and the time scale. */
export function beginFrame(svgEl: SVGSVGElement, spec: FrameSpec): Frame {
  const { view } = spec;
  const svg = d3.select(svgEl) as Svg;
  const innerWidth = Math.max(10, view.width - MARGIN.left - MARGIN.right);
  const innerHeight = spec.plotHeight ?? Math.max(10, view.height - MARGIN.top - MARGIN.bottom);
  if (!svgEl.dataset.uid) svgEl.dataset.uid = String(++uid);
  const id = `tcps-${spec.chart}-${svgEl.dataset.uid}`;

  svg
    .attr('width', view.width).attr('height', view.height)
    .attr('viewBox', `0 0 ${view.width} ${view.height}`)
    .attr('role', 'img')
    .attr('aria-labelledby', `${id}-title ${id}-desc`)
    .attr('aria-label', `${spec.title}. ${spec.description}`)
    .attr('class', 'tcps-svg')
    .attr('data-chart', spec.chart);

  // <title>/<desc> must be the first children for assistive technology.
  let title = svg.select<SVGTitleElement>(':scope > title');
  if (title.empty()) title = svg.insert<SVGTitleElement>('title', ':first-child');
  title.attr('id', `${id}-title`).text(spec.title);
  let desc = svg.select<SVGDescElement>(':scope > desc');
  if (desc.empty()) desc = svg.insert('desc', ':scope > title + *');
  desc.attr('id', `${id}-desc`).text(spec.description);

  let defs = svg.select<SVGDefsElement>(':scope > defs');
  if (defs.empty()) defs = svg.insert('defs', ':scope > desc + *');
  // The clip rectangle is kept and resized rather than re-created on every draw.
  let clip = defs.select<SVGRectElement>(':scope > clipPath > rect');
  if (clip.empty()) clip = defs.append('clipPath').attr('id', `${id}-clip`).append('rect');
  clip.attr('width', innerWidth).attr('height', innerHeight);

  const content = layer(svg, 'tcps-content');
  // Detach the previous draw's subtrees in one call per child (selectAll('*').remove()
  // removed every descendant node one by one: ~6 ms per key press over the stack).
  content.node()!.replaceChildren();
  content.attr('transform', `translate(${MARGIN.left},${MARGIN.top})`);
  const axes = layer(svg, 'tcps-axes');
  axes.attr('transform', `translate(${MARGIN.left},${MARGIN.top})`);
  const interact = layer(svg, 'tcps-interact');
  interact.attr('transform', `translate(${MARGIN.left},${MARGIN.top})`);
  const overlay = layer(svg, 'tcps-overlay');
  overlay.attr('transform', `translate(${MARGIN.left},${MARGIN.top})`).attr('pointer-events', 'none');
  // Keep layer order (content, axes, interact, overlay) even if created out of order;
  // moved only when out of order (re-inserting them on every draw restyles them).
  const order = [content, axes, interact, overlay].map((g) => g.node()!);
  for (let k = 1; k < order.length; k++) if (order[k - 1].nextElementSibling !== order[k]) order[k - 1].after(order[k]);

  content.append('text').attr('class', 'tcps-title').attr('x', -MARGIN.left + 4).attr('y', -10).text(spec.title);

  const plot = content.append('g').attr('class', 'tcps-plot').attr('clip-path', `url(#${id}-clip)`);
  const x = d3.scaleLinear().domain(view.range).range([0, innerWidth]);
  return { svg, content, plot, axes, interact, overlay, x, innerWidth, innerHeight };
}

/**
 * The axis group `cls` of the persistent axes layer: created on the first draw, then
 * updated in place (axes.ts), instead of rebuilt on every pan/zoom frame.
 */
function axisGroup(f: Frame, cls: string): G {
  let g = f.axes.select<SVGGElement>(`:scope > g.${cls}`);
  if (g.empty()) g = f.axes.append('g').attr('class', `tcps-axis ${cls}`);
  return g as unknown as G;
}

/** The shared time axis at the bottom of the plot area. */
export function drawTimeAxis(f: Frame, label = 'Time since start of capture (s)'): void {
  const g = axisGroup(f, 'tcps-axis-x').attr('transform', `translate(0,${f.innerHeight})`);
  const count = Math.max(2, Math.floor(f.innerWidth / 90));
  // The whole-connection view is padded (timeRange.ts fullRange, mirrored by the engine's
  // request::full_view for share links), so around a connection that starts with the
  // capture it reaches below 0; no packet is ever there (analysis times lie in
  // [0, capture.duration], docs/ANALYSIS.md), so no negative time is labelled.
  writeAxis(g, 'bottom', f.x, f.x.ticks(count).filter((t) => t >= 0), f.x.tickFormat(count), f.innerWidth);
  let text = g.select<SVGTextElement>(':scope > text.tcps-axis-label');
  if (text.empty()) text = g.append('text').attr('class', 'tcps-axis-label').attr('y', 28).attr('text-anchor', 'end');
  text.attr('x', f.innerWidth).text(label);
}

/** How many y ticks a frame's height takes: one per 40 px, at least 2. */
export function yTickCount(f: Frame): number {
  return Math.max(2, Math.floor(f.innerHeight / 40));
}

export function drawYAxis(f: Frame, y: d3.ScaleLinear<number, number>, format: (v: number) => string, label: string, tickValues?: number[]): void {
  const values = tickValues ?? y.ticks(yTickCount(f));
  const g = axisGroup(f, 'tcps-axis-y');
  writeAxis(g, 'left', y, values, format, f.innerHeight);
  yAxisLabel(g, label, f.innerHeight);
  // Light grid lines help read values across a wide chart: one path (not an axis with a
  // <g>, <line> and empty <text> per tick), at the axis' half-pixel offset.
  const offset = pixelOffset();
  let d = '';
  for (const v of values) {
    const py = y(v);
    if (py != null && Number.isFinite(py)) d += `M0,${+(py + offset).toFixed(2)}H${f.innerWidth}`;
  }
  f.plot.insert('path', ':first-child').attr('class', 'tcps-grid').attr('d', d);
}

/** The unit label of a y axis, rotated along the axis at the left edge of the chart. */
export function yAxisLabel(g: d3.Selection<SVGGElement, unknown, null, undefined>, label: string, height: number): void {
  let text = g.select<SVGTextElement>(':scope > text.tcps-axis-label');
  if (text.empty()) text = g.append('text').attr('class', 'tcps-axis-label').attr('text-anchor', 'middle');
  text.attr('transform', `translate(${-MARGIN.left + 12},${height / 2}) rotate(-90)`).text(label);
}

/**
 * Tick values for byte quantities at powers-of-two steps (16 KiB, 32 KiB, ...), so that
 * labels read as round IEC numbers rather than 9.77 KiB. Whole bytes only: a domain a
 * few bytes tall (a one-segment connection) gets ticks 1 B apart, never "0.3 B".
 */
export function byteTicks(lo: number, hi: number, count = 5): number[] {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const step = Math.max(1, 2 ** Math.ceil(Math.log2(span / Math.max(1, count))));
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(v);
  return out;
}

/**
 * d3's ticks of a quantity counted in whole units (bits): none between two units, so a
 * near-empty chart's axis reads 0 and 1 bit/s, not 0.2, 0.4 … bit/s.
 */
export function wholeTicks(y: d3.ScaleLinear<number, number>, count: number): number[] {
  return y.ticks(count).filter(Number.isInteger);
}

/** A note line at the top-right of the plot (e.g. "window scale unknown"). */
export function drawNote(f: Frame, text: string, cls = 'tcps-note'): void {
  f.content.append('text').attr('class', cls).attr('x', f.innerWidth).attr('y', -10)
    .attr('text-anchor', 'end').text(text);
}

/** "No data" message centred in the plot, so an empty chart says why it is empty. */
export function drawEmpty(f: Frame, text: string): void {
  f.content.append('text').attr('class', 'tcps-empty').attr('x', f.innerWidth / 2).attr('y', f.innerHeight / 2)
    .attr('text-anchor', 'middle').text(text);
}
