// Test helper: the real Rust view engine (wasm/pkg, built by scripts/build-wasm.sh)
// under Node, answering the charts' questions about a public example capture — so
// chart tests check what the page draws from the engine's answers, not from a fake.
import { readFileSync } from 'node:fs';
import { initSync, WasmSession } from 'tcpscope-wasm';
import { ask } from '../worker/ask.mjs';
import type { BdpAnswer, BdpQuestion } from '../worker/generated/view';
import type { Report } from '../model/types';
import type { ViewSource } from '../worker/viewSource';
import { sessionSource } from '../worker/sessionSource';

// Vitest runs from the repository root (jsdom's import.meta.url is not a file: URL).
const root = `${process.cwd()}/`;
let ready = false;

function init() {
  if (!ready) {
    initSync({ module: readFileSync(`${root}wasm/pkg/tcpscope_core_bg.wasm`) });
    ready = true;
  }
}

/** analysis/rates/bdp.rs `calculate` through the wasm binding, synchronously. */
export function bdpCalculator(): (q: BdpQuestion) => BdpAnswer {
  init();
  const calculator = new WasmSession(Number.NaN);
  return (question) => ask(calculator, { ask: 'bdp', question });
}

export interface Engine { report: Report; source: ViewSource; session: WasmSession }

/** Analyses public/examples/`file` and returns its report and a ViewSource over it. */
export function engineFor(file: string): Engine {
  init();
  const session = new WasmSession(Number.NaN);
  session.push(readFileSync(`${root}public/examples/${file}`));
  session.finish();
  const report: Report = ask(session, { ask: 'report' });
  const source = sessionSource(session);
  return { report, source, session };
}

/** Every example capture's file name (public/examples/index.json). */
export function exampleFiles(): string[] {
  return (JSON.parse(readFileSync(`${root}public/examples/index.json`, 'utf8')) as { file: string }[]).map((e) => e.file);
}
