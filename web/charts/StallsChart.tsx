// Chart 3, stalls (data-chart="stalls"): every stall of the data direction as a band on
// the shared time axis, coloured by cause, and below it a histogram of the gaps between
// consecutive packets of that direction (within the visible time range) on a log scale,
// with the stall threshold marked. Definitions: DESIGN.md "Stall".

import { useMemo } from 'react';
import * as d3 from 'd3';
import type { ConnectionData, Stall, StallCause } from '../model/types';
import { lowerBound, type Dir } from '../model/series';
import { interPacketGaps, logHistogramRange, stallsAtThreshold, defaultStallSeconds } from '../model/connectionSeries';
import { beginFrame, drawTimeAxis, MARGIN, yAxisLabel, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { formatCount, formatDuration, formatTime } from './units';
import { directionLabel, useD3, type ChartProps } from './common';

export const CAUSE_LABELS: Record<StallCause, string> = {
  'zero-window': 'zero window',
  'window-limited': 'window-limited',
  'retransmission-timeout': 'retransmission timeout',
  'application-idle': 'application idle',
  'ack-wait': 'waiting for ACK',
  'delayed-ack': 'delayed ACK (Nagle)',
  unknown: 'unknown',
};
export const CAUSES = Object.keys(CAUSE_LABELS) as StallCause[];

const STRIP = 44;      // height of the band strip
const HIST_GAP = 56;   // strip axis + histogram title

export interface StallsModel {
  stalls: Stall[];
  thresholdSeconds: number;
  gaps: { gap: Float64Array; tEnd: Float64Array };
  title: string;
  description: string;
}

/** `stallMs` undefined: the decoder's stalls as reported (its default threshold). */
export function stallsModel(data: ConnectionData, d: Dir, stallMs?: number): StallsModel {
  const thresholdSeconds = stallMs != null ? stallMs / 1000 : defaultStallSeconds(data, d);
  const stalls = stallsAtThreshold(data, d, stallMs != null ? thresholdSeconds : undefined);
  const total = stalls.reduce((a, s) => a + s.duration, 0);
  const byCause = CAUSES.map((c) => [c, stalls.filter((s) => s.cause === c).length] as const).filter(([, n]) => n > 0);
  return {
    stalls, thresholdSeconds, gaps: interPacketGaps(data.packets, d),
    title: 'Stalls and inter-packet gaps',
    description: `${stalls.length} stalls of ${directionLabel(data, d)} longer than ${formatDuration(thresholdSeconds)},` +
      ` ${formatDuration(total)} in total` +
      (byCause.length ? ` (${byCause.map(([c, n]) => `${n} ${CAUSE_LABELS[c]}`).join(', ')})` : '') +
      '; histogram of the gaps between consecutive packets on a logarithmic scale.',
  };
}

export function drawStalls(
  svgEl: SVGSVGElement, m: StallsModel, view: ChartView,
  onRangeChange?: (r: [number, number]) => void, hover?: HoverBus,
): void {
  const f = beginFrame(svgEl, { chart: 'stalls', title: m.title, description: m.description, view, plotHeight: STRIP });
  const [t0, t1] = view.range;
  drawTimeAxis(f);
  f.content.append('text').attr('class', 'tcps-axis-label').attr('x', -8).attr('y', STRIP / 2)
    .attr('text-anchor', 'end').attr('dominant-baseline', 'middle').text('stalls');
  f.plot.append('rect').attr('class', 'tcps-strip-bg').attr('width', f.innerWidth).attr('height', STRIP);
  f.plot.append('g').attr('class', 'tcps-stalls').attr('data-count', m.stalls.length)
    .selectAll('rect').data(m.stalls).join('rect')
    .attr('class', (s) => `tcps-stall tcps-cause-${s.cause}`).attr('data-cause', (s) => s.cause)
    .attr('x', (s) => f.x(s.start)).attr('width', (s) => Math.max(1.5, f.x(s.start + s.duration) - f.x(s.start)))
    .attr('y', 2).attr('height', STRIP - 4)
    .append('title').text((s) => `${CAUSE_LABELS[s.cause]}: ${formatDuration(s.duration)} from ${formatTime(s.start)}`);
  if (m.stalls.length === 0) {
    f.content.append('text').attr('class', 'tcps-empty').attr('x', f.innerWidth / 2).attr('y', STRIP / 2 + 4)
      .attr('text-anchor', 'middle').text(`No stalls longer than ${formatDuration(m.thresholdSeconds)}`);
  }

  drawGapHistogram(f.content, m, t0, t1, f.innerWidth, Math.max(40, view.height - MARGIN.top - MARGIN.bottom - STRIP - HIST_GAP));

  const pick: Pick = (t) => {
    if (m.stalls.length === 0) return null;
    // The stall under the pointer, else the nearest one.
    let best = m.stalls[0], bestD = Infinity;
    for (const s of m.stalls) {
      const dist = t < s.start ? s.start - t : t > s.start + s.duration ? t - s.start - s.duration : 0;
      if (dist < bestD) { best = s; bestD = dist; }
    }
    return {
      x: Math.max(0, Math.min(f.innerWidth, f.x(best.start + best.duration / 2))), y: STRIP / 2,
      lines: [
        `${CAUSE_LABELS[best.cause]} stall: ${formatDuration(best.duration)}`,
        `from ${formatTime(best.start)} to ${formatTime(best.start + best.duration)}`,
        `frames ${best.frameBefore} → ${best.frameAfter}`,
        `ended by ${best.endedBy}`,
      ],
    };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover, height: STRIP });
  followHover(f, hover);
}

/** Histogram of the gaps that end inside [t0, t1], below the strip. */
function drawGapHistogram(
  parent: d3.Selection<SVGGElement, unknown, null, undefined>, m: StallsModel,
  t0: number, t1: number, width: number, height: number,
): void {
  // Gaps are in time order: those ending at or after t0 and starting by t1 are one run
  // of indices [a, b) (found without copying them; logHistogramRange reuses the logs).
  const { gap, tEnd } = m.gaps;
  const a = lowerBound(tEnd, t0);
  let b = a;
  while (b < gap.length && tEnd[b] - gap[b] <= t1) b++;
  const visible = { length: b - a };
  const bins = logHistogramRange(gap, a, b, 5);
  const g = parent.append('g').attr('class', 'tcps-histogram').attr('data-count', bins.length)
    .attr('transform', `translate(0,${STRIP + HIST_GAP})`);
  g.append('text').attr('class', 'tcps-subtitle').attr('x', -MARGIN.left + 4).attr('y', -10)
    .text(`Gaps between packets (${formatCount(visible.length)} in view)`);
  if (bins.length === 0) {
    g.append('text').attr('class', 'tcps-empty').attr('x', width / 2).attr('y', height / 2).attr('text-anchor', 'middle')
      .text('Fewer than two packets in view');
    return;
  }
  const x = d3.scaleLog().domain([bins[0].x0, bins[bins.length - 1].x1]).range([0, width]);
  const ymax = d3.max(bins, (b) => b.count) ?? 1;
  // Symlog: a handful of long gaps stays visible next to thousands of back-to-back packets.
  const y = d3.scaleSymlog().domain([0, ymax]).range([height, 0]);
  g.append('g').attr('class', 'tcps-gap-bars').selectAll('rect').data(bins).join('rect')
    .attr('class', (b) => (b.x0 >= m.thresholdSeconds ? 'tcps-gap-bar tcps-gap-stall' : 'tcps-gap-bar'))
    .attr('x', (b) => x(b.x0) + 0.5).attr('width', (b) => Math.max(0.5, x(b.x1) - x(b.x0) - 1))
    .attr('y', (b) => y(b.count)).attr('height', (b) => height - y(b.count))
    .append('title').text((b) => `${formatCount(b.count)} gaps of ${formatDuration(b.x0)} – ${formatDuration(b.x1)}`);
  const decades = d3.range(Math.round(Math.log10(bins[0].x0)), Math.round(Math.log10(bins[bins.length - 1].x1)) + 1).map((e) => 10 ** e);
  g.append('g').attr('class', 'tcps-axis tcps-axis-gap').attr('transform', `translate(0,${height})`)
    .call(d3.axisBottom(x).tickValues(decades).tickFormat((v) => formatDuration(Number(v))).tickSizeOuter(0))
    .append('text').attr('class', 'tcps-axis-label').attr('x', width).attr('y', 28).attr('text-anchor', 'end')
    .text('gap (log scale)');
  // Powers of ten only: on a symlog axis 0 and 1 would sit on top of each other.
  const yTicks = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000].filter((v) => v <= ymax);
  g.append('g').attr('class', 'tcps-axis tcps-axis-y').call(d3.axisLeft(y).tickValues(yTicks).tickFormat(d3.format('~s')).tickSizeOuter(0))
    .call((a) => yAxisLabel(a, 'gaps', height));
  const tx = x(m.thresholdSeconds);
  if (tx >= 0 && tx <= width) {
    g.append('line').attr('class', 'tcps-threshold').attr('x1', tx).attr('x2', tx).attr('y1', 0).attr('y2', height)
      .attr('stroke-dasharray', '4 3');
    // Label on the side of the line with more room, so it is not cut at the plot edge.
    const right = tx < width * 0.7;
    g.append('text').attr('class', 'tcps-threshold-label').attr('x', right ? tx + 4 : tx - 4).attr('y', 10)
      .attr('text-anchor', right ? 'start' : 'end').text(`stall threshold ${formatDuration(m.thresholdSeconds)}`);
  }
}

export interface StallsChartProps extends ChartProps {
  /** Stall threshold in ms; undefined shows the decoder's stalls at its default threshold. */
  stallMs?: number;
}

export function StallsChart({ data, direction, view, onRangeChange, hover, stallMs }: StallsChartProps) {
  const model = useMemo(() => stallsModel(data, direction, stallMs), [data, direction, stallMs]);
  const ref = useD3((svg) => drawStalls(svg, model, view, onRangeChange, hover), [model, view, onRangeChange, hover]);
  const counts = CAUSES.map((c) => [c, model.stalls.filter((s) => s.cause === c).length] as const);
  return (
    <>
      <svg ref={ref} />
      <ul className="tcps-legend" aria-label="Stall causes">
        {counts.map(([c, n]) => (
          <li key={c} className={n ? undefined : 'tcps-legend-empty'}>
            <span className={`tcps-swatch tcps-cause-${c}`} />{CAUSE_LABELS[c]} ({n})
          </li>
        ))}
      </ul>
    </>
  );
}
