// Chart 2, bytes in flight vs receive window (data-chart="inflight"): bytes in flight at
// each data segment (dots or a step line), the peer's advertised window as a step line,
// shaded spans where in flight reached the window ("window-limited", the very spans
// the diagnosis's receive-window share adds up), and marks where the peer advertised
// a zero window. Optionally a second line: the SACK-adjusted pipe (RFC 6675 §2, what
// Wireshark calls tcp.analysis.bytes_in_flight), series "pipe". Dashed window with a
// note when the scale is unknown. At a receiver-side capture the in-flight line is the
// sender's bytes in flight as the engine estimates them (series "senderInflight",
// wasm/src/analysis/timing/sender_flight.rs), labelled with its error bound; the capture
// point's own value (what the receiver had not yet acknowledged) stays as a faint line
// and in the tooltip. All numbers are the view engine's answers (M4 per pixel column,
// wasm/src/view); this file draws.

import * as d3 from 'd3';
import type { ViewAnswer, PackedPoints } from '../worker/viewAnswer';
import { pathInfo, type ConnectionSummary } from '../model/types';
import type { ViewSource } from '../worker/viewSource';
import { beginFrame, byteTicks, drawEmpty, drawTimeAxis, drawYAxis, yTickCount, type ChartView } from './frame';
import { CHART_SERIES } from '../worker/generated/vocabulary';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { m4BarsPath, m4Max, m4StepPath } from './m4Paths';
import { formatBytes, formatCount, formatDuration, formatTime } from './units';
import { chartTitle, directionLabel, useD3, type ChartProps } from './common';
import { ChartMessages } from './ChartMessages';
import { peerOf, useSeriesAnswers, type Dir } from './useViewAnswers';
import { drawIntervals, intervalsOf, type IntervalAnswer } from './intervalMarks';

export type InflightMode = 'dots' | 'step';

export interface InflightModel {
  inflight: PackedPoints | null;
  rwnd: PackedPoints | null;
  limited: IntervalAnswer | null;
  /** The SACK-adjusted pipe, when the line is shown. */
  pipe?: PackedPoints | null;
  /** The sender's in flight estimated at a receiver-side capture, and its bound (B). */
  estimate?: PackedPoints | null;
  estimateBound?: number | null;
  summary: ConnectionSummary;
  direction: Dir;
  source?: ViewSource;
}

export const pointsOf = (a: ViewAnswer | null | undefined): PackedPoints | null => (a && a.kind === 'points' ? a : null);

/** Whether the chart draws the sender's estimated in flight: a receiver-side capture, its data direction. */
export const estimatesSender = (summary: ConnectionSummary, direction: Dir): boolean =>
  pathInfo(summary)?.vantage === 'receiver' && direction === summary.dataDirection;

/** The estimate's legend words, its bound formatted (the engine's number). */
export const estimateLabel = (bound: number | null | undefined): string =>
  bound != null ? `sender's in flight (estimate ± ${formatBytes(bound)})` : "sender's in flight (estimate; no bound without TCP timestamps)";

export function drawInflight(
  svgEl: SVGSVGElement, m: InflightModel, view: ChartView, mode: InflightMode = 'dots',
  onRangeChange?: (r: [number, number]) => void, hover?: HoverBus,
): void {
  const s = m.summary.directions[m.direction];
  const scaleUnknown = m.summary.directions[peerOf(m.direction)].windowScaleUnknown;
  const limited = m.limited;
  const f = beginFrame(svgEl, {
    chart: 'inflight', title: chartTitle('Bytes in flight vs receive window', m.summary), view,
    description: `Bytes in flight of ${directionLabel(m.summary, m.direction)}` +
      (s.maxBytesInFlight != null ? ` (max ${formatBytes(s.maxBytesInFlight)})` : '') +
      ` against the advertised receive window${scaleUnknown ? ' (scale unknown)' : ''}` +
      (limited ? `; window-limited for ${formatDuration(limited.totalSeconds)} in all` : '') +
      (m.pipe ? '; a second line shows the SACK-adjusted pipe (RFC 6675), the bytes in flight less those the receiver SACKed, as Wireshark counts them' : '') +
      (m.estimate ? `; captured at the receiver, so the main line is the ${estimateLabel(m.estimateBound)}, rebuilt from the data arriving and the ACKs leaving; the bytes the receiver had not yet acknowledged are in the tooltip` : '') + '.',
  });
  const ymax = Math.max(m4Max(m.inflight), m4Max(m.rwnd), m4Max(m.estimate ?? null)) * 1.08 || 1;
  const y = d3.scaleLinear().domain([0, ymax]).range([f.innerHeight, 0]);
  drawYAxis(f, y, formatBytes, 'bytes', byteTicks(0, ymax, yTickCount(f)));
  drawTimeAxis(f);
  if (m.inflight && m.inflight.total === 0 && !m.inflight.before && !m.inflight.after) drawEmpty(f, 'No data segments in this view');

  // Window-limited spans first, under everything else.
  if (limited) drawIntervals(f, 'tcps-limited', limited, 0, f.innerHeight);

  const winPath = f.plot.append('path').attr('class', 'tcps-window').attr('data-points', m.rwnd?.column.length ?? 0)
    .attr('d', m.rwnd ? m4StepPath(m.rwnd, f.x, y, f.x(m.summary.end)) : '');
  if (scaleUnknown) winPath.classed('tcps-dashed', true).attr('stroke-dasharray', '6 4');

  // At a receiver-side capture the capture point's value is a faint line under the
  // sender's estimate, which takes the in-flight line's place.
  const est = m.estimate ?? null;
  // Drawn as the in-flight line is elsewhere (bars per column, or steps in step mode):
  // from what the columns hold, so a share link, which stores in-flight as per-column
  // marks, redraws it pixel for pixel (a step path needs each column's first and last
  // value, which links leave out for this series).
  if (est && m.inflight) {
    f.plot.append('path').attr('class', 'tcps-inflight-capture').attr('data-points', m.inflight.column.length)
      .attr('d', mode === 'step' ? m4StepPath(m.inflight, f.x, y) : m4BarsPath(m.inflight, f.x, y));
  }
  const fl = est ?? m.inflight;
  const main = est ? ' tcps-sender-estimate' : '';
  if (mode === 'step') {
    f.plot.append('path').attr('class', `tcps-inflight tcps-inflight-step${main}`).attr('data-points', fl?.column.length ?? 0)
      .attr('d', fl ? m4StepPath(fl, f.x, y) : '');
  } else {
    f.plot.append('path').attr('class', `tcps-inflight tcps-dots${main}`).attr('data-points', fl?.column.length ?? 0)
      .attr('d', fl ? m4BarsPath(fl, f.x, y) : '');
  }

  // Drawn over the outstanding bytes: the pipe never exceeds them and departs from
  // them only while the receiver SACKs data above a hole.
  if (m.pipe) {
    f.plot.append('path').attr('class', 'tcps-pipe').attr('data-points', m.pipe.column.length)
      .attr('d', m4StepPath(m.pipe, f.x, y));
  }

  // A pixel column whose smallest advertised window is 0 saw a zero window.
  const zero: number[] = [];
  const w = m.rwnd;
  if (w) for (let k = 0; k < w.column.length; k++) if (w.min[k] === 0) zero.push(w.tFirst[k]);
  f.plot.append('g').attr('class', 'tcps-zero-window').attr('data-count', zero.length)
    .selectAll('path').data(zero).join('path')
    .attr('d', (t) => `M${f.x(t)},${f.innerHeight}l-5,-9h10z`)
    .append('title').text((t) => `zero window advertised at ${formatTime(t)}`);

  const pick: Pick = async (t) => {
    const at = m.source?.at;
    if (!at) return null;
    const ask = (series: 'inflight' | 'rwnd' | 'pipe' | 'senderInflight') => at({ connection: m.summary.id, series, direction: m.direction, t });
    // The pipe's value is in every tooltip, line shown or not, so the number can be
    // matched with Wireshark's bytes-in-flight column (a shared link lacks it: null).
    // A share link of a receiver-side capture holds the estimate, not the capture
    // point's value: that line is then left out of the tooltip.
    const [p, win, pipe, sender] = await Promise.all([
      ask('inflight').catch(() => null), ask('rwnd'), ask('pipe').catch(() => null), m.estimate ? ask('senderInflight').catch(() => null) : null,
    ]);
    const estimated = sender?.value != null ? sender : null;
    if ((!p || p.value == null) && !estimated) return null;
    const lines = [
      ...(estimated
        ? [`sender's in flight (estimate) at ${formatTime(estimated.t)}: ${formatCount(estimated.value!)} B (${formatBytes(estimated.value!)})` +
          (m.estimateBound != null ? ` ± ${formatBytes(m.estimateBound)}` : '')]
        : []),
      ...(p?.value != null ? [`${estimated ? 'in flight at the capture point (not yet acknowledged by the receiver)' : 'in flight'} at ${formatTime(p.t)}: ${formatCount(p.value)} B (${formatBytes(p.value)})`] : []),
      win?.value != null
        // With the scale unknown the raw field is a lower bound of the window: "≥" leads.
        ? `receive window at ${formatTime(win.t)}: ${scaleUnknown ? '≥ ' : ''}${formatCount(win.value)} B (${formatBytes(win.value)})${scaleUnknown ? ', scale unknown' : ''}`
        : 'receive window: not seen',
      ...(pipe?.value != null ? [`SACK-adjusted pipe at ${formatTime(pipe.t)}: ${formatCount(pipe.value)} B (${formatBytes(pipe.value)})`] : []),
    ];
    const shown = estimated ?? p!;
    return { x: f.x(shown.t), y: y(shown.value!), lines };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

export interface InflightChartProps extends ChartProps {
  mode?: InflightMode;
  /** Draw the SACK-adjusted pipe as a second line (default false: see ConnectionCharts). */
  pipe?: boolean;
}

const SERIES = CHART_SERIES.inflight;
const WITH_PIPE = [...SERIES, 'pipe'] as const;

export function InflightChart({ source, summary, direction, view, onRangeChange, hover, onDrawn, mode = 'dots', pipe = false }: InflightChartProps) {
  const estimating = estimatesSender(summary, direction);
  // At a receiver-side capture the estimate takes the in-flight line's place, and the
  // capture point's own value is in the tooltip (asked of the engine at the pointer), not
  // drawn: a share link then holds one in-flight series, not two, and keeps the detail
  // the page draws within its 8 KB (rx-rr-loss.pcap's link had to coarsen the estimate's
  // marks to fit both).
  const series = [...(pipe ? WITH_PIPE : SERIES), ...(estimating ? ['senderInflight' as const] : [])]
    .filter((name) => !(estimating && name === 'inflight'));
  const { answers, failure } = useSeriesAnswers(source, summary.id, direction, view, series, onDrawn);
  const answerOf = (name: (typeof series)[number]) => {
    const k = series.indexOf(name);
    return k < 0 ? undefined : answers[k];
  };
  const estimateAnswer = estimating ? answerOf('senderInflight') ?? null : null;
  // A share link made before the estimate existed does not hold it: the chart draws the
  // capture point's value alone, as before, without a message about the missing series.
  const estimate = estimateAnswer && !estimateAnswer.error ? pointsOf(estimateAnswer) : null;
  const model: InflightModel = {
    inflight: pointsOf(answerOf('inflight')), rwnd: pointsOf(answerOf('rwnd')), limited: intervalsOf(answerOf('windowLimited')), pipe: pipe ? pointsOf(answerOf('pipe')) : null,
    estimate, estimateBound: estimateAnswer?.errorBound ?? null, summary, direction, source,
  };
  const shownAnswers = estimateAnswer?.error ? answers.filter((a) => a !== estimateAnswer) : answers;
  const ref = useD3((svg) => drawInflight(svg, model, view, mode, onRangeChange, hover), [answers, view, mode, onRangeChange, hover]);
  const scaleUnknown = summary.directions[peerOf(direction)].windowScaleUnknown;
  return (
    <>
      <svg ref={ref} />
      <ChartMessages answers={shownAnswers} failure={failure} />
      <ul className="tcps-legend" aria-label="In-flight chart legend">
        {estimate
          ? <>
            <li data-testid="sender-inflight-label" title="Captured at the receiver: the sender's bytes in flight rebuilt from the data arriving and the ACKs leaving, shifted by the far part of the round trip its timestamp echoes measure (docs/ANALYSIS.md). The bound holds for nine points in ten.">
              <span className="tcps-swatch tcps-s-inflight" />{estimateLabel(model.estimateBound)}
            </li>
            <li title="The bytes the receiver had not yet acknowledged, at the capture point: in the tooltip.">in flight at the capture point: in the tooltip</li>
          </>
          : <li><span className="tcps-swatch tcps-s-inflight" />bytes in flight</li>}
        {pipe && <li><span className="tcps-swatch tcps-s-pipe" />SACK-adjusted pipe (Wireshark's bytes in flight)</li>}
        <li><span className={`tcps-swatch tcps-s-window${scaleUnknown ? ' tcps-dashed' : ''}`} />advertised receive window{scaleUnknown ? ' (lower bound)' : ''}</li>
        <li><span className="tcps-swatch tcps-s-limited" />window-limited</li>
        <li><span className="tcps-swatch tcps-s-zero-window" />zero window</li>
      </ul>
    </>
  );
}
