// Chart 2, bytes in flight vs receive window (data-chart="inflight"): bytes in flight at
// each data segment (dots or a step line), the peer's advertised window as a step line,
// shaded spans where in flight reached the window ("window-limited", the very spans
// the diagnosis's receive-window share adds up), and marks where the peer advertised
// a zero window. Dashed window with a note when the scale is unknown. All numbers are
// the view engine's answers (M4 per pixel column, wasm/src/view); this file draws.

import { useMemo } from 'react';
import * as d3 from 'd3';
import type { ViewAnswer, PackedPoints } from '../worker/viewAnswer';
import type { ConnectionSummary } from '../model/types';
import type { ViewSource } from '../worker/viewSource';
import { beginFrame, byteTicks, drawEmpty, drawTimeAxis, drawYAxis, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { m4BarsPath, m4Max, m4StepPath } from './m4Paths';
import { formatBytes, formatCount, formatDuration, formatTime } from './units';
import { directionLabel, useD3, type ChartProps } from './common';
import { ChartMessages } from './ChartMessages';
import { peerOf, plotColumns, useDrawnSignal, useViewAnswers, type Dir } from './useViewAnswers';
import { drawIntervals, intervalsOf, type IntervalAnswer } from './intervalMarks';

export type InflightMode = 'dots' | 'step';

export interface InflightModel {
  inflight: PackedPoints | null;
  rwnd: PackedPoints | null;
  limited: IntervalAnswer | null;
  summary: ConnectionSummary;
  direction: Dir;
  source?: ViewSource;
}

export const pointsOf = (a: ViewAnswer | null | undefined): PackedPoints | null => (a && a.kind === 'points' ? a : null);

export function drawInflight(
  svgEl: SVGSVGElement, m: InflightModel, view: ChartView, mode: InflightMode = 'dots',
  onRangeChange?: (r: [number, number]) => void, hover?: HoverBus,
): void {
  const s = m.summary.directions[m.direction];
  const scaleUnknown = m.summary.directions[peerOf(m.direction)].windowScaleUnknown;
  const limited = m.limited;
  const f = beginFrame(svgEl, {
    chart: 'inflight', title: 'Bytes in flight vs receive window', view,
    description: `Bytes in flight of ${directionLabel(m.summary, m.direction)}` +
      (s.maxBytesInFlight != null ? ` (max ${formatBytes(s.maxBytesInFlight)})` : '') +
      ` against the advertised receive window${scaleUnknown ? ' (scale unknown)' : ''}` +
      (limited ? `; window-limited for ${formatDuration(limited.totalSeconds)} in all` : '') + '.',
  });
  const ymax = Math.max(m4Max(m.inflight), m4Max(m.rwnd)) * 1.08 || 1;
  const y = d3.scaleLinear().domain([0, ymax]).range([f.innerHeight, 0]);
  drawYAxis(f, y, formatBytes, 'bytes', byteTicks(0, ymax, Math.max(2, Math.floor(f.innerHeight / 40))));
  drawTimeAxis(f);
  if (m.inflight && m.inflight.total === 0 && !m.inflight.before && !m.inflight.after) drawEmpty(f, 'No data segments in this view');

  // Window-limited spans first, under everything else.
  if (limited) drawIntervals(f, 'tcps-limited', limited, 0, f.innerHeight);

  const winPath = f.plot.append('path').attr('class', 'tcps-window').attr('data-points', m.rwnd?.column.length ?? 0)
    .attr('d', m.rwnd ? m4StepPath(m.rwnd, f.x, y, f.x(m.summary.end)) : '');
  if (scaleUnknown) winPath.classed('tcps-dashed', true).attr('stroke-dasharray', '6 4');

  const fl = m.inflight;
  if (mode === 'step') {
    f.plot.append('path').attr('class', 'tcps-inflight tcps-inflight-step').attr('data-points', fl?.column.length ?? 0)
      .attr('d', fl ? m4StepPath(fl, f.x, y) : '');
  } else {
    f.plot.append('path').attr('class', 'tcps-inflight tcps-dots').attr('data-points', fl?.column.length ?? 0)
      .attr('d', fl ? m4BarsPath(fl, f.x, y) : '');
  }

  // A pixel column whose smallest advertised window is 0 saw a zero window.
  const zero: number[] = [];
  const w = m.rwnd;
  if (w) for (let k = 0; k < w.column.length; k++) if (w.min[k] === 0) zero.push(w.tFirst[k]);
  f.plot.append('g').attr('class', 'tcps-zero-window').attr('data-count', zero.length)
    .selectAll('path').data(zero).join('path')
    .attr('d', (t) => `M${f.x(t)},${f.innerHeight}l-5,-9h10z`)
    .append('title').text((t) => `zero window advertised at ${formatTime(t)}`);

  const pick: Pick = async (t) => {
    const at = m.source?.at;
    if (!at) return null;
    const [p, win] = await Promise.all([
      at({ connection: m.summary.id, series: 'inflight', direction: m.direction, t }),
      at({ connection: m.summary.id, series: 'rwnd', direction: m.direction, t }),
    ]);
    if (!p || p.value == null) return null;
    const lines = [
      `in flight at ${formatTime(p.t)}: ${formatCount(p.value)} B (${formatBytes(p.value)})`,
      win?.value != null
        ? `receive window at ${formatTime(win.t)}: ${formatCount(win.value)} B (${formatBytes(win.value)})${scaleUnknown ? ' ≥, scale unknown' : ''}`
        : 'receive window: not seen',
    ];
    return { x: f.x(p.t), y: y(p.value), lines };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

export interface InflightChartProps extends ChartProps {
  mode?: InflightMode;
}

export function InflightChart({ source, summary, direction, view, onRangeChange, hover, onDrawn, mode = 'dots' }: InflightChartProps) {
  const queries = useMemo(() => {
    const base = { connection: summary.id, direction, t0: view.range[0], t1: view.range[1], columns: plotColumns(view) };
    return [{ ...base, series: 'inflight' as const }, { ...base, series: 'rwnd' as const }, { ...base, series: 'windowLimited' as const }];
  }, [summary.id, direction, view]);
  const got = useViewAnswers(source, queries);
  const { answers, failure } = got;
  useDrawnSignal(got, onDrawn);
  const model: InflightModel = { inflight: pointsOf(answers[0]), rwnd: pointsOf(answers[1]), limited: intervalsOf(answers[2]), summary, direction, source };
  const ref = useD3((svg) => drawInflight(svg, model, view, mode, onRangeChange, hover), [answers, view, mode, onRangeChange, hover]);
  const scaleUnknown = summary.directions[peerOf(direction)].windowScaleUnknown;
  return (
    <>
      <svg ref={ref} />
      <ChartMessages answers={answers} failure={failure} />
      <ul className="tcps-legend" aria-label="In-flight chart legend">
        <li><span className="tcps-swatch tcps-s-inflight" />bytes in flight</li>
        <li><span className={`tcps-swatch tcps-s-window${scaleUnknown ? ' tcps-dashed' : ''}`} />advertised receive window{scaleUnknown ? ' (lower bound)' : ''}</li>
        <li><span className="tcps-swatch tcps-s-limited" />window-limited</li>
        <li><span className="tcps-swatch tcps-s-zero-window" />zero window</li>
      </ul>
    </>
  );
}
