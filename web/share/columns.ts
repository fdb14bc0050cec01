// Compact column encoding for snapshots. Every column carries its own length (so a
// tampered snapshot whose columns disagree is caught, not read past) and an encoding
// mode:
//   DELTA: value × 10^k rounded to an integer, stored as the zigzag varint of the
//          difference to the previous value of the same group (direction), plus one;
//          0 stands for NaN. Times use k = 6 (µs, the resolution of pcap), RTTs in ms
//          k = 3 (µs); sequence/ack/window/in-flight are integers, k = 0 (exact).
//   RAW:   float64 little endian, the fallback when a column does not fit DELTA
//          (non-integer values where integers are expected, ±Infinity, > 2^50).
// Deltas per direction matter: both directions interleave in capture order, and
// their sequence numbers live in unrelated ranges.

import type { PacketColumns, SackColumns } from '../model/types';
import { ByteReader, ByteWriter, SnapshotFormatError } from './bytes';

const MODE_DELTA = 0;
const MODE_RAW = 1;
const LIMIT = 2 ** 50;

type Groups = ArrayLike<number> | null;

function fitsDelta(values: ArrayLike<number>, scale: number): boolean {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isNaN(v)) continue;
    if (!Number.isFinite(v) || Math.abs(v * scale) >= LIMIT) return false;
    // Integer columns must stay exact; scaled ones are quantized on purpose.
    if (scale === 1 && !Number.isInteger(v)) return false;
  }
  return true;
}

export function writeNumbers(w: ByteWriter, values: ArrayLike<number>, digits: number, groups: Groups = null) {
  const scale = 10 ** digits;
  w.uvarint(values.length);
  if (!fitsDelta(values, scale)) {
    w.byte(MODE_RAW);
    for (let i = 0; i < values.length; i++) w.float64(values[i]);
    return;
  }
  w.byte(MODE_DELTA);
  w.byte(digits);
  const last = new Float64Array(256);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isNaN(v)) {
      w.uvarint(0);
      continue;
    }
    const g = groups ? groups[i] : 0;
    const q = Math.round(v * scale);
    const d = q - last[g];
    w.uvarint((d >= 0 ? d * 2 : -d * 2 - 1) + 1);
    last[g] = q;
  }
}

/** Reject a length before allocating: each value takes at least one byte. */
function readCount(r: ByteReader, expected: number | null, what: string): number {
  const n = r.uvarint(`the length of ${what}`);
  if (expected !== null && n !== expected) {
    throw new SnapshotFormatError(`column ${what} has ${n} values but its table has ${expected} rows`);
  }
  if (n > r.remaining) throw new SnapshotFormatError(`column ${what} claims ${n} values, more than the data holds`);
  return n;
}

export function readNumbers(r: ByteReader, expected: number | null, what: string, groups: Groups = null): Float64Array {
  const n = readCount(r, expected, what);
  const out = new Float64Array(n);
  const mode = r.byte(what);
  if (mode === MODE_RAW) {
    for (let i = 0; i < n; i++) out[i] = r.float64(what);
    return out;
  }
  if (mode !== MODE_DELTA) throw new SnapshotFormatError(`column ${what} has an unknown encoding (${mode})`);
  const digits = r.byte(what);
  if (digits > 9) throw new SnapshotFormatError(`column ${what} has an invalid scale`);
  const scale = 10 ** digits;
  const last = new Float64Array(256);
  for (let i = 0; i < n; i++) {
    const tag = r.uvarint(what);
    if (tag === 0) {
      out[i] = NaN;
      continue;
    }
    const z = tag - 1;
    const g = groups ? groups[i] : 0;
    const q = last[g] + (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
    last[g] = q;
    out[i] = q / scale;
  }
  return out;
}

/** Unsigned 32-bit column, optionally as differences to the previous row (frame numbers). */
export function writeUints(w: ByteWriter, values: ArrayLike<number>, delta: boolean) {
  w.uvarint(values.length);
  let prev = 0;
  for (let i = 0; i < values.length; i++) {
    if (delta) w.svarint(values[i] - prev);
    else w.uvarint(values[i]);
    prev = values[i];
  }
}

export function readUints(r: ByteReader, expected: number, what: string, delta: boolean): Uint32Array {
  const n = readCount(r, expected, what);
  const out = new Uint32Array(n);
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const v = delta ? prev + r.svarint(what) : r.uvarint(what);
    if (v < 0 || v > 0xffffffff) throw new SnapshotFormatError(`column ${what} holds an out-of-range value`);
    out[i] = v;
    prev = v;
  }
  return out;
}

export function writeBytes(w: ByteWriter, values: Uint8Array) {
  w.uvarint(values.length);
  w.bytes(values);
}

export function readBytes(r: ByteReader, expected: number, what: string): Uint8Array {
  const n = readCount(r, expected, what);
  return r.bytes(n, what).slice();
}

/**
 * Rows to keep for a zoomed view: those inside [t0, t1], plus for every series the
 * nearest row before and after the range, so that lines and steps still reach the
 * edges of the plot exactly as they do on the page. A series is a `group` value
 * (direction × has-payload for packets: data segments and ACKs interleave, so the
 * neighbour in capture order is often of another series).
 */
export function rowsInRange(t: Float64Array, range: [number, number] | null, group?: (i: number) => number): Uint32Array | null {
  if (!range) return null;
  const [t0, t1] = range;
  const keep = new Uint8Array(t.length);
  const before = new Map<number, number>();
  const after = new Map<number, number>();
  for (let i = 0; i < t.length; i++) {
    const g = group ? group(i) : 0;
    if (t[i] < t0) before.set(g, i);
    else if (t[i] > t1) {
      if (!after.has(g)) after.set(g, i);
    } else keep[i] = 1;
  }
  for (const i of before.values()) keep[i] = 1;
  for (const i of after.values()) keep[i] = 1;
  const rows: number[] = [];
  for (let i = 0; i < t.length; i++) if (keep[i]) rows.push(i);
  return Uint32Array.from(rows);
}

export function pick<T extends Float64Array | Uint32Array | Uint8Array>(column: T, rows: Uint32Array | null): T {
  if (!rows) return column;
  const out = new (column.constructor as new (n: number) => T)(rows.length);
  // A column shorter than the time column reads as undefined → NaN/0 here; an
  // inconsistent ConnectionData is the caller's bug, the decoder validates anyway.
  for (let i = 0; i < rows.length; i++) out[i] = column[rows[i]];
  return out;
}

// Predictors: store what cannot be guessed from columns already written. A segment
// usually starts where the previous one of its direction ended, and bytes in flight
// are usually (highest sequence sent) − (highest ACK from the peer) (DESIGN.md,
// "Bytes in flight"); the residuals are mostly 0 and compress to almost nothing.
// Both sides run the same loop, so the decoder reconstructs the exact values.
function predictSeq(seq: Float64Array, len: Uint32Array, dir: Uint8Array, residual: boolean): Float64Array {
  const out = new Float64Array(seq.length);
  const next = new Float64Array(256);
  for (let i = 0; i < seq.length; i++) {
    const d = dir[i];
    out[i] = residual ? seq[i] - next[d] : seq[i] + next[d];
    const value = residual ? seq[i] : out[i];
    if (!Number.isNaN(value)) next[d] = value + len[i];
  }
  return out;
}

function predictInFlight(
  inFlight: Float64Array, p: Pick<PacketColumns, 'seq' | 'len' | 'ack' | 'dir'>, residual: boolean,
): Float64Array {
  const out = new Float64Array(inFlight.length);
  const highestEnd = [0, 0];
  const highestAck = [0, 0];
  for (let i = 0; i < inFlight.length; i++) {
    const d = p.dir[i] & 1;
    const end = p.seq[i] + p.len[i];
    if (end > highestEnd[d]) highestEnd[d] = end;
    const guess = highestEnd[d] - highestAck[1 - d];
    out[i] = residual ? inFlight[i] - guess : inFlight[i] + guess;
    if (p.ack[i] > highestAck[d]) highestAck[d] = p.ack[i];
  }
  return out;
}

/** Writes the rows of the range; returns them (the RTT table refers to them). */
export function writePackets(w: ByteWriter, columns: PacketColumns, range: [number, number] | null): PacketColumns {
  const rows = rowsInRange(columns.t, range, (i) => columns.dir[i] * 2 + (columns.len[i] > 0 ? 1 : 0));
  const p: PacketColumns = {
    t: pick(columns.t, rows), dir: pick(columns.dir, rows), frame: pick(columns.frame, rows),
    seq: pick(columns.seq, rows), len: pick(columns.len, rows), wireLen: pick(columns.wireLen, rows),
    ack: pick(columns.ack, rows), win: pick(columns.win, rows), inFlight: pick(columns.inFlight, rows),
    flags: pick(columns.flags, rows),
  };
  writeNumbers(w, p.t, 6);
  writeBytes(w, p.dir);
  writeUints(w, p.frame, true);
  writeUints(w, p.len, false);
  // Frame bytes minus payload is the header size: nearly constant, compresses to nothing.
  w.uvarint(p.wireLen.length);
  for (let i = 0; i < p.wireLen.length; i++) w.svarint(p.wireLen[i] - (p.len[i] ?? 0));
  // Predictors need the columns they read at full length; a short one is written as is
  // so that the decoder reports the disagreement.
  const aligned = (c: ArrayLike<number>) => c.length === p.t.length;
  const residualSeq = aligned(p.seq) && aligned(p.len) && aligned(p.dir);
  w.byte(residualSeq ? 1 : 0);
  writeNumbers(w, residualSeq ? predictSeq(p.seq, p.len, p.dir, true) : p.seq, 0, residualSeq ? null : p.dir);
  writeNumbers(w, p.ack, 0, p.dir);
  writeNumbers(w, p.win, 0, p.dir);
  const residualInFlight = residualSeq && aligned(p.ack) && aligned(p.inFlight);
  w.byte(residualInFlight ? 1 : 0);
  writeNumbers(w, residualInFlight ? predictInFlight(p.inFlight, p, true) : p.inFlight, 0, residualInFlight ? null : p.dir);
  writeUints(w, p.flags, false);
  return p;
}

export function readPackets(r: ByteReader): PacketColumns {
  const t = readNumbers(r, null, 'packets.t');
  const n = t.length;
  const dir = readBytes(r, n, 'packets.dir');
  const frame = readUints(r, n, 'packets.frame', true);
  const len = readUints(r, n, 'packets.len', false);
  readCount(r, n, 'packets.wireLen');
  const wireLen = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const v = len[i] + r.svarint('packets.wireLen');
    if (v < 0 || v > 0xffffffff) throw new SnapshotFormatError('column packets.wireLen holds an out-of-range value');
    wireLen[i] = v;
  }
  const residualSeq = r.byte('packets.seq') === 1;
  const seqStored = readNumbers(r, n, 'packets.seq', residualSeq ? null : dir);
  const seq = residualSeq ? predictSeq(seqStored, len, dir, false) : seqStored;
  const ack = readNumbers(r, n, 'packets.ack', dir);
  const win = readNumbers(r, n, 'packets.win', dir);
  const residualInFlight = r.byte('packets.inFlight') === 1;
  const inFlightStored = readNumbers(r, n, 'packets.inFlight', residualInFlight ? null : dir);
  const inFlight = residualInFlight ? predictInFlight(inFlightStored, { seq, len, ack, dir }, false) : inFlightStored;
  const flags = readUints(r, n, 'packets.flags', false);
  return { t, dir, frame, seq, len, wireLen, ack, win, inFlight, flags };
}

export function writeSack(w: ByteWriter, s: SackColumns, range: [number, number] | null) {
  const rows = rowsInRange(s.t, range, (i) => s.dir[i]);
  const dir = pick(s.dir, rows);
  writeNumbers(w, pick(s.t, rows), 6);
  writeBytes(w, dir);
  writeNumbers(w, pick(s.left, rows), 0, dir);
  writeNumbers(w, pick(s.right, rows), 0, dir);
}

export function readSack(r: ByteReader): SackColumns {
  const t = readNumbers(r, null, 'sack.t');
  const dir = readBytes(r, t.length, 'sack.dir');
  const left = readNumbers(r, t.length, 'sack.left', dir);
  const right = readNumbers(r, t.length, 'sack.right', dir);
  return { t, dir, left, right };
}
