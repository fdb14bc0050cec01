// Chart 2, bytes in flight vs receive window (data-chart="inflight"): bytes in flight at
// each data segment (dots or a step line), the peer's advertised window as a step line,
// shaded spans where in flight reached the window ("window-limited"), and marks where
// the peer advertised a zero window. Dashed window with a note when the scale is unknown.
// Definitions: DESIGN.md "Bytes in flight", "Advertised receive window".

import { useMemo, useRef } from 'react';
import * as d3 from 'd3';
import type { ConnectionData } from '../model/types';
import { decimateMinMax, decimatePixelGrid, linearMap, lowerBound, nearestIndex, rangeExtent, type Dir } from '../model/series';
import {
  inFlightSeries, receiveWindow, windowLimitedSpans, zeroWindowRows, type RowSeries, type WindowSeries,
} from '../model/connectionSeries';
import { beginFrame, byteTicks, drawEmpty, drawNote, drawTimeAxis, drawYAxis, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { stepPath } from './paths';
import { drawDots, prepareCanvas } from './canvasLayer';
import { formatBytes, formatCount, formatDuration, formatTime } from './units';
import { directionLabel, useD3, type ChartProps } from './common';

export type InflightMode = 'dots' | 'step';

export interface InflightModel {
  inFlight: RowSeries & { inFlight: Float64Array };
  window: WindowSeries;
  limited: [number, number][];
  zeroWindows: RowSeries;
  frames: Uint32Array;
  /** Last packet of the connection: the last window value holds until then. */
  end: number;
  title: string;
  description: string;
  /** Shown above the plot when the window scale is unknown. */
  note: string | null;
}

export function inflightModel(data: ConnectionData, d: Dir): InflightModel {
  const p = data.packets;
  const inFlight = inFlightSeries(p, d);
  const window = receiveWindow(data, d);
  const limited = windowLimitedSpans(data, d);
  const zeroWindows = zeroWindowRows(p, d);
  const s = data.summary.directions[d];
  const limitedTime = limited.reduce((a, [t0, t1]) => a + (t1 - t0), 0);
  const note = window.scaleUnknown
    ? `window scale unknown: handshake not captured${window.lowerBoundShift != null
      ? `; inferred ≥ 2^${window.lowerBoundShift} from bytes in flight` : ''}`
    : null;
  const maxWin = window.win.reduce((a, v) => Math.max(a, v), 0);
  return {
    inFlight, window, limited, zeroWindows, frames: p.frame, end: data.summary.end,
    title: 'Bytes in flight vs receive window',
    description: `Bytes in flight of ${directionLabel(data, d)} at ${inFlight.rows.length} data segments` +
      ` (max ${formatBytes(s.maxBytesInFlight ?? inFlight.inFlight.reduce((a, v) => Math.max(a, v), 0))})` +
      ` against the advertised receive window (max ${formatBytes(maxWin)}${window.scaleUnknown ? ', scale unknown' : ''});` +
      ` window-limited ${limited.length} times for ${formatDuration(limitedTime)}; ${zeroWindows.rows.length} zero-window advertisements.`,
    note,
  };
}

function maxInRange(t: Float64Array, v: Float64Array, t0: number, t1: number): number {
  const i0 = Math.max(0, lowerBound(t, t0) - 1), i1 = Math.min(t.length, lowerBound(t, t1) + 1);
  // Per-block maxima (rangeExtent) rather than a scan of every point in view.
  return Math.max(0, rangeExtent(v, i0, i1)[1]);
}

/** First k with t[k] > x (t sorted ascending). */
function upperBound(t: Float64Array, x: number): number {
  let lo = 0, hi = t.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t[mid] <= x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

const spanEnds = new WeakMap<[number, number][], { start: Float64Array; end: Float64Array }>();

/**
 * The window-limited spans that overlap [t0, t1]. Spans are disjoint and in time order, so
 * their starts and ends are both ascending: two binary searches instead of a filter over
 * every span of the connection on every pan/zoom frame.
 */
function visibleSpans(m: InflightModel, t0: number, t1: number): [number, number][] {
  let se = spanEnds.get(m.limited);
  if (!se) {
    se = { start: Float64Array.from(m.limited, ([a]) => a), end: Float64Array.from(m.limited, ([, b]) => b) };
    spanEnds.set(m.limited, se);
  }
  return m.limited.slice(lowerBound(se.end, t0), upperBound(se.start, t1));
}

/** Spans closer than `minGap` (one pixel) are drawn as one, so shading is not a barcode. */
export function mergeSpans(spans: [number, number][], minGap: number): [number, number][] {
  const out: [number, number][] = [];
  for (const [a, b] of spans) {
    const last = out[out.length - 1];
    if (last && a - last[1] < minGap) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

export function drawInflight(
  svgEl: SVGSVGElement, m: InflightModel, view: ChartView, mode: InflightMode = 'dots',
  onRangeChange?: (r: [number, number]) => void, hover?: HoverBus, canvas?: HTMLCanvasElement | null,
): void {
  const f = beginFrame(svgEl, { chart: 'inflight', title: m.title, description: m.description, view });
  const [t0, t1] = view.range;
  const ctx = prepareCanvas(canvas, f, view.width, view.height);
  const fl = m.inFlight, w = m.window;
  const ymax = Math.max(maxInRange(fl.t, fl.inFlight, t0, t1), maxInRange(w.t, w.win, t0, t1)) * 1.08 || 1;
  const y = d3.scaleLinear().domain([0, ymax]).range([f.innerHeight, 0]);
  drawYAxis(f, y, formatBytes, 'bytes', byteTicks(0, ymax, Math.max(2, Math.floor(f.innerHeight / 40))));
  drawTimeAxis(f);
  if (m.note) drawNote(f, m.note, 'tcps-note tcps-warning');
  if (fl.rows.length === 0) drawEmpty(f, 'No data segments in this direction');

  // Window-limited spans first, under everything else; at least 1 px wide to stay visible.
  f.plot.append('g').attr('class', 'tcps-limited').attr('data-count', m.limited.length)
    .selectAll('rect').data(mergeSpans(visibleSpans(m, t0, t1), (t1 - t0) / f.innerWidth)).join('rect')
    .attr('x', ([a]) => f.x(a)).attr('width', ([a, b]) => Math.max(1, f.x(b) - f.x(a)))
    .attr('y', 0).attr('height', f.innerHeight)
    .append('title').text(([a, b]) => `window-limited ${formatTime(a)} – ${formatTime(b)} (${formatDuration(b - a)})`);

  const wIdx = decimateMinMax(w.t, w.win, t0, t1, f.innerWidth);
  const winPath = f.plot.append('path').attr('class', 'tcps-window').attr('data-points', wIdx.length)
    .attr('d', stepPath(wIdx, (i) => f.x(w.t[i]), (i) => y(w.win[i]), f.x(m.end)));
  if (w.scaleUnknown) winPath.classed('tcps-dashed', true).attr('stroke-dasharray', '6 4');

  if (mode === 'step') {
    const idx = decimateMinMax(fl.t, fl.inFlight, t0, t1, f.innerWidth);
    f.plot.append('path').attr('class', 'tcps-inflight tcps-inflight-step').attr('data-points', idx.length)
      .attr('d', stepPath(idx, (i) => f.x(fl.t[i]), (i) => y(fl.inFlight[i])));
  } else {
    const idx = decimatePixelGrid(fl.t, fl.inFlight, t0, t1, f.innerWidth, linearMap(y.domain(), y.range()));
    drawDots(f, 'tcps-inflight tcps-dots', idx, (i) => f.x(fl.t[i]), (i) => y(fl.inFlight[i]), ctx);
  }

  const zw = m.zeroWindows;
  f.plot.append('g').attr('class', 'tcps-zero-window').attr('data-count', zw.rows.length)
    .selectAll('path').data(Array.from(zw.t.subarray(lowerBound(zw.t, t0), upperBound(zw.t, t1)))).join('path')
    .attr('d', (t) => `M${f.x(t)},${f.innerHeight}l-5,-9h10z`)
    .append('title').text((t) => `zero window advertised at ${formatTime(t)}`);

  const pick: Pick = (t) => {
    const k = nearestIndex(fl.t, t);
    if (k < 0) return null;
    const tk = fl.t[k];
    const wk = lowerBound(w.t, tk + 1e-12) - 1;
    const win = wk >= 0 ? w.win[wk] : NaN;
    const lines = [
      `frame ${m.frames[fl.rows[k]]} at ${formatTime(tk)}`,
      `in flight: ${formatCount(fl.inFlight[k])} B (${formatBytes(fl.inFlight[k])})`,
      Number.isFinite(win)
        ? `receive window: ${formatCount(win)} B (${formatBytes(win)})${w.scaleUnknown ? ' ≥, scale unknown' : ''}`
        : 'receive window: not seen yet',
    ];
    if (m.limited.some(([a, b]) => tk >= a && tk <= b)) lines.push('window-limited');
    return { x: f.x(tk), y: y(fl.inFlight[k]), lines };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

export interface InflightChartProps extends ChartProps {
  mode?: InflightMode;
}

export function InflightChart({ data, direction, view, onRangeChange, hover, mode = 'dots' }: InflightChartProps) {
  const model = useMemo(() => inflightModel(data, direction), [data, direction]);
  const canvas = useRef<HTMLCanvasElement>(null);
  const ref = useD3((svg) => drawInflight(svg, model, view, mode, onRangeChange, hover, canvas.current), [model, view, mode, onRangeChange, hover]);
  return (
    <>
      <div className="tcps-layers"><canvas ref={canvas} className="tcps-canvas" aria-hidden="true" /><svg ref={ref} /></div>
      <ul className="tcps-legend" aria-label="In-flight chart legend">
        <li><span className="tcps-swatch tcps-s-inflight" />bytes in flight</li>
        <li><span className={`tcps-swatch tcps-s-window${model.window.scaleUnknown ? ' tcps-dashed' : ''}`} />advertised receive window{model.window.scaleUnknown ? ' (lower bound)' : ''}</li>
        <li><span className="tcps-swatch tcps-s-limited" />window-limited</li>
        <li><span className="tcps-swatch tcps-s-zero-window" />zero window</li>
      </ul>
    </>
  );
}
