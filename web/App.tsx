// The app shell: loading a capture (drop, picker, example, #url=), the connection
// list and the selected connection's charts and diagnosis. The root's data-state
// ("idle" | "loading" | "ready" | "error") is the explicit signal tests wait on.
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { CaptureBanner } from './components/CaptureBanner';
import { ConnectionTable, shownConnection, summaryTable, type TableSource } from './components/ConnectionTable';
import { ConnectionView } from './components/ConnectionView';
import { ErrorBoundary } from './components/ErrorBoundary';
import { FilePicker, Landing, type Example } from './components/DropZone';
import { ProgressBar } from './components/ProgressBar';
import { ProgressiveView } from './components/ProgressiveView';
import { resetPartialProbe } from './components/PartialThroughputChart';
import type { PartialTable } from './worker/generated/view';
import { NoticeArea, TopNotice } from './components/TopNotice';
import type { ConnectionData, ConnectionSummary, Report } from './model/types';
import type { ViewSource } from './worker/viewSource';
import type { BdpQuestion } from './worker/generated/view';
import type { Shared, ShareSpec } from './worker/protocol';
import { echo, parseView, parseViewWithRefusals, serializeView, type Source, type ViewState } from './state/url';
import { exampleUrl, FetchCancelled, streamCapture, type CaptureStream } from './state/fetchCapture';
import { CompareArea, type MainCapture } from './compare/CompareArea';
import { CancelledError, DecoderClient, loadPhases, viewTimings, type Progress } from './worker/client';
import { fragmentToSnapshot, isSnapshotFileName, readSnapshotFile, toBase64Url } from './share/snapshot';
import { fileName as safeFileName } from './security/sanitizeReport';

type Phase = 'idle' | 'loading' | 'ready' | 'error';

/** Where the shown capture's numbers come from. */
interface Engine {
  source: ViewSource;
  /** Per-packet columns of a connection, for the packet CSV only (a capture). */
  loadData?: (id: number) => Promise<ConnectionData>;
  /** Makes share links of the view (a capture). */
  share?: (spec: ShareSpec) => Promise<Shared>;
  /** The connection table's rows (the worker's, or a share link's one). */
  table: TableSource;
  /** A connection's summary by id, for a report that carries only some (10^4+ connections). */
  summary?: (id: number) => Promise<ConnectionSummary | null>;
  /** A shared link holds one connection: that one is shown. */
  only?: ConnectionSummary;
  /** The capture's bytes again, for Save for Wireshark (export/pcapng.ts). */
  capture?: () => Promise<Blob>;
  /** The shown link's snapshot (base64url), re-shared as it is. */
  snapshot?: string;
}

/** The address bar's fragment for a view and the link's snapshot (`snap=`, last). */
const fragmentOf = (view: ViewState, snap: string | null) => [serializeView(view), snap ? `snap=${snap}` : ''].filter(Boolean).join('&');

/** Quiet time before the view is written to the address bar. */
const URL_WRITE_DELAY_MS = 150;

export function App() {
  const [initial] = useState(() => parseViewWithRefusals(window.location.hash));
  const [view, setView] = useState<ViewState>(initial.view);
  // What the address said that could not be used (the last address the user gave).
  const [refused, setRefused] = useState<string[]>(initial.refused);
  const [phase, setPhase] = useState<Phase>('idle');
  const [fileName, setFileName] = useState('');
  const [progress, setProgress] = useState<Progress | null>(null);
  // While a capture loads: its table so far and the view source of its generation
  // (the progressive view, issue 41); both dropped when another load starts.
  const [partial, setPartial] = useState<PartialTable | null>(null);
  // The share of the capture decoded when that table was made (its length estimate).
  const [partialShare, setPartialShare] = useState<number | null>(null);
  const [loadingSource, setLoadingSource] = useState<ViewSource | null>(null);
  const [report, setReport] = useState<Report | null>(null);
  const [engine, setEngine] = useState<Engine | null>(null);
  // Each load gets a number; a load that was superseded changes nothing when it settles.
  const loadSeq = useRef(0);
  /** The download of a #url= / example capture under way: Cancel aborts it (issue 45, item 6). */
  const fetching = useRef<AbortController | null>(null);
  const viewNow = useRef(view);
  viewNow.current = view;
  const [failure, setFailure] = useState<string | null>(null);
  // Why a capture fetched by address stopped arriving before its end (a cap, a network
  // failure): said above what did arrive, which is analysed and drawn.
  const [stopped, setStopped] = useState<string | null>(null);
  const clientRef = useRef<DecoderClient | null>(null);
  // The `snap=…` part of a shared link: kept in the address bar, data not from the worker.
  const [snap, setSnap] = useState<string | null>(() => new URLSearchParams(window.location.hash.slice(1)).get('snap'));
  const client = () => (clientRef.current ??= new DecoderClient());
  // For bench/browser.mjs: asks the current capture's engine directly (worker query times).
  useEffect(() => {
    // (summary: the shown capture's connection summary, for e2e/progressive.spec's peak check.)
    (window as { __tcpscope?: unknown }).__tcpscope = { viewSource: () => client().viewSource(), summary: (id: number) => client().summary(id), viewTimings, loadPhases };
    // The decoder ready before the first drop (client.ts warm); its engine warmed up
    // unless the page opens a share link (answered from the link, not the engine).
    client().warm({ engine: !snap });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // The address bar always holds the current view (a permalink). A zoom or pan gesture
  // changes only the range, many times a second, and history.replaceState costs ~30 ms
  // of main thread in Chromium: those writes wait until the range has been still for a
  // moment. Every other change is written at once.
  const lastWrittenRef = useRef<{ view: ViewState; snap: string | null } | null>(null);
  // The address this page has taken in: the one it opened with, each one it wrote, each
  // edit its hashchange handler followed. An address that differs is a hand edit whose
  // hashchange event is still queued (location.hash changes at once, the event comes as a
  // later task): a delayed write must not overwrite it, or the handler would then read our
  // own fragment back as an echo and the edit would be lost.
  const addressTakenRef = useRef(window.location.hash.replace(/^#/, ''));
  useEffect(() => {
    const write = () => {
      if (window.location.hash.replace(/^#/, '') !== addressTakenRef.current) return;
      lastWrittenRef.current = { view, snap };
      const fragment = fragmentOf(view, snap);
      window.history.replaceState(null, '', fragment ? `#${fragment}` : window.location.pathname + window.location.search);
      // Read back: the browser may percent-encode what we wrote.
      addressTakenRef.current = window.location.hash.replace(/^#/, '');
    };
    const last = lastWrittenRef.current;
    // (The compare view's range, `compare-t`, counts as the range.)
    const sameCompare = last?.view.compare && view.compare && { ...last.view.compare, range: view.compare.range };
    const onlyRange = last !== null && last.snap === snap && serializeView({ ...last.view, range: view.range, compare: sameCompare || last.view.compare }) === serializeView(view);
    if (!onlyRange) {
      write();
      return;
    }
    const timer = window.setTimeout(write, URL_WRITE_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [view, snap]);

  useEffect(() => {
    const root = document.documentElement;
    if (view.theme === 'auto') delete root.dataset.theme;
    else root.dataset.theme = view.theme;
  }, [view.theme]);

  /** Forget the previous capture and show `name` as loading. */
  const startLoading = useCallback((name: string) => {
    setPhase('loading');
    // A file name is outside text (a dropped file, a #url= address): sanitized once here.
    setFileName(safeFileName(name));
    setProgress(null);
    setPartial(null);
    setPartialShare(null);
    setLoadingSource(null);
    resetPartialProbe();
    setReport(null);
    setEngine(null);
    setFailure(null);
    setStopped(null);
    // A download still arriving for an earlier load is of no use now (not even a stalled one).
    fetching.current?.abort();
    return ++loadSeq.current;
  }, []);

  /** Opens a capture: a file (a Blob, read in slices), or a download decoded as it arrives. */
  const load = useCallback(async (name: string, getSource: () => Promise<Blob | CaptureStream>, source: Source) => {
    setSnap(null);
    const seq = startLoading(name);
    const current = () => seq === loadSeq.current;
    try {
      const got = await getSource();
      if (!current()) {
        if (!(got instanceof Blob)) void got.chunks.return(undefined);
        return;
      }
      const onProgress = (p: Progress) => {
        if (!current()) return;
        setProgress(p);
        if (p.partial) {
          setPartial(p.partial);
          setPartialShare(p.decodedShare ?? null);
        }
      };
      const pending = got instanceof Blob
        ? client().open(got, name, null, onProgress).then((o) => ({ ...o, stopped: null }))
        : client().openStream(got.chunks, got.total, onProgress);
      // Bound to this load's generation: its answers are refused once another opens.
      setLoadingSource(client().viewSource());
      const opened = await pending;
      if (!current()) return;
      // A download stopped midway ends inside a packet by construction: the stop is
      // the news, not a "damaged capture" (the banner says where it stopped).
      const report = opened.stopped && opened.report.error?.kind === 'truncated' ? { ...opened.report, error: null } : opened.report;
      setStopped(opened.stopped);
      const c = client();
      // The connection `selected` (below) will pick: the worker builds its charts' first
      // answers while this thread renders the report (two cores instead of one in turn).
      const kept = viewNow.current.source === source ? viewNow.current.conn : null;
      const shown = shownConnection(report.connections, kept);
      if (shown) c.prepare(shown.id);
      setEngine({
        source: c.viewSource(),
        table: c.tableSource(),
        summary: (id) => c.summary(id),
        loadData: async (id) => {
          const data = await c.connection(id);
          if (!data) throw new Error(`Connection ${id} is no longer loaded.`);
          return data;
        },
        share: (spec) => c.share(spec),
        // A dropped file is read again; a capture opened by address is fetched again
        // (its first download was streamed into the decoder, not kept).
        capture: got instanceof Blob ? async () => got : async () => {
          const response = await fetch(source?.kind === 'url' ? source.url : exampleUrl(source?.kind === 'example' ? source.file : name));
          if (!response.ok) throw new Error(`The capture could not be fetched again: HTTP ${response.status}.`);
          return response.blob();
        },
      });
      setReport(report);
      setView((v) => ({ ...v, source, conn: source === v.source ? v.conn : null, range: source === v.source ? v.range : null, compare: source === v.source ? v.compare : null }));
      if (report.connections.length === 0) {
        // Nothing to chart: an error if the file could not be read, else a plain answer.
        const why = report.error?.message ?? opened.stopped;
        if (why) setFailure(why);
        setPhase(why ? 'error' : 'ready');
      }
    } catch (error) {
      if (!current()) return; // another capture was opened meanwhile
      if (error instanceof CancelledError || error instanceof FetchCancelled) {
        setPhase('idle');
        return;
      }
      setFailure(error instanceof Error ? error.message : String(error));
      setPhase('error');
    }
  }, [startLoading]);

  // A snapshot (shared link or .tcpscope.json file) holds one connection's view answers:
  // no capture; the worker answers from the link (wasm/src/share). A damaged or hostile
  // link is refused there with a sentence for people, shown as text.
  const showSnapshot = useCallback(async (name: string, getBytes: () => Promise<Uint8Array>, fromFile: boolean) => {
    const seq = startLoading(name);
    try {
      const bytes = await getBytes();
      if (seq !== loadSeq.current) return;
      const c = client();
      const { report, snapshot } = await c.openSnapshot(bytes);
      if (seq !== loadSeq.current) return;
      setFileName(safeFileName(snapshot?.name ?? name));
      setReport(report);
      // A file carries the sender's view; a link has it in the address already.
      if (fromFile && snapshot) setView((v) => ({ ...parseView(snapshot.view), theme: v.theme, source: null }));
      setEngine({ source: c.viewSource(), table: summaryTable(report.connections), only: report.connections[0], snapshot: toBase64Url(bytes) });
    } catch (error) {
      if (seq !== loadSeq.current) return;
      // A link that cannot be opened stays in the address bar (a file's never got there),
      // so a reload shows the same message and the link can be copied into a bug report.
      setFailure(error instanceof Error ? error.message : String(error));
      setPhase('error');
    }
  }, [startLoading]);

  const openFile = useCallback(
    (file: File) => {
      setView((v) => (v.compare ? { ...v, compare: null } : v)); // another capture: a new question
      if (!isSnapshotFileName(file.name)) return load(file.name, async () => file, null);
      setSnap(null);
      setView((v) => ({ ...v, source: null }));
      return showSnapshot(file.name, () => readSnapshotFile(file), true);
    },
    [load, showSnapshot],
  );
  /** Opens the capture a link names (#ex=… or #url=…). */
  /** Fetches `url`; its body goes to the decoder as it arrives (the worker's progress
   *  says the bytes read), and Cancel aborts the request (a newer load aborts it too). */
  const download = useCallback((url: string) => {
    fetching.current?.abort();
    const controller = (fetching.current = new AbortController());
    return streamCapture(url, undefined, { signal: controller.signal });
  }, []);
  const cancelLoad = useCallback(() => {
    fetching.current?.abort();
    client().cancel();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const openSource = useCallback((source: Source) => {
    if (source?.kind === 'example') load(source.file, () => download(exampleUrl(source.file)), source);
    if (source?.kind === 'url') load(echo(source.url.split('/').pop() || source.url), () => download(source.url), source);
  }, [load, download]);
  const openExample = useCallback(
    (example: Pick<Example, 'file'>) => load(example.file, () => download(exampleUrl(example.file)), { kind: 'example', file: example.file }),
    [load, download],
  );

  // A link that names its capture (#ex=… or #url=…) opens it.
  useEffect(() => {
    if (snap) {
      showSnapshot('', async () => fragmentToSnapshot(window.location.hash)!, false);
      return;
    }
    openSource(view.source);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // An address the user edits (or an in-page link to another #…) is followed like the
  // first one: another capture or link is opened, else the view changes. Our own writes
  // (history.replaceState) fire no hashchange; a fragment equal to the one last written
  // is an echo and changes nothing.
  const current = useRef({ view, snap });
  current.current = { view, snap };
  useEffect(() => {
    const onHashChange = () => {
      const hash = window.location.hash;
      addressTakenRef.current = hash.replace(/^#/, '');
      const last = lastWrittenRef.current;
      if (last && hash.replace(/^#/, '') === fragmentOf(last.view, last.snap)) return;
      const parsed = parseViewWithRefusals(hash);
      const nextSnap = new URLSearchParams(hash.slice(1)).get('snap');
      setRefused(parsed.refused);
      const was = current.current;
      if (nextSnap) {
        setView({ ...parsed.view, source: null });
        if (nextSnap !== was.snap) {
          setSnap(nextSnap);
          showSnapshot('', async () => fragmentToSnapshot(hash)!, false);
        }
        return;
      }
      const source = parsed.view.source;
      const sameSource = JSON.stringify(source) === JSON.stringify(was.view.source);
      // The same capture keeps its source object, so load() keeps the new view's connection.
      setView({ ...parsed.view, source: sameSource ? was.view.source : source });
      if (!sameSource || was.snap) openSource(source);
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, [openSource, showSnapshot]);

  // The processes the capture names (PKTAP, pcapng), by connection id, for the table.
  const processOf = useMemo(() => {
    const byId = new Map((report?.connections ?? []).flatMap((c) => ('process' in c && c.process ? [[c.id, c.process] as const] : [])));
    return byId.size ? (id: number) => byId.get(id) : undefined;
  }, [report]);

  // A connection chosen in the table that the report does not carry yet (captures of more
  // than REPORT_CONNECTIONS_CAP connections): fetch its summary from the worker.
  useEffect(() => {
    const id = view.conn;
    if (!report || !engine?.summary || id == null || report.connections.some((c) => c.id === id)) return;
    let live = true;
    engine.summary(id).then((summary) => {
      if (live && summary) setReport((r) => (r && !r.connections.some((c) => c.id === id) ? { ...r, connections: [...r.connections, summary] } : r));
    }).catch(() => undefined); // another capture was opened meanwhile
    return () => { live = false; };
  }, [report, engine, view.conn]);

  const selected = useMemo(() => {
    if (!report) return undefined;
    if (engine?.only) return engine.only;
    return shownConnection(report.connections, view.conn);
  }, [report, view.conn, engine]);

  // Ready once the selected connection's charts have drawn their first answers.
  const onChartsReady = useCallback(() => setPhase((p) => (p === 'loading' ? 'ready' : p)), []);
  const calculateBdp = useCallback((q: BdpQuestion) => client().bdp(q), []);
  const loadSelected = useMemo(() => {
    const load = engine?.loadData;
    return load && selected ? () => load(selected.id) : undefined;
  }, [selected, engine]);

  // Two captures dropped at once: the first is opened, the second compared with it (web/compare).
  const [compareFile, setCompareFile] = useState<File | null>(null);
  const compareWithFile = useCallback((second: File) => {
    setCompareFile(second);
    setView((v) => ({ ...v, source: null, conn: null, range: null, compare: { conns: [0, 0], with: { kind: 'file', name: safeFileName(second.name) }, range: null } }));
  }, []);
  // The same for two captures the page made (a pcapng's two vantage points, split by interface).
  const openPair = useCallback((first: File, second: File) => {
    openFile(first);
    compareWithFile(second);
  }, [openFile, compareWithFile]);
  const onDrop = (event: React.DragEvent) => {
    event.preventDefault();
    const [file, second] = event.dataTransfer.files ?? [];
    if (file) openFile(file);
    // A snapshot file is not a capture: comparing needs its link (#compare-snap=), so it is
    // named and left out rather than fed to the decoder (issue 45, item 13).
    if (second && isSnapshotFileName(second.name)) {
      setRefused((r) => [...r, `${safeFileName(second.name)} was not compared: it is a tcpscope snapshot, not a capture; open it alone, or compare from its link.`]);
    } else if (second && !isSnapshotFileName(file.name)) {
      compareWithFile(second);
    }
  };
  // Stable callbacks: the memoised table and header keep still while a gesture re-renders the app.
  const selectedId = selected?.id;
  const selectConnection = useCallback((id: number) => setView((v) => ({ ...v, conn: id, range: null })), []);
  const compareWith = useMemo(() => selectedId == null ? undefined
    : (id: number) => setView((v) => ({ ...v, compare: { conns: [selectedId, id], with: { kind: 'same' }, range: null } })), [selectedId]);
  const setTheme = useCallback((theme: ViewState['theme']) => setView((v) => ({ ...v, theme })), []);
  const main = useMemo<MainCapture | null>(() => engine && report && { name: fileName, report, source: engine.source, table: engine.table, share: engine.share, snapshot: engine.snapshot, summary: engine.summary, capture: engine.capture },
    [engine, report, fileName]);

  return (
    <div className="app" data-state={phase} onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
      <header className="app-header">
        <a className="brand" href="./" onClick={(e) => { e.preventDefault(); cancelLoad(); loadSeq.current++; setPhase('idle'); setReport(null); setEngine(null); setView((v) => ({ ...v, source: null, conn: null, range: null, compare: null })); }}>
          tcpscope
        </a>
        <span className="tagline">why was this TCP transfer slow?</span>
        <span className="spacer" />
        {phase !== 'idle' ? <FilePicker onFile={openFile} label="Open another…" /> : null}
        <ThemeToggle theme={view.theme} onChange={setTheme} />
      </header>
      <main>
        <NoticeArea>
        {phase === 'idle' ? <Landing onFile={openFile} onExample={openExample} /> : null}
        {phase === 'loading' && !report ? <ProgressBar name={fileName} progress={progress} onCancel={cancelLoad} /> : null}
        {phase === 'loading' && !report && partial && loadingSource && partial.rows.length > 0 ? (
          <ErrorBoundary what="loading view" resetKey={loadingSource}>
            <ProgressiveView partial={partial} decodedShare={partialShare} progress={progress} source={loadingSource} onSelect={selectConnection} />
          </ErrorBoundary>
        ) : null}
        {refused.length > 0 ? (
          <TopNotice kind="notice" text={refused.join('\n')} testId="refused" onDismiss={() => setRefused([])}>
            <ul>{refused.map((line) => <li key={line}>{line}</li>)}</ul>
          </TopNotice>
        ) : null}
        {stopped && report && report.connections.length > 0 ? (
          <TopNotice kind="notice" text={`${stopped} Everything that arrived before is analysed and drawn.`} testId="download-stopped" onDismiss={() => setStopped(null)} />
        ) : null}
        {failure ? (
          <TopNotice text={`Could not read ${fileName || 'the capture'}. ${failure}`} testId="error" onDismiss={() => setFailure(null)}>
            <strong>Could not read <bdi>{fileName || 'the capture'}</bdi>.</strong> {failure}
          </TopNotice>
        ) : null}
        {/* A part that throws says why in its own box; the rest of the page keeps working. */}
        {report ? (
          <ErrorBoundary what="capture summary" resetKey={report}>
            <CaptureBanner name={fileName} report={report} />
          </ErrorBoundary>
        ) : null}
        {report && engine && report.connections.length > 0 ? (
          <ErrorBoundary what="connection list" resetKey={report}>
            <ConnectionTable source={engine.table} processOf={processOf} selected={selected?.id ?? null} onSelect={selectConnection} onCompare={compareWith} shared={engine.snapshot != null} />
          </ErrorBoundary>
        ) : null}
        {main && selected ? (
          <ErrorBoundary what="compare view" resetKey={selected} onError={onChartsReady}>
            <CompareArea main={main} selected={selected} view={view} onView={setView} onReady={onChartsReady} file={compareFile} onOpenPair={openPair} />
          </ErrorBoundary>
        ) : null}
        {engine && selected && report && !view.compare ? (
          <ErrorBoundary what="connection" resetKey={selected} onError={onChartsReady}>
            <ConnectionView name={fileName} summary={selected} report={report} view={view} onView={setView}
              source={engine.source} loadData={loadSelected} capture={engine.capture} share={engine.share} openedSnapshot={engine.snapshot} onChartsReady={onChartsReady} calculateBdp={calculateBdp} />
          </ErrorBoundary>
        ) : null}
        </NoticeArea>
      </main>
    </div>
  );
}

const ThemeToggle = memo(function ThemeToggle({ theme, onChange }: { theme: ViewState['theme']; onChange: (t: ViewState['theme']) => void }) {
  const next = theme === 'auto' ? 'dark' : theme === 'dark' ? 'light' : 'auto';
  return (
    <button className="button" data-testid="theme" onClick={() => onChange(next)} title="Theme: follows the system, dark or light">
      {theme === 'auto' ? '◐ auto' : theme === 'dark' ? '● dark' : '○ light'}
    </button>
  );
});
