// Chart 5, round-trip time (data-chart="rtt"): RTT samples of the data direction over
// time as full round trips (wasm/src/view/sources.rs: ACK-based and timestamp samples
// plus the other part of the round trip, as the statistics use them), the samples the
// statistics leave out as their own marks, and the minimum RTT as a horizontal line.
// Definitions: docs/ANALYSIS.md "RTT".

import * as d3 from 'd3';
import type { ConnectionSummary } from '../model/types';
import { rttStats } from '../model/types';
import type { ViewSource } from '../worker/viewSource';
import type { PackedPoints } from '../worker/viewAnswer';
import { beginFrame, drawEmpty, drawNote, drawTimeAxis, drawYAxis, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { m4BarsPath, m4Max } from './m4Paths';
import { dotsPath } from './paths';
import { formatTime } from './units';
import { chartTitle, directionLabel, useD3, type ChartProps } from './common';
import { ChartMessages } from './ChartMessages';
import { pointsOf } from './InflightChart';
import { useSeriesAnswers, type Dir } from './useViewAnswers';

export const RTT_KIND_LABELS = ['RTT samples', 'left out of the statistics (old echo, recovery, probe)'] as const;

const ms = (v: number) => `${v < 10 ? v.toFixed(3) : v < 100 ? v.toFixed(2) : v.toFixed(1)} ms`;

export interface RttModel {
  samples: PackedPoints | null;
  summary: ConnectionSummary;
  direction: Dir;
  source?: ViewSource;
}

export function drawRtt(
  svgEl: SVGSVGElement, m: RttModel, view: ChartView,
  onRangeChange?: (r: [number, number]) => void, hover?: HoverBus,
): void {
  const r = rttStats(m.summary.directions[m.direction].rtt);
  const f = beginFrame(svgEl, {
    chart: 'rtt', title: chartTitle('Round-trip time', m.summary), view,
    description: `RTT samples for data of ${directionLabel(m.summary, m.direction)}` +
      (r.minMs != null ? `; minimum ${ms(r.minMs)}` : '') + (r.medianMs != null ? `, median ${ms(r.medianMs)}` : '') + '.',
  });
  const mk = m.samples?.markers;
  // The scale is the counted samples': one left-out sample (a 5 s "RTT" that timed a
  // repair, or a 1.25 s echo after a pause) would flatten every counted one onto the
  // axis. Left-out samples above it sit on the top edge and the note says so.
  let ymax = m4Max(m.samples);
  let leftOutMax = 0;
  for (let k = 0; mk && k < mk.v.length; k++) if (mk.v[k] > leftOutMax) leftOutMax = mk.v[k];
  if (ymax === 0) ymax = leftOutMax || (r.minMs ?? 1) * 2;
  const y = d3.scaleLinear().domain([0, ymax * 1.08]).range([f.innerHeight, 0]).nice();
  const top = y.domain()[1];
  const yClamped = (v: number) => y(Math.min(v, top));
  let above = 0;
  for (let k = 0; mk && k < mk.v.length; k++) if (mk.v[k] > top) above++;
  drawYAxis(f, y, (v) => `${v} ms`, 'RTT (ms)');
  drawTimeAxis(f);
  if (m.samples && m.samples.total === 0 && !(mk && mk.t.length)) drawEmpty(f, 'No RTT samples in this view');

  if (r.minMs != null) {
    const ym = y(r.minMs);
    f.plot.append('line').attr('class', 'tcps-rtt-min').attr('x1', 0).attr('x2', f.innerWidth).attr('y1', ym).attr('y2', ym)
      .attr('stroke-dasharray', '6 3');
    // The data direction's, as the diagnosis says it (wasm diagnosis.rs far_part_unseen).
    const unseen = m.direction === m.summary.dataDirection && 'farPartUnseen' in m.summary.diagnosis && m.summary.diagnosis.farPartUnseen === true ? ' · far part: minimum only, a queue beyond the capture point does not show' : '';
    drawNote(f, `min RTT ${ms(r.minMs)}` + aboveText(above, leftOutMax) + unseen, 'tcps-note tcps-rtt-min-label');
  } else if (above > 0) {
    drawNote(f, aboveText(above, leftOutMax).replace(/^ · /, ''), 'tcps-note tcps-rtt-min-label');
  }
  f.plot.append('path').attr('class', 'tcps-rtt tcps-dots tcps-rtt-kind-0').attr('data-points', m.samples?.column.length ?? 0)
    .attr('data-total', m.samples?.total ?? 0)
    .attr('d', m.samples ? m4BarsPath(m.samples, f.x, y) : '');
  if (mk) {
    const idx = Uint32Array.from(mk.t.keys());
    f.plot.append('path').attr('class', 'tcps-rtt tcps-dots tcps-rtt-kind-2').attr('data-points', idx.length)
      .attr('d', dotsPath(idx, (k) => f.x(mk.t[k]), (k) => yClamped(mk.v[k])));
  }

  const pick: Pick = async (t) => {
    const p = await m.source?.at?.({ connection: m.summary.id, series: 'rtt', direction: m.direction, t });
    if (!p || p.value == null) return null;
    return {
      x: f.x(p.t), y: yClamped(p.value),
      lines: [`RTT ${ms(p.value)} at ${formatTime(p.t)}`, ...(r.minMs != null ? [`minimum ${ms(r.minMs)}`] : [])],
    };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

/** " · 1 left-out sample above the scale (5027 ms)": what the top edge hides. */
function aboveText(above: number, max: number): string {
  if (above === 0) return '';
  return ` · ${above} left-out sample${above === 1 ? '' : 's'} above the scale (up to ${ms(max)})`;
}

export function RttChart({ source, summary, direction, view, onRangeChange, hover, onDrawn }: ChartProps) {
  const { answers, failure } = useSeriesAnswers(source, summary.id, direction, view, ['rtt'], onDrawn);
  const model: RttModel = { samples: pointsOf(answers[0]), summary, direction, source };
  const ref = useD3((svg) => drawRtt(svg, model, view, onRangeChange, hover), [answers, view, onRangeChange, hover]);
  return (
    <>
      <svg ref={ref} />
      <ChartMessages answers={answers} failure={failure} />
      <ul className="tcps-legend" aria-label="RTT legend">
        <li><span className="tcps-swatch tcps-s-rtt-kind-0" />{RTT_KIND_LABELS[0]}</li>
        <li><span className="tcps-swatch tcps-s-rtt-kind-2" />{RTT_KIND_LABELS[1]}</li>
        <li><span className="tcps-swatch tcps-s-rtt-min" />minimum</li>
      </ul>
    </>
  );
}
