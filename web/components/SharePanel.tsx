// Share, embed and export the selected connection. "Share" makes a link that carries
// the view and a snapshot of what the charts draw — the view engine's answers at the
// plot's pixel columns, made in Rust (wasm/src/share), at most 8 KB — with no server
// and without the capture; for a capture opened from #url= the plain permalink is enough. "Embed"
// gives an <iframe> snippet for embed.html with the same fragment. Exports: each chart
// (or the whole stack, export/stack.ts) as standalone SVG or PNG, the packet columns as CSV,
// the connection's packets as a pcapng for Wireshark (export/pcapng.ts), the capture report as JSON.

import { useEffect, useState } from 'react';
import type { ConnectionData, ConnectionSummary, Report } from '../model/types';
import { CHART_IDS, serializeView, type ChartId, type ViewState } from '../state/url';
import { MARGIN } from '../charts/frame';
import { CHART_TITLE } from '../worker/generated/vocabulary';
import { fullRange, openingRange, shownRange } from '../charts/timeRange';
import { flushDeferredDraws } from '../charts/useD3';
import { csvBlob } from '../export/csv';
import { sliceCapture, sliceFileName } from '../export/pcapng';
import { downloadBlob, fileStem } from '../export/download';
import { svgBlob, svgToPng } from '../export/svg';
import { stackBlob, stackCharts, stackHeadline, stackSubtitle, stackToPng } from '../export/stack';
import { MAX_LINK_BYTES, downloadSnapshot, snapshotLink, storedView } from '../share/snapshot';
import type { Shared as MadeSnapshot, ShareSpec } from '../worker/protocol';
import { TopNotice } from './TopNotice';
import '../share/share.css';

export interface SharePanelProps {
  /** Capture name (file name or example), used in titles and file names. */
  name: string;
  report: Report;
  summary: ConnectionSummary;
  view: ViewState;
  /** Makes a link of the view from the opened capture (the worker's wasm/src/share). */
  makeSnapshot?: (spec: ShareSpec) => Promise<MadeSnapshot>;
  /** The snapshot (base64url) of the shared link being shown: re-shared as it is. */
  openedSnapshot?: string;
  /** Per-packet columns for the packet CSV (a capture only). */
  loadData?: () => Promise<ConnectionData>;
  /** The capture's bytes, for Save for Wireshark (a capture only). */
  capture?: () => Promise<Blob>;
}

type Shared = { link: string; fragment: string; snapshot: string | null; columns: number | null } | { tooLargeKb: number };

/** The pixel columns the charts draw now (the plot's width): the link's resolution. */
function plotColumns(): number {
  const width = Number(document.querySelector('svg[data-chart]')?.getAttribute('width'));
  return Number.isFinite(width) && width > 0 ? Math.max(1, Math.round(width - MARGIN.left - MARGIN.right)) : 1600;
}

/** Page address without fragment; embed.html sits next to index.html. */
function pageBase(): string {
  return window.location.origin + window.location.pathname;
}
function embedBase(): string {
  return new URL('embed.html', pageBase()).href;
}

const escapeAttr = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function embedSnippet(src: string, title: string): string {
  return `<iframe src="${escapeAttr(src)}" width="100%" height="420" style="border:0" loading="lazy" title="${escapeAttr(title)}"></iframe>`;
}

export function SharePanel({ name, report, summary, view, makeSnapshot, openedSnapshot, loadData, capture }: SharePanelProps) {
  const [shared, setShared] = useState<Shared | null>(null);
  const [embedChart, setEmbedChart] = useState<ChartId | 'all'>('all');
  const [showEmbed, setShowEmbed] = useState(false);
  const [exportChart, setExportChart] = useState<ChartId | 'stack'>(view.charts[0] ?? 'throughput');
  const [message, setMessage] = useState<string | null>(null);
  // A failed action is said at the top of the page (TopNotice); `message` is its news.
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const stem = fileStem(name);
  const title = `tcpscope: connection ${summary.id}, ${summary.endpoints[0]} ⇄ ${summary.endpoints[1]}`;

  // A link describes the view it was made from; a new view needs a new link.
  useEffect(() => {
    setShared(null);
    setShowEmbed(false);
  }, [summary, view]);

  /** The snapshot of this view (base64url): made by the worker, or the link being shown. */
  async function snapshot(): Promise<{ snapshot: string; columns: number | null }> {
    if (makeSnapshot) {
      const stored = storedView(view);
      // The range the charts draw, padding included: the link's grid is then the page's
      // own columns, and the receiver, asking for the same view, draws the same picture.
      const full = fullRange(summary.start, summary.end);
      const [t0, t1] = shownRange(view.range, full, openingRange(summary.dataView, full));
      const spec: ShareSpec = {
        connection: summary.id, charts: view.charts, columns: plotColumns(), name, view: stored,
        // The pipe is drawn only with #pipe=1 (InflightChart): stored only then.
        ...(view.pipe ? { series: ['pipe'] } : {}),
        t0, t1,
        ...(view.binMs !== null ? { binSeconds: view.binMs / 1000 } : {}),
        ...(view.stallMs !== null ? { stallThresholdMs: view.stallMs } : {}),
        // Room for the page address and the view in the 8 KB.
        maxLinkChars: MAX_LINK_BYTES - `${pageBase()}#${stored}&snap=`.length,
      };
      const made = await makeSnapshot(spec);
      if ('error' in made) throw new Error(`No link could be made: ${made.error}`);
      return made;
    }
    if (openedSnapshot) return { snapshot: openedSnapshot, columns: null };
    throw new Error('Nothing to share yet.');
  }

  async function makeLink(): Promise<Shared> {
    const fromUrl = view.source?.kind === 'url';
    if (fromUrl) {
      // The capture is reachable by URL: the view alone is a complete permalink.
      const fragment = serializeView(view);
      return { link: `${pageBase()}#${fragment}`, fragment, snapshot: null, columns: null };
    }
    const made = await snapshot();
    const link = snapshotLink(pageBase(), view, made.snapshot);
    if (link.length > MAX_LINK_BYTES) return { tooLargeKb: Math.ceil(link.length / 1024) };
    return { link, fragment: link.slice(link.indexOf('#') + 1), ...made };
  }

  async function run(action: () => Promise<void>) {
    setBusy(true);
    setMessage(null);
    setFailed(null);
    try {
      await action();
    } catch (error) {
      setFailed(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  }

  const share = () => run(async () => {
    const result = shared ?? (await makeLink());
    setShared(result);
    if ('link' in result) {
      const size = `${(result.link.length / 1024).toFixed(1)} KB link${result.columns ? `, shared at ${result.columns} px` : ''}`;
      setMessage(size);
      // Clipboard access can be missing (insecure origin, permissions): the link is shown
      // anyway, so the copy is not awaited and its failure is ignored.
      navigator.clipboard?.writeText(result.link).then(
        () => setMessage(`${size}; copied to the clipboard.`),
        () => {},
      );
    }
  });

  const embed = () => run(async () => {
    setShared(shared ?? (await makeLink()));
    setShowEmbed(true);
  });

  const findChart = (chart: ChartId) => {
    flushDeferredDraws(); // a chart out of view may not have drawn the latest range yet
    const svg = document.querySelector<SVGSVGElement>(`svg[data-chart="${chart}"]`);
    if (!svg) throw new Error(`The ${CHART_TITLE[chart]} chart is not on the page; show it first.`);
    return svg;
  };

  /** The shown charts of this connection's stack, with the figure's title lines (export/stack.ts). */
  const findStack = (): [SVGSVGElement[], string, string] => {
    flushDeferredDraws();
    const charts = stackCharts(document.querySelector(`[data-testid="connection"][data-connection="${summary.id}"]`) ?? document);
    return [charts, stackHeadline(summary), stackSubtitle(summary)];
  };

  let embedCode: string | null = null;
  if (showEmbed && shared && 'link' in shared) {
    const params = new URLSearchParams(shared.fragment);
    if (embedChart !== 'all') params.set('charts', embedChart);
    const fragment = params.toString().replace(/%2C/g, ',');
    embedCode = embedSnippet(`${embedBase()}#${fragment}`, title);
  }

  return (
    <section className="share-panel" data-testid="share-panel" aria-label="Share and export">
      <div className="share-row">
        <button type="button" className="button" data-testid="share" onClick={share} disabled={busy}>
          Share
        </button>
        <button type="button" className="button" data-testid="download-snapshot" disabled={busy}
          onClick={() => run(async () => downloadSnapshot((await snapshot()).snapshot, name))}>
          Download snapshot
        </button>
        <button type="button" className="button" data-testid="embed" onClick={embed} disabled={busy}>
          Embed
        </button>
        <span className="share-sep" aria-hidden="true" />
        <label>
          Chart{' '}
          <select data-testid="export-chart" value={exportChart} onChange={(e) => setExportChart(e.target.value as ChartId)}>
            {CHART_IDS.map((id) => <option key={id} value={id}>{CHART_TITLE[id]}</option>)}
            <option value="stack">Whole stack</option>
          </select>
        </label>
        <button type="button" className="button" data-testid="export-svg" disabled={busy}
          onClick={() => run(async () => downloadBlob(exportChart === 'stack' ? stackBlob(...findStack()) : svgBlob(findChart(exportChart)), `${stem}-${exportChart}.svg`))}>
          SVG
        </button>
        <button type="button" className="button" data-testid="export-png" disabled={busy}
          onClick={() => run(async () => downloadBlob(await (exportChart === 'stack' ? stackToPng(...findStack()) : svgToPng(findChart(exportChart))), `${stem}-${exportChart}.png`))}>
          PNG
        </button>
        <button type="button" className="button" data-testid="export-csv" disabled={busy || !loadData}
          title={loadData ? 'Every packet of the connection' : 'A shared link holds charts, not packets'}
          onClick={() => run(async () => loadData && downloadBlob(csvBlob(await loadData()), `${stem}-connection-${summary.id}.csv`))}>
          CSV
        </button>
        <button type="button" className="button" data-testid="save-pcapng" disabled={busy || !capture}
          title={capture ? `The packets of connection ${summary.id}${view.range ? ' in the shown range' : ''}, as a pcapng for Wireshark` : 'A shared link holds charts, not packets'}
          onClick={() => run(async () => {
            if (!capture) return;
            // The zoomed range when there is one (seconds since the file's first packet), else the whole connection.
            const request = { connection: summary.id, from: view.range?.[0] ?? null, to: view.range?.[1] ?? null };
            downloadBlob(await sliceCapture(await capture(), request), sliceFileName(stem, request));
          })}>
          Save for Wireshark
        </button>
        <button type="button" className="button" data-testid="export-json" disabled={busy}
          onClick={() => run(async () => downloadBlob(new Blob([JSON.stringify(report, null, 2)], { type: 'application/json' }), `${stem}.report.json`))}>
          JSON
        </button>
      </div>

      {shared && 'link' in shared ? (
        <label className="share-field">
          <span>Link</span>
          <input data-testid="share-url" readOnly value={shared.link} onFocus={(e) => e.currentTarget.select()} />
        </label>
      ) : null}
      {shared && 'tooLargeKb' in shared ? (
        <p className="share-too-large" data-testid="share-too-large" role="status">
          This view is too large for a link ({shared.tooLargeKb} KB); download the snapshot file instead, or zoom in to
          share a shorter span.{' '}
          <button type="button" className="link" onClick={() => run(async () => downloadSnapshot((await snapshot()).snapshot, name))}>
            Download snapshot
          </button>
        </p>
      ) : null}
      {embedCode !== null ? (
        <div className="share-field">
          <label>
            <span>Embed</span>{' '}
            <select data-testid="embed-chart" value={embedChart} onChange={(e) => setEmbedChart(e.target.value as ChartId | 'all')}>
              <option value="all">all shown charts</option>
              {/* A link does not hold the Wi-Fi chart (it is drawn only from a capture). */}
              {view.charts.filter((id) => id !== 'wifi').map((id) => <option key={id} value={id}>{CHART_TITLE[id]} only</option>)}
            </select>
          </label>
          <textarea data-testid="embed-code" readOnly rows={3} value={embedCode} onFocus={(e) => e.currentTarget.select()} />
        </div>
      ) : null}
      {failed ? <TopNotice text={failed} testId="share-error" onDismiss={() => setFailed(null)} /> : null}
      {message ? <p className="share-message" data-testid="share-message" role="status">{message}</p> : null}
    </section>
  );
}
