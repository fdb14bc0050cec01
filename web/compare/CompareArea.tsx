// Where the compare view meets the app: with no compare open, a bar offering "compare
// with another capture" (a file or an example; two connections of this capture are
// picked from the connection table); with one open, side A from the app's capture and
// side B from the same capture or a second one (useSecondCapture), and the view.
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ConnectionSummary, Report } from '../model/types';
import type { ViewSource } from '../worker/viewSource';
import type { Shared, ShareSpec } from '../worker/protocol';
import type { CompareState, ViewState } from '../state/url';
import { largestConnection, type TableSource } from '../components/ConnectionTable';
import { FilePicker, useExamples } from '../components/DropZone';
import { TopNotice } from '../components/TopNotice';
import { ProgressBar } from '../components/ProgressBar';
import { MARGIN } from '../charts/frame';
import { CompareView } from './CompareView';
import { compareLink } from './compareShare';
import { compareBinSeconds, type CompareSide } from './sides';
import { pairFileName, slicePair, type SliceRequest } from '../export/pcapng';
import { downloadBlob, fileStem } from '../export/download';
import { exampleUrl } from '../state/fetchCapture';
import { useSecondCapture } from './useSecondCapture';
import { TwinArea, type TwinSource } from './TwinArea';
import { OtherEndBar } from './OtherEndBar';
import { InterfacesOffer } from './InterfacesOffer';
import { firstPair, pairConnections, pairOf } from './twinPair';
import { shareTwin } from './mergeCaptures';
import type { TwinPair, TwinReport } from '../worker/generated/view';

/** The app's capture (side A's). */
export interface MainCapture {
  name: string;
  report: Report;
  source: ViewSource;
  table: TableSource;
  share?: (spec: ShareSpec) => Promise<Shared>;
  snapshot?: string;
  /** A connection's summary by id, for a report that carries only some (10^4+ connections). */
  summary?: (id: number) => Promise<ConnectionSummary | null>;
  /** The capture's bytes again (Save for Wireshark); absent for a shared link. */
  capture?: () => Promise<Blob>;
}

export interface CompareAreaProps {
  main: MainCapture;
  /** The app's selected connection: side A. */
  selected: ConnectionSummary;
  view: ViewState;
  onView: (update: (v: ViewState) => ViewState) => void;
  onReady: () => void;
  /** A second capture dropped together with the first: side B. */
  file?: File | null;
  /** Opens two captures as a compare view, as two dropped together (a pcapng's two
   *  vantage points, split by interface: InterfacesOffer). */
  onOpenPair?: (first: File, second: File) => void;
}

const pageBase = () => window.location.origin + window.location.pathname;

/** A capture opened by address fetched again (its first download went to the decoder). */
async function fetchedAgain(url: string): Promise<Blob> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`The capture could not be fetched again: HTTP ${response.status}.`);
  return response.blob();
}

/** "Compare with another capture…": a local file or a bundled example becomes side B. */
// Memoised: a zoom or pan gesture re-renders the app every frame; the bar does not change.
const CompareBar = memo(function CompareBar({ selected, onCompare }: { selected: ConnectionSummary; onCompare: (with_: CompareState['with'], file?: File) => void }) {
  const examples = useExamples() ?? [];
  return (
    // A capture dropped here is compared with the open one (dropped elsewhere, it replaces it).
    <div className="compare-bar compare-drop" data-testid="compare-bar" onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        const file = e.dataTransfer.files?.[0];
        if (!file) return;
        e.preventDefault();
        e.stopPropagation();
        onCompare({ kind: 'file', name: file.name }, file);
      }}>
      <span>Compare #{selected.id} with another capture (drop it here):</span>
      <FilePicker label="Open a capture…" onFile={(file) => onCompare({ kind: 'file', name: file.name }, file)} />
      {examples.length > 0 && (
        <select data-testid="compare-example" value="" aria-label="Compare with an example capture"
          onChange={(e) => e.target.value && onCompare({ kind: 'example', file: e.target.value })}>
          <option value="">an example…</option>
          {examples.map((x) => <option key={x.file} value={x.file}>{x.title}</option>)}
        </select>
      )}
      <span className="muted">— or ⇆ on a row of the table compares two connections of this capture.</span>
    </div>
  );
});

export function CompareArea({ main, selected, view, onView, onReady, file: dropped, onOpenPair }: CompareAreaProps) {
  const compare = view.compare;
  const [file, setFile] = useState<File | null>(null);
  // B chosen by opening another capture: its largest connection, once it is read.
  const pickLargest = useRef(false);
  useEffect(() => {
    if (!dropped) return;
    pickLargest.current = true;
    setFile(dropped);
  }, [dropped]);
  const second = useSecondCapture(compare?.with ?? null, file);
  const setCompare = useCallback((update: (c: CompareState) => CompareState) =>
    onView((v) => (v.compare ? { ...v, compare: update(v.compare) } : v)), [onView]);

  // A is the app's selected connection (a row chosen in the table changes it).
  useEffect(() => {
    if (compare && compare.conns[0] !== selected.id) setCompare((c) => ({ ...c, conns: [selected.id, c.conns[1]] }));
  }, [compare, selected.id, setCompare]);

  // B of the same capture that its report does not carry (10^4+ connections): asked of the worker.
  const [fetched, setFetched] = useState<{ id: number; summary: ConnectionSummary | null } | null>(null);
  const sameId = compare?.with.kind === 'same' ? compare.conns[1] : null;
  const carried = sameId !== null && main.report.connections.some((c) => c.id === sameId);
  useEffect(() => {
    if (sameId === null || carried || !main.summary) return;
    let live = true;
    main.summary(sameId).then((summary) => live && setFetched({ id: sameId, summary })).catch(() => undefined);
    return () => { live = false; };
  }, [sameId, carried, main]);

  const b = useMemo(() => {
    if (!compare) return null;
    if (compare.with.kind === 'same') {
      const summary = main.report.connections.find((c) => c.id === compare.conns[1]) ?? (fetched?.id === compare.conns[1] ? fetched.summary ?? undefined : undefined);
      return summary ? { name: main.name, summary, report: main.report, source: main.source, table: main.table, share: main.share, snapshot: main.snapshot } : null;
    }
    if (second?.phase !== 'ready') return null;
    const summary = second.report.connections.find((c) => c.id === compare.conns[1]);
    return { ...second, summary: !pickLargest.current && summary ? summary : largestConnection(second.report.connections)! };
  }, [compare, main, second, fetched]);
  // B's connection as shown (the largest when B's capture was just opened, or the link named none there).
  useEffect(() => {
    if (!b || !compare || b.summary.id === compare.conns[1]) { if (b) pickLargest.current = false; return; }
    setCompare((c) => ({ ...c, conns: [c.conns[0], b.summary.id] }));
  }, [b, compare, setCompare]);

  const sides = useMemo<[CompareSide, CompareSide] | null>(() => b && [
    { letter: 'A', name: main.name, summary: selected, source: main.source },
    { letter: 'B', name: b.name, summary: b.summary, source: b.source },
  ], [b, main.name, main.source, selected]);

  // Nothing to draw (B failed or waits for its file): the page is still "ready".
  const noSuchB = sameId !== null && !b && (!main.summary || fetched?.id === sameId);
  const stuck = second?.phase === 'error' || second?.phase === 'need-file' || noSuchB;
  useEffect(() => { if (stuck) onReady(); }, [stuck, onReady]);

  const selectedId = selected.id;
  const startCompare = useCallback((with_: CompareState['with'], f?: File) => {
    pickLargest.current = true;
    if (f) setFile(f);
    onView((v) => ({ ...v, compare: { conns: [selectedId, 0], with: with_, range: null } }));
  }, [onView, selectedId]);
  const exit = () => onView((v) => ({ ...v, compare: null }));
  // Two captures (not two connections of one, not a shared link): the merge of two
  // vantage points is tried on both (TwinArea); the engine refuses unrelated ones.
  const otherKey = compare && compare.with.kind !== 'same' && compare.with.kind !== 'snapshot' ? JSON.stringify(compare.with) : null;
  const twinCaptures = useMemo<[() => Promise<Blob>, () => Promise<Blob>] | null>(() => {
    const w = otherKey ? (JSON.parse(otherKey) as CompareState['with']) : null;
    if (!w || !main.capture || w.kind === 'same' || w.kind === 'snapshot') return null;
    if (w.kind === 'file') return file ? [main.capture, async () => file] : null;
    return [main.capture, () => fetchedAgain(w.kind === 'url' ? w.url : exampleUrl(w.file))];
  }, [otherKey, main.capture, file]);
  // The pair of the merged view (TwinArea) is the compare view's two connections
  // (issue 44 item 1): when the merge arrives, the pair of these two connections, or the
  // one holding A's (the connection open before "+ other end"), else the first; a pair
  // chosen in TwinArea's select, or both pickers set to a pair's connections, follow.
  const [pairs, setPairs] = useState<readonly TwinPair[] | null>(null);
  const [chosenPair, setChosenPair] = useState(0);
  const [aNotPaired, setANotPaired] = useState<number | null>(null);
  useEffect(() => { setPairs(null); setChosenPair(0); setANotPaired(null); }, [twinCaptures]);
  const conns = useRef<[number, number] | null>(null);
  conns.current = compare?.conns ?? null;
  const showPair = useCallback((p: TwinPair) => {
    const [a, bId] = pairConnections(p);
    pickLargest.current = false; // B is the pair's connection, not the largest
    onView((v) => (v.compare ? { ...v, conn: a, compare: { ...v.compare, conns: [a, bId] } } : v));
  }, [onView]);
  const onPairs = useCallback((list: readonly TwinPair[]) => {
    setPairs(list);
    if (!list.length || !conns.current) return;
    const first = firstPair(list, conns.current);
    setChosenPair(first.index);
    setANotPaired(first.held ? null : conns.current[0]);
    showPair(list[first.index]);
  }, [showPair]);
  const onPairChosen = useCallback((k: number) => {
    setChosenPair(k);
    setANotPaired(null);
    if (pairs?.[k]) showPair(pairs[k]);
  }, [pairs, showPair]);
  const pickedPair = pairs && compare ? pairOf(pairs, compare.conns) : -1;
  const otherEnd = useCallback((f: File) => startCompare({ kind: 'file', name: f.name }, f), [startCompare]);

  // A share link has no captures to merge: the merged view it carries (`twin-snap=`).
  const sharedTwin = compare?.with.kind === 'snapshot' ? compare.twin ?? null : null;
  const twinSource = useMemo<TwinSource | null>(() => twinCaptures ? { kind: 'captures', captures: twinCaptures }
    : sharedTwin ? { kind: 'shared', data: sharedTwin } : null, [twinCaptures, sharedTwin]);
  // The merged pair shown, for Share (compareShare.ts).
  const [twinShown, setTwinShown] = useState<{ report: TwinReport; pair: number } | null>(null);
  if (!compare) {
    return (
      <>
        <OtherEndBar selected={selected} onOtherEnd={otherEnd} />
        <CompareBar selected={selected} onCompare={startCompare} />
        {main.capture && onOpenPair && main.report.capture.format === 'pcapng'
          ? <InterfacesOffer name={main.name} capture={main.capture} onOpenPair={onOpenPair} /> : null}
      </>
    );
  }
  if (!sides || !b) {
    return (
      <section className="connection compare" data-testid="compare" data-state={stuck ? 'error' : 'loading'}>
        <div className="compare-head">
          <h2>Compare #{selected.id} of <bdi>{main.name}</bdi> with <bdi>{second?.name ?? `#${compare.conns[1]}`}</bdi></h2>
          <button type="button" className="button" data-testid="compare-exit" onClick={exit}>Exit compare</button>
        </div>
        {second?.phase === 'loading' && <ProgressBar name={second.name} progress={second.progress} onCancel={exit} />}
        {second?.phase === 'error' && (
          <TopNotice text={`Could not read ${second.name}. ${second.message}`} testId="compare-error">
            <strong>Could not read <bdi>{second.name}</bdi>.</strong> {second.message}
          </TopNotice>
        )}
        {second?.phase === 'need-file' && (
          <p className="notice" role="status">Side B was the local file <bdi>{second.name}</bdi>; open it again to compare:{' '}
            <FilePicker label={`Open ${second.name}…`} onFile={setFile} /></p>
        )}
        {noSuchB && <TopNotice text={`This capture has no connection ${compare.conns[1]}.`} testId="compare-error" />}
      </section>
    );
  }
  const binSeconds = compareBinSeconds(sides, view.binMs);
  // Save for Wireshark of the pair: B's capture is A's, the file picked or dropped for
  // it, or the example or address fetched again; a shared link has no packets.
  const w = compare.with;
  const bCapture = w.kind === 'same' ? main.capture
    : w.kind === 'file' ? (file ? async () => file : undefined)
    : w.kind === 'example' || w.kind === 'url' ? () => fetchedAgain(w.kind === 'url' ? w.url : exampleUrl(w.file))
    : undefined;
  const savePair = main.capture && bCapture ? async () => {
    // The compare range is from each connection's own start; the slice's, from the file's first packet.
    const request = (s: ConnectionSummary): SliceRequest => ({ connection: s.id, from: compare.range ? s.start + compare.range[0] : null, to: compare.range ? s.start + compare.range[1] : null });
    const requests: [SliceRequest, SliceRequest] = [request(selected), request(b.summary)];
    const blob = await slicePair([{ capture: main.capture!, request: requests[0] }, { capture: bCapture, request: requests[1] }], w.kind === 'same');
    downloadBlob(blob, pairFileName([fileStem(main.name), fileStem(b.name)], requests));
  } : undefined;
  return (
    <>
    {twinCaptures && aNotPaired !== null ? (
      <p className="muted" data-testid="twin-not-paired">#{aNotPaired} of <bdi>{main.name}</bdi> was not found in <bdi>{b.name}</bdi>: shown below is the first connection found in both.</p>
    ) : null}
    {/* From captures the pair follows the compare view's connections; a link's merged view is its one pair. */}
    {twinSource?.kind === 'captures' ? <TwinArea source={twinSource} names={[main.name, b.name]} theme={view.theme}
      chosen={pickedPair >= 0 ? pickedPair : chosenPair} onPairChosen={onPairChosen} onPairs={onPairs} onShown={setTwinShown} /> : null}
    {twinSource?.kind === 'shared' ? <TwinArea source={twinSource} names={[main.name, b.name]} theme={view.theme} onShown={setTwinShown} /> : null}
    <CompareView
      sides={sides} tables={[main.table, b.table]} choices={[main.report.connections, b.report.connections]}
      onPick={(k, id) => (k === 0 ? onView((v) => ({ ...v, conn: id, compare: v.compare && { ...v.compare, conns: [id, v.compare.conns[1]] } })) : setCompare((c) => ({ ...c, conns: [c.conns[0], id] })))}
      range={compare.range} onRange={(range) => setCompare((c) => ({ ...c, range }))}
      binMs={view.binMs} onBinMs={(binMs) => onView((v) => ({ ...v, binMs }))}
      theme={view.theme} onReady={onReady} onExit={exit} savePair={savePair}
      share={(width) => compareLink(pageBase(), view, [
        { summary: selected, name: main.name, make: main.share, snapshot: main.snapshot },
        { summary: b.summary, name: b.name, make: b.share, snapshot: b.snapshot },
      ], Math.max(1, Math.round(width - MARGIN.left - MARGIN.right)), binSeconds,
      !twinShown || !twinSource ? undefined : twinSource.kind === 'shared' ? { snapshot: twinSource.data }
        : { make: (columns, maxChars) => shareTwin(twinShown.report, twinShown.pair, columns, maxChars) })}
    />
    </>
  );
}
