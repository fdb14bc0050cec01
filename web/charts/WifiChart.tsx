// The Wi-Fi strip (data-chart="wifi"), on 802.11 captures with radiotap or PPI headers:
// per bin of the rate grid, the mean PHY rate of the direction's frames (line, left
// axis) and the share of them sent with the Retry bit (bars, right axis). Both numbers
// are the view engine's (series "wifi", wasm/src/analysis/capture/radio.rs); definitions:
// docs/ANALYSIS.md "Wi-Fi strip". This file only draws.

import { useMemo } from 'react';
import * as d3 from 'd3';
import type { ViewAnswer, PackedWifi } from '../worker/viewAnswer';
import { beginFrame, drawEmpty, drawTimeAxis, drawYAxis, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { stepPath } from './paths';
import { formatDuration, formatTime } from './units';
import { chartTitle, directionLabel, useD3, type ChartProps } from './common';
import { ChartMessages } from './ChartMessages';
import { plotColumns, useDrawnSignal, useViewAnswers, type Dir } from './useViewAnswers';
import type { ConnectionSummary } from '../model/types';

type WifiAnswer = PackedWifi & { binSeconds: number; notes: string[] };

const wifiOf = (a: ViewAnswer | null | undefined): WifiAnswer | null =>
  a && a.kind === 'wifi' && a.binSeconds != null ? { ...a, binSeconds: a.binSeconds } : null;

const mbps = (v: number) => `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} Mbit/s`;
const percent = (v: number) => `${Math.round(v * 100)} %`;

export interface WifiModel {
  wifi: WifiAnswer | null;
  summary: ConnectionSummary;
  direction: Dir;
}

/** Draw the strip into `svgEl`; pure apart from the DOM it writes. */
export function drawWifi(svgEl: SVGSVGElement, m: WifiModel, view: ChartView, onRangeChange?: (r: [number, number]) => void, hover?: HoverBus): void {
  const w = m.wifi;
  const f = beginFrame(svgEl, {
    chart: 'wifi', title: chartTitle('Wi-Fi', m.summary), view,
    description: `PHY rate and retry share of ${directionLabel(m.summary, m.direction)}'s 802.11 frames` +
      (w ? ` per ${formatDuration(w.binSeconds)} bin (${w.frames.length} bins in view).` : '.'),
  });
  let rmax = 0;
  for (const v of w?.phyRateMbps ?? []) if (v > rmax) rmax = v;
  const y = d3.scaleLinear().domain([0, rmax > 0 ? rmax * 1.1 : 1]).range([f.innerHeight, 0]).nice();
  const share = d3.scaleLinear().domain([0, 1]).range([f.innerHeight, 0]);
  drawYAxis(f, y, (v) => String(v), 'PHY Mbit/s');
  // The retry share's axis sits inside the plot's right edge (the stack's right margin
  // is too narrow for "100 %" and must stay the same for the time axes to line up).
  f.content.append('g').attr('class', 'tcps-axis tcps-axis-retry').attr('transform', `translate(${f.innerWidth},0)`)
    .call(d3.axisLeft(share).tickValues([0.5, 1]).tickFormat((v) => `${percent(Number(v))} retried`).tickSizeOuter(0));
  drawTimeAxis(f);
  if (!w) return;
  const x = (i: number) => f.x(w.start + i * w.binSeconds);
  const rated = Uint32Array.from([...w.phyRateMbps.keys()].filter((i) => Number.isFinite(w.phyRateMbps[i])));
  const retried = Uint32Array.from([...w.retryShare.keys()].filter((i) => w.retryShare[i] > 0));
  // One filled rectangle per bin with retries, bin-wide.
  let bars = '';
  for (const i of retried) bars += `M${x(i).toFixed(1)},${share(0)}H${x(i + 1).toFixed(1)}V${share(w.retryShare[i]).toFixed(1)}H${x(i).toFixed(1)}Z`;
  f.plot.append('path').attr('class', 'tcps-wifi-retry').attr('data-bins', retried.length).attr('d', bars);
  f.plot.append('path').attr('class', 'tcps-wifi-rate').attr('data-bins', rated.length)
    .attr('d', rated.length ? stepPath(rated, x, (i) => y(w.phyRateMbps[i]), x(w.frames.length)) : null);
  if (w.frames.every((n) => n === 0)) drawEmpty(f, w.notes[0] ?? 'No 802.11 frames in this view');

  const pick: Pick = (t) => {
    const i = Math.floor((t - w.start) / w.binSeconds);
    if (!(i >= 0 && i < w.frames.length) || w.frames[i] === 0) return null;
    const rate = w.phyRateMbps[i];
    return {
      x: Math.max(0, Math.min(f.innerWidth, x(i + 0.5))), y: Number.isFinite(rate) ? y(rate) : f.innerHeight / 2,
      lines: [
        `${formatTime(w.start + i * w.binSeconds)} + ${formatDuration(w.binSeconds)}: ${w.frames[i]} frames`,
        Number.isFinite(rate) ? `PHY rate ${mbps(rate)} (mean)` : 'no PHY rate in the radio headers',
        `retried ${percent(w.retryShare[i])}`,
      ],
    };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover, height: f.innerHeight });
  followHover(f, hover);
}

export interface WifiChartProps extends ChartProps {
  /** Bin in ms; null = the summary's (the throughput chart's grid). */
  binMs: number | null;
}

export function WifiChart({ source, summary, direction, view, onRangeChange, hover, onDrawn, binMs }: WifiChartProps) {
  const queries = useMemo(() => [{
    connection: summary.id, series: 'wifi' as const, direction, t0: view.range[0], t1: view.range[1], columns: plotColumns(view),
    ...(binMs != null ? { binSeconds: binMs / 1000 } : {}),
  }], [summary.id, direction, view, binMs]);
  const got = useViewAnswers(source, queries);
  useDrawnSignal(got, onDrawn);
  const wifi = wifiOf(got.answers[0]);
  const ref = useD3((svg) => drawWifi(svg, { wifi, summary, direction }, view, onRangeChange, hover), [got.answers, view, onRangeChange, hover]);
  return (
    <>
      <svg ref={ref} />
      <ChartMessages answers={got.answers} failure={got.failure} />
      <ul className="tcps-legend" aria-label="Wi-Fi series">
        <li><span className="tcps-swatch tcps-wifi-rate-swatch" />PHY rate (mean per bin)</li>
        <li><span className="tcps-swatch tcps-wifi-retry-swatch" />frames retried (share, right axis)</li>
      </ul>
    </>
  );
}
