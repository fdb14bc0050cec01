// Compare chart 2 (data-chart="compare-inflight"): bytes in flight (step line) against
// the advertised receive window (dashed) of both sides, each from its own first packet,
// in each side's colour. The points are the engine's M4 answers (wasm/src/view) of each
// side's own source; here they are only shifted by each side's start.

import * as d3 from 'd3';
import type { ViewAnswer } from '../worker/viewAnswer';
import { beginFrame, byteTicks, drawTimeAxis, drawYAxis, yTickCount, type ChartView } from '../charts/frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from '../charts/interaction';
import { m4Max, m4StepPath } from '../charts/m4Paths';
import { pointsOf } from '../charts/InflightChart';
import { formatBytes, formatCount, formatTime } from '../charts/units';
import { useD3 } from '../charts/common';
import { ChartMessages } from '../charts/ChartMessages';
import type { TimeRange } from '../charts/timeRange';
import { COMPARE_AXIS_LABEL, type CompareChartProps } from './CompareThroughputChart';
import { compareChart, sideClass, sideLabel, sideQuery, type CompareSide } from './sides';
import { useSideAnswers } from './useSideAnswers';
import { isolated } from '../security/outsideText';
import { CHART_SERIES } from '../worker/generated/vocabulary';

export interface CompareInflightModel {
  sides: readonly CompareSide[];
  /** Per side: [inflight, rwnd] answers (null while on their way). */
  answers: [ViewAnswer | null, ViewAnswer | null][];
}

/** The in-flight chart's lines; the compare view draws no window-limited spans. */
const SERIES = CHART_SERIES.inflight.filter((s) => s !== 'windowLimited');

export function drawCompareInflight(
  svgEl: SVGSVGElement, m: CompareInflightModel, view: ChartView,
  onRangeChange?: (r: TimeRange) => void, hover?: HoverBus,
): void {
  const f = beginFrame(svgEl, {
    chart: compareChart('compare-inflight'), title: 'Bytes in flight vs receive window, compared', view,
    description: 'Bytes in flight and the advertised receive window of two connections from each one\'s first packet. ' +
      m.sides.map((s) => {
        const d = s.summary.directions[s.summary.dataDirection];
        const peer = s.summary.directions[1 - s.summary.dataDirection];
        return `${sideLabel(s)}: max in flight ${d.maxBytesInFlight == null ? 'unknown' : formatBytes(d.maxBytesInFlight)}` +
          (peer.receiveWindow ? `, window ${formatBytes(peer.receiveWindow.min)} to ${formatBytes(peer.receiveWindow.max)}` : '');
      }).join('. ') + '.',
  });
  const points = m.answers.map(([a, b]) => [pointsOf(a), pointsOf(b)] as const);
  const ymax = Math.max(0, ...points.flat().map(m4Max)) * 1.08 || 1;
  const y = d3.scaleLinear().domain([0, ymax]).range([f.innerHeight, 0]);
  drawYAxis(f, y, formatBytes, 'bytes', byteTicks(0, ymax, yTickCount(f)));
  drawTimeAxis(f, COMPARE_AXIS_LABEL);
  m.sides.forEach((side, k) => {
    const offset = side.summary.start;
    const x = (t: number) => f.x(t - offset);
    SERIES.forEach((series, j) => {
      const p = points[k][j];
      f.plot.append('path').attr('class', `tcps-rate ${sideClass(side.letter)}${series === 'rwnd' ? ' tcps-cmp-window' : ''}`)
        .attr('data-series', `${side.letter}-${series}`).attr('data-offset', offset).attr('data-points', p?.column.length ?? 0)
        .attr('d', p ? m4StepPath(p, x, y, series === 'rwnd' ? x(side.summary.end) : undefined) : '');
    });
  });
  // The exact values under the pointer, asked of each side's engine at its own time (view/at.rs).
  const pick: Pick = async (t) => {
    const found = await Promise.all(m.sides.map(async (side) => {
      const at = side.source.at;
      if (!at) return null;
      const ask = (series: 'inflight' | 'rwnd') => at({ connection: side.summary.id, series, direction: side.summary.dataDirection, t: t + side.summary.start });
      const [p, win] = await Promise.all([ask('inflight'), ask('rwnd')]);
      return p?.value == null ? null : { side, p: { t: p.t, value: p.value }, win: win?.value ?? null };
    }));
    // Each value with the engine's own time of it (in its capture): nothing is recomputed.
    const lines = [`${formatTime(t)} from each one's start`, ...found.flatMap((r) => (r ? [`${r.side.letter}: ${formatCount(r.p.value)} B in flight` +
      (r.win == null ? '' : `, window ${formatCount(r.win)} B`) + ` (at ${formatTime(r.p.t)} of ${isolated(r.side.name)})`] : []))];
    const first = found.find((r) => r);
    return first ? { x: f.x(first.p.t - first.side.summary.start), y: y(first.p.value), lines } : null;
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

export function CompareInflightChart({ sides, view, onRangeChange, hover, onDrawn }: CompareChartProps) {
  const got = useSideAnswers(sides, (s) => SERIES.map((series) => sideQuery(s, view, series)), JSON.stringify(view), onDrawn);
  const answers = got.sides.map((s) => [s.answers[0] ?? null, s.answers[1] ?? null] as [ViewAnswer | null, ViewAnswer | null]);
  const ref = useD3((svg) => drawCompareInflight(svg, { sides, answers }, view, onRangeChange, hover), [...answers.flat(), view, onRangeChange, hover]);
  return (
    <>
      <svg ref={ref} />
      <ChartMessages answers={answers.flat()} failure={got.failure} />
      <ul className="tcps-legend" aria-label="Compared connections: in flight and window">
        {sides.map((s) => (
          <li key={s.letter}>
            <span className={`tcps-swatch ${sideClass(s.letter)}`} />{s.letter} in flight
            {' '}<span className={`tcps-swatch tcps-cmp-window-swatch ${sideClass(s.letter)}`} />{s.letter} receive window
          </li>
        ))}
      </ul>
    </>
  );
}
