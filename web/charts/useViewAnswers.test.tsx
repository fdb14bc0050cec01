// @vitest-environment jsdom
// At most one batch of questions per chart in flight; the latest question wins.
import { describe, expect, it } from 'vitest';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { useViewAnswers } from './useViewAnswers';
import { failedAnswer } from '../worker/viewAnswer';
import { StaleAnswer, type ViewQuery, type ViewSource } from '../worker/viewSource';
import './testUtil';

function controlledSource() {
  const asked: ViewQuery[] = [];
  const pending: (() => void)[] = [];
  const source: ViewSource = {
    query: (q) => {
      asked.push(q);
      return new Promise((resolve) => pending.push(() => resolve({ ...failedAnswer(''), error: null, t0: q.t0 })));
    },
  };
  return { source, asked, answerNext: async () => act(async () => { pending.shift()?.(); }) };
}

const q = (t0: number): ViewQuery => ({ connection: 0, series: 'throughput', t0, t1: t0 + 1, columns: 100 });

describe('useViewAnswers', () => {
  it('asks only the latest of the questions made while one is answered', async () => {
    const { source, asked, answerNext } = controlledSource();
    let seen: number | null = null;
    function Probe({ t0 }: { t0: number }) {
      const { answers } = useViewAnswers(source, [q(t0)]);
      seen = answers[0]?.t0 ?? null;
      return null;
    }
    const host = document.createElement('div');
    const root = createRoot(host);
    await act(async () => root.render(<Probe t0={1} />));
    for (const t0 of [2, 3, 4]) await act(async () => root.render(<Probe t0={t0} />));
    expect(asked.map((a) => a.t0)).toEqual([1]); // 2, 3, 4 wait; only 4 will be asked
    await answerNext();
    expect(asked.map((a) => a.t0)).toEqual([1, 4]);
    expect(seen).toBe(1);
    await answerNext();
    expect(seen).toBe(4);
    await act(async () => root.unmount());
  });

  it('a stale answer (another capture was opened) is dropped, not shown as a failure', async () => {
    const source: ViewSource = { query: () => Promise.reject(new StaleAnswer()) };
    let failure: string | null = 'unset';
    function Probe() {
      failure = useViewAnswers(source, [q(0)]).failure;
      return null;
    }
    const root = createRoot(document.createElement('div'));
    await act(async () => root.render(<Probe />));
    expect(failure).toBeNull();
    await act(async () => root.unmount());
  });
});
