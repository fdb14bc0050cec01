// Two vantage points (issue 44), data-chart="one-way-delay": one direction's one-way
// delay over time, on the merged view's axis (seconds since the sender-side capture's
// first packet, on its clock), with the stalls of that direction as bands coloured by
// where they happened. Every number is the engine's (wasm/src/twin: `delaySeries` bins
// with their min and max delay, `stalls[].at`, `.duration`, `.place`); this file only
// places and formats them. One instance per direction; React owns the <svg>, D3 draws.
import * as d3 from 'd3';
import type { PlacedStall, TwinDirection } from '../worker/generated/view';
import { PLACE_LABEL, STALL_CAUSE_LABEL } from '../worker/generated/vocabulary';
import { beginFrame, drawEmpty, drawTimeAxis, drawYAxis, type ChartView, type FrameSpec } from '../charts/frame';
import { formatCount, formatDuration } from '../charts/units';
import { formatMs, formatTimestamp } from '../model/format.mjs';
import { useD3 } from '../charts/common';

export const TWIN_AXIS_LABEL = "Time since the sender-side capture's first packet (s)";

export interface OneWayDelayModel {
  /** 0 forward (data), 1 return. */
  direction: 0 | 1;
  d: TwinDirection;
  /** This direction's placed stalls. */
  stalls: PlacedStall[];
}

/** Draws one direction's delay bins (a min–max bar per bin) and its placed stalls. */
export function drawOneWayDelay(svgEl: SVGSVGElement, m: OneWayDelayModel, view: ChartView): void {
  const { d } = m;
  const name = m.direction === 0 ? 'forward' : 'return';
  const delay = d.delay ? `median ${formatMs(d.delay.medianMs)}, p95 ${formatMs(d.delay.p95Ms)}, min ${formatMs(d.delay.minMs)}, max ${formatMs(d.delay.maxMs)}` : 'no datagram seen at both points';
  const f = beginFrame(svgEl, {
    chart: 'one-way-delay' as string as FrameSpec['chart'],
    title: `One-way delay, ${name}: ${d.from} → ${d.to}`,
    description: `One-way delay of the ${name} direction (${d.from} → ${d.to}) over time: ${delay}; ${formatCount(m.stalls.length)} stalls placed.`,
    view,
  });
  let ymax = 0;
  for (const b of d.delaySeries) if (b.maxMs > ymax) ymax = b.maxMs;
  const y = d3.scaleLinear().domain([0, ymax > 0 ? ymax * 1.08 : 1]).range([f.innerHeight, 0]).nice();
  drawYAxis(f, y, (v) => formatMs(v), 'ms');
  drawTimeAxis(f, TWIN_AXIS_LABEL);
  if (d.delaySeries.length === 0) drawEmpty(f, 'No datagram of this direction seen at both points');

  f.plot.append('g').attr('class', 'tcps-twin-stalls').selectAll('rect').data(m.stalls).join('rect')
    .attr('class', (s) => `tcps-twin-stall tcps-place-${s.place}`).attr('data-place', (s) => s.place)
    .attr('x', (s) => f.x(s.at)).attr('width', (s) => Math.max(1, f.x(s.at + s.duration) - f.x(s.at)))
    .attr('y', 0).attr('height', f.innerHeight)
    .append('title').text((s) => `${formatTimestamp(s.at)}: ${formatDuration(s.duration)} stall (${STALL_CAUSE_LABEL[s.cause]}), ${PLACE_LABEL[s.place]}`);

  // Each bin a bar from its smallest to its largest delay, at least a pixel tall.
  f.plot.append('g').attr('class', 'tcps-twin-delay').attr('data-bins', d.delaySeries.length)
    .selectAll('rect').data(d.delaySeries).join('rect')
    .attr('x', (b) => f.x(b.t)).attr('width', (b) => Math.max(1, f.x(b.t + b.width) - f.x(b.t)))
    .attr('y', (b) => Math.min(y(b.maxMs), y(b.minMs) - 1)).attr('height', (b) => Math.max(1, y(b.minMs) - y(b.maxMs)));
  svgEl.dataset.drawn = 'true';
}

export function OneWayDelayChart({ model, view }: { model: OneWayDelayModel; view: ChartView }) {
  const ref = useD3((svg) => drawOneWayDelay(svg, model, view), [model, view]);
  return <svg ref={ref} data-direction={model.direction} />;
}
