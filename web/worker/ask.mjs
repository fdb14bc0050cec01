// The one way anything in JavaScript asks the engine (issue 40, item 1): a question
// (`Ask`, wasm/src/boundary/ask.rs) in, its reply out, parsed once here — the worker,
// the CLI and the renderer's tests call this, never the JSON themselves. The reply's
// type is the question's (`AskReply` in generated/vocabulary.ts; ask.d.mts). Plain
// JavaScript so that the CLI runs it without a build, as it runs web/model/format.mjs.

/** A question the engine did not answer (it does not parse, or this kind of session
 *  cannot answer it): the engine's reason is the message. */
export class RefusedQuestion extends Error {
  constructor(why) {
    super(why);
    this.name = 'RefusedQuestion';
  }
}

/** The engine's reply text to `question` (a session's `ask`), not parsed: the CLI
 *  writes report and row lines as the engine wrote them. Throws RefusedQuestion. */
export function askText(engine, question) {
  const text = engine.ask(JSON.stringify(question));
  // A refusal is the only reply that starts so (boundary/ask.rs `Refused`).
  if (text.startsWith('{"refused":')) throw new RefusedQuestion(JSON.parse(text).refused);
  return text;
}

/** The engine's reply to `question`, parsed. Throws RefusedQuestion. */
export function ask(engine, question) {
  return JSON.parse(askText(engine, question));
}
