// Per-packet CSV of a connection: every column of PacketColumns, one row per packet
// in capture order. Empty cells where the column holds NaN (no value), never "NaN".

import type { ConnectionData } from '../model/types';

export const CSV_COLUMNS = ['t', 'dir', 'frame', 'seq', 'len', 'wireLen', 'ack', 'win', 'inFlight', 'flags'] as const;

const cell = (v: number) => (Number.isNaN(v) ? '' : String(v));

export function connectionCsv(data: ConnectionData): string {
  const p = data.packets;
  const lines: string[] = [CSV_COLUMNS.join(',')];
  for (let i = 0; i < p.t.length; i++) {
    // Times to the µs: the resolution of pcap, and free of binary-fraction noise.
    lines.push([
      p.t[i].toFixed(6), p.dir[i], p.frame[i], cell(p.seq[i]), p.len[i], p.wireLen[i],
      cell(p.ack[i]), cell(p.win[i]), cell(p.inFlight[i]), p.flags[i],
    ].join(','));
  }
  return lines.join('\n') + '\n';
}

export function csvBlob(data: ConnectionData): Blob {
  return new Blob([connectionCsv(data)], { type: 'text/csv' });
}
