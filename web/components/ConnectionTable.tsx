// The list of TCP connections of the capture; click a row to chart it.
import { useMemo, useState } from 'react';
import { processLabel, type ConnectionSummary } from '../model/types';
import { formatBytesSI, formatRate, formatDuration } from '../model/format';
import { ScrollRegion } from './ScrollRegion';

type SortKey = 'id' | 'packets' | 'bytes' | 'duration' | 'rate';

const dataDir = (c: ConnectionSummary) => c.directions[c.dataDirection];
/** The data direction's payload (DESIGN.md "Direction"), not the sum of both directions. */
export const dataPayload = (c: ConnectionSummary) => dataDir(c).payloadBytes;
const payload = dataPayload;
const sortValue: Record<SortKey, (c: ConnectionSummary) => number> = {
  id: (c) => c.id,
  packets: (c) => c.packets,
  bytes: payload,
  duration: (c) => c.end - c.start,
  rate: (c) => dataDir(c).throughput.meanBps,
};

/** The connection shown when none is chosen: the one whose data direction carried the most payload. */
export function largestConnection(connections: ConnectionSummary[]): ConnectionSummary | undefined {
  return connections.reduce<ConnectionSummary | undefined>((best, c) => (!best || payload(c) > payload(best) ? c : best), undefined);
}

const MAX_ROWS = 500;

export function ConnectionTable({ connections, selected, onSelect }: {
  connections: ConnectionSummary[]; selected: number | null; onSelect: (id: number) => void;
}) {
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'bytes', descending: true });
  const rows = useMemo(() => {
    const value = sortValue[sort.key];
    const sorted = [...connections].sort((a, b) => (sort.descending ? value(b) - value(a) : value(a) - value(b)));
    return sorted.slice(0, MAX_ROWS);
  }, [connections, sort]);
  const header = (key: SortKey, label: string) => (
    <th aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
      <button className="link" onClick={() => setSort({ key, descending: sort.key === key ? !sort.descending : key !== 'id' })}>
        {label}{sort.key === key ? (sort.descending ? ' ▾' : ' ▴') : ''}
      </button>
    </th>
  );
  return (
    <ScrollRegion label="TCP connections">
      <table className="connections" data-testid="connections">
        <caption>
          {connections.length.toLocaleString('en-US')} TCP connection{connections.length === 1 ? '' : 's'}
          {connections.length > MAX_ROWS ? ` (the ${MAX_ROWS} first by the chosen order are listed)` : ''}
        </caption>
        <thead>
          <tr>
            {header('id', '#')}
            <th>Data sender → receiver</th>
            {header('packets', 'Packets')}
            {header('bytes', 'Data payload')}
            {header('duration', 'Duration')}
            {header('rate', 'Mean rate (over duration)')}
            <th>Limit</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr
              key={c.id}
              data-connection={c.id}
              className={c.id === selected ? 'selected' : undefined}
              aria-selected={c.id === selected}
              tabIndex={0}
              onClick={() => onSelect(c.id)}
              onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && onSelect(c.id)}
            >
              <td>{c.id}</td>
              <td className="endpoints">
                {dataDir(c).from} → {dataDir(c).to}
                {c.handshakeSeen ? null : <span className="tag" title="The SYN handshake is not in the capture: window scale unknown">no handshake</span>}
                {c.process ? <span className="tag process" data-testid="process" title="The process the capture names for this connection">{processLabel(c.process)}</span> : null}
              </td>
              <td className="num">{c.packets.toLocaleString('en-US')}</td>
              <td className="num">{formatBytesSI(payload(c))}</td>
              <td className="num">{formatDuration(c.end - c.start)}</td>
              <td className="num" title="mean over the connection's duration">{formatRate(dataDir(c).throughput.meanBps)}</td>
              <td><span className={`limit limit-${c.diagnosis.limit}`}>{c.diagnosis.limit}</span></td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
