// The view answer as charts receive it: the engine's JSON (wasm/src/view/response.rs,
// types generated in ./generated/view.ts) with the per-column arrays as typed arrays,
// so the worker can transfer them to the page instead of copying (issue 14, item 3).
// Intervals stay plain objects: there are at most intervals::cap of them. The worker
// gets the arrays already packed from wasm (unpackAnswer); packAnswer is the JSON
// path's equivalent (charts' tests over the JSON answer).
import type { Bins, Intervals, Markers, Points, ViewResponse, WifiBins } from './generated/view';
import { PACKED_LAYOUT } from './generated/vocabulary';

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

type LayoutArray = { path: string; element: 'f64' | 'u32'; length: 'n' | 'm' };
type Layout = { lengths: readonly ('n' | 'm')[]; arrays: readonly LayoutArray[] };

/** The packed layout of an answer kind (generated from wasm/src/view/packed.rs), if it has arrays. */
const layoutOf = (kind: string): Layout | undefined => (PACKED_LAYOUT as Record<string, Layout>)[kind];

/**
 * The answer with each array of its kind's layout put in by `arrayAt`, in the layout's
 * order: `markers.*` into the markers object, only when the answer has markers.
 */
function withArrays(r: ViewResponse, layout: Layout, arrayAt: (a: LayoutArray) => Float64Array | Uint32Array): ViewAnswer {
  // Older engines and share links' answers lack errorBound.
  const out: Record<string, unknown> = { ...r, errorBound: r.errorBound ?? null };
  if ('markers' in r && r.markers) out.markers = { ...r.markers };
  for (const a of layout.arrays) {
    const array = arrayAt(a);
    const [object, field] = a.path.split('.');
    if (field === undefined) out[object] = array;
    else if (out[object]) (out[object] as Record<string, unknown>)[field] = array;
  }
  // The one place the layout's paths meet the types: the generated layout names every
  // array of PackedBins / PackedPoints (tests/view_packed.rs reads the JSON answer back by it).
  return out as unknown as ViewAnswer;
}

/** The answer with its arrays packed, and the buffers to transfer (the JSON path:
 *  `tcpscope render`, the chart tests, share links' answers). */
export function packAnswer(r: ViewResponse): { answer: ViewAnswer; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const keep = <T extends Float64Array | Uint32Array>(a: T): T => { transfer.push(a.buffer as ArrayBuffer); return a; };
  const layout = layoutOf(r.kind);
  if (layout) {
    const valuesAt = (path: string): ArrayLike<number | null> => {
      const [object, field] = path.split('.');
      const holder = (field === undefined ? r : (r as unknown as Record<string, unknown>)[object]) as Record<string, unknown> | null;
      return (holder?.[field ?? object] ?? []) as ArrayLike<number | null>;
    };
    const answer = withArrays(r, layout, (a) => keep(a.element === 'f64' ? f64(valuesAt(a.path)) : Uint32Array.from(valuesAt(a.path) as ArrayLike<number>)));
    return { answer, transfer };
  }
  if (r.kind === 'wifi') {
    // The Wi-Fi strip's few bins travel in the JSON header (not packed).
    return {
      answer: { ...r, errorBound: r.errorBound ?? null, frames: keep(Uint32Array.from(r.frames)), phyRateMbps: keep(f64(r.phyRateMbps)), retryShare: keep(f64(r.retryShare)) },
      transfer,
    };
  }
  return { answer: { ...r, errorBound: r.errorBound ?? null } as ViewAnswer, transfer };
}

/**
 * The answer from the engine's packed form (the layout: generated PACKED_LAYOUT, from
 * wasm/src/view/packed.rs): the header parsed, the arrays as views of the two buffers,
 * which are then transferred whole — no per-number work in the worker.
 */
export function unpackAnswer(headerJson: string, f64s: Float64Array, u32s: Uint32Array): { answer: ViewAnswer; transfer: ArrayBuffer[] } {
  const r = JSON.parse(headerJson) as ViewResponse | { refused: string };
  // A question the engine did not take (wasm/src/boundary/ask.rs `Refused`).
  if ('refused' in r) return { answer: failedAnswer(r.refused), transfer: [] };
  const layout = layoutOf(r.kind);
  if (!layout) return packAnswer(r);
  const lengths = { n: 0, m: 0 };
  layout.lengths.forEach((l, i) => { lengths[l] = u32s[i]; });
  let f = 0;
  let u = layout.lengths.length;
  const answer = withArrays(r, layout, (a) => (a.element === 'f64'
    ? f64s.subarray(f, (f += lengths[a.length]))
    : u32s.subarray(u, (u += lengths[a.length]))));
  return { answer, transfer: [f64s.buffer as ArrayBuffer, u32s.buffer as ArrayBuffer] };
}

/** An answer saying why nothing could be drawn (a worker failure, a refused schema). */
export function failedAnswer(error: string): ViewAnswer {
  return {
    schemaVersion: 0, generation: 0, connection: 0, series: 'throughput', direction: 0, t0: 0, t1: 0, columns: 0,
    binSeconds: null, stallThresholdMs: null, clamped: [], notes: [], error, errorBound: null, kind: 'none',
  };
}
