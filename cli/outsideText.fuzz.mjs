// Fuzzing the one sanitizer (cli/outsideText.mjs; issue 45): random strings — UTF-16 units
// from the whole range, lone surrogates, controls, bidi, astral characters — through
// outsideText / escapeUnsafe / isolated / jsonSafe, checking on each that the output
// holds no character a terminal or XML acts on, is well-formed UTF-16, is within the cap,
// and that sanitizing twice changes nothing (idempotent: the client and a component may
// both pass a name through it). It is JavaScript, so libFuzzer does not reach it; this is
// its fuzzer (a seeded generator, reproducible by seed).
//
//   node cli/outsideText.fuzz.mjs [RUNS] [SEED]     (default 10 000 000 runs)
import { escapeUnsafe, isolated, jsonSafe, outsideText } from './outsideText.mjs';

const runs = Number(process.argv[2] ?? 10_000_000);
let seed = Number(process.argv[3] ?? 45) >>> 0;
const next = () => {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>>= 0) / 2 ** 32;
};
const INTERESTING = [0x00, 0x07, 0x08, 0x0a, 0x0d, 0x1b, 0x7f, 0x85, 0x9b, 0x9d, 0x200b, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069, 0x2028, 0x2029, 0xfeff, 0xfffe, 0xffff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0x5d0, 0x627, 0x5c];
// eslint-disable-next-line no-control-regex
const UNSAFE_OUT = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2065\u206a-\u206f\ufeff\ufffe\uffff]/;
// eslint-disable-next-line no-control-regex
const JSON_RAW = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let crashes = 0;
const fail = (what, input, out) => {
  crashes++;
  if (crashes <= 10) console.error(`FAIL ${what}: ${JSON.stringify(input)} -> ${JSON.stringify(out)}`);
};
const started = Date.now();
for (let i = 0; i < runs; i++) {
  const length = Math.floor(next() ** 2 * 64);
  let s = '';
  for (let k = 0; k < length; k++) {
    const r = next();
    s += r < 0.3 ? String.fromCharCode(INTERESTING[Math.floor(next() * INTERESTING.length)])
      : r < 0.6 ? String.fromCharCode(0x20 + Math.floor(next() * 0x5f))
        : r < 0.7 ? String.fromCodePoint(0x10000 + Math.floor(next() * 0xfffff))
          : String.fromCharCode(Math.floor(next() * 0x10000));
  }
  const max = 1 + Math.floor(next() * 80);
  try {
    const out = outsideText(s, max);
    if (UNSAFE_OUT.test(out)) fail('unsafe character out', s, out);
    if (!out.isWellFormed()) fail('ill-formed UTF-16', s, out);
    if (Array.from(out).length > max) fail(`longer than ${max}`, s, out);
    if (outsideText(out, max) !== out) fail('not idempotent', s, out);
    const iso = isolated(s, max);
    if (iso !== out && iso !== `\u2068${out}\u2069`) fail('isolated', s, iso);
    const esc = escapeUnsafe(s);
    if (UNSAFE_OUT.test(esc) || !esc.isWellFormed()) fail('escapeUnsafe', s, esc);
    const json = jsonSafe(JSON.stringify({ s }));
    if (JSON_RAW.test(json) || JSON.parse(json).s !== s) fail('jsonSafe', s, json);
  } catch (error) {
    fail(`threw ${error}`, s, null);
  }
}
const seconds = (Date.now() - started) / 1000;
console.log(`outsideText fuzz: ${runs.toLocaleString('en-US')} executions in ${seconds.toFixed(0)} s, ${crashes} failures`);
process.exitCode = crashes ? 1 : 0;
