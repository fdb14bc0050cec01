// The embed page (embed.html, meant for an <iframe>): one chart or the chart stack of
// one connection with minimal chrome — title, the charts with their legends, the
// diagnosis line and an "open in tcpscope" link. Data comes from the same fragment as
// the app (#snap=… snapshot, #url=… capture, #ex=… example) or from the embedding page
// by postMessage, like Perfetto's:
//   { tcpscope: 'PING' }                           → replies { tcpscope: 'PONG' }
//   { tcpscope: { buffer: ArrayBuffer, title } }   → decodes the capture, draws its largest connection
//   { tcpscope: { snapshot: ArrayBuffer | Uint8Array, title } } → draws the snapshot
// After a posted load it replies { tcpscope: 'READY' } or { tcpscope: 'ERROR', message }.
// The root's data-state (idle | loading | ready | error) is the signal tests wait on.

import { StrictMode, useCallback, useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ConnectionCharts } from './components/ConnectionCharts';
import { largestConnection } from './components/ConnectionTable';
import type { ConnectionSummary } from './model/types';
import type { ViewSource } from './worker/viewSource';
import { snapshotViewSource } from './share/legacyViewSource';
import { ErrorBoundary } from './components/ErrorBoundary';
import { decodeSnapshot, fragmentToSnapshot } from './share/snapshot';
import { parseView, serializeView, type ViewState } from './state/url';
import { DecoderClient } from './worker/client';
import './styles.css';
import './embed.css';

type Phase = 'idle' | 'loading' | 'ready' | 'error';
/** `linkable`: the data came from this page's fragment, so the app can open the same link. */
interface Shown { title: string; summary: ConnectionSummary; source: ViewSource; linkable?: boolean }

async function decodeCapture(client: DecoderClient, blob: Blob, title: string, conn: number | null): Promise<Shown> {
  const { report } = await client.open(blob, title, null, () => {});
  const summary = report.connections.find((c) => c.id === conn) ?? largestConnection(report.connections);
  if (!summary) throw new Error(report.error?.message ?? 'This capture holds no TCP connection.');
  return { title, summary, source: client.viewSource() };
}

async function fetchBlob(url: string): Promise<Blob> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`Could not load ${url}: HTTP ${response.status}`);
  return response.blob();
}

/** What the fragment asks for; null when it names no data. */
async function loadFragment(hash: string, client: DecoderClient): Promise<Shown | null> {
  const bytes = fragmentToSnapshot(hash);
  const view = parseView(hash);
  if (bytes) {
    const snapshot = await decodeSnapshot(bytes);
    // Temporary bridge (removed by issue 15): snapshots still carry per-packet columns.
    return { title: snapshot.name, summary: snapshot.data.summary, source: snapshotViewSource(snapshot.data), linkable: true };
  }
  const source = view.source;
  if (source?.kind === 'url') {
    const name = source.url.split('/').pop() || source.url;
    return { ...(await decodeCapture(client, await fetchBlob(source.url), name, view.conn)), linkable: true };
  }
  if (source?.kind === 'example') {
    const url = new URL(`examples/${encodeURIComponent(source.file)}`, document.baseURI).href;
    return { ...(await decodeCapture(client, await fetchBlob(url), source.file, view.conn)), linkable: true };
  }
  return null;
}

type Posted = { buffer: ArrayBuffer; title?: unknown } | { snapshot: ArrayBuffer | Uint8Array; title?: unknown };

function postedRequest(message: unknown): 'PING' | Posted | null {
  if (typeof message !== 'object' || message === null || !('tcpscope' in message)) return null;
  const body = (message as { tcpscope: unknown }).tcpscope;
  if (body === 'PING') return 'PING';
  if (typeof body !== 'object' || body === null) return null;
  if ('buffer' in body && body.buffer instanceof ArrayBuffer) return body as Posted;
  if ('snapshot' in body && (body.snapshot instanceof ArrayBuffer || body.snapshot instanceof Uint8Array)) return body as Posted;
  return null;
}

function reply(event: MessageEvent, message: unknown) {
  const target = event.source as WindowProxy | null;
  // Replies carry no data, so any origin may hear them ('null' origins, e.g. file://, need '*').
  target?.postMessage(message, { targetOrigin: event.origin && event.origin !== 'null' ? event.origin : '*' });
}

function Embed() {
  const [view, setView] = useState<ViewState>(() => parseView(window.location.hash));
  const [phase, setPhase] = useState<Phase>('idle');
  const [shown, setShown] = useState<Shown | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [range, setRange] = useState<[number, number] | null>(view.range);
  const clientRef = useRef<DecoderClient | null>(null);
  const client = () => (clientRef.current ??= new DecoderClient());
  const generation = useRef(0);

  /** Run one load; a newer load (fragment change, another message) supersedes it. */
  const show = useCallback(async (load: () => Promise<Shown | null>): Promise<boolean> => {
    const mine = ++generation.current;
    setPhase('loading');
    setFailure(null);
    try {
      const result = await load();
      if (mine !== generation.current) return false;
      setShown(result);
      setPhase(result ? 'ready' : 'idle');
      return true;
    } catch (error) {
      if (mine !== generation.current) return false;
      setShown(null);
      setFailure(error instanceof Error ? error.message : String(error));
      setPhase('error');
      throw error;
    }
  }, []);

  useEffect(() => {
    const fromFragment = () => {
      const next = parseView(window.location.hash);
      setView(next);
      setRange(next.range);
      show(() => loadFragment(window.location.hash, client())).catch(() => {});
    };
    fromFragment();
    window.addEventListener('hashchange', fromFragment);
    return () => window.removeEventListener('hashchange', fromFragment);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [show]);

  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      const request = postedRequest(event.data);
      if (request === null) return;
      if (request === 'PING') {
        reply(event, { tcpscope: 'PONG' });
        return;
      }
      const title = typeof request.title === 'string' ? request.title.slice(0, 200) : 'capture';
      const load = 'buffer' in request
        ? () => decodeCapture(client(), new Blob([request.buffer]), title, null)
        : async () => {
          const bytes = request.snapshot instanceof Uint8Array ? request.snapshot : new Uint8Array(request.snapshot);
          const snapshot = await decodeSnapshot(bytes);
          return { title: typeof request.title === 'string' ? title : snapshot.name, summary: snapshot.data.summary, source: snapshotViewSource(snapshot.data) };
        };
      setRange(null);
      show(load).then(
        (current) => current && reply(event, { tcpscope: 'READY' }),
        (error) => reply(event, { tcpscope: 'ERROR', message: error instanceof Error ? error.message : String(error) }),
      );
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [show]);

  useEffect(() => {
    const root = document.documentElement;
    if (view.theme === 'auto') delete root.dataset.theme;
    else root.dataset.theme = view.theme;
  }, [view.theme]);

  const summary = shown?.summary;
  // Posted data is not in the fragment: the app could not open it, so no link then.
  const appLink = shown && !shown.linkable ? null : `index.html#${window.location.hash.replace(/^#/, '') || serializeView(view)}`;
  return (
    <div className="embed" data-state={phase}>
      <header className="embed-header">
        <span className="embed-title" data-testid="embed-title">
          {summary ? `${shown!.title} — connection ${summary.id}: ${summary.endpoints[0]} ⇄ ${summary.endpoints[1]}` : 'tcpscope'}
        </span>
        {appLink ? (
          <a className="embed-open" href={appLink} target="_blank" rel="noopener noreferrer" data-testid="open-in-tcpscope">
            open in tcpscope ↗
          </a>
        ) : null}
      </header>
      {phase === 'loading' ? <p className="muted embed-status">Loading…</p> : null}
      {phase === 'idle' ? (
        <p className="muted embed-status">
          Nothing to show yet: this page draws the data of a tcpscope link (#snap=… or #url=…) or a capture posted to it.
        </p>
      ) : null}
      {failure ? <div className="error" role="alert" data-testid="error">{failure}</div> : null}
      {shown && phase === 'ready' ? (
        <>
          <p className="embed-diagnosis" data-testid="diagnosis">{shown.summary.diagnosis.text}</p>
          {/* Each chart has its own boundary inside; this one catches the stack itself. */}
          <ErrorBoundary what="chart stack" resetKey={shown}>
            <ConnectionCharts
              summary={shown.summary} source={shown.source} controls={false} theme={view.theme} charts={view.charts} binMs={view.binMs}
              stallMs={view.stallMs} timeRange={range} onTimeRangeChange={setRange}
            />
          </ErrorBoundary>
        </>
      ) : null}
    </div>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ErrorBoundary what="embed">
      <Embed />
    </ErrorBoundary>
  </StrictMode>,
);
