// Chart 5, round-trip time (data-chart="rtt"): RTT samples of the data direction over
// time (data segment → first ACK covering it, Karn's rule; and TCP timestamp echoes,
// drawn with a different mark), with the minimum RTT as a horizontal line.
// Definitions: DESIGN.md "RTT samples".

import { useMemo, useRef } from 'react';
import * as d3 from 'd3';
import type { ConnectionData } from '../model/types';
import { decimatePixelGrid, linearMap, lowerBound, nearestIndex, peerOf, rangeExtent, type Dir } from '../model/series';
import { rttSeries, type RttSeries } from '../model/connectionSeries';
import { beginFrame, drawEmpty, drawNote, drawTimeAxis, drawYAxis, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { drawDots, prepareCanvas } from './canvasLayer';
import { formatTime } from './units';
import { directionLabel, useD3, type ChartProps } from './common';

export const RTT_KIND_LABELS = ['data → ACK', 'TCP timestamps', 'left out (old echo, recovery, probe)'] as const;

/** Group of a stored sample kind (wasm store.rs push_rtt): bit 0 timestamps, bit 1
 * excluded from the statistics (docs/ANALYSIS.md `rtt.excludedSamples`). */
export function rttGroup(kind: number): 0 | 1 | 2 {
  return kind & 2 ? 2 : kind & 1 ? 1 : 0;
}

const ms = (v: number) => `${v < 10 ? v.toFixed(3) : v < 100 ? v.toFixed(2) : v.toFixed(1)} ms`;

export interface RttModel {
  /** Samples split by group (0: seq/ACK, 1: timestamps, 2: left out of the statistics). */
  byKind: { kind: number; t: Float64Array; rttMs: Float64Array; idx: Uint32Array }[];
  all: RttSeries;
  /** Frame of the peer's packet that completed sample k (the ACK or timestamp echo), 0 if not found. */
  frameOf: (k: number) => number;
  title: string;
  description: string;
}

export function rttModel(data: ConnectionData, d: Dir): RttModel {
  const all = rttSeries(data, d);
  const byKind = [0, 1, 2].map((kind) => {
    const ks: number[] = [];
    for (let k = 0; k < all.t.length; k++) if (rttGroup(all.kind[k]) === kind) ks.push(k);
    return { kind, idx: Uint32Array.from(ks), t: Float64Array.from(ks, (k) => all.t[k]), rttMs: Float64Array.from(ks, (k) => all.rttMs[k]) };
  }).filter((s) => s.t.length > 0);
  const med = data.summary.directions[d].rtt.medianMs;
  const p = data.packets;
  const peer = peerOf(d);
  const frameOf = (k: number) => {
    const t = all.t[k];
    for (let i = lowerBound(p.t, t - 1e-9); i < p.t.length && p.t[i] <= t + 1e-9; i++) if (p.dir[i] === peer) return p.frame[i];
    return 0;
  };
  return {
    byKind, all, frameOf,
    title: 'Round-trip time',
    description: `${all.t.length} RTT samples for data of ${directionLabel(data, d)}` +
      (all.minMs != null ? `; minimum ${ms(all.minMs)}` : '') + (med != null ? `, median ${ms(med)}` : '') + '.',
  };
}

export function drawRtt(
  svgEl: SVGSVGElement, m: RttModel, view: ChartView,
  onRangeChange?: (r: [number, number]) => void, hover?: HoverBus, canvas?: HTMLCanvasElement | null,
): void {
  const f = beginFrame(svgEl, { chart: 'rtt', title: m.title, description: m.description, view });
  const [t0, t1] = view.range;
  const ctx = prepareCanvas(canvas, f, view.width, view.height);
  const a = m.all;
  let ymax = 0;
  {
    // Samples in view plus the next one; per-block maxima (rangeExtent), not a scan.
    const k0 = Math.max(0, lowerBound(a.t, t0)), k1 = Math.min(a.t.length, lowerBound(a.t, t1) + 1);
    if (k1 > k0) ymax = Math.max(ymax, rangeExtent(a.rttMs, k0, k1)[1]);
  }
  if (ymax === 0) ymax = (a.minMs ?? 1) * 2;
  const y = d3.scaleLinear().domain([0, ymax * 1.08]).range([f.innerHeight, 0]).nice();
  drawYAxis(f, y, (v) => `${v} ms`, 'RTT (ms)');
  drawTimeAxis(f);
  if (a.t.length === 0) drawEmpty(f, 'No RTT samples (no ACKed data segments in this direction)');

  if (a.minMs != null) {
    const ym = y(a.minMs);
    f.plot.append('line').attr('class', 'tcps-rtt-min').attr('x1', 0).attr('x2', f.innerWidth).attr('y1', ym).attr('y2', ym)
      .attr('stroke-dasharray', '6 3');
    drawNote(f, `min RTT ${ms(a.minMs)}`, 'tcps-note tcps-rtt-min-label');
  }
  for (const s of m.byKind) {
    const idx = decimatePixelGrid(s.t, s.rttMs, t0, t1, f.innerWidth, linearMap(y.domain(), y.range()));
    drawDots(f, `tcps-rtt tcps-dots tcps-rtt-kind-${s.kind}`, idx, (k) => f.x(s.t[k]), (k) => y(s.rttMs[k]), ctx);
  }

  const pick: Pick = (t) => {
    const k = nearestIndex(a.t, t);
    if (k < 0) return null;
    return {
      x: f.x(a.t[k]), y: y(a.rttMs[k]),
      lines: [
        `RTT ${ms(a.rttMs[k])} (${RTT_KIND_LABELS[rttGroup(a.kind[k])]})`,
        `completed by frame ${m.frameOf(k) || '?'} at ${formatTime(a.t[k])}`,
        a.minMs != null ? `${(a.rttMs[k] / a.minMs).toFixed(2)} × minimum` : '',
      ].filter(Boolean),
    };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

export function RttChart({ data, direction, view, onRangeChange, hover }: ChartProps) {
  const model = useMemo(() => rttModel(data, direction), [data, direction]);
  const canvas = useRef<HTMLCanvasElement>(null);
  const ref = useD3((svg) => drawRtt(svg, model, view, onRangeChange, hover, canvas.current), [model, view, onRangeChange, hover]);
  return (
    <>
      <div className="tcps-layers"><canvas ref={canvas} className="tcps-canvas" aria-hidden="true" /><svg ref={ref} /></div>
      <ul className="tcps-legend" aria-label="RTT legend">
        {model.byKind.map((s) => (
          <li key={s.kind}><span className={`tcps-swatch tcps-s-rtt-kind-${s.kind}`} />{RTT_KIND_LABELS[s.kind]}</li>
        ))}
        <li><span className="tcps-swatch tcps-s-rtt-min" />minimum</li>
      </ul>
    </>
  );
}
