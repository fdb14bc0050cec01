// Chart 6, the events strip (data-chart="events", issue 17 item 7): per bin of the rate
// grid, how many retransmissions the sender sent and how many duplicate ACKs and
// zero-window advertisements its peer sent — the analysis flags of Wireshark's
// tcp.analysis.* (wasm/src/analysis/track/flags.rs), counted per bin by the view engine
// (series retransmissions / duplicateAcks / zeroWindows; docs/ANALYSIS.md "Events per bin").
//
// Three thin rows rather than stacked bars: the kinds differ by orders of magnitude
// (hundreds of duplicate ACKs around one retransmission, a single zero window), so a
// shared scale would flatten the rare ones that matter. Each row is scaled to its own
// largest bin in view; the tooltip (the engine's `at`) gives the exact counts and the
// legend the connection's totals, which are the report's. This file only draws.
//
// On a connection that carried ECN (`direction.ecn`), three more rows: the sender's
// CE-marked data segments, its peer's ECE echoes and its CWR answers (series ceMarks /
// ece / cwr; docs/ANALYSIS.md "ECN per bin"); under Accurate ECN only CE (ECE and CWR
// are counter bits there).

import * as d3 from 'd3';
import type { ConnectionSummary } from '../model/types';
import type { ViewSource } from '../worker/viewSource';
import type { Series } from '../worker/generated/view';
import { beginFrame, drawEmpty, drawTimeAxis, type ChartView } from './frame';
import { bindTimeInteractions, followHover, type HoverBus, type Pick } from './interaction';
import { formatCount, formatDuration, formatTime } from './units';
import { chartTitle, directionLabel, useD3, type ChartProps } from './common';
import { ChartMessages } from './ChartMessages';
import { peerOf, useSeriesAnswers, type Dir } from './useViewAnswers';
import { binsOf, type BinsAnswer } from './ThroughputChart';
import { CHART_ECN_SERIES, CHART_SERIES } from '../worker/generated/vocabulary';

/** The strip's rows: the events chart's series (wasm/src/boundary/charts.rs). */
export const EVENT_SERIES = CHART_SERIES.events;
/** The ECN rows, shown only on a connection with ECN (`eventSeries`). */
export const ECN_EVENT_SERIES = CHART_ECN_SERIES.events;
export type EventSeries = (typeof EVENT_SERIES)[number] | (typeof ECN_EVENT_SERIES)[number];

/** Row label (left margin), legend name and css suffix of each kind. */
const KINDS: Record<EventSeries, { short: string; name: string; css: string }> = {
  retransmissions: { short: 'retrans.', name: 'retransmissions', css: 'retransmissions' },
  duplicateAcks: { short: 'dup ACKs', name: 'duplicate ACKs', css: 'duplicate-acks' },
  zeroWindows: { short: 'zero win.', name: 'zero windows', css: 'zero-windows' },
  ceMarks: { short: 'ECN CE', name: 'CE-marked data segments', css: 'ce' },
  ece: { short: 'ECE', name: 'ECE echoes', css: 'ece' },
  cwr: { short: 'CWR', name: 'CWR answers', css: 'cwr' },
};

/**
 * The rows of the strip: the three Wireshark flags, and the ECN rows when the report
 * says the connection carried ECN (ECE and CWR only where they are echoes: the report
 * nulls them under Accurate ECN).
 */
export function eventSeries(summary: ConnectionSummary): EventSeries[] {
  const ecn = summary.directions.map((d) => d.ecn).filter((e) => e != null);
  if (ecn.length === 0) return [...EVENT_SERIES];
  const echoes = ecn.every((e) => e.ece != null && e.cwr != null);
  return [...EVENT_SERIES, ...(echoes ? ECN_EVENT_SERIES : (['ceMarks'] as const))];
}

const ROW_GAP = 4;

/**
 * The connection's totals of each kind, from the report (summary): the sender's
 * retransmissions, its peer's duplicate ACKs and zero windows.
 */
export function eventTotals(summary: ConnectionSummary, direction: Dir): Record<EventSeries, number> {
  const sender = summary.directions[direction], peer = summary.directions[peerOf(direction)];
  return {
    retransmissions: sender.retransmissions, duplicateAcks: peer.duplicateAcks, zeroWindows: peer.zeroWindows,
    // analysis/track/ecn.rs: CE and CWR are counted on the sender's segments, ECE on its peer's.
    ceMarks: sender.ecn?.ce ?? 0, ece: peer.ecn?.ece ?? 0, cwr: sender.ecn?.cwr ?? 0,
  };
}

export interface EventsModel {
  /** One answer per `series` entry, in order. */
  events: (BinsAnswer | null)[];
  /** The rows (eventSeries); default EVENT_SERIES. */
  series?: readonly EventSeries[];
  summary: ConnectionSummary;
  direction: Dir;
  source?: ViewSource;
  /** The engine answered with an error only (ChartMessages shows it): said in the plot too. */
  unanswered?: boolean;
}

function describe(m: EventsModel): string {
  const totals = eventTotals(m.summary, m.direction);
  const bin = m.events.find((e) => e)?.binSeconds;
  const ecn = (m.series ?? EVENT_SERIES).filter((s) => (ECN_EVENT_SERIES as readonly string[]).includes(s))
    .map((s) => `${KINDS[s].name} (${formatCount(totals[s])})`);
  return `${bin ? `Per ${formatDuration(bin)} bin, ` : ''}retransmissions sent by ${directionLabel(m.summary, m.direction)}` +
    ` (${formatCount(totals.retransmissions)} in the connection), duplicate ACKs (${formatCount(totals.duplicateAcks)})` +
    ` and zero-window advertisements (${formatCount(totals.zeroWindows)}) of its peer` +
    `${ecn.length ? `; ECN: ${ecn.join(', ')}` : ''}; each row is scaled to its largest bin in view.`;
}

/** Draw the strip into `svgEl`; pure apart from the DOM it writes. */
export function drawEvents(svgEl: SVGSVGElement, m: EventsModel, view: ChartView, onRangeChange?: (r: [number, number]) => void, hover?: HoverBus): void {
  const f = beginFrame(svgEl, { chart: 'events', title: chartTitle('Events', m.summary), view, description: describe(m) });
  drawTimeAxis(f);
  const rows = m.series ?? EVENT_SERIES;
  const rowHeight = Math.max(4, (f.innerHeight - ROW_GAP * (rows.length - 1)) / rows.length);
  const top = (k: number) => k * (rowHeight + ROW_GAP);
  rows.forEach((series, k) => {
    const kind = KINDS[series];
    const e = m.events[k];
    f.plot.append('rect').attr('class', 'tcps-events-row-bg').attr('y', top(k)).attr('width', f.innerWidth).attr('height', rowHeight);
    f.content.append('text').attr('class', 'tcps-events-label').attr('x', -6).attr('y', top(k) + rowHeight / 2)
      .attr('dy', '0.35em').attr('text-anchor', 'end').text(kind.short).append('title').text(kind.name);
    let max = 0;
    for (const n of e?.bytes ?? []) if (n > max) max = n;
    // One rectangle per bin with events, at least a pixel wide and two high, so a
    // single event among hundreds still shows; a pixel apart when bins are wide.
    let d = '', bins = 0, drawn = 0;
    if (e && max > 0) {
      const h = d3.scaleLinear().domain([0, max]).range([0, rowHeight]);
      const bottom = top(k) + rowHeight;
      for (let i = 0; i < e.bytes.length; i++) {
        const n = e.bytes[i];
        if (!(n > 0)) continue;
        const x0 = f.x(e.start + i * e.binSeconds), x1 = f.x(e.start + (i + 1) * e.binSeconds);
        const w = x1 - x0 > 3 ? x1 - x0 - 1 : Math.max(1, x1 - x0), hh = Math.max(2, h(n));
        d += `M${x0.toFixed(1)},${bottom}h${w.toFixed(1)}v${(-hh).toFixed(1)}h${(-w).toFixed(1)}Z`;
        bins++;
        drawn += n;
      }
    }
    // data-events: the events the bars stand for (the agreement tests compare it with the report).
    f.plot.append('path').attr('class', `tcps-events tcps-events-${kind.css}`).attr('data-series', series)
      .attr('data-bins', bins).attr('data-events', drawn).attr('data-max', max).attr('d', d);
  });
  const answered = m.events.filter((e): e is BinsAnswer => e !== null);
  if (answered.length === rows.length && answered.every((e) => e.bytes.every((n) => !(n > 0)))) {
    drawEmpty(f, rows.length > EVENT_SERIES.length ? 'No retransmissions, duplicate ACKs, zero windows or ECN signals in this view' : 'No retransmissions, duplicate ACKs or zero windows in this view');
  } else if (answered.length === 0 && m.unanswered) {
    // E.g. a shared link, which holds no event counts; the engine's words are below the chart.
    drawEmpty(f, 'No event counts here: see the notes under the chart');
  }

  const pick: Pick = async (t, _px, py) => {
    const at = m.source?.at;
    const bin = answered[0]?.binSeconds;
    if (!at || bin == null) return null;
    const got = await Promise.all(rows.map((series) =>
      at({ connection: m.summary.id, series, direction: m.direction, t, binSeconds: bin }).catch(() => null)));
    const first = got.find((a) => a && a.tEnd != null);
    if (!first) return null;
    return {
      x: Math.max(0, Math.min(f.innerWidth, f.x((first.t + first.tEnd!) / 2))), y: Math.max(0, Math.min(f.innerHeight, py)),
      lines: [
        `${formatTime(first.t)} + ${formatDuration(first.tEnd! - first.t)}:`,
        ...rows.map((series, k) => `${KINDS[series].name}: ${got[k]?.bytes != null ? formatCount(got[k]!.bytes!) : '–'}`),
      ],
    };
  };
  bindTimeInteractions(f, { view, onRangeChange, pick, hover });
  followHover(f, hover);
}

export interface EventsChartProps extends ChartProps {
  /** Bin in ms; null = the summary's (the throughput chart's grid). */
  binMs: number | null;
}

export function EventsChart({ source, summary, direction, view, onRangeChange, hover, onDrawn, binMs }: EventsChartProps) {
  const series = eventSeries(summary);
  const got = useSeriesAnswers(source, summary.id, direction, view, series, onDrawn, binMs != null ? { binSeconds: binMs / 1000 } : {});
  const events = got.answers.map(binsOf);
  const unanswered = got.answers.some((a) => a?.error);
  const ref = useD3((svg) => drawEvents(svg, { events, series, summary, direction, source, unanswered }, view, onRangeChange, hover), [got.answers, view, onRangeChange, hover]);
  const totals = eventTotals(summary, direction);
  return (
    <>
      <svg ref={ref} />
      <ChartMessages answers={got.answers} failure={got.failure} />
      <ul className="tcps-legend" aria-label="Events strip legend (totals of the connection)">
        {series.map((series) => (
          <li key={series} data-series={series} data-total={totals[series]}>
            <span className={`tcps-swatch tcps-s-events-${KINDS[series].css}`} />{KINDS[series].name}: {formatCount(totals[series])}
          </li>
        ))}
      </ul>
    </>
  );
}
