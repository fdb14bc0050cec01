// What the page shows while a capture loads (issue 41): the connection table so far
// (the largest connections by payload, from the worker's partial table, wasm
// view/partial.rs), the selected connection's throughput growing from the running
// bins, and, for what needs the whole capture, a plain "after the load". Every part
// says "loading — N % read". When the report comes, App replaces all of it with the
// finished view on the same time grid.
import { memo, useState } from 'react';
import type { PartialRow, PartialTable } from '../worker/generated/view';
import type { ViewSource } from '../worker/viewSource';
import type { Progress } from '../worker/client';
import { formatBytes, formatDuration } from '../model/format.mjs';
import { useContainerWidth } from '../charts/useStackLayout';
import { PartialThroughputChart } from './PartialThroughputChart';
import { CHART_IDS, CHART_TITLE, RADIO_CHART_IDS, type ChartId } from '../worker/generated/vocabulary';

/** Charts that need the end-of-capture analysis (stall causes, the window scale, the
 *  RTT rules): drawn after the load, and said so. */
const AFTER_THE_LOAD = CHART_IDS.filter((id) => id !== 'throughput' && !(RADIO_CHART_IDS as readonly ChartId[]).includes(id)).map((id) => CHART_TITLE[id]);

export interface ProgressiveViewProps {
  partial: PartialTable;
  /** The share of the capture decoded when `partial` was made (null: not known). */
  decodedShare?: number | null;
  progress: Progress | null;
  source: ViewSource;
  /** A row picked while loading: the finished view opens on that connection too. */
  onSelect?: (id: number) => void;
}

const rowBytes = (r: PartialRow) => r.payloadBytes[r.dataDirection];

/** The capture's length (s from its first packet) estimated when `partial` was made: where
 *  the decoder was in capture time ÷ the share of the file decoded — not the analysis's
 *  settled time ÷ the share of bytes read: the bytes read run up to a slice ahead of the
 *  decoder and the timeline holds up to 2 s or 65,536 packets back from the analysis, so
 *  that estimate ended ≈ 8 % short. Null when either is not known. */
export function estimatedLength(partial: PartialTable, decodedShare: number | null): number | null {
  if (decodedShare == null || partial.decodedT == null || !(decodedShare > 0.01)) return null;
  return partial.decodedT / Math.min(1, decodedShare);
}

export const ProgressiveView = memo(function ProgressiveView({ partial, decodedShare, progress, source, onSelect }: ProgressiveViewProps) {
  const [chosen, setChosen] = useState<number | null>(null);
  const [ref, width] = useContainerWidth();
  const total = progress?.totalBytes ?? 0;
  const fraction = total > 0 ? Math.min(1, (progress?.bytesRead ?? 0) / total) : 0;
  const pct = Math.floor(fraction * 100);
  const loading = total > 0 ? `loading — ${pct} % read` : 'loading';
  // The biggest so far unless the person picked one (kept while it is listed).
  const selected = partial.rows.find((r) => r.id === chosen) ?? partial.rows[0];
  return (
    <section className="progressive" data-testid="progressive" aria-busy="true" ref={ref as React.RefObject<HTMLElement>}>
      <h2 className="progressive-state" data-testid="progressive-state">{loading}: {partial.connections.toLocaleString('en-US')} TCP connection{partial.connections === 1 ? '' : 's'} so far</h2>
      <table className="connections partial-table" data-testid="partial-table">
        <caption>Largest connections so far, by payload ({loading})</caption>
        <thead><tr><th>#</th><th>Data direction</th><th>Payload so far</th><th>Packets</th><th>Seen for</th></tr></thead>
        <tbody>
          {partial.rows.map((r) => (
            <tr key={r.id} data-id={r.id} aria-selected={r.id === selected?.id} className={r.id === selected?.id ? 'selected' : undefined}
              tabIndex={0} onClick={() => { setChosen(r.id); onSelect?.(r.id); }}
              onKeyDown={(e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); setChosen(r.id); onSelect?.(r.id); } }}>
              <td>{r.id}</td>
              <td><bdi>{r.endpoints[r.dataDirection]}</bdi> → <bdi>{r.endpoints[1 - r.dataDirection]}</bdi></td>
              <td>{formatBytes(rowBytes(r))}</td>
              <td>{r.packets.toLocaleString('en-US')}</td>
              <td>{formatDuration(Math.max(0, r.end - r.start))}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {selected ? (
        <PartialThroughputChart source={source} row={selected} settledT={partial.settledT} fraction={fraction} estimatedEnd={estimatedLength(partial, decodedShare ?? null)} width={Math.max(320, width)} />
      ) : null}
      <p className="after-the-load" data-testid="after-the-load">
        Drawn after the load ({loading}): {AFTER_THE_LOAD.join(', ')} — they need the end-of-capture analysis.
      </p>
      <p className="diagnosis-waiting" data-testid="diagnosis-waiting">
        The diagnosis waits for the end of the load: it weighs every stall and limit of the whole connection.
      </p>
    </section>
  );
});
