// Types of ask.mjs: the reply is typed by the question's name (generated from
// wasm/src/boundary/ask.rs), so no caller casts an answer.
import type { Ask } from './generated/view';
import type { AskReply } from './generated/vocabulary';

/** What answers questions: a wasm `WasmSession` or `WasmSnapshot`. */
export interface Engine { ask(question: string): string }

export class RefusedQuestion extends Error {}
export function askText(engine: Engine, question: Ask): string;
export function ask<Q extends Ask>(engine: Engine, question: Q): AskReply[Q['ask']];
