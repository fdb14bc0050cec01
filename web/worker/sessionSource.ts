// A ViewSource over an engine session held in this thread (the wasm view engine asked
// in JSON, as the worker asks it): `tcpscope render` (web/render/node.tsx, the CLI's
// session) and the chart tests (web/charts/testEngine.ts) answer the charts this way.
import type { ViewResponse } from './generated/view';
import { packAnswer } from './viewAnswer';
import type { ViewSource } from './viewSource';

/** The engine as Node holds it: a request in JSON, its answer in JSON (wasm/src/view). */
export interface EngineSession {
  query(requestJson: string): string;
  at?(requestJson: string): string;
}

/** A ViewSource over one engine session: the questions the worker would be asked. */
export function sessionSource(session: EngineSession): ViewSource {
  const at = session.at?.bind(session);
  return {
    query: async (q) => packAnswer(JSON.parse(session.query(JSON.stringify({ ...q, generation: 1 }))) as ViewResponse).answer,
    ...(at ? {
      at: async (q) => {
        const answer = JSON.parse(at(JSON.stringify({ ...q, generation: 1 })));
        return answer.found ? answer : null;
      },
    } : {}),
  };
}
