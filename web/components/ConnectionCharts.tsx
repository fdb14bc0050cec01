// The chart stack of one connection: throughput, in flight vs window, stalls,
// time-sequence, RTT and the events strip, all on one shared time axis and zoomed together.
//
// Every piece of view state a permalink needs is a controllable prop with a change
// callback (pass the value to control it, omit it to let the stack keep its own):
// time range, bin size, stall threshold, visible charts, direction, throughput toggles.
//
// Interaction: drag pans; Ctrl/⌘ + wheel or pinch zooms; Shift + drag zooms to the
// brushed range; double-click shows the whole connection. Keyboard (stack focused):
// ←/→ pan, +/− zoom, 0 the whole connection, 1–6 focus a chart.
//
// The stack opens on the connection's data (summary.dataView, computed by the engine:
// wasm analysis/run/opening_view.rs) when it idled for a good part of its time; an explicit
// range (a share link's, a URL's) is kept as asked.

import { useCallback, useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import type { ConnectionSummary } from '../model/types';
import type { ViewSource } from '../worker/viewSource';
import type { Dir } from '../charts/useViewAnswers';
import { CHART_IDS, type ChartId, type ChartView } from '../charts/frame';
import { createHoverBus } from '../charts/interaction';
import { clampRange, fullRange, isStackKey, openingRange, rangeForKey, sameRange, shownRange, type TimeRange } from '../charts/timeRange';
import { useContainerWidth, useGestureRange } from '../charts/useStackLayout';
import { useControllable } from '../charts/useControllable';
import { ChartToolbar } from '../charts/ChartToolbar';
import { CHART_TITLE, RADIO_CHART_IDS } from '../worker/generated/vocabulary';
import { DEFAULT_TOGGLES, ThroughputChart, type ThroughputToggles } from '../charts/ThroughputChart';
import { InflightChart, type InflightMode } from '../charts/InflightChart';
import { StallsChart } from '../charts/StallsChart';
import { SequenceChart } from '../charts/SequenceChart';
import { RttChart } from '../charts/RttChart';
import { WifiChart } from '../charts/WifiChart';
import { EventsChart } from '../charts/EventsChart';
import { chartTitle, directionLabel } from '../charts/common';
import { ErrorBoundary } from './ErrorBoundary';
import '../charts/charts.css';

export type { ChartId } from '../charts/frame';
export type { TimeRange } from '../charts/timeRange';
export type { ThroughputToggles } from '../charts/ThroughputChart';
export type { InflightMode } from '../charts/InflightChart';
export type Theme = 'light' | 'dark' | 'auto';

export const DEFAULT_BIN_MS = 100;
export const DEFAULT_HEIGHTS: Record<ChartId, number> = { throughput: 230, inflight: 230, stalls: 110, sequence: 300, rtt: 190, events: 130, wifi: 140 };

export interface ConnectionChartsProps {
  summary: ConnectionSummary;
  /** Where every drawn number comes from (web/worker/viewSource.ts). */
  source: ViewSource;
  /** Other connections of the same capture that can be overlaid on the throughput chart (legend toggles). */
  others?: ConnectionSummary[];
  /** Visible time range in s since the first packet of the file; null = the opening view (summary.dataView, else the whole connection). */
  timeRange?: TimeRange | null;
  onTimeRangeChange?: (r: TimeRange | null) => void;
  /** Throughput bin, ms; null/undefined = the connection's own (summary `binSeconds`). */
  binMs?: number | null;
  onBinMsChange?: (ms: number) => void;
  /** Stall threshold in ms; null = the decoder's default (max(10 ms, 4 × min RTT)). */
  stallMs?: number | null;
  onStallMsChange?: (ms: number | null) => void;
  /** Which charts are shown, in stack order (default all six). */
  charts?: ChartId[];
  onChartsChange?: (c: ChartId[]) => void;
  /** Analysed direction (default summary.dataDirection). */
  direction?: Dir;
  onDirectionChange?: (d: Dir) => void;
  throughput?: ThroughputToggles;
  onThroughputChange?: (t: ThroughputToggles) => void;
  inflightMode?: InflightMode;
  onInflightModeChange?: (m: InflightMode) => void;
  /** The SACK-adjusted pipe as a second line on the in-flight chart (permalink `#pipe=1`). */
  pipe?: boolean;
  onPipeChange?: (on: boolean) => void;
  /** Colour scheme; 'auto' follows prefers-color-scheme (default). */
  theme?: Theme;
  /** Fixed width in px; default: the container's width (ResizeObserver). */
  width?: number;
  heights?: Partial<Record<ChartId, number>>;
  /** Show the toolbar and per-chart controls (default true; embeds pass false). */
  controls?: boolean;
  /** Called once every shown chart has drawn its first answer (or said why it cannot). */
  onReady?: () => void;
  /** The capture has radio headers (radiotap / PPI): the Wi-Fi chart may be shown (`charts`). */
  wifi?: boolean;
}

/** The same array object while the elements are the same, so a parent passing a fresh array each render does not re-bin. */
function useStableList<T>(list: T[]): T[] {
  const ref = useRef(list);
  const prev = ref.current;
  if (prev.length !== list.length || prev.some((x, i) => x !== list[i])) ref.current = list;
  return ref.current;
}

export function ConnectionCharts(props: ConnectionChartsProps) {
  const { summary, source, theme = 'auto', controls = true } = props;
  // The connection itself is never its own overlay; indices give overlay colours, so
  // the legend toggles and the chart must see the same list.
  const others = useStableList((props.others ?? []).filter((o) => o.id !== summary.id));
  const full = useMemo(() => fullRange(summary.start, summary.end), [summary.start, summary.end]);
  const dataView = summary.dataView;
  const opening = useMemo(() => openingRange(dataView, full), [dataView?.[0], dataView?.[1], full]); // eslint-disable-line react-hooks/exhaustive-deps

  const [direction, setDirection] = useControllable<Dir>(props.direction, summary.dataDirection, props.onDirectionChange);
  const [rangeOrNull, setRangeOrNull] = useControllable<TimeRange | null>(props.timeRange, null, props.onTimeRangeChange);
  // The default bin is the one the summary's peak and mean were computed with
  // (wasm throughput.rs auto_bin: it follows the connection's length), so the chart's
  // fullest bar is the summary's peak.
  const summaryBinMs = summary.directions[summary.dataDirection].throughput.binSeconds * 1000;
  const [binMs, setBinMs] = useControllable(props.binMs ?? summaryBinMs, summaryBinMs || DEFAULT_BIN_MS, props.onBinMsChange);
  // The summary's own bin is asked as "the summary's" (null), so the engine uses its exact value.
  const askedBinMs = props.binMs == null && binMs === summaryBinMs ? null : binMs;
  const [stallMs, setStallMs] = useControllable<number | null>(props.stallMs, null, props.onStallMsChange);
  const [charts, setCharts] = useControllable<ChartId[]>(props.charts, [...CHART_IDS], props.onChartsChange);
  const [toggles, setToggles] = useControllable(props.throughput, DEFAULT_TOGGLES, props.onThroughputChange);
  const [inflightMode, setInflightMode] = useControllable<InflightMode>(props.inflightMode, 'dots', props.onInflightModeChange);
  // Off by default: the in-flight chart asks a flow-control question (did SND.NXT −
  // SND.UNA reach the receive window? the shaded spans are computed from it), and the
  // pipe equals it except while the receiver SACKs data above a hole, so a second line
  // by default would mostly double the marks. Wireshark users find it by its name in
  // the toggle ("Wireshark's bytes in flight"), and its value is in every tooltip.
  const [pipe, setPipe] = useControllable<boolean>(props.pipe, false, props.onPipeChange);

  const range = useMemo(() => shownRange(rangeOrNull, full, opening), [rangeOrNull, full, opening]);
  const rangeRef = useRef(range);
  rangeRef.current = range;
  // The opening view is reported as null so that URLs stay short; the whole connection,
  // where it is not the opening view, is a range like any other.
  const setRange = useCallback((r: TimeRange | null) => {
    const next = r && !sameRange(clampRange(r, full), opening, (full[1] - full[0]) * 1e-9) ? clampRange(r, full) : null;
    if (!sameRange(next, rangeOrNull)) setRangeOrNull(next);
  }, [full, opening, rangeOrNull, setRangeOrNull]);

  const setRangeFromGesture = useGestureRange(setRange);

  const [containerRef, width] = useContainerWidth(props.width);
  const hover = useMemo(() => createHoverBus(), []);
  const heights = { ...DEFAULT_HEIGHTS, ...props.heights };
  const views = useMemo(() => {
    const v = {} as Record<ChartId, ChartView>;
    for (const id of CHART_IDS) v[id] = { range, full, width, height: heights[id] };
    return v;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [range, full, width, ...CHART_IDS.map((id) => heights[id])]);

  // "Ready" once every shown chart has drawn (once per connection and source).
  const drawn = useRef({ key: null as unknown, ids: new Set<ChartId>(), fired: false });
  const onReadyRef = useRef(props.onReady);
  onReadyRef.current = props.onReady;
  const available = useMemo(() => CHART_IDS.filter((id) => !(RADIO_CHART_IDS as readonly ChartId[]).includes(id) || props.wifi), [props.wifi]);
  const shown = available.filter((id) => charts.includes(id));
  // Keys 1… follow CHART_IDS; the hint names only the charts this capture has (no 7 without Wi-Fi).
  const lastKey = Math.max(...available.map((id) => CHART_IDS.indexOf(id) + 1));
  const shownKey = shown.join(',');
  const markDrawn = useCallback((id: ChartId | null) => {
    const d = drawn.current;
    if (d.key !== source) Object.assign(d, { key: source, ids: new Set(), fired: false });
    if (id) d.ids.add(id);
    if (!d.fired && shownKey.split(',').every((c) => !c || d.ids.has(c as ChartId))) {
      d.fired = true;
      onReadyRef.current?.();
    }
  }, [source, shownKey]);
  const drawnCallbacks = useMemo(() => Object.fromEntries(CHART_IDS.map((id) => [id, () => markDrawn(id)])) as Record<ChartId, () => void>, [markDrawn]);
  useEffect(() => markDrawn(null), [markDrawn]);

  const figures = useRef(new Map<ChartId, HTMLElement>());
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (!isStackKey(e)) return;
    const next = rangeForKey(e.key, e.shiftKey, rangeRef.current, full);
    let handled = true;
    // 0 (null) shows the whole connection, one key from the opening view.
    if (next !== undefined) setRange(next ?? full);
    else if (e.key >= '1' && e.key <= String(lastKey)) figures.current.get(CHART_IDS[Number(e.key) - 1])?.focus();
    else handled = false;
    if (handled) e.preventDefault();
  };

  // The threshold the summary's stalls were found with (docs/ANALYSIS.md `connection.stallThresholdMs`).
  const defaultStallMs = summary.stallThresholdMs ?? Number.NaN;
  const shared = { source, summary, direction, hover, onRangeChange: setRangeFromGesture };
  const chart = (id: ChartId) => {
    const common = { ...shared, onDrawn: drawnCallbacks[id] };
    switch (id) {
      case 'throughput': return <ThroughputChart {...common} view={views.throughput} binMs={askedBinMs} toggles={toggles} others={others} />;
      case 'inflight': return <InflightChart {...common} view={views.inflight} mode={inflightMode} pipe={pipe} />;
      case 'stalls': return <StallsChart {...common} view={views.stalls} stallMs={stallMs ?? undefined} />;
      case 'sequence': return <SequenceChart {...common} view={views.sequence} />;
      case 'rtt': return <RttChart {...common} view={views.rtt} />;
      case 'events': return <EventsChart {...common} view={views.events} binMs={askedBinMs} />;
      case 'wifi': return <WifiChart {...common} view={views.wifi} binMs={askedBinMs} />;
    }
  };
  const chartControls = (id: ChartId) => {
    if (!controls) return null;
    const check = (key: 'wire' | 'goodput' | 'reverse' | 'average', label: string) => (
      <label key={key}>
        <input type="checkbox" checked={toggles[key]} onChange={(e) => setToggles({ ...toggles, [key]: e.target.checked })} />{label}
      </label>
    );
    if (id === 'throughput') {
      return (
        <div className="tcps-chart-controls">
          {check('average', 'moving average')}{check('wire', 'wire rate')}{check('goodput', 'goodput')}
          {check('reverse', 'reverse direction')}
          {others.map((o, i) => (
            <label key={o.id}>
              <input type="checkbox" checked={toggles.overlays.includes(o.id)}
                onChange={(e) => setToggles({
                  ...toggles,
                  overlays: e.target.checked ? [...toggles.overlays, o.id] : toggles.overlays.filter((x) => x !== o.id),
                })} />
              <span className={`tcps-swatch tcps-c${i % 6}`} />#{o.id} {directionLabel(o, o.dataDirection)}
            </label>
          ))}
        </div>
      );
    }
    if (id === 'inflight') {
      return (
        <div className="tcps-chart-controls">
          {(['dots', 'step'] as const).map((m) => (
            <label key={m}><input type="radio" name={`inflight-mode-${summary.id}`} checked={inflightMode === m} onChange={() => setInflightMode(m)} />{m === 'dots' ? 'dots' : 'step line'}</label>
          ))}
          <label title="RFC 6675 pipe: bytes in flight less the bytes the receiver SACKed (tshark's tcp.analysis.bytes_in_flight)">
            <input type="checkbox" data-testid="pipe-toggle" checked={pipe} onChange={(e) => setPipe(e.target.checked)} />SACK-adjusted pipe (Wireshark's bytes in flight)
          </label>
        </div>
      );
    }
    return null;
  };

  return (
    <section
      ref={containerRef} className="tcps-charts" data-theme={theme} tabIndex={0} onKeyDown={onKeyDown}
      aria-label={`Charts of connection ${summary.id}: ${directionLabel(summary, direction)}. Keys: arrows pan, plus and minus zoom, 0 shows the whole connection, 1 to ${lastKey} focus a chart.`}
    >
      {controls && (
        <ChartToolbar
          summary={summary} direction={direction} onDirection={setDirection} binMs={binMs} onBinMs={setBinMs}
          stallMs={stallMs} defaultStallMs={defaultStallMs} onStallMs={setStallMs}
          charts={charts} onCharts={setCharts} available={available} range={range}
          zoomed={!sameRange(range, full, (full[1] - full[0]) * 1e-9)} onReset={() => setRange(full)}
        />
      )}
      {shown.map((id) => (
        <figure
          key={id} className="tcps-chart" data-chart={id} tabIndex={-1} aria-label={chartTitle(CHART_TITLE[id], summary)}
          ref={(el) => { if (el) figures.current.set(id, el); else figures.current.delete(id); }}
        >
          {/* A chart that throws says why in its own box; the other charts keep working. */}
          <ErrorBoundary what="chart" resetKey={summary} onError={drawnCallbacks[id]}>
            {chart(id)}
          </ErrorBoundary>
          {chartControls(id)}
        </figure>
      ))}
    </section>
  );
}
