// The compare view (issue 17 item 9): two connections — of one capture or of two —
// on one time axis, each from its own first packet ("before/after the sysctl"):
// throughput and in flight vs window overlaid, zoomed and panned together, the
// headline numbers and the two diagnoses side by side. Each side's numbers are its
// own source's answers and summary; this view only lays them out.
import { useCallback, useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import type { ConnectionSummary } from '../model/types';
import type { TableSource } from '../components/ConnectionTable';
import { DiagnosisPanel } from '../components/DiagnosisPanel';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { TopNotice } from '../components/TopNotice';
import { createHoverBus } from '../charts/interaction';
import { clampRange, isStackKey, rangeForKey, sameRange, shownRange, type TimeRange } from '../charts/timeRange';
import { useContainerWidth, useGestureRange } from '../charts/useStackLayout';
import { directionLabel } from '../charts/common';
import { BIN_CHOICES_MS } from '../state/url';
import { CompareThroughputChart } from './CompareThroughputChart';
import { CompareInflightChart } from './CompareInflightChart';
import { CompareHeadline } from './CompareHeadline';
import { compareBinSeconds, compareFull, sideClass, sideLabel, type CompareSide } from './sides';
import '../charts/charts.css';
import './compare.css';

/** Connections offered per side in its picker (a capture's report can list 10^4). */
const MAX_CHOICES = 200;
const HEIGHT = { throughput: 240, inflight: 240 };

export interface CompareViewProps {
  sides: [CompareSide, CompareSide];
  /** Each side's connection table (the headline numbers are its rows). */
  tables: [TableSource, TableSource];
  /** The connections each side can switch to (its capture's report). */
  choices: [ConnectionSummary[], ConnectionSummary[]];
  onPick: (side: 0 | 1, id: number) => void;
  /** s since each connection's start; null = both whole. */
  range: TimeRange | null;
  onRange: (r: TimeRange | null) => void;
  binMs: number | null;
  onBinMs: (ms: number) => void;
  theme: 'light' | 'dark' | 'auto';
  /** Both charts have drawn their first answers. */
  onReady?: () => void;
  onExit: () => void;
  /** Makes the view's share link (compareShare.ts) at the charts' width, px. */
  share: (width: number) => Promise<{ link: string; note?: string } | { error: string }>;
  /** Saves both connections' packets (of the shown range) as one pcapng; absent when a side has no packets (a shared link). */
  savePair?: () => Promise<void>;
}

function SidePicker({ index, side, choices, onPick }: { index: 0 | 1; side: CompareSide; choices: ConnectionSummary[]; onPick: CompareViewProps['onPick'] }) {
  const list = choices.slice(0, MAX_CHOICES);
  if (!list.some((c) => c.id === side.summary.id)) list.unshift(side.summary);
  return (
    <label>
      <span className={`tcps-swatch ${sideClass(side.letter)}`} />{side.letter}{' '}
      <select data-testid={`compare-pick-${side.letter.toLowerCase()}`} value={side.summary.id} disabled={list.length < 2}
        onChange={(e) => onPick(index, Number(e.target.value))} aria-label={`Connection ${side.letter} (${side.name})`}>
        {list.map((c) => <option key={c.id} value={c.id}>#{c.id} {directionLabel(c, c.dataDirection as 0 | 1)}</option>)}
      </select>
    </label>
  );
}

export function CompareView(props: CompareViewProps) {
  const { sides, onRange } = props;
  const full = useMemo(() => compareFull(sides), [sides]);
  const range = shownRange(props.range, full);
  const setRange = useCallback((r: TimeRange | null) => {
    const next = r && !sameRange(clampRange(r, full), full, (full[1] - full[0]) * 1e-9) ? clampRange(r, full) : null;
    onRange(next);
  }, [full, onRange]);
  const [ref, width] = useContainerWidth();
  const hover = useMemo(() => createHoverBus(), []);
  const views = useMemo(() => ({
    throughput: { range, full, width, height: HEIGHT.throughput },
    inflight: { range, full, width, height: HEIGHT.inflight },
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }), [range[0], range[1], full, width]);
  const binSeconds = compareBinSeconds(sides, props.binMs);

  // "ready" once both charts have drawn the first answers of these two connections.
  const [drawn, setDrawn] = useState<Set<string>>(new Set());
  const sidesKey = sides.map((s) => `${s.letter}${s.name}#${s.summary.id}`).join('|');
  useEffect(() => setDrawn(new Set()), [sidesKey, sides[0].source, sides[1].source]);
  const onDrawn = useMemo(() => ({
    throughput: () => setDrawn((d) => (d.has('throughput') ? d : new Set(d).add('throughput'))),
    inflight: () => setDrawn((d) => (d.has('inflight') ? d : new Set(d).add('inflight'))),
  }), []);
  const ready = drawn.size === 2;
  const onReady = props.onReady;
  useEffect(() => { if (ready) onReady?.(); }, [ready, onReady]);

  const [shared, setShared] = useState<{ link: string; note?: string } | { error: string } | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => setShared(null), [sidesKey, props.range, props.binMs]);

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (!isStackKey(e)) return;
    const next = rangeForKey(e.key, e.shiftKey, range, full);
    if (next === undefined) return;
    setRange(next);
    e.preventDefault();
  };
  const gesture = useGestureRange(setRange);

  return (
    <section className="connection compare" data-testid="compare" data-state={ready ? 'ready' : 'loading'}
      data-connections={sides.map((s) => s.summary.id).join(',')} aria-label="Two connections compared">
      <div className="compare-head">
        <h2>Compare: {sides.map(sideLabel).join(' · ')}</h2>
        <button type="button" className="button" data-testid="compare-exit" onClick={props.onExit}>Exit compare</button>
      </div>
      <div className="compare-bar">
        <SidePicker index={0} side={sides[0]} choices={props.choices[0]} onPick={props.onPick} />
        <SidePicker index={1} side={sides[1]} choices={props.choices[1]} onPick={props.onPick} />
        <label>
          Bin{' '}
          <select data-testid="compare-bin" value={props.binMs ?? ''} onChange={(e) => props.onBinMs(Number(e.target.value))}>
            {props.binMs == null && <option value="">each summary's ({binSeconds * 1000} ms)</option>}
            {BIN_CHOICES_MS.map((ms) => <option key={ms} value={ms}>{ms} ms</option>)}
          </select>
        </label>
        <button type="button" className="button" onClick={() => setRange(null)} disabled={props.range === null}>Reset zoom</button>
        <button type="button" className="button" data-testid="compare-share" disabled={busy}
          onClick={async () => { setBusy(true); try { setShared(await props.share(width)); } catch (error) { setShared({ error: error instanceof Error ? error.message : String(error) }); } finally { setBusy(false); } }}>
          Share
        </button>
        <button type="button" className="button" data-testid="compare-save-pcapng" disabled={busy || !props.savePair}
          title={props.savePair ? `The packets of both connections${props.range ? ' in the shown range' : ''}, as one pcapng for Wireshark` : 'A shared link holds charts, not packets'}
          onClick={async () => {
            if (!props.savePair) return;
            setBusy(true);
            try { await props.savePair(); } catch (error) { setShared({ error: error instanceof Error ? error.message : String(error) }); } finally { setBusy(false); }
          }}>
          Save pair for Wireshark
        </button>
      </div>
      {shared && 'link' in shared && (
        <label className="share-field"><span>Link</span>
          <input data-testid="compare-share-url" readOnly value={shared.link} onFocus={(e) => e.currentTarget.select()} />
        </label>
      )}
      {shared && 'link' in shared && shared.note && <p className="muted" role="status" data-testid="compare-share-note">{shared.note}</p>}
      {shared && 'error' in shared && <TopNotice text={shared.error} testId="compare-share-message" />}
      <CompareHeadline sides={sides.map((side, k) => ({ side, table: props.tables[k] }))} />
      <section ref={ref} className="tcps-charts" data-theme={props.theme} tabIndex={0} onKeyDown={onKeyDown}
        aria-label="Compared charts, on one time axis from each connection's start. Keys: arrows pan, plus and minus zoom, 0 resets.">
        <figure className="tcps-chart" data-chart="compare-throughput" aria-label="Throughput, compared">
          <ErrorBoundary what="chart" resetKey={sidesKey} onError={onDrawn.throughput}>
            {/* Keyed by the two connections: another connection is a new chart whose first
                answers report "drawn" again (the hook keeps the old answers while it asks). */}
            <CompareThroughputChart key={sidesKey} sides={sides} view={views.throughput} binSeconds={binSeconds} onRangeChange={gesture} hover={hover} onDrawn={onDrawn.throughput} />
          </ErrorBoundary>
        </figure>
        <figure className="tcps-chart" data-chart="compare-inflight" aria-label="Bytes in flight vs receive window, compared">
          <ErrorBoundary what="chart" resetKey={sidesKey} onError={onDrawn.inflight}>
            <CompareInflightChart key={sidesKey} sides={sides} view={views.inflight} onRangeChange={gesture} hover={hover} onDrawn={onDrawn.inflight} />
          </ErrorBoundary>
        </figure>
      </section>
      <div className="compare-sides">
        {sides.map((side) => (
          <div key={side.letter} data-testid={`compare-side-${side.letter.toLowerCase()}`}>
            <h3 className="compare-side-title"><span className={`tcps-swatch ${sideClass(side.letter)}`} />{sideLabel(side)}</h3>
            <ErrorBoundary what="diagnosis" resetKey={side.summary}>
              <DiagnosisPanel summary={side.summary} headingId={`compare-diagnosis-${side.letter}`}
                onSelectStall={(start, duration) => setRange([start - side.summary.start - duration * 0.25, start - side.summary.start + duration * 1.25])} />
            </ErrorBoundary>
          </div>
        ))}
      </div>
    </section>
  );
}
