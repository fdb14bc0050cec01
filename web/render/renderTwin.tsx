// The static renderer's merged view (issue 44, item 5): `tcpscope render A --other-end B
// --chart oneway` and `tcpscope render LINK` of a link holding a merged view draw the
// one-way delay charts of one pair exactly as the page's merged view does (TwinArea.tsx:
// one OneWayDelayChart per direction on the merged axis, its stalls as bands, in the
// page's `.tcps-charts` box and theme), and save them through the page's own export: one
// direction alone (svg.ts), both under a title line as the stack export writes them
// (stack.ts). It needs a DOM and nothing else: the CLI's jsdom (node.tsx) or Vitest's.

import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import type { TwinPair } from '../worker/generated/view';
import { fullRange } from '../charts/timeRange';
import { formatMs } from '../model/format.mjs';
import { OneWayDelayChart } from '../compare/OneWayDelayChart';
import { svgToString } from '../export/svg';
import { stackToString } from '../export/stack';
import { ErrorBoundary } from '../components/ErrorBoundary';

/** The page's height of a delay chart (TwinArea.tsx). */
const DELAY_HEIGHT = 200;

export interface TwinFigure {
  pair: TwinPair;
  /** Outer width of each chart, px; `height`: each chart's (default the page's). */
  width: number;
  height?: number;
  theme: 'light' | 'dark';
  /** One direction alone (0 forward, 1 return); both when absent. */
  direction?: 0 | 1;
}

/** The title line over both directions, and the line under it. */
export function twinHeadline(pair: TwinPair): [string, string] {
  const c = pair.clock;
  const clock = c ? `; clock offset ${formatMs(c.offsetMs)} ± ${formatMs(c.uncertaintyMs)}` : '';
  return ['Two vantage points: one-way delay', `${pair.senderSide.endpoints.join(' → ')}, queued: ${pair.queued}${clock}`];
}

/** The standalone SVG of the pair's one-way delay charts, as the page's export writes them. */
export async function renderTwinSvg(figure: TwinFigure): Promise<string> {
  const { pair } = figure;
  if (pair.refused) throw new Error(`this connection was not merged: ${pair.refused}`);
  if (pair.directions.length === 0) throw new Error('this pair has no direction seen at both points');
  // The merged view's axis, as TwinArea.tsx sets it: from 0 to the last bin or stall.
  let end = 0;
  for (const d of pair.directions) for (const b of d.delaySeries) end = Math.max(end, b.t + b.width);
  for (const st of pair.stalls) end = Math.max(end, st.at + st.duration);
  const full = fullRange(0, end);
  const view = { range: full, full, width: figure.width, height: figure.height ?? DELAY_HEIGHT };
  const models = pair.directions.map((d, k) => ({ direction: k as 0 | 1, d, stalls: pair.stalls.filter((s) => s.direction === k) }))
    .filter((m) => figure.direction === undefined || m.direction === figure.direction);
  const host = document.createElement('div');
  document.body.append(host);
  const root = createRoot(host);
  const caught: { error?: Error } = {};
  try {
    // Synchronous: each chart draws its first picture in its first effect (charts/useD3.ts).
    flushSync(() => root.render(
      <ErrorBoundary what="merged view" onError={(e) => { caught.error = e; }}>
        <div className="tcps-charts twin-charts" data-theme={figure.theme}>
          {models.map((model) => <OneWayDelayChart key={model.direction} view={view} model={model} />)}
        </div>
      </ErrorBoundary>,
    ));
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    if (caught.error) throw caught.error;
    const svgs = Array.from(host.querySelectorAll<SVGSVGElement>('svg[data-chart="one-way-delay"]'));
    if (svgs.length !== models.length || svgs.some((s) => s.dataset.drawn !== 'true')) throw new Error('the one-way delay chart did not draw');
    if (svgs.length === 1) return svgToString(svgs[0]);
    const [headline, subtitle] = twinHeadline(pair);
    return stackToString(svgs, headline, subtitle);
  } finally {
    root.unmount();
    host.remove();
  }
}
