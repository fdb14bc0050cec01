// A ViewSource over an engine session held in this thread (the wasm engine asked its
// one question, `ask`, as the worker asks it): `tcpscope render` (web/render/node.tsx,
// the CLI's session) and the chart tests (web/charts/testEngine.ts) answer the charts
// this way.
import { ask, RefusedQuestion, type Engine } from './ask.mjs';
import { packAnswer } from './viewAnswer';
import type { ViewSource } from './viewSource';

export type { Engine };

/** A ViewSource over one engine session: the questions the worker would be asked. */
export function sessionSource(engine: Engine): ViewSource {
  return {
    query: async (q) => packAnswer(ask(engine, { ask: 'view', request: { ...q, generation: 1 } })).answer,
    at: async (q) => {
      try {
        const answer = ask(engine, { ask: 'at', request: { ...q, generation: 1 } });
        return answer.found ? answer : null;
      } catch (e) {
        // A share link holds no per-point lookup: nothing under the pointer.
        if (e instanceof RefusedQuestion) return null;
        throw e;
      }
    },
  };
}
