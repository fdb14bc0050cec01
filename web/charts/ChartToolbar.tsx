// Controls above the chart stack: analysed direction, bin size, stall threshold, which
// charts are shown, and the current time range with a reset button. Plain React form
// controls; ConnectionCharts owns (or lifts) every value.

import type { ConnectionSummary } from '../model/types';
import type { Dir } from './useViewAnswers';
import { CHART_IDS, type ChartId } from './frame';
import { CHART_TITLE } from '../worker/generated/vocabulary';
import { directionLabel } from './common';
import { formatDuration } from './units';
import { useSettled } from './useSettled';
import type { TimeRange } from './timeRange';

export const BIN_SIZES_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] as const;


export interface ChartToolbarProps {
  summary: ConnectionSummary;
  direction: Dir;
  onDirection: (d: Dir) => void;
  binMs: number;
  onBinMs: (ms: number) => void;
  /** null: the decoder's default threshold (`defaultStallMs`). */
  stallMs: number | null;
  defaultStallMs: number;
  onStallMs: (ms: number | null) => void;
  charts: ChartId[];
  onCharts: (c: ChartId[]) => void;
  /** The charts this capture can show, in stack order (the Wi-Fi chart needs radio headers). */
  available: readonly ChartId[];
  range: TimeRange;
  zoomed: boolean;
  onReset: () => void;
}

/** How long the range must stay still before it is announced. */
const ANNOUNCE_AFTER_MS = 600;

export function ChartToolbar(p: ChartToolbarProps) {
  const rangeText = `${formatDuration(p.range[1] - p.range[0])} from ${p.range[0].toFixed(6)} s`;
  const announced = useSettled(`Showing ${rangeText}`, ANNOUNCE_AFTER_MS);
  const toggleChart = (id: ChartId, on: boolean) =>
    p.onCharts(CHART_IDS.filter((c) => (c === id ? on : p.charts.includes(c))));
  return (
    <div className="tcps-toolbar" role="toolbar" aria-label="Chart options">
      <label>
        Direction{' '}
        <select value={p.direction} onChange={(e) => p.onDirection(Number(e.target.value) as Dir)}>
          {([0, 1] as const).map((d) => (
            <option key={d} value={d}>
              {directionLabel(p.summary, d)}{d === p.summary.dataDirection ? ' (data)' : ''}
            </option>
          ))}
        </select>
      </label>
      <label>
        Bin{' '}
        <select value={p.binMs} onChange={(e) => p.onBinMs(Number(e.target.value))}>
          {/* A permalink may carry a bin size that is not one of the choices: keep it selectable. */}
          {[...new Set([...BIN_SIZES_MS, p.binMs])].sort((a, b) => a - b).map((ms) => (
            <option key={ms} value={ms}>{formatDuration(ms / 1000)}</option>
          ))}
        </select>
      </label>
      <label>
        Stall threshold{' '}
        <input
          type="number" min={0.1} step="any" inputMode="decimal" className="tcps-stall-input"
          value={p.stallMs ?? ''} placeholder={Number.isFinite(p.defaultStallMs) ? `auto: ${p.defaultStallMs.toFixed(1)}` : "auto"}
          onChange={(e) => {
            const v = e.target.value === '' ? null : Number(e.target.value);
            if (v === null || (Number.isFinite(v) && v > 0)) p.onStallMs(v);
          }}
        />{' '}ms
      </label>
      <fieldset className="tcps-chart-toggles">
        <legend>Charts</legend>
        {p.available.map((id) => (
          <label key={id} title={`key ${CHART_IDS.indexOf(id) + 1} focuses this chart`}>
            <input type="checkbox" checked={p.charts.includes(id)} onChange={(e) => toggleChart(id, e.target.checked)} />
            {CHART_TITLE[id]}
          </label>
        ))}
      </fieldset>
      <span className="tcps-range" data-t0={p.range[0]} data-t1={p.range[1]}>{rangeText}</span>
      {/* Screen readers hear the range once it is still, not on every frame of a gesture. */}
      <span className="tcps-visually-hidden" aria-live="polite" data-testid="range-announcement">{announced}</span>
      <button type="button" onClick={p.onReset} disabled={!p.zoomed} title="Show the whole connection (key 0, or double-click a chart)">
        Whole connection
      </button>
    </div>
  );
}
