// The throughput chart while a capture loads (issue 41): the selected connection's
// payload rate per bin so far, asked through the same view-query path as the finished
// chart (pixel columns, the summary's grid) and answered by the worker from the
// analysis's running bins (wasm/src/view/partial.rs). Only settled bins come back, so
// the chart grows to the right and every bar drawn is the finished chart's bar; the
// moving average is drawn where its whole window is settled. This file only draws.
import { useEffect, useMemo, useRef } from 'react';
import * as d3 from 'd3';
import type { PartialRow } from '../worker/generated/view';
import type { ViewSource } from '../worker/viewSource';
import { beginFrame, drawNote, drawTimeAxis, drawYAxis, wholeTicks, yTickCount, type ChartView } from '../charts/frame';
import { fullRange, type TimeRange } from '../charts/timeRange';
import { linePath, stepPath } from '../charts/paths';
import { formatBitrate, formatDuration } from '../charts/units';
import { useD3 } from '../charts/common';
import { plotColumns, useViewAnswers } from '../charts/useViewAnswers';
import { binsOf } from '../charts/ThroughputChart';
import { mark } from '../worker/marks';
import '../charts/charts.css';

/** What the benchmark and the e2e test read about the partial chart (window.__tcpscopePartial). */
export interface PartialProbe {
  /** The first bar drawn: a settled bin, or the bin in progress with bytes so far. */
  firstDrawnMs: number | null;
  /** The first settled bin drawn (the bin in progress aside). */
  firstSettledMs?: number | null;
  updates: number;
  last: { connection: number; direction: number; t0: number; t1: number; columns: number; binSeconds: number; start: number; bytes: number[]; fraction: number } | null;
}

function probe(): PartialProbe {
  const w = window as unknown as { __tcpscopePartial?: PartialProbe };
  return (w.__tcpscopePartial ??= { firstDrawnMs: null, firstSettledMs: null, updates: 0, last: null });
}

/** A new load starts a new count (App, when a capture is opened). */
export function resetPartialProbe() {
  (window as unknown as { __tcpscopePartial?: PartialProbe }).__tcpscopePartial = { firstDrawnMs: null, firstSettledMs: null, updates: 0, last: null };
}

/**
 * The time axis while loading: the connection from its start to where it is expected
 * to end — a connection still sending when the analysis last settled is expected to
 * run as long as the capture (`captureEnd`, ProgressiveView estimatedLength) — so the
 * bars grow into the axis instead of the axis squeezing them; the finished chart opens
 * on the connection's whole span (fullRange), which that estimate approaches.
 */
export function loadingRange(row: PartialRow, settledT: number | null, captureEnd: number | null): TimeRange {
  let end = row.end;
  const active = settledT != null && row.end >= settledT - 1;
  if (active && captureEnd != null) end = Math.max(end, captureEnd);
  return fullRange(row.start, end);
}

export interface PartialThroughputChartProps {
  source: ViewSource;
  row: PartialRow;
  settledT: number | null;
  /** Share of the file read (0..1): the loading state's "N % read". */
  fraction: number;
  /** The capture's estimated length, s from its first packet (null: not known). */
  estimatedEnd: number | null;
  width: number;
}

export function PartialThroughputChart({ source, row, settledT, fraction, estimatedEnd, width }: PartialThroughputChartProps) {
  const range = loadingRange(row, settledT, estimatedEnd);
  const r0 = range[0], r1 = range[1];
  const view: ChartView = useMemo(() => ({ range: [r0, r1], full: [r0, r1], width, height: 220 }), [r0, r1, width]);
  const queries = useMemo(() => [{
    connection: row.id, series: 'throughput' as const, direction: row.dataDirection, t0: view.range[0], t1: view.range[1], columns: plotColumns(view),
  }], [row.id, row.dataDirection, view]);
  // A new question each time the analysis settles further: the worker answers between slices.
  // The probe is the one of the load the question was asked in: an answer that arrives
  // after App has started the next load (resetPartialProbe) belongs to the old count,
  // not to the new capture's (CI of 3e3919a: the big capture's last answer, drawn as its
  // view was being replaced, was read as the new load's partial chart).
  const asked = useMemo(() => ({ queries: queries.map((q) => ({ ...q })), probe: probe() }), [queries, settledT]); // eslint-disable-line react-hooks/exhaustive-deps
  const got = useViewAnswers(source, asked.queries);
  const answer = got.answers[0];
  const pct = Math.floor(fraction * 100);
  const drawnRef = useRef<unknown>(null);
  useEffect(() => {
    const b = binsOf(answer);
    if (!b || answer === drawnRef.current) return;
    drawnRef.current = answer;
    const p = asked.probe;
    // A bar is a bin with bytes: an answer whose bins are all empty (the bin before a
    // connection that starts at the file's first packet: the axis is padded by 1 %)
    // draws no bar.
    const settledBar = b.bps.some((v) => v > 0);
    if ((settledBar || b.loading) && p.firstDrawnMs == null) {
      p.firstDrawnMs = performance.now();
      mark('chart-drawn');
    }
    if (settledBar && p.firstSettledMs == null) {
      p.firstSettledMs = performance.now();
      mark('chart-settled');
    }
    p.updates += 1;
    // The question this answer is to, from the answer itself: the axis may have moved
    // since it was asked (the end estimate grows with the read), and the answer drawn
    // is the one for the earlier axis until the next one arrives.
    const a = answer!;
    p.last = { connection: a.connection, direction: a.direction, t0: a.t0, t1: a.t1, columns: a.columns, binSeconds: b.binSeconds, start: b.start, bytes: Array.from(b.bytes), fraction };
  }, [answer, fraction, asked]);
  const ref = useD3((svg) => {
    const b = binsOf(answer);
    const f = beginFrame(svg, {
      chart: 'throughput', view,
      title: `Throughput of #${row.id} so far`,
      description: `Payload rate per ${b ? formatDuration(b.binSeconds) : ''} bin while the capture loads: ${b?.bps.length ?? 0} settled bins${b?.loading ? `, then the bin in progress (bytes up to ${formatDuration(b.loading.settledTo)}: at least ${formatBitrate(b.loading.bps)})` : ''}; loading, ${pct} % read.`,
    });
    let ymax = b?.loading?.bps ?? 0;
    for (const v of b?.bps ?? []) if (v > ymax) ymax = v;
    const y = d3.scaleLinear().domain([0, ymax > 0 ? ymax * 1.08 : 1]).range([f.innerHeight, 0]).nice();
    drawYAxis(f, y, formatBitrate, 'bit/s', wholeTicks(y, yTickCount(f)));
    drawTimeAxis(f);
    drawNote(f, `loading — ${pct} % read`, 'tcps-note tcps-loading-note');
    const path = f.plot.append('path').attr('class', 'tcps-rate tcps-s-payload tcps-area').attr('data-series', 'payload')
      .attr('data-points', b?.bps.length ?? 0);
    // The bin in progress (wasm view/partial.rs LoadingBin): the bytes analysed in it so
    // far, a floor of the finished bar — drawn apart, open at the top, growing as the
    // analysis settles further.
    const open = b?.loading;
    if (b && open && open.bps > 0) {
      const x0 = f.x(b.start + open.index * b.binSeconds), x1 = f.x(b.start + (open.index + 1) * b.binSeconds);
      f.plot.append('rect').attr('class', 'tcps-loading-bin').attr('data-series', 'loading-bin')
        .attr('x', x0).attr('width', Math.max(1, x1 - x0)).attr('y', y(open.bps)).attr('height', Math.max(0, y(0) - y(open.bps)))
        .attr('data-bps', open.bps).attr('data-settled-to', open.settledTo)
        .append('title').text(`bin in progress: at least ${formatBitrate(open.bps)} (bytes analysed up to ${formatDuration(open.settledTo)})`);
    }
    if (!b || b.bps.length === 0) return;
    const x = (i: number) => f.x(b.start + i * b.binSeconds);
    const idx = Uint32Array.from(b.bps.keys());
    path.attr('d', `${stepPath(idx, x, (i) => y(b.bps[i]), x(b.bps.length))}V${y(0)}H${x(0).toFixed(1)}Z`)
      .attr('data-bin', b.binSeconds).attr('data-max-bps', d3.max(b.bps) ?? 0);
    const avg = Uint32Array.from(b.averageBps.keys());
    f.plot.append('path').attr('class', 'tcps-rate tcps-s-average').attr('data-series', 'average')
      .attr('d', linePath(avg, (i) => f.x(b.start + (i + 0.5) * b.binSeconds), (i) => y(b.averageBps[i])));
  }, [answer, view, pct, row.id]);
  return (
    <figure className="tcps-charts partial-chart" data-testid="partial-throughput" data-fraction={fraction.toFixed(4)}
      data-points={binsOf(answer)?.bps.length ?? 0} aria-busy="true">
      <svg ref={ref} />
      {got.failure ? <p className="tcps-messages" role="status">{got.failure}</p> : null}
    </figure>
  );
}
