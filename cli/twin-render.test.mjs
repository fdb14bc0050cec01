// Tests of `tcpscope render` of the merged view of two vantage points (issue 44, item 5;
// cli/twin-render.mjs): the one-way delay charts of a twin recording merged from its two
// captures, as SVG (the page's stack export) and PNG; the same from a compare link that
// carries the merged view (`twin-snap=`); and what is refused, with the reason and exit
// status. The commands run in this process by their own functions
// (cli/testing/in-process.mjs: a child process per figure cost ~1.7 CPU-s, issue 42
// item 1); the first figure and the first refusal also through a real child process of
// bin/tcpscope.mjs, which must write the same file and say the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWasm } from './wasm.mjs';
import { runInProcess } from './testing/in-process.mjs';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'tcpscope.mjs');
const example = (name) => join(root, 'public', 'examples', name);
const skip = (!existsSync(example('twin-rr-loss.pcap')) && 'no examples')
  || (!existsSync(join(root, 'build', 'render', 'render.mjs')) && 'renderer not built (npm run build:render)')
  || (!existsSync(join(root, 'wasm', 'pkg', 'tcpscope_core_bg.wasm')) && 'wasm not built (npm run build:wasm)');
const dir = mkdtempSync(join(tmpdir(), 'tcpscope-twin-render-test-'));

/** `tcpscope ARGS` through a real child process of bin/tcpscope.mjs. */
function spawned(...args) {
  const r = spawnSync(process.execPath, [...NODE_ARGS, bin, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
/** `tcpscope COMMAND ARGS` in this process: `{ code, stdout, stderr }` as spawned() gives them. */
const run = (...args) => runInProcess(...args);
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const pngSize = (bytes) => [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];

/** `analyze A --other-end B --json`: the merge's report, what the figures are drawn from. */
const analyzed = async (a, b) => JSON.parse((await run('analyze', example(a), '--other-end', example(b), '--json')).stdout);

/** Each nested chart of a figure: its chart id, direction, bins drawn and stall bands. */
function chartsOf(svg) {
  return [...svg.matchAll(/<svg [^>]*data-chart="one-way-delay"[^>]*>[\s\S]*?<\/svg>/g)].map(([chart]) => ({
    direction: Number(chart.match(/data-direction="(\d)"/)[1]),
    bins: Number(chart.match(/class="tcps-twin-delay" data-bins="(\d+)"/)[1]),
    stalls: (chart.match(/<rect class="tcps-twin-stall /g) ?? []).length,
  }));
}

test('--other-end --chart oneway: both directions\' one-way delay under a title line, the engine\'s bins and stalls', { skip }, async () => {
  const report = await analyzed('twin-rr-loss.pcap', 'twin-rr-loss-server.pcap');
  const pair = report.pairs[0];
  const out = join(dir, 'oneway.svg');
  const r = await run('render', example('twin-rr-loss.pcap'), '--other-end', example('twin-rr-loss-server.pcap'), '--chart', 'oneway', '--out', out);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const svg = readFileSync(out, 'utf8');
  // bin/tcpscope.mjs, a child process, writes the same figure.
  const viaBin = join(dir, 'oneway-bin.svg');
  const child = spawned('render', example('twin-rr-loss.pcap'), '--other-end', example('twin-rr-loss-server.pcap'), '--chart', 'oneway', '--out', viaBin);
  assert.equal(child.code, 0, child.stderr);
  assert.equal(child.stderr, '');
  assert.equal(readFileSync(viaBin, 'utf8'), svg, 'bin/tcpscope.mjs writes the in-process figure');
  // 50 px of title lines over two charts of the page's 200 px (TwinArea.tsx), 800 px wide.
  assert.match(svg, /^<svg [^>]*data-chart="stack" width="800" height="450"/);
  assert.equal(svg.match(/xmlns="/g).length, 1, 'one namespace declaration (valid XML)');
  assert.match(svg, /<text class="tcps-export-title"[^>]*>Two vantage points: one-way delay<\/text>/);
  assert.match(svg, new RegExp(`<text class="tcps-export-title"[^>]*>${pair.senderSide.endpoints.join(' → ')}, queued: ${pair.queued}; clock offset `));
  // Every bin of each direction and every stall, placed, as the engine's report lists them.
  assert.deepEqual(chartsOf(svg), pair.directions.map((d, k) => ({ direction: k, bins: d.delaySeries.length, stalls: pair.stalls.filter((s) => s.direction === k).length })));
  assert.ok(pair.stalls.length > 0, 'its first connection has stalls to draw');
  assert.doesNotMatch(svg, /var\(--/);
});

test('--chart twin: each capture\'s time-sequence over each direction\'s one-way delay, in the page\'s order', { skip }, async () => {
  const out = join(dir, 'twin.svg');
  const r = await run('render', example('twin-forward-loss.pcap'), '--other-end', example('twin-forward-loss-server.pcap'), '--chart', 'twin', '--out', out);
  assert.equal(r.code, 0, r.stderr);
  const svg = readFileSync(out, 'utf8');
  // 50 px of title lines, two time-sequence charts of 260 px and two delay charts of 200 (TwinArea.tsx).
  assert.match(svg, /^<svg [^>]*data-chart="stack" width="800" height="970"/);
  assert.deepEqual([...svg.matchAll(/<svg [^>]*data-chart="([\w-]+)"/g)].map((m) => m[1]), ['stack', 'twin-sequence', 'twin-sequence', 'one-way-delay', 'one-way-delay']);
  assert.match(svg, /<text class="tcps-export-title"[^>]*>Two vantage points: time-sequence and one-way delay<\/text>/);
  // The files' names, in the charts' descriptions.
  assert.match(svg, /as the capture near the sender \(twin-forward-loss-server\.pcap\) saw them/);
});

test('--direction 1 as PNG: the return direction alone, 2 × its size', { skip }, async () => {
  const out = join(dir, 'return.png');
  const r = await run('render', example('twin-forward-loss.pcap'), '--other-end', example('twin-forward-loss-server.pcap'), '--direction', '1', '--width', '640', '--out', out);
  assert.equal(r.code, 0, r.stderr);
  const png = readFileSync(out);
  assert.deepEqual([...png.subarray(0, 8)], PNG_SIGNATURE);
  assert.deepEqual(pngSize(png), [1280, 400]);
});

test('a compare link that carries the merged view renders it, from the link alone', { skip }, async () => {
  const { wasm } = await loadWasm();
  const merge = new wasm.WasmTwin(Number.NaN);
  merge.push(0, readFileSync(example('twin-rr-loss.pcap')));
  merge.push(1, readFileSync(example('twin-rr-loss-server.pcap')));
  const reportJson = merge.finish();
  merge.free();
  const { snapshot } = JSON.parse(wasm.twinLink(`{"share":{"report":${reportJson},"pair":0,"columns":900,"maxChars":0}}`));
  const link = `https://tcpscope.example/#compare=0,0&compare-snap=AAAA&twin-snap=${snapshot}&snap=AAAA`;
  const fromMerge = join(dir, 'merge.svg');
  const fromLink = join(dir, 'link.svg');
  assert.equal((await run('render', example('twin-rr-loss.pcap'), '--other-end', example('twin-rr-loss-server.pcap'), '--out', fromMerge)).code, 0);
  // No --chart: a link holding a merged view draws it. Saved in a file, the same.
  const r = await run('render', link, '--out', fromLink);
  assert.equal(r.code, 0, r.stderr);
  // Its pair has fewer bins than the link's 900 columns: every bin and stall is there.
  assert.deepEqual(chartsOf(readFileSync(fromLink, 'utf8')), chartsOf(readFileSync(fromMerge, 'utf8')));
  const saved = join(dir, 'link.txt');
  writeFileSync(saved, `${link}\n`);
  assert.equal((await run('render', saved, '--chart', 'oneway', '--direction', '0', '--out', join(dir, 'saved.svg'))).code, 0);
  assert.match(readFileSync(join(dir, 'saved.svg'), 'utf8'), /^<svg data-direction="0" [^>]*data-chart="one-way-delay"/);

  // A damaged merged view: the engine's sentence, exit 1, no figure.
  const damaged = await run('render', link.replace(snapshot, snapshot.slice(0, -40)), '--out', join(dir, 'damaged.svg'));
  assert.equal(damaged.code, 1);
  assert.match(damaged.stderr, /^tcpscope: This link's merged view is damaged and cannot be shown \(/);
  assert.ok(!existsSync(join(dir, 'damaged.svg')));
});

test('what cannot be drawn is refused with the reason', { skip }, async () => {
  const out = join(dir, 'refused.svg');
  const cases = [
    [[example('twin-rr-loss.pcap'), '--chart', 'oneway'], 2, /--chart oneway draws the merged view of two captures: give --other-end SERVER\.pcap, or a compare link that carries one \(twin-snap=\)/],
    [[example('twin-rr-loss.pcap'), '--other-end', example('twin-rr-loss-server.pcap'), '--chart', 'rtt'], 2, /with --other-end, --chart is oneway, twin-sequence, twin \(the merged view's charts\)/],
    [['https://x.example/#c=0&snap=AAAA', '--other-end', example('twin-rr-loss.pcap')], 2, /--other-end merges two captures; a link carries its merged view already/],
    [[example('twin-rr-loss.pcap'), '--other-end', join(dir, 'missing.pcap')], 1, /cannot open '.*missing\.pcap': no such file/],
    [[example('healthy.pcap'), '--other-end', example('twin-rr-loss.pcap')], 1, /the two captures were not merged: /],
    [[example('twin-rr-loss.pcap'), '--other-end', example('twin-rr-loss-server.pcap'), '--connection', '999'], 2, /connection 999 of the first capture was not found at the other end \(found at both: /],
  ];
  // The first case through bin/tcpscope.mjs too: the same status and lines.
  const child = spawned('render', ...cases[0][0], '--out', out);
  const inProcess = await run('render', ...cases[0][0], '--out', out);
  assert.deepEqual([child.code, child.stderr, child.stdout], [inProcess.code, inProcess.stderr, inProcess.stdout], 'bin/tcpscope.mjs says what the command says');
  for (const [args, code, message] of cases) {
    const r = await run('render', ...args, '--out', out);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.match(r.stderr, /\ntry: tcpscope help render\n$/);
  }
  assert.ok(!existsSync(out));
});
