// Chart export as a standalone SVG or a PNG. The charts are styled by CSS (classes,
// CSS variables for the theme), which a saved .svg file does not carry; so the
// computed colours, strokes and fonts of every element are copied into presentation
// attributes, and a background rectangle takes the page's background colour.
// One export path: the page's SVG/PNG buttons (SharePanel) and `tcpscope render`
// (web/render, the same charts in jsdom) both write svgToString's file.

import { escapeUnsafe } from '../security/outsideText';
/** Inherited properties: inlined only where they differ from the parent's value. */
const INHERITED = [
  'fill', 'fill-opacity', 'stroke', 'stroke-opacity', 'stroke-width', 'stroke-dasharray', 'stroke-linecap',
  'stroke-linejoin', 'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor',
  'dominant-baseline', 'visibility', 'shape-rendering',
] as const;
/** Not inherited: inlined where they differ from their initial value. */
const OWN: Record<string, string> = { opacity: '1' };

/** Layers that only serve the live page (hover targets, crosshair, tooltip). */
const LIVE_ONLY = '.tcps-interact, .tcps-overlay, .tcps-tooltip';

const SVG_NS = 'http://www.w3.org/2000/svg';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/** Resolve var(--x) that the environment left unresolved (jsdom; browsers resolve them). */
function resolveVars(el: Element, value: string): string {
  return value.replace(/var\(\s*(--[\w-]+)\s*(?:,\s*([^)]*))?\)/g, (_, name: string, fallback?: string) => {
    for (let a: Element | null = el; a; a = a.parentElement) {
      const v = getComputedStyle(a).getPropertyValue(name).trim();
      if (v) return resolveVars(a, v);
    }
    return fallback?.trim() ?? '';
  });
}

/** Lengths that browsers report in px (jsdom reports the declared number). */
const LENGTHS = new Set(['stroke-width', 'font-size']);

const FONT_WEIGHTS: Record<string, string> = { normal: '400', bold: '700' };

/** A declared value as browsers report the computed one: #hex as rgb(), bare lengths in px, weights as numbers. */
function asComputed(property: string, value: string): string {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value)?.[1];
  if (hex) {
    const full = hex.length === 3 ? hex.replace(/./g, (c) => c + c) : hex;
    return `rgb(${[0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)).join(', ')})`;
  }
  const number = /^-?(\d+\.?\d*|\.\d+)$/;
  if (LENGTHS.has(property) && number.test(value)) return `${value}px`;
  if (property === 'stroke-dasharray' && value.split(/[\s,]+/).every((v) => number.test(v))) {
    return value.split(/[\s,]+/).map((v) => `${v}px`).join(', ');
  }
  return property === 'font-weight' ? FONT_WEIGHTS[value] ?? value : value;
}

function computed(el: Element, property: string): string {
  const v = getComputedStyle(el).getPropertyValue(property).trim();
  return asComputed(property, v.includes('var(') ? resolveVars(el, v) : v);
}

/**
 * Initial values of the inherited properties: what a browser reports where nothing sets
 * them (jsdom reports ''). Only the root of the file needs them.
 */
const INITIAL: Record<(typeof INHERITED)[number], string> = {
  fill: 'rgb(0, 0, 0)', 'fill-opacity': '1', stroke: 'none', 'stroke-opacity': '1', 'stroke-width': '1px',
  'stroke-dasharray': 'none', 'stroke-linecap': 'butt', 'stroke-linejoin': 'miter', 'font-family': '',
  'font-size': '', 'font-weight': '400', 'font-style': 'normal', 'text-anchor': 'start', 'dominant-baseline': 'auto',
  visibility: 'visible', 'shape-rendering': 'auto',
};

/**
 * The computed value of an inherited property. Browsers resolve inheritance and
 * presentation attributes themselves; jsdom (the CLI's `tcpscope render`, tests) does
 * neither, so there the attribute, then for the root the ancestors and the initial
 * value stand in, and the file says what a browser's export says.
 */
function inheritedValue(el: Element, property: (typeof INHERITED)[number], root: boolean): string {
  const own = computed(el, property) || asComputed(property, el.getAttribute(property) ?? '');
  if (own || !root) return own;
  for (let a = el.parentElement; a; a = a.parentElement) {
    const v = computed(a, property);
    if (v) return v;
  }
  return INITIAL[property];
}

/** Never drawn, always kept (jsdom's HTML stylesheet gives any <title> display: none). */
const NOT_RENDERED = new Set(['title', 'desc', 'metadata']);

/** The first non-transparent background behind `el` (white when there is none). */
export function backgroundOf(el: Element): string {
  const opaque = (c: string) => c && c !== 'transparent' && !/^rgba\(.*,\s*0\)$/.test(c);
  for (let a: Element | null = el; a; a = a.parentElement) {
    const bg = computed(a, 'background-color');
    if (opaque(bg)) return bg;
    // jsdom does not expand `background: var(--x)` into background-color.
    const shorthand = computed(a, 'background');
    if (/^rgba?\([^)]*\)$/.test(shorthand) && opaque(shorthand)) return shorthand;
  }
  return '#ffffff';
}

function inlineStyles(source: Element, target: Element, parentValues: Map<string, string> | null) {
  if (!NOT_RENDERED.has(source.localName) && computed(source, 'display') === 'none') {
    target.remove();
    return;
  }
  const values = new Map<string, string>();
  for (const property of INHERITED) {
    const value = inheritedValue(source, property, parentValues === null);
    // No value (jsdom) means inherited: the parent's, as a browser would report it.
    values.set(property, value || parentValues?.get(property) || '');
    if (!value) continue;
    // Same as the parent: inherit it (and drop an attribute that CSS had overridden).
    if (parentValues && parentValues.get(property) === value) target.removeAttribute(property);
    else target.setAttribute(property, value);
  }
  for (const [property, initial] of Object.entries(OWN)) {
    const value = computed(source, property);
    if (value && value !== initial) target.setAttribute(property, value);
  }
  // Children are walked in parallel; the clone has the same structure as the source.
  const targetKids = Array.from(target.children);
  Array.from(source.children).forEach((kid, i) => targetKids[i] && inlineStyles(kid, targetKids[i], values));
}

/**
 * Dense series are drawn on a <canvas> under the svg (charts/canvasLayer.ts; their
 * paths are marked data-canvas). The export carries that bitmap as an <image> in the
 * same place, so the file shows every mark the page shows.
 */
function canvasImage(svgEl: SVGSVGElement, width: string, height: string): SVGImageElement | null {
  if (!svgEl.querySelector('[data-canvas="true"]')) return null;
  const canvas = svgEl.parentElement?.querySelector<HTMLCanvasElement>('canvas.tcps-canvas');
  let href: string | undefined;
  try {
    href = canvas?.toDataURL('image/png');
  } catch {
    href = undefined; // no canvas support (jsdom) or a tainted canvas
  }
  if (!href || !href.startsWith('data:image/png')) return null;
  const image = document.createElementNS(SVG_NS, 'image');
  image.setAttribute('class', 'tcps-export-canvas');
  image.setAttribute('x', '0');
  image.setAttribute('y', '0');
  image.setAttribute('width', width);
  image.setAttribute('height', height);
  image.setAttribute('href', href);
  return image;
}

/**
 * The chart's ids (frame.ts: `tcps-<chart>-<uid>-title`, `-desc`, `-clip`) renumbered to
 * `uid`. The page numbers its svgs in the order it mounted them, so the same view exported
 * after another chart came and went (the loading chart, a re-mount) had other ids; the
 * file is the same whatever the page did before (and `tcpscope render` writes it too).
 */
function renumberIds(clone: SVGSVGElement, uid: number) {
  const chart = clone.getAttribute('data-chart');
  const old = clone.getAttribute('data-uid');
  if (!chart || !old) return;
  const from = `tcps-${chart}-${old}-`, to = `tcps-${chart}-${uid}-`;
  clone.setAttribute('data-uid', String(uid));
  for (const el of [clone, ...Array.from(clone.querySelectorAll('*'))]) {
    for (const a of Array.from(el.attributes)) {
      if (a.value.includes(from)) el.setAttribute(a.name, a.value.split(from).join(to));
    }
  }
}

/**
 * A self-contained copy of a chart's <svg>: styles inlined, xmlns, background, no live
 * layers, ids numbered `uid` (the chart's place in the file: 1 alone, 1..n in a stack).
 */
export function svgToStandalone(svgEl: SVGSVGElement, uid = 1): SVGSVGElement {
  const clone = svgEl.cloneNode(true) as SVGSVGElement;
  // Inline first (structure still identical to the source), then drop live-only layers.
  // The root gets every value: outside the page nothing is inherited.
  inlineStyles(svgEl, clone, null);
  for (const el of Array.from(clone.querySelectorAll(LIVE_ONLY))) el.remove();
  renumberIds(clone, uid);
  const box = svgEl.getBoundingClientRect();
  const width = svgEl.getAttribute('width') || String(Math.round(box.width) || 800);
  const height = svgEl.getAttribute('height') || String(Math.round(box.height) || 300);
  // As namespace declarations (not plain attributes): a serializer that writes the
  // element's namespace itself (jsdom's) then writes xmlns once, not twice.
  clone.setAttributeNS(XMLNS_NS, 'xmlns', SVG_NS);
  clone.setAttributeNS(XMLNS_NS, 'xmlns:xlink', 'http://www.w3.org/1999/xlink');
  clone.setAttribute('width', width);
  clone.setAttribute('height', height);
  if (!clone.getAttribute('viewBox')) clone.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const background = document.createElementNS(SVG_NS, 'rect');
  background.setAttribute('class', 'tcps-export-background');
  background.setAttribute('width', '100%');
  background.setAttribute('height', '100%');
  background.setAttribute('fill', backgroundOf(svgEl));
  // After <title>/<desc>/<defs>, before the drawing, so it stays accessible and underneath.
  const firstDrawn = Array.from(clone.children).find((c) => !['title', 'desc', 'defs'].includes(c.localName)) ?? null;
  clone.insertBefore(background, firstDrawn);
  const dense = canvasImage(svgEl, width, height);
  if (dense) clone.insertBefore(dense, firstDrawn);
  return clone;
}

/** Characters XML 1.0 forbids (§2.2: C0 but tab, LF, CR; U+FFFE/FFFF; lone surrogates). */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The exported document, well-formed whatever text the chart holds (issue 45, item 4): a
 * character XML forbids (a control character from a capture's process name) made the
 * browser refuse the file, the PNG export fail and resvg throw. Outside text is sanitized
 * before it is drawn (web/security/sanitizeReport.ts); this is the last guard, written
 * the sanitizer's way (escaped visibly).
 */
export function wellFormedXml(xml: string): string {
  return xml.replace(NOT_XML, (ch) => escapeUnsafe(ch));
}

export function svgToString(svgEl: SVGSVGElement): string {
  return wellFormedXml(new XMLSerializer().serializeToString(svgToStandalone(svgEl)));
}

export function svgBlob(svgEl: SVGSVGElement): Blob {
  return new Blob([svgToString(svgEl)], { type: 'image/svg+xml' });
}

/** Render the standalone SVG onto a canvas at `scale` × its size (crisp on HiDPI). */
export function svgToPng(svgEl: SVGSVGElement, scale = 2): Promise<Blob> {
  return standaloneToPng(svgToStandalone(svgEl), scale);
}

/** A standalone svg (svgToStandalone, stack.ts) on a canvas at `scale` × its size, as PNG. */
export async function standaloneToPng(standalone: SVGSVGElement, scale = 2): Promise<Blob> {
  const width = Number(standalone.getAttribute('width'));
  const height = Number(standalone.getAttribute('height'));
  const url = URL.createObjectURL(new Blob([wellFormedXml(new XMLSerializer().serializeToString(standalone))], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.decoding = 'async';
    await new Promise<void>((resolve, reject) => {
      image.onload = () => resolve();
      image.onerror = () => reject(new Error('The chart could not be rendered as an image'));
      image.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('This browser has no 2D canvas');
    context.scale(scale, scale);
    context.drawImage(image, 0, 0, width, height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('PNG encoding failed'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}
