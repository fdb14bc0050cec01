// Chart 1, throughput (data-chart="throughput"): payload rate per time bin of the data
// direction as a filled step area, its moving average, and optionally the wire rate,
// the goodput (newly acknowledged bytes), the reverse direction and other connections;
// on a subflow of an MPTCP connection, that connection's data-level rate (all subflows,
// each data byte once: view series "mptcpData", wasm analysis/track/mptcp.rs data_arrivals).
// Every number is the view engine's (wasm/src/view/rates.rs: bins on the summary's
// grid, so the fullest bar is the summary's peak); this file only draws.

import { useMemo } from 'react';
import * as d3 from 'd3';
import type { ConnectionSummary } from '../model/types';
import type { ViewQuery, ViewSource } from '../worker/viewSource';
import type { PackedBins, ViewAnswer } from '../worker/viewAnswer';
import { beginFrame, drawEmpty, drawTimeAxis, drawYAxis, wholeTicks, yTickCount, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { linePath, stepPath } from './paths';
import { formatBitrate, formatBytes, formatDuration, formatTime } from './units';
import { chartTitle, directionLabel, useD3, type ChartProps } from './common';
import { ChartMessages } from './ChartMessages';
import { peerOf, plotColumns, useDrawnSignal, useViewAnswers, type Dir } from './useViewAnswers';

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

/** The legend's words for the MPTCP connection's data-level rate. */
export const MPTCP_LABEL = 'MPTCP connection (all subflows)';

/** One drawn rate series: what to ask and how to label it. */
export interface RateSpec {
  key: string;
  label: string;
  /** CSS class giving the colour (charts.css). */
  cls: string;
  query: ViewQuery;
  /** Filled area (the main payload series) or a line. */
  area?: boolean;
}

/** The questions of the chart: payload first, then the toggled series. */
export function rateSpecs(
  summary: ConnectionSummary, d: Dir, view: ChartView, binMs: number | null, toggles: ThroughputToggles, others: ConnectionSummary[] = [],
): RateSpec[] {
  const base = { connection: summary.id, t0: view.range[0], t1: view.range[1], columns: plotColumns(view), ...(binMs != null ? { binSeconds: binMs / 1000 } : {}) };
  const specs: RateSpec[] = [
    { key: 'payload', label: `payload ${directionLabel(summary, d)}`, cls: 'tcps-s-payload', area: true, query: { ...base, series: 'throughput', direction: d } },
  ];
  // A subflow of an MPTCP connection (`connection.mptcp`): what the connection as a whole
  // delivered, beside this subflow's share of it.
  if (summary.mptcp != null) {
    specs.push({ key: 'mptcp', label: MPTCP_LABEL, cls: 'tcps-s-mptcp', query: { ...base, series: 'mptcpData', direction: d } });
  }
  if (toggles.wire) specs.push({ key: 'wire', label: 'wire rate (frame bytes)', cls: 'tcps-s-wire', query: { ...base, series: 'wire', direction: d } });
  if (toggles.goodput) specs.push({ key: 'goodput', label: 'goodput (newly ACKed)', cls: 'tcps-s-goodput', query: { ...base, series: 'goodput', direction: d } });
  if (toggles.reverse) specs.push({ key: 'reverse', label: `payload ${directionLabel(summary, peerOf(d))}`, cls: 'tcps-s-reverse', query: { ...base, series: 'throughput', direction: peerOf(d) } });
  others.forEach((o, i) => {
    if (!toggles.overlays.includes(o.id)) return;
    // The same bin on the same grid (multiples of the bin from t = 0): the bars line up.
    specs.push({
      key: `other-${o.id}`, label: `#${o.id} ${directionLabel(o, o.dataDirection)}`, cls: `tcps-c${i % 6}`,
      query: { ...base, connection: o.id, series: 'throughput', direction: o.dataDirection },
    });
  });
  return specs;
}

export interface ThroughputModel {
  specs: RateSpec[];
  /** The engine's answers, one per spec (null while the first is on its way). */
  answers: (ViewAnswer | null)[];
  average: boolean;
  summary: ConnectionSummary;
  direction: Dir;
  source?: ViewSource;
}

/** A bins answer with its bin width (rates, and the events strip's counts), or null. */
export type BinsAnswer = PackedBins & { binSeconds: number };
export const binsOf = (a: ViewAnswer | null | undefined): BinsAnswer | null =>
  a && a.kind === 'bins' && a.binSeconds != null ? { ...a, binSeconds: a.binSeconds } : null;

/** Draw the throughput chart into `svgEl`; pure apart from the DOM it writes. */
export function drawThroughput(
  svgEl: SVGSVGElement, m: ThroughputModel, view: ChartView,
  onRangeChange?: (r: [number, number]) => void, hover?: HoverBus,
): void {
  const main = binsOf(m.answers[0]);
  const s = m.summary.directions[m.direction];
  const f = beginFrame(svgEl, {
    chart: 'throughput', title: chartTitle('Throughput', m.summary), view,
    description: `Payload rate of ${directionLabel(m.summary, m.direction)}` +
      (main ? ` per ${formatDuration(main.binSeconds)} bin (${main.bps.length} bins in view)` : '') +
      `: mean ${formatBitrate(s.throughput.meanBps)}, peak ${formatBitrate(s.throughput.peakBps)}.`,
  });
  let ymax = 0;
  for (const a of m.answers) for (const v of binsOf(a)?.bps ?? []) if (v > ymax) ymax = v;
  const y = d3.scaleLinear().domain([0, ymax > 0 ? ymax * 1.08 : 1]).range([f.innerHeight, 0]).nice();
  drawYAxis(f, y, formatBitrate, 'bit/s', wholeTicks(y, yTickCount(f)));
  drawTimeAxis(f);
  if (main && main.bps.every((v) => v === 0)) drawEmpty(f, 'No payload in this view');

  const binX = (b: PackedBins & { binSeconds: number }) => (i: number) => f.x(b.start + i * b.binSeconds);
  m.specs.forEach((spec, k) => {
    const b = binsOf(m.answers[k]);
    const path = f.plot.append('path').attr('class', `tcps-rate ${spec.cls}${spec.area ? ' tcps-area' : ''}`)
      .attr('data-series', spec.key).attr('data-points', b?.bps.length ?? 0);
    if (!b || b.bps.length === 0) return;
    const idx = Uint32Array.from(b.bps.keys());
    const x = binX(b);
    const d = stepPath(idx, x, (i) => y(b.bps[i]), x(b.bps.length));
    path.attr('d', spec.area ? `${d}V${y(0)}H${x(0).toFixed(1)}Z` : d)
      .attr('data-bin', b.binSeconds).attr('data-max-bps', d3.max(b.bps) ?? 0);
  });
  if (m.average && main) {
    // The average describes the middle of its bin; NaN (no data within reach) breaks the line.
    const idx = Uint32Array.from(main.averageBps.keys());
    f.plot.append('path').attr('class', 'tcps-rate tcps-s-average').attr('data-series', 'average')
      .attr('data-points', idx.length)
      .attr('d', linePath(idx, (i) => f.x(main.start + (i + 0.5) * main.binSeconds), (i) => y(main.averageBps[i])));
  }

  const pick: Pick = (t) => {
    if (!main) return null;
    const i = Math.floor((t - main.start) / main.binSeconds);
    if (i < 0 || i >= main.bps.length) return null;
    const b0 = main.start + i * main.binSeconds;
    const lines = [`${formatTime(b0)} + ${formatDuration(main.binSeconds)}`];
    m.specs.forEach((spec, k) => {
      const b = binsOf(m.answers[k]);
      const j = b ? Math.floor((t - b.start) / b.binSeconds) : -1;
      if (b && j >= 0 && j < b.bps.length) lines.push(`${spec.label}: ${formatBitrate(b.bps[j])} (${formatBytes(b.bytes[j])})`);
    });
    if (m.average && Number.isFinite(main.averageBps[i])) lines.push(`moving average (${main.averageBins} bins): ${formatBitrate(main.averageBps[i])}`);
    return { x: f.x(b0 + main.binSeconds / 2), y: y(main.bps[i]), lines };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

export interface ThroughputChartProps extends ChartProps {
  /** Bin, ms; null = the summary's bin (the one its peak and mean use). */
  binMs: number | null;
  toggles: ThroughputToggles;
  others?: ConnectionSummary[];
}

export function ThroughputChart({ source, summary, direction, view, onRangeChange, hover, onDrawn, binMs, toggles, others }: ThroughputChartProps) {
  const specs = useMemo(() => rateSpecs(summary, direction, view, binMs, toggles, others), [summary, direction, view, binMs, toggles, others]);
  const got = useViewAnswers(source, useMemo(() => specs.map((s) => s.query), [specs]));
  const { answers, failure } = got;
  useDrawnSignal(got, onDrawn);
  const model: ThroughputModel = { specs, answers, average: toggles.average, summary, direction, source };
  const ref = useD3((svg) => drawThroughput(svg, model, view, onRangeChange, hover), [answers, view, onRangeChange, hover, toggles.average]);
  const main = binsOf(answers[0]);
  return (
    <>
      <svg ref={ref} />
      <ChartMessages answers={answers} failure={failure} />
      <ul className="tcps-legend" aria-label="Throughput series">
        {specs.map((s) => (
          <li key={s.key}><span className={`tcps-swatch ${s.cls}`} />{s.label}</li>
        ))}
        {toggles.average && main && <li><span className="tcps-swatch tcps-s-average" />moving average ({formatDuration(main.averageBins * main.binSeconds)})</li>}
      </ul>
    </>
  );
}
