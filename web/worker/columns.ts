// Copies one connection's columns out of the wasm session into fresh typed arrays
// for share snapshots only (temporary bridge, removed by issue 15: snapshots will hold
// view answers). Charts never see per-packet columns: they ask the view engine.
import type { ConnectionData, ConnectionSummary } from '../model/types';
import { SCHEMA_VERSION } from '../model/types';

/** The subset of the wasm `WasmSession` this module needs (keeps it testable). */
export interface ColumnSource {
  columnF64(conn: number, name: string): Float64Array;
  columnU32(conn: number, name: string): Uint32Array;
  columnU8(conn: number, name: string): Uint8Array;
}

export function connectionData(session: ColumnSource, summary: ConnectionSummary): ConnectionData {
  const id = summary.id;
  const f64 = (name: string) => session.columnF64(id, name);
  return {
    schemaVersion: SCHEMA_VERSION,
    summary,
    packets: {
      t: f64('packets.t'),
      dir: session.columnU8(id, 'packets.dir'),
      frame: session.columnU32(id, 'packets.frame'),
      seq: f64('packets.seq'),
      len: session.columnU32(id, 'packets.len'),
      wireLen: session.columnU32(id, 'packets.wireLen'),
      ack: f64('packets.ack'),
      win: f64('packets.win'),
      inFlight: f64('packets.inFlight'),
      flags: session.columnU32(id, 'packets.flags'),
    },
    sack: { t: f64('sack.t'), dir: session.columnU8(id, 'sack.dir'), left: f64('sack.left'), right: f64('sack.right') },
    rtt: { t: f64('rtt.t'), dir: session.columnU8(id, 'rtt.dir'), rttMs: f64('rtt.rttMs'), kind: session.columnU8(id, 'rtt.kind') },
  };
}

/** Every ArrayBuffer of a ConnectionData, for postMessage's transfer list. */
export function transferables(data: ConnectionData): ArrayBuffer[] {
  const arrays = [...Object.values(data.packets), ...Object.values(data.sack), ...Object.values(data.rtt)];
  return arrays.map((a) => (a as ArrayBufferView).buffer as ArrayBuffer);
}
