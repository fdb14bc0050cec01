// Side B of a compare view when it is another capture: a second DecoderClient, so a
// second worker holds it (each worker holds one capture; the first keeps side A's).
// Opened from an example, an address, a share link's second snapshot or a local file;
// cancelled (worker terminated, memory released) when the compare view closes or B
// changes.
import { useEffect, useRef, useState } from 'react';
import type { Report } from '../model/types';
import type { ViewSource } from '../worker/viewSource';
import type { Shared, ShareSpec } from '../worker/protocol';
import { CancelledError, DecoderClient, type Progress } from '../worker/client';
import { summaryTable, type TableSource } from '../components/ConnectionTable';
import { echo, type CompareWith } from '../state/url';
import { exampleUrl, fetchCapture } from '../state/fetchCapture';
import { snapshotFromBase64Url } from '../share/snapshot';
import { fileName } from '../security/sanitizeReport';

export type SecondCapture =
  | { phase: 'loading'; name: string; progress: Progress | null }
  | { phase: 'ready'; name: string; report: Report; source: ViewSource; table: TableSource; share?: (spec: ShareSpec) => Promise<Shared>; snapshot?: string }
  | { phase: 'error'; name: string; message: string }
  /** A local file named by a link: only the reader can open it again. */
  | { phase: 'need-file'; name: string };

type Other = Exclude<CompareWith, { kind: 'same' }>;

function nameOf(w: Other): string {
  return fileName(rawNameOf(w));
}

function rawNameOf(w: Other): string {
  if (w.kind === 'url') return echo(w.url.split('/').pop() || w.url);
  if (w.kind === 'example') return w.file;
  if (w.kind === 'file') return w.name;
  return 'shared view';
}

/** Opens `w` in its own worker; `file` is the local file the reader chose for B. */
export function useSecondCapture(w: CompareWith | null, file: File | null): SecondCapture | null {
  const clientRef = useRef<DecoderClient | null>(null);
  const [held, setHeld] = useState<{ key: string; state: SecondCapture } | null>(null);
  const other = w && w.kind !== 'same' ? w : null;
  const key = other ? JSON.stringify(other) : '';
  const usable = other?.kind !== 'file' || file?.name === other.name ? file : null;
  const setState = (state: SecondCapture) => setHeld({ key, state });

  useEffect(() => {
    if (!other) return;
    const client = (clientRef.current ??= new DecoderClient());
    const name = nameOf(other);
    if (other.kind === 'file' && !usable) { setState({ phase: 'need-file', name }); return; }
    let live = true;
    setState({ phase: 'loading', name, progress: null });
    (async () => {
      if (other.kind === 'snapshot') {
        const bytes = snapshotFromBase64Url(other.data);
        const { report, snapshot } = await client.openSnapshot(bytes);
        if (live) setState({ phase: 'ready', name: fileName(snapshot?.name ?? name), report, source: client.viewSource(), table: summaryTable(report.connections), snapshot: other.data });
        return;
      }
      const blob = other.kind === 'file' ? usable! : await fetchCapture(other.kind === 'url' ? other.url : exampleUrl(other.file));
      if (!live) return;
      const { report } = await client.open(blob, name, null, (progress) => live && setState({ phase: 'loading', name, progress }));
      if (!live) return;
      if (report.connections.length === 0) throw new Error(report.error?.message ?? 'it holds no TCP connection');
      setState({ phase: 'ready', name, report, source: client.viewSource(), table: client.tableSource(), share: (spec) => client.share(spec) });
    })().catch((error) => {
      if (live && !(error instanceof CancelledError)) setState({ phase: 'error', name, message: error instanceof Error ? error.message : String(error) });
    });
    return () => { live = false; };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, usable]);

  // No second capture any more (compare closed, or B is the first capture): free its worker.
  useEffect(() => {
    if (!other && clientRef.current) {
      clientRef.current.cancel();
      clientRef.current = null;
    }
  }, [other]);
  useEffect(() => () => clientRef.current?.cancel(), []);
  if (!other) return null;
  // Until the effect has started B's load, an older B's state is not this one's.
  return held?.key === key ? held.state : { phase: 'loading', name: nameOf(other), progress: null };
}
