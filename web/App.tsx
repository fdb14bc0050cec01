// The app shell: loading a capture (drop, picker, example, #url=), the connection
// list and the selected connection's charts and diagnosis. The root's data-state
// ("idle" | "loading" | "ready" | "error") is the explicit signal tests wait on.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { CaptureBanner } from './components/CaptureBanner';
import { ConnectionTable, largestConnection } from './components/ConnectionTable';
import { ConnectionView } from './components/ConnectionView';
import { ErrorBoundary } from './components/ErrorBoundary';
import { FilePicker, Landing, type Example } from './components/DropZone';
import { ProgressBar } from './components/ProgressBar';
import type { ConnectionData, Report } from './model/types';
import { echo, parseViewWithRefusals, serializeView, type Source, type ViewState } from './state/url';
import { fetchCapture } from './state/fetchCapture';
import { CancelledError, DecoderClient, type Progress } from './worker/client';
import { decodeSnapshot, fragmentToSnapshot, isSnapshotFileName, openSnapshotFile, type Snapshot } from './share/snapshot';

type Phase = 'idle' | 'loading' | 'ready' | 'error';

/** Quiet time before the view is written to the address bar. */
const URL_WRITE_DELAY_MS = 150;

function exampleUrl(file: string): string {
  return new URL(`examples/${encodeURIComponent(file)}`, document.baseURI).href;
}

export function App() {
  const [initial] = useState(() => parseViewWithRefusals(window.location.hash));
  const [view, setView] = useState<ViewState>(initial.view);
  const [phase, setPhase] = useState<Phase>('idle');
  const [fileName, setFileName] = useState('');
  const [progress, setProgress] = useState<Progress | null>(null);
  const [report, setReport] = useState<Report | null>(null);
  const [data, setData] = useState<ConnectionData | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const clientRef = useRef<DecoderClient | null>(null);
  // The `snap=…` part of a shared link: kept in the address bar, data not from the worker.
  const [snap, setSnap] = useState<string | null>(() => new URLSearchParams(window.location.hash.slice(1)).get('snap'));
  const client = () => (clientRef.current ??= new DecoderClient());

  // The address bar always holds the current view (a permalink). A zoom or pan gesture
  // changes only the range, many times a second, and history.replaceState costs ~30 ms
  // of main thread in Chromium: those writes wait until the range has been still for a
  // moment. Every other change is written at once.
  const lastWrittenRef = useRef<{ view: ViewState; snap: string | null } | null>(null);
  useEffect(() => {
    const write = () => {
      lastWrittenRef.current = { view, snap };
      const fragment = [serializeView(view), snap ? `snap=${snap}` : ''].filter(Boolean).join('&');
      window.history.replaceState(null, '', fragment ? `#${fragment}` : window.location.pathname + window.location.search);
    };
    const last = lastWrittenRef.current;
    const onlyRange = last !== null && last.snap === snap && serializeView({ ...last.view, range: view.range }) === serializeView(view);
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
    setFileName(name);
    setProgress(null);
    setReport(null);
    setData(null);
    setFailure(null);
  }, []);

  const load = useCallback(async (name: string, getBlob: () => Promise<Blob>, source: Source) => {
    setSnap(null);
    startLoading(name);
    try {
      const blob = await getBlob();
      const { report } = await client().open(blob, name, null, setProgress);
      setReport(report);
      setView((v) => ({ ...v, source, conn: source === v.source ? v.conn : null, range: source === v.source ? v.range : null }));
      if (report.connections.length === 0) {
        // Nothing to chart: an error if the file could not be read, else a plain answer.
        if (report.error) setFailure(report.error.message);
        setPhase(report.error ? 'error' : 'ready');
      }
    } catch (error) {
      if (error instanceof CancelledError) {
        setPhase('idle');
        return;
      }
      setFailure(error instanceof Error ? error.message : String(error));
      setPhase('error');
    }
  }, [startLoading]);

  // A snapshot (shared link or .tcpscope.json file) carries one connection's derived
  // data: no capture, no worker. Its messages are written for people and shown as text.
  const showSnapshot = useCallback(async (name: string, decode: () => Promise<Snapshot>) => {
    startLoading(name);
    try {
      const snapshot = await decode();
      setFileName(snapshot.name);
      setReport(snapshot.report);
      setData(snapshot.data);
      setPhase('ready');
    } catch (error) {
      setSnap(null);
      setFailure(error instanceof Error ? error.message : String(error));
      setPhase('error');
    }
  }, [startLoading]);

  const openFile = useCallback(
    (file: File) => {
      if (!isSnapshotFileName(file.name)) return load(file.name, async () => file, null);
      setSnap(null);
      setView((v) => ({ ...v, source: null }));
      return showSnapshot(file.name, () => openSnapshotFile(file));
    },
    [load, showSnapshot],
  );
  const openExample = useCallback(
    (example: Pick<Example, 'file'>) => load(example.file, () => fetchCapture(exampleUrl(example.file)), { kind: 'example', file: example.file }),
    [load],
  );

  // A link that names its capture (#ex=… or #url=…) opens it.
  useEffect(() => {
    if (snap) {
      showSnapshot('', async () => decodeSnapshot(fragmentToSnapshot(window.location.hash)!));
      return;
    }
    const source = view.source;
    if (source?.kind === 'example') load(source.file, () => fetchCapture(exampleUrl(source.file)), source);
    if (source?.kind === 'url') load(echo(source.url.split('/').pop() || source.url), () => fetchCapture(source.url), source);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const selected = useMemo(() => {
    if (!report) return undefined;
    return report.connections.find((c) => c.id === view.conn) ?? largestConnection(report.connections);
  }, [report, view.conn]);

  // Fetch the selected connection's columns from the worker; ready once they are here.
  useEffect(() => {
    if (!selected || snap) return;
    let current = true;
    client()
      .connection(selected.id)
      .then((columns) => {
        if (!current) return;
        setData(columns);
        setPhase('ready');
      })
      .catch((error) => current && !(error instanceof CancelledError) && (setFailure(String(error)), setPhase('error')));
    return () => {
      current = false;
    };
  }, [selected]);

  const onDrop = (event: React.DragEvent) => {
    event.preventDefault();
    const file = event.dataTransfer.files?.[0];
    if (file) openFile(file);
  };

  return (
    <div className="app" data-state={phase} onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
      <header className="app-header">
        <a className="brand" href="./" onClick={(e) => { e.preventDefault(); client().cancel(); setPhase('idle'); setReport(null); setView((v) => ({ ...v, source: null, conn: null, range: null })); }}>
          tcpscope
        </a>
        <span className="tagline">why was this TCP transfer slow?</span>
        <span className="spacer" />
        {phase !== 'idle' ? <FilePicker onFile={openFile} label="Open another…" /> : null}
        <ThemeToggle theme={view.theme} onChange={(theme) => setView((v) => ({ ...v, theme }))} />
      </header>
      <main>
        {phase === 'idle' ? <Landing onFile={openFile} onExample={openExample} /> : null}
        {phase === 'loading' && !report ? <ProgressBar name={fileName} progress={progress} onCancel={() => client().cancel()} /> : null}
        {initial.refused.length > 0 ? (
          <ul className="notice" role="status" data-testid="refused">
            {initial.refused.map((line) => <li key={line}>{line}</li>)}
          </ul>
        ) : null}
        {failure ? (
          <div className="error" role="alert" data-testid="error">
            <strong>Could not read {fileName || 'the capture'}.</strong> {failure}
          </div>
        ) : null}
        {/* A part that throws says why in its own box; the rest of the page keeps working. */}
        {report ? (
          <ErrorBoundary what="capture summary" resetKey={report}>
            <CaptureBanner name={fileName} report={report} />
          </ErrorBoundary>
        ) : null}
        {report && report.connections.length > 0 ? (
          <ErrorBoundary what="connection list" resetKey={report}>
            <ConnectionTable connections={report.connections} selected={selected?.id ?? null} onSelect={(id) => setView((v) => ({ ...v, conn: id, range: null }))} />
          </ErrorBoundary>
        ) : null}
        {data && selected && data.summary.id === selected.id ? (
          <ErrorBoundary what="connection" resetKey={data}>
            <ConnectionView name={fileName} data={data} report={report!} view={view} onView={setView} client={client()} />
          </ErrorBoundary>
        ) : null}
      </main>
    </div>
  );
}

function ThemeToggle({ theme, onChange }: { theme: ViewState['theme']; onChange: (t: ViewState['theme']) => void }) {
  const next = theme === 'auto' ? 'dark' : theme === 'dark' ? 'light' : 'auto';
  return (
    <button className="button" data-testid="theme" onClick={() => onChange(next)} title="Theme: follows the system, dark or light">
      {theme === 'auto' ? '◐ auto' : theme === 'dark' ? '● dark' : '○ light'}
    </button>
  );
}
