// The view answer as charts receive it: the engine's JSON (wasm/src/view/response.rs,
// types generated in ./generated/view.ts) with the per-column arrays as typed arrays,
// so the worker can transfer them to the page instead of copying (issue 14, item 3).
// Intervals stay plain objects: there are at most intervals::cap of them. The worker
// gets the arrays already packed from wasm (unpackAnswer); packAnswer is the JSON
// path's equivalent (charts' tests over the JSON answer).
import type { Bins, Intervals, Markers, Points, ViewResponse, WifiBins } from './generated/view';

/** Everything in a ViewResponse except its data. */
export type ViewHeader = Pick<ViewResponse,
  'schemaVersion' | 'generation' | 'connection' | 'series' | 'direction' | 't0' | 't1' | 'columns'
  | 'binSeconds' | 'stallThresholdMs' | 'clamped' | 'notes' | 'error' | 'errorBound'>;

export type PackedBins = Omit<Bins, 'bytes' | 'bps' | 'averageBps'> & {
  bytes: Float64Array;
  bps: Float64Array;
  /** NaN where the engine said null (no bin of the series within reach). */
  averageBps: Float64Array;
};

export type PackedMarkers = Omit<Markers, 't' | 'v' | 'flags' | 'frame' | 'count'> & {
  t: Float64Array; v: Float64Array; flags: Uint32Array; frame: Uint32Array; count: Uint32Array;
};

export type PackedPoints = Omit<Points, 'column' | 'count' | 'tFirst' | 'first' | 'tLast' | 'last' | 'min' | 'max' | 'markers'> & {
  column: Uint32Array; count: Uint32Array;
  tFirst: Float64Array; first: Float64Array; tLast: Float64Array; last: Float64Array;
  min: Float64Array; max: Float64Array;
  markers: PackedMarkers | null;
};

/** The Wi-Fi strip's bins (wasm/src/analysis/capture/radio.rs); NaN where the engine said null. */
export type PackedWifi = Omit<WifiBins, 'frames' | 'phyRateMbps' | 'retryShare'> & {
  frames: Uint32Array; phyRateMbps: Float64Array; retryShare: Float64Array;
};

export type ViewAnswer = ViewHeader & (
  | { kind: 'none' }
  | ({ kind: 'bins' } & PackedBins)
  | ({ kind: 'points' } & PackedPoints)
  | ({ kind: 'intervals' } & Intervals)
  | ({ kind: 'wifi' } & PackedWifi)
);

const f64 = (a: ArrayLike<number | null>) => Float64Array.from(a as ArrayLike<number>, (v) => (v == null ? NaN : v));

/** The answer with its arrays packed, and the buffers to transfer. */
export function packAnswer(r: ViewResponse): { answer: ViewAnswer; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const keep = <T extends Float64Array | Uint32Array>(a: T): T => { transfer.push(a.buffer as ArrayBuffer); return a; };
  const header: ViewHeader = {
    schemaVersion: r.schemaVersion, generation: r.generation, connection: r.connection, series: r.series,
    direction: r.direction, t0: r.t0, t1: r.t1, columns: r.columns, binSeconds: r.binSeconds,
    stallThresholdMs: r.stallThresholdMs, clamped: r.clamped, notes: r.notes, error: r.error,
    // Older engines and share links' answers lack it.
    errorBound: r.errorBound ?? null,
  };
  switch (r.kind) {
    case 'bins':
      return {
        answer: { ...header, kind: 'bins', start: r.start, averageBins: r.averageBins, bytes: keep(f64(r.bytes)), bps: keep(f64(r.bps)), averageBps: keep(f64(r.averageBps)) },
        transfer,
      };
    case 'points': {
      const m = r.markers;
      const markers: PackedMarkers | null = m
        ? { t: keep(f64(m.t)), v: keep(f64(m.v)), flags: keep(Uint32Array.from(m.flags)), frame: keep(Uint32Array.from(m.frame)), count: keep(Uint32Array.from(m.count)) }
        : null;
      return {
        answer: {
          ...header, kind: 'points', before: r.before, after: r.after, total: r.total, markers,
          column: keep(Uint32Array.from(r.column)), count: keep(Uint32Array.from(r.count)),
          tFirst: keep(f64(r.tFirst)), first: keep(f64(r.first)), tLast: keep(f64(r.tLast)), last: keep(f64(r.last)),
          min: keep(f64(r.min)), max: keep(f64(r.max)),
        },
        transfer,
      };
    }
    case 'intervals':
      return { answer: { ...header, kind: 'intervals', intervals: r.intervals, more: r.more, coverage: r.coverage, totalSeconds: r.totalSeconds, activeSeconds: r.activeSeconds }, transfer };
    case 'wifi':
      return {
        answer: { ...header, kind: 'wifi', start: r.start, frames: keep(Uint32Array.from(r.frames)), phyRateMbps: keep(f64(r.phyRateMbps)), retryShare: keep(f64(r.retryShare)) },
        transfer,
      };
    default:
      return { answer: { ...header, kind: 'none' }, transfer };
  }
}

/**
 * The answer from the engine's packed form (wasm/src/view/packed.rs documents the
 * layout): the header parsed, the arrays as views of the two buffers, which are
 * then transferred whole — no per-number work in the worker.
 */
export function unpackAnswer(headerJson: string, f64s: Float64Array, u32s: Uint32Array): { answer: ViewAnswer; transfer: ArrayBuffer[] } {
  const r = JSON.parse(headerJson) as ViewResponse | { refused: string };
  // A question the engine did not take (wasm/src/boundary/ask.rs `Refused`).
  if ('refused' in r) return { answer: failedAnswer(r.refused), transfer: [] };
  const transfer = [f64s.buffer as ArrayBuffer, u32s.buffer as ArrayBuffer];
  const header: ViewHeader = {
    schemaVersion: r.schemaVersion, generation: r.generation, connection: r.connection, series: r.series,
    direction: r.direction, t0: r.t0, t1: r.t1, columns: r.columns, binSeconds: r.binSeconds,
    stallThresholdMs: r.stallThresholdMs, clamped: r.clamped, notes: r.notes, error: r.error,
    // Older engines and share links' answers lack it.
    errorBound: r.errorBound ?? null,
  };
  let f = 0;
  let u = 0;
  const nextF = (n: number) => f64s.subarray(f, (f += n));
  const nextU = (n: number) => u32s.subarray(u, (u += n));
  switch (r.kind) {
    case 'bins': {
      const [n] = nextU(1);
      return { answer: { ...header, kind: 'bins', start: r.start, averageBins: r.averageBins, bytes: nextF(n), bps: nextF(n), averageBps: nextF(n) }, transfer };
    }
    case 'points': {
      const [n, m] = nextU(2);
      const column = nextU(n), count = nextU(n), flags = nextU(m), frame = nextU(m), markerCount = nextU(m);
      const tFirst = nextF(n), first = nextF(n), tLast = nextF(n), last = nextF(n), min = nextF(n), max = nextF(n);
      const markers: PackedMarkers | null = r.markers ? { t: nextF(m), v: nextF(m), flags, frame, count: markerCount } : null;
      return {
        answer: { ...header, kind: 'points', before: r.before, after: r.after, total: r.total, markers, column, count, tFirst, first, tLast, last, min, max },
        transfer,
      };
    }
    default:
      return packAnswer(r);
  }
}

/** An answer saying why nothing could be drawn (a worker failure, a refused schema). */
export function failedAnswer(error: string): ViewAnswer {
  return {
    schemaVersion: 0, generation: 0, connection: 0, series: 'throughput', direction: 0, t0: 0, t1: 0, columns: 0,
    binSeconds: null, stallThresholdMs: null, clamped: [], notes: [], error, errorBound: null, kind: 'none',
  };
}
