// Helpers for the jsdom chart tests.
import type { ChartView } from './frame';
import { fullRange } from './timeRange';
import type { ConnectionSummary } from '../model/types';
import { plotColumns } from './useViewAnswers';
import type { ViewQuery } from '../worker/viewSource';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export function newSvg(): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg') as SVGSVGElement;
  document.body.append(svg);
  return svg;
}

export function fullView(summary: ConnectionSummary, width = 800, height = 240): ChartView {
  const full = fullRange(summary.start, summary.end);
  return { range: full, full, width, height };
}

/** The question a chart of this view asks about `series`. */
export function ask(summary: ConnectionSummary, view: ChartView, series: ViewQuery['series'], extra: Partial<ViewQuery> = {}): ViewQuery {
  return { connection: summary.id, series, direction: summary.dataDirection, t0: view.range[0], t1: view.range[1], columns: plotColumns(view), ...extra };
}

/** Move the pointer to plot x (jsdom: d3.pointer falls back to clientX on a zero rect). */
export function hoverAt(svg: SVGSVGElement, x: number, y = 40): string {
  svg.querySelector('g.tcps-interact')!.dispatchEvent(new MouseEvent('pointermove', { clientX: x, clientY: y, bubbles: true }));
  return svg.querySelector('.tcps-tooltip')?.textContent ?? '';
}

/** The tooltip once the engine has answered (tips of point series wait for `at`). */
export async function tipAt(svg: SVGSVGElement, x: number, y = 40): Promise<string> {
  hoverAt(svg, x, y);
  for (let i = 0; i < 20 && !svg.querySelector('.tcps-tooltip'); i++) await new Promise((r) => setTimeout(r, 5));
  return svg.querySelector('.tcps-tooltip')?.textContent ?? '';
}

/** The largest connection of a report (what the page selects). */
export const largest = (connections: ConnectionSummary[]) => connections.reduce((a, b) => (b.packets > a.packets ? b : a));

export const attr = (svg: Element, sel: string, name: string) => svg.querySelector(sel)?.getAttribute(name) ?? null;
export const num = (svg: Element, sel: string, name: string) => Number(attr(svg, sel, name));
