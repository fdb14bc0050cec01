// Test helper: the real Rust view engine (wasm/pkg, built by scripts/build-wasm.sh)
// under Node, answering the charts' questions about a public example capture — so
// chart tests check what the page draws from the engine's answers, not from a fake.
import { readFileSync } from 'node:fs';
import { initSync, viewAt, viewQuery, WasmSession } from 'tcpscope-wasm';
import type { Report } from '../model/types';
import type { ViewResponse } from '../worker/generated/view';
import { packAnswer } from '../worker/viewAnswer';
import type { ViewSource } from '../worker/viewSource';

// Vitest runs from the repository root (jsdom's import.meta.url is not a file: URL).
const root = `${process.cwd()}/`;
let ready = false;

export interface Engine { report: Report; source: ViewSource; session: WasmSession }

/** Analyses public/examples/`file` and returns its report and a ViewSource over it. */
export function engineFor(file: string): Engine {
  if (!ready) {
    initSync({ module: readFileSync(`${root}wasm/pkg/tcpscope_core_bg.wasm`) });
    ready = true;
  }
  const session = new WasmSession(Number.NaN);
  session.push(readFileSync(`${root}public/examples/${file}`));
  session.finish();
  const report = JSON.parse(session.reportJson()) as Report;
  const source: ViewSource = {
    query: async (q) => packAnswer(JSON.parse(viewQuery(session, JSON.stringify({ ...q, generation: 1 }))) as ViewResponse).answer,
    at: async (q) => {
      const a = JSON.parse(viewAt(session, JSON.stringify({ ...q, generation: 1 })));
      return a.found ? a : null;
    },
  };
  return { report, source, session };
}

/** Every example capture's file name (public/examples/index.json). */
export function exampleFiles(): string[] {
  return (JSON.parse(readFileSync(`${root}public/examples/index.json`, 'utf8')) as { file: string }[]).map((e) => e.file);
}
