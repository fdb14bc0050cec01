// Props and small helpers shared by the chart components.

import { useEffect, useRef } from 'react';
import type { ConnectionData } from '../model/types';
import type { Dir } from '../model/series';
import type { ChartView } from './frame';
import type { HoverBus } from './interaction';
import type { TimeRange } from './timeRange';

/** Props every chart component takes; ConnectionCharts supplies them. */
export interface ChartProps {
  data: ConnectionData;
  /** The direction whose data transfer is analysed (default summary.dataDirection). */
  direction: Dir;
  /** Shared time range and the outer size of this chart's svg. */
  view: ChartView;
  onRangeChange?: (r: TimeRange) => void;
  /** Shared hover time, for the crosshair across the stack. */
  hover?: HoverBus;
}

/**
 * React owns the <svg>; D3 draws into it after every render where `deps` changed.
 * Returns the ref to put on the <svg>.
 */
export function useD3(draw: (svg: SVGSVGElement) => void, deps: unknown[]) {
  const ref = useRef<SVGSVGElement>(null);
  useEffect(() => {
    if (ref.current) draw(ref.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return ref;
}

/** "host:port → host:port" for a direction of the connection. */
export function directionLabel(data: ConnectionData, d: Dir): string {
  const s = data.summary.directions[d];
  return `${s.from} → ${s.to}`;
}

export const frameText = (frame: number) => `frame ${frame}`;
