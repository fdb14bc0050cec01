// Compare chart 1 (data-chart="compare-throughput"): the payload rate of both sides on
// one time axis, each from its own first packet, in two colours. Both are asked with
// the same bin (sides.ts compareBinSeconds) of their own source; the bars are the
// engine's (wasm/src/view/rates.rs); here they are only shifted by each side's start.

import * as d3 from 'd3';
import type { ViewAnswer } from '../worker/viewAnswer';
import { binsOf } from '../charts/ThroughputChart';
import { beginFrame, drawEmpty, drawTimeAxis, drawYAxis, wholeTicks, yTickCount, type ChartView } from '../charts/frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from '../charts/interaction';
import { stepPath } from '../charts/paths';
import { formatBitrate, formatBytes, formatDuration, formatTime } from '../charts/units';
import { useD3 } from '../charts/common';
import { ChartMessages } from '../charts/ChartMessages';
import type { TimeRange } from '../charts/timeRange';
import { compareChart, sideClass, sideLabel, sideQuery, type CompareSide } from './sides';
import { useSideAnswers } from './useSideAnswers';

export const COMPARE_AXIS_LABEL = "Time since each connection's first packet (s)";

export interface CompareThroughputModel {
  sides: readonly CompareSide[];
  /** Each side's throughput answer (null while on its way). */
  answers: (ViewAnswer | null)[];
}

/** Draw both sides' payload rates into `svgEl`; pure apart from the DOM it writes. */
export function drawCompareThroughput(
  svgEl: SVGSVGElement, m: CompareThroughputModel, view: ChartView,
  onRangeChange?: (r: TimeRange) => void, hover?: HoverBus,
): void {
  const bins = m.answers.map(binsOf);
  const described = m.sides.map((s, k) => {
    const t = s.summary.directions[s.summary.dataDirection].throughput;
    const b = bins[k];
    return `${sideLabel(s)}: mean ${formatBitrate(t.meanBps)}, peak ${formatBitrate(t.peakBps)}` + (b ? `, ${b.bps.length} bins of ${formatDuration(b.binSeconds)} in view` : '');
  });
  const f = beginFrame(svgEl, {
    chart: compareChart('compare-throughput'), title: 'Throughput, compared', view,
    description: `Payload rate of two connections from each one's first packet. ${described.join('. ')}.`,
  });
  let ymax = 0;
  for (const b of bins) for (const v of b?.bps ?? []) if (v > ymax) ymax = v;
  const y = d3.scaleLinear().domain([0, ymax > 0 ? ymax * 1.08 : 1]).range([f.innerHeight, 0]).nice();
  drawYAxis(f, y, formatBitrate, 'bit/s', wholeTicks(y, yTickCount(f)));
  drawTimeAxis(f, COMPARE_AXIS_LABEL);
  if (bins.every((b) => b && b.bps.every((v) => v === 0))) drawEmpty(f, 'No payload in this view');

  m.sides.forEach((side, k) => {
    const b = bins[k];
    const offset = side.summary.start;
    const path = f.plot.append('path').attr('class', `tcps-rate ${sideClass(side.letter)}`)
      .attr('data-series', side.letter).attr('data-offset', offset).attr('data-points', b?.bps.length ?? 0);
    if (!b || b.bps.length === 0) return;
    const x = (i: number) => f.x(b.start + i * b.binSeconds - offset);
    path.attr('d', stepPath(Uint32Array.from(b.bps.keys()), x, (i) => y(b.bps[i]), x(b.bps.length)))
      .attr('data-bin', b.binSeconds).attr('data-first-x', x(0)).attr('data-max-bps', d3.max(b.bps) ?? 0);
  });

  const pick: Pick = (t) => {
    const lines = [`${formatTime(t)} from each one's start`];
    let at: { x: number; y: number } | null = null;
    m.sides.forEach((side, k) => {
      const b = bins[k];
      const j = b ? Math.floor((t + side.summary.start - b.start) / b.binSeconds) : -1;
      if (!b || j < 0 || j >= b.bps.length) return;
      lines.push(`${side.letter}: ${formatBitrate(b.bps[j])} (${formatBytes(b.bytes[j])} in ${formatDuration(b.binSeconds)})`);
      at ??= { x: f.x(b.start + (j + 0.5) * b.binSeconds - side.summary.start), y: y(b.bps[j]) };
    });
    return at ? { ...(at as { x: number; y: number }), lines } : null;
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

export interface CompareChartProps {
  sides: readonly [CompareSide, CompareSide];
  view: ChartView;
  onRangeChange?: (r: TimeRange) => void;
  hover?: HoverBus;
  onDrawn?: () => void;
}

export function CompareThroughputChart({ sides, view, onRangeChange, hover, onDrawn, binSeconds }: CompareChartProps & { binSeconds: number }) {
  const got = useSideAnswers(sides, (s) => [sideQuery(s, view, 'throughput', { binSeconds })], `${JSON.stringify(view)}|${binSeconds}`, onDrawn);
  const answers = got.sides.map((s) => s.answers[0] ?? null);
  const ref = useD3((svg) => drawCompareThroughput(svg, { sides, answers }, view, onRangeChange, hover), [...answers, view, onRangeChange, hover]);
  return (
    <>
      <svg ref={ref} />
      <ChartMessages answers={answers} failure={got.failure} />
      <ul className="tcps-legend" aria-label="Compared connections">
        {sides.map((s) => <li key={s.letter}><span className={`tcps-swatch ${sideClass(s.letter)}`} />{sideLabel(s)}</li>)}
      </ul>
    </>
  );
}
