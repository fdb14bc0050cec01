// Two vantage points (issue 44): when the compare view's two captures are the same
// connection(s) seen at both ends, the merged view above the compare charts — the panel
// (TwinPanel.tsx), the data direction's time-sequence chart as each capture saw it with
// each datagram's fate marked (TwinSequenceChart.tsx), and one one-way delay chart per
// direction (OneWayDelayChart.tsx), all on the merged time axis. The merge runs in its
// own worker (mergeCaptures.ts); two captures of unrelated transfers are refused by the
// engine ("no-match"), and then only a line says so: the compare view stays what it was.
// Opened from a share link, the page has no captures: the merged view comes from the
// link's `twin-snap=` (wasm/src/share/twin.rs, read in the same worker), the pair the
// sender showed.
import { useEffect, useMemo, useState } from 'react';
import type { TwinPair, TwinReport } from '../worker/generated/view';
import { fullRange } from '../charts/timeRange';
import { useContainerWidth } from '../charts/useStackLayout';
import { mergeCaptures, openSharedTwin } from './mergeCaptures';
import { OneWayDelayChart } from './OneWayDelayChart';
import { TwinSequenceChart, TwinSequenceLegend } from './TwinSequenceChart';
import { TwinPanel } from './TwinPanel';
import { isolated } from '../security/outsideText';
import { PLACES, PLACE_LABEL } from '../worker/generated/vocabulary';

type Merged = { phase: 'loading' } | { phase: 'ready'; report: TwinReport } | { phase: 'error'; message: string };

/** Where the merged view comes from: two captures to merge, or a share link's merged
 *  view (`twin-snap=`, base64url). */
export type TwinSource =
  | { kind: 'captures'; captures: [() => Promise<Blob>, () => Promise<Blob>] }
  | { kind: 'shared'; data: string };

/** The merge of the two captures, or the link's merged view read back (re-run when the
 *  source changes; cancelled when left). */
function useTwin(source: TwinSource): Merged {
  const [merged, setMerged] = useState<Merged>({ phase: 'loading' });
  useEffect(() => {
    let live = true;
    let cancel = () => {};
    setMerged({ phase: 'loading' });
    const blobs = source.kind === 'captures' ? Promise.all(source.captures.map((c) => c())) : null;
    (blobs ?? Promise.resolve(null)).then((pair) => {
      if (!live) return;
      const run = pair ? mergeCaptures(pair[0], pair[1]) : source.kind === 'shared' ? openSharedTwin(source.data) : null;
      if (!run) return;
      cancel = run.cancel;
      return run.report.then((report) => live && setMerged({ phase: 'ready', report }));
    }).catch((error) => live && setMerged({ phase: 'error', message: error instanceof Error ? error.message : String(error) }));
    return () => { live = false; cancel(); };
  }, [source]);
  return merged;
}

const DELAY_HEIGHT = 200;
const SEQUENCE_HEIGHT = 260;

export interface TwinAreaProps {
  source: TwinSource;
  names: [string, string];
  theme: 'light' | 'dark' | 'auto';
  /** The pair shown (an index into the report's pairs), when the owner chooses it. */
  chosen?: number;
  /** A pair chosen in the select. */
  onPairChosen?: (index: number) => void;
  /** The merge's pairs, once its report arrives ([] when refused). */
  onPairs?: (pairs: readonly TwinPair[]) => void;
  /** The merged report and the pair shown (null while none is): what Share carries. */
  onShown?: (shown: { report: TwinReport; pair: number } | null) => void;
}

export function TwinArea({ source, names, theme, chosen: given, onPairChosen, onPairs, onShown }: TwinAreaProps) {
  const merged = useTwin(source);
  const [own, setOwn] = useState(0);
  const chosen = given ?? own;
  const setChosen = (k: number) => { setOwn(k); onPairChosen?.(k); };
  const [ref, width] = useContainerWidth();
  const report = merged.phase === 'ready' ? merged.report : null;
  const pairs = report?.pairs ?? [];
  // The owner picks the pair to show when the pairs arrive (CompareArea: the compare view's
  // connections); until it has been told, the view is not "ready" — a reader (or a share
  // link made at once) would see pair 0 for the one render before the owner's choice.
  const [told, setTold] = useState<TwinReport | null>(null);
  useEffect(() => {
    if (!report) return;
    onPairs?.(report.refusal ? [] : report.pairs);
    setTold(report);
  }, [report, onPairs]);
  const pair = pairs[Math.min(chosen, pairs.length - 1)];
  const shownIndex = pair && !report?.refusal ? Math.min(chosen, pairs.length - 1) : null;
  useEffect(() => onShown?.(report && shownIndex !== null ? { report, pair: shownIndex } : null), [report, shownIndex, onShown]);
  useEffect(() => () => onShown?.(null), [onShown]);
  const view = useMemo(() => {
    let end = 0;
    for (const d of pair?.directions ?? []) for (const b of d.delaySeries) end = Math.max(end, b.t + b.width);
    for (const st of pair?.stalls ?? []) end = Math.max(end, st.at + st.duration);
    const seq = pair?.sequence;
    for (const side of seq ? [seq.senderSide, seq.receiverSide] : []) for (const b of side.bins) end = Math.max(end, b.t + seq!.binWidth);
    const full = fullRange(Math.min(0, seq?.start ?? 0), end);
    return { range: full, full, width, height: DELAY_HEIGHT };
  }, [pair, width]);
  const sequenceView = useMemo(() => ({ ...view, height: SEQUENCE_HEIGHT }), [view]);
  const sequences = useMemo(() => (pair?.sequence ? (['sender-side', 'receiver-side'] as const).map((capture) =>
    ({ capture, pair, name: [names[0], names[1]][(capture === 'sender-side' ? pair.senderSide : pair.receiverSide).input] })) : []), [pair, names[0], names[1]]);
  const models = useMemo(() => (pair?.directions ?? []).map((d, k) => ({ direction: k as 0 | 1, d, stalls: pair!.stalls.filter((s) => s.direction === k) })), [pair]);
  const state = merged.phase === 'loading' ? 'loading' : merged.phase === 'error' ? 'error' : report?.refusal ? 'refused' : told === report ? 'ready' : 'loading';
  return (
    <section className="twin" ref={ref as React.RefObject<HTMLElement>} data-testid="twin" data-state={state} aria-label="Two vantage points">
      <h2>Two vantage points</h2>
      {merged.phase === 'loading' ? <p className="muted">Merging <bdi>{isolated(names[0])}</bdi> and <bdi>{isolated(names[1])}</bdi>…</p> : null}
      {merged.phase === 'error' ? <p className="notice" role="status">{merged.message}</p> : null}
      {report?.refusal ? <p className="muted" data-testid="twin-refusal" data-kind={report.refusal.kind}>Not merged as two ends of one transfer: {report.refusal.message}</p> : null}
      {report && !report.refusal ? (
        <>
          <p data-testid="twin-summary">
            <span data-field="pairs">{pairs.length}</span> connection{pairs.length === 1 ? '' : 's'} found in both captures
            {pairs.length > 1 ? (
              <>: <select data-testid="twin-pair" aria-label="Connection seen at both ends" value={chosen} onChange={(e) => setChosen(Number(e.target.value))}>
                {pairs.map((p, k) => <option key={k} value={k}>{p.senderSide.endpoints.join(' → ')}</option>)}
              </select></>
            ) : '.'}
          </p>
          {report.notes.map((n, k) => <p key={k} className="muted">{n}</p>)}
          {pair ? <TwinPanel pair={pair} names={names} /> : null}
          {pair && pair.directions.length ? (
            <div className="tcps-charts twin-charts" data-theme={theme}>
              {sequences.map((model) => <TwinSequenceChart key={model.capture} view={sequenceView} model={model} />)}
              {sequences.length ? <TwinSequenceLegend /> : null}
              {models.map((model) => <OneWayDelayChart key={model.direction} view={view} model={model} />)}
              <ul className="tcps-legend" aria-label="Where each stall happened">
                {PLACES.map((p) => <li key={p}><span className={`tcps-swatch tcps-place-${p}`} />stall {PLACE_LABEL[p]}</li>)}
              </ul>
            </div>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
