// Chart 2, bytes in flight vs receive window (data-chart="inflight"): bytes in flight at
// each data segment (dots or a step line), the peer's advertised window as a step line,
// shaded spans where in flight reached the window ("window-limited", the very spans
// the diagnosis's receive-window share adds up), and marks where the peer advertised
// a zero window. Optionally a second line: the SACK-adjusted pipe (RFC 6675 §2, what
// Wireshark calls tcp.analysis.bytes_in_flight), series "pipe". Dashed window with a
// note when the scale is unknown. All numbers are the view engine's answers (M4 per
// pixel column, wasm/src/view); this file draws.

import * as d3 from 'd3';
import type { ViewAnswer, PackedPoints } from '../worker/viewAnswer';
import type { ConnectionSummary } from '../model/types';
import type { ViewSource } from '../worker/viewSource';
import { beginFrame, byteTicks, drawEmpty, drawTimeAxis, drawYAxis, yTickCount, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { m4BarsPath, m4Max, m4StepPath } from './m4Paths';
import { formatBytes, formatCount, formatDuration, formatTime } from './units';
import { chartTitle, directionLabel, useD3, type ChartProps } from './common';
import { ChartMessages } from './ChartMessages';
import { peerOf, useSeriesAnswers, type Dir } from './useViewAnswers';
import { drawIntervals, intervalsOf, type IntervalAnswer } from './intervalMarks';

export type InflightMode = 'dots' | 'step';

export interface InflightModel {
  inflight: PackedPoints | null;
  rwnd: PackedPoints | null;
  limited: IntervalAnswer | null;
  /** The SACK-adjusted pipe, when the line is shown. */
  pipe?: PackedPoints | null;
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
    chart: 'inflight', title: chartTitle('Bytes in flight vs receive window', m.summary), view,
    description: `Bytes in flight of ${directionLabel(m.summary, m.direction)}` +
      (s.maxBytesInFlight != null ? ` (max ${formatBytes(s.maxBytesInFlight)})` : '') +
      ` against the advertised receive window${scaleUnknown ? ' (scale unknown)' : ''}` +
      (limited ? `; window-limited for ${formatDuration(limited.totalSeconds)} in all` : '') +
      (m.pipe ? '; a second line shows the SACK-adjusted pipe (RFC 6675), the bytes in flight less those the receiver SACKed, as Wireshark counts them' : '') + '.',
  });
  const ymax = Math.max(m4Max(m.inflight), m4Max(m.rwnd)) * 1.08 || 1;
  const y = d3.scaleLinear().domain([0, ymax]).range([f.innerHeight, 0]);
  drawYAxis(f, y, formatBytes, 'bytes', byteTicks(0, ymax, yTickCount(f)));
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

  // Drawn over the outstanding bytes: the pipe never exceeds them and departs from
  // them only while the receiver SACKs data above a hole.
  if (m.pipe) {
    f.plot.append('path').attr('class', 'tcps-pipe').attr('data-points', m.pipe.column.length)
      .attr('d', m4StepPath(m.pipe, f.x, y));
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
    const ask = (series: 'inflight' | 'rwnd' | 'pipe') => at({ connection: m.summary.id, series, direction: m.direction, t });
    // The pipe's value is in every tooltip, line shown or not, so the number can be
    // matched with Wireshark's bytes-in-flight column (a shared link lacks it: null).
    const [p, win, pipe] = await Promise.all([ask('inflight'), ask('rwnd'), ask('pipe').catch(() => null)]);
    if (!p || p.value == null) return null;
    const lines = [
      `in flight at ${formatTime(p.t)}: ${formatCount(p.value)} B (${formatBytes(p.value)})`,
      win?.value != null
        // With the scale unknown the raw field is a lower bound of the window: "≥" leads.
        ? `receive window at ${formatTime(win.t)}: ${scaleUnknown ? '≥ ' : ''}${formatCount(win.value)} B (${formatBytes(win.value)})${scaleUnknown ? ', scale unknown' : ''}`
        : 'receive window: not seen',
      ...(pipe?.value != null ? [`SACK-adjusted pipe at ${formatTime(pipe.t)}: ${formatCount(pipe.value)} B (${formatBytes(pipe.value)})`] : []),
    ];
    return { x: f.x(p.t), y: y(p.value), lines };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

export interface InflightChartProps extends ChartProps {
  mode?: InflightMode;
  /** Draw the SACK-adjusted pipe as a second line (default false: see ConnectionCharts). */
  pipe?: boolean;
}

const SERIES = ['inflight', 'rwnd', 'windowLimited'] as const;
const WITH_PIPE = [...SERIES, 'pipe'] as const;

export function InflightChart({ source, summary, direction, view, onRangeChange, hover, onDrawn, mode = 'dots', pipe = false }: InflightChartProps) {
  const { answers, failure } = useSeriesAnswers(source, summary.id, direction, view, [...(pipe ? WITH_PIPE : SERIES)], onDrawn);
  const model: InflightModel = {
    inflight: pointsOf(answers[0]), rwnd: pointsOf(answers[1]), limited: intervalsOf(answers[2]), pipe: pipe ? pointsOf(answers[3]) : null, summary, direction, source,
  };
  const ref = useD3((svg) => drawInflight(svg, model, view, mode, onRangeChange, hover), [answers, view, mode, onRangeChange, hover]);
  const scaleUnknown = summary.directions[peerOf(direction)].windowScaleUnknown;
  return (
    <>
      <svg ref={ref} />
      <ChartMessages answers={answers} failure={failure} />
      <ul className="tcps-legend" aria-label="In-flight chart legend">
        <li><span className="tcps-swatch tcps-s-inflight" />bytes in flight</li>
        {pipe && <li><span className="tcps-swatch tcps-s-pipe" />SACK-adjusted pipe (Wireshark's bytes in flight)</li>}
        <li><span className={`tcps-swatch tcps-s-window${scaleUnknown ? ' tcps-dashed' : ''}`} />advertised receive window{scaleUnknown ? ' (lower bound)' : ''}</li>
        <li><span className="tcps-swatch tcps-s-limited" />window-limited</li>
        <li><span className="tcps-swatch tcps-s-zero-window" />zero window</li>
      </ul>
    </>
  );
}
