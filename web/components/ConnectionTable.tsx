// The list of TCP connections of the capture; click a row to chart it. The rows come
// from the worker's connection table (wasm/src/table.rs) one page at a time: sorted,
// searched by endpoint text and paged there, so a capture of 10^6 connections renders
// only the rows in view (issue 16 item 2). Every value is a field of the table row,
// defined in docs/ANALYSIS.md ("The connection table"). An MPTCP connection is one row
// with its own numbers (data-level bytes and mean rate, its span, the subflow count) and
// a ▸ that lists every subflow under it with the subflow's own numbers (table.rs).
import { useEffect, useMemo, useState, memo } from 'react';
import { useSettled } from '../charts/useSettled';
import { endingOf, processLabel, stallCount, type ConnectionSummary, type ProcessInfo } from '../model/types';
import type { SortKey, TablePage, TableQuery, TableRow } from '../worker/generated/view';
import { formatBitrate, formatBytes, formatDuration } from '../model/format.mjs';
import { ScrollRegion } from './ScrollRegion';

/** Where the rows come from: the worker (DecoderClient.tableSource) or a snapshot. */
export type TableSource = (query: TableQuery) => Promise<TablePage>;

const dataDir = (c: ConnectionSummary) => c.directions[c.dataDirection];
/** The data direction's payload (DESIGN.md "Direction"), not the sum of both directions. */
export const dataPayload = (c: ConnectionSummary) => dataDir(c).payloadBytes;

/** The connection shown when none is chosen: the one whose data direction carried the most payload. */
export function largestConnection(connections: ConnectionSummary[]): ConnectionSummary | undefined {
  return connections.reduce<ConnectionSummary | undefined>((best, c) => (!best || dataPayload(c) > dataPayload(best) ? c : best), undefined);
}

/** The connection a page charts: the one named (a link's `conn`) when the report holds
 *  it, else the largest. */
export function shownConnection(connections: ConnectionSummary[], id: number | null | undefined): ConnectionSummary | undefined {
  return connections.find((c) => c.id === id) ?? largestConnection(connections);
}

/** The table of a snapshot's few connections (no worker): the rows table.rs would give,
 *  field for field (its module comment lists where each comes from). */
export function summaryTable(connections: ConnectionSummary[]): TableSource {
  const rows: TableRow[] = connections.map((c) => {
    const d = dataDir(c);
    return { id: c.id, from: d.from, to: d.to, start: c.start, duration: c.end - c.start, bytes: d.payloadBytes,
      retransmissions: d.retransmissions, stalls: stallCount(d), limit: c.diagnosis.limit, ended: endingOf(c)?.words ?? '',
      mptcp: 'mptcp' in c && typeof c.mptcp === 'number' ? c.mptcp : undefined, subflows: 0 };
  });
  return async (q) => {
    const needle = q.text.trim().toLowerCase();
    const matched = rows
      .filter((r) => !needle || `${r.from} ${r.to}`.toLowerCase().includes(needle))
      .sort((a, b) => {
        const [x, y] = q.descending ? [b, a] : [a, b];
        const [u, v] = [x[q.sort], y[q.sort]];
        return (typeof u === 'string' ? u.localeCompare(String(v)) : Number(u) - Number(v)) || a.id - b.id;
      });
    return { total: rows.length, matched: matched.length, offset: q.offset, rows: matched.slice(q.offset, q.offset + q.count) };
  };
}

/** Fixed row height (styles.css `.connections tbody tr`): what makes the virtual list possible. */
const ROW_PX = 32;
/** The scrolling box's height (styles.css `.table-wrap` max-height) and the header's. */
const VIEW_PX = 360;
const HEADER_PX = 34;
/** Rows rendered beyond the visible ones, each side; rows asked of the worker per page. */
const OVERSCAN = 10;
const PAGE_ROWS = 200;
/** Quiet time after typing before the search is asked. */
const SEARCH_DELAY_MS = 150;

interface Loaded { key: string; offset: number; rows: TableRow[]; matched: number; total: number }

// Memoised: a zoom or pan gesture re-renders the app every frame and this does not change with the range.
export const ConnectionTable = memo(function ConnectionTable({ source, selected, onSelect, processOf, onCompare, shared }: {
  source: TableSource; selected: number | null; onSelect: (id: number) => void;
  /** The rows are a share link's (or snapshot file's): it holds one connection of its
   *  capture and not how many the capture had, so the count says "shared", not a total. */
  shared?: boolean;
  /** Compare the selected connection with this one (web/compare); a ⇆ button per row. */
  onCompare?: (id: number) => void;
  /** The process the capture names for a connection (Apple PKTAP, pcapng process blocks). */
  processOf?: (id: number) => ProcessInfo | undefined;
}) {
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'bytes', descending: true });
  const [typed, setTyped] = useState('');
  const [scrollTop, setScrollTop] = useState(0);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  /** MPTCP connections whose subflows are listed (`connection.mptcp`). */
  const [expanded, setExpanded] = useState<number[]>([]);
  const text = useSettled(typed, SEARCH_DELAY_MS);

  const key = `${sort.key}|${sort.descending}|${text}|${expanded.join(',')}`;
  const first = Math.floor(Math.max(0, scrollTop - HEADER_PX) / ROW_PX);
  const visible = Math.ceil(VIEW_PX / ROW_PX);
  const from = Math.max(0, first - OVERSCAN);
  const to = first + visible + OVERSCAN;
  const current = loaded?.key === key ? loaded : null;
  const covered = current && current.offset <= from && current.offset + current.rows.length >= Math.min(to, current.matched);
  useEffect(() => {
    if (covered) return;
    let live = true;
    const offset = Math.max(0, from - (PAGE_ROWS - (to - from)) / 2) | 0;
    source({ sort: sort.key, descending: sort.descending, text, limit: '', offset, count: PAGE_ROWS, expanded })
      .then((page) => live && setLoaded({ key, offset, rows: page.rows, matched: page.matched, total: page.total }))
      .catch(() => undefined); // a replaced capture: its table is gone
    return () => { live = false; };
  }, [source, key, from, to, covered, sort, text, expanded]);
  // A new capture: start from the top.
  useEffect(() => { setLoaded(null); setScrollTop(0); setExpanded([]); }, [source]);
  const toggle = (group: number) => setExpanded((e) => (e.includes(group) ? e.filter((g) => g !== group) : [...e, group]));

  const shown = useMemo(() => {
    if (!current) return { top: 0, rows: [] as TableRow[] };
    const start = Math.max(from, current.offset);
    return { top: start * ROW_PX, rows: current.rows.slice(start - current.offset, Math.min(to, current.offset + current.rows.length) - current.offset) };
  }, [current, from, to]);

  const header = (k: SortKey, label: string) => (
    <th aria-sort={sort.key === k ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
      <button className="link" onClick={() => setSort({ key: k, descending: sort.key === k ? !sort.descending : k !== 'id' })}>
        {label}{sort.key === k ? (sort.descending ? ' ▾' : ' ▴') : ''}
      </button>
    </th>
  );
  const total = loaded?.total ?? 0;
  const matched = current?.matched ?? 0;
  return (
    <section className="connection-list">
      <div className="connection-list-bar">
        <span className="muted" data-testid="connection-count">
          {total.toLocaleString('en-US')} {shared ? 'shared ' : 'TCP '}connection{total === 1 ? '' : 's'}
          {shared ? ' (a link holds one connection of its capture)' : ''}
          {text ? `, ${matched.toLocaleString('en-US')} matching “${text}”` : ''}
        </span>
        <input type="search" value={typed} onChange={(e) => { setTyped(e.target.value); setScrollTop(0); }}
          placeholder="address or :port" aria-label="Search connections by endpoint" data-testid="connection-search" />
      </div>
      <ScrollRegion label="TCP connections" onScroll={setScrollTop} resetKey={key}>
        <div style={{ height: HEADER_PX + matched * ROW_PX }}>
          <table className="connections" data-testid="connections" aria-rowcount={matched + 1} style={{ position: 'relative', top: shown.top }}>
            <thead>
              <tr>
                {header('id', '#')}
                <th>Data sender → receiver</th>
                {header('bytes', 'Data payload')}
                {header('duration', 'Duration')}
                {header('retransmissions', 'Retransmissions')}
                {header('stalls', 'Stalls')}
                {header('limit', 'Limit')}
                {header('ended', 'Ended')}
                {onCompare && <th>Compare</th>}
              </tr>
            </thead>
            <tbody>
              {shown.rows.map((r) => {
                // The MPTCP connection's row shares its id with its first subflow's row: when
                // that is listed under it, the subflow's row is the one marked selected.
                const group = r.subflows > 0;
                const isSelected = r.id === selected && !(group && expanded.includes(r.mptcp!));
                return (
                <tr
                  key={group ? `mptcp-${r.mptcp}` : r.id}
                  data-connection={r.id}
                  data-mptcp-connection={group ? r.mptcp : undefined}
                  className={[isSelected ? 'selected' : '', r.mptcp != null && !group && !text ? 'subflow' : ''].join(' ').trim() || undefined}
                  aria-selected={isSelected}
                  tabIndex={0}
                  onClick={() => onSelect(r.id)}
                  onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && onSelect(r.id)}
                >
                  <td>{r.id}</td>
                  <td className="endpoints">
                    {r.subflows > 0 ? (
                      <button type="button" className="link mptcp-toggle" data-testid="mptcp-toggle" aria-expanded={expanded.includes(r.mptcp!)}
                        title="An MPTCP connection: the numbers are the whole connection's (data-level bytes, each once); list its subflows"
                        onClick={(e) => { e.stopPropagation(); toggle(r.mptcp!); }} onKeyDown={(e) => e.stopPropagation()}>
                        {expanded.includes(r.mptcp!) ? '▾' : '▸'} MPTCP · {r.subflows} subflows
                      </button>
                    ) : r.mptcp != null ? <span className="tag mptcp" title="A subflow of an MPTCP connection">{text ? `MPTCP ${r.mptcp}` : '↳ subflow'}</span> : null}{' '}
                    <bdi>{r.from}</bdi> → <bdi>{r.to}</bdi>
                    {processOf?.(r.id) ? <span className="tag process" data-testid="process" title="The process the capture names for this connection"><bdi>{processLabel(processOf(r.id)!)}</bdi></span> : null}
                  </td>
                  <td className="num" data-testid="bytes">
                    {formatBytes(r.bytes)}
                    {r.dataMeanBps != null ? (
                      <span className="muted" data-testid="mptcp-rate" title="The MPTCP connection's mean rate over its duration (data level)"> · {formatBitrate(r.dataMeanBps)}</span>
                    ) : null}
                  </td>
                  <td className="num">{formatDuration(r.duration)}</td>
                  <td className="num">{r.retransmissions.toLocaleString('en-US')}</td>
                  <td className="num">{r.stalls.toLocaleString('en-US')}</td>
                  <td><span className={`limit limit-${r.limit}`}>{r.limit}</span></td>
                  <td className="ended" data-testid="ended">{r.ended}</td>
                  {onCompare && (
                    <td>
                      <button type="button" className="link" data-testid="compare-row" disabled={r.id === selected}
                        aria-label={`Compare connection ${selected} with connection ${r.id}`} title="Compare the selected connection with this one"
                        onClick={(e) => { e.stopPropagation(); onCompare(r.id); }} onKeyDown={(e) => e.stopPropagation()}>⇆</button>
                    </td>
                  )}
                </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </ScrollRegion>
    </section>
  );
});
