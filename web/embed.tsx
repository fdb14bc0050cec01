// The embed page (embed.html, meant for an <iframe>): one chart or the chart stack of
// one connection with minimal chrome — title, the charts with their legends, the
// diagnosis line and an "open in tcpscope" link back to the full view. Data comes from
// the same fragment as the app (#snap=… share link, #url=… capture, #ex=… example) or
// from the embedding page by postMessage, like Perfetto's:
//   { tcpscope: 'PING' }                           → replies { tcpscope: 'PONG' }
//   { tcpscope: { buffer: ArrayBuffer, title } }   → decodes the capture, draws its largest connection
//   { tcpscope: { snapshot: ArrayBuffer | Uint8Array, title } } → draws the share link's snapshot
//   { tcpscope: { theme: 'light' | 'dark' | 'auto' } } → follows the host page's colour scheme
// Only the embedding page is heard (issue 45, item 2): a message whose source is not
// window.parent — a sibling iframe such as an ad, a popup, the embed itself — is ignored,
// so no other frame on the blog can swap in its own data. The protocol is in docs/DEPLOY.md.
// After a posted load it replies { tcpscope: 'READY' } once the charts are drawn, or
// { tcpscope: 'ERROR', message } (also when the chart stack fails: never READY with an
// error shown); a snippet's iframe (data from its fragment) posts READY to its host once
// drawn too. Whenever its content height changes it tells the
// host { tcpscope: 'HEIGHT', height } (CSS px), so the host can size the iframe.
// The root's data-state (idle | loading | ready | error) is the signal tests wait on:
// "ready" only once every shown chart has drawn its first answer.
// Theme: #theme=light|dark, else the host's posted theme, else the reader's system.

import { StrictMode, useCallback, useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ConnectionCharts } from './components/ConnectionCharts';
import { shownConnection } from './components/ConnectionTable';
import type { ConnectionSummary, Report } from './model/types';
import type { ViewSource } from './worker/viewSource';
import { ErrorBoundary } from './components/ErrorBoundary';
import { fragmentToSnapshot } from './share/snapshot';
import { parseView, parseViewWithRefusals, serializeView, type Theme, type ViewState } from './state/url';
import { streamCapture } from './state/fetchCapture';
import { DecoderClient } from './worker/client';
import { outsideText } from './security/outsideText';
import './styles.css';
import './embed.css';

type Phase = 'idle' | 'loading' | 'ready' | 'error';
/** `linkable`: the data came from this page's fragment, so the app can open the same link.
 *  `stopped`: why a capture fetched by address stopped arriving before its end. */
interface Shown { title: string; summary: ConnectionSummary; source: ViewSource; linkable?: boolean; stopped?: string | null }

function shownOf(client: DecoderClient, report: Report, title: string, conn: number | null, stopped: string | null = null): Shown {
  const summary = shownConnection(report.connections, conn);
  if (!summary) throw new Error(stopped ?? report.error?.message ?? 'This capture holds no TCP connection.');
  // Its charts' first answers are built while this page renders (as in the app).
  client.prepare(summary.id);
  return { title, summary, source: client.viewSource(), stopped };
}

async function decodeCapture(client: DecoderClient, blob: Blob, title: string, conn: number | null): Promise<Shown> {
  const { report } = await client.open(blob, title, null, () => {});
  return shownOf(client, report, title, conn);
}

/** The capture at `url`, decoded as it arrives, as in the app (issue 45 item 6): the same
 *  cap and one-line stop; `signal` aborts the download (a newer load). */
async function decodeDownload(client: DecoderClient, url: string, title: string, conn: number | null, signal: AbortSignal): Promise<Shown> {
  const { chunks, total } = await streamCapture(url, undefined, { signal });
  const { report, stopped } = await client.openStream(chunks, total, () => {});
  return shownOf(client, report, title, conn, stopped);
}

/** A share link's snapshot, answered by the worker from what it holds (wasm/src/share). */
async function openSnapshot(client: DecoderClient, bytes: Uint8Array, title: string | null): Promise<Shown> {
  const { report, snapshot } = await client.openSnapshot(bytes);
  const summary = report.connections[0];
  if (!summary) throw new Error('This link holds no connection.');
  return { title: title ?? snapshot?.name ?? 'shared view', summary, source: client.viewSource() };
}

/** What the fragment asks for; null when it names no data. */
async function loadFragment(hash: string, client: DecoderClient, signal: AbortSignal): Promise<Shown | null> {
  const bytes = fragmentToSnapshot(hash);
  const view = parseView(hash);
  if (bytes) return { ...(await openSnapshot(client, bytes, null)), linkable: true };
  const source = view.source;
  if (source?.kind === 'url') {
    const name = outsideText(source.url.split('/').pop() || source.url, 120);
    return { ...(await decodeDownload(client, source.url, name, view.conn, signal)), linkable: true };
  }
  if (source?.kind === 'example') {
    const url = new URL(`examples/${encodeURIComponent(source.file)}`, document.baseURI).href;
    return { ...(await decodeDownload(client, url, source.file, view.conn, signal)), linkable: true };
  }
  return null;
}

type Posted =
  | { buffer: ArrayBuffer; title?: unknown }
  | { snapshot: ArrayBuffer | Uint8Array; title?: unknown }
  | { theme: Theme };

function postedRequest(message: unknown): 'PING' | Posted | null {
  if (typeof message !== 'object' || message === null || !('tcpscope' in message)) return null;
  const body = (message as { tcpscope: unknown }).tcpscope;
  if (body === 'PING') return 'PING';
  if (typeof body !== 'object' || body === null) return null;
  if ('buffer' in body && body.buffer instanceof ArrayBuffer) return body as Posted;
  if ('snapshot' in body && (body.snapshot instanceof ArrayBuffer || body.snapshot instanceof Uint8Array)) return body as Posted;
  if ('theme' in body && (body.theme === 'light' || body.theme === 'dark' || body.theme === 'auto')) return body as Posted;
  return null;
}

function reply(target: MessageEventSource | null, origin: string, message: unknown) {
  // Replies carry no data, so any origin may hear them ('null' origins, e.g. file://, need '*').
  (target as WindowProxy | null)?.postMessage(message, { targetOrigin: origin && origin !== 'null' ? origin : '*' });
}

function Embed() {
  const [view, setView] = useState<ViewState>(() => parseView(window.location.hash));
  /** What the fragment asked for that was dropped (an unknown chart id), said under the title. */
  const [refused, setRefused] = useState<string[]>(() => parseViewWithRefusals(window.location.hash).refused);
  const [hostTheme, setHostTheme] = useState<Theme>('auto');
  const [phase, setPhase] = useState<Phase>('idle');
  const [shown, setShown] = useState<Shown | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [range, setRange] = useState<[number, number] | null>(view.range);
  const clientRef = useRef<DecoderClient | null>(null);
  const client = () => (clientRef.current ??= new DecoderClient());
  const generation = useRef(0);
  /** The download of a #url= / #ex= capture under way; a newer load aborts it. */
  const downloading = useRef<AbortController | null>(null);
  /** Who waits for READY: the sender of the posted load being drawn. */
  const waiting = useRef<{ target: MessageEventSource | null; origin: string } | null>(null);
  const rootRef = useRef<HTMLDivElement | null>(null);

  /** Run one load; a newer load (fragment change, another message) supersedes it. */
  const show = useCallback(async (load: () => Promise<Shown | null>): Promise<boolean> => {
    const mine = ++generation.current;
    downloading.current?.abort();
    setPhase('loading');
    setFailure(null);
    try {
      const result = await load();
      if (mine !== generation.current) return false;
      setShown(result);
      // Ready when the charts have drawn (onDrawn), not now.
      if (!result) setPhase('idle');
      return true;
    } catch (error) {
      if (mine !== generation.current) return false;
      setShown(null);
      setFailure(error instanceof Error ? error.message : String(error));
      setPhase('error');
      throw error;
    }
  }, []);

  const onDrawn = useCallback(() => {
    setPhase((p) => (p === 'loading' ? 'ready' : p));
    const w = waiting.current;
    waiting.current = null;
    if (w) reply(w.target, w.origin, { tcpscope: 'READY' });
    // A snippet's iframe (data from the fragment): its host hears READY too.
    else if (window.parent !== window) window.parent.postMessage({ tcpscope: 'READY' }, '*');
  }, []);

  /** The chart stack threw: the box says why, and the host hears ERROR, not READY. */
  const onStackError = useCallback((error: Error) => {
    setPhase('error');
    const message = outsideText(error.message, 500);
    const w = waiting.current;
    waiting.current = null;
    if (w) reply(w.target, w.origin, { tcpscope: 'ERROR', message });
    else if (window.parent !== window) window.parent.postMessage({ tcpscope: 'ERROR', message }, '*');
  }, []);

  useEffect(() => {
    const fromFragment = () => {
      const { view: next, refused: dropped } = parseViewWithRefusals(window.location.hash);
      setView(next);
      setRefused(dropped);
      setRange(next.range);
      show(() => {
        const controller = (downloading.current = new AbortController());
        return loadFragment(window.location.hash, client(), controller.signal);
      }).catch(() => {});
    };
    fromFragment();
    window.addEventListener('hashchange', fromFragment);
    return () => window.removeEventListener('hashchange', fromFragment);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [show]);

  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      // The embedding page only: not a sibling frame, not a window this page opened.
      if (window.parent === window || event.source !== window.parent) return;
      const request = postedRequest(event.data);
      if (request === null) return;
      if (request === 'PING') {
        reply(event.source, event.origin, { tcpscope: 'PONG' });
        return;
      }
      if ('theme' in request) {
        setHostTheme(request.theme);
        return;
      }
      const title = typeof request.title === 'string' ? outsideText(request.title, 200) : null;
      const load = 'buffer' in request
        ? () => decodeCapture(client(), new Blob([request.buffer]), title ?? 'capture', null)
        : () => openSnapshot(client(), request.snapshot instanceof Uint8Array ? request.snapshot : new Uint8Array(request.snapshot), title);
      setRange(null);
      waiting.current = { target: event.source, origin: event.origin };
      show(load).catch((error) => {
        waiting.current = null;
        reply(event.source, event.origin, { tcpscope: 'ERROR', message: error instanceof Error ? error.message : String(error) });
      });
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [show]);

  // #theme= wins; else the host's posted scheme; else the system's (styles.css media query).
  const theme = view.theme !== 'auto' ? view.theme : hostTheme;
  useEffect(() => {
    const root = document.documentElement;
    if (theme === 'auto') delete root.dataset.theme;
    else root.dataset.theme = theme;
  }, [theme]);

  // The host sizes the iframe from this (no scroll bar inside, no empty space below).
  useEffect(() => {
    const el = rootRef.current;
    if (!el || window.parent === window) return;
    let last = 0;
    const tell = () => {
      const height = Math.ceil(el.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      window.parent.postMessage({ tcpscope: 'HEIGHT', height }, '*');
    };
    const observer = new ResizeObserver(tell);
    observer.observe(el);
    tell();
    return () => observer.disconnect();
  }, []);

  const summary = shown?.summary;
  // Posted data is not in the fragment: the app could not open it, so no link then.
  const appLink = shown && !shown.linkable ? null : new URL(`index.html#${window.location.hash.replace(/^#/, '') || serializeView(view)}`, document.baseURI).href;
  return (
    <div className="embed" data-state={phase} ref={rootRef}>
      <header className="embed-header">
        <span className="embed-title" data-testid="embed-title">
          {summary ? <><bdi>{shown!.title}</bdi> — connection {summary.id}: <bdi>{summary.endpoints[0]}</bdi> ⇄ <bdi>{summary.endpoints[1]}</bdi></> : 'tcpscope'}
        </span>
        {appLink ? (
          <a className="embed-open" href={appLink} target="_blank" rel="noopener noreferrer" data-testid="open-in-tcpscope">
            open in tcpscope ↗
          </a>
        ) : null}
      </header>
      {refused.length ? <p className="notice embed-status" role="status" data-testid="refused">{refused.join(' ')}</p> : null}
      {phase === 'loading' ? <p className="muted embed-status">Loading…</p> : null}
      {phase === 'idle' ? (
        <p className="muted embed-status">
          Nothing to show yet: this page draws the data of a tcpscope link (#snap=… or #url=…) or a capture posted to it.
        </p>
      ) : null}
      {failure ? <div className="error" role="alert" data-testid="error">{failure}</div> : null}
      {shown?.stopped && phase !== 'error' ? (
        <p className="notice embed-status" role="status" data-testid="download-stopped">{shown.stopped} What arrived before it is drawn.</p>
      ) : null}
      {shown && phase !== 'error' ? (
        <>
          <p className="embed-diagnosis" data-testid="diagnosis">{shown.summary.diagnosis.text}</p>
          {/* Each chart has its own boundary inside; this one catches the stack itself. */}
          <ErrorBoundary what="chart stack" resetKey={shown} onError={onStackError}>
            <ConnectionCharts
              summary={shown.summary} source={shown.source} controls={false} theme={theme} charts={view.charts} binMs={view.binMs} pipe={view.pipe}
              stallMs={view.stallMs} timeRange={range} onTimeRangeChange={setRange} onReady={onDrawn}
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
