// The two connections' headline numbers side by side: the very row each capture's
// connection table gives (wasm/src/table.rs: payload, duration, retransmissions,
// stalls, limit) and the summary's mean and peak rates. Nothing is computed here.
import { useEffect, useState } from 'react';
import type { TableRow } from '../worker/generated/view';
import type { TableSource } from '../components/ConnectionTable';
import { LIMIT_LABEL } from '../worker/generated/vocabulary';
import { ScrollRegion } from '../components/ScrollRegion';
import { formatBitrate, formatBytes, formatDuration } from '../model/format.mjs';
import { sideClass, type CompareSide } from './sides';

/** The table row of `side`'s connection, found by its endpoints (the table's text filter). */
export function useTableRow(table: TableSource, side: CompareSide): TableRow | null {
  const { summary } = side;
  const d = summary.directions[summary.dataDirection];
  const [row, setRow] = useState<TableRow | null>(null);
  useEffect(() => {
    let live = true;
    setRow(null);
    table({ sort: 'id', descending: false, text: `${d.from} ${d.to}`.toLowerCase(), limit: '', offset: 0, count: 100 })
      .then((page) => live && setRow(page.rows.find((r) => r.id === summary.id) ?? null))
      .catch(() => undefined); // a replaced capture: its table is gone
    return () => { live = false; };
  }, [table, summary.id, d.from, d.to]);
  return row;
}

export interface HeadlineSide { side: CompareSide; table: TableSource }

function Row({ side, table }: HeadlineSide) {
  const row = useTableRow(table, side);
  const t = side.summary.directions[side.summary.dataDirection].throughput;
  const cell = (text: string | undefined, key: string) => <td className="num" data-headline={key}>{text ?? '…'}</td>;
  return (
    <tr data-side={side.letter}>
      <th scope="row"><span className={`tcps-swatch ${sideClass(side.letter)}`} />{side.letter}</th>
      <td><bdi>{side.name}</bdi> #{side.summary.id}</td>
      {cell(formatBitrate(t.meanBps), 'mean')}
      {cell(formatBitrate(t.peakBps), 'peak')}
      {cell(row ? formatDuration(row.duration) : undefined, 'duration')}
      {cell(row ? formatBytes(row.bytes) : undefined, 'bytes')}
      {cell(row?.retransmissions.toLocaleString('en-US'), 'retransmissions')}
      {cell(row?.stalls.toLocaleString('en-US'), 'stalls')}
      <td data-headline="limit">{LIMIT_LABEL[side.summary.diagnosis.limit] ?? side.summary.diagnosis.limit}</td>
    </tr>
  );
}

export function CompareHeadline({ sides }: { sides: HeadlineSide[] }) {
  // Nine columns: on a narrow screen they scroll in their own box, not the page.
  return (
    <ScrollRegion label="Headline numbers" tall>
      <table className="compare-headline" data-testid="compare-headline">
        <caption className="muted">Headline numbers (the connection table's row and the summary's rates)</caption>
        <thead>
          <tr>
            <th scope="col">Side</th><th scope="col">Connection</th><th scope="col">Mean rate</th><th scope="col">Peak rate</th>
            <th scope="col">Duration</th><th scope="col">Data payload</th><th scope="col">Retransmissions</th><th scope="col">Stalls</th><th scope="col">Limit</th>
          </tr>
        </thead>
        <tbody>{sides.map((s) => <Row key={s.side.letter} {...s} />)}</tbody>
      </table>
    </ScrollRegion>
  );
}
