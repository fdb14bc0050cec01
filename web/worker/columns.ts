// Copies one connection's columns out of the wasm session into fresh typed arrays, for
// the packet CSV export only (charts never see per-packet columns: they ask the view
// engine). The column names and element types are the one vocabulary's (`COLUMNS`,
// generated from wasm/src/boundary/columns.rs): none is written here.
import type { ConnectionData, ConnectionSummary } from '../model/types';
import { SCHEMA_VERSION } from '../model/types';
import { COLUMNS } from './generated/vocabulary';

/** The subset of the wasm `WasmSession` this module needs (keeps it testable). */
export interface ColumnSource {
  columnF64(conn: number, name: string): Float64Array;
  columnU32(conn: number, name: string): Uint32Array;
  columnU8(conn: number, name: string): Uint8Array;
}

export function connectionData(session: ColumnSource, summary: ConnectionSummary): ConnectionData {
  const id = summary.id;
  // `packets.t` goes to data.packets.t, and so on for every column the session hands out.
  const groups: Record<string, Record<string, ArrayBufferView>> = {};
  for (const [name, element] of Object.entries(COLUMNS)) {
    const [group, field] = name.split('.');
    const copy = element === 'f64' ? session.columnF64(id, name) : element === 'u32' ? session.columnU32(id, name) : session.columnU8(id, name);
    (groups[group] ??= {})[field] = copy;
  }
  // The model's PacketColumns / SackColumns / RttColumns name these same columns
  // (columns.test.ts checks every field is filled, at the length the engine gives).
  return { schemaVersion: SCHEMA_VERSION, summary, ...groups } as unknown as ConnectionData;
}

/** Every ArrayBuffer of a ConnectionData, for postMessage's transfer list. */
export function transferables(data: ConnectionData): ArrayBuffer[] {
  const arrays = [...Object.values(data.packets), ...Object.values(data.sack), ...Object.values(data.rtt)];
  return arrays.map((a) => (a as ArrayBufferView).buffer as ArrayBuffer);
}
