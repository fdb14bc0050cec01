// Helpers for the jsdom chart tests.
import type { ChartView } from './frame';
import { fullRange } from './timeRange';
import type { ConnectionData } from '../model/types';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export function newSvg(): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg') as SVGSVGElement;
  document.body.append(svg);
  return svg;
}

export function fullView(data: ConnectionData, width = 800, height = 240): ChartView {
  const full = fullRange(data.summary.start, data.summary.end);
  return { range: full, full, width, height };
}

/** Move the pointer to plot x (jsdom: d3.pointer falls back to clientX on a zero rect). */
export function hoverAt(svg: SVGSVGElement, x: number, y = 40): string {
  svg.querySelector('g.tcps-interact')!.dispatchEvent(new MouseEvent('pointermove', { clientX: x, clientY: y, bubbles: true }));
  return svg.querySelector('.tcps-tooltip')?.textContent ?? '';
}

export const attr = (svg: Element, sel: string, name: string) => svg.querySelector(sel)?.getAttribute(name) ?? null;
export const num = (svg: Element, sel: string, name: string) => Number(attr(svg, sel, name));
