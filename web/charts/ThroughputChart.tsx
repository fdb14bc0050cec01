// Chart 1, throughput (data-chart="throughput"): payload rate per time bin of the data
// direction as a filled step area, its moving average, and optionally the wire rate,
// the goodput (newly acknowledged bytes), the reverse direction and other connections.
// Definitions: DESIGN.md "Throughput"; numbers from web/model/series.ts.

import { useMemo } from 'react';
import * as d3 from 'd3';
import type { ConnectionData } from '../model/types';
import { binStart, decimateMinMax, lowerBound, movingAverage, peerOf, rowsOf, gather, throughputBins, type Bins, type Dir, type RateKind } from '../model/series';
import { beginFrame, drawEmpty, drawTimeAxis, drawYAxis, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { linePath, stepPath } from './paths';
import { formatBitrate, formatDuration, formatTime } from './units';
import { directionLabel, useD3, type ChartProps } from './common';

export interface ThroughputToggles {
  wire: boolean;
  goodput: boolean;
  /** Also draw the reverse direction's payload rate. */
  reverse: boolean;
  average: boolean;
  /** Ids of the other connections (props.others) whose payload rate is overlaid. */
  overlays: number[];
}

export const DEFAULT_TOGGLES: ThroughputToggles = { wire: false, goodput: false, reverse: false, average: true, overlays: [] };

export interface RateSeries {
  key: string;
  label: string;
  /** CSS class giving the colour (charts.css). */
  cls: string;
  bins: Bins;
  /** Filled area (the main payload series) or a line. */
  area?: boolean;
}

export interface ThroughputModel {
  series: RateSeries[];
  /** Moving average of the main payload series, window in bins. */
  average: { values: Float64Array; window: number } | null;
  /** Data-direction packet times and frames, to name frames under the pointer. */
  dataT: Float64Array;
  dataFrames: Float64Array;
  binSeconds: number;
  title: string;
  description: string;
}

/** Moving-average window: 1 s worth of bins, at least 5 bins (DESIGN.md "plus a moving average"). */
export const averageWindow = (binSeconds: number) => Math.max(5, Math.round(1 / binSeconds));

export function throughputModel(
  data: ConnectionData, d: Dir, binMs: number, toggles: ThroughputToggles, others: ConnectionData[] = [],
): ThroughputModel {
  const { end } = data.summary;
  const bin = binMs / 1000;
  // Bins on the file's time origin, like the summary's (wasm throughput.rs: bin k
  // covers [k·bin, (k+1)·bin) since the file's first packet), so both see the same bins.
  const start = Math.floor(data.summary.start / bin) * bin;
  const p = data.packets;
  const series: RateSeries[] = [];
  const add = (key: string, label: string, cls: string, dir: Dir, kind: RateKind, area = false, source = data) =>
    series.push({ key, label, cls, area, bins: throughputBins(source.packets, dir, kind, start, end, bin) });
  add('payload', `payload ${directionLabel(data, d)}`, 'tcps-s-payload', d, 'payload', true);
  if (toggles.wire) add('wire', 'wire rate (frame bytes)', 'tcps-s-wire', d, 'wire');
  if (toggles.goodput) add('goodput', 'goodput (newly ACKed)', 'tcps-s-goodput', d, 'goodput');
  if (toggles.reverse) add('reverse', `payload ${directionLabel(data, peerOf(d))}`, 'tcps-s-reverse', peerOf(d), 'payload');
  others.forEach((o, i) => {
    if (!toggles.overlays.includes(o.summary.id)) return;
    // Other connections are binned on this connection's bin grid so the bars line up.
    const od = o.summary.dataDirection;
    series.push({
      key: `other-${o.summary.id}`, label: `#${o.summary.id} ${directionLabel(o, od)}`, cls: `tcps-c${i % 6}`,
      bins: throughputBins(o.packets, od, 'payload', start, Math.max(end, o.summary.end), bin),
    });
  });
  const main = series[0].bins;
  const window = averageWindow(bin);
  const rows = rowsOf(p, d);
  const s = data.summary.directions[d];
  return {
    series,
    average: toggles.average ? { values: movingAverage(main.bps, window), window } : null,
    dataT: gather(p.t, rows),
    dataFrames: gather(p.frame, rows),
    binSeconds: bin,
    title: 'Throughput',
    description: `Payload rate of ${directionLabel(data, d)} per ${formatDuration(bin)} bin` +
      ` (${main.bps.length} bins): mean ${formatBitrate(s.throughput.meanBps)}, peak ${formatBitrate(s.throughput.peakBps)}.`,
  };
}

function visibleMax(b: Bins, t0: number, t1: number): number {
  const i0 = Math.max(0, Math.floor((t0 - b.t0) / b.binSeconds));
  const i1 = Math.min(b.bps.length - 1, Math.ceil((t1 - b.t0) / b.binSeconds));
  let m = 0;
  for (let i = i0; i <= i1; i++) if (b.bps[i] > m) m = b.bps[i];
  return m;
}

const binTimesCache = new WeakMap<Bins, Float64Array>();

/** Draw the throughput chart into `svgEl`; pure apart from the DOM it writes. */
export function drawThroughput(
  svgEl: SVGSVGElement, m: ThroughputModel, view: ChartView,
  onRangeChange?: (r: [number, number]) => void, hover?: HoverBus,
): void {
  const f = beginFrame(svgEl, { chart: 'throughput', title: m.title, description: m.description, view });
  const [t0, t1] = view.range;
  let ymax = 0;
  for (const s of m.series) ymax = Math.max(ymax, visibleMax(s.bins, t0, t1));
  const y = d3.scaleLinear().domain([0, ymax > 0 ? ymax * 1.08 : 1]).range([f.innerHeight, 0]).nice();
  drawYAxis(f, y, formatBitrate, 'bit/s');
  drawTimeAxis(f);
  const px = f.innerWidth;
  const main = m.series[0].bins;
  if (main.bps.every((v) => v === 0)) drawEmpty(f, 'No payload in this direction');

  const binTimes = (b: Bins) => {
    // Cached per Bins object: with 1 ms bins a long capture has millions of bins.
    let times = binTimesCache.get(b);
    if (!times) {
      times = new Float64Array(b.bps.length);
      for (let i = 0; i < times.length; i++) times[i] = binStart(b, i);
      binTimesCache.set(b, times);
    }
    return times;
  };
  for (const s of m.series) {
    const times = binTimes(s.bins);
    const idx = decimateMinMax(times, s.bins.bps, t0, t1, px);
    const xEnd = f.x(binStart(s.bins, s.bins.bps.length));
    const d = stepPath(idx, (i) => f.x(times[i]), (i) => y(s.bins.bps[i]), xEnd);
    const path = f.plot.append('path').attr('class', `tcps-rate ${s.cls}${s.area ? ' tcps-area' : ''}`)
      .attr('data-series', s.key).attr('data-points', idx.length);
    if (s.area && idx.length) path.attr('d', `${d}V${y(0)}H${f.x(times[idx[0]]).toFixed(1)}Z`);
    else path.attr('d', d);
  }
  if (m.average) {
    const times = binTimes(main);
    const avg = m.average.values;
    const idx = decimateMinMax(times, avg, t0, t1, px);
    // The average describes the middle of its bin.
    f.plot.append('path').attr('class', 'tcps-rate tcps-s-average').attr('data-series', 'average')
      .attr('data-points', idx.length)
      .attr('d', linePath(idx, (i) => f.x(times[i] + m.binSeconds / 2), (i) => y(avg[i])));
  }

  const pick: Pick = (t) => {
    const i = Math.floor((t - main.t0) / main.binSeconds);
    if (i < 0 || i >= main.bps.length) return null;
    const b0 = binStart(main, i), b1 = b0 + main.binSeconds;
    const lines = [`${formatTime(b0)} + ${formatDuration(main.binSeconds)}`];
    for (const s of m.series) lines.push(`${s.label}: ${formatBitrate(s.bins.bps[i] ?? 0)}`);
    if (m.average) lines.push(`moving average (${m.average.window} bins): ${formatBitrate(m.average.values[i])}`);
    const k0 = lowerBound(m.dataT, b0), k1 = lowerBound(m.dataT, b1) - 1;
    lines.push(k1 >= k0 ? `frames ${m.dataFrames[k0]}–${m.dataFrames[k1]} (${k1 - k0 + 1} packets)` : 'no packets in this bin');
    return { x: f.x(b0 + main.binSeconds / 2), y: y(main.bps[i]), lines };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

export interface ThroughputChartProps extends ChartProps {
  binMs: number;
  toggles: ThroughputToggles;
  others?: ConnectionData[];
}

export function ThroughputChart({ data, direction, view, onRangeChange, hover, binMs, toggles, others }: ThroughputChartProps) {
  const model = useMemo(() => throughputModel(data, direction, binMs, toggles, others), [data, direction, binMs, toggles, others]);
  const ref = useD3((svg) => drawThroughput(svg, model, view, onRangeChange, hover), [model, view, onRangeChange, hover]);
  return (
    <>
      <svg ref={ref} />
      <ul className="tcps-legend" aria-label="Throughput series">
        {model.series.map((s) => (
          <li key={s.key}><span className={`tcps-swatch ${s.cls}`} />{s.label}</li>
        ))}
        {model.average && <li><span className="tcps-swatch tcps-s-average" />moving average ({formatDuration(model.average.window * model.binSeconds)})</li>}
      </ul>
    </>
  );
}
