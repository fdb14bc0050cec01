// `node bench/cpu-split.mjs FILE [--first MIB] [--cold] [--settle MS]`: where a load's CPU
// goes in the wasm engine under Node (issue 41's pipelined-load question, bench/README.md
// session 31), the file read into memory first (not counted). Process CPU (user + system,
// V8's compiler threads included) and wall time, in ms, of: decoding alone (WasmDecoder),
// decoding + the per-packet analysis (WasmSession.push, 16 MiB pieces), finish and the
// first connection's prepare; two repetitions (the first also grows wasm memory).
// `--first MIB`: only the first MIB MiB, pushed in 1 MiB pieces (what the progressive
// view decodes before its first table), three repetitions. `--cold`: no warm-up first
// (wasm/src/warm_up.rs); else the warm-up runs, then `--settle` ms (default 0) pass so
// that V8 can finish compiling the optimised code it asked for.
import { readFileSync } from 'node:fs';
import { loadWasm } from '../cli/wasm.mjs';

const args = process.argv.slice(2);
const file = args.find((a, i) => !a.startsWith('--') && !['--first', '--settle'].includes(args[i - 1]));
const opt = (name) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : null);
if (!file) {
  console.error('usage: node bench/cpu-split.mjs FILE [--first MIB] [--cold] [--settle MS]');
  process.exit(2);
}
const loaded = await loadWasm();
if (!loaded) throw new Error('wasm/pkg is not built: run `bash scripts/build-wasm.sh`');
const { wasm } = loaded;
if (!args.includes('--cold')) while (wasm.warmUpStep());
await new Promise((r) => setTimeout(r, opt('--settle') ?? 0));
const first = opt('--first');
const bytes = first ? readFileSync(file).subarray(0, first << 20) : readFileSync(file);
const piece = first ? 1 << 20 : 16 << 20;
/** [cpu ms, wall ms] of f(). */
function timed(f) {
  const c = process.cpuUsage();
  const t = performance.now();
  f();
  const d = process.cpuUsage(c);
  return [Math.round((d.user + d.system) / 1000), Math.round(performance.now() - t)];
}
const pushAll = (engine) => { for (let at = 0; at < bytes.length; at += piece) engine.push(bytes.subarray(at, at + piece)); };
for (let rep = 0; rep < (first ? 3 : 2); rep++) {
  const out = { rep, note: '[cpu ms, wall ms]' };
  if (!first) {
    const d = new wasm.WasmDecoder();
    out.decode = timed(() => pushAll(d));
    d.free();
  }
  const s = new wasm.WasmSession(Number.NaN);
  out.push = timed(() => pushAll(s));
  out.packets = Number(s.packets());
  if (!first) {
    out.finish = timed(() => s.finish());
    out.prepare = timed(() => wasm.viewPrepare(s, 1, 0));
  }
  s.free();
  console.log(JSON.stringify(out));
}
