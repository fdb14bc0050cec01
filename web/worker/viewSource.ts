// The chart-data interface (issue 14): a chart asks one question — series, direction,
// time range, pixel columns — and draws the answer. Everything a chart reads as a
// number comes from the answer, computed by the Rust view engine (wasm/src/view).
//
// Implementations: the worker client (client.ts, `DecoderClient.viewSource()`, bound
// to one capture generation) and, for shared snapshots, web/share/legacyViewSource.ts
// (a temporary bridge, removed by issue 15 when snapshots hold view answers).
import type { Series, ViewAt, ViewRequest } from './generated/view';
import type { ViewAnswer } from './viewAnswer';

/** A view request without the capture generation: the source stamps its own. */
export type ViewQuery = Omit<ViewRequest, 'generation'>;

/** The value under the pointer, for tooltips (wasm/src/view/at.rs). */
export interface ViewAtQuery { connection: number; series: Series; direction?: number; t: number; binSeconds?: number; stallThresholdMs?: number }

export interface ViewSource {
  /** Answers a pixel-sized question. Rejects with `StaleAnswer` when the capture it was asked about is gone. */
  query(request: ViewQuery): Promise<ViewAnswer>;
  /** Exact value at time t (nearest point, the bin or the interval under the pointer); null without one. */
  at?(request: ViewAtQuery): Promise<ViewAt | null>;
}

/** What the engine says is under the pointer (wasm/src/view/at.rs `ViewAt`). */
export type { ViewAt };

/** The answer belonged to a capture that has since been replaced: drop it. */
export class StaleAnswer extends Error {
  constructor() { super('stale answer: another capture was opened'); }
}
