// The whole chart stack as one figure (issue 42, item 4): every chart the view shows,
// one under the other on their one shared time axis (the page's stack already gives
// each chart the same range and the same left/right margins, so the x axes line up),
// under a title line with the diagnosis headline, the words the diagnosis panel's
// heading shows. Each chart is its own standalone export (svg.ts `svgToStandalone`)
// nested as an <svg> at its offset, so a chart in the stack is byte for byte the chart
// exported alone. The page's "Whole stack" SVG/PNG export and `tcpscope render --chart
// stack` (web/render/renderChart.tsx) both write this file.
import type { ConnectionSummary } from '../model/types';
import { LIMIT_LABEL } from '../worker/generated/vocabulary';
import { backgroundOf, standaloneToPng, svgToStandalone, wellFormedXml } from './svg';

const SVG_NS = 'http://www.w3.org/2000/svg';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/** The title block: the headline (15 px, bold) and the connection line (12 px) under it. */
const TITLE_HEIGHT = 50;
const TITLE_X = 12;

/** The figure's title line: the diagnosis panel's heading ("Why was it slow? …"). */
export function stackHeadline(summary: ConnectionSummary): string {
  const limit = summary.diagnosis?.limit;
  return limit ? `Why was it slow? ${LIMIT_LABEL[limit] ?? limit}` : 'Why was it slow?';
}

/** The line under it: the connection as the page's heading names it. */
export function stackSubtitle(summary: ConnectionSummary): string {
  return `Connection ${summary.id}: ${summary.endpoints[0]} ⇄ ${summary.endpoints[1]}`;
}

/** The value of an inherited presentation attribute at `el` in an exported tree. */
function attributeAt(el: Element | null, name: string): string | null {
  for (let a = el; a; a = a.parentElement) {
    const v = a.getAttribute(name);
    if (v) return v;
  }
  return null;
}

function text(content: string, y: number, size: number, weight: string, fill: string, font: string | null): SVGTextElement {
  const t = document.createElementNS(SVG_NS, 'text');
  t.setAttribute('class', 'tcps-export-title');
  t.setAttribute('x', String(TITLE_X));
  t.setAttribute('y', String(y));
  t.setAttribute('font-size', `${size}px`);
  t.setAttribute('font-weight', weight);
  t.setAttribute('fill', fill);
  if (font) t.setAttribute('font-family', font);
  t.textContent = content;
  return t;
}

/**
 * One standalone <svg> of the `charts` (the page's chart svgs, in stack order) under
 * `headline` and `subtitle`. Its width is the widest chart's, its height the title
 * block's plus every chart's.
 */
export function stackToStandalone(charts: SVGSVGElement[], headline: string, subtitle: string): SVGSVGElement {
  if (charts.length === 0) throw new Error('No chart is shown; show at least one to export the stack.');
  const parts = charts.map((svg, i) => svgToStandalone(svg, i + 1));
  const width = Math.max(...parts.map((p) => Number(p.getAttribute('width'))));
  const height = TITLE_HEIGHT + parts.reduce((sum, p) => sum + Number(p.getAttribute('height')), 0);
  const root = document.createElementNS(SVG_NS, 'svg');
  root.setAttributeNS(XMLNS_NS, 'xmlns', SVG_NS);
  root.setAttributeNS(XMLNS_NS, 'xmlns:xlink', 'http://www.w3.org/1999/xlink');
  root.setAttribute('class', 'tcps-export-stack');
  root.setAttribute('data-chart', 'stack');
  root.setAttribute('width', String(width));
  root.setAttribute('height', String(height));
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const title = document.createElementNS(SVG_NS, 'title');
  title.textContent = `${headline} — ${subtitle}`;
  root.append(title);
  const background = document.createElementNS(SVG_NS, 'rect');
  background.setAttribute('class', 'tcps-export-background');
  background.setAttribute('width', '100%');
  background.setAttribute('height', '100%');
  background.setAttribute('fill', backgroundOf(charts[0]));
  root.append(background);
  // The charts' own text colour and font, so the title reads in either theme.
  const firstText = parts[0].querySelector('text');
  const fill = attributeAt(firstText, 'fill') ?? 'rgb(0, 0, 0)';
  const font = attributeAt(firstText, 'font-family');
  root.append(text(headline, 22, 15, '700', fill, font), text(subtitle, 40, 12, '400', fill, font));
  let y = TITLE_HEIGHT;
  for (const part of parts) {
    // Nested: the chart keeps its own viewport. Its namespace declarations are the root's
    // (Chromium's serializer drops them there, jsdom's writes them: both files alike).
    part.removeAttributeNS(XMLNS_NS, 'xmlns');
    part.removeAttributeNS(XMLNS_NS, 'xlink');
    part.setAttribute('x', '0');
    part.setAttribute('y', String(y));
    y += Number(part.getAttribute('height'));
    root.append(part);
  }
  return root;
}

export function stackToString(charts: SVGSVGElement[], headline: string, subtitle: string): string {
  return wellFormedXml(new XMLSerializer().serializeToString(stackToStandalone(charts, headline, subtitle)));
}

export function stackBlob(charts: SVGSVGElement[], headline: string, subtitle: string): Blob {
  return new Blob([stackToString(charts, headline, subtitle)], { type: 'image/svg+xml' });
}

export function stackToPng(charts: SVGSVGElement[], headline: string, subtitle: string, scale = 2): Promise<Blob> {
  return standaloneToPng(stackToStandalone(charts, headline, subtitle), scale);
}

/** The chart svgs of the stack in `within`, in the order the page shows them. */
export function stackCharts(within: ParentNode): SVGSVGElement[] {
  return Array.from(within.querySelectorAll<SVGSVGElement>('.tcps-charts svg[data-chart]'));
}
