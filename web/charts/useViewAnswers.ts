// The one way a chart gets its data: it asks its ViewSource (web/worker/viewSource.ts)
// pixel-sized questions and keeps the latest answers. At most one batch of questions
// per chart is in flight; while it runs, newer questions replace each other and only
// the latest is asked next (zoom and pan fire faster than answers come back).
import { useEffect, useRef, useState } from 'react';
import { CancelledError } from '../worker/client';
import { StaleAnswer, type ViewQuery, type ViewSource } from '../worker/viewSource';
import type { ViewAnswer } from '../worker/viewAnswer';
import { MARGIN, type ChartView } from './frame';

export type Dir = 0 | 1;
export const peerOf = (d: Dir): Dir => (d === 0 ? 1 : 0);

/** Pixel columns of a chart's plot: what every question asks for. */
export const plotColumns = (view: ChartView) => Math.max(1, Math.round(view.width - MARGIN.left - MARGIN.right));

/** The answer was for a capture that is gone, or the load was cancelled: not an error. */
export const isDropped = (e: unknown) => e instanceof StaleAnswer || e instanceof CancelledError;

export interface Answers {
  /** One per question, in order; null until the first answer. */
  answers: (ViewAnswer | null)[];
  /** Why the source failed (the worker died, a bug), shown in the chart's box. */
  failure: string | null;
}

export function useViewAnswers(source: ViewSource, queries: ViewQuery[]): Answers {
  const key = JSON.stringify(queries);
  const [state, setState] = useState<Answers & { source: ViewSource | null }>({ answers: [], failure: null, source: null });
  const flight = useRef<{ busy: boolean; next: { source: ViewSource; queries: ViewQuery[] } | null }>({ busy: false, next: null });
  const alive = useRef(true);
  useEffect(() => () => { alive.current = false; }, []);

  useEffect(() => {
    const f = flight.current;
    f.next = { source, queries };
    if (f.busy) return; // asked when the running batch is back
    const run = () => {
      const job = f.next;
      f.next = null;
      if (!job) { f.busy = false; return; }
      f.busy = true;
      Promise.all(job.queries.map((q) => job.source.query(q))).then(
        (answers) => { if (alive.current) setState({ answers, failure: null, source: job.source }); },
        (error) => {
          if (alive.current && !isDropped(error)) setState({ answers: [], failure: error instanceof Error ? error.message : String(error), source: job.source });
        },
      ).finally(run);
    };
    run();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [source, key]);
  // Answers of another source (another capture) are never shown.
  return state.source === source ? state : { answers: queries.map(() => null), failure: null };
}

/** Every `clamped` sentence and error of the answers, once each. */
export function clampedSentences(answers: (ViewAnswer | null)[]): string[] {
  const out = new Set<string>();
  for (const a of answers) {
    for (const s of a?.clamped ?? []) out.add(s);
    if (a?.error) out.add(a.error);
  }
  return [...out];
}

/**
 * Tells the stack once the chart has drawn its first complete answer (or knows it
 * cannot draw): the app's data-state="ready" means the charts are on screen.
 */
export function useDrawnSignal({ answers, failure }: Answers, onDrawn: (() => void) | undefined) {
  const complete = failure !== null || (answers.length > 0 && answers.every((a) => a !== null));
  useEffect(() => {
    if (complete) onDrawn?.();
  }, [complete, onDrawn]);
}
