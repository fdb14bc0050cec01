// Tests of `tcpscope series` (cli/series.mjs) through a real child process, over the
// wasm module built into wasm/pkg: what the engine draws agrees with the summary
// (`tcpscope analyze --json`) on every example capture.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInProcess } from './testing/in-process.mjs';
import { NODE_ARGS } from './testing/node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'tcpscope.mjs');
const examples = join(root, 'public', 'examples');
const manifest = join(examples, 'index.json');
const skip = !existsSync(manifest) && 'no examples';
const files = skip ? [] : JSON.parse(readFileSync(manifest, 'utf8')).map((e) => join(examples, e.file));

function run(...args) {
  const r = spawnSync(process.execPath, [...NODE_ARGS, bin, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** CSV → array of objects (numbers where the field is one); quoted fields unquoted. */
function parseCsv(text) {
  const rows = [];
  for (const line of text.trimEnd().split('\n')) {
    const fields = [];
    for (const m of line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)) {
      fields.push(m[1].startsWith('"') ? m[1].slice(1, -1).replaceAll('""', '"') : m[1]);
      if (m[2] === '') break;
    }
    rows.push(fields);
  }
  const [header, ...body] = rows;
  return body.map((f) => Object.fromEntries(header.map((h, i) => [h, f[i] !== '' && !Number.isNaN(Number(f[i])) ? Number(f[i]) : f[i]])));
}

// The tests that ask every example connection (~400 runs of `tcpscope series`) run the
// command in this process (cli/testing/in-process.mjs), not ~400 child processes; the
// usage errors, the hostile bin and the Wi-Fi strip go through bin/tcpscope.mjs.
const reports = new Map();
async function report(path) {
  if (!reports.has(path)) reports.set(path, JSON.parse((await runInProcess('analyze', path, '--json')).stdout));
  return reports.get(path);
}

test('usage errors exit 2 and say what is wrong', { skip }, () => {
  const file = files[0];
  assert.match(run('series').stderr, /missing CAPTURE/);
  assert.match(run('series', file, '--series', 'rtt', '--csv').stderr, /missing --connection/);
  assert.match(run('series', file, '--connection', '0', '--csv').stderr, /missing --series/);
  assert.match(run('series', file, '--connection', '0', '--series', 'speed', '--csv').stderr, /--series must be one of/);
  assert.match(run('series', file, '--connection', '0', '--series', 'rtt').stderr, /--csv or --json/);
  assert.match(run('series', file, '--connection', '0', '--series', 'rtt', '--csv', '--bin', '0').stderr, /--bin needs a positive number/);
  const r = run('series', file, '--connection', '999', '--series', 'rtt', '--csv');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no connection 999/);
});

test('the throughput CSV peaks at the summary peak, per direction', { skip }, async () => {
  for (const file of files) {
    for (const c of (await report(file)).connections) {
      for (const d of [0, 1]) {
        const r = await runInProcess('series', file, '--connection', String(c.id), '--series', 'throughput', '--direction', String(d), '--csv');
        assert.equal(r.code, 0, `${file}: ${r.stderr}`);
        if (file === files[0] && c === (await report(file)).connections[0]) {
          const spawned = run('series', file, '--connection', String(c.id), '--series', 'throughput', '--direction', String(d), '--csv');
          assert.deepEqual(spawned, r, 'bin/tcpscope.mjs prints what the in-process run printed');
        }
        const rows = parseCsv(r.stdout);
        const peak = Math.max(0, ...rows.map((x) => x.bps));
        assert.equal(peak, c.directions[d].throughput.peakBps, `${file} #${c.id} dir ${d}`);
        assert.equal(rows.reduce((s, x) => s + x.bytes, 0), c.directions[d].payloadBytes);
        for (const x of rows) assert.ok(x.end_s > x.start_s);
      }
    }
  }
});

test('the stalls CSV is the summary stall list, with causes', { skip }, async () => {
  for (const file of files) {
    for (const c of (await report(file)).connections) {
      const d = c.dataDirection;
      const r = await runInProcess('series', file, '--connection', String(c.id), '--series', 'stalls', '--direction', String(d), '--csv');
      assert.equal(r.code, 0, r.stderr);
      const rows = parseCsv(r.stdout);
      const want = c.directions[d].stalls;
      assert.equal(rows.length, want.length, `${file} #${c.id}`);
      rows.forEach((x, i) => {
        assert.equal(x.start_s, want[i].start);
        assert.equal(x.end_s, want[i].start + want[i].duration);
        assert.equal(x.cause, want[i].cause);
        assert.equal(x.frame_before, want[i].frameBefore);
        assert.equal(x.ended_by, want[i].endedBy);
      });
    }
  }
});

test('window-limited JSON adds up to the diagnosis share', { skip }, async () => {
  for (const file of files) {
    for (const c of (await report(file)).connections) {
      const r = await runInProcess('series', file, '--connection', String(c.id), '--series', 'window-limited', '--json');
      assert.equal(r.code, 0, r.stderr);
      const v = JSON.parse(r.stdout);
      assert.equal(v.kind, 'intervals');
      const share = v.activeSeconds > 0 ? v.totalSeconds / v.activeSeconds : 0;
      assert.ok(Math.abs(share - c.diagnosis.shares.receiveWindow) < 1e-9, `${file} #${c.id}: ${share} vs ${c.diagnosis.shares.receiveWindow}`);
    }
  }
});

test('point series: at most one row per pixel column, edges marked', { skip }, async () => {
  const file = join(examples, 'loss-1pct.pcap');
  const c = (await report(file)).connections.reduce((a, b) => (b.packets > a.packets ? b : a));
  for (const series of ['inflight', 'rwnd', 'rtt', 'sequence']) {
    const r = await runInProcess('series', file, '--connection', String(c.id), '--series', series, '--columns', '200', '--from', String(c.start + 1), '--csv');
    assert.equal(r.code, 0, r.stderr);
    const rows = parseCsv(r.stdout);
    const cols = rows.filter((x) => x.kind === 'column');
    assert.ok(cols.length > 0 && cols.length <= 200, `${series}: ${cols.length}`);
    assert.equal(rows.filter((x) => x.kind === 'before').length, 1, series);
    for (const x of cols) assert.ok(x.min_bytes ?? x.min_ms ?? x.min_seq) ;
    if (series === 'sequence') assert.ok(rows.some((x) => x.kind === 'marker'), 'loss shows retransmission markers');
  }
});

test('a hostile bin is raised, said on stderr, and bounded by the columns', { skip }, async () => {
  const file = join(examples, 'healthy.pcap');
  const c = (await report(file)).connections.reduce((a, b) => (b.packets > a.packets ? b : a));
  const r = run('series', file, '--connection', String(c.id), '--series', 'throughput', '--bin', '0.000001', '--columns', '100', '--json');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /clamped: bin raised from 1 µs to .*: at most 4 bins per pixel column/);
  const v = JSON.parse(r.stdout);
  assert.ok(v.bytes.length <= 400);
  assert.ok(v.clamped.length >= 1);
});

test('event counts add up to the report: retransmissions, duplicate ACKs, zero windows', { skip }, async () => {
  // cubic-loss.pcap: 28 fast retransmissions on the data direction (retrans_kinds_captures.rs).
  const file = join(examples, 'cubic-loss.pcap');
  for (const c of (await report(file)).connections) {
    const d = c.dataDirection;
    const sum = async (series) => {
      const r = await runInProcess('series', file, '--connection', String(c.id), '--series', series, '--direction', String(d), '--csv');
      assert.equal(r.code, 0, r.stderr);
      return parseCsv(r.stdout).reduce((s, x) => s + x.events, 0);
    };
    // Retransmissions are the sender's; duplicate ACKs and zero windows the peer's.
    assert.equal(await sum('retransmissions'), c.directions[d].retransmissions, `#${c.id}`);
    assert.equal(await sum('duplicate-acks'), c.directions[1 - d].duplicateAcks, `#${c.id}`);
    assert.equal(await sum('zero-windows'), c.directions[1 - d].zeroWindows, `#${c.id}`);
  }
});

test('the Wi-Fi CSV is the strip: frames, PHY rate and Retry share per bin', { skip }, async () => {
  const file = join(examples, 'wifi-retry.pcap');
  const c = (await report(file)).connections.reduce((a, b) => (b.packets > a.packets ? b : a));
  const r = run('series', file, '--connection', String(c.id), '--series', 'wifi', '--csv');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.split('\n')[0], 'start_s,end_s,frames,phy_rate_mbps,retry_share');
  const rows = parseCsv(r.stdout);
  assert.ok(rows.some((x) => x.frames > 0), 'the capture has 802.11 frames');
  for (const x of rows) assert.ok(x.retry_share === '' || (x.retry_share >= 0 && x.retry_share <= 1));
});
