// Tests of `tcpscope render` (cli/render.mjs): an example chart as SVG (the page's export
// format) and as PNG (resvg, 2 × like the page's PNG), the view from a permalink fragment
// or a share link, and bad arguments → a message naming what is wrong and exit status 2.
// The figures are drawn in this process by the command's own function
// (cli/testing/in-process.mjs: a child process per figure cost ~1.7 CPU-s, issue 42
// item 1); the first figure and the first bad argument also through a real child process
// of bin/tcpscope.mjs, which must write the same file and say the same.
// That the SVG equals the page's own export is e2e/render.spec.ts (it needs the page in
// Chromium).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInProcess } from './testing/in-process.mjs';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'tcpscope.mjs');
const capture = join(root, 'public', 'examples', 'stalls.pcap');
const skip = (!existsSync(capture) && 'no examples') || (!existsSync(join(root, 'build', 'render', 'render.mjs')) && 'renderer not built (npm run build:render)');
const dir = mkdtempSync(join(tmpdir(), 'tcpscope-render-test-'));

/** `tcpscope render ARGS` through a real child process of bin/tcpscope.mjs. */
function spawned(...args) {
  const r = spawnSync(process.execPath, [...NODE_ARGS, bin, 'render', ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
/** `tcpscope render ARGS` in this process: `{ code, stdout, stderr }` as spawned() gives them. */
const run = (...args) => runInProcess('render', ...args);
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Width and height from the IHDR chunk (PNG spec §11.2.2: right after the signature and chunk header). */
const pngSize = (bytes) => [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];

test('an example chart as standalone SVG: the page chart, sized, styled, with its paths', { skip }, async () => {
  const out = join(dir, 'rtt.svg');
  const r = await run(capture, '--chart', 'rtt', '--out', out);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const svg = readFileSync(out, 'utf8');
  // bin/tcpscope.mjs, a child process, writes the same figure.
  const viaBin = join(dir, 'rtt-bin.svg');
  const child = spawned(capture, '--chart', 'rtt', '--out', viaBin);
  assert.equal(child.code, 0, child.stderr);
  assert.equal(child.stderr, '');
  assert.equal(readFileSync(viaBin, 'utf8'), svg, 'bin/tcpscope.mjs writes the in-process figure');
  assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal(svg.match(/xmlns="/g).length, 1, 'one namespace declaration (valid XML)');
  // Default size: 800 px wide, the page's RTT chart height (ConnectionCharts DEFAULT_HEIGHTS).
  assert.match(svg, /^<svg [^>]*width="800" height="190"/);
  assert.match(svg, /data-chart="rtt"/);
  assert.match(svg, /<title [^>]*>Round-trip time<\/title>/);
  // stalls.pcap connection 0: the minimum RTT is 10.22 ms (link RTT 10 ms + serialisation).
  assert.match(svg, /min RTT 10\.22 ms/);
  assert.match(svg, /<path class="tcps-rtt tcps-dots tcps-rtt-kind-0" [^>]*d="M[\d.,MVL-]+"/);
  // Light theme: white background, the theme's colours inlined as a browser computes them.
  assert.match(svg, /class="tcps-export-background" [^>]*fill="rgb\(255, 255, 255\)"/);
  assert.doesNotMatch(svg, /var\(--/);
  assert.doesNotMatch(svg, /tcps-interact|tcps-overlay/, 'no live-only layers');
});

test('--chart stack: the view\'s charts on one time axis under the diagnosis headline, as SVG and PNG (issue 42, item 4)', { skip }, async () => {
  const out = join(dir, 'stack.svg');
  const r = await run(capture, '--chart', 'stack', '--view', '#charts=throughput,stalls', '--width', '640', '--out', out);
  assert.equal(r.code, 0, r.stderr);
  const svg = readFileSync(out, 'utf8');
  // 50 px of title lines, then the page's heights of the two charts (ConnectionCharts DEFAULT_HEIGHTS 230 + 110).
  assert.match(svg, /^<svg [^>]*data-chart="stack" width="640" height="390"/);
  assert.equal(svg.match(/xmlns="/g).length, 1, 'one namespace declaration (valid XML)');
  assert.deepEqual([...svg.matchAll(/<svg [^>]*data-chart="(\w+)"/g)].map((m) => m[1]), ['stack', 'throughput', 'stalls']);
  // stalls.pcap connection 0 is limited by packet loss (tcpscope analyze's limit for it).
  assert.match(svg, /<text class="tcps-export-title"[^>]*>Why was it slow\? Limited by packet loss<\/text>/);
  const png = join(dir, 'stack.png');
  assert.equal((await run(capture, '--chart', 'stack', '--view', '#charts=throughput,stalls', '--width', '640', '--scale', '1', '--out', png)).code, 0);
  assert.deepEqual(pngSize(readFileSync(png)), [640, 390]);
});

test('PNG: the signature and 2 × the SVG size (--scale 1: the SVG size)', { skip }, async () => {
  const out = join(dir, 'seq.png');
  const r = await run(capture, '--chart', 'sequence', '--width', '640', '--height', '320', '--theme', 'dark', '--out', out);
  assert.equal(r.code, 0, r.stderr);
  const png = readFileSync(out);
  assert.deepEqual([...png.subarray(0, 8)], PNG_SIGNATURE);
  assert.deepEqual(pngSize(png), [1280, 640]);
  const one = join(dir, 'seq1.png');
  assert.equal((await run(capture, '--chart', 'sequence', '--width', '640', '--height', '320', '--scale', '1', '--out', one)).code, 0);
  assert.deepEqual(pngSize(readFileSync(one)), [640, 320]);
});

test('the view of a permalink fragment: connection, range, chart and theme; options win', { skip }, async () => {
  const out = join(dir, 'view.svg');
  const r = await run(capture, '--view', '#c=0&t=0.5,1&charts=stalls,rtt&theme=dark', '--out', out);
  assert.equal(r.code, 0, r.stderr);
  const svg = readFileSync(out, 'utf8');
  assert.match(svg, /data-chart="stalls"/, 'the first chart of the fragment');
  assert.match(svg, /class="tcps-export-background" [^>]*fill="rgb\(21, 24, 28\)"/, 'dark background (charts.css --tcps-bg)');
  const ticks = [...svg.matchAll(/<g class="tick"[^>]*transform="translate\([\d.]+,0\)"[^>]*>.*?<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
  // The time axis spans 0.5–1 s: ticks 0.5, 0.7, 0.9.
  assert.ok(ticks.length >= 2 && Number(ticks[0]) === 0.5 && ticks.every((t) => Number(t) >= 0.5 && Number(t) <= 1), ticks.join(' '));
  assert.equal((await run(capture, '--view', '#c=0&t=0.5,1&charts=stalls', '--chart', 'rtt', '--out', out)).code, 0);
  assert.match(readFileSync(out, 'utf8'), /data-chart="rtt"/);
  // A part the page would refuse is said, as the page says it, and left out of the figure.
  const odd = await run(capture, '--view', '#c=0&bin=oops&charts=stalls', '--out', out);
  assert.equal(odd.code, 0, odd.stderr);
  assert.match(odd.stderr, /^tcpscope: warning: #bin=oops was ignored: /m);
});

test('a share link renders from what it holds, with the view it carries', { skip }, async () => {
  const made = spawnSync(process.execPath, [...NODE_ARGS, bin, 'share', capture, '--connection', '0'], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const out = join(dir, 'link.svg');
  const r = await run(made.stdout.trim(), '--chart', 'throughput', '--out', out);
  assert.equal(r.code, 0, r.stderr);
  assert.match(readFileSync(out, 'utf8'), /data-chart="throughput"[^>]*>.*<path class="tcps-rate tcps-s-payload tcps-area"[^>]* d="M/s);
});

test('bad arguments: a message naming what is wrong, then the help; exit status 2 (1 for a capture that cannot be read), no file', { skip }, async () => {
  const out = join(dir, 'never.svg');
  const cases = [
    [[capture], /^tcpscope: missing --out FILE\.svg or FILE\.png$/],
    [[capture, '--out', join(dir, 'x.gif')], /^tcpscope: --out must end in \.svg or \.png, got '.*x\.gif'$/],
    [[capture, '--chart', 'pie', '--out', out], /^tcpscope: --chart must be one of throughput, inflight, stalls, sequence, rtt.*, got 'pie'$/],
    [[capture, '--width', '10', '--out', out], /^tcpscope: --width needs a whole number of pixels from 200 to 10000, got '10'$/],
    [[capture, '--theme', 'blue', '--out', out], /^tcpscope: --theme is light or dark, got 'blue'$/],
    [[capture, '--from', '2', '--to', '1', '--out', out], /^tcpscope: --to must be after --from$/],
    [[capture, '--frobnicate', '--out', out], /^tcpscope: unknown option '--frobnicate'$/],
    [[capture, '--connection', '99', '--out', out], /^tcpscope: no connection 99 in .*stalls\.pcap \(connections: 0\.\.0\)$/],
    [[join(dir, 'missing.pcap'), '--out', out], /^tcpscope: cannot open '.*missing\.pcap': no such file$/, 1],
  ];
  // The first case through bin/tcpscope.mjs too: the same status and lines.
  const [firstArgs] = cases[0];
  const child = spawned(...firstArgs);
  const inProcess = await run(...firstArgs);
  assert.deepEqual([child.code, child.stderr, child.stdout], [inProcess.code, inProcess.stderr, inProcess.stdout], 'bin/tcpscope.mjs says what the command says');
  for (const [args, message, code = 2] of cases) {
    const r = await run(...args);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr.split('\n')[0], message);
    assert.equal(r.stderr.split('\n')[1], 'try: tcpscope help render');
    assert.ok(!existsSync(out), 'nothing written');
  }
});
