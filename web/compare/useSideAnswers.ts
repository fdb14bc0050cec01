// The answers of both sides of a compare chart: each side asks its own source (one
// worker per capture) and the chart draws once both have answered.
import { useMemo } from 'react';
import type { ViewQuery } from '../worker/viewSource';
import { useDrawnSignal, useViewAnswers, type Answers } from '../charts/useViewAnswers';
import type { CompareSide } from './sides';

export interface SideAnswers {
  /** Per side, its answers in the order of its questions. */
  sides: [Answers, Answers];
  /** The first failure of either side. */
  failure: string | null;
}

export function useSideAnswers(
  sides: readonly [CompareSide, CompareSide], questions: (side: CompareSide) => ViewQuery[], key: string, onDrawn?: () => void,
): SideAnswers {
  const [a, b] = sides;
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const qa = useMemo(() => questions(a), [a, key]);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const qb = useMemo(() => questions(b), [b, key]);
  const answersA = useViewAnswers(a.source, qa);
  const answersB = useViewAnswers(b.source, qb);
  const failure = answersA.failure ?? answersB.failure;
  useDrawnSignal({ answers: [...answersA.answers, ...answersB.answers], failure }, onDrawn);
  return { sides: [answersA, answersB], failure };
}
