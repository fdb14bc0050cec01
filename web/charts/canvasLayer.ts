// Dense scatter marks on a <canvas> under the chart's <svg>. Thousands of SVG dots
// (one subpath each) make every pan frame re-rasterise the path: measured in headless
// Chromium, ~6,000 dots cost ~100 ms per frame in SVG and under 1 ms on canvas. Below
// CANVAS_MIN_MARKS the dots stay in the SVG (sharp, exportable, testable in jsdom).

import { MARGIN } from './frame';
import type { Frame } from './frame';
import { dotsPath } from './paths';

export const CANVAS_MIN_MARKS = 2000;

/**
 * Size the canvas to the svg's plot area (device pixels for sharpness), clear it and
 * return a context whose origin is the plot origin, or null without canvas support.
 */
export function prepareCanvas(canvas: HTMLCanvasElement | null | undefined, f: Frame, width: number, height: number): CanvasRenderingContext2D | null {
  if (!canvas) return null;
  let ctx: CanvasRenderingContext2D | null = null;
  try { ctx = canvas.getContext('2d'); } catch { ctx = null; }
  const ratio = (typeof window !== 'undefined' && window.devicePixelRatio) || 1;
  const w = Math.round(width * ratio), h = Math.round(height * ratio);
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  if (!ctx) return null;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.translate(MARGIN.left, MARGIN.top);
  ctx.beginPath();
  ctx.rect(0, 0, f.innerWidth, f.innerHeight);
  ctx.clip();
  return ctx;
}

/** Colour of a CSS class in the current theme: the stroke the svg element would get. */
export function strokeOf(el: SVGElement | null, fallback = '#0072b2'): string {
  if (!el || typeof getComputedStyle === 'undefined') return fallback;
  const s = getComputedStyle(el).stroke;
  return s && s !== 'none' ? s : fallback;
}

// getComputedStyle on a just-drawn path forces a style recalculation in the middle of
// every pan/zoom frame; the colour only changes with the class and the theme.
const strokeCache = new WeakMap<Element, Map<string, string>>();
function themeKey(el: Element): string {
  const stack = el.closest('.tcps-charts');
  const dark = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)').matches : false;
  return `${stack?.getAttribute('data-theme') ?? ''}|${document.documentElement.getAttribute('data-theme') ?? ''}|${dark}`;
}
function cachedStrokeOf(svg: Element | null, el: SVGElement | null, cls: string): string {
  if (!svg || !el) return strokeOf(el);
  let byClass = strokeCache.get(svg);
  if (!byClass) strokeCache.set(svg, (byClass = new Map()));
  const key = `${themeKey(svg)}|${cls}`;
  let colour = byClass.get(key);
  if (colour == null) byClass.set(key, (colour = strokeOf(el)));
  return colour;
}

/** Square dots of `size` px centred at (x(i), y(i)) for every i of `idx`. */
export function canvasDots(ctx: CanvasRenderingContext2D, idx: ArrayLike<number>, x: (i: number) => number, y: (i: number) => number, color: string, size = 2.5): void {
  ctx.fillStyle = color;
  const half = size / 2;
  for (let k = 0; k < idx.length; k++) {
    const px = x(idx[k]), py = y(idx[k]);
    if (Number.isFinite(px) && Number.isFinite(py)) ctx.fillRect(px - half, py - half, size, size);
  }
}

/**
 * Dots of one series: an SVG path when there are few (or no canvas), else on the canvas
 * in the colour the path's CSS class gives. The (empty) path is kept either way, with
 * data-points and data-canvas, so tests and exports can tell what was drawn where.
 */
export function drawDots(
  f: Frame, cls: string, idx: ArrayLike<number>, x: (i: number) => number, y: (i: number) => number,
  ctx: CanvasRenderingContext2D | null,
): void {
  const path = f.plot.append('path').attr('class', cls).attr('data-points', idx.length);
  if (ctx && idx.length >= CANVAS_MIN_MARKS) {
    path.attr('data-canvas', 'true');
    canvasDots(ctx, idx, x, y, cachedStrokeOf(f.svg.node(), path.node(), cls));
  } else {
    path.attr('d', dotsPath(idx, x, y));
  }
}
