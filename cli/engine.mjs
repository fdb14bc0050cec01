// A capture or a share link opened as the view engine the charts ask: shared by
// `tcpscope series` (cli/series.mjs) and `tcpscope render` (cli/render.mjs).
import { loadWasm, openCapture, pushStream } from './wasm.mjs';
import { inputProblem, isSnapshotSource, openSnapshot } from './share.mjs';
import { escapeUnsafe } from './outsideText.mjs';
import { ask } from '../web/worker/ask.mjs';

/** Why the engine could not be opened, with the exit status it warrants (1 input that cannot be read or is damaged, 2 usage). */
export class EngineError extends Error {
  constructor(message, exitCode) {
    super(message);
    this.exitCode = exitCode;
  }
}

/**
 * Opens `source` (a capture file, `-`, a share link or a file holding one) and returns
 * `{ session, report, snapshot }`: the session answers the engine's one question
 * (`ask`, web/worker/ask.mjs) exactly as the browser worker asks it (a link refuses
 * what it does not hold). Call `session.free()` when done.
 */
export async function openEngine(source) {
  const snapshot = isSnapshotSource(source);
  const problem = snapshot ? null : inputProblem(source);
  if (problem) throw new EngineError(problem.message, problem.exitCode);
  const loaded = await loadWasm();
  if (!loaded || typeof loaded.wasm.WasmSession?.prototype?.ask !== 'function') {
    throw new EngineError('the wasm module is not built (or predates `series`); run `npm run build:wasm` first', 2);
  }
  const { wasm } = loaded;
  let session;
  try {
    // A share link answers the same questions from what it holds (cli/share.mjs).
    session = snapshot ? openSnapshot(wasm, source) : new wasm.WasmSession(Number.NaN);
  } catch (e) {
    throw new EngineError(escapeUnsafe(e.message), 1);
  }
  try {
    if (!snapshot) {
      await pushStream(session, await openCapture(source));
      session.finish();
    }
    const report = ask(session, { ask: 'report' });
    return { session, report, snapshot };
  } catch (e) {
    session.free();
    // A read error of the capture: one line, never a stack trace.
    if (e?.code) throw new EngineError(`cannot read '${escapeUnsafe(source)}': ${escapeUnsafe(e.message)}`, 1);
    throw e;
  }
}

/** Connection `id` of `report`, or an EngineError naming the ids there are. */
export function connectionOf(report, id, source) {
  const conn = report.connections.find((c) => c.id === id);
  if (conn) return conn;
  const ids = report.connections.map((c) => c.id);
  throw new EngineError(`no connection ${id} in ${escapeUnsafe(source)} (connections: ${ids.length ? `${ids[0]}..${ids[ids.length - 1]}` : 'none'})`, 2);
}
