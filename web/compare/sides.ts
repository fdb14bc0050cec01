// The two sides of a compare view and the one time axis they share. Each side is a
// connection with the ViewSource of its own capture (a second capture has its own
// worker); its time axis starts at its own first packet. The offset (the connection's
// `start`) only places marks: every number drawn or written is its source's answer.
import type { ConnectionSummary } from '../model/types';
import type { ViewQuery, ViewSource } from '../worker/viewSource';
import type { Series } from '../worker/generated/view';
import type { ChartView, FrameSpec } from '../charts/frame';
import { fullRange, type TimeRange } from '../charts/timeRange';
import { directionLabel } from '../charts/common';
import { plotColumns } from '../charts/useViewAnswers';
import { isolated } from '../security/outsideText';

export type Letter = 'A' | 'B';

export interface CompareSide {
  letter: Letter;
  /** The capture's file name (or the shared snapshot's). */
  name: string;
  summary: ConnectionSummary;
  source: ViewSource;
}

/** CSS class of a side's colour (compare.css: blue and vermillion, Okabe–Ito). */
export const sideClass = (letter: Letter) => `tcps-cmp-${letter.toLowerCase()}`;

/** "A: healthy.pcap #1 10.0.0.1:5001 → 10.0.0.2:40000": what the legend calls a side. */
export function sideLabel(side: CompareSide): string {
  return `${side.letter}: ${isolated(side.name)} #${side.summary.id} ${directionLabel(side.summary, side.summary.dataDirection as 0 | 1)}`;
}

/** The shared axis' extent: from 0 (each one's first packet) to the longer one's end. */
export function compareFull(sides: readonly Pick<CompareSide, 'summary'>[]): TimeRange {
  return fullRange(0, Math.max(...sides.map((s) => s.summary.end - s.summary.start)));
}

/** The question about `series` of one side over the shared view: its own times, its own source. */
export function sideQuery(side: CompareSide, view: ChartView, series: Series, extra: Partial<ViewQuery> = {}): ViewQuery {
  const { summary } = side;
  return {
    connection: summary.id, series, direction: summary.dataDirection,
    t0: summary.start + view.range[0], t1: summary.start + view.range[1], columns: plotColumns(view), ...extra,
  };
}

/** The shared throughput bin: the coarser of the two summaries' own bins (each is the
 *  bin its summary's peak was found with), so both series are binned alike. */
export function compareBinSeconds(sides: readonly CompareSide[], binMs: number | null): number {
  return binMs != null ? binMs / 1000 : Math.max(...sides.map((s) => s.summary.directions[s.summary.dataDirection].throughput.binSeconds));
}

/** The compare charts draw in the shared frame (frame.ts) under their own data-chart;
 *  frame.ts types only the stack's ids, so the name is passed through as one. */
export const compareChart = (id: 'compare-throughput' | 'compare-inflight') => id as string as FrameSpec['chart'];
