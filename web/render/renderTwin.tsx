// The static renderer's merged view (issue 44, item 5): `tcpscope render A --other-end B
// --chart oneway|twin-sequence|twin` and `tcpscope render LINK` of a link holding a merged view
// draw one pair's charts exactly as the page's merged view does (TwinArea.tsx: the
// time-sequence chart of each capture, then one OneWayDelayChart per direction, on the
// merged axis, in the page's `.tcps-charts` box and theme), and save them through the
// page's own export: one chart alone (svg.ts), several under a title line as the stack
// export writes them (stack.ts). It needs a DOM and nothing else: the CLI's jsdom
// (node.tsx) or Vitest's. The panel is words and numbers: `tcpscope analyze --other-end`.

import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import type { TwinPair } from '../worker/generated/view';
import { fullRange } from '../charts/timeRange';
import { formatMs } from '../model/format.mjs';
import { OneWayDelayChart } from '../compare/OneWayDelayChart';
import { TwinSequenceChart } from '../compare/TwinSequenceChart';
import { svgToString } from '../export/svg';
import { stackToString } from '../export/stack';
import { ErrorBoundary } from '../components/ErrorBoundary';

/** The page's heights of a delay chart and a time-sequence chart (TwinArea.tsx). */
const DELAY_HEIGHT = 200;
const SEQUENCE_HEIGHT = 260;

/** `oneway`: each direction's one-way delay; `twin-sequence`: each capture's
 *  time-sequence; `twin`: both, in the page's order. */
export const TWIN_FIGURES = ['oneway', 'twin-sequence', 'twin'] as const;

export interface TwinFigure {
  pair: TwinPair;
  chart: (typeof TWIN_FIGURES)[number];
  /** The two inputs' names (`input` 0 and 1), for the charts' descriptions. */
  names: [string, string];
  /** Outer width of each chart, px; `height`: each chart's (default the page's). */
  width: number;
  height?: number;
  theme: 'light' | 'dark';
  /** `oneway`: one direction alone (0 forward, 1 return); both when absent. */
  direction?: 0 | 1;
}

/** The title line over several charts, and the line under it. */
export function twinHeadline(pair: TwinPair, chart: TwinFigure['chart']): [string, string] {
  const c = pair.clock;
  const clock = c ? `; clock offset ${formatMs(c.offsetMs)} ± ${formatMs(c.uncertaintyMs)}` : '';
  const what = { oneway: 'one-way delay', 'twin-sequence': 'time-sequence at each end', twin: 'time-sequence and one-way delay' }[chart];
  return [`Two vantage points: ${what}`, `${pair.senderSide.endpoints.join(' → ')}, queued: ${pair.queued}${clock}`];
}

/** The standalone SVG of the pair's one-way delay charts, as the page's export writes them. */
export async function renderTwinSvg(figure: TwinFigure): Promise<string> {
  const { pair } = figure;
  if (pair.refused) throw new Error(`this connection was not merged: ${pair.refused}`);
  if (pair.directions.length === 0) throw new Error('this pair has no direction seen at both points');
  // The merged view's axis, as TwinArea.tsx sets it: from the first time-sequence bin (or
  // 0) to the last bin or stall.
  let end = 0;
  for (const d of pair.directions) for (const b of d.delaySeries) end = Math.max(end, b.t + b.width);
  for (const st of pair.stalls) end = Math.max(end, st.at + st.duration);
  const seq = pair.sequence;
  for (const side of seq ? [seq.senderSide, seq.receiverSide] : []) for (const b of side.bins) end = Math.max(end, b.t + seq!.binWidth);
  const full = fullRange(Math.min(0, seq?.start ?? 0), end);
  const view = { range: full, full, width: figure.width, height: figure.height ?? DELAY_HEIGHT };
  const sequenceView = { ...view, height: figure.height ?? SEQUENCE_HEIGHT };
  const delays = figure.chart === 'twin-sequence' ? [] : pair.directions.map((d, k) => ({ direction: k as 0 | 1, d, stalls: pair.stalls.filter((s) => s.direction === k) }))
    .filter((m) => figure.direction === undefined || m.direction === figure.direction);
  const sequences = figure.chart === 'oneway' || !seq ? [] : (['sender-side', 'receiver-side'] as const)
    .map((capture) => ({ capture, pair, name: figure.names[(capture === 'sender-side' ? pair.senderSide : pair.receiverSide).input] }));
  if (figure.chart === 'twin-sequence' && !seq) throw new Error('this pair has no time-sequence series');
  const count = delays.length + sequences.length;
  const host = document.createElement('div');
  document.body.append(host);
  const root = createRoot(host);
  const caught: { error?: Error } = {};
  try {
    // Synchronous: each chart draws its first picture in its first effect (charts/useD3.ts).
    flushSync(() => root.render(
      <ErrorBoundary what="merged view" onError={(e) => { caught.error = e; }}>
        <div className="tcps-charts twin-charts" data-theme={figure.theme}>
          {sequences.map((model) => <TwinSequenceChart key={model.capture} view={sequenceView} model={model} />)}
          {delays.map((model) => <OneWayDelayChart key={model.direction} view={view} model={model} />)}
        </div>
      </ErrorBoundary>,
    ));
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    if (caught.error) throw caught.error;
    const svgs = Array.from(host.querySelectorAll<SVGSVGElement>('svg[data-chart="twin-sequence"], svg[data-chart="one-way-delay"]'));
    // Each chart drew its frame (charts/frame.ts `beginFrame`) in its first effect.
    if (svgs.length !== count || svgs.some((s) => !s.querySelector('g.tcps-content'))) throw new Error('the merged view\'s charts did not draw');
    if (svgs.length === 1) return svgToString(svgs[0]);
    const [headline, subtitle] = twinHeadline(pair, figure.chart);
    return stackToString(svgs, headline, subtitle);
  } finally {
    root.unmount();
    host.remove();
  }
}
