// Chart 4, time-sequence graph in the Stevens/tcptrace style (data-chart="sequence"):
// each data segment as a vertical bar from seq to seq+len, retransmissions in their own
// colour, the receiver's cumulative ACK as a step line, the window edge (ACK + window)
// above it, SACK blocks as bars and duplicate ACKs as ticks on the ACK line. The gap
// between the segments and the window line is what the window still allows.

import { useMemo } from 'react';
import * as d3 from 'd3';
import { FLAG, type ConnectionData } from '../model/types';
import { decimateMinMax, decimatePixelGrid, linearMap, gather, lowerBound, mergeIntervalsPerColumn, nearestIndex, rangeExtent, type Dir } from '../model/series';
import { sequenceSeries, type SequenceSeries, type RowSeries } from '../model/connectionSeries';
import { beginFrame, byteTicks, drawEmpty, drawTimeAxis, drawYAxis, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { barsPath, stepPath, ticksPath } from './paths';
import { formatBytes, formatTime } from './units';
import { directionLabel, useD3, type ChartProps } from './common';

/** Data segments as bars from seq to end = seq + len. */
type Bars = RowSeries & { seq: Float64Array; end: Float64Array };

function bars(p: ConnectionData['packets'], r: RowSeries): Bars {
  const seq = gather(p.seq, r.rows);
  const end = new Float64Array(seq.length);
  for (let k = 0; k < seq.length; k++) end[k] = seq[k] + p.len[r.rows[k]];
  return { ...r, seq, end };
}

export interface SequenceModel extends SequenceSeries {
  /** Sequence numbers gathered per series once (not on every redraw). */
  segments: Bars;
  retransmissions: Bars;
  seq: Float64Array;
  len: Uint32Array;
  frames: Uint32Array;
  win: Float64Array;
  flags: Uint32Array;
  end: number;
  title: string;
  description: string;
}

export function sequenceModel(data: ConnectionData, d: Dir): SequenceModel {
  const s = sequenceSeries(data, d);
  const p = data.packets;
  return {
    ...s,
    segments: bars(p, s.segments),
    retransmissions: bars(p, s.retransmissions),
    seq: p.seq, len: p.len, frames: p.frame, win: p.win, flags: p.flags, end: data.summary.end,
    title: 'Time-sequence (tcptrace)',
    description: `Sequence numbers of ${directionLabel(data, d)}: ${s.segments.rows.length} data segments,` +
      ` ${s.retransmissions.rows.length} retransmissions, ${s.acks.rows.length} ACKs with the window edge,` +
      ` ${s.sack.t.length} SACK blocks, ${s.duplicateAcks.rows.length} duplicate ACKs.`,
  };
}

/**
 * y extent of everything drawn inside [t0, t1] (one point either side included). Runs on
 * every pan/zoom frame: per-block extremes (rangeExtent) instead of a scan of every
 * segment in view.
 */
function visibleSeqExtent(m: SequenceModel, t0: number, t1: number): [number, number] {
  let lo = Infinity, hi = -Infinity;
  const take = (t: Float64Array, low: Float64Array | null, high: Float64Array) => {
    const a = Math.max(0, lowerBound(t, t0) - 1), b = Math.min(t.length, lowerBound(t, t1) + 1);
    if (low) lo = Math.min(lo, rangeExtent(low, a, b)[0]);
    hi = Math.max(hi, rangeExtent(high, a, b)[1]);
  };
  // Segments span seq … end = seq + len (gathered per series in the model).
  for (const r of [m.segments, m.retransmissions]) { take(r.t, r.seq, r.end); }
  take(m.acks.t, m.acks.ack, m.acks.ack);
  take(m.acks.t, null, m.acks.edge);
  if (!(hi > lo)) return [Number.isFinite(lo) ? lo : 0, (Number.isFinite(lo) ? lo : 0) + 1];
  return [lo, hi];
}

export function drawSequence(
  svgEl: SVGSVGElement, m: SequenceModel, view: ChartView,
  onRangeChange?: (r: [number, number]) => void, hover?: HoverBus,
): void {
  const f = beginFrame(svgEl, { chart: 'sequence', title: m.title, description: m.description, view });
  const [t0, t1] = view.range;
  const [lo, hi] = visibleSeqExtent(m, t0, t1);
  const pad = (hi - lo) * 0.04;
  const y = d3.scaleLinear().domain([Math.max(0, lo - pad), hi + pad]).range([f.innerHeight, 0]);
  drawYAxis(f, y, formatBytes, 'relative sequence number (bytes)', byteTicks(y.domain()[0], y.domain()[1], Math.max(2, Math.floor(f.innerHeight / 45))));
  drawTimeAxis(f);
  if (m.segments.rows.length + m.retransmissions.rows.length === 0) drawEmpty(f, 'No data segments in this direction');
  const W = f.innerWidth;
  const xr = (r: { t: Float64Array }) => (k: number) => f.x(r.t[k]);

  const a = m.acks;
  const edgeIdx = decimateMinMax(a.t, a.edge, t0, t1, W);
  f.plot.append('path').attr('class', 'tcps-seq-window').attr('data-points', edgeIdx.length)
    .attr('d', stepPath(edgeIdx, xr(a), (k) => y(a.edge[k]), f.x(m.end)));
  const ackIdx = decimateMinMax(a.t, a.ack, t0, t1, W);
  f.plot.append('path').attr('class', 'tcps-seq-ack').attr('data-points', ackIdx.length)
    .attr('d', stepPath(ackIdx, xr(a), (k) => y(a.ack[k]), f.x(m.end)));

  // Dense bars are merged per pixel column (mergeIntervalsPerColumn) so the path stays small.
  const intervals = (cls: string, t: Float64Array, lo: Float64Array, hi: Float64Array) => {
    const r = mergeIntervalsPerColumn(t, lo, hi, t0, t1, W);
    const path = f.plot.append('path').attr('class', cls).attr('data-merged', String(r.merged));
    if (r.merged) {
      const all = Uint32Array.from({ length: r.t.length }, (_, k) => k);
      path.attr('data-count', all.length).attr('d', barsPath(all, (k) => f.x(r.t[k]), (k) => y(r.lo[k]), (k) => y(r.hi[k])));
    } else {
      path.attr('data-count', r.idx.length).attr('d', barsPath(r.idx, (k) => f.x(t[k]), (k) => y(lo[k]), (k) => y(hi[k])));
    }
  };
  intervals('tcps-sack', m.sack.t, m.sack.left, m.sack.right);
  intervals('tcps-segments', m.segments.t, m.segments.seq, m.segments.end);
  intervals('tcps-segments tcps-retransmissions', m.retransmissions.t, m.retransmissions.seq, m.retransmissions.end);

  const dup = m.duplicateAcks;
  const dupIdx = decimatePixelGrid(dup.t, dup.ack, t0, t1, W, linearMap(y.domain(), y.range()));
  f.plot.append('path').attr('class', 'tcps-dup-ack').attr('data-count', dupIdx.length)
    .attr('d', ticksPath(dupIdx, xr(dup), (k) => y(dup.ack[k])));

  const pick: Pick = (t, _px, py) => {
    type Cand = { x: number; y: number; lines: string[] };
    const cands: Cand[] = [];
    for (const [r, kind] of [[m.segments, 'segment'], [m.retransmissions, 'retransmission']] as const) {
      const k = nearestIndex(r.t, t);
      if (k < 0) continue;
      const i = r.rows[k];
      cands.push({
        x: f.x(r.t[k]), y: y(m.seq[i] + m.len[i] / 2),
        lines: [`frame ${m.frames[i]} at ${formatTime(r.t[k])}`, `${kind}: seq ${m.seq[i]}–${m.seq[i] + m.len[i]} (${m.len[i]} B)`],
      });
    }
    const k = nearestIndex(a.t, t);
    if (k >= 0) {
      const i = a.rows[k];
      cands.push({
        x: f.x(a.t[k]), y: y(a.ack[k]),
        lines: [`frame ${m.frames[i]} at ${formatTime(a.t[k])}`, `ACK ${a.ack[k]}${m.flags[i] & FLAG.DUPLICATE_ACK ? ' (duplicate)' : ''}`,
          `window ${formatBytes(m.win[i])} → edge ${a.edge[k]}`],
      });
    }
    if (!cands.length) return null;
    const dist = (c: Cand) => Math.hypot(c.x - f.x(t), c.y - py);
    return cands.reduce((best, c) => (dist(c) < dist(best) ? c : best));
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

export function SequenceChart({ data, direction, view, onRangeChange, hover }: ChartProps) {
  const model = useMemo(() => sequenceModel(data, direction), [data, direction]);
  const ref = useD3((svg) => drawSequence(svg, model, view, onRangeChange, hover), [model, view, onRangeChange, hover]);
  return (
    <>
      <svg ref={ref} />
      <ul className="tcps-legend" aria-label="Time-sequence legend">
        <li><span className="tcps-swatch tcps-s-segments" />data segments</li>
        <li><span className="tcps-swatch tcps-s-retransmissions" />retransmissions</li>
        <li><span className="tcps-swatch tcps-s-ack" />cumulative ACK</li>
        <li><span className="tcps-swatch tcps-s-seq-window" />window edge (ACK + rwnd)</li>
        <li><span className="tcps-swatch tcps-s-sack" />SACK blocks</li>
        <li><span className="tcps-swatch tcps-s-dup-ack" />duplicate ACKs</li>
      </ul>
    </>
  );
}
