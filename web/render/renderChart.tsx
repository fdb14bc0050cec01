// The static renderer (issue 15, item 5): one chart of one connection (or, issue 42
// item 4, the whole stack: chart `stack`, export/stack.ts) drawn by the
// page's own chart stack (<ConnectionCharts>, the chart registry: a chart is named by
// its id, so any chart the stack knows can be rendered) and saved through the page's
// own export (web/export/svg.ts `svgToString`). It needs a DOM and nothing else: the
// page, Vitest's jsdom, or the CLI's jsdom (web/render/node.tsx).

import { createRoot } from 'react-dom/client';
import { ConnectionCharts } from '../components/ConnectionCharts';
import { CHART_IDS, type ChartId } from '../charts/frame';
import type { Dir } from '../charts/useViewAnswers';
import type { TimeRange } from '../charts/timeRange';
import type { ConnectionSummary } from '../model/types';
import type { ViewSource } from '../worker/viewSource';
import { svgToString } from '../export/svg';
import { stackCharts, stackHeadline, stackSubtitle, stackToString } from '../export/stack';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { sanitizeSummary } from '../security/sanitizeReport';

export { CHART_IDS };
export type { ChartId };

/** `stack`: every chart of `charts` on one time axis, under the diagnosis headline (export/stack.ts). */
export const STACK = 'stack';
export type FigureChart = ChartId | typeof STACK;

export interface Figure {
  summary: ConnectionSummary;
  source: ViewSource;
  /** The other connections of the capture (what the page passes the stack). */
  others?: ConnectionSummary[];
  chart: FigureChart;
  /** The charts of a `stack`, in the page's order (default: the page's default, all of them). */
  charts?: ChartId[];
  /** The capture has a Wi-Fi link (the page then adds its Wi-Fi chart to the stack). */
  wifi?: boolean;
  /** Seconds since the first packet of the file; null = the whole connection. */
  range?: TimeRange | null;
  /** Outer size of the chart's svg in px (height default: the page's for that chart). */
  width: number;
  height?: number;
  theme: 'light' | 'dark';
  binMs?: number | null;
  stallMs?: number | null;
  direction?: Dir;
}

/**
 * Draws `figure` into a detached-from-view host in `document`, waits for the stack's
 * ready signal (every shown chart has drawn its first answer), and returns the
 * standalone SVG the page's "SVG" export button would save for the same view.
 */
export async function renderChartSvg(figure: Figure): Promise<string> {
  const stack = figure.chart === STACK;
  if (!stack && !CHART_IDS.includes(figure.chart as ChartId)) throw new Error(`unknown chart '${figure.chart}'; the charts are ${CHART_IDS.join(', ')}, ${STACK}`);
  const charts: ChartId[] = stack ? figure.charts ?? [...CHART_IDS] : [figure.chart as ChartId];
  const host = document.createElement('div');
  document.body.append(host);
  const root = createRoot(host);
  try {
    // The summary may come from a link or a capture's fields: sanitized as the page's
    // client does (web/security/sanitizeReport.ts). A stack that throws rejects, so the
    // CLI never waits for a ready signal that cannot come (issue 45, item 3).
    const summary = sanitizeSummary(figure.summary);
    await new Promise<void>((resolve, reject) => {
      root.render(
        <ErrorBoundary what="chart stack" onError={reject}>
        <ConnectionCharts
          summary={summary} source={figure.source} others={figure.others?.map(sanitizeSummary)}
          charts={charts} controls={false} theme={figure.theme} width={figure.width}
          heights={figure.height && !stack ? { [figure.chart]: figure.height } : undefined}
          timeRange={figure.range ?? null} binMs={figure.binMs ?? null} stallMs={figure.stallMs ?? null}
          direction={figure.direction} onReady={resolve} wifi={stack ? figure.wifi : figure.chart === 'wifi'}
        />
        </ErrorBoundary>,
      );
    });
    // Ready fires from the effect that saw the answer; the chart draws in the effects
    // after it (or on the next animation frame where there are frames): let them run.
    await new Promise<void>((resolve) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => resolve()) : setTimeout(resolve, 0)));
    // A chart that cannot draw says why in its box (ChartMessages, ErrorBoundary).
    const failure = host.querySelector('.tcps-failure, [role="alert"]')?.textContent;
    if (failure) throw new Error(failure);
    if (stack) return stackToString(stackCharts(host), stackHeadline(summary), stackSubtitle(summary));
    const svg = host.querySelector<SVGSVGElement>(`svg[data-chart="${figure.chart}"]`);
    if (!svg) throw new Error(`the ${figure.chart} chart did not draw`);
    return svgToString(svg);
  } finally {
    root.unmount();
    host.remove();
  }
}
