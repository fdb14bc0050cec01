// Chart 3, stalls (data-chart="stalls"): every stall of the data direction as a band on
// the shared time axis, coloured by cause. The stalls are the view engine's
// (wasm/src/view/stalls.rs): the summary's list at its threshold, or found again at the
// user's threshold (raised, with a sentence, when it would make stalls unbounded).
// Definitions: docs/ANALYSIS.md "Stalls".

import type { StallCause } from '../model/types';
import type { ConnectionSummary } from '../model/types';
import type { ViewSource } from '../worker/viewSource';
import { beginFrame, drawTimeAxis, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { formatDuration, formatTime } from './units';
import { chartTitle, directionLabel, useD3, type ChartProps } from './common';
import { ChartMessages } from './ChartMessages';
import { useSeriesAnswers, type Dir } from './useViewAnswers';
import { drawIntervals, intervalsOf, type IntervalAnswer } from './intervalMarks';

export const CAUSE_LABELS: Record<StallCause, string> = {
  'zero-window': 'zero window',
  'window-limited': 'window-limited',
  // A loss-recovery timer: the RTO or Linux's tail-loss probe (RFC 8985 §7), which
  // the stall's "ended by" names (analysis/stalls/gaps.rs `retransmission_kind_words`).
  'retransmission-timeout': 'retransmission timer',
  'application-idle': 'application idle',
  'ack-wait': 'waiting for ACK',
  'delayed-ack': 'delayed ACK (Nagle)',
  unknown: 'unknown',
};
export const CAUSES = Object.keys(CAUSE_LABELS) as StallCause[];
const causeLabel = (c: string | null) => CAUSE_LABELS[c as StallCause] ?? c ?? 'stall';

const STRIP = 44; // height of the band strip

export interface StallsModel {
  stalls: IntervalAnswer | null;
  summary: ConnectionSummary;
  direction: Dir;
  source?: ViewSource;
}

export function drawStalls(
  svgEl: SVGSVGElement, m: StallsModel, view: ChartView,
  onRangeChange?: (r: [number, number]) => void, hover?: HoverBus,
): void {
  const st = m.stalls;
  const threshold = st?.stallThresholdMs != null ? st.stallThresholdMs / 1000 : null;
  const f = beginFrame(svgEl, {
    chart: 'stalls', title: chartTitle('Stalls', m.summary), view, plotHeight: STRIP,
    description: `Stalls of ${directionLabel(m.summary, m.direction)}` +
      (threshold != null ? ` longer than ${formatDuration(threshold)}` : '') +
      (st ? `: ${st.intervals.length + st.more} in view, ${formatDuration(st.totalSeconds)} in all.` : '.'),
  });
  drawTimeAxis(f);
  f.content.append('text').attr('class', 'tcps-axis-label').attr('x', -8).attr('y', STRIP / 2)
    .attr('text-anchor', 'end').attr('dominant-baseline', 'middle').text('stalls');
  f.plot.append('rect').attr('class', 'tcps-strip-bg').attr('width', f.innerWidth).attr('height', STRIP);
  if (st) {
    drawIntervals(f, 'tcps-stalls', st, 2, STRIP - 4,
      (s) => `${causeLabel(s.cause)}: ${formatDuration(s.end - s.start)} from ${formatTime(s.start)}`,
      (s) => `tcps-stall tcps-cause-${s.cause}`, 1.5);
    f.plot.selectAll<SVGRectElement, { cause: string | null }>('rect.tcps-stall').attr('data-cause', (s) => s.cause);
  }
  if (st && st.intervals.length + st.more === 0) {
    f.content.append('text').attr('class', 'tcps-empty').attr('x', f.innerWidth / 2).attr('y', STRIP / 2 + 4)
      .attr('text-anchor', 'middle').text(`No stalls${threshold != null ? ` longer than ${formatDuration(threshold)}` : ''} in view`);
  }

  const pick: Pick = async (t) => {
    const at = m.source?.at;
    if (!at) return null;
    const s = await at({ connection: m.summary.id, series: 'stalls', direction: m.direction, t, ...(st?.stallThresholdMs != null ? { stallThresholdMs: st.stallThresholdMs } : {}) });
    if (!s || s.tEnd == null) return null;
    return {
      x: Math.max(0, Math.min(f.innerWidth, f.x((s.t + s.tEnd) / 2))), y: STRIP / 2,
      lines: [
        `${causeLabel(s.cause)} stall: ${formatDuration(s.tEnd - s.t)}`,
        `from ${formatTime(s.t)} to ${formatTime(s.tEnd)}`,
        ...(s.frameBefore != null ? [`frames ${s.frameBefore} → ${s.frameAfter ?? '?'}`] : []),
      ],
    };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover, height: STRIP });
  followHover(f, hover);
}

export interface StallsChartProps extends ChartProps {
  /** Stall threshold in ms; undefined shows the summary's stalls at its threshold. */
  stallMs?: number;
}

export function StallsChart({ source, summary, direction, view, onRangeChange, hover, onDrawn, stallMs }: StallsChartProps) {
  const { answers, failure } = useSeriesAnswers(source, summary.id, direction, view, ['stalls'], onDrawn,
    stallMs != null ? { stallThresholdMs: stallMs } : {});
  const stalls = intervalsOf(answers[0]);
  const model: StallsModel = { stalls, summary, direction, source };
  const ref = useD3((svg) => drawStalls(svg, model, view, onRangeChange, hover), [answers, view, onRangeChange, hover]);
  // Counts only when the engine listed every stall in view.
  const listed = stalls && stalls.more === 0 ? stalls.intervals : null;
  return (
    <>
      <svg ref={ref} />
      <ChartMessages answers={answers} failure={failure} />
      <ul className="tcps-legend" aria-label="Stall causes">
        {CAUSES.map((c) => {
          const n = listed?.filter((s) => s.cause === c).length;
          return (
            <li key={c} className={n === 0 ? 'tcps-legend-empty' : undefined}>
              <span className={`tcps-swatch tcps-cause-${c}`} />{CAUSE_LABELS[c]}{n != null ? ` (${n} in view)` : ''}
            </li>
          );
        })}
        {stalls?.stallThresholdMs != null && <li className="tcps-threshold-label">threshold {formatDuration(stalls.stallThresholdMs / 1000)}</li>}
      </ul>
    </>
  );
}
