// Props and small helpers shared by the chart components.

import { processLabel, type ConnectionSummary } from '../model/types';
import { isolated } from '../security/outsideText';
import type { ViewSource } from '../worker/viewSource';
import type { ChartView } from './frame';
import type { HoverBus } from './interaction';
import type { TimeRange } from './timeRange';
import type { Dir } from './useViewAnswers';

/** Props every chart component takes; ConnectionCharts supplies them. */
export interface ChartProps {
  /** Where the numbers come from: the view engine of this connection's capture. */
  source: ViewSource;
  summary: ConnectionSummary;
  /** The direction whose data transfer is analysed (default summary.dataDirection). */
  direction: Dir;
  /** Shared time range and the outer size of this chart's svg. */
  view: ChartView;
  onRangeChange?: (r: TimeRange) => void;
  /** Shared hover time, for the crosshair across the stack. */
  hover?: HoverBus;
  /** Called once the first complete answer is drawn (or the chart knows it cannot draw). */
  onDrawn?: () => void;
}

// Drawing at most once per frame, and only on screen (useD3.ts).
export { useD3 } from './useD3';

/**
 * A chart's title naming the process behind the connection when the capture recorded
 * it (PKTAP / Apple pcapng, issue 17 item 1): "Throughput — Safari (pid 512)". The svg's
 * <title> and drawn title carry it, so an exported SVG/PNG says which app it shows.
 */
export function chartTitle(title: string, summary: ConnectionSummary): string {
  // Isolated (FSI…PDI where it is not plain ASCII): right-to-left letters in a process
  // name cannot reorder the title around it (issue 45, item 12).
  return summary.process ? `${title} — ${isolated(processLabel(summary.process), 200)}` : title;
}

/** "host:port → host:port" for a direction of the connection. */
export function directionLabel(summary: ConnectionSummary, d: Dir): string {
  const s = summary.directions[d];
  return `${s.from} → ${s.to}`;
}

export const frameText = (frame: number) => `frame ${frame}`;
