// RTT samples by reference. Every sample measures the time between two packets of the
// connection — a data segment and the ACK that first covers it, or a segment and the
// echo of its TCP timestamp (DESIGN.md, "RTT samples") — and is dated at the later one.
// So instead of a time and a duration, a sample is stored as two row numbers of the
// packet table: the answering packet (as the difference to the previous sample's, a
// small number) and the measured packet, as the difference to a guess (the segment of
// the other direction whose end equals the answer's ACK number; usually exact, so 0).
// Both values are then recovered from the packet times at µs resolution. A sample
// that does not match packet times (a view cut to a zoom range, odd captures) is
// stored explicitly. Halves the size of a typical snapshot: RTT samples were most of it.

import type { PacketColumns, RttColumns } from '../model/types';
import { ByteReader, ByteWriter, SnapshotFormatError } from './bytes';
import { pick, readBytes, readNumbers, rowsInRange, writeBytes, writeNumbers } from './columns';

/** Within this many µs, a packet-time difference reproduces the sample. */
const TOLERANCE_US = 1;

interface PacketIndex {
  q: Float64Array;
  firstRowAt: Map<number, number>;
  /** Per direction: end sequence number (seq + len) → last row of a segment ending there. */
  rowEndingAt: [Map<number, number>, Map<number, number>];
}

function indexPackets(p: Pick<PacketColumns, 't' | 'dir' | 'seq' | 'len'>): PacketIndex {
  const q = new Float64Array(p.t.length);
  const firstRowAt = new Map<number, number>();
  const rowEndingAt: PacketIndex['rowEndingAt'] = [new Map(), new Map()];
  for (let i = 0; i < p.t.length; i++) {
    q[i] = Math.round(p.t[i] * 1e6);
    if (!firstRowAt.has(q[i])) firstRowAt.set(q[i], i);
    if (p.len[i] > 0) rowEndingAt[p.dir[i] & 1].set(p.seq[i] + p.len[i], i);
  }
  return { q, firstRowAt, rowEndingAt };
}

function guessRow(index: PacketIndex, ack: ArrayLike<number>, answer: number, dir: number): number {
  return index.rowEndingAt[dir & 1].get(ack[answer]) ?? answer;
}

/** The answering row for a sample at time `qt` (prefer the direction opposite to `dir`). */
function answerRow(index: PacketIndex, p: Pick<PacketColumns, 'dir'>, qt: number, dir: number): number | undefined {
  const first = index.firstRowAt.get(qt);
  if (first === undefined) return undefined;
  for (let i = first; i < index.q.length && index.q[i] === qt; i++) if (p.dir[i] !== dir) return i;
  return first;
}

function measuredRow(index: PacketIndex, answer: number, guess: number, rttUs: number): number | undefined {
  const qa = index.q[answer];
  const fits = (r: number | undefined) => r !== undefined && r >= 0 && Math.abs(qa - index.q[r] - rttUs) <= TOLERANCE_US;
  if (fits(guess)) return guess;
  const target = qa - Math.round(rttUs);
  for (const qt of [target, target - 1, target + 1]) {
    const r = index.firstRowAt.get(qt);
    if (fits(r)) return r;
  }
  return undefined;
}

export function writeRttByReference(w: ByteWriter, rtt: RttColumns, p: PacketColumns) {
  const index = indexPackets(p);
  const n = rtt.t.length;
  const tags: number[] = [];
  const residuals: number[] = [];
  const explicitT: number[] = [];
  const explicitMs: number[] = [];
  let previous = 0;
  for (let i = 0; i < n; i++) {
    const rttUs = rtt.rttMs[i] * 1000;
    const answer = Number.isFinite(rttUs) ? answerRow(index, p, Math.round(rtt.t[i] * 1e6), rtt.dir[i]) : undefined;
    const guess = answer === undefined ? 0 : guessRow(index, p.ack, answer, rtt.dir[i]);
    const measured = answer === undefined ? undefined : measuredRow(index, answer, guess, rttUs);
    if (answer === undefined || measured === undefined) {
      tags.push(0);
      explicitT.push(rtt.t[i]);
      explicitMs.push(rtt.rttMs[i]);
      continue;
    }
    const step = answer - previous;
    tags.push((step >= 0 ? step * 2 : -step * 2 - 1) + 1);
    residuals.push(guess - measured);
    previous = answer;
  }
  w.uvarint(n);
  for (const tag of tags) w.uvarint(tag);
  for (const r of residuals) w.svarint(r);
  writeNumbers(w, explicitT, 6);
  writeNumbers(w, explicitMs, 3);
  writeBytes(w, rtt.dir);
  writeBytes(w, rtt.kind);
}

export function readRttByReference(r: ByteReader, p: PacketColumns): RttColumns {
  const n = r.uvarint('the length of rtt');
  if (n > r.remaining) throw new SnapshotFormatError(`column rtt claims ${n} values, more than the data holds`);
  const tags = new Float64Array(n);
  let matched = 0;
  for (let i = 0; i < n; i++) {
    tags[i] = r.uvarint('rtt');
    if (tags[i] !== 0) matched++;
  }
  const residuals = new Float64Array(matched);
  for (let i = 0; i < matched; i++) residuals[i] = r.svarint('rtt');
  const explicitT = readNumbers(r, n - matched, 'rtt.t');
  const explicitMs = readNumbers(r, n - matched, 'rtt.rttMs');
  const dir = readBytes(r, n, 'rtt.dir');
  const kind = readBytes(r, n, 'rtt.kind');

  const index = indexPackets(p);
  const t = new Float64Array(n);
  const rttMs = new Float64Array(n);
  let previous = 0, m = 0, e = 0;
  for (let i = 0; i < n; i++) {
    if (tags[i] === 0) {
      t[i] = explicitT[e];
      rttMs[i] = explicitMs[e++];
      continue;
    }
    const z = tags[i] - 1;
    const answer = previous + (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
    const measured = guessRow(index, p.ack, answer, dir[i]) - residuals[m++];
    if (!(answer >= 0 && answer < p.t.length && measured >= 0 && measured < p.t.length)) {
      throw new SnapshotFormatError('an RTT sample refers to a packet that is not in the snapshot');
    }
    t[i] = p.t[answer];
    rttMs[i] = (index.q[answer] - index.q[measured]) / 1000;
    previous = answer;
  }
  return { t, dir, rttMs, kind };
}

/** The RTT samples of the zoom range (and a neighbour each side per series), by reference to `p`. */
export function writeRtt(w: ByteWriter, rtt: RttColumns, p: PacketColumns, range: [number, number] | null) {
  const rows = rowsInRange(rtt.t, range, (i) => rtt.dir[i] * 256 + rtt.kind[i]);
  writeRttByReference(w, { t: pick(rtt.t, rows), dir: pick(rtt.dir, rows), rttMs: pick(rtt.rttMs, rows), kind: pick(rtt.kind, rows) }, p);
}
