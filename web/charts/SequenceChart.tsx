// Chart 4, time-sequence graph in the Stevens/tcptrace style (data-chart="sequence"):
// the sequence number of each data segment (per pixel column, a bar over the
// column's lowest to highest: the segments sent there), retransmitted, not-captured
// and out-of-order segments as their own marks, the receiver's cumulative ACK as a
// step line and the window edge (ACK + window) above it. The gap between the segments
// and the window line is what the window still allows. Numbers: the view engine's
// sequence, ack and windowEdge series (wasm/src/view/sources.rs). On a connection that
// carried ECN, the `ecn` series' markers as short vertical ticks (issue 46): a CE mark
// above its data segment, CWR below the sender's segment, ECE below the peer's ACK.

import * as d3 from 'd3';
import { FLAG } from '../model/types';
import type { ConnectionSummary } from '../model/types';
import type { ViewSource } from '../worker/viewSource';
import type { PackedPoints } from '../worker/viewAnswer';
import { beginFrame, byteTicks, drawEmpty, drawTimeAxis, drawYAxis, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { m4BarsPath, m4Extent, m4StepPath } from './m4Paths';
import { dotsPath } from './paths';
import { formatBytes, formatCount, formatTime } from './units';
import { chartTitle, directionLabel, useD3, type ChartProps } from './common';
import { ChartMessages } from './ChartMessages';
import { pointsOf } from './InflightChart';
import { useSeriesAnswers, type Dir } from './useViewAnswers';
import { CHART_ECN_SERIES, CHART_SERIES, RETRANSMISSION_KINDS } from '../worker/generated/vocabulary';

export interface SequenceModel {
  segments: PackedPoints | null;
  ack: PackedPoints | null;
  edge: PackedPoints | null;
  /** The `ecn` series (markers only), on a connection with ECN. */
  ecn?: PackedPoints | null;
  summary: ConnectionSummary;
  direction: Dir;
  source?: ViewSource;
}

const RETRANSMITTED = FLAG.RETRANSMISSION | FLAG.FAST_RETRANSMISSION | FLAG.SPURIOUS_RETRANSMISSION;

/** `ecn` markers' bits (wasm/src/view/sources.rs ECN_CE / ECN_ECE / ECN_CWR), the css
 *  suffix and which way the tick points from the value (−1 up). */
export const ECN_MARKS: [string, number, number][] = [['ce', 1, -1], ['ece', 2, 1], ['cwr', 4, 1]];

/** Whether the report says the connection carried ECN (`direction.ecn`). */
export const hasEcn = (summary: ConnectionSummary) => summary.directions.some((d) => d.ecn != null);

/** One vertical tick of 6 px per marker, 2 px off the value, up (dir −1) or down. */
function ticksPath(idx: number[], x: (k: number) => number, y: (k: number) => number, dir: number): string {
  let d = '';
  for (const k of idx) {
    const px = x(k), py = y(k);
    if (Number.isFinite(px) && Number.isFinite(py)) d += `M${px.toFixed(1)},${(py + 2 * dir).toFixed(1)}v${6 * dir}`;
  }
  return d;
}


export function drawSequence(
  svgEl: SVGSVGElement, m: SequenceModel, view: ChartView,
  onRangeChange?: (r: [number, number]) => void, hover?: HoverBus,
): void {
  const s = m.summary.directions[m.direction];
  const f = beginFrame(svgEl, {
    chart: 'sequence', title: chartTitle('Time-sequence (tcptrace)', m.summary), view,
    description: `Sequence numbers of ${directionLabel(m.summary, m.direction)}: ${formatCount(s.packets)} packets,` +
      ` ${formatCount(s.retransmissions)} retransmissions; the cumulative ACK and the window edge.`,
  });
  let [lo, hi] = m4Extent([m.segments, m.ack, m.edge]);
  if (!(hi > lo)) { lo = Number.isFinite(lo) ? lo : 0; hi = lo + 1; }
  const pad = (hi - lo) * 0.04;
  const y = d3.scaleLinear().domain([Math.max(0, lo - pad), hi + pad]).range([f.innerHeight, 0]);
  drawYAxis(f, y, formatBytes, 'relative sequence number (bytes)', byteTicks(y.domain()[0], y.domain()[1], Math.max(2, Math.floor(f.innerHeight / 45))));
  drawTimeAxis(f);
  if (m.segments && m.segments.total === 0) drawEmpty(f, 'No data segments in this view');
  const xEnd = f.x(m.summary.end);

  f.plot.append('path').attr('class', 'tcps-seq-window').attr('data-points', m.edge?.column.length ?? 0)
    .attr('d', m.edge ? m4StepPath(m.edge, f.x, y, xEnd) : '');
  f.plot.append('path').attr('class', 'tcps-seq-ack').attr('data-points', m.ack?.column.length ?? 0)
    .attr('d', m.ack ? m4StepPath(m.ack, f.x, y, xEnd) : '');
  f.plot.append('path').attr('class', 'tcps-segments').attr('data-count', m.segments?.column.length ?? 0)
    .attr('data-total', m.segments?.total ?? 0)
    .attr('d', m.segments ? m4BarsPath(m.segments, f.x, y, 1.5) : '');
  const mk = m.segments?.markers;
  const idx = (keep: (flags: number) => boolean) => {
    const out: number[] = [];
    for (let k = 0; mk && k < mk.t.length; k++) if (keep(mk.flags[k])) out.push(k);
    return out;
  };
  if (mk) {
    const retrans = idx((fl) => (fl & RETRANSMITTED) !== 0);
    const other = idx((fl) => (fl & RETRANSMITTED) === 0);
    f.plot.append('path').attr('class', 'tcps-segments tcps-retransmissions').attr('data-count', retrans.length)
      .attr('d', dotsPath(retrans, (k) => f.x(mk.t[k]), (k) => y(mk.v[k]), 4));
    // Each retransmission's kind (wasm/src/analysis/loss/retrans_kinds.rs), drawn over the
    // plain mark in its own colour; a needless (spurious) one gets a wider underline.
    for (const { kind, flag: bit } of RETRANSMISSION_KINDS) {
      const of = idx((fl) => (fl & RETRANSMITTED) !== 0 && (fl & bit) !== 0);
      f.plot.append('path').attr('class', `tcps-retx-kind tcps-retx-${kind}`).attr('data-kind', kind).attr('data-count', of.length)
        .attr('d', dotsPath(of, (k) => f.x(mk.t[k]), (k) => y(mk.v[k]) + (kind === 'spurious' ? 3 : 0), kind === 'spurious' ? 7 : 4));
    }
    f.plot.append('path').attr('class', 'tcps-seq-lost').attr('data-count', other.length)
      .attr('d', dotsPath(other, (k) => f.x(mk.t[k]), (k) => y(mk.v[k]), 4));
  }
  const em = m.ecn?.markers;
  if (em) {
    // data-count: markers drawn (one per pixel column at most); data-marks: the signals
    // they stand for where each column holds one kind (the engine's column counts).
    for (const [kind, bit, dir] of ECN_MARKS) {
      const of: number[] = [];
      let marks = 0;
      for (let k = 0; k < em.t.length; k++) if (em.flags[k] & bit) { of.push(k); marks += em.count[k]; }
      f.plot.append('path').attr('class', `tcps-ecn tcps-ecn-${kind}`).attr('data-kind', kind).attr('data-count', of.length)
        .attr('data-marks', marks).attr('d', ticksPath(of, (k) => f.x(em.t[k]), (k) => y(em.v[k]), dir));
    }
  }

  const pick: Pick = async (t) => {
    const at = m.source?.at;
    if (!at) return null;
    const q = { connection: m.summary.id, direction: m.direction, t };
    const [seg, ack] = await Promise.all([at({ ...q, series: 'sequence' }), at({ ...q, series: 'ack' })]);
    const lines: string[] = [];
    if (seg?.value != null) lines.push(`segment at ${formatTime(seg.t)}: seq ${formatCount(seg.value)}`);
    if (ack?.value != null) lines.push(`ACK at ${formatTime(ack.t)}: ${formatCount(ack.value)}`);
    if (!lines.length || seg?.value == null) return null;
    return { x: f.x(seg.t), y: y(seg.value), lines };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

export function SequenceChart({ source, summary, direction, view, onRangeChange, hover, onDrawn }: ChartProps) {
  const ecn = hasEcn(summary);
  const { answers, failure } = useSeriesAnswers(source, summary.id, direction, view, [...CHART_SERIES.sequence, ...(ecn ? CHART_ECN_SERIES.sequence : [])], onDrawn);
  const model: SequenceModel = { segments: pointsOf(answers[0]), ack: pointsOf(answers[1]), edge: pointsOf(answers[2]), ecn: ecn ? pointsOf(answers[3]) : null, summary, direction, source };
  const ref = useD3((svg) => drawSequence(svg, model, view, onRangeChange, hover), [answers, view, onRangeChange, hover]);
  return (
    <>
      <svg ref={ref} />
      <ChartMessages answers={answers} failure={failure} />
      <ul className="tcps-legend" aria-label="Time-sequence legend">
        <li><span className="tcps-swatch tcps-s-segments" />data segments</li>
        {RETRANSMISSION_KINDS.map((k) => <li key={k.kind}><span className={`tcps-swatch tcps-s-retx-${k.kind}`} />{k.label}</li>)}
        <li><span className="tcps-swatch tcps-s-seq-lost" />previous segment not captured / out of order</li>
        <li><span className="tcps-swatch tcps-s-ack" />cumulative ACK</li>
        <li><span className="tcps-swatch tcps-s-seq-window" />window edge (ACK + rwnd)</li>
        {ecn && <li><span className="tcps-swatch tcps-s-ecn-ce" />ECN: CE mark (tick above the segment)</li>}
        {ecn && <li><span className="tcps-swatch tcps-s-ecn-ece" />ECE echo (tick below the ACK)</li>}
        {ecn && <li><span className="tcps-swatch tcps-s-ecn-cwr" />CWR (tick below the segment)</li>}
      </ul>
    </>
  );
}
